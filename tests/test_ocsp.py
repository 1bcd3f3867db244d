"""shangmi.x509.ocsp: requests and responses built, parsed and verified.

Expected values come from OpenSSL 3.0.19 and GmSSL 3.3: the recorded files
of tests/vectors/ocsp (make.sh) and, when the programs are installed, the
programs run now on what we write.
"""

from __future__ import annotations

import datetime as dt
import os
import pathlib
import shutil
import subprocess

import pytest

from shangmi import InvalidCertificate, InvalidSignature, ShangmiError, sm2, x509
from shangmi.x509 import ocsp

VEC = pathlib.Path(__file__).parent / "vectors" / "ocsp"
AT = dt.datetime(2027, 1, 1, tzinfo=dt.timezone.utc)
LATE = dt.datetime(2037, 1, 1, tzinfo=dt.timezone.utc)
UTC = dt.timezone.utc
GMSSL = os.environ.get("SHANGMI_GMSSL") or shutil.which("gmssl")


def cert(name: str) -> x509.Certificate:
    return x509.load_pem_x509_certificate((VEC / name).read_bytes())


def key(name: str) -> sm2.PrivateKey:
    return sm2.PrivateKey.from_pem((VEC / name).read_bytes())


def der(name: str) -> bytes:
    return (VEC / name).read_bytes()


CA, LEAF, REVOKED, RESPONDER, NOSIGN = (cert(n) for n in ("ca.pem", "leaf.pem", "revoked.pem", "responder.pem",
                                                          "nosign.pem"))


def test_import_paths() -> None:
    import importlib

    assert importlib.import_module("shangmi.x509.ocsp") is ocsp
    from shangmi.x509.ocsp import load_der_ocsp_response  # noqa: F401


def test_requests_by_openssl_and_gmssl() -> None:
    r = ocsp.load_der_ocsp_request(der("openssl_req_leaf.der"))
    assert r.serial_number == 0x1001 and r.hash_algorithm == ocsp.SHA1()
    assert r.matches(LEAF, CA) and not r.matches(REVOKED, CA)
    assert len(r.nonce) == 16
    assert r.extensions.get_extension_for_class(ocsp.OCSPNonce).value.nonce == r.nonce
    # Ours with the same nonce is byte for byte OpenSSL's.
    ours = (ocsp.OCSPRequestBuilder().add_certificate(LEAF, CA, "sha1")
            .add_extension(ocsp.OCSPNonce(r.nonce), critical=False).build())
    assert ours.public_bytes("der") == der("openssl_req_leaf.der")
    g = ocsp.load_der_ocsp_request(der("gmssl_req_leaf.der"))
    assert g.hash_algorithm.name == "sm3" and g.matches(LEAF, CA) and g.nonce is None
    s = ocsp.load_der_ocsp_request(der("openssl_req_revoked_sm3.der"))
    assert s.serial_number == 0x1002 and s.matches(REVOKED, CA)


def test_responses_by_openssl_and_gmssl() -> None:
    r = ocsp.load_der_ocsp_response(der("openssl_resp_leaf_delegated.der"))
    assert r.response_status is ocsp.OCSPResponseStatus.SUCCESSFUL
    assert r.certificate_status is ocsp.OCSPCertStatus.GOOD
    assert r.responder_name == RESPONDER.subject and r.responder_key_hash is None
    assert r.certificates == [RESPONDER]
    assert r.verify(CA, at=AT) == RESPONDER
    assert r.nonce == ocsp.load_der_ocsp_request(der("openssl_req_leaf.der")).nonce
    assert r.next_update_utc.year == 2036
    r = ocsp.load_der_ocsp_response(der("openssl_resp_revoked_by_ca.der"))
    assert r.verify(CA, at=AT) is None and r.responder_key_hash is not None and r.responder_name is None
    assert r.certificate_status is ocsp.OCSPCertStatus.REVOKED
    assert r.revocation_time_utc == dt.datetime(2026, 12, 1, tzinfo=UTC)
    assert r.revocation_reason == x509.ReasonFlags.key_compromise
    assert r.hash_algorithm.name == "sm3"
    g = ocsp.load_der_ocsp_response(der("gmssl_resp_leaf_delegated.der"))
    assert g.verify(CA, at=AT) == RESPONDER
    g = ocsp.load_der_ocsp_response(der("gmssl_resp_leaf_revoked_by_ca.der"))
    assert g.verify(CA, at=AT) is None and g.certificate_status is ocsp.OCSPCertStatus.REVOKED


def _response(signer: x509.Certificate, signer_key: sm2.PrivateKey, status: ocsp.OCSPCertStatus, *,
              cert: x509.Certificate = LEAF, uid: bytes = sm2.DEFAULT_UID, certs: bool = True,
              by_hash: bool = False, nonce: bytes | None = None) -> ocsp.OCSPResponse:
    revoked = status is ocsp.OCSPCertStatus.REVOKED
    b = (ocsp.OCSPResponseBuilder()
         .add_response(cert, CA, "sha1", status, AT - dt.timedelta(hours=1), AT + dt.timedelta(days=1),
                       AT - dt.timedelta(days=3) if revoked else None, 1 if revoked else None)
         .responder_id(ocsp.OCSPResponderEncoding.HASH if by_hash else ocsp.OCSPResponderEncoding.NAME, signer)
         .produced_at(AT - dt.timedelta(hours=1)))
    if certs and signer != CA:
        b = b.certificates([signer])
    if nonce is not None:
        b = b.add_extension(ocsp.OCSPNonce(nonce), critical=False)
    return b.sign(signer_key, uid=uid)


def test_ours_and_path_validation() -> None:
    good = _response(RESPONDER, key("responder.key"), ocsp.OCSPCertStatus.GOOD)
    assert good.verify(CA, at=AT) == RESPONDER
    assert ocsp.load_der_ocsp_response(good.public_bytes("der")).certificate_status is ocsp.OCSPCertStatus.GOOD
    assert x509.verify_chain(LEAF, [], [CA], at=AT, ocsp_responses=[good]) == [LEAF, CA]
    revoked = _response(CA, key("ca.key"), ocsp.OCSPCertStatus.REVOKED, by_hash=True)
    assert revoked.verify(CA, at=AT) is None
    with pytest.raises(InvalidCertificate, match="revoked"):
        x509.verify_chain(LEAF, [], [CA], at=AT, ocsp_responses=[revoked])
    with pytest.raises(InvalidCertificate, match="has expired"):
        x509.verify_chain(LEAF, [], [CA], at=AT + dt.timedelta(days=2), ocsp_responses=[good])
    x509.verify_chain(LEAF, [], [CA], at=AT + dt.timedelta(days=2), ocsp_responses=[good],
                      crl_max_staleness=dt.timedelta(days=2))
    # Answers about other certificates are ignored; recorded ones work too.
    x509.verify_chain(REVOKED, [], [CA], at=AT, ocsp_responses=[good])
    with pytest.raises(InvalidCertificate, match="revoked"):
        x509.verify_chain(REVOKED, [], [CA], at=AT,
                          ocsp_responses=[ocsp.load_der_ocsp_response(der("openssl_resp_revoked_by_ca.der"))])
    with pytest.raises(InvalidCertificate, match="has expired"):
        x509.verify_chain(LEAF, [], [CA], at=LATE,
                          ocsp_responses=[ocsp.load_der_ocsp_response(der("openssl_resp_leaf_delegated.der"))])


def test_refusals() -> None:
    # Signed by someone else under the responder's name.
    forged = _response(RESPONDER, sm2.PrivateKey.generate(), ocsp.OCSPCertStatus.GOOD)
    with pytest.raises(InvalidSignature, match="does not verify"):
        forged.verify(CA, at=AT)
    with pytest.raises(InvalidCertificate, match="cannot be used"):
        x509.verify_chain(LEAF, [], [CA], at=AT, ocsp_responses=[forged])
    # A responder without id-kp-OCSPSigning.
    with pytest.raises(InvalidCertificate, match="OCSPSigning"):
        _response(NOSIGN, key("nosign.key"), ocsp.OCSPCertStatus.GOOD).verify(CA, at=AT)
    # The responder certificate outside its validity.
    with pytest.raises(InvalidCertificate, match="outside its validity"):
        _response(RESPONDER, key("responder.key"), ocsp.OCSPCertStatus.GOOD).verify(CA, at=LATE.replace(year=2050))
    # Not carried and not given.
    bare = _response(RESPONDER, key("responder.key"), ocsp.OCSPCertStatus.GOOD, certs=False)
    with pytest.raises(InvalidCertificate, match="neither the issuer"):
        bare.verify(CA, at=AT)
    assert bare.verify(CA, responders=[RESPONDER], at=AT) == RESPONDER
    # Tampered.
    good = _response(CA, key("ca.key"), ocsp.OCSPCertStatus.GOOD).public_bytes("der")
    i = good.index(b"\x80\x00")
    with pytest.raises(InvalidSignature):
        ocsp.load_der_ocsp_response(good[:i] + b"\x82" + good[i + 1:]).verify(CA, at=AT)
    # A CertID of another issuer (the CA's own certificate, issued by itself, is
    # fine; the leaf's CertID checked against the responder as issuer is not).
    with pytest.raises(InvalidCertificate, match="not about a certificate of"):
        _response(CA, key("ca.key"), ocsp.OCSPCertStatus.GOOD).verify(RESPONDER, at=AT)
    # Unsuccessful, malformed, trailing.
    for st in (ocsp.OCSPResponseStatus.TRY_LATER, ocsp.OCSPResponseStatus.UNAUTHORIZED):
        u = ocsp.OCSPResponseBuilder.build_unsuccessful(st)
        assert u.response_status is st and ocsp.load_der_ocsp_response(u.public_bytes("der")).response_status is st
        with pytest.raises(ShangmiError, match="no signed certificate status"):
            u.verify(CA, at=AT)
    for bad in (b"", b"\x30\x03\x0a\x01\x04", der("openssl_resp_leaf_delegated.der") + b"\0"):
        with pytest.raises(ShangmiError):
            ocsp.load_der_ocsp_response(bad)
    with pytest.raises(ShangmiError):
        ocsp.OCSPRequestBuilder().build()
    with pytest.raises(ShangmiError):
        ocsp.OCSPNonce(b"\0" * 33).public_bytes()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_openssl_client_verifies_ours(tmp_path: pathlib.Path) -> None:
    # OpenSSL 3.0 verifies OCSP signatures, and the responder certificate's,
    # with the empty SM2 ID only (it has no option for another), so a
    # responder serving it signs with uid=b"" and has a certificate so signed.
    req = ocsp.load_der_ocsp_request(der("openssl_req_leaf.der"))
    rkey = sm2.PrivateKey.generate()
    now = dt.datetime.now(UTC)
    rcert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "r")]))
             .issuer_name(CA.subject).public_key(rkey.public_key()).serial_number(77)
             .not_valid_before(now - dt.timedelta(days=1)).not_valid_after(now + dt.timedelta(days=3650))
             .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.OCSP_SIGNING]), critical=False)
             .sign(key("ca.key"), uid=b""))
    for signer, k, by_hash in ((rcert, rkey, False), (CA, key("ca.key"), True)):
        resp = _response(signer, k, ocsp.OCSPCertStatus.GOOD, uid=b"", by_hash=by_hash, nonce=req.nonce)
        (tmp_path / "resp.der").write_bytes(resp.public_bytes("der"))
        r = subprocess.run(["openssl", "ocsp", "-respin", str(tmp_path / "resp.der"), "-issuer", str(VEC / "ca.pem"),
                            "-CAfile", str(VEC / "ca.pem"), "-reqin", str(VEC / "openssl_req_leaf.der"),
                            "-resp_text"], capture_output=True, text=True)
        assert "Response verify OK" in r.stdout + r.stderr, r.stdout + r.stderr
        assert "Cert Status: good" in r.stdout


@pytest.mark.skipif(GMSSL is None, reason="GmSSL's gmssl tool not installed (set SHANGMI_GMSSL)")
def test_gmssl_verifies_ours(tmp_path: pathlib.Path) -> None:
    req = ocsp.load_der_ocsp_request(der("gmssl_req_leaf.der"))
    for signer, k in ((RESPONDER, "responder.key"), (CA, "ca.key")):
        b = (ocsp.OCSPResponseBuilder()
             .add_response_by_hash(req.issuer_name_hash, req.issuer_key_hash, req.serial_number, req.hash_algorithm,
                                   ocsp.OCSPCertStatus.GOOD, dt.datetime.now(UTC) - dt.timedelta(minutes=1),
                                   dt.datetime.now(UTC) + dt.timedelta(days=1), None, None)
             .responder_id(ocsp.OCSPResponderEncoding.NAME, signer))
        if signer != CA:
            b = b.certificates([signer])
        (tmp_path / "resp.der").write_bytes(b.sign(key(k)).public_bytes("der"))
        (tmp_path / "signer.pem").write_bytes(signer.to_pem())
        r = subprocess.run([GMSSL, "ocspverify", "-reqin", str(VEC / "gmssl_req_leaf.der"), "-respin",
                            str(tmp_path / "resp.der"), "-cacert", str(VEC / "ca.pem"), "-signer",
                            str(tmp_path / "signer.pem")], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_openssl_responder_live(tmp_path: pathlib.Path) -> None:
    # A request of ours answered by `openssl ocsp` as responder now.
    nonce = b"0123456789abcdef"
    req = (ocsp.OCSPRequestBuilder().add_certificate(REVOKED, CA, ocsp.SM3())
           .add_extension(ocsp.OCSPNonce(nonce), critical=False).build())
    (tmp_path / "req.der").write_bytes(req.public_bytes("der"))
    subprocess.run(["openssl", "ocsp", "-index", str(VEC / "index.txt"), "-CA", str(VEC / "ca.pem"), "-rsigner",
                    str(VEC / "responder.pem"), "-rkey", str(VEC / "responder.key"), "-reqin",
                    str(tmp_path / "req.der"), "-respout", str(tmp_path / "resp.der"), "-ndays", "1"],
                   check=True, capture_output=True)
    resp = ocsp.load_der_ocsp_response((tmp_path / "resp.der").read_bytes())
    assert resp.verify(CA) == RESPONDER
    assert resp.nonce == nonce and resp.certificate_status is ocsp.OCSPCertStatus.REVOKED
    with pytest.raises(InvalidCertificate, match="revoked"):
        x509.verify_chain(REVOKED, [], [CA], ocsp_responses=[resp])


def test_cli_round_trip(tmp_path: pathlib.Path) -> None:
    from shangmi.cli import main

    t = tmp_path
    assert main(["x509", "ocsp", "request", "--issuer", str(VEC / "ca.pem"), "--cert", str(VEC / "leaf.pem"),
                 "--cert", str(VEC / "revoked.pem"), "--digest", "sm3", "-o", str(t / "req.der")]) == 0
    assert main(["x509", "ocsp", "respond", "--reqin", str(t / "req.der"), "--CA", str(VEC / "ca.pem"),
                 "--rsigner", str(VEC / "responder.pem"), "--rkey", str(VEC / "responder.key"), "--index",
                 str(VEC / "index.txt"), "-o", str(t / "resp.der")]) == 0
    resp = ocsp.load_der_ocsp_response((t / "resp.der").read_bytes())
    assert [r.certificate_status for r in resp.responses] == [ocsp.OCSPCertStatus.GOOD, ocsp.OCSPCertStatus.REVOKED]
    assert main(["x509", "ocsp", "verify", "--respin", str(t / "resp.der"), "--reqin", str(t / "req.der"),
                 "--issuer", str(VEC / "ca.pem")]) == 0
    assert main(["x509", "ocsp", "verify", "--respin", str(t / "resp.der"), "--reqin",
                 str(VEC / "openssl_req_leaf.der"), "--issuer", str(VEC / "ca.pem")]) == 2
    assert main(["x509", "verify", "--CAfile", str(VEC / "ca.pem"), "--ocsp", str(t / "resp.der"),
                 str(VEC / "leaf.pem")]) == 0
    assert main(["x509", "verify", "--CAfile", str(VEC / "ca.pem"), "--ocsp", str(t / "resp.der"),
                 str(VEC / "revoked.pem")]) == 2
