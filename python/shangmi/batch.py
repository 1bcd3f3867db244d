"""Batch helpers on plain bytes, for any executor that pickles its arguments.

Dask, :mod:`concurrent.futures`, :mod:`multiprocessing`, Ray or Spark can ship
these functions and their arguments (tuples of ``bytes``, lists of paths) to
workers unchanged; each call then uses shangmi's own batch code, which spreads
the chunk over the worker's cores with the GIL released.

Thread cap: the native batch calls run on shangmi's own thread pool, one
thread per logical CPU unless :func:`shangmi.set_num_threads` says otherwise.
On a cluster with several worker processes per machine, give each worker its
share of the cores, e.g. with Dask::

    client.run(shangmi.set_num_threads, 1)

See ``examples/dask_verify.py``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from shangmi import sm2, sm3
from shangmi._buffer import Buffer
from shangmi.exceptions import InvalidInputError

__all__ = ["chunks", "verify_chunk", "hash_files"]

T = TypeVar("T")

#: One signature to check: (public key bytes as from ``PublicKey.to_bytes()``, message, signature).
Item = tuple[bytes, bytes, bytes]


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of ``items`` of ``size`` (the last may be shorter)."""
    if size < 1:
        raise InvalidInputError(f"chunk size must be at least 1, got {size}")
    for start in range(0, len(items), size):
        yield items[start : start + size]


def verify_chunk(
    items: Iterable[tuple[Buffer, Buffer, Buffer]], *, uid: Buffer = sm2.DEFAULT_UID, encoding: sm2.Encoding = "der"
) -> list[bool]:
    """:func:`shangmi.sm2.verify_many` over ``(public key bytes, message, signature)``
    triples: one bool per item, in order. Each distinct key is parsed once."""
    keys: dict[bytes, sm2.PublicKey] = {}
    triples: list[tuple[sm2.PublicKey, Buffer, Buffer]] = []
    for i, item in enumerate(items):
        try:
            raw, message, signature = item
        except (TypeError, ValueError):
            raise InvalidInputError(f"item {i}: expected (public key bytes, message, signature)") from None
        pk = keys.get(bytes(raw))
        if pk is None:
            pk = keys[bytes(raw)] = sm2.PublicKey.from_bytes(raw)
        triples.append((pk, message, signature))
    return sm2.verify_many(triples, uid=uid, encoding=encoding)


def hash_files(paths: Iterable[str], *, chunk_size: int = 1 << 20) -> list[str]:
    """The SM3 hex digest of each file, read in ``chunk_size`` pieces."""
    out = []
    for path in paths:
        h = sm3.SM3()
        with open(path, "rb") as f:
            while block := f.read(chunk_size):
                h.update(block)
        out.append(h.hexdigest())
    return out
