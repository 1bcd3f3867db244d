"""``shangmi zuc eea3|eia3|keystream``: 128-EEA3, 128-EIA3 and raw keystream.

Examples::

    shangmi zuc eea3 --key 173d14ba5003731d7a60049470f00a29 --count 66035492 \\
        --bearer 15 --direction 0 -i plain.bin -o cipher.bin
    shangmi zuc eia3 --key ... --count ... --bearer 0 --direction 0 -i msg.bin
    shangmi zuc keystream --key 00..00 --iv 00..00 --bytes 16

COUNT and the keys are hex; bearer and direction are decimal. Keys also come
from ``--key-file FILE`` (raw bytes or hex text) or ``--key-env VAR`` (hex),
which other users cannot see in ``ps``. EEA3 streams its input in 1 MiB
chunks (the 128-EEA3 keystream is ZUC-128 under the IV built from COUNT,
BEARER and DIRECTION); with ``--length-bits`` and for EIA3 the whole input is
read (a MAC over a bit string).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shangmi import zuc
from shangmi.cli._common import add_key_args, hex_arg, open_input, open_output, read_chunks, resolve_key


def _count(text: str) -> int:
    try:
        value = int(text, 16)
    except ValueError:
        raise argparse.ArgumentTypeError(f"count must be hex (up to 8 digits), got {text!r}") from None
    if not 0 <= value < 1 << 32:
        raise argparse.ArgumentTypeError(f"count must be < 2^32 (8 hex digits), got {text!r}")
    return value


def _nonneg(text: str) -> int:
    try:
        value = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got {text!r}")
    return value


def _add_3gpp(p: argparse.ArgumentParser) -> None:
    add_key_args(p, "16-byte key", length=16)
    p.add_argument("--count", required=True, type=_count, metavar="HEX", help="32-bit COUNT as hex")
    p.add_argument("--bearer", required=True, type=_nonneg, metavar="N", help="bearer identity, 0..31")
    p.add_argument("--direction", required=True, type=_nonneg, metavar="D", help="direction bit, 0 or 1")
    p.add_argument("-i", "--in", dest="input", default="-", metavar="FILE", help="input file (default: stdin)")
    p.add_argument("--length-bits", type=_nonneg, metavar="N", help="use only the first N bits (default: all)")


def register(sub: Any) -> None:
    p = sub.add_parser("zuc", help="ZUC: 128-EEA3, 128-EIA3, keystream", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    zsub = p.add_subparsers(dest="zuc_command", required=True, metavar="ACTION")

    e = zsub.add_parser("eea3", help="encrypt/decrypt with 128-EEA3 (its own inverse)")
    _add_3gpp(e)
    e.add_argument("-o", "--out", dest="output", default="-", metavar="FILE", help="output file (default: stdout)")
    e.set_defaults(func=run_eea3)

    m = zsub.add_parser("eia3", help="print the 128-EIA3 MAC as hex")
    _add_3gpp(m)
    m.set_defaults(func=run_eia3)

    k = zsub.add_parser("keystream", help="ZUC-128 (16-byte key) or ZUC-256 (32-byte key) keystream")
    add_key_args(k, "16- or 32-byte key")
    k.add_argument("--iv", required=True, type=hex_arg("IV"), metavar="HEX", help="16-byte IV (ZUC-128), 23/25 (ZUC-256)")
    k.add_argument("--bytes", required=True, type=_nonneg, metavar="N", help="number of keystream bytes")
    k.add_argument("-o", "--out", dest="output", metavar="FILE", help="write raw bytes here instead of printing hex")
    k.set_defaults(func=run_keystream)


def _read_all(path: str) -> bytes:
    with open_input(path) as f:
        return b"".join(read_chunks(f, path))


def run_eea3(args: argparse.Namespace) -> int:
    key = resolve_key(args, (16,))
    assert key is not None
    if args.length_bits is not None:
        out = zuc.eea3(key, args.count, args.bearer, args.direction, _read_all(args.input), length_bits=args.length_bits)
        with open_output(args.output) as f:
            f.write(out)
        return 0
    stream = zuc.EEA3(key, args.count, args.bearer, args.direction)  # checks the parameters
    with open_input(args.input) as src, open_output(args.output) as dst:
        for chunk in read_chunks(src, "eea3"):
            dst.write(stream.update(chunk))
    return 0


def run_eia3(args: argparse.Namespace) -> int:
    key = resolve_key(args, (16,))
    assert key is not None
    data = _read_all(args.input)
    print(zuc.eia3(key, args.count, args.bearer, args.direction, data, length_bits=args.length_bits).hex())
    return 0


def run_keystream(args: argparse.Namespace) -> int:
    gen: zuc.ZUC128 | zuc.ZUC256
    key = resolve_key(args, None)
    assert key is not None
    if len(key) not in (16, 32):
        raise ValueError(f"key must be 16 bytes (ZUC-128) or 32 bytes (ZUC-256), got {len(key)}")
    gen = zuc.ZUC128(key, args.iv) if len(key) == 16 else zuc.ZUC256(key, args.iv)
    if args.output is None:
        print(gen.keystream(args.bytes).hex())
        return 0
    remaining = args.bytes
    with open_output(args.output) as f:
        while remaining:
            n = min(remaining, 1 << 20)
            f.write(gen.keystream(n))
            remaining -= n
    sys.stdout.flush()
    return 0
