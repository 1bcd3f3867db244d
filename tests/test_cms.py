"""CMS SignedData / EnvelopedData: round trips in every form, tampering,
detached content, trust, and the shapes GmSSL reads and writes."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from _pki import NOW, Pki, issue, name
from conftest import requires_openssl, run_openssl

import shangmi
from shangmi import cms, sm2, x509

FORMS = [{"oids": "gmt0010"}, {"oids": "rfc5652"}, {"compat": "gmssl"}]
IDS = ["gmt0010", "rfc5652", "gmssl"]


@pytest.fixture(scope="module")
def pki() -> Pki:
    return Pki()


@pytest.mark.parametrize("form", FORMS, ids=IDS)
@pytest.mark.parametrize("detached", [False, True])
def test_sign_verify_round_trip(pki: Pki, form: dict[str, str], detached: bool) -> None:
    data = "数据 ".encode() * 1000
    msg = cms.sign(data, pki.leaf, pki.leaf_key, certificates=[pki.inter], detached=detached, **form)  # type: ignore[arg-type]
    kw = {"data": data} if detached else {}
    v = cms.verify(msg, trust_roots=[pki.root], **kw)  # type: ignore[arg-type]
    assert v.content == data and v.signers == [pki.leaf] and pki.inter in v.certificates
    assert v.form == form.get("compat", form.get("oids"))
    assert (data in msg) != detached
    pem = cms.sign(data, pki.leaf, pki.leaf_key, encoding="pem", detached=detached, **form)  # type: ignore[arg-type]
    assert pem.startswith(b"-----BEGIN CMS-----")
    assert cms.verify(pem.decode(), **kw).content == data  # type: ignore[arg-type]


def test_sign_uid(pki: Pki) -> None:
    msg = cms.sign(b"x", pki.leaf, pki.leaf_key, uid=b"")
    cms.verify(msg)
    cms.verify(msg, uid=b"")
    with pytest.raises(shangmi.InvalidSignature):
        cms.verify(msg, uid=b"1234567812345678")


@pytest.mark.parametrize("form", FORMS, ids=IDS)
def test_tampered_signed_data(pki: Pki, form: dict[str, str]) -> None:
    data = b"pay 100 yuan to alice"
    msg = cms.sign(data, pki.leaf, pki.leaf_key, **form)  # type: ignore[arg-type]
    # Only the content changes (a bare b"100" can also occur in the
    # certificates' validity times, e.g. any notBefore minted at 10:0x).
    assert msg.count(b"pay 100 yuan") == 1
    with pytest.raises(shangmi.InvalidSignature):
        cms.verify(msg.replace(b"pay 100 yuan", b"pay 900 yuan"))
    det = cms.sign(data, pki.leaf, pki.leaf_key, detached=True, **form)  # type: ignore[arg-type]
    with pytest.raises(shangmi.InvalidSignature):
        cms.verify(det, data=data + b"!")
    with pytest.raises(shangmi.InvalidInputError, match="must be given"):
        cms.verify(det)
    # flip bits through the signature (the end of the message) and everywhere else
    for i in range(len(msg) - 40, len(msg)):
        bad = bytearray(msg)
        bad[i] ^= 0x01
        with pytest.raises(shangmi.ShangmiError):
            cms.verify(bytes(bad))
    for cut in (1, 10, len(msg) // 2):
        with pytest.raises(shangmi.InvalidInputError):
            cms.verify(msg[:-cut])
    with pytest.raises(shangmi.InvalidInputError, match="trailing"):
        cms.verify(msg + b"\x00")


def test_signer_not_trusted(pki: Pki) -> None:
    other = Pki()
    msg = cms.sign(b"x", pki.leaf, pki.leaf_key, certificates=[pki.inter])
    with pytest.raises(shangmi.InvalidCertificate, match="signer not trusted"):
        cms.verify(msg, trust_roots=[other.root])
    expired = cms.sign(b"x", pki.leaf, pki.leaf_key, certificates=[pki.inter])
    with pytest.raises(shangmi.InvalidCertificate, match="expired"):
        cms.verify(expired, trust_roots=[pki.root], at=NOW + dt.timedelta(days=400))
    # a signer whose certificate is not carried needs it passed in
    bare = cms.sign(b"x", pki.leaf, pki.leaf_key)
    cms.verify(bare, trust_roots=[pki.root], certificates=[pki.inter])
    with pytest.raises(shangmi.InvalidInputError, match="does not belong"):
        cms.sign(b"x", pki.leaf, pki.inter_key)


@pytest.mark.parametrize("form", FORMS, ids=IDS)
@pytest.mark.parametrize("rid", ["issuer_and_serial", "key_identifier"])
def test_encrypt_decrypt_round_trip(pki: Pki, form: dict[str, str], rid: str) -> None:
    data = os.urandom(1000)
    env = cms.encrypt(data, [pki.leaf, pki.inter], recipient_id=rid, **form)  # type: ignore[arg-type]
    assert cms.decrypt(env, pki.leaf_key, pki.leaf) == data
    assert cms.decrypt(env, pki.inter_key, pki.inter) == data
    assert cms.decrypt(env, pki.leaf_key) == data
    with pytest.raises(shangmi.DecryptionError):
        cms.decrypt(env, sm2.PrivateKey.generate())
    with pytest.raises(shangmi.InvalidInputError, match="no SM2 recipient info"):
        cms.decrypt(env, pki.root_key, pki.root)
    assert cms.decrypt(cms.encrypt(b"", [pki.leaf], encoding="pem", **form), pki.leaf_key) == b""  # type: ignore[arg-type]


def test_tampered_envelope(pki: Pki) -> None:
    env = cms.encrypt(b"secret" * 10, [pki.leaf])
    cek_at = env.find(bytes.fromhex("0420"))  # SM2Cipher's C3 OCTET STRING inside the encrypted key
    for pos in (cek_at + 5, len(env) - 1, len(env) - 17):
        bad = bytearray(env)
        bad[pos] ^= 0x80
        try:
            out = cms.decrypt(bytes(bad), pki.leaf_key, pki.leaf)
        except shangmi.DecryptionError:
            continue
        # CBC has no integrity: a change before the last block can decrypt to garbage
        assert out != b"secret" * 10 and pos != cek_at + 5
    with pytest.raises(shangmi.InvalidInputError):
        cms.decrypt(env[:-3], pki.leaf_key)
    with pytest.raises(shangmi.InvalidInputError, match="expected envelopedData"):
        cms.decrypt(cms.sign(b"x", pki.leaf, pki.leaf_key), pki.leaf_key)


class _Hsm:
    def __init__(self, key: sm2.PrivateKey) -> None:
        self._k = key

    def public_key(self) -> sm2.PublicKey:
        return self._k.public_key()

    def sign_digest(self, digest: bytes) -> bytes:
        return self._k.sign_digest(digest)

    def decrypt(self, ct: bytes, *, mode: str) -> bytes:
        return self._k.decrypt(ct, mode=mode)  # type: ignore[arg-type]


def test_hardware_style_keys(pki: Pki) -> None:
    hsm = _Hsm(pki.leaf_key)
    cms.verify(cms.sign(b"x", pki.leaf, hsm))
    assert cms.decrypt(cms.encrypt(b"y", [pki.leaf]), hsm, pki.leaf) == b"y"


@requires_openssl
def test_openssl_parses_our_rfc5652_messages(pki: Pki, tmp_path: Path) -> None:
    for name_, der in (("s", cms.sign(b"hello", pki.leaf, pki.leaf_key, oids="rfc5652")),
                       ("e", cms.encrypt(b"hello", [pki.leaf], oids="rfc5652"))):
        p = tmp_path / name_
        p.write_bytes(der)
        out = run_openssl("cms", "-cmsout", "-print", "-inform", "DER", "-in", str(p)).decode()
        assert ("pkcs7-signedData" if name_ == "s" else "pkcs7-envelopedData") in out


# -- GmSSL ---------------------------------------------------------------------------

GMSSL = os.environ.get("SHANGMI_GMSSL") or shutil.which("gmssl")
requires_gmssl = pytest.mark.skipif(GMSSL is None, reason="GmSSL's gmssl tool not installed (set SHANGMI_GMSSL)")


def _gmssl(*args: str) -> bytes:
    assert GMSSL is not None
    p = subprocess.run([GMSSL, *args], capture_output=True, check=False)
    if p.returncode != 0:
        raise AssertionError(f"gmssl {' '.join(args)}: {(p.stdout + p.stderr).decode(errors='replace')}")
    return p.stdout


@pytest.fixture()
def gm_files(pki: Pki, tmp_path: Path) -> dict[str, str]:
    files = {"key": tmp_path / "leaf.key", "cert": tmp_path / "leaf.pem", "data": tmp_path / "data.txt"}
    files["key"].write_bytes(pki.leaf_key.to_pem(password=b"pw"))
    files["cert"].write_bytes(pki.leaf.to_pem())
    files["data"].write_bytes("GmSSL 互通".encode())
    return {k: str(v) for k, v in files.items()}


@requires_gmssl
def test_gmssl_signed_data_verifies_here(pki: Pki, gm_files: dict[str, str], tmp_path: Path) -> None:
    out = str(tmp_path / "s.cms")
    _gmssl("cmssign", "-key", gm_files["key"], "-pass", "pw", "-cert", gm_files["cert"], "-in", gm_files["data"],
           "-out", out)
    v = cms.verify(Path(out).read_bytes())
    assert v.content == "GmSSL 互通".encode() and v.form == "gmssl" and v.signers == [pki.leaf]


@requires_gmssl
def test_our_gmssl_form_verifies_in_gmssl(pki: Pki, gm_files: dict[str, str], tmp_path: Path) -> None:
    p = tmp_path / "ours.cms"
    p.write_bytes(cms.sign("GmSSL 互通".encode(), pki.leaf, pki.leaf_key, compat="gmssl", encoding="pem"))
    _gmssl("cmsverify", "-in", str(p), "-out", str(tmp_path / "content"))
    assert (tmp_path / "content").read_bytes() == "GmSSL 互通".encode()


@requires_gmssl
def test_gmssl_enveloped_data_decrypts_here(pki: Pki, gm_files: dict[str, str], tmp_path: Path) -> None:
    out = str(tmp_path / "e.cms")
    _gmssl("cmsencrypt", "-rcptcert", gm_files["cert"], "-in", gm_files["data"], "-out", out)
    assert cms.decrypt(Path(out).read_bytes(), pki.leaf_key, pki.leaf) == "GmSSL 互通".encode()


@requires_gmssl
def test_our_gmssl_envelope_decrypts_in_gmssl(pki: Pki, gm_files: dict[str, str], tmp_path: Path) -> None:
    p = tmp_path / "ours.cms"
    p.write_bytes(cms.encrypt("GmSSL 互通".encode(), [pki.leaf], compat="gmssl", encoding="pem"))
    _gmssl("cmsdecrypt", "-key", gm_files["key"], "-pass", "pw", "-cert", gm_files["cert"], "-in", str(p),
           "-out", str(tmp_path / "plain"))
    assert (tmp_path / "plain").read_bytes() == "GmSSL 互通".encode()


def test_gmssl_shapes_without_gmssl(pki: Pki) -> None:
    """The fields GmSSL's parser checks (cms.c): GM/T 0010 OIDs, version 1,
    SM3 digest, SM2-with-SM3 signature OID, no signed attributes; key
    transport 1.2.156.10197.1.301.2 without parameters, SM4-CBC with the IV."""
    s = cms.sign(b"abc", pki.leaf, pki.leaf_key, compat="gmssl")
    assert bytes.fromhex("060a2a811ccf550601040202") in s  # signedData (GM)
    assert bytes.fromhex("060a2a811ccf550601040201") in s  # data (GM)
    assert bytes.fromhex("300a06082a811ccf55018375") in s  # SEQUENCE { sm2sign-with-sm3 }
    assert bytes.fromhex("a0") + b"\x31" not in s  # no [0] signed attributes
    e = cms.encrypt(b"abc", [pki.leaf], compat="gmssl")
    assert bytes.fromhex("300b06092a811ccf5501822d02") in e  # SEQUENCE { sm2encrypt .301.2 }, no parameters
    assert bytes.fromhex("060a2a811ccf550601040203") in e
    assert bytes.fromhex("06082a811ccf550168020410") in e  # sm4-cbc, OCTET STRING(16) IV


_HYP = Pki()


@settings(max_examples=25, deadline=None)
@given(data=st.binary(max_size=3000), form=st.sampled_from(FORMS), detached=st.booleans(),
       rid=st.sampled_from(["issuer_and_serial", "key_identifier"]))
def test_cms_round_trips_hypothesis(data: bytes, form: dict[str, str], detached: bool, rid: str) -> None:
    p = _HYP
    msg = cms.sign(data, p.leaf, p.leaf_key, detached=detached, **form)  # type: ignore[arg-type]
    v = cms.verify(msg, data=data if detached else None, trust_roots=[p.root], certificates=[p.inter])
    assert v.content == data and v.signers == [p.leaf]
    env = cms.encrypt(data, [p.leaf], recipient_id=rid, **form)  # type: ignore[arg-type]
    assert cms.decrypt(env, p.leaf_key, p.leaf) == data


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"oids": "pkcs7"}, "oids must be one of 'gmt0010', 'rfc5652', got 'pkcs7'"),
        ({"compat": "openssl"}, "compat must be None or 'gmssl', got 'openssl'"),
        ({"recipient_id": "serial"}, "recipient_id must be 'issuer_and_serial' or 'key_identifier', got 'serial'"),
    ],
)
def test_option_names_are_checked_by_the_core(pki: Pki, kw: dict[str, str], message: str) -> None:
    # The core parses the option names and owns the messages (one place).
    with pytest.raises(shangmi.InvalidInputError) as e:
        cms.encrypt(b"x", [pki.leaf], **kw)  # type: ignore[arg-type]
    assert str(e.value) == message
    if "recipient_id" not in kw:
        with pytest.raises(shangmi.InvalidInputError, match="must be"):
            cms.sign(b"x", pki.leaf, pki.leaf_key, **kw)  # type: ignore[arg-type]
    with pytest.raises(shangmi.ShangmiTypeError):
        cms.encrypt(b"x", [pki.leaf], oids=1)  # type: ignore[arg-type]
