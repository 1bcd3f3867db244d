"""Signed and enveloped messages (CMS / PKCS#7) with SM2, SM3 and SM4.

::

    from shangmi import cms
    msg = cms.sign(b"hello", cert, key)                   # SignedData, GM/T 0010 OIDs
    v = cms.verify(msg, trust_roots=[root])               # v.content, v.signers
    env = cms.encrypt(b"secret", [cert])                  # EnvelopedData: SM2 key transport + SM4-CBC
    assert cms.decrypt(env, key, cert) == b"secret"

Shapes written (all three are read, DER or PEM):

=================  ===========================  ============================================
``oids=``          content-type OIDs            SignedData signature
=================  ===========================  ============================================
``"gmt0010"``      1.2.156.10197.6.1.4.2.x      over signed attributes (content type, SM3
(default)          (GM/T 0010, GB/T 35275)      message digest, signing time), SM2 with Z(uid)
``"rfc5652"``      1.2.840.113549.1.7.x         the same
``compat="gmssl"`` GM/T 0010 OIDs               GmSSL's form: no signed attributes, SM2 over
                                                SM3(encapsulated ContentInfo DER), no Z;
                                                key transport OID 1.2.156.10197.1.301.2
=================  ===========================  ============================================

Read as CAs write it: BER (indefinite lengths, constructed OCTET STRINGs),
SM4-CBC under the bare SM4 OID 1.2.156.10197.1.104 with an IV (CFCA, gmsm)
and SM4-ECB without one (key management centres), recipients named by
issuer and serial or by key identifier (the subjectKeyIdentifier, or SHA-1
of the public key, RFC 5280 method 1, when the certificate has none).
GM/T 0010 SignedAndEnvelopedData, which CAs' key management centres use to
deliver encryption keys, is read by :func:`decrypt_and_verify` and written
by :func:`sign_and_encrypt`. A certs-only ``.p7b`` is read by
:func:`shangmi.x509.load_der_pkcs7_certificates`.

OpenSSL 3.0 cannot make CMS with SM2 keys at all. Content encryption is
SM4-CBC: it has no integrity of its own (a modified ciphertext is only caught
when its padding breaks), so sign what must not be altered.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol

from shangmi import _native, sm2
from shangmi._buffer import Buffer, as_bytes, duck, instance, instances
from shangmi.exceptions import DecryptionError, InvalidInputError
from shangmi.x509 import Certificate, Signer, _secs

__all__ = [
    "sign",
    "verify",
    "encrypt",
    "decrypt",
    "sign_and_encrypt",
    "decrypt_and_verify",
    "VerifiedMessage",
    "Decrypter",
]

Oids = Literal["gmt0010", "rfc5652"]


def _out(der: bytes, encoding: str) -> bytes:
    return _native.cms_encode(der, encoding)


def _msg(data: Buffer | str) -> Buffer:
    return data.encode() if isinstance(data, str) else data


def sign(
    data: Buffer,
    certificate: Certificate,
    private_key: Signer,
    *,
    detached: bool = False,
    certificates: Iterable[Certificate] = (),
    uid: Buffer = sm2.DEFAULT_UID,
    oids: Oids = "gmt0010",
    compat: Literal["gmssl"] | None = None,
    signing_time: _dt.datetime | None = None,
    encoding: Literal["der", "pem"] = "der",
) -> bytes:
    """A SignedData over ``data`` by ``private_key`` (whose certificate is
    ``certificate``; ``certificates`` adds intermediates). ``detached=True``
    leaves the content out."""
    signer = instance(certificate, Certificate, "certificate")._c
    extra = [c._c for c in instances(certificates, Certificate, "certificates")]
    when = _secs(signing_time or _dt.datetime.now(_dt.timezone.utc), "signing_time")
    # The native call converts and checks every argument before any signing.
    e = _native.cms_sign(data, signer, extra, detached, oids, compat, when, uid)
    if duck(private_key, ("public_key", "sign_digest"), "private_key").public_key() != certificate.public_key():
        raise InvalidInputError("the private key does not belong to the signer certificate")
    sig = private_key.sign_digest(e)
    return _out(_native.cms_sign(data, signer, extra, detached, oids, compat, when, uid, sig), encoding)


class VerifiedMessage:
    """What :func:`verify` found: ``content``, ``signers`` (their certificates),
    every carried certificate, and ``form`` ("gmt0010", "rfc5652" or "gmssl")."""

    def __init__(self, content: bytes, signers: list[Certificate], certificates: list[Certificate], form: str) -> None:
        self.content, self.signers, self.certificates, self.form = content, signers, certificates, form

    def __repr__(self) -> str:
        return f"<VerifiedMessage(form={self.form!r}, signers={self.signers!r}, {len(self.content)} bytes)>"


def verify(
    signed: Buffer | str,
    *,
    data: Buffer | None = None,
    trust_roots: Sequence[Certificate] | None = None,
    certificates: Iterable[Certificate] = (),
    uid: Buffer | None = None,
    at: _dt.datetime | None = None,
) -> VerifiedMessage:
    """Checks every signature of a SignedData (DER or PEM); ``data`` is the
    content of a detached signature. With ``trust_roots`` every signer must
    also chain to one of them (:func:`shangmi.x509.verify_chain` rules, at
    ``at``), else :class:`~shangmi.InvalidCertificate`; without, only the
    signatures are checked, which says nothing about *who* signed. A bad
    signature or a digest that does not match raises
    :class:`~shangmi.InvalidSignature`. ``uid=None`` accepts either SM2 ID."""
    when = _secs(at or _dt.datetime.now(_dt.timezone.utc), "at")
    roots = None if trust_roots is None else [c._c for c in instances(trust_roots, Certificate, "trust_roots")]
    extra = [c._c for c in instances(certificates, Certificate, "certificates")]
    content, signers, certs, form = _native.cms_verify(_msg(signed), data, extra, uid, roots, when)
    return VerifiedMessage(content, [Certificate(c) for c in signers], [Certificate(c) for c in certs], form)


def encrypt(
    data: Buffer,
    recipient_certificates: Iterable[Certificate],
    *,
    oids: Oids = "gmt0010",
    compat: Literal["gmssl"] | None = None,
    recipient_id: Literal["issuer_and_serial", "key_identifier"] = "issuer_and_serial",
    encoding: Literal["der", "pem"] = "der",
) -> bytes:
    """An EnvelopedData: a fresh SM4 key, SM4-CBC over ``data``, the key
    SM2-encrypted (GM/T 0009 SM2Cipher) to each recipient certificate."""
    certs = [c._c for c in instances(recipient_certificates, Certificate, "recipient_certificates")]
    der = _native.cms_encrypt(data, certs, oids, compat, recipient_id)
    return _out(der, encoding)


class Decrypter(Protocol):
    """What :func:`decrypt` needs: SM2 decryption of a GM/T 0009 DER ciphertext."""

    def decrypt(self, ciphertext: Buffer, *, mode: Literal["der"]) -> bytes: ...


def decrypt(enveloped: Buffer | str, private_key: Decrypter, certificate: Certificate | None = None) -> bytes:
    """The content of an EnvelopedData. With ``certificate`` only the recipient
    entry naming it is used; without, every SM2 entry is tried. Failures to
    decrypt are one opaque :class:`~shangmi.DecryptionError`."""
    msg = _msg(enveloped)
    cert = None if certificate is None else instance(certificate, Certificate, "certificate")
    duck(private_key, ("decrypt",), "private_key")
    if cert is not None and isinstance(private_key, sm2.PrivateKey):
        if private_key.public_key() != cert.public_key():
            raise InvalidInputError("the private key does not belong to the recipient certificate")
    keys = _native.cms_recipient_keys(msg, None if cert is None else cert._c)
    for wrapped in keys:
        try:
            cek = private_key.decrypt(wrapped, mode="der")
        except (DecryptionError, InvalidInputError):
            continue
        return _native.cms_decrypt_content(msg, cek)
    raise DecryptionError("decryption failed")


def sign_and_encrypt(
    data: Buffer,
    certificate: Certificate,
    private_key: Signer,
    recipient_certificates: Iterable[Certificate],
    *,
    certificates: Iterable[Certificate] = (),
    uid: Buffer = sm2.DEFAULT_UID,
    oids: Oids = "gmt0010",
    encoding: Literal["der", "pem"] = "der",
) -> bytes:
    """A SignedAndEnvelopedData (GM/T 0010 section 10; ``oids="rfc5652"``
    writes PKCS#7's OID): ``data`` SM4-CBC-encrypted for each recipient and
    SM2-signed (SM3 with Z(uid), over the plaintext, no signed attributes)
    by ``private_key``, as key management centres and gmsm write it."""
    signer = instance(certificate, Certificate, "certificate")._c
    extra = [c._c for c in instances(certificates, Certificate, "certificates")]
    recips = [c._c for c in instances(recipient_certificates, Certificate, "recipient_certificates")]
    e = _native.cms_sed_seal(data, signer, extra, recips, oids, uid)
    if duck(private_key, ("public_key", "sign_digest"), "private_key").public_key() != certificate.public_key():
        raise InvalidInputError("the private key does not belong to the signer certificate")
    sig = private_key.sign_digest(e)
    return _out(_native.cms_sed_seal(data, signer, extra, recips, oids, uid, sig), encoding)


def decrypt_and_verify(
    message: Buffer | str,
    private_key: Decrypter,
    certificate: Certificate | None = None,
    *,
    trust_roots: Sequence[Certificate] | None = None,
    certificates: Iterable[Certificate] = (),
    uid: Buffer | None = None,
    at: _dt.datetime | None = None,
) -> VerifiedMessage:
    """Decrypts a SignedAndEnvelopedData and checks every signature over the
    content (``form`` is "gmt0010"). Decryption failures are one opaque
    :class:`~shangmi.DecryptionError`; a bad signature raises
    :class:`~shangmi.InvalidSignature`; with ``trust_roots``, a signer that
    does not chain raises :class:`~shangmi.InvalidCertificate`."""
    msg = _msg(message)
    cert = None if certificate is None else instance(certificate, Certificate, "certificate")
    duck(private_key, ("decrypt",), "private_key")
    # Checked before any decryption, which may end the call first.
    uid = None if uid is None else as_bytes(uid, "uid")
    if cert is not None and isinstance(private_key, sm2.PrivateKey):
        if private_key.public_key() != cert.public_key():
            raise InvalidInputError("the private key does not belong to the recipient certificate")
    when = _secs(at or _dt.datetime.now(_dt.timezone.utc), "at")
    roots = None if trust_roots is None else [c._c for c in instances(trust_roots, Certificate, "trust_roots")]
    extra = [c._c for c in instances(certificates, Certificate, "certificates")]
    for wrapped in _native.cms_sed_recipient_keys(msg, None if cert is None else cert._c):
        try:
            cek = private_key.decrypt(wrapped, mode="der")
        except (DecryptionError, InvalidInputError):
            continue
        content, signers, certs = _native.cms_sed_open(msg, cek, extra, uid, roots, when)
        return VerifiedMessage(content, [Certificate(c) for c in signers], [Certificate(c) for c in certs], "gmt0010")
    raise DecryptionError("decryption failed")
