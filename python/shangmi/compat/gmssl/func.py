"""The ``gmssl.func`` helpers, same names and results; ``random_hex`` uses
:mod:`secrets` and the unpadding helpers validate what they strip."""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from shangmi.exceptions import InvalidInputError

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


def xor(a: Sequence[int], b: Sequence[int]) -> list[int]:
    return [x ^ y for x, y in zip(a, b)]


def rotl(x: int, n: int) -> int:
    return ((x << n) & 0xFFFFFFFF) | ((x >> (32 - n)) & 0xFFFFFFFF)


def get_uint32_be(key_data: Sequence[int]) -> int:
    return (key_data[0] << 24) | (key_data[1] << 16) | (key_data[2] << 8) | key_data[3]


def put_uint32_be(n: int) -> list[int]:
    return [(n >> 24) & 0xFF, (n >> 16) & 0xFF, (n >> 8) & 0xFF, n & 0xFF]


def pkcs7_padding(data: list[int], block: int = 16) -> list[int]:
    """Appends 1..16 bytes of value n (always 16-byte blocks, as in gmssl)."""
    n = 16 - len(data) % block
    return data + [n] * n


def zero_padding(data: list[int], block: int = 16) -> list[int]:
    """Appends 1..16 zero bytes (as in gmssl: a whole block when aligned)."""
    return data + [0] * (16 - len(data) % block)


def pkcs7_unpadding(data: Sequence[int]) -> list[int]:
    """Strips PKCS#7 padding; raises :class:`InvalidInputError` if it is not valid
    (gmssl silently returns a truncated or empty list)."""
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
    out = list(data)
    removed = 0
    while out and out[-1] == 0 and removed < 16:
        out.pop()
        removed += 1
    return out


def list_to_bytes(data: Sequence[int]) -> bytes:
    return bytes(data)


def bytes_to_list(data: bytes | bytearray | memoryview) -> list[int]:
    return list(bytes(data))


def random_hex(x: int) -> str:
    """``x`` random hex digits from the CSPRNG (:mod:`secrets`)."""
    if x < 0:
        raise InvalidInputError(f"random_hex: length must be non-negative, got {x}")
    return secrets.token_hex((x + 1) // 2)[:x]
