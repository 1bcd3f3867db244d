"""The ``gmssl.func`` helpers, same names and results; ``random_hex`` uses
:mod:`secrets` and the unpadding helpers validate what they strip."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from shangmi._buffer import require_bytes
from shangmi.exceptions import InvalidInputError, ShangmiTypeError

__all__ = [
    "xor",
    "rotl",
    "get_uint32_be",
    "put_uint32_be",
    "pkcs7_padding",
    "zero_padding",
    "pkcs7_unpadding",
    "zero_unpadding",
    "list_to_bytes",
    "bytes_to_list",
    "random_hex",
]


# These helpers are pure Python (no native call checks their arguments), so
# they check their own: a list of ints (or bytes) and ints, ShangmiTypeError
# otherwise.


def _int(x: object, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise ShangmiTypeError(f"{what} must be an int, got {type(x).__name__}")
    return x


def _ints(data: object, what: str) -> list[int]:
    if isinstance(data, (bytes, bytearray, memoryview)):
        return list(bytes(data))
    if not isinstance(data, Sequence) or isinstance(data, str):
        raise ShangmiTypeError(f"{what} must be a list of ints or bytes, got {type(data).__name__}")
    return [_int(b, f"{what}[{i}]") for i, b in enumerate(data)]


def xor(a: Sequence[int], b: Sequence[int]) -> list[int]:
    return [x ^ y for x, y in zip(_ints(a, "a"), _ints(b, "b"))]


def rotl(x: int, n: int) -> int:
    x, n = _int(x, "x"), _int(n, "n")
    if not 0 <= n <= 32:
        raise InvalidInputError(f"rotl: n must be in [0, 32], got {n}")
    return ((x << n) & 0xFFFFFFFF) | ((x >> (32 - n)) & 0xFFFFFFFF)


def get_uint32_be(key_data: Sequence[int]) -> int:
    k = _ints(key_data, "key_data")
    if len(k) < 4:
        raise InvalidInputError(f"get_uint32_be: need 4 bytes, got {len(k)}")
    return (k[0] << 24) | (k[1] << 16) | (k[2] << 8) | k[3]


def put_uint32_be(n: int) -> list[int]:
    n = _int(n, "n")
    return [(n >> 24) & 0xFF, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF]


def _block(block: object) -> int:
    if _int(block, "block") < 1:
        raise InvalidInputError(f"block must be at least 1, got {block}")
    return block  # type: ignore[return-value]


def pkcs7_padding(data: list[int], block: int = 16) -> list[int]:
    """Appends 1..16 bytes of value n (always 16-byte blocks, as in gmssl)."""
    d = _ints(data, "data")
    n = 16 - len(d) % _block(block)
    return d + [n] * n


def zero_padding(data: list[int], block: int = 16) -> list[int]:
    """Appends 1..16 zero bytes (as in gmssl: a whole block when aligned)."""
    d = _ints(data, "data")
    return d + [0] * (16 - len(d) % _block(block))


def pkcs7_unpadding(data: Sequence[int]) -> list[int]:
    """Strips PKCS#7 padding; raises :class:`InvalidInputError` if it is not valid
    (gmssl silently returns a truncated or empty list)."""
    data = _ints(data, "data")
    if not data:
        raise InvalidInputError("PKCS#7 unpadding: empty input")
    n = data[-1]
    if not 1 <= n <= 16 or n > len(data) or any(b != n for b in data[-n:]):
        raise InvalidInputError("PKCS#7 unpadding: invalid padding (wrong key, IV or mode?)")
    return list(data[:-n])


def zero_unpadding(data: Sequence[int], i: int = 1) -> list[int]:
    """Strips the trailing zero bytes (at most 16). gmssl strips one and returns
    an ``int`` when the last byte is not zero; zero padding is ambiguous for
    data that ends in zeros, so prefer PKCS#7."""
    out = _ints(data, "data")
    removed = 0
    while out and out[-1] == 0 and removed < 16:
        out.pop()
        removed += 1
    return out


def list_to_bytes(data: Sequence[int]) -> bytes:
    d = _ints(data, "data")
    if any(not 0 <= b <= 255 for b in d):
        raise InvalidInputError("list_to_bytes: every item must be in [0, 255]")
    return bytes(d)


def bytes_to_list(data: bytes | bytearray | memoryview) -> list[int]:
    require_bytes(data, "data")
    return list(bytes(data))


def random_hex(x: int) -> str:
    """``x`` random hex digits from the CSPRNG (:mod:`secrets`)."""
    if _int(x, "x") < 0:
        raise InvalidInputError(f"random_hex: length must be non-negative, got {x}")
    return secrets.token_hex((x + 1) // 2)[:x]
