"""OCSP (RFC 6960) for SM2 certificates: requests and responses built,
parsed and verified. Reachable as ``shangmi.x509.ocsp``.

Shaped like pyca/cryptography's ``x509.ocsp``::

    from shangmi.x509 import ocsp

    req = ocsp.OCSPRequestBuilder().add_certificate(cert, issuer, "sha1").build()
    resp = (ocsp.OCSPResponseBuilder()
            .add_response(cert, issuer, "sha1", ocsp.OCSPCertStatus.GOOD, this_update, next_update, None, None)
            .responder_id(ocsp.OCSPResponderEncoding.NAME, responder_cert)
            .certificates([responder_cert])
            .sign(responder_key))
    resp = ocsp.load_der_ocsp_response(data)
    resp.verify(issuer)          # the issuer or a responder it delegated to signed it
    x509.verify_chain(leaf, [], [root], ocsp_responses=[resp])

Hash algorithms for CertIDs are named ``"sha1"`` (what OpenSSL sends),
``"sha256"`` or ``"sm3"`` (GmSSL's default), or given as any object with
that ``name`` (pyca's ``hashes.SHA1()``, :class:`SM3`). Responses are
signed with SM2-with-SM3; ``uid`` is the SM2 user ID (GM/T 0015's
``1234567812345678`` by default when signing; ``None`` accepts either
deployed convention when verifying).

Who may sign (RFC 6960 4.2.2.2): the CA that issued the certificate, or a
responder certificate issued directly by that CA with
``ExtendedKeyUsageOID.OCSP_SIGNING``. :meth:`OCSPResponse.verify` refuses
anything else with :class:`~shangmi.InvalidCertificate`, and a signature
that does not verify with :class:`~shangmi.InvalidSignature`.
"""

from __future__ import annotations

import datetime as _dt
import enum
from collections.abc import Iterable, Iterator
from typing import Any

from shangmi import _native
from shangmi._buffer import Buffer, as_bytes, duck, instance, instances
from shangmi._x509_ext import Extension, Extensions, ExtensionType, Name, ObjectIdentifier
from shangmi._x509_ext import _ext_wire
from shangmi.exceptions import InvalidInputError, ShangmiTypeError

__all__ = [
    "OCSPResponseStatus", "OCSPCertStatus", "OCSPResponderEncoding", "OCSPNonce", "OCSPRequest",
    "OCSPRequestBuilder", "OCSPResponse", "OCSPSingleResponse", "OCSPResponseBuilder", "load_der_ocsp_request",
    "load_der_ocsp_response", "SHA1", "SHA256", "SM3",
]


class OCSPResponseStatus(enum.Enum):
    SUCCESSFUL = 0
    MALFORMED_REQUEST = 1
    INTERNAL_ERROR = 2
    TRY_LATER = 3
    SIG_REQUIRED = 5
    UNAUTHORIZED = 6


class OCSPCertStatus(enum.Enum):
    GOOD = 0
    REVOKED = 1
    UNKNOWN = 2


class OCSPResponderEncoding(enum.Enum):
    HASH = "By Hash"
    NAME = "By Name"


class _Hash:
    name = ""
    digest_size = 0

    def __eq__(self, other: object) -> bool:
        return getattr(other, "name", None) == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class SHA1(_Hash):
    name = "sha1"
    digest_size = 20


class SHA256(_Hash):
    name = "sha256"
    digest_size = 32


class SM3(_Hash):
    name = "sm3"
    digest_size = 32


_HASHES: dict[str, type[_Hash]] = {"sha1": SHA1, "sha256": SHA256, "sm3": SM3}


def _hash_name(algorithm: object) -> str:
    if isinstance(algorithm, str):
        return algorithm
    name = getattr(algorithm, "name", None)
    if not isinstance(name, str):
        raise ShangmiTypeError(
            f"algorithm must be 'sha1', 'sha256', 'sm3' or a hash object with that name, got {algorithm!r}")
    return name


def _hash_out(name: str) -> _Hash | ObjectIdentifier:
    cls = _HASHES.get(name)
    return cls() if cls is not None else ObjectIdentifier(name)


_NONCE_OID = ObjectIdentifier(_native.ocsp_nonce_extension(b"\0")[0])


class OCSPNonce(ExtensionType):
    """The nonce extension (RFC 8954: 1 to 32 octets) of a request or response."""

    oid = _NONCE_OID

    def __init__(self, nonce: Buffer) -> None:
        self.nonce = as_bytes(nonce, "nonce")

    def public_bytes(self) -> bytes:
        return bytes(_native.ocsp_nonce_extension(self.nonce)[2])


def _exts(items: list[tuple[str, bool, bytes]], nonce: bytes | None) -> Extensions:
    out = []
    for e in Extensions._from_wire(items):
        if e.oid == _NONCE_OID and nonce is not None:
            e = Extension(e.oid, e.critical, OCSPNonce(nonce))
        out.append(e)
    return Extensions(out)


def _secs(when: _dt.datetime, what: str) -> int:
    from shangmi.x509 import _secs as secs

    return secs(when, what)


def _dt_of(secs: int) -> _dt.datetime:
    return _dt.datetime.fromtimestamp(secs, _dt.timezone.utc)


def _serial(n: int) -> bytes:
    from shangmi.x509 import _serial_bytes

    return _serial_bytes(n)


def _der_only(encoding: object) -> None:
    from shangmi.x509 import _encoding_name

    if _encoding_name(encoding) != "der":
        raise InvalidInputError("OCSP requests and responses are DER only (encoding must be 'der' / Encoding.DER)")


class _CertIdView:
    """The CertID accessors pyca puts on requests and single responses."""

    _id: tuple[str, bytes, bytes, bytes]

    @property
    def hash_algorithm(self) -> _Hash | ObjectIdentifier:
        return _hash_out(self._id[0])

    @property
    def issuer_name_hash(self) -> bytes:
        return bytes(self._id[1])

    @property
    def issuer_key_hash(self) -> bytes:
        return bytes(self._id[2])

    @property
    def serial_number(self) -> int:
        return int.from_bytes(bytes(self._id[3]), "big")

    def matches_issuer(self, issuer: Any) -> bool:
        """Whether this CertID's issuer hashes name ``issuer`` (any serial)."""
        from shangmi.x509 import Certificate

        i = instance(issuer, Certificate, "issuer")
        if self._id[0] not in _HASHES:
            return False
        mine = _native.ocsp_cert_id_by_serial(i._c, b"\x01", self._id[0])
        return bytes(mine[1]) == self.issuer_name_hash and bytes(mine[2]) == self.issuer_key_hash

    def matches(self, cert: Any, issuer: Any) -> bool:
        """Whether this CertID names ``cert`` issued by ``issuer``."""
        from shangmi.x509 import Certificate

        c, i = instance(cert, Certificate, "cert"), instance(issuer, Certificate, "issuer")
        return bool(_native.ocsp_cert_id_matches(self._id, c._c, i._c))


# -- requests --------------------------------------------------------------------------


class OCSPRequest(_CertIdView):
    """A parsed OCSP request. The CertID accessors describe its first (usually
    only) certificate; :attr:`cert_ids` lists all of them."""

    def __init__(self, native: _native.OcspRequest) -> None:
        self._r = instance(native, _native.OcspRequest, "native")
        self._ids = native.cert_ids()
        self._id = self._ids[0]

    @property
    def extensions(self) -> Extensions:
        return _exts(self._r.extensions(), self._r.nonce())

    @property
    def nonce(self) -> bytes | None:
        n = self._r.nonce()
        return None if n is None else bytes(n)

    @property
    def cert_ids(self) -> list[_CertIdView]:
        out = []
        for i in self._ids:
            v = _CertIdView()
            v._id = i
            out.append(v)
        return out

    def public_bytes(self, encoding: object = "der") -> bytes:
        _der_only(encoding)
        return bytes(self._r.to_der())

    def __repr__(self) -> str:
        return f"<OCSPRequest(serial_number={self.serial_number:#x}, hash={self._id[0]})>"


def load_der_ocsp_request(data: Buffer) -> OCSPRequest:
    return OCSPRequest(_native.OcspRequest.from_der(data))


class OCSPRequestBuilder:
    def __init__(self) -> None:
        self._ids: list[tuple[str, bytes, bytes, bytes]] = []
        self._extensions: list[Extension] = []

    def add_certificate(self, cert: Any, issuer: Any, algorithm: object) -> OCSPRequestBuilder:
        from shangmi.x509 import Certificate

        c, i = instance(cert, Certificate, "cert"), instance(issuer, Certificate, "issuer")
        b = self._copy()
        b._ids.append(_native.ocsp_cert_id(c._c, i._c, _hash_name(algorithm)))
        return b

    def add_certificate_by_hash(self, issuer_name_hash: Buffer, issuer_key_hash: Buffer, serial_number: int,
                                algorithm: object) -> OCSPRequestBuilder:
        b = self._copy()
        b._ids.append((_hash_name(algorithm), as_bytes(issuer_name_hash, "issuer_name_hash"),
                       as_bytes(issuer_key_hash, "issuer_key_hash"), _serial(serial_number)))
        return b

    def add_extension(self, extval: ExtensionType, critical: bool) -> OCSPRequestBuilder:
        b = self._copy()
        b._extensions.append(Extension(instance(extval, ExtensionType, "extval").oid, critical, extval))
        return b

    def _copy(self) -> OCSPRequestBuilder:
        b = OCSPRequestBuilder()
        b._ids, b._extensions = list(self._ids), list(self._extensions)
        return b

    def build(self) -> OCSPRequest:
        return OCSPRequest(_native.ocsp_request_build(self._ids, _ext_wire(self._extensions)))


# -- responses -------------------------------------------------------------------------


_STATUS = {"good": OCSPCertStatus.GOOD, "revoked": OCSPCertStatus.REVOKED, "unknown": OCSPCertStatus.UNKNOWN}


class OCSPSingleResponse(_CertIdView):
    """One answer of a response."""

    def __init__(self, t: tuple[Any, ...]) -> None:
        if not (isinstance(t, tuple) and len(t) == 7):
            raise ShangmiTypeError("OCSPSingleResponse is made by OCSPResponse.responses, not directly")
        self._id, self._st, self._rt, self._this, self._next, self._exts = t[0], t[1], t[2], t[4], t[5], t[6]
        self._reason: int | None = t[3]

    @property
    def certificate_status(self) -> OCSPCertStatus:
        return _STATUS[self._st]

    @property
    def revocation_time_utc(self) -> _dt.datetime | None:
        return None if self._rt is None else _dt_of(self._rt)

    @property
    def revocation_reason(self) -> int | None:
        """The CRLReason code (:class:`~shangmi.x509.ReasonFlags` values), if given."""
        return self._reason

    @property
    def this_update_utc(self) -> _dt.datetime:
        return _dt_of(self._this)

    @property
    def next_update_utc(self) -> _dt.datetime | None:
        return None if self._next is None else _dt_of(self._next)

    @property
    def single_extensions(self) -> Extensions:
        return Extensions._from_wire(self._exts)

    def __repr__(self) -> str:
        return f"<OCSPSingleResponse(serial_number={self.serial_number:#x}, status={self._st})>"


class OCSPResponse:
    """A parsed OCSP response. The single-response accessors (pyca's) describe
    its first answer; :attr:`responses` iterates all. Everything but
    :attr:`response_status` raises for an unsuccessful response."""

    def __init__(self, native: _native.OcspResponse) -> None:
        self._r = instance(native, _native.OcspResponse, "native")
        self._status = OCSPResponseStatus(native.status())
        self._singles = [OCSPSingleResponse(t) for t in native.responses()] if self._status.value == 0 else []

    @property
    def response_status(self) -> OCSPResponseStatus:
        return self._status

    def _first(self) -> OCSPSingleResponse:
        if not self._singles:
            self._r.responses()  # raises the core's message
        return self._singles[0]

    @property
    def responses(self) -> Iterator[OCSPSingleResponse]:
        self._first()
        return iter(self._singles)

    @property
    def signature_algorithm_oid(self) -> ObjectIdentifier:
        return ObjectIdentifier(self._r.signature_algorithm())

    @property
    def signature(self) -> bytes:
        return bytes(self._r.signature())

    @property
    def tbs_response_bytes(self) -> bytes:
        return bytes(self._r.tbs_der())

    @property
    def certificates(self) -> list[Any]:
        from shangmi.x509 import Certificate

        return [Certificate(c) for c in self._r.certificates()]

    @property
    def responder_name(self) -> Name | None:
        kind, value = self._r.responder_id()
        return Name._from_der(bytes(value)) if kind == "name" else None

    @property
    def responder_key_hash(self) -> bytes | None:
        kind, value = self._r.responder_id()
        return bytes(value) if kind == "key" else None

    @property
    def produced_at_utc(self) -> _dt.datetime:
        return _dt_of(self._r.produced_at())

    @property
    def extensions(self) -> Extensions:
        return _exts(self._r.extensions(), self._r.nonce())

    @property
    def nonce(self) -> bytes | None:
        n = self._r.nonce()
        return None if n is None else bytes(n)

    # pyca's single-response accessors, of the first answer.
    certificate_status = property(lambda self: self._first().certificate_status)
    revocation_time_utc = property(lambda self: self._first().revocation_time_utc)
    revocation_reason = property(lambda self: self._first().revocation_reason)
    this_update_utc = property(lambda self: self._first().this_update_utc)
    next_update_utc = property(lambda self: self._first().next_update_utc)
    issuer_key_hash = property(lambda self: self._first().issuer_key_hash)
    issuer_name_hash = property(lambda self: self._first().issuer_name_hash)
    hash_algorithm = property(lambda self: self._first().hash_algorithm)
    serial_number = property(lambda self: self._first().serial_number)
    single_extensions = property(lambda self: self._first().single_extensions)

    def verify(self, issuer: Any, *, responders: Iterable[Any] = (), at: _dt.datetime | None = None,
               uid: Buffer | None = None) -> Any:
        """Checks that the response was signed by ``issuer`` (the CA whose
        certificates it answers for) or by a responder certificate issued by
        ``issuer`` with id-kp-OCSPSigning and valid at ``at`` (default now),
        found among the response's certificates or ``responders``, and that
        every answer is about a certificate of ``issuer``. Returns the
        delegated responder's certificate, or ``None`` when the CA signed.
        Freshness (thisUpdate/nextUpdate) is the caller's or
        :func:`~shangmi.x509.verify_chain`'s to judge."""
        from shangmi.x509 import Certificate

        when = _secs(at if at is not None else _dt.datetime.now(_dt.timezone.utc), "at")
        signer = self._r.verify(instance(issuer, Certificate, "issuer")._c,
                                [c._c for c in instances(responders, Certificate, "responders")], when, uid)
        return None if signer is None else Certificate(signer)

    def public_bytes(self, encoding: object = "der") -> bytes:
        _der_only(encoding)
        return bytes(self._r.to_der())

    def __repr__(self) -> str:
        return f"<OCSPResponse(status={self._status.name})>"


def load_der_ocsp_response(data: Buffer) -> OCSPResponse:
    return OCSPResponse(_native.OcspResponse.from_der(data))


class OCSPResponseBuilder:
    """Builds and signs a BasicOCSPResponse (SM2-with-SM3)."""

    def __init__(self) -> None:
        self._singles: list[tuple[Any, ...]] = []
        self._responder: tuple[str, bytes] | None = None
        self._certs: list[Any] = []
        self._extensions: list[Extension] = []
        self._produced_at: _dt.datetime | None = None

    def _copy(self) -> OCSPResponseBuilder:
        b = OCSPResponseBuilder()
        b._singles, b._responder, b._certs = list(self._singles), self._responder, list(self._certs)
        b._extensions, b._produced_at = list(self._extensions), self._produced_at
        return b

    def _single(self, cert_id: tuple[str, bytes, bytes, bytes], cert_status: OCSPCertStatus, this_update: _dt.datetime,
                next_update: _dt.datetime | None, revocation_time: _dt.datetime | None,
                revocation_reason: int | None) -> OCSPResponseBuilder:
        st = instance(cert_status, OCSPCertStatus, "cert_status")
        if st is OCSPCertStatus.REVOKED:
            if revocation_time is None:
                raise InvalidInputError("revocation_time is required when cert_status is REVOKED")
            rt: int | None = _secs(revocation_time, "revocation_time")
        else:
            if revocation_time is not None or revocation_reason is not None:
                raise InvalidInputError("revocation_time and revocation_reason are only for REVOKED")
            rt = None
        nxt = None if next_update is None else _secs(next_update, "next_update")
        b = self._copy()
        b._singles.append((cert_id, st.name.lower(), rt, revocation_reason, _secs(this_update, "this_update"), nxt,
                           []))
        return b

    def add_response(self, cert: Any, issuer: Any, algorithm: object, cert_status: OCSPCertStatus,
                     this_update: _dt.datetime, next_update: _dt.datetime | None,
                     revocation_time: _dt.datetime | None, revocation_reason: int | None) -> OCSPResponseBuilder:
        from shangmi.x509 import Certificate

        c, i = instance(cert, Certificate, "cert"), instance(issuer, Certificate, "issuer")
        cid = _native.ocsp_cert_id(c._c, i._c, _hash_name(algorithm))
        return self._single(cid, cert_status, this_update, next_update, revocation_time, revocation_reason)

    def add_response_by_hash(self, issuer_name_hash: Buffer, issuer_key_hash: Buffer, serial_number: int,
                             algorithm: object, cert_status: OCSPCertStatus, this_update: _dt.datetime,
                             next_update: _dt.datetime | None, revocation_time: _dt.datetime | None,
                             revocation_reason: int | None) -> OCSPResponseBuilder:
        """An answer for a CertID as a request gave it (a responder answering
        from its database needs no certificate)."""
        cid = (_hash_name(algorithm), as_bytes(issuer_name_hash, "issuer_name_hash"),
               as_bytes(issuer_key_hash, "issuer_key_hash"), _serial(serial_number))
        return self._single(cid, cert_status, this_update, next_update, revocation_time, revocation_reason)

    def responder_id(self, encoding: OCSPResponderEncoding, responder_cert: Any) -> OCSPResponseBuilder:
        from shangmi.x509 import Certificate

        c = instance(responder_cert, Certificate, "responder_cert")
        b = self._copy()
        if instance(encoding, OCSPResponderEncoding, "encoding") is OCSPResponderEncoding.NAME:
            b._responder = ("name", c.subject.public_bytes())
        else:
            b._responder = ("key", bytes(_native.ocsp_responder_key_hash(c._c)))
        return b

    def certificates(self, certs: Iterable[Any]) -> OCSPResponseBuilder:
        from shangmi.x509 import Certificate

        b = self._copy()
        b._certs = instances(certs, Certificate, "certs")
        return b

    def produced_at(self, when: _dt.datetime) -> OCSPResponseBuilder:
        """producedAt (default: the time of signing)."""
        b = self._copy()
        b._produced_at = when
        return b

    def add_extension(self, extval: ExtensionType, critical: bool) -> OCSPResponseBuilder:
        b = self._copy()
        b._extensions.append(Extension(instance(extval, ExtensionType, "extval").oid, critical, extval))
        return b

    def tbs_bytes(self) -> bytes:
        """The DER ResponseData a signer signs (for keys outside this process)."""
        if self._responder is None:
            raise InvalidInputError("responder_id() must be set before signing")
        when = self._produced_at or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
        return bytes(_native.ocsp_response_data(self._responder, _secs(when, "produced_at"), self._singles,
                                                _ext_wire(self._extensions)))

    def sign(self, private_key: Any, algorithm: object = None, *, uid: Buffer | None = None) -> OCSPResponse:
        """Signs with SM2-with-SM3 under ``uid`` (default GM/T 0015's). ``algorithm``
        is accepted for pyca's signature and must be ``None`` or SM3."""
        from shangmi.x509 import DEFAULT_UID, _sign

        signer = duck(private_key, ("public_key", "sign_digest"), "private_key")
        u = DEFAULT_UID if uid is None else as_bytes(uid, "uid")
        if algorithm is not None and _hash_name(algorithm) != "sm3":
            raise InvalidInputError("SM2 responses are signed with SM3 (algorithm must be None or SM3)")
        tbs = self.tbs_bytes()
        sig = _sign(signer, tbs, u)
        return OCSPResponse(_native.ocsp_assemble_response(tbs, sig, [c._c for c in self._certs]))

    @classmethod
    def build_unsuccessful(cls, response_status: OCSPResponseStatus) -> OCSPResponse:
        st = instance(response_status, OCSPResponseStatus, "response_status")
        return OCSPResponse(_native.ocsp_unsuccessful(st.value))
