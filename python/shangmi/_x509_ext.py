"""Names, object identifiers, general names and extensions for :mod:`shangmi.x509`.

Shaped like pyca/cryptography's ``x509`` classes. These are plain value
objects: encoding and decoding happen in the Rust core (``_native.x509_*``).
"""

from __future__ import annotations

import builtins
import ipaddress
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, cast

from shangmi import _native
from shangmi._buffer import as_bytes, duck, instance, instances, require_int
from shangmi._x509_gn import (
    DirectoryName,
    DNSName,
    GeneralName,
    IPAddress,
    OtherGeneralName,
    RegisteredID,
    RFC822Name,
    UniformResourceIdentifier,
    _gns_wire,
    _GeneralName,
)
from shangmi.exceptions import ExtensionNotFound, InvalidInputError, ShangmiTypeError

__all__ = [
    "ObjectIdentifier", "NameOID", "ExtensionOID", "ExtendedKeyUsageOID", "SignatureAlgorithmOID",
    "NameAttribute", "RelativeDistinguishedName", "Name",
    "DNSName", "RFC822Name", "UniformResourceIdentifier", "IPAddress", "DirectoryName", "RegisteredID",
    "OtherGeneralName", "GeneralName",
    "BasicConstraints", "KeyUsage", "ExtendedKeyUsage", "SubjectKeyIdentifier", "AuthorityKeyIdentifier",
    "SubjectAlternativeName", "IssuerAlternativeName", "DistributionPoint", "CRLDistributionPoints",
    "CRLNumber", "CRLReason", "ReasonFlags", "UnrecognizedExtension", "ExtensionType", "Extension", "Extensions",
]


class ObjectIdentifier:
    """An OID, compared by its dotted string (``oid.dotted_string``)."""

    __slots__ = ("dotted_string",)

    def __init__(self, dotted_string: str) -> None:
        self.dotted_string = dotted_string

    @property
    def _name(self) -> str:
        return _OID_NAMES.get(self.dotted_string, "Unknown OID")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ObjectIdentifier) and other.dotted_string == self.dotted_string

    def __hash__(self) -> int:
        return hash(self.dotted_string)

    def __repr__(self) -> str:
        return f"<ObjectIdentifier(oid={self.dotted_string}, name={self._name})>"


class NameOID:
    COMMON_NAME = ObjectIdentifier("2.5.4.3")
    COUNTRY_NAME = ObjectIdentifier("2.5.4.6")
    LOCALITY_NAME = ObjectIdentifier("2.5.4.7")
    STATE_OR_PROVINCE_NAME = ObjectIdentifier("2.5.4.8")
    STREET_ADDRESS = ObjectIdentifier("2.5.4.9")
    ORGANIZATION_NAME = ObjectIdentifier("2.5.4.10")
    ORGANIZATIONAL_UNIT_NAME = ObjectIdentifier("2.5.4.11")
    SERIAL_NUMBER = ObjectIdentifier("2.5.4.5")
    SURNAME = ObjectIdentifier("2.5.4.4")
    GIVEN_NAME = ObjectIdentifier("2.5.4.42")
    TITLE = ObjectIdentifier("2.5.4.12")
    DN_QUALIFIER = ObjectIdentifier("2.5.4.46")
    EMAIL_ADDRESS = ObjectIdentifier("1.2.840.113549.1.9.1")
    DOMAIN_COMPONENT = ObjectIdentifier("0.9.2342.19200300.100.1.25")
    USER_ID = ObjectIdentifier("0.9.2342.19200300.100.1.1")


class ExtensionOID:
    SUBJECT_KEY_IDENTIFIER = ObjectIdentifier("2.5.29.14")
    KEY_USAGE = ObjectIdentifier("2.5.29.15")
    SUBJECT_ALTERNATIVE_NAME = ObjectIdentifier("2.5.29.17")
    ISSUER_ALTERNATIVE_NAME = ObjectIdentifier("2.5.29.18")
    BASIC_CONSTRAINTS = ObjectIdentifier("2.5.29.19")
    CRL_NUMBER = ObjectIdentifier("2.5.29.20")
    CRL_REASON = ObjectIdentifier("2.5.29.21")
    CRL_DISTRIBUTION_POINTS = ObjectIdentifier("2.5.29.31")
    AUTHORITY_KEY_IDENTIFIER = ObjectIdentifier("2.5.29.35")
    EXTENDED_KEY_USAGE = ObjectIdentifier("2.5.29.37")


class ExtendedKeyUsageOID:
    SERVER_AUTH = ObjectIdentifier("1.3.6.1.5.5.7.3.1")
    CLIENT_AUTH = ObjectIdentifier("1.3.6.1.5.5.7.3.2")
    CODE_SIGNING = ObjectIdentifier("1.3.6.1.5.5.7.3.3")
    EMAIL_PROTECTION = ObjectIdentifier("1.3.6.1.5.5.7.3.4")
    TIME_STAMPING = ObjectIdentifier("1.3.6.1.5.5.7.3.8")
    OCSP_SIGNING = ObjectIdentifier("1.3.6.1.5.5.7.3.9")


class SignatureAlgorithmOID:
    SM2_WITH_SM3 = ObjectIdentifier("1.2.156.10197.1.501")


_OID_NAMES = {
    o.dotted_string: n.lower().replace("_", " ")
    for cls in (NameOID, ExtensionOID, ExtendedKeyUsageOID, SignatureAlgorithmOID)
    for n, o in vars(cls).items()
    if isinstance(o, ObjectIdentifier)
}

# ASN.1 string tags a NameAttribute may ask for (``_type``).
_STRING_TAGS = {"utf8": 0x0C, "printable": 0x13, "ia5": 0x16, "bmp": 0x1E}


class NameAttribute:
    """One ``type=value`` of a name. ``_type`` forces a string type
    (``"utf8"``, ``"printable"``, ``"ia5"``, ``"bmp"``); by default the core
    picks what RFC 5280 requires (PrintableString for C, UTF8String else)."""

    __slots__ = ("oid", "value", "_tag", "_raw")

    def __init__(self, oid: ObjectIdentifier, value: str, _type: str | None = None) -> None:
        if not isinstance(oid, ObjectIdentifier):
            raise ShangmiTypeError(f"oid must be an ObjectIdentifier, got {type(oid).__name__}")
        if not isinstance(value, str):
            raise ShangmiTypeError(f"value must be a str, got {type(value).__name__}")
        if _type is not None and (not isinstance(_type, str) or _type not in _STRING_TAGS):
            raise InvalidInputError(f"_type must be one of {sorted(_STRING_TAGS)}, got {_type!r}")
        self.oid = oid
        self.value = value
        self._tag = _STRING_TAGS[_type] if _type else 0
        self._raw: bytes | None = None

    def rfc4514_string(self) -> str:
        return Name([self]).rfc4514_string()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, NameAttribute) and (self.oid, self.value) == (other.oid, other.value)

    def __hash__(self) -> int:
        return hash((self.oid, self.value))

    def __repr__(self) -> str:
        return f"<NameAttribute(oid={self.oid!r}, value={self.value!r})>"


class RelativeDistinguishedName:
    """A set of attributes at one level of a name (usually one; ``+`` joined)."""

    def __init__(self, attributes: Iterable[NameAttribute]) -> None:
        self._attributes = instances(attributes, NameAttribute, "attributes")
        if not self._attributes:
            raise InvalidInputError("a RelativeDistinguishedName needs at least one attribute")

    def __iter__(self) -> Iterator[NameAttribute]:
        return iter(self._attributes)

    def __len__(self) -> int:
        return len(self._attributes)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RelativeDistinguishedName) and set(self) == set(other)

    def __hash__(self) -> int:
        return hash(frozenset(self._attributes))

    def rfc4514_string(self) -> str:
        return Name([self]).rfc4514_string()


class Name:
    """A distinguished name: ``Name([NameAttribute(NameOID.COMMON_NAME, "张三")])``
    or a list of :class:`RelativeDistinguishedName` for multi-valued RDNs.
    Most significant first, as in DER (``rfc4514_string`` reverses)."""

    def __init__(self, attributes: Iterable[NameAttribute | RelativeDistinguishedName]) -> None:
        items: list[NameAttribute | RelativeDistinguishedName] = instances(
            attributes, (NameAttribute, RelativeDistinguishedName), "attributes"
        )
        self._rdns = [a if isinstance(a, RelativeDistinguishedName) else RelativeDistinguishedName([a]) for a in items]
        self._der: bytes | None = None

    @classmethod
    def _from_der(cls, der: bytes) -> Name:
        rdns = []
        for rdn in _native.x509_name_parse(der):
            attrs = []
            for oid, tag, text, raw in rdn:
                a = NameAttribute(ObjectIdentifier(oid), text if text is not None else "")
                a._tag, a._raw = tag, raw
                attrs.append(a)
            rdns.append(RelativeDistinguishedName(attrs))
        name = cls(rdns)
        name._der = bytes(der)
        return name

    def public_bytes(self) -> bytes:
        """The DER encoding."""
        if self._der is None:
            self._der = _native.x509_name_encode([[(a.oid.dotted_string, a.value, a._tag) for a in r] for r in self._rdns])
        return self._der

    @property
    def rdns(self) -> list[RelativeDistinguishedName]:
        return list(self._rdns)

    def __iter__(self) -> Iterator[NameAttribute]:
        for r in self._rdns:
            yield from r

    def __len__(self) -> int:
        return sum(len(r) for r in self._rdns)

    def get_attributes_for_oid(self, oid: ObjectIdentifier) -> list[NameAttribute]:
        return [a for a in self if a.oid == oid]

    def rfc4514_string(self) -> str:
        return _native.x509_name_rfc4514(self.public_bytes())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Name) and _native.x509_name_matches(self.public_bytes(), other.public_bytes())

    def __hash__(self) -> int:
        # consistent with == (RFC 5280 matching ignores case and runs of spaces)
        return hash(tuple(frozenset((a.oid, " ".join(a.value.lower().split())) for a in r) for r in self._rdns))

    def __repr__(self) -> str:
        return f"<Name({self.rfc4514_string()})>"


# -- extension values ---------------------------------------------------------------


class ExtensionType:
    """Base of extension values; ``oid`` says which extension it is."""

    oid: ObjectIdentifier

    def _payload(self) -> object:
        raise NotImplementedError

    def public_bytes(self) -> bytes:
        """The extnValue DER."""
        return _native.x509_ext_encode(self.oid.dotted_string, self._payload())

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.public_bytes() == self.public_bytes()

    def __hash__(self) -> int:
        return hash(self.public_bytes())

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"<{type(self).__name__}({fields})>"


class BasicConstraints(ExtensionType):
    oid = ExtensionOID.BASIC_CONSTRAINTS

    def __init__(self, ca: bool, path_length: int | None) -> None:
        self.ca, self.path_length = bool(ca), path_length

    def _payload(self) -> object:
        return (self.ca, self.path_length)


_KU_FIELDS = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment",
              "key_agreement", "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")


class KeyUsage(ExtensionType):
    oid = ExtensionOID.KEY_USAGE

    def __init__(self, digital_signature: bool, content_commitment: bool, key_encipherment: bool,
                 data_encipherment: bool, key_agreement: bool, key_cert_sign: bool, crl_sign: bool,
                 encipher_only: bool, decipher_only: bool) -> None:
        if (encipher_only or decipher_only) and not key_agreement:
            raise InvalidInputError("encipher_only and decipher_only can only be true when key_agreement is true")
        values = (digital_signature, content_commitment, key_encipherment, data_encipherment, key_agreement,
                  key_cert_sign, crl_sign, encipher_only, decipher_only)
        for name, v in zip(_KU_FIELDS, values):
            setattr(self, name, bool(v))

    @classmethod
    def _from_mask(cls, mask: int) -> KeyUsage:
        return cls(*[bool(mask >> i & 1) for i in range(9)])

    def _payload(self) -> object:
        return sum(1 << i for i, n in enumerate(_KU_FIELDS) if getattr(self, n))


class ExtendedKeyUsage(ExtensionType):
    oid = ExtensionOID.EXTENDED_KEY_USAGE

    def __repr__(self) -> str:
        return f"<ExtendedKeyUsage({self._usages!r})>"

    def __init__(self, usages: Iterable[ObjectIdentifier]) -> None:
        self._usages = instances(usages, ObjectIdentifier, "usages")

    def __iter__(self) -> Iterator[ObjectIdentifier]:
        return iter(self._usages)

    def __len__(self) -> int:
        return len(self._usages)

    def _payload(self) -> object:
        return [u.dotted_string for u in self._usages]


class SubjectKeyIdentifier(ExtensionType):
    oid = ExtensionOID.SUBJECT_KEY_IDENTIFIER

    def __init__(self, digest: bytes) -> None:
        self.digest = as_bytes(digest, "digest")

    @classmethod
    def from_public_key(cls, public_key: Any) -> SubjectKeyIdentifier:
        """SHA-1 of the public key bits (RFC 5280 method 1, OpenSSL's ``hash``)."""
        return cls(_native.x509_key_identifier(duck(public_key, ("to_bytes",), "public_key").to_bytes()))

    def _payload(self) -> object:
        return self.digest


class AuthorityKeyIdentifier(ExtensionType):
    oid = ExtensionOID.AUTHORITY_KEY_IDENTIFIER

    def __init__(self, key_identifier: bytes | None, authority_cert_issuer: Iterable[GeneralName] | None,
                 authority_cert_serial_number: int | None) -> None:
        self.key_identifier = None if key_identifier is None else as_bytes(key_identifier, "key_identifier")
        self.authority_cert_issuer = (
            None if authority_cert_issuer is None
            else cast("list[GeneralName]", instances(authority_cert_issuer, _GeneralName, "authority_cert_issuer"))
        )
        self.authority_cert_serial_number = (
            None if authority_cert_serial_number is None
            else require_int(authority_cert_serial_number, "authority_cert_serial_number")
        )

    @classmethod
    def from_issuer_public_key(cls, public_key: Any) -> AuthorityKeyIdentifier:
        return cls(_native.x509_key_identifier(duck(public_key, ("to_bytes",), "public_key").to_bytes()), None, None)

    @classmethod
    def from_issuer_subject_key_identifier(cls, ski: SubjectKeyIdentifier) -> AuthorityKeyIdentifier:
        return cls(instance(ski, SubjectKeyIdentifier, "ski").digest, None, None)

    def _payload(self) -> object:
        iss = None if self.authority_cert_issuer is None else _gns_wire(self.authority_cert_issuer)
        ser = self.authority_cert_serial_number
        return (self.key_identifier, iss, None if ser is None else _int_bytes(ser))


class _NamesExtension(ExtensionType):
    def __init__(self, general_names: Iterable[GeneralName]) -> None:
        self._names = cast("list[GeneralName]", instances(general_names, _GeneralName, "general_names"))

    def __iter__(self) -> Iterator[GeneralName]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}({self._names!r})>"

    def get_values_for_type(self, type: type) -> list[Any]:
        if not (isinstance(type, builtins.type) and issubclass(type, _GeneralName)):
            raise ShangmiTypeError(f"type must be a general name class (DNSName, ...), got {type!r}")
        return [n.value for n in self._names if isinstance(n, type)]

    def _payload(self) -> object:
        return _gns_wire(self._names)


class SubjectAlternativeName(_NamesExtension):
    oid = ExtensionOID.SUBJECT_ALTERNATIVE_NAME


class IssuerAlternativeName(_NamesExtension):
    oid = ExtensionOID.ISSUER_ALTERNATIVE_NAME


class DistributionPoint:
    """A CRL distribution point given by its ``full_name`` (usually one URI)."""

    def __init__(self, full_name: Sequence[GeneralName] | None, relative_name: None = None,
                 reasons: None = None, crl_issuer: None = None) -> None:
        self.full_name = None if full_name is None else cast("list[GeneralName]", instances(full_name, _GeneralName, "full_name"))
        self.relative_name, self.reasons, self.crl_issuer = relative_name, reasons, crl_issuer

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DistributionPoint) and other.full_name == self.full_name

    def __hash__(self) -> int:
        return hash(tuple(self.full_name or ()))


class CRLDistributionPoints(ExtensionType):
    oid = ExtensionOID.CRL_DISTRIBUTION_POINTS

    def __repr__(self) -> str:
        return f"<CRLDistributionPoints({[p.full_name for p in self._points]!r})>"

    def __init__(self, distribution_points: Iterable[DistributionPoint]) -> None:
        self._points = instances(distribution_points, DistributionPoint, "distribution_points")

    def __iter__(self) -> Iterator[DistributionPoint]:
        return iter(self._points)

    def __len__(self) -> int:
        return len(self._points)

    def _payload(self) -> object:
        return [_gns_wire(p.full_name or []) for p in self._points]


class CRLNumber(ExtensionType):
    oid = ExtensionOID.CRL_NUMBER

    def __init__(self, crl_number: int) -> None:
        self.crl_number = require_int(crl_number, "crl_number")

    def _payload(self) -> object:
        return _int_bytes(self.crl_number)


class ReasonFlags:
    unspecified = 0
    key_compromise = 1
    ca_compromise = 2
    affiliation_changed = 3
    superseded = 4
    cessation_of_operation = 5
    certificate_hold = 6
    remove_from_crl = 8
    privilege_withdrawn = 9
    aa_compromise = 10


class CRLReason(ExtensionType):
    oid = ExtensionOID.CRL_REASON

    def __init__(self, reason: int) -> None:
        self.reason = require_int(reason, "reason")

    def _payload(self) -> object:
        return self.reason


class UnrecognizedExtension(ExtensionType):
    """An extension this library does not interpret, kept as its extnValue DER."""

    def __init__(self, oid: ObjectIdentifier, value: bytes) -> None:
        self.oid, self.value = instance(oid, ObjectIdentifier, "oid"), as_bytes(value, "value")

    def public_bytes(self) -> bytes:
        return self.value


def _gn_from_wire(kind: str, value: Any) -> GeneralName:
    if kind == "dns":
        return DNSName(value)
    if kind == "email":
        return RFC822Name(value)
    if kind == "uri":
        return UniformResourceIdentifier(value)
    if kind == "ip":
        return IPAddress(ipaddress.ip_address(bytes(value)))
    if kind == "dirname":
        return DirectoryName(Name._from_der(value))
    if kind == "rid":
        return RegisteredID(ObjectIdentifier(value))
    return OtherGeneralName(value)


def _int_bytes(n: int) -> bytes:
    if n < 0:
        raise InvalidInputError(f"must not be negative, got {n}")
    return n.to_bytes(max(1, (n.bit_length() + 7) // 8), "big")


def _decode_value(oid: str, value: bytes) -> ExtensionType:
    typed = _native.x509_ext_decode(oid, value)
    o = ObjectIdentifier(oid)
    if typed is None:
        return UnrecognizedExtension(o, value)
    if o == ExtensionOID.BASIC_CONSTRAINTS:
        return BasicConstraints(*typed)
    if o == ExtensionOID.KEY_USAGE:
        return KeyUsage._from_mask(typed)
    if o == ExtensionOID.EXTENDED_KEY_USAGE:
        return ExtendedKeyUsage(ObjectIdentifier(u) for u in typed)
    if o == ExtensionOID.SUBJECT_KEY_IDENTIFIER:
        return SubjectKeyIdentifier(typed)
    if o == ExtensionOID.AUTHORITY_KEY_IDENTIFIER:
        kid, iss, ser = typed
        names = None if iss is None else [_gn_from_wire(k, v) for k, v in iss]
        return AuthorityKeyIdentifier(kid, names, None if ser is None else int.from_bytes(ser, "big"))
    if o in (ExtensionOID.SUBJECT_ALTERNATIVE_NAME, ExtensionOID.ISSUER_ALTERNATIVE_NAME):
        cls = SubjectAlternativeName if o == ExtensionOID.SUBJECT_ALTERNATIVE_NAME else IssuerAlternativeName
        return cls(_gn_from_wire(k, v) for k, v in typed)
    if o == ExtensionOID.CRL_DISTRIBUTION_POINTS:
        return CRLDistributionPoints(DistributionPoint([_gn_from_wire(k, v) for k, v in p] or None) for p in typed)
    if o == ExtensionOID.CRL_NUMBER:
        return CRLNumber(int.from_bytes(typed, "big"))
    return CRLReason(typed)


class Extension:
    """``oid``, ``critical`` and the typed ``value``."""

    def __init__(self, oid: ObjectIdentifier, critical: bool, value: ExtensionType) -> None:
        self.oid, self.critical, self.value = oid, critical, value

    def __repr__(self) -> str:
        return f"<Extension(oid={self.oid!r}, critical={self.critical}, value={self.value!r})>"


class Extensions:
    """The extensions of a certificate, CSR, CRL or CRL entry, in order."""

    def __init__(self, extensions: Iterable[Extension]) -> None:
        self._extensions = instances(extensions, Extension, "extensions")

    @classmethod
    def _from_wire(cls, items: list[tuple[str, bool, bytes]]) -> Extensions:
        return cls(Extension(ObjectIdentifier(o), c, _decode_value(o, v)) for o, c, v in items)

    def get_extension_for_oid(self, oid: ObjectIdentifier) -> Extension:
        instance(oid, ObjectIdentifier, "oid")
        for e in self._extensions:
            if e.oid == oid:
                return e
        raise ExtensionNotFound(f"no extension {oid.dotted_string} ({oid._name})")

    def get_extension_for_class(self, extclass: type[ExtensionType]) -> Extension:
        if not (isinstance(extclass, type) and issubclass(extclass, ExtensionType)):
            raise ShangmiTypeError(f"extclass must be an ExtensionType class, got {extclass!r}")
        for e in self._extensions:
            if isinstance(e.value, extclass):
                return e
        raise ExtensionNotFound(f"no {extclass.__name__} extension")

    def __iter__(self) -> Iterator[Extension]:
        return iter(self._extensions)

    def __len__(self) -> int:
        return len(self._extensions)

    def __repr__(self) -> str:
        return f"<Extensions({self._extensions!r})>"


def _ext_wire(exts: Iterable[Extension]) -> list[tuple[str, bool, bytes]]:
    return [(e.oid.dotted_string, bool(e.critical), e.value.public_bytes()) for e in exts]
