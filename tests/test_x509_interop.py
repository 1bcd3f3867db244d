"""X.509 interop with the real OpenSSL 3 CLI and pyca/cryptography, both directions.

OpenSSL 3.0 facts these tests pin down:
- ``req -x509 -sigopt distid:ID`` signs the self-signed certificate with ID;
  without ``-sigopt`` it signs with the empty ID;
- ``x509 -req`` needs ``-vfyopt distid:ID`` to check a CSR signed with ID;
- ``verify -vfyopt distid:ID`` applies ID to the *target* certificate only:
  CA certificates in the chain are checked with the empty ID, so a whole chain
  passes only when its CA certificates use the empty ID (and ``-partial_chain``
  lets an intermediate be the trust anchor);
- ``crl -verify`` checks CRL signatures with the empty ID only, and exits 0
  even when the signature fails (it prints "verify failure").
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from _pki import NOW, DAY, Pki, issue, ku, name
from conftest import requires_openssl, run_openssl

import shangmi
from shangmi import sm2, x509

GM = b"1234567812345678"
pytestmark = requires_openssl


def _write(path: Path, data: bytes) -> str:
    path.write_bytes(data)
    return str(path)


def _openssl_ok(*args: str) -> tuple[bool, str]:
    p = subprocess.run(["openssl", *args], capture_output=True, check=False)
    return p.returncode == 0, (p.stdout + p.stderr).decode(errors="replace")


def _ossl_key(path: Path) -> str:
    run_openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:SM2", "-out", str(path))
    return str(path)


@pytest.fixture(scope="module")
def ossl_pki(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A CA and leaves made by the openssl CLI with both ID conventions."""
    d = tmp_path_factory.mktemp("ossl")
    ca_key, leaf_key = _ossl_key(d / "ca.key"), _ossl_key(d / "leaf.key")
    for tag, sig in (("gm", ["-sigopt", "distid:1234567812345678"]), ("empty", [])):
        run_openssl("req", "-x509", "-new", "-key", ca_key, "-sm3", *sig, "-subj", "/C=CN/O=测试/CN=OpenSSL CA",
                    "-utf8", "-days", "30", "-out", str(d / f"ca_{tag}.pem"))
        run_openssl("req", "-new", "-key", leaf_key, "-sm3", *sig, "-subj", "/CN=openssl leaf",
                    "-out", str(d / f"leaf_{tag}.csr"))
        vfy = ["-vfyopt", "distid:1234567812345678"] if sig else []
        run_openssl("x509", "-req", "-in", str(d / f"leaf_{tag}.csr"), "-CA", str(d / f"ca_{tag}.pem"),
                    "-CAkey", ca_key, "-sm3", *sig, *vfy, "-days", "10", "-out", str(d / f"leaf_{tag}.pem"))
    return {p.stem: p for p in d.iterdir()}


@pytest.mark.parametrize("tag,uid", [("gm", GM), ("empty", b"")])
def test_openssl_certificates_load_and_verify(ossl_pki: dict[str, Path], tag: str, uid: bytes) -> None:
    ca = x509.load_pem_x509_certificate(ossl_pki[f"ca_{tag}"].read_bytes())
    leaf = x509.load_pem_x509_certificate(ossl_pki[f"leaf_{tag}"].read_bytes())
    assert ca.subject.rfc4514_string() == "CN=OpenSSL CA,O=测试,C=CN"
    assert ca.signature_algorithm_oid == x509.SignatureAlgorithmOID.SM2_WITH_SM3
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    der_cert = x509.load_der_x509_certificate(ca.to_der())
    assert der_cert == ca and der_cert.to_pem() == ca.to_pem()
    for c, issuer in ((leaf, ca), (ca, ca)):
        c.verify_directly_issued_by(issuer)  # uid=None: either convention
        c.verify_directly_issued_by(issuer, uid=uid)  # pinned to the right one
        with pytest.raises(shangmi.InvalidSignature):
            c.verify_directly_issued_by(issuer, uid=b"" if uid else GM)  # pinned to the other
    assert x509.verify_chain(leaf, [], [ca]) == [leaf, ca]
    assert x509.verify_chain(leaf, [], [ca], uid=uid) == [leaf, ca]
    with pytest.raises(shangmi.InvalidCertificate, match="signature does not verify"):
        x509.verify_chain(leaf, [], [ca], uid=b"" if uid else GM)
    csr = x509.load_pem_x509_csr(ossl_pki[f"leaf_{tag}"].with_suffix(".csr").read_bytes())
    csr.verify(uid=uid)
    assert csr.is_signature_valid
    assert csr.public_key() == leaf.public_key()
    # fingerprint is SM3 of the DER, the same as openssl's.
    out = run_openssl("x509", "-in", str(ossl_pki[f"leaf_{tag}"]), "-noout", "-fingerprint", "-sm3").decode()
    assert out.strip().split("=")[1].replace(":", "").lower() == leaf.fingerprint().hex()


def test_pem_bundle(ossl_pki: dict[str, Path]) -> None:
    bundle = ossl_pki["ca_gm"].read_bytes() + b"junk between\n" + ossl_pki["leaf_gm"].read_bytes()
    certs = x509.load_pem_x509_certificates(bundle)
    assert [c.subject.rfc4514_string() for c in certs] == ["CN=OpenSSL CA,O=测试,C=CN", "CN=openssl leaf"]


@pytest.mark.parametrize("uid", [GM, b""])
def test_our_chain_passes_openssl_verify(tmp_path: Path, uid: bytes) -> None:
    """Every link passes ``openssl verify -partial_chain`` with the link's ID;
    the whole chain passes at once only with empty-ID CA certificates."""
    pki = Pki(uid=uid, ca_uid=b"")
    root = _write(tmp_path / "root.pem", pki.root.to_pem())
    inter = _write(tmp_path / "inter.pem", pki.inter.to_pem())
    leaf = _write(tmp_path / "leaf.pem", pki.leaf.to_pem())
    vfy = ["-vfyopt", f"distid:{uid.decode()}"] if uid else []
    ok, out = _openssl_ok("verify", "-partial_chain", *vfy, "-CAfile", inter, leaf)
    assert ok, out
    ok, out = _openssl_ok("verify", "-partial_chain", "-CAfile", root, inter)
    assert ok, out
    ok, out = _openssl_ok("verify", *vfy, "-CAfile", root, "-untrusted", inter, leaf)
    assert ok, out
    for path in (root, inter, leaf):
        text = run_openssl("x509", "-in", path, "-noout", "-text").decode()
        assert "SM2-with-SM3" in text


def test_gm_id_ca_chain_openssl_checks_only_target(tmp_path: Path) -> None:
    pki = Pki(uid=GM, ca_uid=GM)
    inter = _write(tmp_path / "inter.pem", pki.inter.to_pem())
    root = _write(tmp_path / "root.pem", pki.root.to_pem())
    leaf = _write(tmp_path / "leaf.pem", pki.leaf.to_pem())
    ok, out = _openssl_ok("verify", "-partial_chain", "-vfyopt", "distid:1234567812345678", "-CAfile", inter, leaf)
    assert ok, out
    ok, out = _openssl_ok("verify", "-partial_chain", "-vfyopt", "distid:1234567812345678", "-CAfile", root, inter)
    assert ok, out
    # the intermediate is checked with the empty ID when it is not the target:
    ok, _ = _openssl_ok("verify", "-vfyopt", "distid:1234567812345678", "-CAfile", root, "-untrusted", inter, leaf)
    assert not ok
    assert x509.verify_chain(pki.leaf, [pki.inter], [pki.root]) == [pki.leaf, pki.inter, pki.root]


@pytest.mark.parametrize("uid", [GM, b""])
def test_our_csr_passes_openssl_req_verify(tmp_path: Path, uid: bytes) -> None:
    key = sm2.PrivateKey.generate()
    csr = (x509.CertificateSigningRequestBuilder().subject_name(name("请求者", o="测试"))
           .add_extension(x509.SubjectAlternativeName([x509.DNSName("a.example")]), critical=False)
           .sign(key, uid=uid))
    path = _write(tmp_path / "r.csr", csr.to_pem())
    vfy = ["-vfyopt", f"distid:{uid.decode()}"] if uid else []
    ok, out = _openssl_ok("req", "-in", path, "-verify", "-noout", *vfy)
    assert ok and "verify OK" in out, out
    text = run_openssl("req", "-in", path, "-noout", "-text").decode()
    assert "a.example" in text
    # openssl can issue from it (x509 -req checks the CSR with -vfyopt).
    ca_key = _ossl_key(tmp_path / "ca.key")
    run_openssl("req", "-x509", "-new", "-key", ca_key, "-sm3", "-subj", "/CN=ossl", "-out", str(tmp_path / "ca.pem"))
    run_openssl("x509", "-req", "-in", path, "-CA", str(tmp_path / "ca.pem"), "-CAkey", ca_key, "-sm3", *vfy,
                "-out", str(tmp_path / "c.pem"))
    cert = x509.load_pem_x509_certificate((tmp_path / "c.pem").read_bytes())
    assert cert.public_key() == key.public_key()
    assert cert.subject == csr.subject


def test_our_crl_passes_openssl_crl_verify(tmp_path: Path) -> None:
    pki = Pki(uid=GM)
    crl = (x509.CertificateRevocationListBuilder().issuer_name(pki.inter_name).last_update(NOW)
           .next_update(NOW + 7 * DAY).add_extension(x509.CRLNumber(7), critical=False)
           .add_revoked_certificate(x509.RevokedCertificateBuilder().serial_number(pki.leaf.serial_number)
                                    .revocation_date(NOW).add_extension(x509.CRLReason(1), critical=False).build())
           .sign(pki.inter_key, uid=b""))
    path = _write(tmp_path / "c.crl", crl.to_pem())
    inter = _write(tmp_path / "inter.pem", pki.inter.to_pem())
    ok, out = _openssl_ok("crl", "-in", path, "-CAfile", inter, "-verify", "-noout")
    assert ok and "verify OK" in out, out
    text = run_openssl("crl", "-in", path, "-noout", "-text").decode()
    assert format(pki.leaf.serial_number, "X")[-8:] in text.replace(":", "").upper()
    assert "Key Compromise" in text
    # and a GM-ID CRL does not pass there (OpenSSL uses the empty ID for CRLs)
    crl_gm = (x509.CertificateRevocationListBuilder().issuer_name(pki.inter_name).last_update(NOW)
              .sign(pki.inter_key))
    # (openssl crl -verify exits 0 even then: only its message tells)
    ok, out = _openssl_ok("crl", "-in", _write(tmp_path / "g.crl", crl_gm.to_pem()), "-CAfile", inter, "-verify",
                          "-noout")
    assert "verify OK" not in out and "verify failure" in out


def test_openssl_crl_loads(tmp_path: Path) -> None:
    ca_key = _ossl_key(tmp_path / "ca.key")
    (tmp_path / "index.txt").write_text("")
    conf = tmp_path / "ca.cnf"
    conf.write_text(f"""[ca]\ndefault_ca = d\n[d]\ndatabase = {tmp_path}/index.txt\ndefault_md = sm3\n
crlnumber = {tmp_path}/crlnumber\ndefault_crl_days = 5\n""")
    (tmp_path / "crlnumber").write_text("01\n")
    run_openssl("req", "-x509", "-new", "-key", ca_key, "-sm3", "-subj", "/CN=crl ca", "-out", str(tmp_path / "ca.pem"))
    run_openssl("ca", "-config", str(conf), "-gencrl", "-keyfile", ca_key, "-cert", str(tmp_path / "ca.pem"),
                "-out", str(tmp_path / "c.crl"))
    crl = x509.load_pem_x509_crl((tmp_path / "c.crl").read_bytes())
    ca = x509.load_pem_x509_certificate((tmp_path / "ca.pem").read_bytes())
    assert crl.issuer == ca.subject
    assert crl.is_signature_valid(ca.public_key())
    assert crl.is_signature_valid(ca.public_key(), uid=b"")
    assert not crl.is_signature_valid(ca.public_key(), uid=GM)
    assert crl.extensions.get_extension_for_class(x509.CRLNumber).value.crl_number == 1


def test_pyca_parses_everything_we_write() -> None:
    cx = pytest.importorskip("cryptography.x509")
    pki = Pki()
    for c in (pki.root, pki.inter, pki.leaf):
        p = cx.load_der_x509_certificate(c.to_der())
        assert p.serial_number == c.serial_number
        assert p.subject.rfc4514_string() == c.subject.rfc4514_string()
        assert p.issuer.rfc4514_string() == c.issuer.rfc4514_string()
        assert p.not_valid_before_utc == c.not_valid_before_utc
        assert p.signature == c.signature
        assert p.tbs_certificate_bytes == c.tbs_certificate_bytes
        assert p.signature_algorithm_oid.dotted_string == "1.2.156.10197.1.501"
        bc = p.extensions.get_extension_for_class(cx.BasicConstraints).value
        assert bc.ca == c.extensions.get_extension_for_class(x509.BasicConstraints).value.ca
    key = sm2.PrivateKey.generate()
    csr = x509.CertificateSigningRequestBuilder().subject_name(name("csr")).sign(key)
    assert cx.load_der_x509_csr(csr.to_der()).subject.rfc4514_string() == "CN=csr"
    crl = (x509.CertificateRevocationListBuilder().issuer_name(pki.root_name).last_update(NOW)
           .add_revoked_certificate(x509.RevokedCertificateBuilder().serial_number(5).revocation_date(NOW).build())
           .sign(pki.root_key))
    pc = cx.load_der_x509_crl(crl.to_der())
    assert pc.get_revoked_certificate_by_serial_number(5) is not None
    assert pc.issuer.rfc4514_string() == pki.root_name.rfc4514_string()


def test_pyca_made_certificate_with_uid_convention() -> None:
    """pyca cannot sign SM2, but its parse of ours and ours of its structures agree (names, SAN)."""
    cx = pytest.importorskip("cryptography.x509")
    key = sm2.PrivateKey.generate()
    cert = issue(name("san"), key.public_key(), name("san"), key, ca=False, key_usage=ku(digital_signature=True))
    p = cx.load_der_x509_certificate(cert.to_der())
    assert p.extensions.get_extension_for_class(cx.KeyUsage).value.digital_signature
    ski = p.extensions.get_extension_for_class(cx.SubjectKeyIdentifier).value.digest
    assert ski == cert.extensions.get_extension_for_class(x509.SubjectKeyIdentifier).value.digest


# -- GmSSL (its gmssl tool, when installed; SHANGMI_GMSSL names one) -------------------


GMSSL = os.environ.get("SHANGMI_GMSSL") or shutil.which("gmssl")
requires_gmssl = pytest.mark.skipif(GMSSL is None, reason="GmSSL's gmssl tool not installed (set SHANGMI_GMSSL)")


def _gm(*args: str) -> str:
    assert GMSSL is not None
    p = subprocess.run([GMSSL, *args], capture_output=True, check=False)
    out = (p.stdout + p.stderr).decode(errors="replace")
    assert p.returncode == 0, f"gmssl {' '.join(args)}: {out}"
    return out


@requires_gmssl
def test_gmssl_certificates_validate_here(tmp_path: Path) -> None:
    ck, lk = str(tmp_path / "ca.key"), str(tmp_path / "leaf.key")
    _gm("sm2keygen", "-pass", "pw", "-out", ck)
    _gm("sm2keygen", "-pass", "pw", "-out", lk)
    ca, csr, leaf = str(tmp_path / "ca.pem"), str(tmp_path / "l.csr"), str(tmp_path / "l.pem")
    _gm("certgen", "-C", "CN", "-O", "测试", "-CN", "GmSSL CA", "-serial_len", "20", "-days", "30", "-key", ck,
        "-pass", "pw", "-ca", "-key_usage", "keyCertSign", "-key_usage", "cRLSign", "-gen_subject_key_id",
        "-out", ca)
    _gm("reqgen", "-CN", "GmSSL leaf", "-O", "测试", "-key", lk, "-pass", "pw", "-out", csr)
    _gm("reqsign", "-in", csr, "-serial_len", "20", "-days", "10", "-cacert", ca, "-key", ck, "-pass", "pw",
        "-key_usage", "digitalSignature", "-gen_authority_key_id", "-out", leaf)
    r = x509.load_pem_x509_csr(Path(csr).read_bytes())
    r.verify(uid=GM)
    c = x509.load_pem_x509_certificate(Path(ca).read_bytes())
    lc = x509.load_pem_x509_certificate(Path(leaf).read_bytes())
    assert c.subject.rfc4514_string() == "CN=GmSSL CA,O=测试,C=CN"
    assert x509.verify_chain(lc, [], [c]) == [lc, c]
    assert x509.verify_chain(lc, [], [c], uid=GM) == [lc, c]
    with pytest.raises(shangmi.InvalidCertificate):
        x509.verify_chain(lc, [], [c], uid=b"")


@requires_gmssl
def test_our_chain_passes_gmssl_certverify(tmp_path: Path) -> None:
    # GmSSL refuses the empty basicConstraints SEQUENCE (cA FALSE, the DER default), so the leaf has none.
    pki = Pki(leaf_ca=None)
    chain = _write(tmp_path / "chain.pem", pki.leaf.to_pem() + pki.inter.to_pem())
    root = _write(tmp_path / "root.pem", pki.root.to_pem())
    assert "Verification success" in _gm("certverify", "-in", chain, "-cacert", root, "-server")
    csr = x509.CertificateSigningRequestBuilder().subject_name(name("to gmssl")).sign(pki.leaf_key)
    p = _write(tmp_path / "r.csr", csr.to_pem())
    _gm("reqparse", "-in", p)
