"""What the socket and the memory-buffer channel share: feeding the native
engine, and describing the connection the way ``ssl`` does."""

from __future__ import annotations

import datetime as _dt
from typing import Any

from shangmi import x509
from shangmi.exceptions import ExtensionNotFound, InvalidInputError

# ssl's getpeercert() spells attribute types by OpenSSL's long names.
_ATTR_NAMES = {
    "2.5.4.3": "commonName",
    "2.5.4.6": "countryName",
    "2.5.4.7": "localityName",
    "2.5.4.8": "stateOrProvinceName",
    "2.5.4.9": "streetAddress",
    "2.5.4.10": "organizationName",
    "2.5.4.11": "organizationalUnitName",
    "2.5.4.5": "serialNumber",
    "2.5.4.4": "surname",
    "2.5.4.42": "givenName",
    "2.5.4.12": "title",
    "1.2.840.113549.1.9.1": "emailAddress",
    "0.9.2342.19200300.100.1.25": "domainComponent",
    "0.9.2342.19200300.100.1.1": "userId",
}


def _ssl_time(when: _dt.datetime) -> str:
    # ssl's format: 'Jan  5 09:34:43 2018 GMT'
    return when.strftime("%b %d %H:%M:%S %Y GMT").replace(" 0", "  ", 1)


def _name_tuple(name: x509.Name) -> tuple[tuple[tuple[str, str], ...], ...]:
    out = []
    for rdn in name.rdns:
        out.append(
            tuple((_ATTR_NAMES.get(a.oid.dotted_string, a.oid.dotted_string), str(a.value)) for a in rdn)
        )
    return tuple(out)


def peercert_dict(cert: x509.Certificate) -> dict[str, Any]:
    """The dictionary ``ssl.SSLSocket.getpeercert()`` returns, for ``cert``."""
    d: dict[str, Any] = {
        "subject": _name_tuple(cert.subject),
        "issuer": _name_tuple(cert.issuer),
        "version": cert.version,
        "serialNumber": format(cert.serial_number, "X"),
        "notBefore": _ssl_time(cert.not_valid_before_utc),
        "notAfter": _ssl_time(cert.not_valid_after_utc),
    }
    try:
        san: Any = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except ExtensionNotFound:
        san = None
    if san is not None:
        alt: list[tuple[str, str]] = []
        for gn in san:
            kind = type(gn).__name__
            if kind == "DNSName":
                alt.append(("DNS", gn.value))
            elif kind == "IPAddress":
                alt.append(("IP Address", str(gn.value)))
            elif kind == "RFC822Name":
                alt.append(("email", gn.value))
            elif kind == "UniformResourceIdentifier":
                alt.append(("URI", gn.value))
        d["subjectAltName"] = tuple(alt)
    return d


class Channel:
    """One native connection and the ``ssl``-shaped questions about it."""

    def __init__(self, conn: Any, context: Any, server_side: bool, server_hostname: str | None) -> None:
        self.conn = conn
        self.context = context
        self.server_side = server_side
        self.server_hostname = server_hostname
        self._rest = b""

    def feed(self, data: bytes) -> bool:
        """Network bytes in: hands them to the engine and processes every
        complete record. Bytes the engine cannot take yet (TLCP's holds at
        most 16 records ahead, and TLS 1.3's waits for plaintext to be read) stay
        queued for the next call. Returns whether any byte was taken.
        Raises the engine's error (its alert is then queued for the peer)."""
        buf = self._rest + data if self._rest else data
        view = memoryview(buf)
        progress = False
        while view:
            taken = self.conn.read_tls(view)
            self.conn.process_new_packets()
            if taken == 0:
                break
            progress = True
            view = view[taken:]
        self._rest = bytes(view)
        return progress

    def has_queued_input(self) -> bool:
        return bool(self._rest)

    def outgoing(self) -> bytes:
        return bytes(self.conn.write_tls())

    # -- the ssl-shaped descriptions ------------------------------------

    def version(self) -> str | None:
        return self.conn.protocol_version()  # type: ignore[no-any-return]

    def cipher(self) -> tuple[str, str, int] | None:
        suite = self.conn.cipher_suite()
        version = self.conn.protocol_version()
        if suite is None or version is None:
            return None
        return (suite, version, 128)

    def peer_certificates(self) -> list[x509.Certificate]:
        return [x509.load_der_x509_certificate(d) for d in self.conn.peer_certificates()]

    def getpeercert(self, binary_form: bool = False) -> Any:
        if self.conn.is_handshaking():
            raise InvalidInputError("handshake not done yet")
        certs = self.conn.peer_certificates()
        if not certs:
            return None
        if binary_form:
            return bytes(certs[0])
        if self.context.verify_mode == 0 and not self.server_side:
            # As ssl: without verification the dictionary is empty.
            return {}
        return peercert_dict(x509.load_der_x509_certificate(certs[0]))


class Described:
    """The ``ssl``-shaped questions a channel answers, for classes holding a
    :class:`Channel` as ``_ch`` (the socket and the memory-BIO object)."""

    _ch: Channel

    @property
    def context(self) -> Any:
        return self._ch.context

    @property
    def server_side(self) -> bool:
        return self._ch.server_side

    @property
    def server_hostname(self) -> str | None:
        return self._ch.server_hostname

    @property
    def session(self) -> Any:
        return self._ch.conn.session()

    @property
    def session_reused(self) -> bool:
        return bool(self._ch.conn.session_resumed())

    def version(self) -> str | None:
        return self._ch.version()

    def cipher(self) -> tuple[str, str, int] | None:
        return self._ch.cipher()

    def shared_ciphers(self) -> list[tuple[str, str, int]] | None:
        c = self._ch.cipher()
        return [c] if c else None

    def compression(self) -> None:
        return None

    def selected_alpn_protocol(self) -> None:
        return None

    def getpeercert(self, binary_form: bool = False) -> Any:
        return self._ch.getpeercert(binary_form)

    def get_peer_certificates(self) -> list[x509.Certificate]:
        """The peer's certificates as sent: signing, encryption, then the chain."""
        return self._ch.peer_certificates()

    def get_channel_binding(self, cb_type: str = "tls-unique") -> None:
        return None
