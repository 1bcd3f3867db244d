"""Behaviour shared by the key classes of :mod:`shangmi.sm2` and
:mod:`shangmi.sm9`: argument shaping for key files (passwords, PEM text),
value semantics for public keys, and the refusal to pickle secrets.
No cryptography here."""

from __future__ import annotations

import hmac as _hmac
from typing import ClassVar, NoReturn

from shangmi._buffer import Buffer, require_bytes
from shangmi.exceptions import InvalidInputError, InvalidTag, ShangmiTypeError

__all__ = ["KeyExchangeResultBase", "PublicKeyMixin", "SecretKeyMixin", "password_bytes", "pem_bytes"]


def password_bytes(password: Buffer | str | None) -> Buffer | None:
    """``None``, or the password with a ``str`` UTF-8 encoded; an empty
    password is refused (give none for an unencrypted key). Any other type
    goes to the native conversion, which reports it."""
    if isinstance(password, str):
        password = password.encode("utf-8")
    if isinstance(password, (bytes, bytearray, memoryview)) and len(password) == 0:
        raise InvalidInputError("password must not be empty (give no password for an unencrypted key)")
    return password


def pem_bytes(data: Buffer | str) -> Buffer:
    """PEM text as bytes (non-ASCII characters become ``?``, which the core's
    PEM parser rejects with its own message)."""
    if isinstance(data, str):
        data = data.encode("ascii", "replace")
    return data


class PublicKeyMixin:
    """Value semantics for an immutable public key: equal and hashed by its
    default ``to_bytes()``, and pickled as ``type(key).from_bytes(key.to_bytes())``."""

    __slots__ = ()

    def to_bytes(self) -> bytes:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self.to_bytes() == other.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __reduce__(self) -> tuple[object, tuple[bytes]]:
        return (getattr(type(self), "from_bytes"), (self.to_bytes(),))


class SecretKeyMixin:
    """A key holding a secret: it never crosses a process boundary by accident
    (pickling raises :class:`ShangmiTypeError` naming the explicit export),
    and copying returns the same immutable object."""

    __slots__ = ()
    #: How the refusal names the key ("SM2 private keys").
    _SECRET_NAME: ClassVar[str] = "private keys"

    def __reduce__(self) -> NoReturn:
        raise ShangmiTypeError(
            f"{self._SECRET_NAME} cannot be pickled; export one explicitly with "
            f"key.to_pem(password=...) and load it with {type(self).__name__}.from_pem(data, password=...)"
        )

    def __copy__(self) -> SecretKeyMixin:
        return self

    def __deepcopy__(self, memo: object) -> SecretKeyMixin:
        return self


class KeyExchangeResultBase:
    """The outcome of a key exchange (SM2 or SM9): ``key``; ``confirmation``
    to send the peer (S_A from the initiator, S_B from the responder);
    ``expected_confirmation``, what the peer should send back."""

    __slots__ = ("key", "confirmation", "expected_confirmation")
    #: Names the algorithm in messages ("SM2").
    _ALGORITHM: ClassVar[str] = ""

    def __init__(self, key: bytes, confirmation: bytes, expected_confirmation: bytes) -> None:
        self.key = key
        self.confirmation = confirmation
        self.expected_confirmation = expected_confirmation

    def check_confirmation(self, received: Buffer) -> None:
        """Raises :class:`InvalidTag` unless ``received`` is the peer's correct
        confirmation value (compared in constant time)."""
        require_bytes(received, "confirmation")
        if not _hmac.compare_digest(bytes(received), self.expected_confirmation):
            raise InvalidTag(f"{self._ALGORITHM} key exchange confirmation value does not match")

    def __repr__(self) -> str:
        return f"<{type(self).__module__}.{type(self).__name__} key_length={len(self.key)}>"
