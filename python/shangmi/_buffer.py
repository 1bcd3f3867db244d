"""Argument shapes shared by the Python modules. No cryptography here.

Arguments that go to the native module are passed through unchecked: the
binding converts them (any buffer-protocol object is bytes-like) and the
core validates them, each once (see ``crates/shangmi-python/src/lib.rs``).
The helpers here serve the pure-Python parts only (the X.509 value
classes, ``batch``, ``compat.gmssl``) and the unwrapping of the package's
own wrapper objects; each raises :class:`ShangmiTypeError` for a wrong type."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, NoReturn, TypeVar, Union

from shangmi.exceptions import InvalidInputError, ShangmiTypeError

__all__ = ["Buffer", "as_bytes", "duck", "instance", "instances", "iterable", "require_bytes", "require_int"]

if TYPE_CHECKING:
    # Any object with the buffer protocol: what the native code accepts.
    from _typeshed import ReadableBuffer as Buffer
else:
    #: What every function accepts where it says "bytes".
    Buffer = Union[bytes, bytearray, memoryview]

_BYTES = (bytes, bytearray, memoryview)


def _not_bytes(value: object, what: str) -> NoReturn:
    hint = "; encode it first" if isinstance(value, str) else ""
    raise ShangmiTypeError(
        f"{what} must be bytes-like (bytes, bytearray, memoryview), got {type(value).__name__}{hint}"
    )


def require_bytes(value: object, what: str) -> None:
    """Raise :class:`ShangmiTypeError` unless ``value`` is bytes-like (not str)."""
    if not isinstance(value, _BYTES):
        _not_bytes(value, what)


def as_bytes(value: object, what: str) -> bytes:
    """``bytes(value)`` for a bytes-like ``value`` (for pure-Python code that
    keeps a copy); :class:`ShangmiTypeError` otherwise."""
    if not isinstance(value, _BYTES):
        _not_bytes(value, what)
    return bytes(value)


def require_int(value: object, what: str) -> int:
    """``value`` if it is a non-negative int (not bool); :class:`ShangmiTypeError`
    for another type, :class:`~shangmi.InvalidInputError` if negative (a
    native unsigned parameter cannot carry the sign to the core's checks)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ShangmiTypeError(f"{what} must be an int, got {type(value).__name__}")
    if value < 0:
        raise InvalidInputError(f"{what} must be >= 0, got {value}")
    return value


T = TypeVar("T")


def iterable(value: Iterable[T], what: str) -> Iterable[T]:
    """``value`` if it is an iterable of items (not a str or bytes-like object,
    whose iteration gives characters or ints); :class:`ShangmiTypeError` otherwise."""
    if isinstance(value, (str, *_BYTES)) or not isinstance(value, Iterable):
        raise ShangmiTypeError(f"{what} must be an iterable, got {type(value).__name__}")
    return value


def instance(value: object, cls: type[T] | tuple[type, ...], what: str) -> T:
    """``value`` if it is a ``cls`` (one of the package's own wrapper classes,
    whose native object the caller then passes on); :class:`ShangmiTypeError`
    otherwise. This unwrapping is a shape, not a check the core repeats."""
    if not isinstance(value, cls):
        names = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise ShangmiTypeError(f"{what} must be a {names}, got {type(value).__name__}")
    return value  # type: ignore[return-value]


def instances(values: Iterable[object], cls: type[T] | tuple[type, ...], what: str) -> list[T]:
    """Every item of ``values`` through :func:`instance`; a bad one is named by index."""
    return [instance(v, cls, f"{what}[{i}]") for i, v in enumerate(iterable(values, what))]


def duck(value: T, methods: tuple[str, ...], what: str) -> T:
    """``value`` if it has every method in ``methods`` (a protocol such as
    ``Signer``); :class:`ShangmiTypeError` naming the first missing one."""
    for m in methods:
        if not callable(getattr(value, m, None)):
            raise ShangmiTypeError(f"{what} must have a {m}() method, got {type(value).__name__}")
    return value
