"""shangmi.pkcs12 against the OpenSSL 3 CLI, both ways, with files made at
test time (SM2 keys from `openssl genpkey`, SM3-signed certificates)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from conftest import requires_openssl, run_openssl

from shangmi import pkcs12, sm2, x509

pytestmark = requires_openssl


def _key_block(text: bytes) -> bytes:
    """The PEM private key in `openssl pkcs12 -nodes` output (which also
    prints bag attributes)."""
    m = re.search(rb"-----BEGIN PRIVATE KEY-----.*?-----END PRIVATE KEY-----\n", text, re.S)
    assert m is not None, text
    return m.group(0)


def _legacy_available() -> bool:
    p = subprocess.run(["openssl", "list", "-providers", "-provider", "legacy"], capture_output=True, check=False)
    return p.returncode == 0


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("p12")
    run_openssl("genpkey", "-algorithm", "SM2", "-out", str(d / "ca.key"))
    run_openssl("genpkey", "-algorithm", "SM2", "-out", str(d / "key.pem"))
    run_openssl("req", "-x509", "-new", "-sm3", "-key", str(d / "ca.key"), "-subj", "/O=测试/CN=Interop CA", "-days", "30",
                "-addext", "basicConstraints=critical,CA:TRUE", "-out", str(d / "ca.pem"))
    run_openssl("req", "-new", "-sm3", "-key", str(d / "key.pem"), "-subj", "/CN=interop leaf", "-out", str(d / "leaf.csr"))
    run_openssl("x509", "-req", "-sm3", "-in", str(d / "leaf.csr"), "-CA", str(d / "ca.pem"), "-CAkey", str(d / "ca.key"),
                "-set_serial", "77", "-days", "30", "-out", str(d / "leaf.pem"))
    return {"dir": d, "key": d / "key.pem", "leaf": d / "leaf.pem", "ca": d / "ca.pem"}


VARIANTS = {
    "default": [],
    "legacy": ["-legacy"],
    "sm4-sm3mac": ["-keypbe", "SM4-CBC", "-certpbe", "SM4-CBC", "-macalg", "SM3"],
    "aes128-3des": ["-keypbe", "AES-128-CBC", "-certpbe", "PBE-SHA1-3DES"],
    "nomac": ["-nomac"],
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_read_openssl_export(pki: dict[str, Path], variant: str) -> None:
    if variant == "legacy" and not _legacy_available():
        pytest.skip("OpenSSL's legacy provider is not installed")
    out = pki["dir"] / f"{variant}.p12"
    run_openssl("pkcs12", "-export", "-inkey", str(pki["key"]), "-in", str(pki["leaf"]), "-certfile", str(pki["ca"]),
                "-name", "名字", "-passout", "pass:пароль", *VARIANTS[variant], "-out", str(out))
    p = pkcs12.load_pkcs12(out.read_bytes(), "пароль")
    assert p.key is not None
    assert p.key.to_bytes() == sm2.PrivateKey.from_pem(pki["key"].read_bytes()).to_bytes()
    assert p.cert is not None and p.cert.certificate == x509.load_pem_x509_certificate(pki["leaf"].read_bytes())
    assert p.cert.friendly_name == "名字".encode()
    assert [c.certificate for c in p.additional_certs] == [x509.load_pem_x509_certificate(pki["ca"].read_bytes())]


def test_openssl_reads_ours(pki: dict[str, Path]) -> None:
    key = sm2.PrivateKey.from_pem(pki["key"].read_bytes())
    leaf = x509.load_pem_x509_certificate(pki["leaf"].read_bytes())
    ca = x509.load_pem_x509_certificate(pki["ca"].read_bytes())
    data = pkcs12.serialize_key_and_certificates("ours", key, leaf, [ca], password="s3cret", encryption="openssl")
    path = pki["dir"] / "ours.p12"
    path.write_bytes(data)
    info = subprocess.run(["openssl", "pkcs12", "-info", "-noout", "-in", str(path), "-passin", "pass:s3cret"],
                          capture_output=True, check=False)
    assert info.returncode == 0, info.stderr
    text = info.stderr.decode()
    assert "MAC: sha256" in text and "AES-256-CBC" in text and "hmacWithSHA256" in text
    out = run_openssl("pkcs12", "-in", str(path), "-passin", "pass:s3cret", "-nodes")
    assert sm2.PrivateKey.from_pem(_key_block(out)).to_bytes() == key.to_bytes()
    assert b"friendlyName: ours" in out
    certs = x509.load_pem_x509_certificates(out)
    assert sorted(c.to_der() for c in certs) == sorted([leaf.to_der(), ca.to_der()])
    # A wrong password is refused by OpenSSL too (our MAC is real).
    bad = subprocess.run(["openssl", "pkcs12", "-info", "-noout", "-in", str(path), "-passin", "pass:nope"],
                         capture_output=True, check=False)
    assert bad.returncode != 0
    # Unprotected files are read by OpenSSL.
    plain = pki["dir"] / "plain.p12"
    plain.write_bytes(pkcs12.serialize_key_and_certificates(None, key, leaf, None, encryption=None))
    out = run_openssl("pkcs12", "-in", str(plain), "-passin", "pass:", "-nodes", "-nomacver")
    assert sm2.PrivateKey.from_pem(_key_block(out)).to_bytes() == key.to_bytes()
