"""SM9 through the public API: the standard's examples from
tests/vectors/sm9.json (keys, extraction, signature verification, KEM and
both encryption variants decrypted byte for byte; the Rust tests
crates/shangmi/tests/sm9_vectors.rs also reproduce the randomised outputs
with the random values injected), round trips of every option, and bad input."""

from __future__ import annotations

import pickle
import threading

import pytest

from conftest import load_vectors, unhex
from shangmi import DecryptionError, InvalidInputError, InvalidKey, InvalidSignature, InvalidTag, ShangmiError, sm9

VEC = load_vectors("sm9.json")
SIGN = VEC["sign"][0]
KEM = VEC["kem"][0]
ENC = VEC["encrypt"]
KEX = VEC["key_exchange"][0]
P = int(VEC["parameters"]["p"], 16)


@pytest.fixture(scope="module")
def sign_master() -> sm9.SignMasterKey:
    return sm9.SignMasterKey.from_bytes(unhex(SIGN["master_private_key_ks"]))


@pytest.fixture(scope="module")
def enc_master() -> sm9.EncMasterKey:
    return sm9.EncMasterKey.from_bytes(unhex(KEM["master_private_key_ke"]))


def test_sign_example_keys(sign_master: sm9.SignMasterKey) -> None:
    assert sign_master.public_key().to_bytes() == b"\x04" + unhex(SIGN["master_public_key_ppub_s"])
    key = sign_master.extract(unhex(SIGN["user_id"]))
    assert key.to_bytes() == b"\x04" + unhex(SIGN["user_private_key_ds"])
    assert key.master_public_key() == sign_master.public_key()


@pytest.mark.parametrize("prepared", [False, True])
def test_sign_example_verifies(sign_master: sm9.SignMasterKey, prepared: bool) -> None:
    mpk = sign_master.public_key()
    if prepared:
        mpk = mpk.prepare()
        assert mpk.is_prepared and mpk.prepared_memory > 0
    raw = unhex(SIGN["h"]) + unhex(SIGN["s_uncompressed"])
    msg, uid = unhex(SIGN["message"]), unhex(SIGN["user_id"])
    assert mpk.verify(raw, msg, uid, encoding="raw") is None
    mpk.verify(unhex(SIGN["h"]) + unhex(SIGN["s_compressed"]), msg, uid, encoding="raw")
    with pytest.raises(InvalidSignature):
        mpk.verify(raw, msg + b"!", uid, encoding="raw")
    with pytest.raises(InvalidSignature):
        mpk.verify(raw, msg, b"Alicf", encoding="raw")
    with pytest.raises(InvalidSignature):
        mpk.verify(raw, msg, uid, hid=2, encoding="raw")
    for i in (0, 31, 40, 96):
        bad = bytearray(raw)
        bad[i] ^= 1
        with pytest.raises(InvalidSignature):
            mpk.verify(bytes(bad), msg, uid, encoding="raw")


@pytest.mark.parametrize("prepared", [False, True])
def test_sign_round_trip(sign_master: sm9.SignMasterKey, prepared: bool) -> None:
    key = sign_master.extract(b"Alice")
    if prepared:
        key = key.prepare()
        assert key.prepared_memory > 0
    mpk = sign_master.public_key()
    for enc in ("der", "raw"):
        sig = key.sign(b"hello", encoding=enc)  # type: ignore[arg-type]
        mpk.verify(sig, b"hello", b"Alice", encoding=enc)  # type: ignore[arg-type]
        with pytest.raises(InvalidSignature):
            mpk.verify(sig, b"hellp", b"Alice", encoding=enc)  # type: ignore[arg-type]
    der = key.sign(b"m")
    assert der[0] == 0x30
    for bad in (der[:-1], der + b"\x00", b"", b"\x30\x00"):
        with pytest.raises(InvalidSignature):
            mpk.verify(bad, b"m", b"Alice")


def test_kem_example(enc_master: sm9.EncMasterKey) -> None:
    assert enc_master.public_key().to_bytes() == b"\x04" + unhex(KEM["master_public_key_ppub_e"])
    uid = unhex(KEM["user_id"])
    key = enc_master.extract(uid)
    assert key.to_bytes() == b"\x04" + unhex(KEM["user_private_key_de"])
    assert key.uid == uid
    c, k, klen = unhex(KEM["c"]), unhex(KEM["k"]), KEM["klen_bytes"]
    for dk in (key, key.prepare()):
        assert dk.decapsulate(c, klen) == k
        assert dk.decapsulate(b"\x04" + c, klen) == k
    # A key read from bytes does not know its identity.
    bare = sm9.EncPrivateKey.from_bytes(key.to_bytes(), enc_master.public_key())
    with pytest.raises(InvalidInputError):
        bare.decapsulate(c, klen)
    assert bare.decapsulate(c, klen, uid=uid) == k
    assert sm9.EncPrivateKey.from_bytes(key.to_bytes(), enc_master.public_key(), uid=uid).decapsulate(c, klen) == k


def test_kem_round_trip(enc_master: sm9.EncMasterKey) -> None:
    key = enc_master.extract(b"Bob")
    for mpk in (enc_master.public_key(), enc_master.public_key().prepare()):
        k, c = mpk.encapsulate(b"Bob", 48)
        assert len(k) == 48 and len(c) == 65
        assert key.decapsulate(c, 48) == k
        assert key.decapsulate(c, 48, uid=b"Bob2") != k


@pytest.mark.parametrize("entry", ENC, ids=[e["id"] for e in ENC])
def test_encrypt_examples_decrypt(enc_master: sm9.EncMasterKey, entry: dict[str, str]) -> None:
    cipher = "xor" if entry["k1_bytes"] == len(entry["message"]) // 2 else "sm4-ecb"
    key = enc_master.extract(unhex(entry["user_id"]))
    ct = unhex(entry["ciphertext_c1c3c2"])
    msg = unhex(entry["message"])
    assert key.decrypt(ct, cipher=cipher) == msg  # type: ignore[arg-type]
    assert key.prepare().decrypt(b"\x04" + ct, cipher=cipher) == msg  # type: ignore[arg-type]
    bad = bytearray(ct)
    bad[70] ^= 1
    with pytest.raises(DecryptionError):
        key.decrypt(bytes(bad), cipher=cipher)  # type: ignore[arg-type]
    with pytest.raises(DecryptionError):
        key.decrypt(ct, uid=b"Boc", cipher=cipher)  # type: ignore[arg-type]


@pytest.mark.parametrize("mode", ["c1c3c2", "c1c2c3", "der"])
@pytest.mark.parametrize("cipher", ["xor", "sm4-ecb", "sm4-cbc"])
@pytest.mark.parametrize("mac", ["sm3", "hmac-sm3"])
def test_encrypt_round_trip(enc_master: sm9.EncMasterKey, mode: str, cipher: str, mac: str) -> None:
    key = enc_master.extract(b"Bob")
    mpk = enc_master.public_key().prepare()
    for msg in (b"x", b"sixteen bytes!!!", bytes(range(200)) * 3):
        ct = mpk.encrypt(msg, b"Bob", mode=mode, cipher=cipher, mac=mac)  # type: ignore[arg-type]
        assert key.decrypt(ct, mode=mode, cipher=cipher, mac=mac) == msg  # type: ignore[arg-type]
        other_mac = "sm3" if mac == "hmac-sm3" else "hmac-sm3"
        with pytest.raises(DecryptionError):
            key.decrypt(ct, mode=mode, cipher=cipher, mac=other_mac)  # type: ignore[arg-type]
        for cut in (ct[:-1], ct[:10], b""):
            with pytest.raises(DecryptionError):
                key.decrypt(cut, mode=mode, cipher=cipher, mac=mac)  # type: ignore[arg-type]


def test_encrypt_refuses_empty_and_bad_options(enc_master: sm9.EncMasterKey) -> None:
    mpk = enc_master.public_key()
    with pytest.raises(InvalidInputError, match="empty"):
        mpk.encrypt(b"", b"Bob")
    with pytest.raises(InvalidInputError, match="mode"):
        mpk.encrypt(b"x", b"Bob", mode="c1c2")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="cipher"):
        mpk.encrypt(b"x", b"Bob", cipher="aes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="mac"):
        mpk.encrypt(b"x", b"Bob", mac="sha256")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="hid"):
        mpk.encrypt(b"x", b"Bob", hid=256)
    with pytest.raises(TypeError):
        mpk.encrypt("x", b"Bob")  # type: ignore[arg-type]


def test_key_exchange_example_keys_and_round_trip() -> None:
    mk = sm9.EncMasterKey.from_bytes(unhex(KEX["master_private_key_ke"]))
    mpk = mk.public_key()
    assert mpk.to_bytes() == b"\x04" + unhex(KEX["master_public_key_ppub_e"])
    ida, idb = unhex(KEX["id_a"]), unhex(KEX["id_b"])
    ka, kb = mk.extract(ida, hid=2), mk.extract(idb, hid=2)
    assert ka.to_bytes() == b"\x04" + unhex(KEX["user_private_key_de_a"])
    assert kb.to_bytes() == b"\x04" + unhex(KEX["user_private_key_de_b"])
    a = sm9.KeyExchange("initiator", ka, mpk, uid=ida, peer_uid=idb)
    b = sm9.KeyExchange("responder", kb, mpk.prepare(), uid=idb, peer_uid=ida)
    rb = b.compute(a.ephemeral_public_key(), 16)
    ra = a.compute(b.ephemeral_public_key(), 16, confirmation=rb.confirmation)
    rb.check_confirmation(ra.confirmation)
    assert ra.key == rb.key and len(ra.key) == 16
    with pytest.raises(InvalidTag):
        rb.check_confirmation(rb.confirmation)
    with pytest.raises(InvalidInputError):
        a.compute(b.ephemeral_public_key(), 16)  # spent
    c = sm9.KeyExchange("initiator", ka, mpk, uid=ida, peer_uid=idb)
    with pytest.raises(InvalidInputError):
        c.compute(b"\x04" + bytes(64), 16)  # not on the curve
    with pytest.raises(TypeError):
        pickle.dumps(c)


def test_pickle_public_only(sign_master: sm9.SignMasterKey, enc_master: sm9.EncMasterKey) -> None:
    for pub in (sign_master.public_key(), enc_master.public_key()):
        assert pickle.loads(pickle.dumps(pub)) == pub
    for secret in (sign_master, enc_master, sign_master.extract(b"A"), enc_master.extract(b"B")):
        with pytest.raises(TypeError, match="pickle"):
            pickle.dumps(secret)


def _g2_bytes(x1: int, x0: int, y1: int, y0: int) -> bytes:
    return b"\x04" + b"".join(v.to_bytes(32, "big") for v in (x1, x0, y1, y0))


def test_bad_points_and_scalars(sign_master: sm9.SignMasterKey, enc_master: sm9.EncMasterKey) -> None:
    good = sign_master.public_key().to_bytes()
    for bad in (good[:-1], good + b"\x00", b"\x05" + good[1:], bytes(129)):
        with pytest.raises(InvalidKey):
            sm9.SignMasterPublicKey.from_bytes(bad)
    # A coordinate >= p.
    for i in range(4):
        coord = (P + 1).to_bytes(32, "big")
        with pytest.raises(InvalidKey, match="below p"):
            sm9.SignMasterPublicKey.from_bytes(good[: 1 + 32 * i] + coord + good[33 + 32 * i :])
    # Without the 04 prefix.
    assert sm9.SignMasterPublicKey.from_bytes(good[1:]) == sign_master.public_key()
    # A twist point outside G2: the twist's order is n(2p - n), so [n]Q != O for a random point.
    with pytest.raises(InvalidKey, match="subgroup"):
        sm9.SignMasterPublicKey.from_bytes(_twist_point_outside_g2())
    gpub = enc_master.public_key().to_bytes()
    with pytest.raises(InvalidKey, match="not on the curve"):
        sm9.EncMasterPublicKey.from_bytes(gpub[:-1] + bytes([gpub[-1] ^ 1]))
    for ks in (bytes(32), b"\xff" * 32, bytes(31), unhex(VEC["parameters"]["n"])):
        with pytest.raises(InvalidKey):
            sm9.SignMasterKey.from_bytes(ks)
        with pytest.raises(InvalidKey):
            sm9.EncMasterKey.from_bytes(ks)
    with pytest.raises(InvalidKey):
        sm9.SignPrivateKey.from_bytes(b"\x04" + bytes(64), sign_master.public_key())
    with pytest.raises(InvalidKey, match="subgroup"):
        sm9.EncPrivateKey.from_bytes(_twist_point_outside_g2(), enc_master.public_key())
    key = enc_master.extract(b"Bob")
    with pytest.raises(DecryptionError):
        key.decapsulate(b"\x04" + bytes(64), 32)
    with pytest.raises(InvalidInputError):
        key.decapsulate(unhex(KEM["c"]), 0)
    assert all(isinstance(e, type) and issubclass(e, ShangmiError) for e in (InvalidKey, DecryptionError))


def _fp2_mul(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
    return ((a[0] * b[0] - 2 * a[1] * b[1]) % P, (a[0] * b[1] + a[1] * b[0]) % P)


def _fp2_sqrt(a: tuple[int, int]) -> tuple[int, int] | None:
    # Exponentiation by (p^2 + 7)/16 candidates is fiddly; brute-force with Tonelli-Shanks over Fp2 via norms.
    norm = (a[0] * a[0] + 2 * a[1] * a[1]) % P
    n = _fp_sqrt(norm)
    if n is None:
        return None
    inv2 = pow(2, P - 2, P)
    for cand in ((a[0] + n) * inv2 % P, (a[0] - n) * inv2 % P):
        alpha = _fp_sqrt(cand)
        if alpha:
            beta = a[1] * pow(2 * alpha, P - 2, P) % P
            if _fp2_mul((alpha, beta), (alpha, beta)) == a:
                return (alpha, beta)
    return None


def _fp_sqrt(a: int) -> int | None:
    a %= P
    if a == 0:
        return 0
    if pow(a, (P - 1) // 2, P) != 1:
        return None
    q, s = P - 1, 0
    while q % 2 == 0:
        q //= 2
        s += 1
    z = P - 2  # -2 is a non-residue
    m, c, t, r = s, pow(z, q, P), pow(a, q, P), pow(a, (q + 1) // 2, P)
    while t != 1:
        i, t2 = 0, t
        while t2 != 1:
            t2 = t2 * t2 % P
            i += 1
        b = pow(c, 1 << (m - i - 1), P)
        m, c, t, r = i, b * b % P, t * b * b % P, r * b % P
    return r


def _twist_point_outside_g2() -> bytes:
    for x0 in range(1, 100):
        x = (x0, 1)
        rhs = _fp2_mul(_fp2_mul(x, x), x)
        rhs = (rhs[0], (rhs[1] + 5) % P)
        y = _fp2_sqrt(rhs)
        if y is not None:
            return _g2_bytes(x[1], x[0], y[1], y[0])
    raise AssertionError("no twist point found")


def test_gil_released_in_threads(enc_master: sm9.EncMasterKey) -> None:
    key = enc_master.extract(b"Bob")
    mpk = enc_master.public_key()
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(3):
                assert key.decrypt(mpk.encrypt(b"abc", b"Bob")) == b"abc"
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


def test_sign_many_and_verify_many(sign_master: sm9.SignMasterKey) -> None:
    key = sign_master.extract(b"Alice").prepare()
    mpk = sign_master.public_key().prepare()
    msgs = [bytes([i]) * i for i in range(1, 9)]
    for enc in ("der", "raw"):
        sigs = sm9.sign_many(key, msgs, encoding=enc)  # type: ignore[arg-type]
        items = [(m, b"Alice", s) for m, s in zip(msgs, sigs)]
        items.append((b"other", b"Alice", sigs[0]))
        items.append((msgs[0], b"Alice", b"garbage"))
        assert sm9.verify_many(mpk, items, encoding=enc) == [True] * 8 + [False, False]  # type: ignore[arg-type]
