"""CFCA's own key formats (China Financial Certification Authority and its
SADK toolkit).

::

    from shangmi import cfca
    key, cert = cfca.load_sm2(open("user.sm2", "rb").read(), b"123456")
    enc_key = cfca.decrypt_escrowed_key(response_text, temporary_key)

``.sm2`` containers (DER, PEM or base64 text) hold an SM2 private key,
SM4-CBC-encrypted under a key and IV derived from the password alone by the
SM3 KDF of GB/T 32918.4 (no salt, no iteration count: such a file is only as
strong as its password), and its certificate. The key must belong to the
certificate. A wrong password raises :class:`~shangmi.InvalidKey`.

The escrowed encryption key is what CFCA returns for a dual-certificate
request whose CSR carried a temporary SM2 public key: the encryption key
pair, SM2-encrypted to that temporary key (SADK's text form, with or without
its numeric prefix and comma separators). The delivered private key must
match the public key delivered with it.

GB/T 35276 key envelopes (KMSs) are in :mod:`shangmi.sm2`
(:func:`~shangmi.sm2.unwrap_enveloped_key`).
"""

from __future__ import annotations

from shangmi import _native, sm2
from shangmi._buffer import Buffer, instance
from shangmi.x509 import Certificate

__all__ = ["load_sm2", "save_sm2", "decrypt_escrowed_key"]


def _password(password: Buffer | str) -> Buffer:
    return password.encode("utf-8") if isinstance(password, str) else password


def load_sm2(data: Buffer | str, password: Buffer | str) -> tuple[sm2.PrivateKey, Certificate]:
    """The private key and certificate of a CFCA ``.sm2`` container."""
    raw = data.encode("ascii") if isinstance(data, str) else data
    key, cert = _native.cfca_load_sm2(raw, _password(password))
    return sm2.PrivateKey._wrap(key), Certificate(cert)


def save_sm2(key: sm2.PrivateKey, certificate: Certificate, password: Buffer | str) -> bytes:
    """A ``.sm2`` container (DER) as SADK writes it; read by SADK and gmsm."""
    k = instance(key, sm2.PrivateKey, "key")
    c = instance(certificate, Certificate, "certificate")
    return _native.cfca_save_sm2(k._key, c._c, _password(password))


def decrypt_escrowed_key(data: Buffer | str, temporary_key: sm2.PrivateKey) -> sm2.PrivateKey:
    """The encryption key CFCA escrowed and returned, decrypted with the
    temporary key whose public half the dual-certificate request carried."""
    raw = data.encode("ascii") if isinstance(data, str) else data
    k = instance(temporary_key, sm2.PrivateKey, "temporary_key")
    return sm2.PrivateKey._wrap(_native.cfca_decrypt_escrowed_key(raw, k._key))
