"""sm2.decrypt_many and sm2.verify_many / sign_many against the one-shot
calls, at sizes around the eight-lane groups of the AVX-512 IFMA paths (the
scalar paths where IFMA is absent or masked with SHANGMI_CPU_DISABLE)."""

from __future__ import annotations

import random

import pytest

from shangmi import sm2
from shangmi.exceptions import DecryptionError, InvalidInputError, ShangmiTypeError

SIZES = [0, 1, 7, 8, 9, 17]


@pytest.fixture(scope="module")
def key() -> sm2.PrivateKey:
    return sm2.PrivateKey.generate()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("mode", ["c1c3c2", "c1c2c3", "der"])
def test_decrypt_many_matches_decrypt(key: sm2.PrivateKey, size: int, mode: str) -> None:
    pts = [bytes([i]) * (1 + i) for i in range(size)]
    cts = [key.public_key().encrypt(m, mode=mode) for m in pts]
    assert sm2.decrypt_many(key, cts, mode=mode) == pts == [key.decrypt(c, mode=mode) for c in cts]


@pytest.mark.parametrize("size", [1, 7, 8, 9, 17])
def test_decrypt_many_names_the_first_bad_item(key: sm2.PrivateKey, size: int) -> None:
    rng = random.Random(size)
    cts = [bytearray(key.public_key().encrypt(b"m%d" % i)) for i in range(size)]
    bad = sorted(rng.sample(range(size), k=max(1, size // 3)))
    for i in bad:
        cts[i][-1] ^= 1  # the last byte of C2: C3 no longer matches
    with pytest.raises(DecryptionError, match=rf"^ciphertext {bad[0]}: "):
        sm2.decrypt_many(key, cts)
    for i in bad:
        with pytest.raises(DecryptionError):
            key.decrypt(cts[i])


def test_decrypt_many_input_errors(key: sm2.PrivateKey) -> None:
    good = key.public_key().encrypt(b"abc")
    with pytest.raises(InvalidInputError, match=r"^ciphertext 1: "):
        sm2.decrypt_many(key, [good, b"\x04" * 20])
    with pytest.raises(InvalidInputError, match="mode must be one of"):
        sm2.decrypt_many(key, [good], mode="c3c2c1")  # type: ignore[arg-type]
    with pytest.raises(ShangmiTypeError):
        sm2.decrypt_many(key.public_key(), [good])  # type: ignore[arg-type]
    # Another key's ciphertext does not decrypt.
    other = sm2.PrivateKey.generate().public_key().encrypt(b"abc")
    with pytest.raises(DecryptionError, match=r"^ciphertext 2: "):
        sm2.decrypt_many(key, [good, good, other])


@pytest.mark.parametrize("size", SIZES)
def test_verify_and_sign_many_match_one_shot(key: sm2.PrivateKey, size: int) -> None:
    rng = random.Random(100 + size)
    pub = key.public_key()
    msgs = [b"message %d" % i for i in range(size)]
    sigs = sm2.sign_many(key, msgs)
    items = [(pub, m, bytearray(s)) for m, s in zip(msgs, sigs)]
    for i in rng.sample(range(size), k=size // 3):
        items[i][2][-1] ^= 1
    want = []
    for p, m, s in items:
        try:
            p.verify(bytes(s), m)
            want.append(True)
        except Exception:
            want.append(False)
    assert sm2.verify_many(items) == want
