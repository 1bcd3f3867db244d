"""Argument shaping shared by the Python modules: type checks that name the
argument (the native core checks every length, range and encoding and owns
those messages). No cryptography here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Union

from shangmi.exceptions import InvalidInputError, ShangmiTypeError

__all__ = ["Buffer", "require_bytes", "require_int"]

if TYPE_CHECKING:
    # Any object with the buffer protocol: what the native code accepts.
    from _typeshed import ReadableBuffer as Buffer
else:
    #: What every function accepts where it says "bytes".
    Buffer = Union[bytes, bytearray, memoryview]

_BYTES = (bytes, bytearray, memoryview)


def require_bytes(value: object, what: str) -> None:
    """Raise :class:`ShangmiTypeError` unless ``value`` is bytes-like (not str)."""
    if not isinstance(value, _BYTES):
        hint = "; encode it first" if isinstance(value, str) else ""
        raise ShangmiTypeError(
            f"{what} must be bytes-like (bytes, bytearray, memoryview), got {type(value).__name__}{hint}"
        )


def require_int(value: object, what: str) -> int:
    """``value`` if it is a non-negative int (not bool); :class:`ShangmiTypeError`
    for another type, :class:`~shangmi.InvalidInputError` if negative (a
    native unsigned parameter cannot carry the sign to the core's checks)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ShangmiTypeError(f"{what} must be an int, got {type(value).__name__}")
    if value < 0:
        raise InvalidInputError(f"{what} must be >= 0, got {value}")
    return value
