"""``shangmi sm4 encrypt|decrypt``: SM4 file encryption in ECB, CBC, CTR or GCM mode.

Streams in 1 MiB chunks (progress bar for big inputs via ``read_chunks``).
GCM files are ``ciphertext || 16-byte tag``; decryption writes nothing to the
output unless the tag verifies: plaintext goes to a temporary file next to
OUT (or to a private spool file when OUT is ``-``) and is moved into place
only after the check succeeds. Output files get the umask's mode.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO, Any

from shangmi import sm4
from shangmi.cli._common import (
    add_key_args,
    hex_arg,
    open_input,
    password_arg,
    pbkdf2_sm3,
    read_chunks,
    read_exact,
    resolve_key,
    umask_mode,
)

TAG = 16
SALT_MAGIC = b"Salted__"
#: ``openssl enc -pbkdf2``'s default iteration count.
DEFAULT_ITER = 10000

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

keys (one of):
  --key-file FILE  16 raw bytes, or 32 hex digits as text
  --key-env VAR    32 hex digits in an environment variable
  --key HEX        on the command line (visible to other users in ps)
  --pass SPEC      a password (pass:TEXT, env:VAR, file:PATH): the file is
                   `openssl enc -sm4-cbc -pbkdf2 -md sm3` format, "Salted__",
                   an 8-byte salt, then the ciphertext; key and IV are
                   PBKDF2-HMAC-SM3(password, salt, --iter) (cbc, ctr, ecb)

IVs: with --iv the output is the bare ciphertext, byte for byte what
`openssl enc -sm4-cbc|-sm4-ctr|-sm4-ecb -K KEY -iv IV` writes. Without --iv
(and without --pass), encryption draws a random IV (16 bytes; 12 for gcm) and
writes it first: OUT = IV || ciphertext [|| tag]; decryption without --iv
reads it back from there.
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
    add_key_args(p, "SM4 key", required=False, length=16)
    p.add_argument("--pass", dest="password", metavar="SPEC", help="password: pass:TEXT, env:VAR or file:PATH")
    p.add_argument("--iter", type=int, default=DEFAULT_ITER, help=f"PBKDF2 iterations with --pass (default {DEFAULT_ITER})")
    p.add_argument("--iv", type=hex_arg("IV"), help="IV (cbc, ctr: 16 bytes) or nonce (gcm) in hex (default: random, stored)")
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
        if hasattr(os, "fchmod"):
            os.fchmod(fd, umask_mode())  # mkstemp makes 0600; the output holds no secret
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


def _check_args(args: argparse.Namespace, enc: bool) -> None:
    mode = args.mode
    if args.password is not None:
        if any(getattr(args, a) is not None for a in ("key", "key_file", "key_env")):
            raise ValueError("give either --pass or a key (--key-file, --key-env, --key), not both")
        if mode == "gcm":
            raise ValueError("--pass is for modes cbc, ctr and ecb (openssl enc has no gcm); use a key for gcm")
        if args.iv is not None:
            raise ValueError("--pass derives the IV from the password and salt; remove --iv")
        if args.iter < 1:
            raise ValueError(f"--iter must be at least 1, got {args.iter}")
    iv: bytes | None = args.iv
    if mode == "ecb":
        if iv is not None:
            raise ValueError("ECB takes no IV; remove --iv")
    elif iv is not None and mode in ("cbc", "ctr") and len(iv) != 16:
        raise ValueError(f"IV must be 16 bytes (32 hex digits) for mode {mode}, got {len(iv)}")
    if args.aad and mode != "gcm":
        raise ValueError("--aad is only for mode gcm")
    if args.nopad and mode not in ("cbc", "ecb"):
        raise ValueError("--nopad is only for modes cbc and ecb")


def run(args: argparse.Namespace) -> int:
    mode, enc = args.mode, args.action == "encrypt"
    _check_args(args, enc)
    header = b""
    if args.password is None:
        args.key = resolve_key(args, (16,))
        if args.key is None:
            raise ValueError("an SM4 key is required: give --key-file FILE, --key-env VAR, --key HEX or --pass SPEC")
    label = f"sm4-{mode} {args.action}"
    with open_input(args.input) as src:
        if args.password is not None:
            password = password_arg(args.password)
            assert password is not None
            if enc:
                salt = secrets.token_bytes(8)
                header = SALT_MAGIC + salt
            else:
                head = read_exact(src, 16)
                if len(head) < 16 or head[:8] != SALT_MAGIC:
                    raise ValueError("input does not start with 'Salted__' and a salt: not a --pass file")
                salt = head[8:]
            material = pbkdf2_sm3(password, salt, args.iter, 16 if mode == "ecb" else 32)
            args.key, args.iv = material[:16], (material[16:] or None)
        elif mode != "ecb" and args.iv is None:
            n = 12 if mode == "gcm" else 16
            if enc:
                args.iv = header = secrets.token_bytes(n)
            else:
                args.iv = read_exact(src, n)
                if len(args.iv) < n:
                    raise ValueError(f"input too short for its {n}-byte IV prefix (or give --iv)")
        if mode == "gcm" and not enc:
            return _gcm_decrypt(args, src, label)
        with _plain_output(args.output) as dst:
            dst.write(header)
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
