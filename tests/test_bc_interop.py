"""Files BouncyCastle 1.72 (Debian's libbcprov-java/libbcpkix-java) wrote, read
by shangmi; no Java needed. Provenance and commands: tests/vectors/README.md
(``bc/`` and ``pkcs12/``). The expected values are BouncyCastle's: the content
it signed, the key and certificates it was given, and BouncyCastle's own check
of these files (``BcInterop pfx`` / ``BcInterop signed`` printed OK).

BouncyCastle 1.72 cannot write SM4-CBC PBES2 (its PBES2 builder has no HMAC-SM3
PRF, "no prf for algorithm: 1.2.156.10197.1.401.2", and no key size for SM4-CBC,
"invalid keyLength value") nor CMS EnvelopedData with SM4-CBC content ("cannot
create key generator: no such algorithm: 1.2.156.10197.1.104.2"), so its closest
ShangMi PFX is AES-256 bags with an SM3 MAC and there is no BouncyCastle
EnvelopedData to decrypt here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from shangmi import cms, pkcs12, sm2, x509
from shangmi.exceptions import InvalidSignature

V = Path(__file__).parent / "vectors"
KEYS = V / "pkcs12"
BC = V / "bc"

KEY = sm2.PrivateKey.from_pem((KEYS / "key.pem").read_bytes())
LEAF = x509.load_pem_x509_certificate((KEYS / "leaf.pem").read_bytes())
CA = x509.load_pem_x509_certificate((KEYS / "ca.pem").read_bytes())


def test_bc_pfx_key_matches_its_certificate() -> None:
    key, cert, extra = pkcs12.load_key_and_certificates((KEYS / "bc-aes256-sm3mac.p12").read_bytes(), "bc密码")
    assert key is not None and cert is not None
    assert key.public_key() == cert.public_key()
    # What BouncyCastle was given to write it.
    assert key.to_bytes() == KEY.to_bytes()
    assert cert == LEAF
    assert extra == [CA]


def test_bc_pfx_wrong_password() -> None:
    with pytest.raises(Exception, match="(?i)password|mac"):
        pkcs12.load_key_and_certificates((KEYS / "bc-aes256-sm3mac.p12").read_bytes(), "bc密码x")


def test_bc_signed_data_verifies() -> None:
    v = cms.verify((BC / "bc-signed.p7s").read_bytes(), trust_roots=[CA])
    assert v.content == b"signed by BouncyCastle 1.72"
    assert v.signers == [LEAF]
    assert v.form == "rfc5652"


def test_bc_signed_data_tampered_content_fails() -> None:
    der = bytearray((BC / "bc-signed.p7s").read_bytes())
    i = der.find(b"signed by BouncyCastle 1.72")
    assert i > 0
    der[i] ^= 1
    with pytest.raises(InvalidSignature):
        cms.verify(bytes(der))


def test_bc_detached_signed_data_verifies() -> None:
    der = (BC / "bc-signed-detached.p7s").read_bytes()
    v = cms.verify(der, data=b"signed by BouncyCastle 1.72", trust_roots=[CA])
    assert v.signers == [LEAF]
    with pytest.raises(InvalidSignature):
        cms.verify(der, data=b"signed by BouncyCastle 1.73")
