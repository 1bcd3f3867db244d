"""``shangmi sm4 encrypt|decrypt``: SM4 file encryption in ECB, CBC, CTR or GCM mode.

Streams in 1 MiB chunks (progress bar for big inputs via ``read_chunks``).
GCM files are ``ciphertext || 16-byte tag``; decryption writes nothing to the
output unless the tag verifies: plaintext goes to a temporary file next to
OUT (or to a private spool file when OUT is ``-``) and is moved into place
only after the check succeeds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from shangmi import sm4
from shangmi.cli._common import hex_arg, open_input, read_chunks

TAG = 16

DESCRIPTION = """\
Encrypt or decrypt a file with SM4 (streaming; any size).

modes:
  cbc  PKCS#7 padding unless --nopad (then the input must be whole 16-byte blocks)
  ctr  the 16-byte IV is the initial counter (128-bit big-endian increment)
  ecb  no IV; PKCS#7 padding unless --nopad (leaks repeated blocks: legacy only)
  gcm  the IV is the nonce (12 bytes recommended; never reuse one with a key);
       the output is ciphertext followed by the 16-byte tag. Decryption writes
       NOTHING to OUT unless the tag verifies (plaintext is kept in a temporary
       file next to OUT and renamed into place on success).

The byte formats match `openssl enc -sm4-cbc|-sm4-ctr|-sm4-ecb -K KEY -iv IV`.
Without -o/--output (or with -o -) the result goes to standard output.
"""


def register(sub: Any) -> None:
    """Adds ``shangmi sm4 encrypt|decrypt``."""
    p = sub.add_parser(
        "sm4",
        help="SM4 file encryption (gcm, cbc, ctr, ecb)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", choices=["encrypt", "decrypt"])
    p.add_argument("--mode", required=True, choices=["gcm", "cbc", "ctr", "ecb"])
    p.add_argument("--key", required=True, type=hex_arg("key", 16), help="16-byte key as 32 hex digits")
    p.add_argument("--iv", type=hex_arg("IV"), help="IV (cbc, ctr: 16 bytes) or nonce (gcm) in hex")
    p.add_argument("--aad", type=hex_arg("AAD"), default=b"", help="associated data for gcm, in hex")
    p.add_argument("--nopad", action="store_true", help="no PKCS#7 padding (cbc, ecb)")
    p.add_argument("-i", "--input", default="-", help="input file (default: standard input)")
    p.add_argument("-o", "--output", default="-", help="output file (default: standard output)")
    p.set_defaults(func=run)


@contextmanager
def _atomic_output(path: str) -> Iterator[IO[bytes]]:
    """Yields a file that becomes ``path`` only if the block completes without error."""
    if path == "-":
        # Spool privately, then copy to stdout after success.
        with tempfile.TemporaryFile() as spool:
            yield spool
            spool.seek(0)
            shutil.copyfileobj(spool, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        return
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".shangmi-", suffix=".part", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


@contextmanager
def _plain_output(path: str) -> Iterator[IO[bytes]]:
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
    else:
        with _atomic_output(path) as f:
            yield f


def run(args: argparse.Namespace) -> int:
    mode, enc = args.mode, args.action == "encrypt"
    iv: bytes | None = args.iv
    if mode == "ecb":
        if iv is not None:
            raise ValueError("ECB takes no IV; remove --iv")
    elif iv is None:
        raise ValueError(f"--iv is required for mode {mode}")
    elif mode in ("cbc", "ctr") and len(iv) != 16:
        raise ValueError(f"IV must be 16 bytes (32 hex digits) for mode {mode}, got {len(iv)}")
    if args.aad and mode != "gcm":
        raise ValueError("--aad is only for mode gcm")
    if args.nopad and mode not in ("cbc", "ecb"):
        raise ValueError("--nopad is only for modes cbc and ecb")
    label = f"sm4-{mode} {args.action}"
    with open_input(args.input) as src:
        if mode == "gcm" and not enc:
            return _gcm_decrypt(args, src, label)
        with _plain_output(args.output) as dst:
            ctx = _context(args, enc)
            for chunk in read_chunks(src, label):
                dst.write(ctx.update(chunk))
            dst.write(ctx.finalize())
            if mode == "gcm":
                assert isinstance(ctx, sm4.GCMEncryptionContext)
                dst.write(ctx.tag)
    return 0


def _context(args: argparse.Namespace, enc: bool) -> sm4.CipherContext:
    pad = not args.nopad
    if args.mode == "gcm":
        return sm4.SM4GCM(args.key).encryptor(args.iv, args.aad)
    if args.mode == "ctr":
        return sm4.SM4CTR(args.key).encryptor(args.iv)
    if args.mode == "cbc":
        c = sm4.SM4CBC(args.key)
        return c.encryptor(args.iv, padding=pad) if enc else c.decryptor(args.iv, padding=pad)
    return _EcbContext(sm4.SM4ECB(args.key), enc, pad)


class _EcbContext(sm4.CipherContext):
    """ECB has no streaming API of its own: feed it whole blocks, keep the
    last one back when unpadding."""

    __slots__ = ("_ecb", "_enc", "_pad", "_buf")

    def __init__(self, ecb: sm4.SM4ECB, enc: bool, pad: bool) -> None:
        self._ecb, self._enc, self._pad, self._buf = ecb, enc, pad, b""

    def update(self, data: Any) -> bytes:
        self._buf += bytes(data)
        n = len(self._buf) // 16 * 16
        if self._pad and not self._enc and n == len(self._buf) and n:
            n -= 16
        head, self._buf = self._buf[:n], self._buf[n:]
        return self._ecb.encrypt(head, padding=False) if self._enc else self._ecb.decrypt(head, padding=False)

    def finalize(self) -> bytes:
        if self._enc:
            return self._ecb.encrypt(self._buf, padding=self._pad)
        return self._ecb.decrypt(self._buf, padding=self._pad)


def _gcm_decrypt(args: argparse.Namespace, src: IO[bytes], label: str) -> int:
    ctx = sm4.SM4GCM(args.key).decryptor(args.iv, aad=args.aad)
    held = b""  # the last TAG bytes seen so far: they may be the tag
    with _atomic_output(args.output) as dst:
        for chunk in read_chunks(src, label):
            data = held + chunk
            held = data[-TAG:]
            dst.write(ctx.update(data[:-TAG]))
        if len(held) < TAG:
            raise ValueError(f"GCM input too short: {len(held)} bytes, need at least the {TAG}-byte tag")
        ctx.finalize_with_tag(held)
    return 0
