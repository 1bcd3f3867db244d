"""Helpers shared by the CLI subcommands: hex arguments, files, progress."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

#: Streaming chunk size: large enough for the SIMD paths, small enough for memory.
CHUNK = 1 << 20
#: Inputs at least this large get a progress bar (when tqdm is installed and stderr is a tty).
PROGRESS_THRESHOLD = 8 << 20


def hex_arg(what: str, length: int | None = None) -> Any:
    """An argparse ``type=`` that parses hex, optionally of a fixed byte length."""

    def parse(text: str) -> bytes:
        try:
            value = bytes.fromhex(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what} must be hex, got {text!r}") from None
        if length is not None and len(value) != length:
            raise argparse.ArgumentTypeError(f"{what} must be {length} bytes ({2 * length} hex digits), got {len(value)}")
        return value

    return parse


@contextmanager
def open_input(path: str) -> Iterator[IO[bytes]]:
    """``-`` is standard input; anything else a file opened for binary reading."""
    if path == "-":
        yield sys.stdin.buffer
    else:
        with open(path, "rb") as f:
            yield f


@contextmanager
def open_output(path: str) -> Iterator[IO[bytes]]:
    """``-`` is standard output; anything else a file opened for binary writing."""
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
    else:
        with open(path, "wb") as f:
            yield f


def input_size(f: IO[bytes]) -> int | None:
    try:
        return os.fstat(f.fileno()).st_size
    except (OSError, ValueError, AttributeError):
        return None


def read_chunks(f: IO[bytes], label: str = "") -> Iterator[bytes]:
    """Yields the stream in CHUNK-sized pieces, with a progress bar for big inputs."""
    size = input_size(f)
    bar = _progress(size, label)
    try:
        while True:
            chunk = f.read(CHUNK)
            if not chunk:
                break
            if bar is not None:
                bar.update(len(chunk))
            yield chunk
    finally:
        if bar is not None:
            bar.close()


def _progress(size: int | None, label: str) -> Any:
    if size is None or size < PROGRESS_THRESHOLD or not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm  # type: ignore[import-untyped,unused-ignore]  # optional extra: shangmi[cli]
    except ImportError:
        return None
    return tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, desc=label, leave=False, file=sys.stderr)
