"""SM3 hash (GB/T 32905-2016), HMAC-SM3 and the SM2/SM9 key derivation function.

:class:`SM3` follows the :mod:`hashlib` protocol, so it works wherever a
hashlib constructor does::

    import hmac
    from shangmi import sm3

    sm3.SM3(b"abc").hexdigest()
    hmac.new(key, msg, digestmod=sm3.SM3).digest()
"""

from __future__ import annotations

from collections.abc import Iterable

from shangmi import _native
from shangmi._buffer import Buffer

__all__ = ["SM3", "new", "hash", "hash_many", "hmac", "hmac_many", "kdf", "backend", "MAX_KDF_LEN", "DIGEST_SIZE", "BLOCK_SIZE"]

DIGEST_SIZE = 32
#: Most bytes one :func:`kdf` call returns.
MAX_KDF_LEN: int = _native.SM3_MAX_KDF_LEN
BLOCK_SIZE = 64


class SM3:
    """An SM3 hash object with the hashlib interface."""

    name = "sm3"
    digest_size = DIGEST_SIZE
    block_size = BLOCK_SIZE

    __slots__ = ("_state",)

    def __init__(self, data: Buffer = b"", *, usedforsecurity: bool = True) -> None:
        self._state = _native.Sm3Hasher()
        if data:
            self.update(data)

    def update(self, data: Buffer) -> None:
        """Absorb more data (bytes, bytearray or memoryview)."""
        self._state.update(data)

    def digest(self) -> bytes:
        """The 32-byte digest of everything absorbed so far."""
        return self._state.digest()

    def hexdigest(self) -> str:
        """:meth:`digest` as lowercase hex."""
        return self._state.digest().hex()

    def copy(self) -> SM3:
        """An independent copy of the current state."""
        other = SM3.__new__(SM3)
        other._state = self._state.copy()
        return other

    def __repr__(self) -> str:
        return "<shangmi.sm3.SM3 object>"


def new(data: Buffer = b"") -> SM3:
    """Same as ``SM3(data)``, for code that expects a ``hashlib.new``-style factory."""
    return SM3(data)


def hash(data: Buffer) -> bytes:  # noqa: A001 - the natural name in this namespace
    """SM3 digest of ``data`` in one call."""
    return _native.sm3_hash(data)


def hash_many(messages: Iterable[Buffer]) -> list[bytes]:
    """SM3 digests of many messages in one call.

    Messages of similar length are hashed side by side (16 at a time with
    AVX-512, 8 with AVX2) and batches are spread over all cores. The GIL is
    released while hashing, and the list of digests comes back in the order
    of ``messages``.
    """
    return _native.sm3_hash_many(messages)


def hmac(key: Buffer, data: Buffer) -> bytes:
    """HMAC-SM3 of ``data`` under ``key`` (any key length, RFC 2104)."""
    return _native.sm3_hmac(key, data)


def hmac_many(key: Buffer, messages: Iterable[Buffer]) -> list[bytes]:
    """HMAC-SM3 of each of ``messages`` under one ``key``, in order.

    The inner and outer hashes run side by side as in :func:`hash_many`
    (16 at a time with AVX-512, 8 with AVX2, spread over all cores); the
    result equals ``[hmac(key, m) for m in messages]``. The GIL is
    released while hashing.
    """
    return _native.sm3_hmac_many(key, messages)


def kdf(z: Buffer, length: int) -> bytes:
    """The key derivation function of GB/T 32918.4 (SM2) and GM/T 0044 (SM9).

    Returns ``length`` bytes: SM3(z || 1) || SM3(z || 2) || ... truncated;
    at most ``MAX_KDF_LEN`` (1 GiB) per call.
    """
    return _native.sm3_kdf(z, length)


def backend() -> str:
    """The compression kernel in use: on x86-64 ``"avx512-256"``, ``"avx2-256"`` or
    ``"bmi2-32"``; on aarch64 ``"sm3ce-128"`` (the SM3 instructions) or ``"neon-128"``
    (NEON message expansion); elsewhere ``"portable-32"``.

    All give identical digests; ``SHANGMI_CPU_DISABLE`` (see
    :func:`shangmi.cpu_features`) caps the choice.
    """
    return _native.sm3_backend()
