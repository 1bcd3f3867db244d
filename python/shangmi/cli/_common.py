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


# -- keys and passwords: never required on the command line -----------------------------


def add_key_args(
    p: argparse.ArgumentParser, what: str = "key", flag: str = "--key", required: bool = True, length: int | None = None
) -> None:
    """Adds ``FLAG``, ``FLAG-file`` and ``FLAG-env`` (one of them; FLAG itself is
    visible to other users in ``ps``, so the file and variable forms are preferred)."""
    dest = flag.lstrip("-").replace("-", "_")
    g = p.add_mutually_exclusive_group(required=False)
    g.add_argument(flag, dest=dest, metavar="HEX", type=_hex_text(what, length), help=f"{what} as hex (visible in ps: prefer {flag}-file/{flag}-env)")
    g.add_argument(
        f"{flag}-file", dest=f"{dest}_file", metavar="FILE",
        help=f"read the {what} from FILE: raw bytes, or hex text (whitespace ignored)",
    )
    g.add_argument(f"{flag}-env", dest=f"{dest}_env", metavar="VAR", help=f"read the {what} as hex from environment variable VAR")
    p.set_defaults(**{f"_{dest}_required": required, f"_{dest}_flag": flag, f"_{dest}_what": what})


def _hex_text(what: str, length: int | None) -> Any:
    check = hex_arg(what, length)

    def parse(text: str) -> str:
        check(text)  # a usage error (exit 2) now rather than later
        return text

    return parse


def resolve_key(args: argparse.Namespace, lengths: tuple[int, ...] | None, flag: str = "--key") -> bytes | None:
    """The key given by :func:`add_key_args`' options, checked against ``lengths``
    (``None``: any length; a file of exactly such a length is raw bytes, else hex
    text); ``None`` if none was given and the key is optional."""
    dest = flag.lstrip("-").replace("-", "_")
    what = getattr(args, f"_{dest}_what")
    text: str | None = getattr(args, dest)
    source = flag
    if getattr(args, f"{dest}_file") is not None:
        path = getattr(args, f"{dest}_file")
        source = f"{flag}-file {path}"
        with open(path, "rb") as f:
            raw = f.read()
        if lengths is not None and len(raw) in lengths:
            return raw
        text = raw.decode("ascii", "replace")
    elif getattr(args, f"{dest}_env") is not None:
        var = getattr(args, f"{dest}_env")
        source = f"{flag}-env {var}"
        text = os.environ.get(var)
        if text is None:
            raise ValueError(f"environment variable {var!r} is not set")
    if text is None:
        if getattr(args, f"_{dest}_required"):
            raise ValueError(f"a {what} is required: give {flag}-file FILE, {flag}-env VAR or {flag} HEX")
        return None
    try:
        key = bytes.fromhex("".join(text.split()))
    except ValueError:
        if lengths is None and getattr(args, f"{dest}_file") is not None:
            return raw  # any length allowed and not hex: the file's bytes are the key
        raise ValueError(f"{what} from {source} must be hex (or, in a file, raw bytes)") from None
    if lengths is not None and len(key) not in lengths:
        sizes = " or ".join(f"{n} bytes ({2 * n} hex digits)" for n in lengths)
        raise ValueError(f"{what} from {source} must be {sizes}, got {len(key)} bytes")
    return key


def password_arg(spec: str | None) -> bytes | None:
    """OpenSSL-style password argument: pass:TEXT, env:VAR, file:PATH (first line), or TEXT."""
    if spec is None:
        return None
    if spec.startswith("pass:"):
        return spec[5:].encode()
    if spec.startswith("env:"):
        value = os.environ.get(spec[4:])
        if value is None:
            raise ValueError(f"environment variable {spec[4:]!r} is not set")
        return value.encode()
    if spec.startswith("file:"):
        with open(spec[5:], "rb") as f:
            return f.readline().rstrip(b"\r\n")
    return spec.encode()


def pbkdf2_sm3(password: bytes, salt: bytes, iterations: int, length: int) -> bytes:
    """PBKDF2-HMAC-SM3 (RFC 8018), as ``openssl enc -pbkdf2 -md sm3`` derives key and IV.

    Uses hashlib's when the Python's OpenSSL has SM3, else the same function on
    :class:`shangmi.sm3.SM3` (copying the keyed inner/outer states once)."""
    import hashlib

    try:
        return hashlib.pbkdf2_hmac("sm3", password, salt, iterations, length)
    except ValueError:
        return pbkdf2_sm3_python(password, salt, iterations, length)


def pbkdf2_sm3_python(password: bytes, salt: bytes, iterations: int, length: int) -> bytes:
    """The pure-Python PBKDF2-HMAC-SM3 behind :func:`pbkdf2_sm3`."""
    import hmac

    from shangmi import sm3

    base = hmac.new(password, digestmod=sm3.SM3)
    out = b""
    block = 1
    while len(out) < length:
        mac = base.copy()
        mac.update(salt + block.to_bytes(4, "big"))
        u = mac.digest()
        acc = int.from_bytes(u, "big")
        for _ in range(iterations - 1):
            mac = base.copy()
            mac.update(u)
            u = mac.digest()
            acc ^= int.from_bytes(u, "big")
        out += acc.to_bytes(32, "big")
        block += 1
    return out[:length]


# -- output files ----------------------------------------------------------------------


def write_secret(path: str, data: bytes) -> None:
    """Writes a private key file: created (or narrowed) to mode 0600 before
    the key lands; ``-`` is stdout."""
    if path == "-":
        with open_output(path) as f:
            f.write(data)
        return
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    if hasattr(os, "fchmod"):
        # The mode above applies only to a new file: an existing one keeps
        # its permissions unless they are narrowed before the key lands.
        os.fchmod(fd, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def umask_mode(mode: int = 0o666) -> int:
    """``mode`` less the process umask: what ``open()`` would give a new file."""
    mask = os.umask(0o22)
    os.umask(mask)
    return mode & ~mask


def read_exact(f: IO[bytes], n: int) -> bytes:
    """Exactly ``n`` bytes (fewer only at end of input), looping over short pipe reads."""
    parts: list[bytes] = []
    got = 0
    while got < n:
        chunk = f.read(n - got)
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def read_file(path: str) -> bytes:
    """The whole of `path` (``-`` is stdin)."""
    with open_input(path) as f:
        return f.read()


def write_file(path: str, data: bytes) -> None:
    """Writes `data` to `path` (``-`` is stdout)."""
    with open_output(path) as f:
        f.write(data)


def read_signature(path: str) -> bytes:
    """A signature file: hex text (what ``--hex`` and gmssl write) is decoded; anything else is binary."""
    raw = read_file(path)
    text = raw.strip()
    if text and len(text) % 2 == 0 and all(c in b"0123456789abcdefABCDEF" for c in text):
        return bytes.fromhex(text.decode())
    return raw
