"""SM9 key files: the files GmSSL's CLI wrote (tests/vectors/sm9_gmssl/,
see its README) load here and work with the standard's operations; what we
write round-trips and, when GmSSL's tool is available (SHANGMI_GMSSL or
``gmssl`` on PATH), loads in GmSSL, with signatures and ciphertexts crossing
both ways; bad files raise a clear InvalidKey."""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
from pathlib import Path

import pytest

from shangmi import DecryptionError, InvalidInputError, InvalidKey, InvalidSignature, ShangmiError, sm9

VEC = Path(__file__).parent / "vectors" / "sm9_gmssl"
GMSSL = os.environ.get("SHANGMI_GMSSL") or shutil.which("gmssl")
requires_gmssl = pytest.mark.skipif(GMSSL is None, reason="GmSSL's gmssl tool not installed (set SHANGMI_GMSSL)")
MASTER_PW, USER_PW = b"P@ssw0rd", b"123456"


def _v(name: str) -> bytes:
    return (VEC / name).read_bytes()


def _gm(*args: str, stdin: bytes | None = None) -> bytes:
    assert GMSSL is not None
    p = subprocess.run([GMSSL, *args], capture_output=True, input=stdin, check=False)
    assert p.returncode == 0, f"gmssl {' '.join(args)}: {(p.stdout + p.stderr).decode(errors='replace')}"
    return p.stdout


def test_gmssl_sign_files_load_and_verify() -> None:
    msk = sm9.SignMasterKey.from_pem(_v("sign_msk.pem"), MASTER_PW)
    mpk = sm9.SignMasterPublicKey.from_pem(_v("sign_mpk.pem"))
    assert msk.public_key() == mpk
    alice = sm9.SignPrivateKey.from_pem(_v("sign_alice.pem"), USER_PW)
    assert alice.to_bytes() == msk.extract(b"Alice").to_bytes()
    assert alice.master_public_key() == mpk
    mpk.verify(_v("msg.sig"), _v("msg.txt"), b"Alice")
    with pytest.raises(InvalidSignature):
        mpk.verify(_v("msg.sig"), _v("msg.txt"), b"Bob")
    # str passwords are UTF-8.
    assert sm9.SignPrivateKey.from_pem(_v("sign_alice.pem").decode(), "123456").to_bytes() == alice.to_bytes()


def test_gmssl_enc_files_load_and_decrypt() -> None:
    msk = sm9.EncMasterKey.from_pem(_v("enc_msk.pem"), MASTER_PW)
    mpk = sm9.EncMasterPublicKey.from_pem(_v("enc_mpk.pem"))
    assert msk.public_key() == mpk
    bob = sm9.EncPrivateKey.from_pem(_v("enc_bob.pem"), USER_PW, uid=b"Bob")
    assert bob.uid == b"Bob" and bob.to_bytes() == msk.extract(b"Bob").to_bytes()
    assert bob.decrypt(_v("msg.ct"), mode="der", mac="hmac-sm3") == _v("msg.txt")
    with pytest.raises(DecryptionError):
        bob.decrypt(_v("msg.ct"), mode="der")  # the standard's MAC is not GmSSL's
    # Without uid= the key does not know its identity: give it per call.
    anon = sm9.EncPrivateKey.from_pem(_v("enc_bob.pem"), USER_PW)
    assert anon.uid is None
    assert anon.decrypt(_v("msg.ct"), uid=b"Bob", mode="der", mac="hmac-sm3") == _v("msg.txt")
    carol = sm9.EncPrivateKey.from_pem(_v("exch_carol.pem"), USER_PW, uid=b"Carol")
    assert carol.to_bytes() == msk.extract(b"Carol", hid=sm9.HID_EXCHANGE).to_bytes()


def test_wrong_or_missing_password_and_label_checks() -> None:
    for bad in (b"12345", b"1234567"):
        with pytest.raises(InvalidKey, match="wrong password"):
            sm9.SignPrivateKey.from_pem(_v("sign_alice.pem"), bad)
    with pytest.raises(InvalidKey, match="password is required"):
        sm9.SignMasterKey.from_pem(_v("sign_msk.pem"))
    with pytest.raises(InvalidInputError, match="empty"):
        sm9.SignMasterKey.from_pem(_v("sign_msk.pem"), b"")
    # A key of another type is refused, with a message.
    with pytest.raises(InvalidKey, match="different SM9 key type"):
        sm9.EncMasterKey.from_pem(_v("sign_msk.pem"), MASTER_PW)
    with pytest.raises(InvalidKey, match="different SM9 key type"):
        sm9.SignPrivateKey.from_pem(_v("enc_bob.pem"), USER_PW)
    with pytest.raises(InvalidKey, match="SM9 SIGN MASTER PUBLIC KEY"):
        sm9.SignMasterPublicKey.from_pem(_v("enc_mpk.pem"))
    with pytest.raises(InvalidKey, match="master public key"):
        sm9.SignMasterKey.from_pem(_v("sign_mpk.pem"))
    # The label must match the contents.
    plain = sm9.SignMasterKey.from_pem(_v("sign_msk.pem"), MASTER_PW).to_pem()
    relabelled = plain.replace(b"PRIVATE KEY", b"ENCRYPTED PRIVATE KEY")
    with pytest.raises(InvalidKey, match="does not match"):
        sm9.SignMasterKey.from_pem(relabelled)


@pytest.mark.parametrize("password", [None, b"pw", "pässword"])
def test_round_trips(password: bytes | str | None) -> None:
    smk, emk = sm9.SignMasterKey.generate(), sm9.EncMasterKey.generate()
    for key in (smk, emk):
        for data in (key.to_der(password), key.to_pem(password)):
            back = type(key).from_pem(data, password) if data.startswith(b"-----") else type(key).from_der(data, password)
            assert back.to_bytes() == key.to_bytes()
    pem = smk.to_pem(password)
    assert pem.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY" if password else b"-----BEGIN PRIVATE KEY")
    alice, bob = smk.extract(b"Alice"), emk.extract(b"Bob")
    a2 = sm9.SignPrivateKey.from_der(alice.to_der(password), password)
    assert a2.to_bytes() == alice.to_bytes() and a2.master_public_key() == smk.public_key()
    b2 = sm9.EncPrivateKey.from_pem(bob.to_pem(password), password, uid=b"Bob")
    assert b2.to_bytes() == bob.to_bytes()
    ct = emk.public_key().encrypt(b"hi", b"Bob")
    assert b2.decrypt(ct) == b"hi"
    for mpk in (smk.public_key(), emk.public_key()):
        assert type(mpk).from_der(mpk.to_der()) == mpk
        assert type(mpk).from_pem(mpk.to_pem()) == mpk
        assert type(mpk).from_pem(mpk.to_pem().decode()) == mpk
    assert smk.public_key().to_pem().startswith(b"-----BEGIN SM9 SIGN MASTER PUBLIC KEY-----\n")
    assert emk.public_key().to_pem().startswith(b"-----BEGIN SM9 ENC MASTER PUBLIC KEY-----\n")


def _der(tag: int, body: bytes) -> bytes:
    assert len(body) < 128
    return bytes([tag, len(body)]) + body


def test_gmsm_bare_elements() -> None:
    smk = sm9.SignMasterKey.generate()
    mpk = smk.public_key()
    # Master key as a lone INTEGER, master public key as a lone BIT STRING.
    ks = smk.to_bytes()
    assert sm9.SignMasterKey.from_der(_der(0x02, (b"\x00" + ks) if ks[0] & 0x80 else ks.lstrip(b"\x00") or b"\x00")).to_bytes() == ks
    assert sm9.SignMasterPublicKey.from_der(bytes([0x03, 0x81, 130, 0]) + mpk.to_bytes()) == mpk
    # A user point as a lone BIT STRING needs its master public key.
    alice = smk.extract(b"Alice")
    bare = _der(0x03, b"\x00" + alice.to_bytes())
    with pytest.raises(InvalidKey, match="pass its master public key"):
        sm9.SignPrivateKey.from_der(bare)
    assert sm9.SignPrivateKey.from_der(bare, master_public_key=mpk).to_bytes() == alice.to_bytes()
    with pytest.raises(InvalidKey, match="differs"):
        sm9.SignPrivateKey.from_der(alice.to_der(), master_public_key=sm9.SignMasterKey.generate().public_key())


def test_bad_files() -> None:
    emk = sm9.EncMasterKey.generate()
    der = emk.to_der()
    for bad in (der[:-1], der + b"\x00", der[:10], b"", b"\x30\x00"):
        with pytest.raises(InvalidKey):
            sm9.EncMasterKey.from_der(bad)
    # A stored public key that does not match the scalar.
    other = sm9.EncMasterKey.generate().public_key().to_bytes()
    tampered = der.replace(emk.public_key().to_bytes(), other)
    with pytest.raises(InvalidKey, match="does not match"):
        sm9.EncMasterKey.from_der(tampered)
    # Scalar out of range: 0 and n.
    n = bytes.fromhex("B640000002A3A6F1D603AB4FF58EC74449F2934B18EA8BEEE56EE19CD69ECF25")
    for k in (b"\x00", b"\x00" + n):
        inner = _der(0x30, _der(0x02, k) + _der(0x03, b"\x00" + emk.public_key().to_bytes()))
        with pytest.raises(InvalidKey, match="range|zero|\\[1, n-1\\]"):
            sm9.EncMasterKey.from_der(inner)
    # A G2 point outside the subgroup / off the twist in a master public key file.
    mpk = bytearray(sm9.SignMasterKey.generate().public_key().to_der())
    mpk[-1] ^= 1
    with pytest.raises(InvalidKey, match="twist|subgroup"):
        sm9.SignMasterPublicKey.from_der(bytes(mpk))
    with pytest.raises(InvalidKey):
        sm9.SignMasterPublicKey.from_pem(b"-----BEGIN SM9 SIGN MASTER PUBLIC KEY-----\n!!\n-----END SM9 SIGN MASTER PUBLIC KEY-----\n")
    assert issubclass(InvalidKey, ShangmiError)


def test_secrets_still_refuse_pickle() -> None:
    for secret in (sm9.SignMasterKey.generate(), sm9.EncMasterKey.generate()):
        with pytest.raises(TypeError, match="to_pem"):
            pickle.dumps(secret)
    mpk = sm9.EncMasterKey.generate().public_key()
    assert pickle.loads(pickle.dumps(mpk)) == mpk


# -- with GmSSL's tool -----------------------------------------------------------------


@requires_gmssl
def test_our_files_load_in_gmssl(tmp_path: Path) -> None:
    smk, emk = sm9.SignMasterKey.generate(), sm9.EncMasterKey.generate()
    (tmp_path / "smsk.pem").write_bytes(smk.to_pem("pw"))
    (tmp_path / "smpk.pem").write_bytes(smk.public_key().to_pem())
    (tmp_path / "emsk.pem").write_bytes(emk.to_pem("pw"))
    (tmp_path / "empk.pem").write_bytes(emk.public_key().to_pem())
    (tmp_path / "alice.pem").write_bytes(smk.extract(b"Alice").to_pem("up"))
    (tmp_path / "bob.pem").write_bytes(emk.extract(b"Bob").to_pem("up"))
    (tmp_path / "msg").write_bytes(b"across the libraries")
    t = lambda n: str(tmp_path / n)  # noqa: E731
    # GmSSL extracts from our master keys: the same user keys as ours.
    _gm("sm9keygen", "-alg", "sm9sign", "-in", t("smsk.pem"), "-inpass", "pw", "-id", "Carol", "-out", t("c.pem"), "-outpass", "x")
    assert sm9.SignPrivateKey.from_pem((tmp_path / "c.pem").read_bytes(), "x").to_bytes() == smk.extract(b"Carol").to_bytes()
    _gm("sm9keygen", "-alg", "sm9encrypt", "-in", t("emsk.pem"), "-inpass", "pw", "-id", "Dan", "-out", t("d.pem"), "-outpass", "x")
    assert sm9.EncPrivateKey.from_pem((tmp_path / "d.pem").read_bytes(), "x").to_bytes() == emk.extract(b"Dan").to_bytes()
    # GmSSL signs with our user key; we verify. We sign; GmSSL verifies.
    _gm("sm9sign", "-key", t("alice.pem"), "-pass", "up", "-in", t("msg"), "-out", t("gm.sig"))
    smk.public_key().verify((tmp_path / "gm.sig").read_bytes(), b"across the libraries", b"Alice")
    (tmp_path / "our.sig").write_bytes(smk.extract(b"Alice").sign(b"across the libraries"))
    assert b"success" in _gm("sm9verify", "-pubmaster", t("smpk.pem"), "-id", "Alice", "-in", t("msg"), "-sig", t("our.sig"))
    # GmSSL encrypts to our master public key; we decrypt. We encrypt; GmSSL decrypts with our key file.
    _gm("sm9encrypt", "-pubmaster", t("empk.pem"), "-id", "Bob", "-in", t("msg"), "-out", t("gm.ct"))
    bob = emk.extract(b"Bob")
    assert bob.decrypt((tmp_path / "gm.ct").read_bytes(), mode="der", mac="hmac-sm3") == b"across the libraries"
    (tmp_path / "our.ct").write_bytes(emk.public_key().encrypt(b"across the libraries", b"Bob", mode="der", mac="hmac-sm3"))
    assert _gm("sm9decrypt", "-key", t("bob.pem"), "-pass", "up", "-id", "Bob", "-in", t("our.ct")) == b"across the libraries"


@requires_gmssl
def test_fresh_gmssl_files_load_here(tmp_path: Path) -> None:
    t = lambda n: str(tmp_path / n)  # noqa: E731
    for alg, cls, user_cls in (("sm9sign", sm9.SignMasterKey, sm9.SignPrivateKey), ("sm9encrypt", sm9.EncMasterKey, sm9.EncPrivateKey)):
        _gm("sm9setup", "-alg", alg, "-pass", "pw", "-out", t(alg + ".msk"), "-pubout", t(alg + ".mpk"))
        _gm("sm9keygen", "-alg", alg, "-in", t(alg + ".msk"), "-inpass", "pw", "-id", "Eve", "-out", t(alg + ".key"), "-outpass", "k")
        msk = cls.from_pem((tmp_path / (alg + ".msk")).read_bytes(), "pw")
        mpk = type(msk.public_key()).from_pem((tmp_path / (alg + ".mpk")).read_bytes())
        assert msk.public_key() == mpk
        user = user_cls.from_pem((tmp_path / (alg + ".key")).read_bytes(), "k")
        assert user.to_bytes() == msk.extract(b"Eve").to_bytes()


def test_pairing_matches_the_standards_g() -> None:
    """sm9.pairing(P1, Ppub-s) is the standard's g of the signature example."""
    from conftest import load_vectors, unhex

    vec = load_vectors("sm9.json")
    params, sign = vec["parameters"], vec["sign"][0]
    p1 = b"\x04" + unhex(params["p1_x"]) + unhex(params["p1_y"])
    ppub = b"\x04" + unhex(sign["master_public_key_ppub_s"])
    # g as 12 Fp elements in GmSSL's printed order, concatenated: the 384-byte GT encoding.
    assert sm9.pairing(p1, ppub) == b"".join(unhex(x) for x in sign["g_pairing"])
    with pytest.raises(InvalidInputError):
        sm9.pairing(p1, p1)


def test_every_truncation_and_bit_flip_is_a_clear_error_or_a_valid_key() -> None:
    """No defect in a key file gets past the parser as a wrong key or as
    something other than a ShangmiError (a cheap stand-in for fuzzing)."""
    emk = sm9.EncMasterKey.generate()
    cases = [
        (emk.to_der(), lambda d: sm9.EncMasterKey.from_der(d)),
        (emk.extract(b"Bob").to_der(), lambda d: sm9.EncPrivateKey.from_der(d)),
        (emk.public_key().to_der(), lambda d: sm9.EncMasterPublicKey.from_der(d)),
        (sm9.SignMasterKey.generate().public_key().to_der(), lambda d: sm9.SignMasterPublicKey.from_der(d)),
    ]
    sm9encrypt = bytes.fromhex("2a811ccf5501822e03")
    for good, load in cases:
        reference = load(good).to_bytes()
        # .302.3 -> .302.2 (sm9keyagreement) names the same key type on reading.
        same_key = {good.find(sm9encrypt) + len(sm9encrypt) - 1} if load is cases[1][1] else set()
        for n in range(len(good)):
            with pytest.raises(ShangmiError):
                load(good[:n])
        for i in range(len(good)):
            bad = bytearray(good)
            bad[i] ^= 0x01
            try:
                key = load(bytes(bad))
            except ShangmiError:
                continue
            # A flip that still parses must have changed the key, or be an accepted alternative spelling.
            assert key.to_bytes() != reference or i in same_key, i
