"""CFCA's key formats and GB/T 35276 key envelopes through the Python face,
with files CFCA's SADK, gmsm, GmSSL and OpenSSL wrote (provenance in
tests/vectors/README.md)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from shangmi import cfca, sm2, x509
from shangmi.exceptions import DecryptionError, InvalidInputError, InvalidKey, ShangmiError, UnsupportedAlgorithm

HERE = Path(__file__).parent / "vectors" / "cfca"


def test_load_sm2_from_sadk_file() -> None:
    key, cert = cfca.load_sm2((HERE / "gmsm_oca1_123456.sm2.pem").read_bytes(), "123456")
    # The d and issuer gmsm's ExampleParseSM2 prints for this file.
    assert key.to_bytes().hex() == "d3f24d61bb2816882b8474b778dd7c3166d665f9455dc9d551c989c161e76ab0"
    assert "CFCA TEST SM2 OCA1" in cert.issuer.rfc4514_string()
    assert cert.public_key() == key.public_key()
    # Bare base64 text, as .sm2 files are delivered.
    body = "".join(line for line in (HERE / "gmsm_oca1_123456.sm2.pem").read_text().splitlines()
                   if not line.startswith("-----"))
    assert cfca.load_sm2(body, b"123456")[0].to_bytes() == key.to_bytes()
    key2, cert2 = cfca.load_sm2((HERE / "gmsm_oca31_ys123456.sm2.pem").read_bytes(), b"ys123456")
    assert cert2.public_key() == key2.public_key()


def test_save_sm2_matches_sadk_byte_for_byte() -> None:
    pem = (HERE / "gmsm_oca1_123456.sm2.pem").read_bytes()
    key, cert = cfca.load_sm2(pem, "123456")
    der = cfca.save_sm2(key, cert, "123456")
    assert cfca.load_sm2(der, "123456")[0].to_bytes() == key.to_bytes()
    import base64
    body = b"".join(line for line in pem.splitlines() if not line.startswith(b"-----"))
    assert der == base64.b64decode(body)


def test_load_sm2_refusals() -> None:
    pem = (HERE / "gmsm_oca1_123456.sm2.pem").read_bytes()
    with pytest.raises(InvalidKey, match="wrong password"):
        cfca.load_sm2(pem, "wrongpwd")
    with pytest.raises(InvalidKey):
        cfca.load_sm2(pem, "")
    der = cfca.save_sm2(*cfca.load_sm2(pem, "123456"), "123456")
    with pytest.raises(InvalidInputError):
        cfca.load_sm2(der[:-1], "123456")
    with pytest.raises(InvalidInputError):
        cfca.load_sm2(der + b"\0", "123456")
    with pytest.raises(InvalidInputError):
        cfca.load_sm2(b"!!not a key!!", "123456")
    for i in range(3):
        bad = bytes.fromhex((HERE / f"gmsm_invalid_oid_{i}.der.hex").read_text().strip())
        with pytest.raises((InvalidInputError, UnsupportedAlgorithm)):
            cfca.load_sm2(bad, "123456")
    with pytest.raises(InvalidKey, match="does not belong"):
        other = x509.load_pem_x509_certificate((HERE / "cfca_test_sm2_oca1.pem").read_bytes())
        cfca.save_sm2(cfca.load_sm2(pem, "123456")[0], other, "x")


def test_escrowed_keys_from_gmsm() -> None:
    cases = json.loads((HERE / "gmsm_escrowed_keys.json").read_text())
    good = 0
    for c in cases:
        tmp = sm2.PrivateKey.from_bytes(bytes.fromhex(c["tmp_key"]))
        if c["error"]:
            with pytest.raises(ShangmiError):
                cfca.decrypt_escrowed_key(c["data"], tmp)
        else:
            assert cfca.decrypt_escrowed_key(c["data"], tmp).to_bytes().hex() == c["enc_key"]
            good += 1
    assert good == 3
    tmp = sm2.PrivateKey.from_bytes(bytes.fromhex(cases[0]["tmp_key"]))
    with pytest.raises(InvalidKey, match="does not match the public key"):
        cfca.decrypt_escrowed_key(cases[11]["data"], tmp)
    with pytest.raises(DecryptionError):
        cfca.decrypt_escrowed_key(cases[0]["data"], sm2.PrivateKey.generate())


def test_enveloped_key_made_by_gmssl_and_openssl() -> None:
    data = (HERE / "gbt35276_enveloped_key.der").read_bytes()
    recip = sm2.PrivateKey.from_pem((HERE / "gbt35276_recipient_key.pem").read_bytes())
    want = (HERE / "gbt35276_enveloped_d.hex").read_text().strip()
    got = sm2.unwrap_enveloped_key(data, recip)
    assert got.to_bytes().hex() == want
    again = sm2.wrap_enveloped_key(got, recip.public_key())
    assert sm2.unwrap_enveloped_key(again, recip).to_bytes() == got.to_bytes()
    with pytest.raises(DecryptionError):
        sm2.unwrap_enveloped_key(again, sm2.PrivateKey.generate())
    # Another public key beside the encrypted one.
    other = sm2.PrivateKey.generate().public_key().to_bytes()
    pos = len(data) - 35 - 68
    swapped = data[: pos + 3] + other + data[pos + 68:]
    with pytest.raises(InvalidKey, match="does not match the sm2PublicKey"):
        sm2.unwrap_enveloped_key(swapped, recip)
    with pytest.raises(InvalidInputError):
        sm2.unwrap_enveloped_key(data[:-2], recip)
    with pytest.raises(UnsupportedAlgorithm):
        sm2.unwrap_enveloped_key(data[:12] + b"\x02" + data[13:], recip)
