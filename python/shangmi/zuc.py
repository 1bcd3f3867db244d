"""ZUC stream cipher (GB/T 33133.1-2016, GM/T 0001-2012): ZUC-128, ZUC-256,
128-EEA3 (confidentiality), 128-EIA3 (integrity) and the ZUC-256 MAC.

Lengths follow the 3GPP specifications: ``length_bits`` may be any number of
bits up to ``8 * len(data)`` (default: all of ``data``). :func:`eea3` returns
``ceil(length_bits / 8)`` bytes with the bits beyond ``length_bits`` set to
zero; the MACs ignore those bits::

    from shangmi import zuc

    ct = zuc.eea3(key, count=0x66035492, bearer=15, direction=0, data=pt, length_bits=193)
    mac = zuc.eia3(key, count, bearer, direction, msg)          # 4 bytes
    tag = zuc.zuc256_mac(key32, iv, msg, tag_bits=64)           # 8 bytes
    cts = zuc.eea3_many([(key, count, bearer, direction, pt), ...])  # many at once

    ks = zuc.ZUC128(key, iv)
    ks.keystream(10) + ks.keystream(6) == zuc.ZUC128(key, iv).keystream(16)

Keystream words are big-endian, as the standards print them. Work on large
inputs releases the GIL.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn, Optional, Union

from shangmi import _native
from shangmi._buffer import Buffer, require_bytes, require_length
from shangmi.exceptions import InvalidInputError, InvalidKey

__all__ = [
    "ZUC128",
    "ZUC256",
    "eea3",
    "eia3",
    "eea3_many",
    "eia3_many",
    "Message",
    "zuc256_mac",
    "backend",
    "KEY_SIZE_128",
    "KEY_SIZE_256",
]

KEY_SIZE_128 = 16
KEY_SIZE_256 = 32

#: keystream_words() returns a list; beyond this many words use keystream().
_MAX_WORDS = 1 << 26


def _int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    return value


def _check_range(value: object, name: str, limit: int, limit_text: str) -> int:
    v = _int(value, name)
    if v < 0 or v >= limit:
        raise InvalidInputError(f"{name} must be {limit_text}, got {v}")
    return v


def _check_params(count: object, bearer: object, direction: object) -> tuple[int, int, int]:
    c = _check_range(count, "count", 1 << 32, "in [0, 2^32)")
    b = _check_range(bearer, "bearer", 32, "< 32")
    v = _int(direction, "direction")
    if v not in (0, 1):
        raise InvalidInputError(f"direction must be 0 or 1, got {v}")
    return c, b, v


def _nbytes(data: Buffer) -> int:
    return memoryview(data).nbytes


def _check_length_bits(length_bits: object, data: Buffer) -> int | None:
    if length_bits is None:
        return None
    n = _int(length_bits, "length_bits")
    limit = 8 * _nbytes(data)
    if n < 0 or n > limit:
        raise InvalidInputError(f"length_bits must be in [0, 8 * len(data)] = [0, {limit}], got {n}")
    return n


def _count_arg(n: object, what: str) -> int:
    v = _int(n, what)
    if v < 0:
        raise InvalidInputError(f"{what} must be >= 0, got {v}")
    return v


class _Keystream:
    """Shared behaviour of the ZUC-128 and ZUC-256 keystream generators."""

    __slots__ = ("_state",)

    _state: _native.ZucKeystream

    def keystream(self, nbytes: int) -> bytes:
        """The next ``nbytes`` bytes of keystream.

        Calls continue where the previous one stopped, whatever the sizes:
        ``ks.keystream(3) + ks.keystream(5)`` equals the first 8 bytes of a fresh
        generator's ``keystream(8)``.
        """
        return self._state.keystream(_count_arg(nbytes, "nbytes"))

    def keystream_words(self, n: int) -> list[int]:
        """The next ``n`` 32-bit keystream words z1, z2, ... as ints.

        Words are the next ``4 * n`` bytes of the stream read big-endian, so
        they are ZUC's own words as long as earlier :meth:`keystream` calls
        used multiples of 4 bytes.
        """
        n = _count_arg(n, "n")
        if n > _MAX_WORDS:
            raise InvalidInputError(f"n must be at most {_MAX_WORDS} words, got {n}; use keystream() for bulk output")
        return self._state.keystream_words(n)

    def __repr__(self) -> str:
        return f"<shangmi.zuc.{type(self).__name__} object>"

    def __reduce__(self) -> NoReturn:
        raise TypeError(f"{type(self).__name__} objects hold a secret key and cannot be pickled")


class ZUC128(_Keystream):
    """ZUC-128 keystream generator: 16-byte key, 16-byte IV."""

    __slots__ = ()

    def __init__(self, key: Buffer, iv: Buffer) -> None:
        require_length(key, "ZUC-128 key", KEY_SIZE_128)
        require_length(iv, "ZUC-128 IV", 16)
        self._state = _native.ZucKeystream.zuc128(key, iv)


class ZUC256(_Keystream):
    """ZUC-256 keystream generator: 32-byte key and a 23- or 25-byte IV.

    The 25-byte IV carries IV17..IV24 as one 6-bit value per byte (each must
    be < 64); the 23-byte form packs the same 184 bits (GmSSL/gmsm form).
    """

    __slots__ = ()

    def __init__(self, key: Buffer, iv: Buffer) -> None:
        require_length(key, "ZUC-256 key", KEY_SIZE_256)
        require_bytes(iv, "ZUC-256 IV")
        self._state = _native.ZucKeystream.zuc256(key, iv)


def eea3(
    key: Buffer, count: int, bearer: int, direction: int, data: Buffer, length_bits: int | None = None
) -> bytes:
    """128-EEA3: encrypt (or decrypt, it is its own inverse) ``data``.

    ``count`` is the 32-bit COUNT, ``bearer`` < 32, ``direction`` 0 or 1. Returns
    ``ceil(length_bits / 8)`` bytes, bits beyond ``length_bits`` zero.
    """
    require_length(key, "128-EEA3 key", KEY_SIZE_128)
    require_bytes(data, "data")
    c, b, d = _check_params(count, bearer, direction)
    return _native.zuc_eea3(key, c, b, d, data, _check_length_bits(length_bits, data))


def eia3(
    key: Buffer, count: int, bearer: int, direction: int, data: Buffer, length_bits: int | None = None
) -> bytes:
    """128-EIA3: the 4-byte MAC of the first ``length_bits`` bits of ``data``."""
    require_length(key, "128-EIA3 key", KEY_SIZE_128)
    require_bytes(data, "data")
    c, b, d = _check_params(count, bearer, direction)
    return _native.zuc_eia3(key, c, b, d, data, _check_length_bits(length_bits, data))


#: One message for :func:`eea3_many` / :func:`eia3_many`:
#: ``(key, count, bearer, direction, data)`` or the same with ``length_bits`` last.
Message = Union[tuple[Buffer, int, int, int, Buffer], tuple[Buffer, int, int, int, Buffer, Optional[int]]]


def _check_many(messages: Iterable[Message], what: str) -> list[tuple[Buffer, int, int, int, Buffer, int | None]]:
    if isinstance(messages, (bytes, bytearray, memoryview, str)):
        raise TypeError("messages must be an iterable of (key, count, bearer, direction, data[, length_bits]) tuples")
    out: list[tuple[Buffer, int, int, int, Buffer, int | None]] = []
    for i, m in enumerate(messages):
        if not isinstance(m, tuple) or len(m) not in (5, 6):
            raise TypeError(f"message {i}: expected a (key, count, bearer, direction, data[, length_bits]) tuple")
        key, count, bearer, direction, data = m[:5]
        length_bits = m[5] if len(m) == 6 else None
        try:
            require_length(key, f"{what} key", KEY_SIZE_128)
            require_bytes(data, "data")
            c, b, d = _check_params(count, bearer, direction)
            n = _check_length_bits(length_bits, data)
        except (InvalidInputError, InvalidKey) as e:
            raise type(e)(f"message {i}: {e}") from None
        except TypeError as e:
            raise TypeError(f"message {i}: {e}") from None
        out.append((key, c, b, d, data, n))
    return out


def eea3_many(messages: Iterable[Message]) -> list[bytes]:
    """128-EEA3 of many independent messages: ``[eea3(*m) for m in messages]``.

    Each message is ``(key, count, bearer, direction, data)`` with an optional
    ``length_bits`` last. On x86-64 with AVX2 and AES-NI eight messages are
    processed at once in SIMD lanes (as base stations do for many bearers),
    which is faster than one at a time; results are identical. Errors name
    the message's index.
    """
    return _native.zuc_eea3_many(_check_many(messages, "128-EEA3"))


def eia3_many(messages: Iterable[Message]) -> list[bytes]:
    """128-EIA3 of many independent messages: ``[eia3(*m) for m in messages]``
    (4-byte MACs), computed several at once like :func:`eea3_many`."""
    return _native.zuc_eia3_many(_check_many(messages, "128-EIA3"))


def zuc256_mac(key: Buffer, iv: Buffer, data: Buffer, *, tag_bits: int = 32, length_bits: int | None = None) -> bytes:
    """The ZUC-256 MAC: a ``tag_bits``/8-byte tag (32, 64 or 128 bits)."""
    require_length(key, "ZUC-256 key", KEY_SIZE_256)
    require_bytes(iv, "ZUC-256 IV")
    require_bytes(data, "data")
    t = _int(tag_bits, "tag_bits")
    if t not in (32, 64, 128):
        raise InvalidInputError(f"tag_bits must be 32, 64 or 128, got {t}")
    return _native.zuc256_mac(key, iv, data, t, _check_length_bits(length_bits, data))


def backend() -> str:
    """The native backend in use.

    ``"avx512"`` (AES-NI, AVX2, PCLMULQDQ and AVX-512VL), ``"simd"`` (the same
    without AVX-512) or ``"portable"`` (any CPU). All are constant time and
    give identical results; set ``SHANGMI_CPU_DISABLE=all`` (or ``avx512f``)
    before the first import to cap the choice.
    """
    return _native.zuc_backend()
