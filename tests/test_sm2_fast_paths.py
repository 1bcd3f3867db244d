"""The inline argument checks of the per-operation SM2 methods (sign, verify,
encrypt, decrypt) behave exactly like ``require_bytes``: the same accepted
types, the same TypeError naming the argument, and option errors first.

Expected messages are the ones ``shangmi._buffer.require_bytes`` documents;
the signatures and ciphertexts are checked by round trips and by the pure
Python reference in test_sm2.py, not here.
"""

from __future__ import annotations

import array
from typing import Any, Callable

import pytest

from shangmi import sm2
from shangmi.exceptions import InvalidInputError, ShangmiTypeError

MSG = b"fast path message"


@pytest.fixture(scope="module")
def key() -> sm2.PrivateKey:
    return sm2.PrivateKey.generate()


def _bytes_like(data: bytes) -> list[Any]:
    return [data, bytearray(data), memoryview(data)]


def test_every_bytes_like_type_is_accepted(key: sm2.PrivateKey) -> None:
    pub = key.public_key()
    for msg in _bytes_like(MSG):
        for uid in _bytes_like(b"alice"):
            for encoding in ("der", "raw"):
                sig = key.sign(msg, uid=uid, encoding=encoding)  # type: ignore[arg-type]
                for s in _bytes_like(sig):
                    pub.verify(s, MSG, uid=b"alice", encoding=encoding)  # type: ignore[arg-type]
    for mode in sm2.MODES:
        for pt in _bytes_like(MSG):
            ct = pub.encrypt(pt, mode=mode)  # type: ignore[arg-type]
            for c in _bytes_like(ct):
                assert key.decrypt(c, mode=mode) == MSG  # type: ignore[arg-type]


def test_any_buffer_is_bytes_like(key: sm2.PrivateKey) -> None:
    """Bytes-like means the buffer protocol (the binding's one rule): an
    array works as well as bytes."""
    sig = key.sign(array.array("B", MSG), uid=array.array("B", b"id"))
    key.public_key().verify(array.array("B", sig), MSG, uid=b"id")


@pytest.mark.parametrize("bad", ["text", 5, None, [1, 2]])
def test_non_bytes_arguments_name_the_argument(key: sm2.PrivateKey, bad: Any) -> None:
    pub = key.public_key()
    sig = key.sign(MSG)
    ct = pub.encrypt(MSG)
    cases: list[tuple[str, Callable[[], object]]] = [
        ("message", lambda: key.sign(bad)),
        ("uid", lambda: key.sign(MSG, uid=bad)),
        ("signature", lambda: pub.verify(bad, MSG)),
        ("message", lambda: pub.verify(sig, bad)),
        ("uid", lambda: pub.verify(sig, MSG, uid=bad)),
        ("plaintext", lambda: pub.encrypt(bad)),
        ("ciphertext", lambda: key.decrypt(bad)),
    ]
    for name, call in cases:
        with pytest.raises(TypeError, match=f"^{name}: expected a bytes-like object"):
            call()
    # A str is refused for every argument whatever the others are.
    with pytest.raises(TypeError, match="^message: expected a bytes-like object"):
        key.sign(bad, uid=bad)


def test_option_names_are_checked_by_the_core(key: sm2.PrivateKey) -> None:
    """Option names are parsed by the core's enums (one message each); a name
    of the wrong type is a ShangmiTypeError, never a bare TypeError."""
    pub = key.public_key()
    with pytest.raises(InvalidInputError, match="encoding must be one of 'der', 'raw', got 'DER'"):
        key.sign(MSG, encoding="DER")  # type: ignore[arg-type]
    with pytest.raises(ShangmiTypeError, match="expected a str, got bytes"):
        pub.verify(b"sig", MSG, encoding=b"der")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="mode must be one of 'c1c3c2', 'c1c2c3', 'der', got 'C1C3C2'"):
        pub.encrypt(b"text", mode="C1C3C2")  # type: ignore[arg-type]
    with pytest.raises(ShangmiTypeError, match="expected a str, got int"):
        key.decrypt(b"text", mode=0)  # type: ignore[arg-type]
    with pytest.raises(ShangmiTypeError, match="message: expected a bytes-like object"):
        key.sign("text")  # type: ignore[arg-type]


def test_pool_argument_is_checked(key: sm2.PrivateKey) -> None:
    with pytest.raises(TypeError, match="pool must be a SignaturePool, got int"):
        key.sign(MSG, pool=3)  # type: ignore[arg-type]
    pool = sm2.SignaturePool(2)
    sig = key.sign(MSG, pool=pool)
    assert len(pool) == 1
    key.public_key().verify(sig, MSG)
