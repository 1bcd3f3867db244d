"""PKCS#12 / PFX files (RFC 7292), shaped like pyca's
``cryptography.hazmat.primitives.serialization.pkcs12``.

::

    from shangmi import pkcs12
    key, cert, cas = pkcs12.load_key_and_certificates(data, b"password")
    p = pkcs12.load_pkcs12(data, "password")             # friendly names, local key IDs
    pfx = pkcs12.serialize_key_and_certificates(b"name", key, cert, cas, password=b"pw")

Read: PBES2 (PBKDF2 with HMAC-SHA1/SHA-256/SM3; SM4-CBC or AES-CBC), the
legacy PKCS#12 PBEs (3DES, RC2-128, RC2-40) that CA-issued SM2 files use,
MACs with SHA-1, SHA-256 or SM3, unencrypted bags, BER. The MAC is checked
first: a wrong password (or a modified file) raises one
:class:`~shangmi.InvalidKey`; a key other than SM2 in an authentic file
raises :class:`~shangmi.UnsupportedAlgorithm`.

Written (``encryption=``):

=============  =======================================================  =============================
``"sm"``       PBKDF2-HMAC-SM3 + SM4-CBC, HMAC-SM3 MAC                  BouncyCastle, gmsm, shangmi
(default)                                                               (not OpenSSL 3.0)
``"openssl"``  PBKDF2-HMAC-SHA256 + AES-256-CBC, HMAC-SHA256 MAC        OpenSSL 3's default; every
                                                                        current toolkit
``None``       nothing encrypted, no MAC (no password)                  everyone
=============  =======================================================  =============================

Passwords are ``bytes`` or ``str`` (UTF-8); the empty password is a
password. Key derivations asking for more than
:data:`DEFAULT_MAX_ITERATIONS` iterations are refused unless
``max_iterations=`` allows them (real files use 2,048 to 102,400).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from shangmi import _native, sm2
from shangmi._buffer import Buffer, instance, instances
from shangmi.x509 import Certificate

__all__ = [
    "DEFAULT_MAX_ITERATIONS",
    "PKCS12Certificate",
    "PKCS12KeyAndCertificates",
    "load_key_and_certificates",
    "load_pkcs12",
    "serialize_key_and_certificates",
]

#: The most iterations any key derivation in a file may ask for unless
#: ``max_iterations=`` allows more (the same cap as encrypted PKCS#8 keys).
DEFAULT_MAX_ITERATIONS: int = _native.PKCS12_DEFAULT_MAX_ITERATIONS

Encryption = Literal["sm", "openssl"]


def _text(value: Buffer | str | None) -> Buffer | None:
    return value.encode("utf-8") if isinstance(value, str) else value


class PKCS12Certificate:
    """A certificate from a PKCS#12 file with its bag attributes:
    ``friendly_name`` (UTF-8 bytes, as pyca gives it) and ``local_key_id``."""

    __slots__ = ("_cert", "_name", "_local_key_id")

    def __init__(self, cert: Certificate, name: bytes | None, local_key_id: bytes | None = None) -> None:
        self._cert = instance(cert, Certificate, "cert")
        self._name = None if name is None else bytes(instance(name, bytes, "name"))
        self._local_key_id = None if local_key_id is None else bytes(instance(local_key_id, bytes, "local_key_id"))

    @property
    def certificate(self) -> Certificate:
        return self._cert

    @property
    def friendly_name(self) -> bytes | None:
        return self._name

    @property
    def local_key_id(self) -> bytes | None:
        return self._local_key_id

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PKCS12Certificate):
            return NotImplemented
        return (self._cert, self._name, self._local_key_id) == (other._cert, other._name, other._local_key_id)

    def __hash__(self) -> int:
        return hash((self._cert, self._name, self._local_key_id))

    def __repr__(self) -> str:
        return f"<PKCS12Certificate({self._cert!r}, friendly_name={self._name!r})>"


class PKCS12KeyAndCertificates:
    """What :func:`load_pkcs12` returns: ``key`` (or ``None``), ``cert`` (the
    key's own certificate, or ``None``), ``additional_certs``, and the key's
    bag attributes ``key_friendly_name`` / ``key_local_key_id``."""

    __slots__ = ("_key", "_cert", "_additional", "_key_name", "_key_id")

    def __init__(
        self,
        key: sm2.PrivateKey | None,
        cert: PKCS12Certificate | None,
        additional_certs: list[PKCS12Certificate],
        key_friendly_name: bytes | None = None,
        key_local_key_id: bytes | None = None,
    ) -> None:
        self._key = None if key is None else instance(key, sm2.PrivateKey, "key")
        self._cert = None if cert is None else instance(cert, PKCS12Certificate, "cert")
        self._additional = instances(additional_certs, PKCS12Certificate, "additional_certs")
        self._key_name = key_friendly_name
        self._key_id = key_local_key_id

    @property
    def key(self) -> sm2.PrivateKey | None:
        return self._key

    @property
    def cert(self) -> PKCS12Certificate | None:
        return self._cert

    @property
    def additional_certs(self) -> list[PKCS12Certificate]:
        return list(self._additional)

    @property
    def key_friendly_name(self) -> bytes | None:
        return self._key_name

    @property
    def key_local_key_id(self) -> bytes | None:
        return self._key_id

    def __repr__(self) -> str:
        return f"<PKCS12KeyAndCertificates(key={self._key!r}, cert={self._cert!r}, additional_certs={len(self._additional)})>"


def _name_bytes(name: str | None) -> bytes | None:
    return None if name is None else name.encode("utf-8")


def load_pkcs12(data: Buffer, password: Buffer | str | None, *, max_iterations: int | None = None) -> PKCS12KeyAndCertificates:
    """Reads a PKCS#12 file (DER or BER) with ``password`` (``None`` is the
    empty password, as OpenSSL treats it)."""
    key, certs, index = _native.pkcs12_load(
        data, _text(password), DEFAULT_MAX_ITERATIONS if max_iterations is None else max_iterations
    )
    entries = [PKCS12Certificate(Certificate(c), _name_bytes(n), i) for c, (n, i) in certs]
    cert = None if index is None else entries[index]
    additional = [e for k, e in enumerate(entries) if k != index]
    if key is None:
        return PKCS12KeyAndCertificates(None, cert, additional)
    native_key, (key_name, key_id) = key
    return PKCS12KeyAndCertificates(sm2.PrivateKey._wrap(native_key), cert, additional, _name_bytes(key_name), key_id)


def load_key_and_certificates(
    data: Buffer, password: Buffer | str | None, *, max_iterations: int | None = None
) -> tuple[sm2.PrivateKey | None, Certificate | None, list[Certificate]]:
    """``(key, certificate, additional_certificates)`` from a PKCS#12 file:
    the certificate is the one whose public key is the key's."""
    p = load_pkcs12(data, password, max_iterations=max_iterations)
    return p.key, None if p.cert is None else p.cert.certificate, [c.certificate for c in p.additional_certs]


def serialize_key_and_certificates(
    name: Buffer | str | None,
    key: sm2.PrivateKey | None,
    cert: Certificate | None,
    cas: Iterable[Certificate] | None,
    *,
    password: Buffer | str | None = None,
    encryption: Encryption | None = "sm",
) -> bytes:
    """A PKCS#12 file holding ``key``, its certificate ``cert`` and ``cas``.
    ``name`` becomes the friendly name of the key and its certificate, which
    share a local key ID. With ``encryption`` ("sm" or "openssl", see the
    module's table) a ``password`` is required; ``encryption=None`` writes
    an unprotected file and takes no password."""
    return _native.pkcs12_serialize(
        _text(name),
        None if key is None else instance(key, sm2.PrivateKey, "key")._key,
        None if cert is None else instance(cert, Certificate, "cert")._c,
        [] if cas is None else [c._c for c in instances(cas, Certificate, "cas")],
        encryption,
        _text(password),
    )
