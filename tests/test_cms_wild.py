"""CMS as CAs write it, through the Python face: gmsm's EnvelopedData
under the bare SM4 OID with recipients by key identifier (extension and
RFC 5280 method 1), gmcert.org's GM/T 0010 SignedAndEnvelopedData, a
certs-only .p7b given to verify, and the ``shangmi cms certs`` CLI."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from shangmi import cms, sm2, x509
from shangmi.cli import main
from shangmi.exceptions import DecryptionError, InvalidInputError, InvalidSignature

HERE = Path(__file__).parent / "vectors"
WILD = HERE / "cms_wild"


def _cert(name: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate((WILD / name).read_bytes())


def _hex_key(name: str) -> sm2.PrivateKey:
    return sm2.PrivateKey.from_bytes(bytes.fromhex((WILD / name).read_text().strip()))


@pytest.mark.parametrize("case", ["ski_extension", "ski_method1"])
def test_gmsm_enveloped_by_key_identifier(case: str) -> None:
    msg = (WILD / f"gmsm_enveloped_{case}.pem").read_bytes()
    cert, key = _cert(f"gmsm_enveloped_{case}_cert.pem"), _hex_key(f"gmsm_enveloped_{case}_key.hex")
    assert cms.decrypt(msg, key, cert) == b"Hello World!"
    assert cms.decrypt(msg, key) == b"Hello World!"
    with pytest.raises(DecryptionError):
        cms.decrypt(msg, sm2.PrivateKey.generate())


def test_key_identifier_written_without_ski_extension() -> None:
    cert, key = _cert("gmsm_enveloped_ski_method1_cert.pem"), _hex_key("gmsm_enveloped_ski_method1_key.hex")
    env = cms.encrypt(b"by method 1", [cert], recipient_id="key_identifier")
    assert cms.decrypt(env, key, cert) == b"by method 1"


def test_gmcert_signed_and_enveloped() -> None:
    msg = (WILD / "gmcert_signed_enveloped.pem").read_bytes()
    key = sm2.PrivateKey.from_pem((WILD / "gmcert_signed_enveloped_recipient_key.pem").read_bytes())
    want = sm2.PrivateKey.from_pem((WILD / "gmcert_signed_enveloped_expected_key.pem").read_bytes())
    v = cms.decrypt_and_verify(msg, key)
    assert v.content == bytes(32) + want.to_bytes()
    assert len(v.signers) == 1
    with pytest.raises(InvalidInputError, match="signed-and-enveloped"):
        cms.decrypt(msg, key)
    der = base64.b64decode(b"".join(line for line in msg.splitlines() if not line.startswith(b"-----")))
    tampered = der[:-3] + bytes([der[-3] ^ 1]) + der[-2:]
    with pytest.raises(InvalidSignature):
        cms.decrypt_and_verify(tampered, key)


def test_sign_and_encrypt_round_trip() -> None:
    cert = _cert("gmcert_signed_enveloped_signer_cert.pem")
    key = sm2.PrivateKey.from_pem((WILD / "gmcert_signed_enveloped_recipient_key.pem").read_bytes())
    for oids in ("gmt0010", "rfc5652"):
        msg = cms.sign_and_encrypt(b"key pair", cert, key, [cert], oids=oids, encoding="pem")
        v = cms.decrypt_and_verify(msg, key, cert)
        assert v.content == b"key pair" and v.signers == [cert]


def test_certs_only_p7b_given_to_verify_says_so() -> None:
    p7b = (HERE / "pkcs12" / "chain.p7b.pem").read_bytes()
    with pytest.raises(InvalidInputError, match="signed-data has no signers.*load_der_pkcs7_certificates"):
        cms.verify(p7b)


def test_cli_cms_certs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p7b = HERE / "pkcs12" / "chain.p7b.pem"
    assert main(["cms", "certs", str(p7b)]) == 0
    err = capsys.readouterr().err
    assert "0: subject:" in err and "1: subject:" in err
    out = tmp_path / "chain.pem"
    assert main(["cms", "certs", str(p7b), "-o", str(out)]) == 0
    certs = x509.load_pem_x509_certificates(out.read_bytes())
    assert certs == x509.load_pem_pkcs7_certificates(p7b.read_bytes())
    der = tmp_path / "chain.p7b"
    assert main(["cms", "certs", str(p7b), "-o", str(der), "--outform", "p7b-der"]) == 0
    assert main(["cms", "certs", str(der)]) == 0
    assert x509.load_der_pkcs7_certificates(der.read_bytes()) == certs
