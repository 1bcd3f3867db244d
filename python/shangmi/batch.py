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

import os
from collections.abc import Iterable, Iterator, Sequence
from typing import TypeVar

from shangmi import sm2, sm3
from shangmi._buffer import Buffer, iterable, require_int
from shangmi.exceptions import InvalidInputError, ShangmiTypeError

__all__ = ["chunks", "verify_chunk", "hash_files"]

T = TypeVar("T")

#: One signature to check: (public key bytes as from ``PublicKey.to_bytes()``, message, signature).
Item = tuple[bytes, bytes, bytes]


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Consecutive slices of ``items`` of ``size`` (the last may be shorter)."""
    if require_int(size, "size") < 1:
        raise InvalidInputError(f"chunk size must be at least 1, got {size}")
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        raise ShangmiTypeError(f"items must be a sequence, got {type(items).__name__}")
    for start in range(0, len(items), size):
        yield items[start : start + size]


def verify_chunk(
    items: Iterable[tuple[Buffer, Buffer, Buffer]], *, uid: Buffer = sm2.DEFAULT_UID, encoding: sm2.Encoding = "der"
) -> list[bool]:
    """:func:`shangmi.sm2.verify_many` over ``(public key bytes, message, signature)``
    triples: one bool per item, in order. Each distinct key is parsed once."""
    keys: dict[bytes, sm2.PublicKey] = {}
    triples: list[tuple[sm2.PublicKey, Buffer, Buffer]] = []
    for i, item in enumerate(iterable(items, "items")):
        if not isinstance(item, tuple) or len(item) != 3:
            raise ShangmiTypeError(f"item {i}: expected (public key bytes, message, signature)")
        raw, message, signature = item
        # The cache is keyed by bytes (what executors ship); the native
        # conversion reports any other type.
        pk = keys.get(raw) if type(raw) is bytes else None
        if pk is None:
            pk = sm2.PublicKey.from_bytes(raw)
            if type(raw) is bytes:
                keys[raw] = pk
        triples.append((pk, message, signature))
    return sm2.verify_many(triples, uid=uid, encoding=encoding)


def hash_files(paths: Iterable[str], *, chunk_size: int = 1 << 20) -> list[str]:
    """The SM3 hex digest of each file, read in ``chunk_size`` pieces."""
    require_int(chunk_size, "chunk_size")
    out = []
    for i, path in enumerate(iterable(paths, "paths")):
        if not isinstance(path, (str, os.PathLike)):
            # An int would be taken for a file descriptor (and closed).
            raise ShangmiTypeError(f"path {i}: expected a str or os.PathLike, got {type(path).__name__}")
        h = sm3.SM3()
        with open(path, "rb") as f:
            while block := f.read(chunk_size):
                h.update(block)
        out.append(h.hexdigest())
    return out
