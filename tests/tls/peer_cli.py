"""Command lines and process handling for the TLCP peers built from source.

GmSSL 3 (``gmssl tlcp_server`` / ``tlcp_client``) and Tongsuo's ``openssl``
(``s_server -enable_ntls`` / ``s_client -enable_ntls -ntls``), as
scripts/peers.sh builds them, run against the test PKI in tests/vectors/tlcp.
Shared by tests/tls and scripts/tls_interop_matrix.py so that both run the
exact same commands.

What the commands encode (measured 2026-12-07 with GmSSL 3.3.0-dev @24ae482 and
Tongsuo 8.5.0-pre2 @540603a):
- GmSSL's server takes one certificate file (sign, enc, chain) and one key file
  (sign key, enc key, both encrypted with one password).  Its client sends a
  single signing chain for ECC suites and the double chain only when an ECDHE
  suite is offered.  Its ECDHE server needs ``-cacert``/``-cert_request`` (it
  cannot build a CertificateRequest without CA names).
- Tongsuo's ``s_client -ntls`` alone dies in the generic state machine; with
  ``-enable_ntls`` before it, it speaks NTLS.  It sends its NTLS certificates
  without intermediates whatever ``-cert_chain`` says, so a server facing it
  trusts ``ca-bundle.pem``.  ``-no_ticket``: GmSSL's server silently drops a
  ClientHello carrying session_ticket.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType

PASSWORD = "shangmi-test"  # tests/vectors/tlcp/*.enc-key.pem, *-gmssl-keys.pem

# Tongsuo's names -> GmSSL's names
GMSSL_SUITES = {
    "ECC-SM2-SM4-CBC-SM3": "TLS_ECC_SM4_CBC_SM3",
    "ECC-SM2-SM4-GCM-SM3": "TLS_ECC_SM4_GCM_SM3",
    "ECDHE-SM2-SM4-CBC-SM3": "TLS_ECDHE_SM4_CBC_SM3",
    "ECDHE-SM2-SM4-GCM-SM3": "TLS_ECDHE_SM4_GCM_SM3",
}


def free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port: int = s.getsockname()[1]
    s.close()
    return port


def listening(port: int) -> bool:
    """Whether something listens on ``port`` (Linux /proc), without connecting:
    a probe connection would cost a one-connection-at-a-time server a handshake."""
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(name).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if int(parts[1].rsplit(":", 1)[1], 16) == port and parts[3] == "0A":
                return True
    return False


def gmssl_server_cmd(gmssl: str, pki: Path, suite: str, port: int, client_cert: bool,
                     ca: str = "root-ca.pem") -> list[str]:
    cmd = [gmssl, "tlcp_server", "-port", str(port), "-cert", str(pki / "server-gmssl-certs.pem"),
           "-key", str(pki / "server-gmssl-keys.pem"), "-pass", PASSWORD, "-cipher_suite", GMSSL_SUITES[suite],
           "-www"]
    if client_cert:
        cmd += ["-cacert", str(pki / ca), "-cert_request"]
    return cmd


def gmssl_client_cmd(gmssl: str, pki: Path, suite: str, port: int, client_cert: bool) -> list[str]:
    cmd = [gmssl, "tlcp_client", "-host", "127.0.0.1", "-port", str(port), "-server_name", "localhost",
           "-cacert", str(pki / "root-ca.pem"), "-cipher_suite", GMSSL_SUITES[suite], "-get", "/"]
    if client_cert:
        if suite.startswith("ECDHE"):
            cmd += ["-cert", str(pki / "client-gmssl-certs.pem"), "-key", str(pki / "client-gmssl-keys.pem")]
        else:
            cmd += ["-cert", str(pki / "client-sign-chain.pem"), "-key", str(pki / "client-sign.enc-key.pem")]
        cmd += ["-pass", PASSWORD]
    return cmd


def tongsuo_server_cmd(openssl: str, pki: Path, suite: str, port: int, client_cert: bool,
                       ca: str = "root-ca.pem") -> list[str]:
    cmd = [openssl, "s_server", "-accept", f"127.0.0.1:{port}", "-enable_ntls",
           "-sign_cert", str(pki / "server-sign.pem"), "-sign_key", str(pki / "server-sign.key.pem"),
           "-enc_cert", str(pki / "server-enc.pem"), "-enc_key", str(pki / "server-enc.key.pem"),
           "-cert_chain", str(pki / "chain.pem"), "-CAfile", str(pki / ca), "-cipher", suite, "-www"]
    if client_cert:
        cmd += ["-Verify", "3", "-verify_return_error"]
    return cmd


def tongsuo_client_cmd(openssl: str, pki: Path, suite: str, port: int, client_cert: bool) -> list[str]:
    """Feed it the request on stdin; it prints the response (and "Cipher is NAME")."""
    cmd = [openssl, "s_client", "-connect", f"127.0.0.1:{port}", "-enable_ntls", "-ntls", "-cipher", suite,
           "-CAfile", str(pki / "root-ca.pem"), "-verify_return_error", "-servername", "localhost",
           "-verify_hostname", "localhost", "-ign_eof", "-no_ticket"]
    if client_cert:
        cmd += ["-sign_cert", str(pki / "client-sign.pem"), "-sign_key", str(pki / "client-sign.key.pem"),
                "-enc_cert", str(pki / "client-enc.pem"), "-enc_key", str(pki / "client-enc.key.pem"),
                "-cert_chain", str(pki / "chain.pem")]
    return cmd


class PeerProcess:
    """A server command run until the ``with`` block ends: started, waited for
    until it listens on ``port``, then killed (it is this object's own child)
    and its output kept in ``stdout``/``stderr``."""

    def __init__(self, cmd: list[str], port: int, timeout: float = 10.0) -> None:
        self.cmd = cmd
        self.port = port
        self.timeout = timeout
        self.stdout = ""
        self.stderr = ""
        self._proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> PeerProcess:
        self._out = tempfile.TemporaryFile()
        self._err = tempfile.TemporaryFile()
        self._proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=self._out, stderr=self._err)
        deadline = time.monotonic() + self.timeout
        while not listening(self.port):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self.__exit__(None, None, None)
                raise RuntimeError(f"{self.cmd[0]} {self.cmd[1]} did not listen on {self.port}: {self.stderr[-300:]}")
            time.sleep(0.05)
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        if self._proc is not None:
            if self._proc.poll() is None:
                self._proc.kill()
            self._proc.wait(5)
            self._proc = None
            for f, attr in ((self._out, "stdout"), (self._err, "stderr")):
                f.seek(0)
                setattr(self, attr, f.read().decode(errors="replace"))
                f.close()


def run_client(cmd: list[str], stdin: bytes | None = None, timeout: float = 15.0) -> tuple[int, str, str]:
    """(return code, stdout, stderr); a client that outlives ``timeout`` is killed (rc -1)."""
    try:
        if stdin is None:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
        else:
            p = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
        return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else ""
        err = e.stderr.decode(errors="replace") if isinstance(e.stderr, bytes) else ""
        return -1, out, err + "\n(timed out)"


def env_binary(var: str) -> str | None:
    path = os.environ.get(var)
    return path if path and os.access(path, os.X_OK) else None
