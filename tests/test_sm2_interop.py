"""SM2 interop, both directions, with the OpenSSL 3 CLI and the pure-Python
``gmssl`` package (gmssl.sm2.CryptSM2).

Conventions found by reading/using the peers (see also sm2.py's docstring):
* OpenSSL signs with an *empty* signer ID unless given ``-pkeyopt distid:``.
* OpenSSL's ``pkeyutl -encrypt`` writes GM/T 0009 SM2Cipher DER.
* gmssl's CryptSM2 defaults to mode=0 = C1C2C3, with C1 as x‖y *without* the
  04 byte; mode=1 is C1C3C2. Its sign_with_sm3 uses uid 1234567812345678 and
  returns hex r‖s (or DER hex with asn1=True). It strips "04" with
  ``lstrip("04")``, which mangles keys whose hex starts with 0 or 4, so the
  tests give it keys whose x does not.
* gmssl's decrypt does not check C3 (it computes it and throws it away).
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from conftest import requires_openssl, run_openssl
from shangmi import sm2
from shangmi.exceptions import DecryptionError, InvalidSignature

UID = b"1234567812345678"
PW = "interop pass"


def _openssl_priv_hex(path: Path, password: str | None = None) -> str:
    args = ["ec", "-in", str(path), "-text", "-noout"]
    if password:
        args += ["-passin", f"pass:{password}"]
    text = run_openssl(*args).decode()
    m = re.search(r"priv:\s*\n((?:\s+[0-9a-f:]+\n)+)", text)
    assert m
    return re.sub(r"[\s:]", "", m.group(1)).rjust(64, "0")


@pytest.fixture
def ossl_key(tmp_path: Path) -> Path:
    path = tmp_path / "key.pem"
    run_openssl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:SM2", "-out", str(path))
    return path


# ---- OpenSSL keys load here ------------------------------------------------------------------


@requires_openssl
def test_openssl_genpkey_keys_load_in_every_form(ossl_key: Path, tmp_path: Path) -> None:
    d = _openssl_priv_hex(ossl_key)
    forms = {
        "pkcs8 pem": ossl_key.read_bytes(),
        "pkcs8 der": run_openssl("pkcs8", "-topk8", "-nocrypt", "-in", str(ossl_key), "-outform", "DER"),
        "sec1 der (pkey -outform DER)": run_openssl("pkey", "-in", str(ossl_key), "-outform", "DER"),
        "sec1 pem (SM2 PRIVATE KEY)": run_openssl("ec", "-in", str(ossl_key)),
    }
    for name, data in forms.items():
        k = sm2.PrivateKey.from_pem(data) if b"-----BEGIN" in data else sm2.PrivateKey.from_der(data)
        assert k.to_bytes().hex() == d, name
    pub_pem = run_openssl("pkey", "-in", str(ossl_key), "-pubout")
    pub_der = run_openssl("pkey", "-in", str(ossl_key), "-pubout", "-outform", "DER")
    k = sm2.PrivateKey.from_pem(ossl_key.read_bytes())
    assert sm2.PublicKey.from_pem(pub_pem) == k.public_key()
    assert sm2.PublicKey.from_der(pub_der) == k.public_key()


@requires_openssl
def test_openssl_ecparam_genkey_loads(tmp_path: Path) -> None:
    path = tmp_path / "ecparam.pem"
    run_openssl("ecparam", "-name", "SM2", "-genkey", "-out", str(path))
    assert sm2.PrivateKey.from_pem(path.read_bytes()).to_bytes().hex() == _openssl_priv_hex(path)


@requires_openssl
@pytest.mark.parametrize("cipher", ["-aes-256-cbc", "-aes-128-cbc"])
def test_openssl_encrypted_keys_load(tmp_path: Path, cipher: str) -> None:
    path = tmp_path / "enc.pem"
    run_openssl(
        "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:SM2", cipher, "-pass", f"pass:{PW}", "-out", str(path)
    )
    d = _openssl_priv_hex(path, PW)
    assert sm2.PrivateKey.from_pem(path.read_bytes(), password=PW).to_bytes().hex() == d
    with pytest.raises(ValueError, match="wrong password"):
        sm2.PrivateKey.from_pem(path.read_bytes(), password="nope")
    der = run_openssl("pkcs8", "-in", str(path), "-passin", f"pass:{PW}", "-topk8", "-v2", cipher[1:], "-passout", f"pass:{PW}", "-outform", "DER")
    assert sm2.PrivateKey.from_der(der, password=PW).to_bytes().hex() == d
    legacy = run_openssl("ec", "-in", str(path), "-passin", f"pass:{PW}", cipher.replace("-cbc", "").replace("-aes-", "-aes"), "-passout", f"pass:{PW}")
    assert b"Proc-Type: 4,ENCRYPTED" in legacy
    assert sm2.PrivateKey.from_pem(legacy, password=PW).to_bytes().hex() == d


# ---- our keys load in OpenSSL ----------------------------------------------------------------------


@requires_openssl
def test_our_keys_roundtrip_through_openssl(tmp_path: Path) -> None:
    k = sm2.PrivateKey.generate()
    p = tmp_path / "ours.pem"
    p.write_bytes(k.to_pem())
    # openssl pkey re-writes PKCS#8 PEM: byte-identical to ours.
    assert run_openssl("pkey", "-in", str(p)) == k.to_pem()
    assert _openssl_priv_hex(p) == k.to_bytes().hex()
    p.write_bytes(k.to_pem(format="sec1"))
    assert run_openssl("ec", "-in", str(p)) == k.to_pem(format="sec1")
    pd = tmp_path / "ours.der"
    pd.write_bytes(k.to_der())
    assert run_openssl("pkey", "-inform", "DER", "-in", str(pd)) == k.to_pem()
    pub = tmp_path / "pub.pem"
    pub.write_bytes(k.public_key().to_pem())
    assert run_openssl("pkey", "-pubin", "-in", str(pub)) == k.public_key().to_pem()
    # Encrypted for OpenSSL: PBKDF2-HMAC-SHA256 + AES-256-CBC.
    enc = tmp_path / "enc.pem"
    enc.write_bytes(k.to_pem(password=PW, encryption="aes-256-cbc"))
    assert run_openssl("pkey", "-in", str(enc), "-passin", f"pass:{PW}") == k.to_pem()
    enc.write_bytes(k.to_der(password=PW, encryption="aes-256-cbc"))
    assert run_openssl("pkey", "-inform", "DER", "-in", str(enc), "-passin", f"pass:{PW}") == k.to_pem()
    # The default (GmSSL's SM3 + SM4) is not understood by OpenSSL 3.0's PBES2 code.
    enc.write_bytes(k.to_pem(password=PW))
    proc = subprocess.run(["openssl", "pkey", "-in", str(enc), "-passin", f"pass:{PW}"], capture_output=True)
    if proc.returncode == 0:  # a newer OpenSSL that knows HMAC-SM3: then it must be right
        assert proc.stdout == k.to_pem()
    assert run_openssl("pkey", "-in", str(p), "-pubout", "-outform", "DER") == k.public_key().to_der()


# ---- signatures, both directions ----------------------------------------------------------------------


def _openssl_sign(key: Path, msg: Path, uid: bytes | None) -> bytes:
    args = ["pkeyutl", "-sign", "-rawin", "-digest", "sm3", "-inkey", str(key), "-in", str(msg)]
    if uid is not None:
        args += ["-pkeyopt", f"distid:{uid.decode()}"]
    return run_openssl(*args)


def _openssl_verify(pub: Path, msg: Path, sig: Path, uid: bytes | None) -> bool:
    args = ["openssl", "pkeyutl", "-verify", "-rawin", "-digest", "sm3", "-pubin", "-inkey", str(pub), "-in", str(msg), "-sigfile", str(sig)]
    if uid is not None:
        args += ["-pkeyopt", f"distid:{uid.decode()}"]
    proc = subprocess.run(args, capture_output=True)
    return proc.returncode == 0 and b"Signature Verified Successfully" in proc.stdout


@requires_openssl
def test_openssl_signatures_verify_here(ossl_key: Path, tmp_path: Path) -> None:
    msg = tmp_path / "msg"
    msg.write_bytes(b"interop message " * 10)
    pub = sm2.PrivateKey.from_pem(ossl_key.read_bytes()).public_key()
    for _ in range(3):
        sig = _openssl_sign(ossl_key, msg, UID)
        pub.verify(sig, msg.read_bytes(), uid=UID)
        with pytest.raises(InvalidSignature):
            pub.verify(sig, msg.read_bytes(), uid=b"")
    # OpenSSL's default: an empty ID.
    sig = _openssl_sign(ossl_key, msg, None)
    pub.verify(sig, msg.read_bytes(), uid=b"")
    with pytest.raises(InvalidSignature):
        pub.verify(sig, msg.read_bytes())


@requires_openssl
def test_our_signatures_verify_in_openssl(tmp_path: Path) -> None:
    k = sm2.PrivateKey.generate()
    pub = tmp_path / "pub.pem"
    pub.write_bytes(k.public_key().to_pem())
    msg = tmp_path / "msg"
    msg.write_bytes(b"signed by shangmi")
    sig = tmp_path / "sig"
    for uid, ossl_uid in ((UID, UID), (b"ALICE123@YAHOO.COM", b"ALICE123@YAHOO.COM"), (b"", None)):
        sig.write_bytes(k.sign(msg.read_bytes(), uid=uid))
        assert _openssl_verify(pub, msg, sig, ossl_uid), uid
    # A wrong ID fails there too (so the check above can fail).
    sig.write_bytes(k.sign(msg.read_bytes(), uid=b"someone else"))
    assert not _openssl_verify(pub, msg, sig, UID)
    pool = k.signature_pool(2)
    sig.write_bytes(k.sign(msg.read_bytes(), uid=UID, pool=pool))
    assert _openssl_verify(pub, msg, sig, UID)


# ---- encryption, both directions ----------------------------------------------------------------------


@requires_openssl
def test_openssl_ciphertexts_decrypt_here(ossl_key: Path, tmp_path: Path) -> None:
    k = sm2.PrivateKey.from_pem(ossl_key.read_bytes())
    pub = tmp_path / "pub.pem"
    pub.write_bytes(k.public_key().to_pem())
    for size in (1, 32, 1000):
        msg = tmp_path / "pt"
        msg.write_bytes(bytes(range(256)) * (size // 256) + bytes(range(size % 256)))
        ct = run_openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", str(pub), "-in", str(msg))
        assert k.decrypt(ct, mode="der") == msg.read_bytes()
        bad = bytearray(ct)
        bad[-1] ^= 1
        with pytest.raises(DecryptionError):
            k.decrypt(bytes(bad), mode="der")


@requires_openssl
def test_our_ciphertexts_decrypt_in_openssl(ossl_key: Path, tmp_path: Path) -> None:
    pub = sm2.PrivateKey.from_pem(ossl_key.read_bytes()).public_key()
    ct = tmp_path / "ct"
    for msg in (b"a", b"thirty-two bytes of plaintext!!!", bytes(300)):
        ct.write_bytes(pub.encrypt(msg, mode="der"))
        assert run_openssl("pkeyutl", "-decrypt", "-inkey", str(ossl_key), "-in", str(ct)) == msg
    # The prepared key writes the same format.
    ct.write_bytes(pub.prepare().encrypt(b"prepared", mode="der"))
    assert run_openssl("pkeyutl", "-decrypt", "-inkey", str(ossl_key), "-in", str(ct)) == b"prepared"


# ---- the pure-Python gmssl package ----------------------------------------------------------------------

# Only these tests need gmssl: a missing package skips them, not the whole
# module (whose OpenSSL tests don't need it).
try:
    from gmssl import sm2 as gmssl_sm2
except ImportError:  # pragma: no cover - the test extra installs gmssl
    gmssl_sm2 = None
requires_gmssl = pytest.mark.skipif(gmssl_sm2 is None, reason="the gmssl package is not installed")


def _gmssl_friendly_key() -> sm2.PrivateKey:
    """A key whose public x hex does not start with 0 or 4 (gmssl's lstrip("04") bug)."""
    while True:
        k = sm2.PrivateKey.generate()
        if k.public_key().to_bytes()[1:].hex()[0] not in "04":
            return k


def _crypt(k: sm2.PrivateKey, mode: int = 0, asn1: bool = False) -> object:
    return gmssl_sm2.CryptSM2(
        private_key=k.to_bytes().hex(), public_key=k.public_key().to_bytes().hex(), mode=mode, asn1=asn1
    )


@requires_gmssl
def test_gmssl_signatures_verify_here() -> None:
    k = _gmssl_friendly_key()
    msg = b"gmssl interop"
    for asn1 in (False, True):
        c = _crypt(k, asn1=asn1)
        sig_hex = c.sign_with_sm3(msg)  # type: ignore[attr-defined]
        enc = "der" if asn1 else "raw"
        k.public_key().verify(bytes.fromhex(sig_hex), msg, encoding=enc)
        with pytest.raises(InvalidSignature):
            k.public_key().verify(bytes.fromhex(sig_hex), msg + b".", encoding=enc)


@requires_gmssl
def test_our_signatures_verify_in_gmssl() -> None:
    k = _gmssl_friendly_key()
    msg = b"shangmi to gmssl"
    c = _crypt(k)
    assert c.verify_with_sm3(k.sign(msg, encoding="raw").hex(), msg)  # type: ignore[attr-defined]
    assert not c.verify_with_sm3(k.sign(msg + b"!", encoding="raw").hex(), msg)  # type: ignore[attr-defined]
    c = _crypt(k, asn1=True)
    assert c.verify_with_sm3(k.sign(msg).hex(), msg)  # type: ignore[attr-defined]


@requires_gmssl
def test_gmssl_ciphertexts_decrypt_here() -> None:
    k = _gmssl_friendly_key()
    msg = b"gmssl ciphertext"
    ct0 = _crypt(k, mode=0).encrypt(msg)  # type: ignore[attr-defined]
    assert len(ct0) == 64 + len(msg) + 32  # C1 without 04
    assert k.decrypt(b"\x04" + ct0, mode="c1c2c3") == msg
    ct1 = _crypt(k, mode=1).encrypt(msg)  # type: ignore[attr-defined]
    assert k.decrypt(b"\x04" + ct1, mode="c1c3c2") == msg
    with pytest.raises(DecryptionError):
        k.decrypt(b"\x04" + ct0, mode="c1c3c2")


@requires_gmssl
def test_our_ciphertexts_decrypt_in_gmssl() -> None:
    k = _gmssl_friendly_key()
    msg = b"shangmi ciphertext"
    ct = k.public_key().encrypt(msg, mode="c1c2c3")
    assert _crypt(k, mode=0).decrypt(ct[1:]) == msg  # type: ignore[attr-defined]
    ct = k.public_key().encrypt(msg)
    assert _crypt(k, mode=1).decrypt(ct[1:]) == msg  # type: ignore[attr-defined]


@requires_openssl
def test_unsupported_openssl_encryptions_give_clear_errors(ossl_key: Path, tmp_path: Path) -> None:
    cases = {
        "unsupported encryption scheme": ["pkcs8", "-topk8", "-v1", "PBE-SHA1-3DES"],
        "unsupported key derivation": ["pkcs8", "-topk8", "-scrypt"],
        "unsupported legacy PEM cipher 'DES-EDE3-CBC'": ["ec", "-des3"],
    }
    for message, args in cases.items():
        out = tmp_path / "x.pem"
        run_openssl(*args, "-in", str(ossl_key), "-passout", f"pass:{PW}", "-out", str(out))
        with pytest.raises(ValueError, match=message):
            sm2.PrivateKey.from_pem(out.read_bytes(), password=PW)
