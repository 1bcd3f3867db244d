"""One error family: every failure is a ShangmiError of the right kind, with
the core's message, and the common mix-ups are named in the message."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import shangmi
from shangmi import _native, exceptions, sm2, zuc
from shangmi.exceptions import (
    AlreadyFinalized,
    DecryptionError,
    InvalidInputError,
    InvalidKey,
    InvalidSignature,
    ShangmiError,
    ShangmiTypeError,
)

K16 = bytes(16)


def test_new_classes_sit_in_the_hierarchy() -> None:
    assert issubclass(ShangmiTypeError, ShangmiError) and issubclass(ShangmiTypeError, TypeError)
    assert issubclass(AlreadyFinalized, ShangmiError) and not issubclass(AlreadyFinalized, ValueError)
    for name in ("ShangmiTypeError", "AlreadyFinalized"):
        assert getattr(shangmi, name) is getattr(exceptions, name)


def test_native_errors_are_the_package_classes() -> None:
    """The extension raises exactly the classes of shangmi.exceptions (imported once)."""
    with pytest.raises(InvalidKey) as info:
        _native.ZucKeystream.zuc128(bytes(15), K16)
    assert type(info.value) is exceptions.InvalidKey
    with pytest.raises(ShangmiTypeError) as type_info:
        _native.zuc_eea3("key", 0, 0, 0, b"")  # type: ignore[arg-type]
    assert type(type_info.value) is exceptions.ShangmiTypeError
    with pytest.raises(InvalidInputError, match=r"expected an int in \[0, 2\^64 - 1\], got -1"):
        _native.zuc_eea3(K16, -1, 0, 0, b"")
    with pytest.raises(ShangmiTypeError, match="expected an int, got bool"):
        _native.zuc_eea3(K16, True, 0, 0, b"")  # a bool is never a count


_KEY = sm2.PrivateKey.generate()
_PUB = _KEY.public_key()
_SIG = _KEY.sign(b"m")

#: Calls with one argument of a wrong type each.
_WRONG_TYPES: list[tuple[str, Callable[[], Any]]] = [
    ("zuc128 key str", lambda: zuc.ZUC128("k" * 16, K16)),
    ("zuc256 iv int", lambda: zuc.ZUC256(bytes(32), 5)),
    ("keystream float", lambda: zuc.ZUC128(K16, K16).keystream(1.5)),
    ("keystream_words str", lambda: zuc.ZUC128(K16, K16).keystream_words("3")),
    ("eea3 count str", lambda: zuc.eea3(K16, "0", 0, 0, b"")),
    ("eia3 data None", lambda: zuc.eia3(K16, 0, 0, 0, None)),
    ("eea3 length_bits float", lambda: zuc.eea3(K16, 0, 0, 0, b"ab", length_bits=1.0)),
    ("mac tag_bits str", lambda: zuc.zuc256_mac(bytes(32), bytes(23), b"", tag_bits="32")),
    ("eea3_many not iterable", lambda: zuc.eea3_many(5)),
    ("eia3_many item list", lambda: zuc.eia3_many([[K16, 0, 0, 0, b""]])),
    ("eea3_many bytes", lambda: zuc.eea3_many(b"abc")),
    ("public from_bytes str", lambda: sm2.PublicKey.from_bytes("04")),
    ("public from_pem int", lambda: sm2.PublicKey.from_pem(3)),
    ("private from_der list", lambda: sm2.PrivateKey.from_der([1, 2])),
    ("private from_pem max_iterations str", lambda: sm2.PrivateKey.from_pem(b"", max_iterations="9")),
    ("sign message str", lambda: _KEY.sign("m")),
    ("sign uid int", lambda: _KEY.sign(b"m", uid=1)),
    ("sign encoding bytes", lambda: _KEY.sign(b"m", encoding=b"der")),
    ("verify signature None", lambda: _PUB.verify(None, b"m")),
    ("encrypt mode int", lambda: _PUB.encrypt(b"m", mode=1)),
    ("decrypt ciphertext str", lambda: _KEY.decrypt("c")),
    ("to_pem encryption int", lambda: _KEY.to_pem(b"pw", encryption=1)),
    ("to_der password int", lambda: _KEY.to_der(5)),
    ("pool n float", lambda: sm2.SignaturePool(2.0)),
    ("sign pool int", lambda: _KEY.sign(b"m", pool=3)),
    ("sign_many key", lambda: sm2.sign_many(_PUB, [b"m"])),
    ("sign_many message str", lambda: sm2.sign_many(_KEY, [b"m", "n"])),
    ("verify_many not iterable", lambda: sm2.verify_many(7)),
    ("verify_many key bytes", lambda: sm2.verify_many([(b"k", b"m", _SIG)])),
    ("kx role key", lambda: sm2.KeyExchange("initiator", _PUB, _PUB)),
    ("kx length str", lambda: sm2.KeyExchange("initiator", _KEY, _PUB).compute(b"", "16")),
    ("PublicKey()", lambda: sm2.PublicKey()),
]


@pytest.mark.parametrize("call", [c for _, c in _WRONG_TYPES], ids=[n for n, _ in _WRONG_TYPES])
def test_every_wrong_type_is_a_shangmi_type_error(call: Callable[[], Any]) -> None:
    with pytest.raises(ShangmiTypeError):
        call()


def test_malformed_batch_items_name_their_index() -> None:
    with pytest.raises(ShangmiTypeError, match=r"item 0: expected a \(public_key, message, signature\) tuple, got a tuple of 2"):
        sm2.verify_many([(_PUB, b"m")])  # type: ignore[list-item]
    with pytest.raises(ShangmiTypeError, match="item 1: expected a PublicKey first, got bytes"):
        sm2.verify_many([(_PUB, b"m", _SIG), (b"k", b"m", _SIG)])  # type: ignore[list-item]
    with pytest.raises(ShangmiTypeError, match="item 2: expected a bytes-like object"):
        sm2.verify_many([(_PUB, b"m", _SIG)] * 2 + [(_PUB, "m", _SIG)])  # type: ignore[list-item]
    with pytest.raises(ShangmiTypeError, match="message 1: expected a bytes-like object"):
        sm2.sign_many(_KEY, [b"a", 3])  # type: ignore[list-item]
    with pytest.raises(InvalidInputError, match=r"message 2: bearer must be < 32, got 99"):
        zuc.eea3_many([(K16, 0, 0, 0, b"")] * 2 + [(K16, 0, 99, 0, b"")])
    assert sm2.verify_many([(_PUB, b"m", _SIG), (_PUB, b"m", b"junk")]) == [True, False]


def test_lengths_are_capped_before_allocation() -> None:
    ks = zuc.ZUC128(K16, K16)
    with pytest.raises(InvalidInputError, match=r"nbytes must be at most 2147483648 \(2 GiB\) per call, got 1099511627776"):
        ks.keystream(2**40)
    with pytest.raises(InvalidInputError, match="n must be at most 67108864 words"):
        ks.keystream_words(2**40)
    with pytest.raises(InvalidInputError, match="expected an int in"):
        ks.keystream(2**80)
    assert ks.keystream(4) == zuc.ZUC128(K16, K16).keystream(4)  # nothing was consumed


def test_pbkdf2_iterations_above_the_cap_need_max_iterations() -> None:
    pem = _KEY.to_pem(b"pw")  # written with 65536 iterations, below the default cap
    assert sm2.DEFAULT_MAX_ITERATIONS == 100_000
    assert sm2.PrivateKey.from_pem(pem, b"pw").to_bytes() == _KEY.to_bytes()
    with pytest.raises(InvalidKey, match="asks for 65536 PBKDF2 iterations, above the cap of 1000; .*max_iterations=65536"):
        sm2.PrivateKey.from_pem(pem, b"pw", max_iterations=1000)
    der = _KEY.to_der(b"pw")
    with pytest.raises(InvalidKey, match="above the cap of 65535"):
        sm2.PrivateKey.from_der(der, b"pw", max_iterations=65535)
    assert sm2.PrivateKey.from_der(der, b"pw", max_iterations=65536).to_bytes() == _KEY.to_bytes()


def test_pem_allows_only_whitespace_around_one_block() -> None:
    pem = _PUB.to_pem()
    assert sm2.PublicKey.from_pem(b"\n  " + pem + b"\r\n\n") == _PUB
    with pytest.raises(InvalidKey, match="unexpected text before the PEM block"):
        sm2.PublicKey.from_pem(b"junk\n" + pem)
    with pytest.raises(InvalidKey, match="unexpected text after the PEM block"):
        sm2.PublicKey.from_pem(pem + b"junk")
    other = sm2.PrivateKey.generate()
    bundle = pem + other.public_key().to_pem()
    with pytest.raises(InvalidKey, match="expected one PEM block, found 2"):
        sm2.PublicKey.from_pem(bundle)
    assert sm2.PublicKey.from_pem_all(bundle) == [_PUB, other.public_key()]
    with pytest.raises(InvalidKey, match="expected one PEM block, found 2"):
        sm2.PrivateKey.from_pem(_KEY.to_pem() + other.to_pem())


def test_ciphertext_mix_ups_are_named() -> None:
    der = _PUB.encrypt(b"secret", mode="der")
    for mode in ("c1c3c2", "c1c2c3"):
        with pytest.raises(InvalidInputError, match="this looks like a DER SM2Cipher .*; pass mode='der'"):
            _KEY.decrypt(der, mode=mode)  # type: ignore[arg-type]
    # The gmssl package writes C1C2C3 without C1's 04 byte.
    # (One in 256 such ciphertexts has an x starting with 04 and cannot be
    # told from a raw one: draw until x does not.)
    gmssl_style = _PUB.encrypt(b"secret", mode="c1c2c3")[1:]
    while gmssl_style[0] == 0x04:
        gmssl_style = _PUB.encrypt(b"secret", mode="c1c2c3")[1:]
    with pytest.raises(InvalidInputError, match=r"gmssl package's format .* pass b'\\x04' \+ ciphertext with mode='c1c2c3'"):
        _KEY.decrypt(gmssl_style)
    assert _KEY.decrypt(b"\x04" + gmssl_style, mode="c1c2c3") == b"secret"
    raw = _PUB.encrypt(b"secret")
    with pytest.raises(InvalidInputError, match="this looks like a raw ciphertext .* pass mode='c1c3c2' or mode='c1c2c3'"):
        _KEY.decrypt(raw, mode="der")
    # A well-formed ciphertext that does not decrypt stays opaque.
    bad = bytearray(raw)
    bad[-1] ^= 1
    with pytest.raises(DecryptionError) as info:
        _KEY.decrypt(bytes(bad))
    assert str(info.value) == "decryption failed"


def test_signature_under_the_other_default_uid_is_named() -> None:
    openssl_style = _KEY.sign(b"m", uid=b"")  # OpenSSL 3 signs with the empty ID
    with pytest.raises(InvalidSignature, match=r"does not verify with uid=b'1234567812345678' \(the default\), but it does with uid=b'' .*: pass uid=b''"):
        _PUB.verify(openssl_style, b"m")
    with pytest.raises(InvalidSignature, match=r"does not verify with uid=b'' .* but it does with uid=b'1234567812345678' .*: pass uid=b'1234567812345678'"):
        _PUB.verify(_SIG, b"m", uid=b"")
    with pytest.raises(InvalidSignature) as info:
        _PUB.verify(_SIG, b"other message")
    assert str(info.value) == "signature does not verify"
    with pytest.raises(InvalidSignature) as info:
        _PUB.verify(_KEY.sign(b"m", uid=b"alice"), b"m", uid=b"bob")
    assert str(info.value) == "signature does not verify"
