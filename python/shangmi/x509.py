"""SM2 certificates, certification requests and CRLs; chain validation.

Shaped like pyca/cryptography's ``x509`` (which parses SM2 certificates but
cannot verify or issue them)::

    from shangmi import sm2, x509
    from shangmi.x509 import NameOID, Name, NameAttribute

    ca_key = sm2.PrivateKey.generate()
    name = Name([NameAttribute(NameOID.COMMON_NAME, "测试根证书")])
    ca = (x509.CertificateBuilder().subject_name(name).issuer_name(name)
          .public_key(ca_key.public_key()).serial_number(x509.random_serial_number())
          .not_valid_before(start).not_valid_after(end)
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key))
    x509.verify_chain(leaf, [intermediate], [ca])

Signatures are SM2-with-SM3 (1.2.156.10197.1.501), DER-encoded. **The SM2
user ID**: GM/T 0015, GmSSL and national roots sign with ``1234567812345678``
(the default when issuing here); OpenSSL 3.0 signs and verifies with an
*empty* ID unless given ``-sigopt distid:...`` / ``-vfyopt distid:...``.
Every verification takes ``uid``: ``None`` (the default) accepts either of
those two conventions; bytes pin one.

Anything with ``public_key()`` and ``sign_digest(e) -> DER signature``
(:class:`Signer`) can sign, so keys in hardware modules work too.
"""

from __future__ import annotations

import calendar
import types as _types
import datetime as _dt
import secrets
from collections.abc import Iterable, Sequence
from typing import Any, Literal, Protocol

from shangmi import _native, sm2
from shangmi._buffer import Buffer, duck, instance, instances, iterable
from shangmi._x509_ext import *  # noqa: F401,F403  (the pyca-shaped value classes)
from shangmi._x509_ext import __all__ as _ext_all
from shangmi._x509_ext import Extension, Extensions, ExtensionType, Name, ObjectIdentifier, _ext_wire
from shangmi.exceptions import InvalidInputError, InvalidSignature, ShangmiTypeError

__all__ = [
    "DEFAULT_UID", "Signer", "Certificate", "CertificateSigningRequest", "CertificateRevocationList",
    "RevokedCertificate", "CertificateBuilder", "CertificateSigningRequestBuilder",
    "CertificateRevocationListBuilder", "RevokedCertificateBuilder", "random_serial_number", "verify_chain",
    "load_pem_x509_certificate", "load_der_x509_certificate", "load_pem_x509_certificates",
    "load_pem_x509_csr", "load_der_x509_csr", "load_pem_x509_crl", "load_der_x509_crl",
    "load_der_pkcs7_certificates", "load_pem_pkcs7_certificates", "serialize_certificates",
] + list(_ext_all)

#: The user ID used when issuing (GM/T 0015's default).
DEFAULT_UID = sm2.DEFAULT_UID

_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)


class Signer(Protocol):
    """What ``sign()`` needs: the SM2 public key and a signature over a digest e."""

    def public_key(self) -> sm2.PublicKey: ...

    def sign_digest(self, digest: Buffer) -> bytes: ...


def _secs(when: _dt.datetime, what: str) -> int:
    if not isinstance(when, _dt.datetime):
        raise ShangmiTypeError(f"{what} must be a datetime, got {type(when).__name__}")
    if when.tzinfo is not None:
        when = when.astimezone(_dt.timezone.utc)
    return calendar.timegm(when.utctimetuple())


def _dt_of(secs: int) -> _dt.datetime:
    return _EPOCH + _dt.timedelta(seconds=secs)


def _pem_bytes(data: Buffer | str) -> Buffer:
    return data.encode() if isinstance(data, str) else data


def _encoding_name(encoding: object) -> str:
    """"pem"/"der", or pyca's ``serialization.Encoding.PEM`` / ``.DER``."""
    name = str(getattr(encoding, "name", encoding)).rsplit(".", 1)[-1].lower()
    if name not in ("pem", "der"):
        raise InvalidInputError(f"encoding must be 'pem' or 'der' (or pyca's Encoding.PEM/DER), got {encoding!r}")
    return name


def _sign(signer: Signer, tbs: bytes, uid: Buffer) -> bytes:
    point = duck(signer, ("public_key", "sign_digest"), "private_key").public_key().to_bytes()
    e = _native.x509_signing_digest(point, uid, tbs)
    return bytes(signer.sign_digest(e))


# -- parsed objects ------------------------------------------------------------------


class _Signed:
    """What certificates, requests and CRLs share, over the native object's
    common methods (the core's ``SignedObject``): the signature, its
    algorithm and the DER/PEM forms. Each class says where its native object
    is (``_native_obj``)."""

    __slots__ = ()

    def _native_obj(self) -> _native.X509Certificate | _native.X509Csr | _native.X509Crl:
        raise NotImplementedError

    @property
    def signature_algorithm_oid(self) -> ObjectIdentifier:
        return ObjectIdentifier(self._native_obj().signature_algorithm())

    @property
    def signature(self) -> bytes:
        """The DER SM2 signature."""
        return self._native_obj().signature()

    def to_der(self) -> bytes:
        return self._native_obj().to_der()

    def to_pem(self) -> bytes:
        return self._native_obj().to_pem().encode()

    def public_bytes(self, encoding: object) -> bytes:
        """pyca's spelling of :meth:`to_pem` / :meth:`to_der`."""
        return self.to_pem() if _encoding_name(encoding) == "pem" else self.to_der()


class Certificate(_Signed):
    """A parsed X.509 certificate (immutable; compares by its DER)."""

    __slots__ = ("_c", "_subject", "_issuer", "_extensions")

    def __init__(self, native: _native.X509Certificate) -> None:
        self._c = native
        self._subject: Name | None = None
        self._issuer: Name | None = None
        self._extensions: Extensions | None = None

    def _native_obj(self) -> _native.X509Certificate:
        return self._c

    @property
    def version(self) -> int:
        """1 or 3."""
        return self._c.version()

    @property
    def serial_number(self) -> int:
        return int.from_bytes(self._c.serial(), "big")

    @property
    def subject(self) -> Name:
        if self._subject is None:
            self._subject = Name._from_der(self._c.subject_der())
        return self._subject

    @property
    def issuer(self) -> Name:
        if self._issuer is None:
            self._issuer = Name._from_der(self._c.issuer_der())
        return self._issuer

    @property
    def not_valid_before_utc(self) -> _dt.datetime:
        return _dt_of(self._c.not_before())

    @property
    def not_valid_after_utc(self) -> _dt.datetime:
        return _dt_of(self._c.not_after())

    @property
    def tbs_certificate_bytes(self) -> bytes:
        return self._c.tbs_der()

    @property
    def extensions(self) -> Extensions:
        if self._extensions is None:
            self._extensions = Extensions._from_wire(self._c.extensions())
        return self._extensions

    def public_key(self) -> sm2.PublicKey:
        """The subject's SM2 key (``InvalidKey`` if it is not an SM2 key)."""
        return sm2.PublicKey.from_bytes(self._c.public_key_point())

    def fingerprint(self) -> bytes:
        """SM3 of the DER."""
        return self._c.fingerprint()


    def verify_directly_issued_by(self, issuer: Certificate, *, uid: Buffer | None = None) -> None:
        """Checks that ``issuer``'s subject is this certificate's issuer
        (:class:`~shangmi.InvalidCertificate` otherwise) and that its key made
        the signature (:class:`~shangmi.InvalidSignature` otherwise). Nothing
        else (validity, CA flags) is checked: that is :func:`verify_chain`."""
        self._c.verify_directly_issued_by(instance(issuer, Certificate, "issuer")._c, uid)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Certificate) and self._c == other._c

    def __hash__(self) -> int:
        return hash(self._c)

    def __reduce__(self) -> tuple[object, tuple[bytes]]:
        return (load_der_x509_certificate, (self.to_der(),))

    def __repr__(self) -> str:
        return f"<Certificate(subject={self.subject.rfc4514_string()!r}, serial={self.serial_number:#x})>"


class CertificateSigningRequest(_Signed):
    """A parsed PKCS#10 request."""

    __slots__ = ("_r",)

    def __init__(self, native: _native.X509Csr) -> None:
        self._r = native

    def _native_obj(self) -> _native.X509Csr:
        return self._r

    @property
    def subject(self) -> Name:
        return Name._from_der(self._r.subject_der())

    @property
    def extensions(self) -> Extensions:
        return Extensions._from_wire(self._r.extensions())

    @property
    def tbs_certrequest_bytes(self) -> bytes:
        return self._r.tbs_der()

    @property
    def is_signature_valid(self) -> bool:
        """The self-signature verifies under either deployed user ID."""
        try:
            self._r.verify(None)
        except InvalidSignature:
            return False
        return True

    def verify(self, *, uid: Buffer | None = None) -> None:
        """Raises :class:`~shangmi.InvalidSignature` unless the self-signature verifies."""
        self._r.verify(uid)

    def public_key(self) -> sm2.PublicKey:
        return sm2.PublicKey.from_bytes(self._r.public_key_point())



class RevokedCertificate:
    def __init__(self, serial_number: int, revocation_date_utc: _dt.datetime, extensions: Extensions) -> None:
        self.serial_number = serial_number
        self.revocation_date_utc = revocation_date_utc
        self.extensions = extensions

    def __repr__(self) -> str:
        return f"<RevokedCertificate(serial_number={self.serial_number:#x})>"


class CertificateRevocationList(_Signed):
    """A parsed CRL; iterates over its :class:`RevokedCertificate` entries."""

    __slots__ = ("_l", "_revoked")

    def __init__(self, native: _native.X509Crl) -> None:
        # Built from a parsed CRL (load_*_x509_crl, the builder), never by hand.
        self._l = instance(native, _native.X509Crl, "native")
        self._revoked = [
            RevokedCertificate(int.from_bytes(s, "big"), _dt_of(d), Extensions._from_wire(e))
            for s, d, e in native.revoked()
        ]

    def _native_obj(self) -> _native.X509Crl:
        return self._l

    @property
    def issuer(self) -> Name:
        return Name._from_der(self._l.issuer_der())

    @property
    def last_update_utc(self) -> _dt.datetime:
        return _dt_of(self._l.this_update())

    @property
    def next_update_utc(self) -> _dt.datetime | None:
        n = self._l.next_update()
        return None if n is None else _dt_of(n)

    @property
    def extensions(self) -> Extensions:
        return Extensions._from_wire(self._l.extensions())

    @property
    def tbs_certlist_bytes(self) -> bytes:
        return self._l.tbs_der()

    def get_revoked_certificate_by_serial_number(self, serial_number: int) -> RevokedCertificate | None:
        return next((r for r in self._revoked if r.serial_number == serial_number), None)

    def is_signature_valid(self, public_key: sm2.PublicKey, *, uid: Buffer | None = None) -> bool:
        try:
            self._l.verify_signature(instance(public_key, sm2.PublicKey, "public_key").to_bytes(), uid)
        except InvalidSignature:
            return False
        return True

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self._revoked)

    def __len__(self) -> int:
        return len(self._revoked)



# -- loaders -------------------------------------------------------------------------


def load_pem_x509_certificate(data: Buffer | str) -> Certificate:
    return Certificate(_native.X509Certificate.from_pem(_pem_bytes(data)))


def load_der_x509_certificate(data: Buffer) -> Certificate:
    return Certificate(_native.X509Certificate.from_der(data))


def load_pem_x509_certificates(data: Buffer | str) -> list[Certificate]:
    """Every certificate of a PEM bundle, in order."""
    return [Certificate(c) for c in _native.X509Certificate.from_pem_bundle(_pem_bytes(data))]


def load_pem_x509_csr(data: Buffer | str) -> CertificateSigningRequest:
    return CertificateSigningRequest(_native.X509Csr.from_pem(_pem_bytes(data)))


def load_der_x509_csr(data: Buffer) -> CertificateSigningRequest:
    return CertificateSigningRequest(_native.X509Csr.from_der(data))


def load_pem_x509_crl(data: Buffer | str) -> CertificateRevocationList:
    return CertificateRevocationList(_native.X509Crl.from_pem(_pem_bytes(data)))


def load_der_x509_crl(data: Buffer) -> CertificateRevocationList:
    return CertificateRevocationList(_native.X509Crl.from_der(data))


# -- builders ------------------------------------------------------------------------


def random_serial_number() -> int:
    """A random positive 159-bit serial (always fits RFC 5280's 20 octets)."""
    return secrets.randbits(159) | 1


def _add(exts: tuple[Extension, ...], value: ExtensionType, critical: bool) -> tuple[Extension, ...]:
    if not isinstance(value, ExtensionType):
        raise ShangmiTypeError(f"extension must be an ExtensionType (BasicConstraints, KeyUsage, ...), got {type(value).__name__}")
    if not isinstance(critical, bool):
        raise ShangmiTypeError(f"critical must be a bool, got {type(critical).__name__}")
    if any(e.oid == value.oid for e in exts):
        raise InvalidInputError(f"this extension ({value.oid.dotted_string}) has already been added")
    return exts + (Extension(value.oid, critical, value),)


def _serial_bytes(n: int) -> bytes:
    if isinstance(n, bool) or not isinstance(n, int):
        raise ShangmiTypeError(f"serial number must be an int, got {type(n).__name__}")
    if n <= 0:
        raise InvalidInputError("serial number must be a positive integer")
    return n.to_bytes((n.bit_length() + 7) // 8, "big")


class CertificateBuilder:
    """Immutable: every method returns a new builder."""

    def __init__(self, issuer_name: Name | None = None, subject_name: Name | None = None,
                 public_key: sm2.PublicKey | None = None, serial_number: int | None = None,
                 not_valid_before: _dt.datetime | None = None, not_valid_after: _dt.datetime | None = None,
                 extensions: Sequence[Extension] = ()) -> None:
        self._issuer, self._subject, self._key = issuer_name, subject_name, public_key
        self._serial, self._before, self._after = serial_number, not_valid_before, not_valid_after
        self._extensions = tuple(instances(extensions, Extension, "extensions"))

    def _with(self, **kw: object) -> CertificateBuilder:
        args: dict[str, object] = dict(issuer_name=self._issuer, subject_name=self._subject, public_key=self._key,
                                       serial_number=self._serial, not_valid_before=self._before,
                                       not_valid_after=self._after, extensions=self._extensions)
        args.update(kw)
        return CertificateBuilder(**args)  # type: ignore[arg-type]

    def issuer_name(self, name: Name) -> CertificateBuilder:
        return self._with(issuer_name=name)

    def subject_name(self, name: Name) -> CertificateBuilder:
        return self._with(subject_name=name)

    def public_key(self, key: sm2.PublicKey) -> CertificateBuilder:
        return self._with(public_key=key)

    def serial_number(self, number: int) -> CertificateBuilder:
        _serial_bytes(number)
        return self._with(serial_number=number)

    def not_valid_before(self, when: _dt.datetime) -> CertificateBuilder:
        _secs(when, "not_valid_before")
        return self._with(not_valid_before=when)

    def not_valid_after(self, when: _dt.datetime) -> CertificateBuilder:
        _secs(when, "not_valid_after")
        return self._with(not_valid_after=when)

    def add_extension(self, extval: ExtensionType, critical: bool) -> CertificateBuilder:
        return self._with(extensions=_add(self._extensions, extval, critical))

    def tbs_bytes(self) -> bytes:
        """The DER tbsCertificate this builder describes."""
        missing = [n for n, v in (("issuer_name", self._issuer), ("subject_name", self._subject),
                                  ("public_key", self._key), ("serial_number", self._serial),
                                  ("not_valid_before", self._before), ("not_valid_after", self._after)) if v is None]
        if missing:
            raise InvalidInputError(f"the certificate needs {', '.join(missing)}")
        assert self._issuer and self._subject and self._key and self._serial and self._before and self._after
        return _native.x509_tbs_certificate(
            _serial_bytes(self._serial), self._issuer.public_bytes(), self._subject.public_bytes(),
            _secs(self._before, "not_valid_before"), _secs(self._after, "not_valid_after"),
            self._key.to_bytes(), _ext_wire(self._extensions))

    def sign(self, private_key: Signer, *, uid: Buffer = DEFAULT_UID) -> Certificate:
        """Signs with SM2-with-SM3 under ``uid`` (pass ``uid=b""`` for what
        ``openssl verify`` checks without ``-vfyopt distid:``)."""
        tbs = self.tbs_bytes()
        return Certificate(_native.x509_assemble_certificate(tbs, _sign(private_key, tbs, uid)))


class CertificateSigningRequestBuilder:
    def __init__(self, subject_name: Name | None = None, extensions: Sequence[Extension] = ()) -> None:
        self._subject, self._extensions = subject_name, tuple(instances(extensions, Extension, "extensions"))

    def subject_name(self, name: Name) -> CertificateSigningRequestBuilder:
        return CertificateSigningRequestBuilder(name, self._extensions)

    def add_extension(self, extval: ExtensionType, critical: bool) -> CertificateSigningRequestBuilder:
        return CertificateSigningRequestBuilder(self._subject, _add(self._extensions, extval, critical))

    def sign(self, private_key: Signer, *, uid: Buffer = DEFAULT_UID) -> CertificateSigningRequest:
        if self._subject is None:
            raise InvalidInputError("the request needs a subject_name")
        signer = duck(private_key, ("public_key", "sign_digest"), "private_key")
        info = _native.x509_request_info(self._subject.public_bytes(), signer.public_key().to_bytes(),
                                         _ext_wire(self._extensions))
        return CertificateSigningRequest(_native.x509_assemble_request(info, _sign(private_key, info, uid)))


class RevokedCertificateBuilder:
    def __init__(self, serial_number: int | None = None, revocation_date: _dt.datetime | None = None,
                 extensions: Sequence[Extension] = ()) -> None:
        self._serial, self._date, self._extensions = serial_number, revocation_date, tuple(instances(extensions, Extension, "extensions"))

    def serial_number(self, number: int) -> RevokedCertificateBuilder:
        _serial_bytes(number)
        return RevokedCertificateBuilder(number, self._date, self._extensions)

    def revocation_date(self, when: _dt.datetime) -> RevokedCertificateBuilder:
        _secs(when, "revocation_date")
        return RevokedCertificateBuilder(self._serial, when, self._extensions)

    def add_extension(self, extval: ExtensionType, critical: bool) -> RevokedCertificateBuilder:
        return RevokedCertificateBuilder(self._serial, self._date, _add(self._extensions, extval, critical))

    def build(self) -> RevokedCertificate:
        if self._serial is None or self._date is None:
            raise InvalidInputError("a revoked certificate needs serial_number and revocation_date")
        return RevokedCertificate(self._serial, self._date, Extensions(self._extensions))


class CertificateRevocationListBuilder:
    def __init__(self, issuer_name: Name | None = None, last_update: _dt.datetime | None = None,
                 next_update: _dt.datetime | None = None, extensions: Sequence[Extension] = (),
                 revoked_certificates: Sequence[RevokedCertificate] = ()) -> None:
        self._issuer, self._last, self._next = issuer_name, last_update, next_update
        self._extensions, self._revoked = tuple(instances(extensions, Extension, "extensions")), tuple(instances(revoked_certificates, RevokedCertificate, "revoked_certificates"))

    def _with(self, **kw: object) -> CertificateRevocationListBuilder:
        args: dict[str, object] = dict(issuer_name=self._issuer, last_update=self._last, next_update=self._next,
                                       extensions=self._extensions, revoked_certificates=self._revoked)
        args.update(kw)
        return CertificateRevocationListBuilder(**args)  # type: ignore[arg-type]

    def issuer_name(self, name: Name) -> CertificateRevocationListBuilder:
        return self._with(issuer_name=name)

    def last_update(self, when: _dt.datetime) -> CertificateRevocationListBuilder:
        return self._with(last_update=when)

    def next_update(self, when: _dt.datetime) -> CertificateRevocationListBuilder:
        return self._with(next_update=when)

    def add_extension(self, extval: ExtensionType, critical: bool) -> CertificateRevocationListBuilder:
        return self._with(extensions=_add(self._extensions, extval, critical))

    def add_revoked_certificate(self, revoked: RevokedCertificate) -> CertificateRevocationListBuilder:
        return self._with(revoked_certificates=self._revoked + (revoked,))

    def sign(self, private_key: Signer, *, uid: Buffer = DEFAULT_UID) -> CertificateRevocationList:
        """Signs the CRL. ``openssl crl -verify`` checks CRL signatures with the
        empty ID only: pass ``uid=b""`` for CRLs OpenSSL must accept."""
        if self._issuer is None or self._last is None:
            raise InvalidInputError("the CRL needs issuer_name and last_update")
        revoked = [(_serial_bytes(r.serial_number), _secs(r.revocation_date_utc, "revocation_date"),
                    _ext_wire(r.extensions)) for r in self._revoked]
        nxt = None if self._next is None else _secs(self._next, "next_update")
        tbs = _native.x509_tbs_crl(self._issuer.public_bytes(), _secs(self._last, "last_update"), nxt, revoked,
                                   _ext_wire(self._extensions))
        return CertificateRevocationList(_native.x509_assemble_crl(tbs, _sign(private_key, tbs, uid)))


# -- validation ----------------------------------------------------------------------


def _ocsp_natives(responses: Iterable[Any]) -> list[Any]:
    """The native responses of ``shangmi.x509.ocsp.OCSPResponse`` objects
    (recognised by what they wrap: this module sits below that one)."""
    out = []
    for i, r in enumerate(iterable(responses, "ocsp_responses")):
        native = getattr(r, "_r", None)
        if not isinstance(native, _native.OcspResponse):
            raise ShangmiTypeError(f"ocsp_responses[{i}] must be an OCSPResponse (shangmi.x509.ocsp), got {type(r).__name__}")
        out.append(native)
    return out


def verify_chain(leaf: Certificate, intermediates: Iterable[Certificate], trust_roots: Iterable[Certificate], *,
                 at: _dt.datetime | None = None, uid: Buffer | None = None,
                 crls: Iterable[CertificateRevocationList] = (),
                 crl_max_staleness: _dt.timedelta | None = None,
                 ocsp_responses: Iterable[Any] = ()) -> list[Certificate]:
    """Builds and checks the path from ``leaf`` to one of ``trust_roots``:
    name chaining (and key identifiers), every signature, validity at ``at``
    (default now), basicConstraints (CA flag, path length), keyUsage
    (keyCertSign; cRLSign for CRLs), unknown critical extensions, and
    revocation when ``crls`` are given. Returns the chain, leaf first and
    trust root last; raises :class:`~shangmi.InvalidCertificate` naming the
    certificate and the reason. ``uid=None`` accepts either deployed SM2 ID
    per signature; bytes pin one for every link.

    A CRL establishes status only between its thisUpdate and nextUpdate
    (RFC 5280 6.3.3): one past its nextUpdate at ``at`` is refused, naming
    its issuer and dates, unless ``crl_max_staleness`` (a
    :class:`datetime.timedelta`) allows that much time past nextUpdate; one
    whose thisUpdate is after ``at`` is always refused.

    ``ocsp_responses`` (:mod:`shangmi.x509.ocsp`) are used like CRLs: an
    answer about a certificate of the path must be signed by its issuer or a
    responder that issuer delegated to, and fresh by the same rule (the
    staleness allowance applies); "revoked" refuses the certificate,
    "unknown" establishes nothing, answers about other certificates are
    ignored."""
    when = _secs(at, "at") if at is not None else _secs(_dt.datetime.now(_dt.timezone.utc), "at")
    if crl_max_staleness is None:
        staleness = 0
    elif isinstance(crl_max_staleness, _dt.timedelta):
        staleness = crl_max_staleness // _dt.timedelta(seconds=1)
    else:
        raise ShangmiTypeError(f"crl_max_staleness must be a timedelta, got {type(crl_max_staleness).__name__}")
    chain = _native.x509_verify_chain(
        instance(leaf, Certificate, "leaf")._c,
        [c._c for c in instances(intermediates, Certificate, "intermediates")],
        [c._c for c in instances(trust_roots, Certificate, "trust_roots")],
        [c._l for c in instances(crls, CertificateRevocationList, "crls")],
        when,
        uid,
        staleness,
        _ocsp_natives(ocsp_responses),
    )
    return [Certificate(c) for c in chain]


# -- certs-only PKCS#7 (pyca's serialization.pkcs7 names) -----------------------


def load_der_pkcs7_certificates(data: Buffer) -> list[Certificate]:
    """The certificates of a DER or BER PKCS#7 SignedData (a ``.p7b`` chain as
    CAs publish it; RFC 5652 or GM/T 0010 content types), in file order."""
    return [Certificate(c) for c in _native.pkcs7_certificates_from_der(data)]


def load_pem_pkcs7_certificates(data: Buffer | str) -> list[Certificate]:
    """:func:`load_der_pkcs7_certificates` on one ``PKCS7`` PEM block."""
    return [Certificate(c) for c in _native.pkcs7_certificates_from_pem(_pem_bytes(data))]


def serialize_certificates(certs: Iterable[Certificate], encoding: Literal["pem", "der"] = "pem") -> bytes:
    """A certs-only PKCS#7 SignedData holding ``certs`` in order, as
    ``openssl crl2pkcs7 -nocrl`` writes it (``encoding`` ``"pem"`` or ``"der"``)."""
    return _native.pkcs7_serialize([c._c for c in instances(certs, Certificate, "certs")], encoding)


#: ``shangmi.x509.ocsp``, pyca's place for :mod:`shangmi.ocsp`. That module
#: is built on this one, so the package (``shangmi/__init__.py``) sets this
#: name once both are imported; this module never imports it.
ocsp: _types.ModuleType
