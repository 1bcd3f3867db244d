"""``gmssl.sm3``: ``sm3_hash`` (list of byte values -> hex) and ``sm3_kdf``.

Unlike gmssl's, ``sm3_hash`` does not append its padding to the caller's list.
"""

from __future__ import annotations

from collections.abc import Iterable

from shangmi import sm3 as _sm3
from shangmi.exceptions import InvalidInputError, ShangmiTypeError

__all__ = ["sm3_hash", "sm3_kdf"]


def _to_bytes(msg: Iterable[int] | bytes | bytearray | memoryview, what: str) -> bytes:
    if isinstance(msg, (bytes, bytearray, memoryview)):
        return bytes(msg)
    try:
        return bytes(list(msg))
    except TypeError as exc:
        raise ShangmiTypeError(f"{what} must be a list of byte values 0..255: {exc}") from None
    except ValueError as exc:
        raise InvalidInputError(f"{what} must be a list of byte values 0..255: {exc}") from None


def sm3_hash(msg: Iterable[int] | bytes | bytearray | memoryview) -> str:
    """The SM3 digest of ``msg`` (a list of ints 0..255, as gmssl takes, or bytes), as 64 hex digits."""
    return _sm3.hash(_to_bytes(msg, "msg")).hex()


def sm3_kdf(z: bytes | str, klen: int | float) -> str:
    """The SM2/SM9 KDF of ``z`` (hex digits, as ASCII bytes like gmssl takes, or a str)
    for ``klen`` bytes, as hex."""
    text = z.decode("ascii") if isinstance(z, (bytes, bytearray)) else z
    if not isinstance(text, str):
        raise ShangmiTypeError(f"z must be hex as bytes or str, got {type(z).__name__}")
    try:
        seed = bytes.fromhex(text)
    except ValueError:
        raise InvalidInputError("z must be hex digits") from None
    if isinstance(klen, bool) or not isinstance(klen, (int, float)):
        raise ShangmiTypeError(f"klen must be a number, got {type(klen).__name__}")
    n = int(klen)
    if n < 0:
        raise InvalidInputError(f"klen must be non-negative, got {klen}")
    if n == 0:
        return ""
    return _sm3.kdf(seed, n).hex()
