"""A real TLS 1.3 ShangMi (RFC 8998) peer for tests: the OpenSSL 4 inside
PyPI's ``cryptography``, driven through ``pyOpenSSL``.

OpenSSL 4.0 speaks TLS_SM4_GCM_SM3 / TLS_SM4_CCM_SM3, the curveSM2 group and
sm2sig_sm3 (with the RFC's SM2 ID for CertificateVerify and
1234567812345678 as its default certificate SM2 ID), but neither ``ssl``
nor pyOpenSSL names them, so:

- suites: ``SSL_CTX_set_ciphersuites`` and signature algorithms:
  ``SSL_CTX_set1_sigalgs_list``, both through ``OpenSSL._util.lib``;
- groups: the bindings have neither ``SSL_CTX_set1_groups_list`` nor
  ``SSL_CTX_ctrl``, so the group list comes from an ``OPENSSL_CONF`` file
  (``[system_default_sect] Groups = ...``). That file is read once, when the
  library initialises, so each peer runs in its own Python process (this
  file run as a script) with its own ``OPENSSL_CONF``: the test process may
  have loaded OpenSSL long before, and two peers may want different groups;
- keys: unencrypted PEM (PKCS#8 or SEC1); OpenSSL has no PBKDF2-HMAC-SM3
  for GmSSL's encrypted PKCS#8.

Python API (used by the tests): :func:`available`, :class:`OpenSSL4Server`
(a server process accepting ``count`` connections) and :func:`openssl4_client`
(a client process making ``count`` connections, each after the first offering
the previous one's session). Each connection, either role, reads one line,
answers ``hello from openssl4: <line>`` (server) or sends ``hello from
openssl4`` and reads the answer (client), and reports what was negotiated as
one JSON line (:class:`ConnRecord`).

Contracts: nothing blocks forever (every socket has a timeout; the
processes are killed on :meth:`OpenSSL4Server.stop` and by the client's
``timeout``); a failed handshake is reported as a record with ``error`` set,
never an exception in the peer process.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["ConnRecord", "OpenSSL4Server", "available", "openssl4_client", "openssl_version"]

SUITES = "TLS_SM4_GCM_SM3:TLS_SM4_CCM_SM3"
# OpenSSL 4's default TLS 1.3 groups first (X25519MLKEM768 and X25519 get key
# shares, curveSM2 none): a server that only has curveSM2 must answer with a
# HelloRetryRequest.
DEFAULT_THEN_SM2 = "DEFAULT:curveSM2"


def available() -> bool:
    """pyOpenSSL (and so cryptography's OpenSSL) can be imported."""
    return importlib.util.find_spec("OpenSSL") is not None


@dataclass
class ConnRecord:
    """What one connection negotiated, as the OpenSSL side saw it."""

    version: str | None = None
    cipher: str | None = None
    group: str | None = None
    resumed: bool = False
    peer_subject: str | None = None
    peer_chain_len: int = 0
    received: str = ""
    error: str | None = None

    @classmethod
    def from_json(cls, line: str) -> ConnRecord:
        return cls(**json.loads(line))


def _conf_file(groups: str) -> str:
    fd, path = tempfile.mkstemp(prefix="openssl4-", suffix=".cnf")
    with os.fdopen(fd, "w") as f:
        f.write(
            "openssl_conf = openssl_init\n"
            "[openssl_init]\nssl_conf = ssl_sect\n"
            "[ssl_sect]\nsystem_default = system_default_sect\n"
            f"[system_default_sect]\nGroups = {groups}\n"
        )
    return path


def _spawn(args: list[str], groups: str) -> tuple[subprocess.Popen[str], str]:
    conf = _conf_file(groups)
    env = dict(os.environ, OPENSSL_CONF=conf)
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).resolve()), *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )
    return proc, conf


def openssl_version() -> str:
    """The OpenSSL version string pyOpenSSL runs on (in a child process)."""
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "version"],
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


def _common_args(suites: str, sigalgs: str, ca: str | os.PathLike[str] | None,
                 cert: str | os.PathLike[str] | None, key: str | os.PathLike[str] | None) -> list[str]:
    a = ["--suites", suites, "--sigalgs", sigalgs]
    if ca is not None:
        a += ["--ca", str(ca)]
    if cert is not None:
        a += ["--cert", str(cert), "--key", str(key if key is not None else cert)]
    return a


@dataclass
class OpenSSL4Server:
    """An OpenSSL 4 TLS 1.3 server process: ``cert`` is the chain (leaf
    first), ``key`` its unencrypted key; ``ca`` with ``require_client_cert``
    asks for and checks a client certificate."""

    cert: str | os.PathLike[str]
    key: str | os.PathLike[str]
    suites: str = SUITES
    groups: str = "curveSM2"
    sigalgs: str = "sm2sig_sm3"
    ca: str | os.PathLike[str] | None = None
    require_client_cert: bool = False
    count: int = 1
    timeout: float = 20.0
    port: int = 0
    _proc: subprocess.Popen[str] | None = field(default=None, repr=False)
    _conf: str | None = field(default=None, repr=False)

    def start(self) -> OpenSSL4Server:
        args = ["server", "--count", str(self.count), "--timeout", str(self.timeout),
                *_common_args(self.suites, self.sigalgs, self.ca, self.cert, self.key)]
        if self.require_client_cert:
            args.append("--verify")
        self._proc, self._conf = _spawn(args, self.groups)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"openssl4 server did not start: {line!r} {self._stderr()}")
        self.port = int(line.split()[1])
        return self

    def _stderr(self) -> str:
        if self._proc is None or self._proc.stderr is None or self._proc.poll() is None:
            return ""
        return self._proc.stderr.read()

    def records(self, timeout: float = 30.0) -> list[ConnRecord]:
        """Waits for the process to finish its ``count`` connections and
        returns their records."""
        assert self._proc is not None
        try:
            out, err = self._proc.communicate(timeout=timeout)
        finally:
            self.stop()
        recs = [ConnRecord.from_json(l) for l in out.splitlines() if l.startswith("{")]
        if len(recs) != self.count and not err.strip() == "":
            raise RuntimeError(f"openssl4 server: {err}")
        return recs

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.communicate()
        if self._conf is not None:
            os.unlink(self._conf)
            self._conf = None


def openssl4_client(port: int, *, ca: str | os.PathLike[str] | None, server_name: str = "localhost",
                    suites: str = SUITES, groups: str = "curveSM2", sigalgs: str = "sm2sig_sm3",
                    cert: str | os.PathLike[str] | None = None, key: str | os.PathLike[str] | None = None,
                    count: int = 1, message: str = "hello from openssl4", timeout: float = 30.0) -> list[ConnRecord]:
    """Runs an OpenSSL 4 client process making ``count`` connections to
    127.0.0.1:``port`` (each after the first offering the session of the one before);
    verifies the server's chain against ``ca`` and its name against
    ``server_name``."""
    args = ["client", "--port", str(port), "--servername", server_name, "--count", str(count),
            "--message", message, "--timeout", str(timeout), *_common_args(suites, sigalgs, ca, cert, key)]
    proc, conf = _spawn(args, groups)
    try:
        out, err = proc.communicate(timeout=timeout + 30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
        os.unlink(conf)
    recs = [ConnRecord.from_json(l) for l in out.splitlines() if l.startswith("{")]
    if not recs:
        raise RuntimeError(f"openssl4 client produced no record: {err}")
    return recs


# ---- the peer process ------------------------------------------------------


def _context(a: argparse.Namespace, server: bool) -> Any:
    from OpenSSL import SSL
    from OpenSSL._util import ffi, lib  # noqa: F401 - ffi kept for error strings

    ctx = SSL.Context(SSL.TLS_METHOD)
    ctx.set_min_proto_version(SSL.TLS1_3_VERSION)
    if lib.SSL_CTX_set_ciphersuites(ctx._context, a.suites.encode()) != 1:
        raise RuntimeError(f"SSL_CTX_set_ciphersuites({a.suites}) refused")
    if lib.SSL_CTX_set1_sigalgs_list(ctx._context, a.sigalgs.encode()) != 1:
        raise RuntimeError(f"SSL_CTX_set1_sigalgs_list({a.sigalgs}) refused")
    if a.cert:
        ctx.use_certificate_chain_file(a.cert)
        ctx.use_privatekey_file(a.key)
        ctx.check_privatekey()
    if a.ca:
        ctx.load_verify_locations(a.ca)
    if server:
        ctx.set_session_id(b"shangmi-tests")
        if a.verify:
            ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT)
    elif a.ca:
        ctx.set_verify(SSL.VERIFY_PEER)
    return ctx


def _record(conn: Any) -> ConnRecord:
    from OpenSSL._util import lib

    peer = conn.get_peer_certificate(as_cryptography=True)
    chain = conn.get_peer_cert_chain() or []
    return ConnRecord(
        version=conn.get_protocol_version_name(),
        cipher=conn.get_cipher_name(),
        group=conn.get_group_name(),
        resumed=bool(lib.SSL_session_reused(conn._ssl)),
        peer_subject=peer.subject.rfc4514_string() if peer is not None else None,
        peer_chain_len=len(chain),
    )


def _read_line(conn: Any) -> str:
    from OpenSSL import SSL

    got = b""
    while not got.endswith(b"\n"):
        try:
            chunk = conn.recv(65536)
        except SSL.ZeroReturnError:
            break
        if not chunk:
            break
        got += chunk
    return got.decode(errors="replace")


def _blocking(raw: socket.socket, timeout: float) -> None:
    """OpenSSL needs a blocking descriptor (Python's socket timeouts make it
    non-blocking, which pyOpenSSL reports as WantRead); the kernel's
    receive/send timeouts bound every call instead."""
    raw.settimeout(None)
    tv = struct.pack("ll", int(timeout), int((timeout % 1) * 1e6))
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


def _errstr(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


def _serve(a: argparse.Namespace) -> None:
    from OpenSSL import SSL

    ctx = _context(a, server=True)
    lsock = socket.create_server(("127.0.0.1", 0))
    lsock.settimeout(a.timeout)
    print(f"PORT {lsock.getsockname()[1]}", flush=True)
    for _ in range(a.count):
        raw, _addr = lsock.accept()
        _blocking(raw, a.timeout)
        conn = SSL.Connection(ctx, raw)
        conn.set_accept_state()
        try:
            conn.do_handshake()
            rec = _record(conn)
            rec.received = _read_line(conn)
            conn.sendall(f"hello from openssl4: {rec.received}".encode())
            try:
                conn.shutdown()
            except SSL.Error:
                pass
        except (SSL.Error, OSError) as e:
            rec = ConnRecord(error=_errstr(e))
        raw.close()
        print(json.dumps(rec.__dict__), flush=True)


def _connect(a: argparse.Namespace) -> None:
    from OpenSSL import SSL
    from OpenSSL._util import lib

    ctx = _context(a, server=False)
    session = None
    for _ in range(a.count):
        raw = socket.create_connection(("127.0.0.1", a.port), timeout=a.timeout)
        _blocking(raw, a.timeout)
        conn = SSL.Connection(ctx, raw)
        conn.set_connect_state()
        conn.set_tlsext_host_name(a.servername.encode())
        if a.ca and lib.X509_VERIFY_PARAM_set1_host(lib.SSL_get0_param(conn._ssl), a.servername.encode(), 0) != 1:
            raise RuntimeError("X509_VERIFY_PARAM_set1_host refused")
        if session is not None:
            conn.set_session(session)
        try:
            conn.do_handshake()
            rec = _record(conn)
            conn.sendall((a.message + "\n").encode())
            rec.received = _read_line(conn)
            # TLS 1.3 tickets arrive after the handshake; the answer read
            # above has carried them in.
            session = conn.get_session()
            try:
                conn.shutdown()
            except SSL.Error:
                pass
        except (SSL.Error, OSError) as e:
            rec = ConnRecord(error=_errstr(e))
        raw.close()
        print(json.dumps(rec.__dict__), flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("role", choices=["server", "client", "version"])
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--servername", default="localhost")
    p.add_argument("--suites", default=SUITES)
    p.add_argument("--sigalgs", default="sm2sig_sm3")
    p.add_argument("--ca")
    p.add_argument("--cert")
    p.add_argument("--key")
    p.add_argument("--verify", action="store_true")
    p.add_argument("--count", type=int, default=1)
    p.add_argument("--message", default="hello from openssl4")
    p.add_argument("--timeout", type=float, default=20.0)
    a = p.parse_args(argv)
    if a.role == "version":
        from OpenSSL._util import ffi, lib

        print(ffi.string(lib.OpenSSL_version(0)).decode())
    elif a.role == "server":
        _serve(a)
    else:
        _connect(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
