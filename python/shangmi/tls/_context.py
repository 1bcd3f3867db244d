"""``TLSContext``: the settings shared by the channels it makes, as ``ssl.SSLContext``."""

from __future__ import annotations

import enum
import os
import socket as _socket
import ssl as _ssl
from typing import TYPE_CHECKING, Callable, Union

from shangmi import _native, sm2, x509
from shangmi.exceptions import InvalidInputError, ShangmiTypeError

if TYPE_CHECKING:
    from shangmi.tls._object import TLSObject
    from shangmi.tls._socket import TLSSocket

Password = Union[bytes, bytearray, str, Callable[[], Union[bytes, bytearray, str]], None]
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


class VerifyMode(enum.IntEnum):
    """How the peer's certificates are checked (the values of ``ssl.VerifyMode``)."""

    CERT_NONE = 0
    CERT_OPTIONAL = 1
    CERT_REQUIRED = 2


CERT_NONE = VerifyMode.CERT_NONE
CERT_OPTIONAL = VerifyMode.CERT_OPTIONAL
CERT_REQUIRED = VerifyMode.CERT_REQUIRED

#: The values of :attr:`TLSContext.tlcp_compat`.
TLCP_COMPAT: tuple[str, ...] = ("auto", "standard", "gmssl", "tongsuo")

#: The protocols a context can speak.
PROTOCOLS: tuple[str, ...] = tuple(_native.TLS_PROTOCOLS)


def cipher_names(protocol: str = "tlcp") -> list[str]:
    """The standard names of every cipher suite of ``protocol``, in the
    default preference order."""
    return [std for std, _openssl, _code in _native.tls_cipher_suites(protocol)]


def _check_path(path: object, what: str) -> None:
    # An int would be taken by open() as a file descriptor (and closed).
    if not isinstance(path, (str, bytes, os.PathLike)):
        raise ShangmiTypeError(f"{what}: expected a path, got {type(path).__name__}")


def _read(path: PathLike, what: str) -> bytes:
    _check_path(path, what)
    try:
        with open(path, "rb") as f:
            return f.read()
    except TypeError:
        raise ShangmiTypeError(f"{what}: expected a path, got {type(path).__name__}") from None
    except ValueError as e:  # a NUL in the path
        raise InvalidInputError(f"{what}: invalid path: {e}") from None
    except OSError as e:
        raise InvalidInputError(f"{what}: cannot read {os.fsdecode(path)!r}: {e.strerror or e}") from None


def _pem_blocks(data: bytes) -> list[tuple[str, bytes]]:
    """The ``-----BEGIN X-----`` blocks of a PEM file, as (label, block)."""
    blocks: list[tuple[str, bytes]] = []
    pos = 0
    while True:
        start = data.find(b"-----BEGIN ", pos)
        if start < 0:
            return blocks
        label_end = data.find(b"-----", start + 11)
        if label_end < 0:
            return blocks
        label = data[start + 11 : label_end]
        end_marker = b"-----END " + label + b"-----"
        end = data.find(end_marker, label_end)
        if end < 0:
            raise InvalidInputError(f"PEM block '{label.decode('ascii', 'replace')}' has no END line")
        blocks.append((label.decode("ascii", "replace"), data[start : end + len(end_marker)]))
        pos = end + len(end_marker)


def _password_bytes(password: Password) -> bytes | bytearray | str | None:
    if callable(password):
        return password()
    return password


def _load_identity(certfile: PathLike, keyfile: PathLike | None, password: Password, what: str) -> tuple[list[x509.Certificate], sm2.PrivateKey]:
    _check_path(certfile, f"{what} certfile")
    if keyfile is not None:
        _check_path(keyfile, f"{what} keyfile")
    if password is not None and not callable(password) and not isinstance(password, (bytes, bytearray, str)):
        raise ShangmiTypeError(f"{what} password: expected bytes, str or a callable, got {type(password).__name__}")
    data = _read(certfile, f"{what} certfile")
    blocks = _pem_blocks(data)
    certs_pem = b"\n".join(b for label, b in blocks if label in ("CERTIFICATE", "X509 CERTIFICATE"))
    if not certs_pem:
        # A DER certificate file (one certificate).
        chain = [x509.load_der_x509_certificate(data)]
    else:
        chain = x509.load_pem_x509_certificates(certs_pem)
    key_blocks = (
        [b for label, b in _pem_blocks(_read(keyfile, f"{what} keyfile")) if label.endswith("PRIVATE KEY")]
        if keyfile is not None
        else [b for label, b in blocks if label.endswith("PRIVATE KEY")]
    )
    source = "keyfile" if keyfile is not None else "certfile (no keyfile given)"
    if len(key_blocks) != 1:
        raise InvalidInputError(f"{what}: the {source} holds {len(key_blocks)} private keys, expected exactly one")
    key = sm2.PrivateKey.from_pem(key_blocks[0], _password_bytes(password))
    return chain, key


def _certs_of(data: bytes | str) -> list[x509.Certificate]:
    if isinstance(data, str):
        return x509.load_pem_x509_certificates(data)
    raw = bytes(data)
    if b"-----BEGIN" in raw:
        return x509.load_pem_x509_certificates(raw)
    return [x509.load_der_x509_certificate(raw)]


class TLSContext:
    """Settings for TLCP or TLS 1.3 channels, shaped like :class:`ssl.SSLContext`.

    ``protocol`` is ``"tlcp"`` (GB/T 38636-2020: a signing and an encryption
    certificate per side) or ``"tls1.3"`` (RFC 8998: TLS_SM4_GCM_SM3 and
    TLS_SM4_CCM_SM3, curveSM2, sm2sig_sm3; one certificate per side, no
    :meth:`load_enc_cert_chain`). A client context verifies the server by default (``verify_mode`` is
    :data:`CERT_REQUIRED`, ``check_hostname`` on); a server context
    (``server_side=True``) asks for no client certificate unless
    ``verify_mode`` says so. A server's session cache lives in its context,
    so connections made from one context can resume each other's sessions
(TLS 1.3: its ticket keys).

    ``tlcp_compat`` (clients only) chooses the wire forms where the deployed
    TLCP implementations disagree with each other and with GB/T 38636-2020:

    - ``"auto"`` (default): decided from the server's CertificateRequest
      (GmSSL 3 asks for ``ecdsa_sign`` certificates only; Tongsuo and
      shangmi also list ``rsa_sign``); without a request nothing disputed
      is sent.
    - ``"standard"``: GB/T 38636-2020 as written: the ECDHE
      ClientKeyExchange carries a 2-byte length before the parameters,
      CertificateVerify signs SM3 of the handshake messages, an ECC client
      sends its encryption certificate too.
    - ``"gmssl"``: GmSSL 3: the length-prefixed ECDHE ClientKeyExchange,
      CertificateVerify over the handshake messages themselves, an ECC
      client's signing chain alone.
    - ``"tongsuo"``: Tongsuo (and gotlcp's default): the ECDHE parameters
      without a length, CertificateVerify over SM3 of the messages, sign and
      encryption certificates.

    A server accepts every form whatever this says.
    """

    def __init__(self, protocol: str = "tlcp", *, server_side: bool = False) -> None:
        if not isinstance(protocol, str):
            raise ShangmiTypeError(f"protocol: expected a str, got {type(protocol).__name__}")
        if protocol not in PROTOCOLS:
            raise InvalidInputError(f"unknown protocol {protocol!r}: expected one of {', '.join(PROTOCOLS)}")
        self._protocol = protocol
        self._server_side = bool(server_side)
        self._verify_mode = CERT_NONE if server_side else CERT_REQUIRED
        self._check_hostname = not server_side
        self._roots: list[x509.Certificate] = []
        self._sign: tuple[list[x509.Certificate], sm2.PrivateKey] | None = None
        self._enc: tuple[list[x509.Certificate], sm2.PrivateKey] | None = None
        self._ciphers: list[str] | None = None
        self.session_cache_size = 1024
        self._client: _native.TlsClientConfig | None = None
        self._server: _native.TlsServerConfig | None = None
        self._alpn: list[str] = []
        self._tlcp_compat = "auto"

    # -- settings --------------------------------------------------------

    @property
    def protocol(self) -> str:
        return self._protocol

    @property
    def verify_mode(self) -> VerifyMode:
        return self._verify_mode

    @verify_mode.setter
    def verify_mode(self, value: int) -> None:
        try:
            mode = VerifyMode(value)
        except ValueError:
            raise InvalidInputError(f"verify_mode must be CERT_NONE, CERT_OPTIONAL or CERT_REQUIRED, got {value!r}") from None
        if mode == CERT_NONE and self._check_hostname:
            raise InvalidInputError("cannot set verify_mode to CERT_NONE while check_hostname is enabled")
        self._verify_mode = mode
        self._changed()

    @property
    def tlcp_compat(self) -> str:
        """The TLCP wire forms a client writes: ``"auto"``, ``"standard"``,
        ``"gmssl"`` or ``"tongsuo"`` (see the class docstring)."""
        return self._tlcp_compat

    @tlcp_compat.setter
    def tlcp_compat(self, value: str) -> None:
        if not isinstance(value, str):
            raise ShangmiTypeError(f"tlcp_compat: expected str, got {type(value).__name__}")
        if value.lower() not in TLCP_COMPAT:
            raise InvalidInputError(f"tlcp_compat must be one of {', '.join(TLCP_COMPAT)}, got {value!r}")
        self._tlcp_compat = value.lower()
        self._changed()

    @property
    def check_hostname(self) -> bool:
        return self._check_hostname

    @check_hostname.setter
    def check_hostname(self, value: bool) -> None:
        value = bool(value)
        if value and self._verify_mode == CERT_NONE:
            # As ssl: enabling host name checks turns verification on.
            self._verify_mode = CERT_REQUIRED
        self._check_hostname = value
        self._changed()

    def load_verify_locations(
        self, cafile: PathLike | None = None, capath: PathLike | None = None, cadata: bytes | str | None = None
    ) -> None:
        """Add trust anchors: a PEM file, a directory of PEM/DER files, or
        PEM text / DER bytes."""
        if cafile is None and capath is None and cadata is None:
            raise InvalidInputError("cafile, capath or cadata must be given")
        if cafile is not None:
            _check_path(cafile, "cafile")
        if capath is not None:
            _check_path(capath, "capath")
        roots: list[x509.Certificate] = []
        if cafile is not None:
            roots += _certs_of(_read(cafile, "cafile"))
        if capath is not None:
            try:
                names = sorted(os.listdir(capath))
            except OSError as e:
                raise InvalidInputError(f"capath: cannot list {os.fsdecode(capath)!r}: {e.strerror or e}") from None
            for name in names:
                path = os.path.join(os.fsdecode(capath), os.fsdecode(name))  # type: ignore[arg-type]
                if os.path.isfile(path):
                    roots += _certs_of(_read(path, "capath"))
        if cadata is not None:
            if not isinstance(cadata, (bytes, bytearray, memoryview, str)):
                raise ShangmiTypeError(f"cadata: expected str or bytes, got {type(cadata).__name__}")
            roots += _certs_of(cadata if isinstance(cadata, str) else bytes(cadata))
        self._roots += [r for r in roots if r not in self._roots]
        self._changed()

    def load_cert_chain(self, certfile: PathLike, keyfile: PathLike | None = None, password: Password = None) -> None:
        """The signing certificate (first in ``certfile``, followed by its
        chain) and its SM2 key (in ``keyfile``, or in ``certfile`` when
        ``keyfile`` is omitted); ``password`` as bytes, str or a callable."""
        self._sign = _load_identity(certfile, keyfile, password, "load_cert_chain")
        self._changed()

    def load_enc_cert_chain(self, certfile: PathLike, keyfile: PathLike | None = None, password: Password = None) -> None:
        """TLCP's encryption certificate and its key, as :meth:`load_cert_chain`."""
        self._enc = _load_identity(certfile, keyfile, password, "load_enc_cert_chain")
        self._changed()

    def set_ciphers(self, ciphers: str) -> None:
        """The cipher suites, most preferred first, separated by ``:``; the
        standard names (``ECC_SM4_GCM_SM3``, optionally ``TLS_``-prefixed)
        and the OpenSSL/Tongsuo spellings (``ECC-SM2-SM4-GCM-SM3``)."""
        if not isinstance(ciphers, str):
            raise ShangmiTypeError(f"ciphers: expected str, got {type(ciphers).__name__}")
        names = [n.strip() for n in ciphers.split(":") if n.strip()]
        self._ciphers = list(_native.tls_parse_cipher_suites(self._protocol, names))
        self._changed()

    def set_alpn_protocols(self, protocols: list[str]) -> None:
        """Accepted for the HTTP clients that call it; TLCP carries no ALPN."""
        if not isinstance(protocols, (list, tuple)) or not all(isinstance(p, str) for p in protocols):
            raise ShangmiTypeError(f"protocols: expected a list of str, got {type(protocols).__name__}")
        self._alpn = list(protocols)

    def get_ciphers(self) -> list[dict[str, object]]:
        """The enabled suites, as ``ssl.SSLContext.get_ciphers`` describes them."""
        enabled = self._ciphers or cipher_names(self._protocol)
        table = {std: (openssl, code) for std, openssl, code in _native.tls_cipher_suites(self._protocol)}
        version = "TLCP" if self._protocol == "tlcp" else "TLSv1.3"
        return [
            {"id": table[n][1], "name": n, "openssl_name": table[n][0], "protocol": version, "strength_bits": 128, "alg_bits": 128}
            for n in enabled
        ]

    # -- making channels -------------------------------------------------

    def wrap_socket(
        self,
        sock: _socket.socket,
        server_side: bool = False,
        do_handshake_on_connect: bool = True,
        suppress_ragged_eofs: bool = True,
        server_hostname: str | None = None,
        session: object | None = None,
    ) -> TLSSocket:
        """A :class:`TLSSocket` over the connected (or about to be
        connected) stream socket ``sock``, which it takes over."""
        from shangmi.tls._socket import TLSSocket

        return TLSSocket._create(
            sock, self, bool(server_side), server_hostname, bool(do_handshake_on_connect), bool(suppress_ragged_eofs), session
        )

    def wrap_bio(
        self,
        incoming: _ssl.MemoryBIO,
        outgoing: _ssl.MemoryBIO,
        server_side: bool = False,
        server_hostname: str | None = None,
        session: object | None = None,
    ) -> TLSObject:
        """A :class:`TLSObject` over two ``ssl.MemoryBIO`` (what asyncio and
        anyio use to run TLS over their transports)."""
        from shangmi.tls._object import TLSObject

        for name, bio in (("incoming", incoming), ("outgoing", outgoing)):
            if not isinstance(bio, _ssl.MemoryBIO):
                raise ShangmiTypeError(f"{name}: expected an ssl.MemoryBIO, got {type(bio).__name__}")
        conn = self._connection(bool(server_side), server_hostname, session)
        return TLSObject._create(conn, incoming, outgoing, self, bool(server_side), server_hostname)

    # -- the native configurations, built once per change ----------------

    def _changed(self) -> None:
        self._client = None
        self._server = None

    @staticmethod
    def _identity(
        ident: tuple[list[x509.Certificate], sm2.PrivateKey] | None,
    ) -> tuple[list[bytes] | None, _native.Sm2PrivateKey | None]:
        if ident is None:
            return None, None
        chain, key = ident
        return [c.to_der() for c in chain], key._key

    def _connection(self, server_side: bool, server_hostname: str | bytes | None, session: object | None) -> _native.TlsConnection:
        if server_hostname is not None and not isinstance(server_hostname, (str, bytes, bytearray)):
            raise ShangmiTypeError(f"server_hostname: expected a str, got {type(server_hostname).__name__}")
        if session is not None and not isinstance(session, _native.TlsSession):
            raise ShangmiTypeError(f"session: expected the session of an earlier connection, got {type(session).__name__}")
        # As ssl: a str host name goes out IDNA-encoded, bytes as ASCII.
        if isinstance(server_hostname, (bytes, bytearray)):
            server_hostname = bytes(server_hostname).decode("ascii")
        elif isinstance(server_hostname, str) and not server_hostname.isascii():
            server_hostname = server_hostname.encode("idna").decode("ascii")
        roots = [c.to_der() for c in self._roots]
        if server_side:
            if self._server is None:
                sign_chain, sign_key = self._identity(self._sign)
                enc_chain, enc_key = self._identity(self._enc)
                self._server = _native.TlsServerConfig(
                    self._protocol, self._ciphers, sign_chain, sign_key, enc_chain, enc_key, roots,
                    int(self._verify_mode), int(self.session_cache_size),
                )
            return _native.TlsConnection.server(self._server)
        if self._check_hostname and not server_hostname:
            raise InvalidInputError("check_hostname requires server_hostname")
        if self._client is None:
            sign_chain, sign_key = self._identity(self._sign)
            enc_chain, enc_key = self._identity(self._enc)
            self._client = _native.TlsClientConfig(
                self._protocol, self._ciphers, sign_chain, sign_key, enc_chain, enc_key, roots,
                int(self._verify_mode), self._check_hostname, self._tlcp_compat,
            )
        if session is not None and not isinstance(session, _native.TlsSession):
            raise ShangmiTypeError(f"session: expected the session of an earlier connection, got {type(session).__name__}")
        return _native.TlsConnection.client(self._client, server_hostname, session)
