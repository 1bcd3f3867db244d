"""A real TLCP (GB/T 38636-2020) peer for tests: Tongsuo's NTLS through ctypes.

PyPI's ``tongsuopy`` wheel carries Tongsuo 8.3's libssl and libcrypto in
``tongsuopy/backends/_tongsuo.abi3.so`` with the NTLS entry points exported
(``NTLS_method``, ``SSL_CTX_enable_ntls``, ``SSL_CTX_use_sign_*`` /
``SSL_CTX_use_enc_*``).  This module drives them over ordinary sockets so a
test can run a Tongsuo TLCP server in a thread or make one Tongsuo TLCP
client connection, on any machine where ``pip install tongsuopy`` works.

Contracts:
- Nothing here blocks forever: every socket carries ``SO_RCVTIMEO`` /
  ``SO_SNDTIMEO`` (``timeout`` seconds), the accept loop polls a stop flag,
  and :meth:`TongsuoServer.stop` joins every thread it started.
- ctypes releases the GIL around each foreign call, so a server thread and a
  client in the test's thread run concurrently.
- Keys are read as unencrypted PEM (PKCS#8 or SEC1): Tongsuo 8.3 cannot open
  GmSSL's PBKDF2-HMAC-SM3 encrypted PKCS#8.
- Suites use Tongsuo's names: ECC-SM2-SM4-CBC-SM3, ECC-SM2-SM4-GCM-SM3,
  ECDHE-SM2-SM4-CBC-SM3, ECDHE-SM2-SM4-GCM-SM3 (``SUITES``; the standard
  names ``ECC_SM4_GCM_SM3`` etc. are accepted too).
"""

from __future__ import annotations

import ctypes
import os
import socket
import struct
import threading
import time
from collections.abc import Iterable
from ctypes import POINTER, c_char_p, c_int, c_long, c_size_t, c_ubyte, c_uint, c_ulong, c_void_p
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "SUITES",
    "STANDARD_NAMES",
    "CertSet",
    "ClientResult",
    "ConnRecord",
    "TongsuoError",
    "TongsuoServer",
    "TongsuoSession",
    "available",
    "library_path",
    "suite_name",
    "tongsuo_client",
]

# Tongsuo's spelling -> (GB/T 38636 name, code point)
SUITES: dict[str, tuple[str, int]] = {
    "ECC-SM2-SM4-CBC-SM3": ("ECC_SM4_CBC_SM3", 0xE013),
    "ECC-SM2-SM4-GCM-SM3": ("ECC_SM4_GCM_SM3", 0xE053),
    "ECDHE-SM2-SM4-CBC-SM3": ("ECDHE_SM4_CBC_SM3", 0xE011),
    "ECDHE-SM2-SM4-GCM-SM3": ("ECDHE_SM4_GCM_SM3", 0xE051),
}
STANDARD_NAMES = {std: tongsuo for tongsuo, (std, _) in SUITES.items()}

SSL_FILETYPE_PEM = 1
SSL_VERIFY_NONE = 0
SSL_VERIFY_PEER = 1
SSL_VERIFY_FAIL_IF_NO_PEER_CERT = 2
SSL_CTRL_EXTRA_CHAIN_CERT = 14
SSL_CTRL_SET_TLSEXT_HOSTNAME = 55
TLSEXT_NAMETYPE_host_name = 0
SSL_ERROR_SSL = 1
SSL_ERROR_WANT_READ = 2
SSL_ERROR_WANT_WRITE = 3
SSL_ERROR_SYSCALL = 5
SSL_ERROR_ZERO_RETURN = 6
BIO_CTRL_INFO = 3
X509_V_OK = 0
SSL_OP_NO_TICKET = 0x00004000


class TongsuoError(Exception):
    """A Tongsuo call failed; the message carries Tongsuo's error queue."""


def library_path() -> Path:
    import tongsuopy.backends

    return Path(tongsuopy.backends.__file__).parent / "_tongsuo.abi3.so"


def available() -> bool:
    """True if tongsuopy is installed and its library exports NTLS."""
    try:
        lib = _lib()
    except (ImportError, OSError, AttributeError):
        return False
    return bool(lib)


def suite_name(name: str) -> str:
    """Tongsuo's spelling of a suite given either spelling (``TLS_`` prefix allowed)."""
    n = name.removeprefix("TLS_")
    if n in SUITES:
        return n
    if n in STANDARD_NAMES:
        return STANDARD_NAMES[n]
    raise ValueError(f"unknown TLCP suite {name!r}; expected one of {sorted(SUITES) + sorted(STANDARD_NAMES)}")


_LIB: ctypes.CDLL | None = None
_LIB_LOCK = threading.Lock()


def _lib() -> ctypes.CDLL:
    global _LIB
    with _LIB_LOCK:
        if _LIB is not None:
            return _LIB
        lib = ctypes.CDLL(str(library_path()))
        sigs: dict[str, tuple[list[object], object]] = {
            "OPENSSL_init_ssl": ([ctypes.c_uint64, c_void_p], c_int),
            "NTLS_method": ([], c_void_p),
            "SSL_CTX_new": ([c_void_p], c_void_p),
            "SSL_CTX_free": ([c_void_p], None),
            "SSL_CTX_enable_ntls": ([c_void_p], None),
            "SSL_CTX_use_sign_certificate_file": ([c_void_p, c_char_p, c_int], c_int),
            "SSL_CTX_use_sign_PrivateKey_file": ([c_void_p, c_char_p, c_int], c_int),
            "SSL_CTX_use_enc_certificate_file": ([c_void_p, c_char_p, c_int], c_int),
            "SSL_CTX_use_enc_PrivateKey_file": ([c_void_p, c_char_p, c_int], c_int),
            "SSL_CTX_set_cipher_list": ([c_void_p, c_char_p], c_int),
            "SSL_CTX_load_verify_locations": ([c_void_p, c_char_p, c_char_p], c_int),
            "SSL_CTX_set_verify": ([c_void_p, c_int, c_void_p], None),
            "SSL_CTX_set_verify_depth": ([c_void_p, c_int], None),
            "SSL_CTX_ctrl": ([c_void_p, c_int, c_long, c_void_p], c_long),
            "SSL_CTX_set_options": ([c_void_p, c_ulong], c_ulong),
            "SSL_CTX_set_session_id_context": ([c_void_p, c_char_p, c_uint], c_int),
            "SSL_load_client_CA_file": ([c_char_p], c_void_p),
            "SSL_CTX_set_client_CA_list": ([c_void_p, c_void_p], None),
            "SSL_new": ([c_void_p], c_void_p),
            "SSL_free": ([c_void_p], None),
            "SSL_set_fd": ([c_void_p, c_int], c_int),
            "SSL_ctrl": ([c_void_p, c_int, c_long, c_void_p], c_long),
            "SSL_set1_host": ([c_void_p, c_char_p], c_int),
            "SSL_connect": ([c_void_p], c_int),
            "SSL_accept": ([c_void_p], c_int),
            "SSL_read": ([c_void_p, c_void_p, c_int], c_int),
            "SSL_write": ([c_void_p, c_char_p, c_int], c_int),
            "SSL_shutdown": ([c_void_p], c_int),
            "SSL_get_error": ([c_void_p, c_int], c_int),
            "SSL_get_current_cipher": ([c_void_p], c_void_p),
            "SSL_CIPHER_get_name": ([c_void_p], c_char_p),
            "SSL_get_version": ([c_void_p], c_char_p),
            "SSL_get_verify_result": ([c_void_p], c_long),
            "SSL_session_reused": ([c_void_p], c_int),
            "SSL_get1_session": ([c_void_p], c_void_p),
            "SSL_set_session": ([c_void_p, c_void_p], c_int),
            "SSL_SESSION_free": ([c_void_p], None),
            "SSL_get_servername": ([c_void_p, c_int], c_char_p),
            "SSL_get_peer_certificate": ([c_void_p], c_void_p),
            "SSL_get_peer_cert_chain": ([c_void_p], c_void_p),
            "OPENSSL_sk_num": ([c_void_p], c_int),
            "OPENSSL_sk_value": ([c_void_p, c_int], c_void_p),
            "i2d_X509": ([c_void_p, POINTER(POINTER(c_ubyte))], c_int),
            "X509_free": ([c_void_p], None),
            "X509_get_subject_name": ([c_void_p], c_void_p),
            "X509_NAME_oneline": ([c_void_p, c_char_p, c_int], c_char_p),
            "X509_verify_cert_error_string": ([c_long], c_char_p),
            "BIO_new_file": ([c_char_p, c_char_p], c_void_p),
            "BIO_free": ([c_void_p], c_int),
            "PEM_read_bio_X509": ([c_void_p, c_void_p, c_void_p, c_void_p], c_void_p),
            "ERR_get_error": ([], c_ulong),
            "ERR_clear_error": ([], None),
            "ERR_error_string_n": ([c_ulong, c_char_p, c_size_t], None),
        }
        for name, (args, res) in sigs.items():
            fn = getattr(lib, name)
            fn.argtypes = args
            fn.restype = res
        lib.OPENSSL_init_ssl(0, None)
        _LIB = lib
        return lib


def _errors() -> str:
    lib = _lib()
    out = []
    while code := lib.ERR_get_error():
        buf = ctypes.create_string_buffer(256)
        lib.ERR_error_string_n(code, buf, 256)
        out.append(buf.value.decode(errors="replace"))
    return "; ".join(out)


def _check(ok: bool, what: str) -> None:
    if not ok:
        raise TongsuoError(f"{what}: {_errors() or 'failed'}")


def _read_pem_certs(path: str | os.PathLike[str]) -> list[int]:
    """X509* handles of every certificate in a PEM file (caller owns them)."""
    lib = _lib()
    bio = lib.BIO_new_file(os.fsencode(path), b"r")
    _check(bool(bio), f"open {path}")
    certs = []
    try:
        while x := lib.PEM_read_bio_X509(bio, None, None, None):
            certs.append(x)
    finally:
        lib.BIO_free(bio)
        lib.ERR_clear_error()  # the end-of-file "no start line" is expected
    if not certs:
        raise TongsuoError(f"no certificate in {path}")
    return certs


@dataclass(frozen=True)
class CertSet:
    """The files one TLCP side presents: signing and encryption pairs plus intermediates.

    ``chain`` files hold intermediates only (they are sent after sign and enc
    certificates).  Keys must be unencrypted PEM.  ``enc_cert``/``enc_key``
    None: a client with a signing certificate only (it then sends a single
    certificate chain, which is what GmSSL's tlcp_server expects for ECC).
    """

    sign_cert: Path
    sign_key: Path
    enc_cert: Path | None
    enc_key: Path | None
    chain: tuple[Path, ...] = ()

    @classmethod
    def from_dir(cls, cert_dir: str | os.PathLike[str], role: str = "server", chain: Iterable[str] = ("chain.pem",)) -> CertSet:
        """``{role}-sign.pem``, ``{role}-sign.key.pem``, ``{role}-enc.pem``, ... in ``cert_dir``
        (the layout of tests/vectors/tlcp)."""
        d = Path(cert_dir)
        return cls(
            d / f"{role}-sign.pem",
            d / f"{role}-sign.key.pem",
            d / f"{role}-enc.pem",
            d / f"{role}-enc.key.pem",
            tuple(d / c for c in chain),
        )


def _new_ctx(
    suite: str | Iterable[str],
    certs: CertSet | None,
    ca: str | os.PathLike[str] | None,
    verify_mode: int,
    client_ca_list: bool = False,
    tickets: bool = True,
) -> int:
    lib = _lib()
    lib.ERR_clear_error()
    ctx = lib.SSL_CTX_new(lib.NTLS_method())
    _check(bool(ctx), "SSL_CTX_new(NTLS_method())")
    try:
        lib.SSL_CTX_enable_ntls(ctx)
        if not tickets:
            lib.SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET)
        names = [suite] if isinstance(suite, str) else list(suite)
        cipher_list = ":".join(suite_name(s) for s in names).encode()
        _check(lib.SSL_CTX_set_cipher_list(ctx, cipher_list) == 1, f"set_cipher_list {cipher_list!r}")
        if certs is not None:
            pem = SSL_FILETYPE_PEM
            _check(lib.SSL_CTX_use_sign_certificate_file(ctx, os.fsencode(certs.sign_cert), pem) == 1, "sign cert")
            _check(lib.SSL_CTX_use_sign_PrivateKey_file(ctx, os.fsencode(certs.sign_key), pem) == 1, "sign key")
            if certs.enc_cert is not None and certs.enc_key is not None:
                _check(lib.SSL_CTX_use_enc_certificate_file(ctx, os.fsencode(certs.enc_cert), pem) == 1, "enc cert")
                _check(lib.SSL_CTX_use_enc_PrivateKey_file(ctx, os.fsencode(certs.enc_key), pem) == 1, "enc key")
            for chain_file in certs.chain:
                for x in _read_pem_certs(chain_file):
                    # On success the context owns x.
                    if lib.SSL_CTX_ctrl(ctx, SSL_CTRL_EXTRA_CHAIN_CERT, 0, x) != 1:
                        lib.X509_free(x)
                        _check(False, f"extra chain cert from {chain_file}")
        if ca is not None:
            _check(lib.SSL_CTX_load_verify_locations(ctx, os.fsencode(ca), None) == 1, f"load CA {ca}")
            if client_ca_list:
                names_sk = lib.SSL_load_client_CA_file(os.fsencode(ca))
                if names_sk:
                    lib.SSL_CTX_set_client_CA_list(ctx, names_sk)
        lib.SSL_CTX_set_verify(ctx, verify_mode, None)
        lib.SSL_CTX_set_verify_depth(ctx, 8)
        return ctx
    except BaseException:
        lib.SSL_CTX_free(ctx)
        raise


def _set_timeouts(sock: socket.socket, timeout: float) -> None:
    """Blocking fd with kernel timeouts: Tongsuo's reads/writes fail instead of hanging."""
    sock.settimeout(None)
    secs = int(timeout)
    tv = struct.pack("ll", secs, int((timeout - secs) * 1e6))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVTIMEO, tv)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, tv)


def _io_error(ssl: int, rc: int, what: str) -> TongsuoError:
    lib = _lib()
    err = lib.SSL_get_error(ssl, rc)
    detail = _errors()
    if err == SSL_ERROR_SYSCALL and not detail:
        detail = "connection closed by the peer without an alert (or timed out)"
    elif err in (SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE) and not detail:
        # A blocking socket with SO_RCVTIMEO/SO_SNDTIMEO: the kernel timeout fired.
        detail = "timed out waiting for the peer (it sent nothing, e.g. dropped the connection silently)"
    return TongsuoError(f"{what}: SSL_get_error={err}{': ' + detail if detail else ''}")


def _peer_info(ssl: int) -> tuple[str | None, list[bytes]]:
    """The peer's leaf subject and the DER of every certificate it sent that Tongsuo keeps."""
    lib = _lib()
    subject = None
    leaf = lib.SSL_get_peer_certificate(ssl)
    if leaf:
        buf = ctypes.create_string_buffer(512)
        lib.X509_NAME_oneline(lib.X509_get_subject_name(leaf), buf, 512)
        subject = buf.value.decode(errors="replace")
        lib.X509_free(leaf)
    ders = []
    sk = lib.SSL_get_peer_cert_chain(ssl)
    if sk:
        for i in range(lib.OPENSSL_sk_num(sk)):
            x = lib.OPENSSL_sk_value(sk, i)
            n = lib.i2d_X509(x, None)
            if n > 0:
                out = (c_ubyte * n)()
                p = ctypes.cast(out, POINTER(c_ubyte))
                lib.i2d_X509(x, ctypes.byref(p))
                ders.append(bytes(out))
    return subject, ders


def _verify_text(code: int) -> str:
    s = _lib().X509_verify_cert_error_string(code)
    return s.decode() if s else str(code)


def _cipher(ssl: int) -> str | None:
    lib = _lib()
    c = lib.SSL_get_current_cipher(ssl)
    if not c:
        return None
    name = lib.SSL_CIPHER_get_name(c)
    return name.decode() if name else None


def _read_some(ssl: int, n: int = 16384) -> bytes:
    """One SSL_read: data, or b"" at close_notify/EOF.  Raises on other errors."""
    lib = _lib()
    buf = ctypes.create_string_buffer(n)
    rc = lib.SSL_read(ssl, buf, n)
    if rc > 0:
        return buf.raw[:rc]
    err = lib.SSL_get_error(ssl, rc)
    if err == SSL_ERROR_ZERO_RETURN:
        return b""
    if err == SSL_ERROR_SYSCALL and not _peek_errors():
        return b""  # EOF without close_notify (or timeout): treated as end of stream
    raise _io_error(ssl, rc, "SSL_read")


def _peek_errors() -> bool:
    # SSL_get_error has already consulted the queue; a non-empty queue means a real error.
    lib = _lib()
    code = lib.ERR_get_error()
    if code:
        buf = ctypes.create_string_buffer(256)
        lib.ERR_error_string_n(code, buf, 256)
        return True
    return False


def _write_all(ssl: int, data: bytes) -> None:
    lib = _lib()
    view = memoryview(data)
    while view:
        chunk = bytes(view[:16384])
        rc = lib.SSL_write(ssl, chunk, len(chunk))
        if rc <= 0:
            raise _io_error(ssl, rc, "SSL_write")
        view = view[rc:]


class TongsuoSession:
    """An SSL_SESSION* from a finished client connection, for session-ID resumption."""

    def __init__(self, ptr: int) -> None:
        self._ptr: int | None = ptr

    @property
    def ptr(self) -> int:
        if self._ptr is None:
            raise TongsuoError("session already freed")
        return self._ptr

    def free(self) -> None:
        if self._ptr is not None:
            _lib().SSL_SESSION_free(self._ptr)
            self._ptr = None

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:
            pass


@dataclass
class ClientResult:
    """What one Tongsuo client connection saw."""

    ok: bool
    data: bytes = b""
    cipher: str | None = None
    version: str | None = None
    verify_result: int | None = None
    verify_error: str | None = None
    session_reused: bool = False
    peer_subject: str | None = None
    peer_certs: list[bytes] = field(default_factory=list)
    session: TongsuoSession | None = None
    error: str | None = None

    @property
    def verified(self) -> bool:
        return self.verify_result == X509_V_OK


def tongsuo_client(
    host: str,
    port: int,
    suite: str | Iterable[str],
    ca: str | os.PathLike[str] | None = None,
    client_certs: CertSet | None = None,
    send: bytes = b"ping from tongsuo\n",
    server_name: str | None = None,
    *,
    verify: bool = True,
    check_hostname: str | None = None,
    expect: int | None = None,
    session: TongsuoSession | None = None,
    tickets: bool = True,
    timeout: float = 10.0,
    check: bool = True,
) -> ClientResult:
    """Make one TLCP connection with Tongsuo, send ``send``, read the answer.

    ``verify``: fail the handshake unless the server's chain verifies against
    ``ca`` (with ``verify=False`` the result is still recorded in
    ``verify_result``/``verify_error`` when ``ca`` is given).  ``server_name``
    is sent as SNI; ``check_hostname`` (a host name) makes Tongsuo check it
    against the server's signing certificate.  ``expect``: bytes to read
    before closing; default ``len(send)`` (an echo) unless ``send`` starts
    with an HTTP method, then until the server closes.  ``session``: resume
    that session (``result.session_reused`` tells whether the server agreed).
    ``tickets=False`` drops the session_ticket extension Tongsuo sends by
    default (GmSSL's tlcp_server silently drops a ClientHello carrying it).
    Returns a :class:`ClientResult`; raises :class:`TongsuoError` on failure
    when ``check`` (default), else returns ``ok=False`` with ``error``.
    """
    lib = _lib()
    res = ClientResult(ok=False)
    ctx = ssl = None
    sock: socket.socket | None = None
    try:
        ctx = _new_ctx(suite, client_certs, ca, SSL_VERIFY_PEER if verify else SSL_VERIFY_NONE, tickets=tickets)
        sock = socket.create_connection((host, port), timeout=timeout)
        _set_timeouts(sock, timeout)
        ssl = lib.SSL_new(ctx)
        _check(bool(ssl), "SSL_new")
        _check(lib.SSL_set_fd(ssl, sock.fileno()) == 1, "SSL_set_fd")
        if server_name:
            lib.SSL_ctrl(ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name, c_char_p(server_name.encode()))
        if check_hostname:
            _check(lib.SSL_set1_host(ssl, check_hostname.encode()) == 1, "SSL_set1_host")
        if session is not None:
            _check(lib.SSL_set_session(ssl, session.ptr) == 1, "SSL_set_session")
        rc = lib.SSL_connect(ssl)
        if ca is not None or verify:
            res.verify_result = lib.SSL_get_verify_result(ssl)
            res.verify_error = _verify_text(res.verify_result)
        if rc != 1:
            raise _io_error(ssl, rc, "SSL_connect")
        res.cipher = _cipher(ssl)
        res.version = (lib.SSL_get_version(ssl) or b"").decode()
        res.session_reused = bool(lib.SSL_session_reused(ssl))
        res.peer_subject, res.peer_certs = _peer_info(ssl)
        if send:
            _write_all(ssl, send)
        want = expect
        if want is None:
            want = -1 if send.split(b" ", 1)[0] in (b"GET", b"HEAD", b"POST", b"PUT") else len(send)
        chunks = []
        got = 0
        while want < 0 or got < want:
            chunk = _read_some(ssl)
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        res.data = b"".join(chunks)
        sess = lib.SSL_get1_session(ssl)
        if sess:
            res.session = TongsuoSession(sess)
        lib.SSL_shutdown(ssl)
        res.ok = True
    except (TongsuoError, OSError) as e:
        res.error = str(e)
        if check:
            raise TongsuoError(str(e)) from e
    finally:
        if ssl:
            lib.SSL_free(ssl)
        if ctx:
            lib.SSL_CTX_free(ctx)
        if sock is not None:
            sock.close()
        lib.ERR_clear_error()
    return res


@dataclass
class ConnRecord:
    """What the server saw on one accepted connection."""

    peer: tuple[str, int]
    ok: bool = False
    cipher: str | None = None
    version: str | None = None
    session_reused: bool = False
    server_name: str | None = None
    peer_subject: str | None = None
    peer_certs: list[bytes] = field(default_factory=list)
    verify_result: int | None = None
    verify_error: str | None = None
    received: bytes = b""
    error: str | None = None


HTTP_METHODS = (b"GET ", b"HEAD ", b"POST ", b"PUT ")


class TongsuoServer:
    """A Tongsuo TLCP server on 127.0.0.1 in background threads.

    ``cert_dir`` holds the tests/vectors/tlcp layout (``server-sign.pem``,
    ``server-sign.key.pem``, ``server-enc.pem``, ``server-enc.key.pem``,
    ``chain.pem``, ``root-ca.pem``) or pass ``certs=CertSet(...)``.
    ``client_auth``: False (no CertificateRequest), True (require a client
    certificate verifying against ``ca``, default ``cert_dir/root-ca.pem``),
    or ``"optional"``.  ``ca`` defaults to ``cert_dir/root-ca.pem`` when it exists.  ``mode``: ``"auto"`` answers an HTTP request with a
    small HTTP/1.0 response (then closes) and echoes anything else until the
    client closes; ``"echo"``/``"http"`` force one behaviour.
    ``client_ca_list`` (default: when ``ca`` is known) sends ``ca``'s subject
    as the CertificateRequest's certificate_authorities; GmSSL's client
    refuses a CertificateRequest without its issuer there.  Tongsuo sends a
    CertificateRequest for ECDHE suites even when ``client_auth`` is False.
    Each connection's outcome is appended to ``records``.  Use as a context
    manager or call :meth:`start`/:meth:`stop`.
    """

    def __init__(
        self,
        cert_dir: str | os.PathLike[str] | None,
        suite: str | Iterable[str],
        port: int = 0,
        client_auth: bool | str = False,
        *,
        certs: CertSet | None = None,
        ca: str | os.PathLike[str] | None = None,
        mode: str = "auto",
        http_body: bytes = b"hello from tongsuo tlcp\n",
        host: str = "127.0.0.1",
        tickets: bool = True,
        client_ca_list: bool | None = None,
        timeout: float = 10.0,
    ) -> None:
        if certs is None:
            if cert_dir is None:
                raise ValueError("give cert_dir or certs")
            certs = CertSet.from_dir(cert_dir, "server")
        if ca is None and cert_dir is not None and (Path(cert_dir) / "root-ca.pem").exists():
            ca = Path(cert_dir) / "root-ca.pem"
        if mode not in ("auto", "echo", "http"):
            raise ValueError(f"mode must be auto, echo or http, not {mode!r}")
        self.suite = suite
        self.certs = certs
        self.ca = ca
        self.mode = mode
        self.http_body = http_body
        self.timeout = timeout
        if client_auth is True:
            verify = SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
        elif client_auth == "optional":
            verify = SSL_VERIFY_PEER
        elif client_auth is False:
            verify = SSL_VERIFY_NONE
        else:
            raise ValueError(f"client_auth must be True, False or 'optional', not {client_auth!r}")
        if client_ca_list is None:
            client_ca_list = ca is not None
        self._ctx: int | None = _new_ctx(suite, certs, ca, verify, client_ca_list=client_ca_list, tickets=tickets)
        ok = _lib().SSL_CTX_set_session_id_context(self._ctx, b"shangmi-tests", 13)
        _check(ok == 1, "set_session_id_context")
        self._listen = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._listen.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listen.bind((host, port))
        self._listen.listen(64)
        self._listen.settimeout(0.1)
        self.host = host
        self.port: int = self._listen.getsockname()[1]
        self.records: list[ConnRecord] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._acceptor: threading.Thread | None = None
        self._conns: set[socket.socket] = set()

    @property
    def address(self) -> tuple[str, int]:
        return (self.host, self.port)

    def start(self) -> TongsuoServer:
        self._acceptor = threading.Thread(target=self._accept_loop, name=f"tongsuo-accept-{self.port}", daemon=True)
        self._acceptor.start()
        return self

    def __enter__(self) -> TongsuoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for(self, n: int, timeout: float | None = None) -> list[ConnRecord]:
        """Block until ``n`` connections have finished (or the timeout); return the records."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.records) >= n:
                    return list(self.records)
            time.sleep(0.02)
        with self._lock:
            return list(self.records)

    def stop(self) -> None:
        self._stop.set()
        if self._acceptor is not None:
            self._acceptor.join(5)
        with self._lock:
            for c in list(self._conns):
                try:
                    c.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
        for t in list(self._threads):
            t.join(self.timeout + 5)
        self._listen.close()
        if self._ctx is not None:
            _lib().SSL_CTX_free(self._ctx)
            self._ctx = None

    def _accept_loop(self) -> None:
        while not self._stop.is_set():
            try:
                conn, peer = self._listen.accept()
            except TimeoutError:
                continue
            except OSError:
                break
            t = threading.Thread(target=self._serve, args=(conn, peer), name=f"tongsuo-conn-{peer[1]}", daemon=True)
            with self._lock:
                self._conns.add(conn)
                self._threads.append(t)
            t.start()

    def _serve(self, conn: socket.socket, peer: tuple[str, int]) -> None:
        lib = _lib()
        rec = ConnRecord(peer=peer)
        ssl = None
        try:
            _set_timeouts(conn, self.timeout)
            ssl = lib.SSL_new(self._ctx)
            _check(bool(ssl), "SSL_new")
            _check(lib.SSL_set_fd(ssl, conn.fileno()) == 1, "SSL_set_fd")
            rc = lib.SSL_accept(ssl)
            rec.verify_result = lib.SSL_get_verify_result(ssl)
            rec.verify_error = _verify_text(rec.verify_result)
            if rc != 1:
                raise _io_error(ssl, rc, "SSL_accept")
            rec.cipher = _cipher(ssl)
            rec.version = (lib.SSL_get_version(ssl) or b"").decode()
            rec.session_reused = bool(lib.SSL_session_reused(ssl))
            sni = lib.SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name)
            rec.server_name = sni.decode() if sni else None
            rec.peer_subject, rec.peer_certs = _peer_info(ssl)
            received = bytearray()
            while True:
                chunk = _read_some(ssl)
                if not chunk:
                    break
                received += chunk
                http = self.mode == "http" or (self.mode == "auto" and bytes(received[:5]).startswith(HTTP_METHODS))
                if http:
                    if b"\r\n\r\n" in received or b"\n\n" in received or len(received) > 65536:
                        body = self.http_body
                        head = (
                            "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
                            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
                        ).encode()
                        _write_all(ssl, head + body)
                        break
                else:
                    _write_all(ssl, chunk)
            rec.received = bytes(received)
            lib.SSL_shutdown(ssl)
            rec.ok = True
        except (TongsuoError, OSError) as e:
            rec.error = str(e)
        finally:
            if ssl:
                lib.SSL_free(ssl)
            lib.ERR_clear_error()
            with self._lock:
                self._conns.discard(conn)
                self.records.append(rec)
            conn.close()
