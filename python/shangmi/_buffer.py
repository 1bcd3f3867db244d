"""Argument checks shared by the Python modules (no cryptography here)."""

from __future__ import annotations

from typing import Union

from shangmi.exceptions import InvalidInputError

#: What every function accepts where it says "bytes".
Buffer = Union[bytes, bytearray, memoryview]


def require_bytes(value: object, what: str) -> None:
    """Raise TypeError unless ``value`` is bytes-like (not str)."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes-like (bytes, bytearray, memoryview), got {type(value).__name__}")


def require_length(value: Buffer, what: str, expected: int) -> None:
    """Raise InvalidInputError unless ``value`` has exactly ``expected`` bytes."""
    require_bytes(value, what)
    got = len(memoryview(value).cast("B")) if isinstance(value, memoryview) else len(value)
    if got != expected:
        raise InvalidInputError(f"{what} must be {expected} bytes, got {got}")
