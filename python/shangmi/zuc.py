"""ZUC stream cipher (GB/T 33133.1-2016, GM/T 0001-2012): ZUC-128, ZUC-256,
128-EEA3 (confidentiality), 128-EIA3 (integrity) and the ZUC-256 MAC.

Lengths follow the 3GPP specifications: ``length_bits`` may be any number of
bits up to ``8 * len(data)`` (default: all of ``data``). :func:`eea3` returns
``ceil(length_bits / 8)`` bytes with the bits beyond ``length_bits`` set to
zero; the MACs ignore those bits::

    from shangmi import zuc

    ct = zuc.eea3(key, 0x66035492, 15, 0, pt, length_bits=193)
    mac = zuc.eia3(key, count, bearer, direction, msg)          # 4 bytes
    tag = zuc.zuc256_mac(key32, iv, msg, tag_bits=64)           # 8 bytes
    cts = zuc.eea3_many([(key, count, bearer, direction, pt), ...])  # many at once
    zuc.eea3_many_into(msgs, [bytearray(len(m[4])) for m in msgs])  # into your buffers

    ks = zuc.ZUC128(key, iv)
    ks.keystream(10) + ks.keystream(6) == zuc.ZUC128(key, iv).keystream(16)

    enc = zuc.EEA3(key, count, bearer, direction)       # a message in pieces
    enc.update(pt[:100]) + enc.update(pt[100:]) == zuc.eea3(key, count, bearer, direction, pt)

Keystream words are big-endian, as the standards print them. Work on large
inputs releases the GIL. The native core checks every length and range (its
messages are the ones you see); a wrong type raises
:class:`shangmi.ShangmiTypeError`. Options are keyword-only.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NoReturn, Optional, Union

from shangmi import _native
from shangmi._buffer import Buffer
from shangmi.exceptions import ShangmiTypeError

__all__ = [
    "ZUC128",
    "ZUC256",
    "EEA3",
    "eea3",
    "eia3",
    "eea3_many",
    "eea3_many_into",
    "eia3_many",
    "Message",
    "zuc256_mac",
    "backend",
    "KEY_SIZE_128",
    "KEY_SIZE_256",
]

#: Key size of ZUC-128, 128-EEA3 and 128-EIA3 (bytes).
KEY_SIZE_128: int = _native.ZUC_KEY_SIZE_128
#: Key size of ZUC-256 and its MAC (bytes).
KEY_SIZE_256: int = _native.ZUC_KEY_SIZE_256




class _Keystream:
    """Shared behaviour of the ZUC-128 and ZUC-256 keystream generators."""

    __slots__ = ("_state",)

    _state: _native.ZucKeystream

    def keystream(self, nbytes: int) -> bytes:
        """The next ``nbytes`` bytes of keystream (at most 2 GiB per call).

        Calls continue where the previous one stopped, whatever the sizes:
        ``ks.keystream(3) + ks.keystream(5)`` equals the first 8 bytes of a fresh
        generator's ``keystream(8)``.
        """
        return self._state.keystream(nbytes)

    def keystream_words(self, n: int) -> list[int]:
        """The next ``n`` 32-bit keystream words z1, z2, ... as ints.

        Words are the next ``4 * n`` bytes of the stream read big-endian, so
        they are ZUC's own words as long as earlier :meth:`keystream` calls
        used multiples of 4 bytes.
        """
        return self._state.keystream_words(n)

    def __repr__(self) -> str:
        return f"<shangmi.zuc.{type(self).__name__} object>"

    def __reduce__(self) -> NoReturn:
        raise ShangmiTypeError(f"{type(self).__name__} objects hold a secret key and cannot be pickled")


class ZUC128(_Keystream):
    """ZUC-128 keystream generator: 16-byte key, 16-byte IV."""

    __slots__ = ()

    def __init__(self, key: Buffer, iv: Buffer) -> None:
        self._state = _native.ZucKeystream.zuc128(key, iv)


class ZUC256(_Keystream):
    """ZUC-256 keystream generator: 32-byte key and a 23- or 25-byte IV.

    The 25-byte IV carries IV17..IV24 as one 6-bit value per byte (each must
    be < 64); the 23-byte form packs the same 184 bits (GmSSL/gmsm form).
    """

    __slots__ = ()

    def __init__(self, key: Buffer, iv: Buffer) -> None:
        self._state = _native.ZucKeystream.zuc256(key, iv)


class EEA3:
    """128-EEA3 as a stream, for a message that arrives in pieces.

    ``update(piece)`` returns the piece encrypted (or decrypted: EEA3 is its
    own inverse); the pieces joined give ``eea3(key, count, bearer,
    direction, message)`` of the whole message, whatever their sizes. The
    parameters are checked here as :func:`eea3` checks them. (A bit length
    that is not a multiple of 8 needs :func:`eea3`.)
    """

    __slots__ = ("_state",)

    def __init__(self, key: Buffer, count: int, bearer: int, direction: int) -> None:
        self._state = _native.ZucKeystream.eea3(
            key, count, bearer, direction
        )

    def update(self, data: Buffer) -> bytes:
        """``data`` encrypted with the next ``len(data)`` keystream bytes."""
        return self._state.xor(data)

    def __repr__(self) -> str:
        return "<shangmi.zuc.EEA3 object>"

    def __reduce__(self) -> NoReturn:
        raise ShangmiTypeError("EEA3 objects hold a secret key and cannot be pickled")


def eea3(
    key: Buffer, count: int, bearer: int, direction: int, data: Buffer, *, length_bits: int | None = None
) -> bytes:
    """128-EEA3: encrypt (or decrypt, it is its own inverse) ``data``.

    ``count`` is the 32-bit COUNT, ``bearer`` < 32, ``direction`` 0 or 1. Returns
    ``ceil(length_bits / 8)`` bytes, bits beyond ``length_bits`` zero.
    """
    return _native.zuc_eea3(key, count, bearer, direction, data, length_bits)


def eia3(
    key: Buffer, count: int, bearer: int, direction: int, data: Buffer, *, length_bits: int | None = None
) -> bytes:
    """128-EIA3: the 4-byte MAC of the first ``length_bits`` bits of ``data``."""
    return _native.zuc_eia3(key, count, bearer, direction, data, length_bits)


#: One message for :func:`eea3_many` / :func:`eia3_many`:
#: ``(key, count, bearer, direction, data)`` or the same with ``length_bits`` last.
Message = Union[tuple[Buffer, int, int, int, Buffer], tuple[Buffer, int, int, int, Buffer, Optional[int]]]


def eea3_many(messages: Iterable[Message]) -> list[bytes]:
    """128-EEA3 of many independent messages: ``[eea3(*m) for m in messages]``.

    Each message is ``(key, count, bearer, direction, data)`` with an optional
    ``length_bits`` last. On x86-64 with AVX2 and AES-NI the core runs many
    messages at once in SIMD lanes (sixteen in 512-bit registers with
    AVX-512 and GFNI; as base stations do for many bearers),
    which is faster than one at a time; results are identical. Errors name
    the message's index.
    """
    return _native.zuc_eea3_many(messages)


def eea3_many_into(messages: Iterable[Message], outputs: Iterable[Buffer]) -> None:
    """:func:`eea3_many` writing message i's ciphertext into ``outputs[i]``.

    Each output is a writable buffer (``bytearray``, a ``memoryview`` of one,
    an array) of exactly ``ceil(length_bits / 8)`` bytes — ``len(data)`` when
    ``length_bits`` is not given. Reusing the same buffers across calls avoids
    allocating (and page-faulting) a fresh ``bytes`` per message, which is
    what bulk callers want. Outputs must not overlap each other, a key or a
    message (no in-place encryption); wrong counts, lengths, read-only
    buffers and overlaps raise before anything is written.
    """
    _native.zuc_eea3_many_into(messages, outputs)


def eia3_many(messages: Iterable[Message]) -> list[bytes]:
    """128-EIA3 of many independent messages: ``[eia3(*m) for m in messages]``
    (4-byte MACs), computed several at once like :func:`eea3_many`."""
    return _native.zuc_eia3_many(messages)


def zuc256_mac(key: Buffer, iv: Buffer, data: Buffer, *, tag_bits: int = 32, length_bits: int | None = None) -> bytes:
    """The ZUC-256 MAC: a ``tag_bits``/8-byte tag (32, 64 or 128 bits)."""
    return _native.zuc256_mac(key, iv, data, tag_bits, length_bits)


def backend() -> str:
    """The native backend in use.

    ``"gfni-avx512-128"`` (GFNI for S1, AVX-512VL for the F step),
    ``"aesni-avx512-128"`` (AES-NI for S1), ``"gfni-avx2-128"``,
    ``"aesni-avx2-128"`` or ``"portable-32"`` (any CPU); the many-message
    kernel is reported as ``"zuc-lanes"`` by :func:`shangmi.cpu_features`.
    All are constant time and give identical
    results; set ``SHANGMI_CPU_DISABLE`` (``gfni``, ``avx512f``, ``all``)
    before the first import to cap the choice.
    """
    return _native.zuc_backend()
