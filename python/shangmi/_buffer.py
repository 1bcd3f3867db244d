"""Argument checks shared by the Python modules (no cryptography here)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from shangmi.exceptions import InvalidInputError

__all__ = ["Buffer", "require_bytes", "require_length"]

if TYPE_CHECKING:
    # Any object with the buffer protocol: what the native code accepts.
    from _typeshed import ReadableBuffer as Buffer
else:
    #: What every function accepts where it says "bytes".
    Buffer = Union[bytes, bytearray, memoryview]


def require_bytes(value: object, what: str) -> None:
    """Raise TypeError unless ``value`` is bytes-like (not str)."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes-like (bytes, bytearray, memoryview), got {type(value).__name__}")


def require_length(value: Buffer, what: str, expected: int) -> None:
    """Raise InvalidInputError unless ``value`` has exactly ``expected`` bytes."""
    require_bytes(value, what)
    got = memoryview(value).nbytes
    if got != expected:
        raise InvalidInputError(f"{what} must be {expected} bytes, got {got}")
