"""Live TLS 1.3 (RFC 8998) interop with OpenSSL 4, both directions.

The peer is the OpenSSL inside PyPI's ``cryptography`` driven by
``pyOpenSSL`` (``openssl4_peer``), so these run wherever ``pip install
shangmi[test]`` works, CI included. Certificates: tests/vectors/tlcp (made
by Tongsuo, SM2 ID 1234567812345678, which is OpenSSL's default too).
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from types import ModuleType

import pytest

from shangmi import tls

TLCP_PKI = Path(__file__).parent.parent / "vectors" / "tlcp"

SUITES = ["TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"]
# RFC 8446 §4.1.3: a ServerHello with this random is a HelloRetryRequest.
HRR_RANDOM = bytes.fromhex("CF21AD74E59A6111BE1D8C021E65B891C2A211167ABB8C5E079E09E2C8A8339C")

pytestmark = pytest.mark.timeout(120)


def _v(name: str) -> Path:
    return TLCP_PKI / name


@pytest.fixture
def server_chain(tmp_path: Path) -> Path:
    p = tmp_path / "server-chain.pem"
    p.write_bytes(_v("server-sign.pem").read_bytes() + _v("chain.pem").read_bytes())
    return p


def _client_ctx(suite: str | None = None, with_cert: bool = False) -> tls.TLSContext:
    ctx = tls.TLSContext("tls1.3")
    ctx.load_verify_locations(_v("root-ca.pem"))
    if suite:
        ctx.set_ciphers(suite)
    if with_cert:
        ctx.load_cert_chain(_v("client-sign-chain.pem"), _v("client-sign.key.pem"))
    return ctx


def _server_ctx(chain: Path, suite: str | None = None, require_client_cert: bool = False) -> tls.TLSContext:
    ctx = tls.TLSContext("tls1.3", server_side=True)
    ctx.load_cert_chain(chain, _v("server-sign.key.pem"))
    if suite:
        ctx.set_ciphers(suite)
    if require_client_cert:
        ctx.load_verify_locations(_v("root-ca.pem"))
        ctx.verify_mode = tls.CERT_REQUIRED
    return ctx


def _recv_line(s: tls.TLSSocket) -> bytes:
    got = b""
    while not got.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    return got


class ShangmiServer:
    """shangmi's TLS 1.3 server in a thread for ``count`` connections: each
    reads one line and answers ``hello from shangmi: <line>``; what each saw
    is kept in ``seen``."""

    def __init__(self, ctx: tls.TLSContext, count: int = 1) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.errors: list[BaseException] = []
        self.seen: list[dict[str, object]] = []
        self.thread = threading.Thread(target=self._run, args=(ctx, count), daemon=True)
        self.thread.start()

    def _run(self, ctx: tls.TLSContext, count: int) -> None:
        try:
            self.listener.settimeout(60)
            for _ in range(count):
                raw, _ = self.listener.accept()
                raw.settimeout(30)
                try:
                    with ctx.wrap_socket(raw, server_side=True) as s:
                        line = _recv_line(s)
                        s.sendall(b"hello from shangmi: " + line)
                        cert = s.getpeercert()
                        self.seen.append({"version": s.version(), "cipher": s.cipher(), "line": line,
                                          "reused": s.session_reused, "peer": cert})
                except BaseException as e:  # noqa: BLE001 - reported to the test
                    self.errors.append(e)
        except BaseException as e:  # noqa: BLE001
            self.errors.append(e)
        finally:
            self.listener.close()

    def join(self) -> None:
        self.thread.join(60)


class Relay:
    """A TCP relay in front of ``port`` keeping what the server sent, to see
    the HelloRetryRequest on the wire."""

    def __init__(self, port: int) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.from_server = bytearray()
        self.target = port
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _pump(self, src: socket.socket, dst: socket.socket, keep: bytearray | None) -> None:
        try:
            while True:
                b = src.recv(65536)
                if not b:
                    break
                if keep is not None:
                    keep.extend(b)
                dst.sendall(b)
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _run(self) -> None:
        self.listener.settimeout(60)
        a, _ = self.listener.accept()
        b = socket.create_connection(("127.0.0.1", self.target), timeout=30)
        t = threading.Thread(target=self._pump, args=(b, a, self.from_server), daemon=True)
        t.start()
        self._pump(a, b, None)
        t.join(30)
        a.close()
        b.close()
        self.listener.close()


def _talk(port: int, ctx: tls.TLSContext, session: object | None = None) -> tuple[tls.TLSSocket, bytes]:
    raw = socket.create_connection(("127.0.0.1", port), timeout=30)
    s = ctx.wrap_socket(raw, server_hostname="localhost", session=session)
    s.sendall(b"hello from shangmi\n")
    return s, _recv_line(s)


# ---- shangmi client, OpenSSL 4 server ---------------------------------------


@pytest.mark.parametrize("suite", SUITES)
def test_shangmi_client_openssl4_server(openssl4: ModuleType, server_chain: Path, suite: str) -> None:
    srv = openssl4.OpenSSL4Server(server_chain, _v("server-sign.key.pem"), suites=suite).start()
    try:
        s, reply = _talk(srv.port, _client_ctx())
        with s:
            assert reply == b"hello from openssl4: hello from shangmi\n"
            assert s.version() == "TLSv1.3" and s.cipher() == (suite, "TLSv1.3", 128)
            assert ("DNS", "localhost") in s.getpeercert()["subjectAltName"]
    finally:
        (rec,) = srv.records()
    assert rec.error is None, rec.error
    assert (rec.version, rec.cipher, rec.group) == ("TLSv1.3", suite, "curveSM2")
    assert rec.received == "hello from shangmi\n"


def test_shangmi_client_certificate_to_openssl4(openssl4: ModuleType, server_chain: Path) -> None:
    srv = openssl4.OpenSSL4Server(server_chain, _v("server-sign.key.pem"), ca=_v("root-ca.pem"),
                                  require_client_cert=True).start()
    try:
        s, reply = _talk(srv.port, _client_ctx(with_cert=True))
        with s:
            assert reply == b"hello from openssl4: hello from shangmi\n"
    finally:
        (rec,) = srv.records()
    assert rec.error is None, rec.error
    assert rec.peer_subject is not None and "OU=client" in rec.peer_subject
    # A server's SSL_get_peer_cert_chain leaves the client's leaf out: the intermediate came too.
    assert rec.peer_chain_len == 1


def test_openssl4_server_refuses_shangmi_without_certificate(openssl4: ModuleType, server_chain: Path) -> None:
    srv = openssl4.OpenSSL4Server(server_chain, _v("server-sign.key.pem"), ca=_v("root-ca.pem"),
                                  require_client_cert=True).start()
    try:
        with pytest.raises(tls.TLSError):
            s, _ = _talk(srv.port, _client_ctx())
            s.close()
    finally:
        (rec,) = srv.records()
    assert rec.error is not None


def test_shangmi_client_resumes_with_openssl4(openssl4: ModuleType, server_chain: Path) -> None:
    srv = openssl4.OpenSSL4Server(server_chain, _v("server-sign.key.pem"), count=2).start()
    ctx = _client_ctx()
    try:
        s, reply = _talk(srv.port, ctx)
        with s:
            assert reply.startswith(b"hello from openssl4")
            assert not s.session_reused
            session = s.session
        assert session is not None
        s, reply = _talk(srv.port, ctx, session=session)
        with s:
            assert reply.startswith(b"hello from openssl4")
            assert s.session_reused
    finally:
        recs = srv.records()
    assert [r.resumed for r in recs] == [False, True], recs


def test_shangmi_client_refuses_untrusted_openssl4(openssl4: ModuleType, tmp_path: Path) -> None:
    chain = tmp_path / "untrusted.pem"
    chain.write_bytes(_v("server-sign-untrusted.pem").read_bytes())
    srv = openssl4.OpenSSL4Server(chain, _v("server-sign-untrusted.key.pem")).start()
    try:
        with pytest.raises(tls.CertificateVerifyError):
            s, _ = _talk(srv.port, _client_ctx())
            s.close()
    finally:
        srv.records()


# ---- OpenSSL 4 client, shangmi server ---------------------------------------


def _check_server(srv: ShangmiServer, recs: list[object], n: int = 1) -> None:
    srv.join()
    assert not srv.errors, srv.errors
    assert len(srv.seen) == n


@pytest.mark.parametrize("suite", SUITES)
def test_openssl4_client_shangmi_server(openssl4: ModuleType, server_chain: Path, suite: str) -> None:
    srv = ShangmiServer(_server_ctx(server_chain, suite))
    (rec,) = openssl4.openssl4_client(srv.port, ca=_v("root-ca.pem"), suites=suite)
    _check_server(srv, [rec])
    assert rec.error is None, rec.error
    assert (rec.version, rec.cipher, rec.group) == ("TLSv1.3", suite, "curveSM2")
    assert rec.peer_chain_len == 2 and rec.peer_subject is not None and "CN=localhost" in rec.peer_subject
    assert rec.received == "hello from shangmi: hello from openssl4\n"
    assert srv.seen[0]["cipher"] == (suite, "TLSv1.3", 128)


def test_openssl4_client_certificate_to_shangmi(openssl4: ModuleType, server_chain: Path) -> None:
    srv = ShangmiServer(_server_ctx(server_chain, require_client_cert=True))
    (rec,) = openssl4.openssl4_client(srv.port, ca=_v("root-ca.pem"), cert=_v("client-sign-chain.pem"),
                                      key=_v("client-sign.key.pem"))
    _check_server(srv, [rec])
    assert rec.error is None, rec.error
    peer = srv.seen[0]["peer"]
    assert isinstance(peer, dict) and ((("organizationalUnitName", "client"),) in peer["subject"])


def test_openssl4_client_hello_retry_request(openssl4: ModuleType, server_chain: Path) -> None:
    """OpenSSL's default groups first (key shares for X25519MLKEM768 and
    X25519 only), curveSM2 last: shangmi's server asks again for curveSM2."""
    srv = ShangmiServer(_server_ctx(server_chain))
    relay = Relay(srv.port)
    (rec,) = openssl4.openssl4_client(relay.port, ca=_v("root-ca.pem"), groups=openssl4.DEFAULT_THEN_SM2)
    _check_server(srv, [rec])
    relay.thread.join(30)
    assert rec.error is None, rec.error
    assert rec.group == "curveSM2"
    # The first record is a ServerHello carrying the HelloRetryRequest random.
    first = bytes(relay.from_server[:5 + 4 + 2 + 32])
    assert first[0] == 22 and first[5] == 2 and first[11:43] == HRR_RANDOM


def test_openssl4_client_resumes_with_shangmi(openssl4: ModuleType, server_chain: Path) -> None:
    srv = ShangmiServer(_server_ctx(server_chain), count=2)
    recs = openssl4.openssl4_client(srv.port, ca=_v("root-ca.pem"), count=2)
    _check_server(srv, recs, n=2)
    assert [r.error for r in recs] == [None, None]
    assert [r.resumed for r in recs] == [False, True]
    assert [s["reused"] for s in srv.seen] == [False, True]


def test_openssl4_client_refuses_wrong_host(openssl4: ModuleType, tmp_path: Path) -> None:
    chain = tmp_path / "wrong-host.pem"
    chain.write_bytes(_v("server-sign-wrong-host.pem").read_bytes() + _v("chain.pem").read_bytes())
    ctx = tls.TLSContext("tls1.3", server_side=True)
    ctx.load_cert_chain(chain, _v("server-sign-wrong-host.key.pem"))
    srv = ShangmiServer(ctx)
    (rec,) = openssl4.openssl4_client(srv.port, ca=_v("root-ca.pem"))
    srv.join()
    assert rec.error is not None and "certificate verify failed" in rec.error
    assert srv.errors and isinstance(srv.errors[0], tls.TLSError)

