"""shangmi.compat.gmssl: the gmssl package's documented examples run against both
implementations, bytes cross both ways with the real gmssl package, and the
security fixes (CSPRNG nonces, C3 check, the lstrip bug, errors) hold."""

from __future__ import annotations

import types
from typing import Any

import gmssl
import gmssl.func
import gmssl.sm2
import gmssl.sm3
import gmssl.sm4
import pytest

from conftest import load_vectors
from shangmi import sm2 as msm2
from shangmi.compat import gmssl as compat
from shangmi.exceptions import DecryptionError, InvalidInputError, InvalidKey

# gmssl's README example keys (the private key has 66 digits: a leading 00).
README_PRIV = "00B9AB0B828FF68872F21A837FC303668428DEA11DCD1B24429D0C99E24EED83D5"
README_PUB = (
    "B9C9A6E04E9C91F7BA880429273747D7EF5DDEB0BB2FF6317EB00BEF331A8308"
    "1A6994B8993F3F5D6EADDDB81872266C87C018FB4162F5AF347B483E24620207"
)
IMPLS = [pytest.param(gmssl, id="gmssl"), pytest.param(compat, id="compat")]


def _keypair(first_digit_ok: bool = True) -> tuple[str, str]:
    """A fresh key as gmssl hex; with ``first_digit_ok`` x's hex starts with neither 0 nor 4
    (so the real gmssl's lstrip("04") leaves it intact)."""
    while True:
        k = msm2.PrivateKey.generate()
        pub = k.public_key().to_bytes()[1:].hex()
        if (pub[0] not in "04") == first_digit_ok:
            return k.to_bytes().hex(), pub


# ---- gmssl's documented examples, against both ----------------------------------------------


@pytest.mark.parametrize("lib", IMPLS)
def test_readme_sm2_examples(lib: types.ModuleType) -> None:
    sm2_crypt = lib.sm2.CryptSM2(public_key=README_PUB, private_key=README_PRIV)
    data = b"111"
    enc_data = sm2_crypt.encrypt(data)
    assert sm2_crypt.decrypt(enc_data) == data
    random_hex_str = lib.func.random_hex(sm2_crypt.para_len)
    sign = sm2_crypt.sign(data, random_hex_str)
    assert sm2_crypt.verify(sign, data)
    sign = sm2_crypt.sign_with_sm3(data)
    assert sm2_crypt.verify_with_sm3(sign, data)


@pytest.mark.parametrize("lib", IMPLS)
def test_readme_sm2_asn1(lib: types.ModuleType) -> None:
    sm2_crypt = lib.sm2.CryptSM2(public_key=README_PUB, private_key=README_PRIV, asn1=True)
    sign = sm2_crypt.sign_with_sm3(b"111")
    assert bytes.fromhex(sign)[0] == 0x30
    assert sm2_crypt.verify_with_sm3(sign, b"111")


@pytest.mark.parametrize("lib", IMPLS)
def test_readme_sm4_examples(lib: types.ModuleType) -> None:
    key = b"3l5butlj26hvv313"
    value = b"111"
    iv = bytes(16)
    crypt_sm4 = lib.sm4.CryptSM4()
    crypt_sm4.set_key(key, lib.sm4.SM4_ENCRYPT)
    encrypt_value = crypt_sm4.crypt_ecb(value)
    crypt_sm4.set_key(key, lib.sm4.SM4_DECRYPT)
    assert crypt_sm4.crypt_ecb(encrypt_value) == value
    crypt_sm4.set_key(key, lib.sm4.SM4_ENCRYPT)
    encrypt_value = crypt_sm4.crypt_cbc(iv, value)
    crypt_sm4.set_key(key, lib.sm4.SM4_DECRYPT)
    assert crypt_sm4.crypt_cbc(iv, encrypt_value) == value


@pytest.mark.parametrize("lib", IMPLS)
def test_sm3_official_vectors(lib: types.ModuleType) -> None:
    # GB/T 32905 examples: "abc" and "abcd" * 16.
    assert lib.sm3.sm3_hash(lib.func.bytes_to_list(b"abc")) == (
        "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"
    )
    assert lib.sm3.sm3_hash(lib.func.bytes_to_list(b"abcd" * 16)) == (
        "debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732"
    )


@pytest.mark.parametrize("lib", IMPLS)
def test_sm3_kdf_official_vector(lib: types.ModuleType) -> None:
    (v,) = load_vectors("sm2.json")["kdf"]
    assert lib.sm3.sm3_kdf(v["z"].encode(), v["klen_bytes"]) == v["output"]


def test_sm2_official_sign_vector_verifies() -> None:
    # GB/T 32918.5 Annex A on sm2p256v1 with the default ID: r‖s verifies under verify_with_sm3.
    v = next(s for s in load_vectors("sm2.json")["sign"] if s["curve"] == "sm2p256v1")
    c = compat.sm2.CryptSM2(private_key=v["private_key"], public_key="")
    sig = v["r"] + v["s"]
    assert c.verify_with_sm3(sig, bytes.fromhex(v["message"]))
    assert not c.verify_with_sm3(sig, b"message digesT")


def test_sm2_official_encrypt_vector_decrypts() -> None:
    v = next(s for s in load_vectors("sm2.json")["encrypt"] if s["curve"] == "sm2p256v1")
    ct = bytes.fromhex(v["ciphertext_c1c3c2"])
    c = compat.sm2.CryptSM2(private_key=v["private_key"], public_key="", mode=1)
    assert c.decrypt(ct[1:]) == bytes.fromhex(v["message"])


# ---- interop with the real gmssl package, both ways -----------------------------------------


def _their_encrypt(theirs: Any, msg: bytes) -> bytes:
    """The real gmssl's encrypt, retried: about 1 call in 500 it returns None
    (a bug of the gmssl package, seen with random keys; its output is
    otherwise a valid ciphertext)."""
    for _ in range(20):
        ct = theirs.encrypt(msg)
        if ct is not None:
            return bytes(ct)
    raise AssertionError("gmssl's encrypt returned None 20 times in a row")


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("size", [1, 31, 32, 33, 200])
def test_encryption_crosses_both_ways(mode: int, size: int) -> None:
    priv, pub = _keypair()
    theirs = gmssl.sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode)
    ours = compat.sm2.CryptSM2(private_key=priv, public_key=pub, mode=mode)
    msg = bytes(range(size % 256)) * (size // 256) + bytes(range(size % 256))
    msg = msg[:size] or b"x"
    assert ours.decrypt(_their_encrypt(theirs, msg)) == msg
    assert theirs.decrypt(ours.encrypt(msg)) == msg
    assert len(ours.encrypt(msg)) == len(_their_encrypt(theirs, msg)) == 64 + 32 + len(msg)


@pytest.mark.parametrize("asn1", [False, True])
def test_signatures_cross_both_ways(asn1: bool) -> None:
    priv, pub = _keypair()
    theirs = gmssl.sm2.CryptSM2(private_key=priv, public_key=pub, asn1=asn1)
    ours = compat.sm2.CryptSM2(private_key=priv, public_key=pub, asn1=asn1)
    for data in (b"a", b"message digest", bytes(1000)):
        assert ours.verify_with_sm3(theirs.sign_with_sm3(data), data)
        assert theirs.verify_with_sm3(ours.sign_with_sm3(data), data)
        digest = bytes.fromhex(gmssl.sm3.sm3_hash(list(data)))
        k = gmssl.func.random_hex(64)
        assert ours.verify(theirs.sign(digest, k), digest)
        assert theirs.verify(ours.sign(digest, k), digest)
        assert not ours.verify_with_sm3(theirs.sign_with_sm3(data), data + b"!")
    # ours matches the main API: an SM3withSM2 signature is an ordinary raw/DER signature
    sig = bytes.fromhex(ours.sign_with_sm3(b"m"))
    msm2.PublicKey.from_bytes(bytes.fromhex("04" + pub)).verify(sig, b"m", encoding="der" if asn1 else "raw")


@pytest.mark.parametrize("padding", [0, 1])
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 48])
def test_sm4_bytes_match_gmssl(padding: int, size: int) -> None:
    key, iv, data = bytes(range(16)), bytes(range(16, 32)), bytes(range(size))
    outs = {}
    for name, lib in (("gmssl", gmssl), ("compat", compat)):
        c = lib.sm4.CryptSM4(padding_mode=padding)
        c.set_key(key, lib.sm4.SM4_ENCRYPT)
        outs[name] = (c.crypt_ecb(data), c.crypt_cbc(iv, data))
    assert outs["gmssl"] == outs["compat"]
    c = compat.sm4.CryptSM4(padding_mode=padding)
    c.set_key(key, compat.sm4.SM4_DECRYPT)
    assert c.crypt_cbc(iv, outs["gmssl"][1]) == data
    if padding == 0 or not data.endswith(b"\0"):
        assert c.crypt_ecb(outs["gmssl"][0]) == data


@pytest.mark.parametrize(
    "name", ["xor", "rotl", "get_uint32_be", "put_uint32_be", "pkcs7_padding", "zero_padding", "bytes_to_list"]
)
def test_func_helpers_match(name: str) -> None:
    args = {
        "xor": ([1, 2, 3], [3, 2, 1]),
        "rotl": (0x80000001, 3),
        "get_uint32_be": ([1, 2, 3, 4],),
        "put_uint32_be": (0x01020304,),
        "pkcs7_padding": ([1, 2, 3],),
        "zero_padding": ([1] * 16,),
        "bytes_to_list": (b"\x00\xff",),
    }[name]
    assert getattr(compat.func, name)(*args) == getattr(gmssl.func, name)(*args)


# ---- the fixes --------------------------------------------------------------------------------


def test_caller_nonce_is_ignored() -> None:
    # gmssl: the same K twice gives the same r, and two such signatures give away the key.
    priv, pub = _keypair()
    theirs = gmssl.sm2.CryptSM2(private_key=priv, public_key=pub)
    ours = compat.sm2.CryptSM2(private_key=priv, public_key=pub)
    d1, d2, k = bytes(31) + b"\x01", bytes(31) + b"\x02", "1" * 64
    r1, r2 = theirs.sign(d1, k)[:64], theirs.sign(d2, k)[:64]
    assert int(r1, 16) - int(r2, 16) == -1  # same k·G: r differs exactly by e
    o1, o2 = ours.sign(d1, k)[:64], ours.sign(d2, k)[:64]
    assert abs(int(o1, 16) - int(o2, 16)) != 1
    assert ours.sign(d1, k) != ours.sign(d1, k)


def test_random_hex_is_hex_of_the_length() -> None:
    values = {compat.func.random_hex(64) for _ in range(50)}
    assert len(values) == 50
    assert all(len(v) == 64 and int(v, 16) >= 0 for v in values)
    assert len(compat.func.random_hex(7)) == 7


def test_c3_is_checked() -> None:
    priv, pub = _keypair()
    theirs = gmssl.sm2.CryptSM2(private_key=priv, public_key=pub)
    ours = compat.sm2.CryptSM2(private_key=priv, public_key=pub)
    ct = bytearray(_their_encrypt(theirs, b"attack at dawn"))
    ct[64] ^= 1  # first byte of C2
    assert theirs.decrypt(bytes(ct)) != b"attack at dawn"  # gmssl: garbage, no error
    with pytest.raises(DecryptionError):
        ours.decrypt(bytes(ct))


def test_public_key_with_04_prefix_parsed_right() -> None:
    # x starting with 0 or 4: gmssl's lstrip("04") eats those digits too.
    priv, pub = _keypair(first_digit_ok=False)
    ours = compat.sm2.CryptSM2(private_key=priv, public_key="04" + pub)
    assert ours.public_key == pub
    theirs = gmssl.sm2.CryptSM2(private_key=priv, public_key="04" + pub)
    assert theirs.public_key != pub
    assert ours.verify_with_sm3(ours.sign_with_sm3(b"m"), b"m")
    assert gmssl.sm2.CryptSM2(private_key=priv, public_key=pub).decrypt(ours.encrypt(b"m")) == b"m"


def test_errors_instead_of_silence() -> None:
    priv, pub = _keypair()
    ours = compat.sm2.CryptSM2(private_key=priv, public_key=pub)
    with pytest.raises(InvalidInputError):
        ours.decrypt(b"\x00" * 96)
    with pytest.raises(InvalidInputError):
        ours.encrypt(b"")
    with pytest.raises(InvalidKey):
        compat.sm2.CryptSM2(private_key="", public_key="04" + "00" * 64)
    with pytest.raises(InvalidInputError):
        compat.sm2.CryptSM2(private_key=priv, public_key=pub, mode=2)
    with pytest.raises(InvalidInputError):
        compat.sm2.CryptSM2(private_key=priv, public_key=pub, ecc_table={**compat.sm2.default_ecc_table, "b": "00"})
    with pytest.raises(InvalidKey):
        compat.sm2.CryptSM2(private_key="", public_key=pub).sign_with_sm3(b"m")
    assert ours.verify("00" * 64, b"m") is False
    c = compat.sm4.CryptSM4()
    with pytest.raises(InvalidInputError):
        c.crypt_ecb(b"x")  # no key set
    with pytest.raises(InvalidInputError):
        c.set_key(b"short", compat.sm4.SM4_ENCRYPT)
    c.set_key(bytes(16), compat.sm4.SM4_DECRYPT)
    with pytest.raises(InvalidInputError):
        c.crypt_cbc(bytes(16), bytes(16))  # random block: bad padding (gmssl truncates silently)
    with pytest.raises(InvalidInputError):
        compat.func.pkcs7_unpadding([1, 2, 3, 0])


def test_sm3_hash_leaves_callers_list_alone() -> None:
    msg = [0x61, 0x62, 0x63]
    compat.sm3.sm3_hash(msg)
    assert msg == [0x61, 0x62, 0x63]
