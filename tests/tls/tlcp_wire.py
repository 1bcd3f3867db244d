"""See what TLCP peers put on the wire: a recording TCP proxy and a record parser.

``RecordingProxy(target_port)`` listens on 127.0.0.1, forwards one connection
at a time to the target and keeps every chunk with its direction.
``handshake_messages(...)`` rebuilds the plaintext handshake messages (before
ChangeCipherSpec) of both directions in protocol order, which is enough to
check the signatures in ServerKeyExchange and CertificateVerify against the
certificates (:func:`check_signatures`, using OpenSSL's ``pkeyutl`` as the
independent SM2 verifier, since it takes the SM2 ID as a parameter).
"""

from __future__ import annotations

import socket
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

CHANGE_CIPHER_SPEC = 20
HANDSHAKE = 22
HS_NAMES = {1: "ClientHello", 2: "ServerHello", 11: "Certificate", 12: "ServerKeyExchange",
            13: "CertificateRequest", 14: "ServerHelloDone", 15: "CertificateVerify", 16: "ClientKeyExchange",
            20: "Finished"}


@dataclass
class Capture:
    c2s: bytearray = field(default_factory=bytearray)
    s2c: bytearray = field(default_factory=bytearray)


class RecordingProxy:
    """127.0.0.1:``port`` -> 127.0.0.1:``target``; ``captures`` holds one Capture per connection."""

    def __init__(self, target: int, timeout: float = 10.0) -> None:
        self.target = target
        self.timeout = timeout
        self.captures: list[Capture] = []
        self._lst = socket.socket()
        self._lst.bind(("127.0.0.1", 0))
        self._lst.listen(8)
        self._lst.settimeout(0.1)
        self.port: int = self._lst.getsockname()[1]
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []

    def __enter__(self) -> RecordingProxy:
        t = threading.Thread(target=self._loop, daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(self.timeout + 2)
        self._lst.close()

    def _loop(self) -> None:
        while not self._stop.is_set():
            try:
                c, _ = self._lst.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            s = socket.create_connection(("127.0.0.1", self.target), timeout=self.timeout)
            cap = Capture()
            self.captures.append(cap)
            pumps = [threading.Thread(target=self._pump, args=(c, s, cap.c2s), daemon=True),
                     threading.Thread(target=self._pump, args=(s, c, cap.s2c), daemon=True)]
            for p in pumps:
                p.start()
            self._threads.extend(pumps)

    def _pump(self, src: socket.socket, dst: socket.socket, log: bytearray) -> None:
        src.settimeout(self.timeout)
        try:
            while data := src.recv(65536):
                log += data
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (dst, src):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass


def records(stream: bytes) -> list[tuple[int, int, bytes]]:
    """(content type, version, fragment) of each complete record."""
    out = []
    i = 0
    while i + 5 <= len(stream):
        ctype, ver, n = stream[i], int.from_bytes(stream[i + 1:i + 3], "big"), int.from_bytes(stream[i + 3:i + 5], "big")
        if i + 5 + n > len(stream):
            break
        out.append((ctype, ver, bytes(stream[i + 5:i + 5 + n])))
        i += 5 + n
    return out


def _plain_handshake(stream: bytes) -> list[tuple[int, bytes]]:
    """Handshake messages (type, whole message with header) before ChangeCipherSpec."""
    buf = bytearray()
    for ctype, _, frag in records(stream):
        if ctype == CHANGE_CIPHER_SPEC:
            break
        if ctype == HANDSHAKE:
            buf += frag
    msgs = []
    i = 0
    while i + 4 <= len(buf):
        n = int.from_bytes(buf[i + 1:i + 4], "big")
        msgs.append((buf[i], bytes(buf[i:i + 4 + n])))
        i += 4 + n
    return msgs


def handshake_messages(cap: Capture) -> list[tuple[str, int, bytes]]:
    """(direction "c"/"s", type, message) in protocol order for a full handshake:
    ClientHello; the server's flight; the client's flight up to its Finished."""
    c = _plain_handshake(bytes(cap.c2s))
    s = _plain_handshake(bytes(cap.s2c))
    # The server's first flight ends with ServerHelloDone; what it sends in the clear
    # after that (NewSessionTicket) answers the client's flight.
    cut = next((k + 1 for k, (t, _) in enumerate(s) if t == 14), len(s))
    return (
        [("c", *c[0])] + [("s", *m) for m in s[:cut]] + [("c", *m) for m in c[1:]] + [("s", *m) for m in s[cut:]]
    )


def _certs(cert_msg: bytes) -> list[bytes]:
    body = cert_msg[4:]
    total = int.from_bytes(body[:3], "big")
    i, out = 3, []
    while i < 3 + total:
        n = int.from_bytes(body[i:i + 3], "big")
        out.append(body[i + 3:i + 3 + n])
        i += 3 + n
    return out


def _verify(cert_der: bytes, msg: bytes, sig: bytes, sm2_id: bytes) -> bool:
    """OpenSSL 3's pkeyutl: SM2-with-SM3 over ``msg`` with Z computed from ``sm2_id``."""
    with tempfile.TemporaryDirectory() as d:
        dp = Path(d)
        (dp / "c.der").write_bytes(cert_der)
        pub = subprocess.run(["openssl", "x509", "-inform", "DER", "-in", str(dp / "c.der"), "-pubkey", "-noout"],
                             capture_output=True, check=True).stdout
        (dp / "pub.pem").write_bytes(pub)
        (dp / "m").write_bytes(msg)
        (dp / "s").write_bytes(sig)
        opt = ["-pkeyopt", "distid:" + sm2_id.decode()] if sm2_id else []
        r = subprocess.run(["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", str(dp / "pub.pem"), "-rawin",
                            "-digest", "sm3", *opt, "-in", str(dp / "m"), "-sigfile", str(dp / "s")],
                           capture_output=True)
        return r.returncode == 0


def _sm3(data: bytes) -> bytes:
    return subprocess.run(["openssl", "dgst", "-sm3", "-binary"], input=data, capture_output=True,
                          check=True).stdout


def check_signatures(cap: Capture, ids: tuple[bytes, ...] = (b"1234567812345678", b"")) -> dict[str, str]:
    """Which SM2 ID (and, for CertificateVerify, which signed content) verifies:
    {"ServerKeyExchange": "...", "CertificateVerify": "..."} (absent when not sent)."""
    msgs = handshake_messages(cap)
    by = {(d, t): m for d, t, m in msgs}
    out: dict[str, str] = {}
    ch, sh = by.get(("c", 1)), by.get(("s", 2))
    if ch is None or sh is None:
        return {"error": "no ClientHello/ServerHello captured"}
    client_random, server_random = ch[6:38], sh[6:38]
    server_certs = _certs(by[("s", 11)])
    ske = by.get(("s", 12))
    if ske is not None:
        body = ske[4:]
        # ECDHE: ECParameters (3) + point<1> before the signature; ECC: the signature only.
        if body[0] == 3 and len(body) > 4 + body[3]:
            params = body[:4 + body[3]]
            rest = body[4 + body[3]:]
            signed = client_random + server_random + params
        else:
            rest = body
            enc = server_certs[1]
            signed = client_random + server_random + len(enc).to_bytes(3, "big") + enc
        sig = rest[2:2 + int.from_bytes(rest[:2], "big")]
        ok = [i.decode() or "(empty)" for i in ids if _verify(server_certs[0], signed, sig, i)]
        out["ServerKeyExchange"] = f"verifies with ID {', '.join(ok)}" if ok else "verifies with none of the IDs"
    cv_index = next((k for k, (d, t, _) in enumerate(msgs) if d == "c" and t == 15), None)
    if cv_index is not None:
        transcript = b"".join(m for _, _, m in msgs[:cv_index])
        cv = msgs[cv_index][2][4:]
        sig = cv[2:2 + int.from_bytes(cv[:2], "big")]
        client_sign = _certs(by[("c", 11)])[0]
        found = []
        for label, content in (("the handshake messages", transcript), ("SM3(handshake messages)", _sm3(transcript))):
            for i in ids:
                if _verify(client_sign, content, sig, i):
                    found.append(f"signs {label} with ID {i.decode() or '(empty)'}")
        out["CertificateVerify"] = "; ".join(found) or "verifies in none of the forms tried"
    return out
