"""Certs-only PKCS#7 (.p7b): OpenSSL's crl2pkcs7 output read in order, ours
read by OpenSSL and identical to its own, refusals."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from conftest import requires_openssl, run_openssl

import shangmi
from shangmi import x509

HERE = Path(__file__).parent / "vectors" / "pkcs12"
LEAF = x509.load_pem_x509_certificate((HERE / "leaf.pem").read_bytes())
CA = x509.load_pem_x509_certificate((HERE / "ca.pem").read_bytes())
#: `openssl crl2pkcs7 -nocrl -certfile leaf.pem -certfile ca.pem` (OpenSSL 3.0.19).
OPENSSL_P7B = (HERE / "chain.p7b.pem").read_bytes()


def test_read_openssl_fixture_and_write_identical() -> None:
    assert x509.load_pem_pkcs7_certificates(OPENSSL_P7B) == [LEAF, CA]
    assert x509.load_pem_pkcs7_certificates(OPENSSL_P7B.decode()) == [LEAF, CA]
    assert x509.serialize_certificates([LEAF, CA]).strip() == OPENSSL_P7B.strip()
    der = x509.serialize_certificates([CA, LEAF], "der")
    assert x509.load_der_pkcs7_certificates(der) == [CA, LEAF]


def test_refusals() -> None:
    der = x509.serialize_certificates([LEAF], "der")
    for bad in (der[:-1], der + b"\x00", LEAF.to_der(), b""):
        with pytest.raises(shangmi.InvalidInputError):
            x509.load_der_pkcs7_certificates(bad)
    with pytest.raises(shangmi.InvalidInputError, match="PKCS7"):
        x509.load_pem_pkcs7_certificates(LEAF.to_pem())
    with pytest.raises(shangmi.InvalidInputError, match="'pem', 'der'"):
        x509.serialize_certificates([LEAF], "xml")  # type: ignore[arg-type]
    with pytest.raises(shangmi.InvalidInputError, match="no certificates"):
        x509.serialize_certificates([])
    with pytest.raises(shangmi.ShangmiTypeError):
        x509.serialize_certificates([b"x"])  # type: ignore[list-item]


@requires_openssl
def test_openssl_both_ways(tmp_path: Path) -> None:
    p7 = tmp_path / "ours.p7b"
    p7.write_bytes(x509.serialize_certificates([LEAF, CA], "der"))
    out = run_openssl("pkcs7", "-inform", "DER", "-in", str(p7), "-print_certs")
    assert x509.load_pem_x509_certificates(out) == [LEAF, CA]
    got = subprocess.run(["openssl", "crl2pkcs7", "-nocrl", "-certfile", str(HERE / "ca.pem"), "-outform", "DER"],
                         capture_output=True, check=True).stdout
    assert x509.load_der_pkcs7_certificates(got) == [CA]
