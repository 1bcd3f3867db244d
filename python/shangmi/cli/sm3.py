"""``shangmi sm3 [FILE ...]``: digests like sha256sum, with ``-c`` and ``--tag``.

Output lines are ``HEX  NAME`` (or, with ``--tag``, BSD style ``SM3 (NAME) = HEX``);
``-c`` reads either form back, prints ``NAME: OK`` or ``NAME: FAILED`` per line
and exits 1 if anything failed. With an HMAC key (``--hmac-key-file``,
``--hmac-key-env`` or ``--hmac-key``) every digest is HMAC-SM3 instead, and the
tag is ``HMAC-SM3``.
"""

from __future__ import annotations

import argparse
import re
import sys
from typing import Any

from shangmi import sm3
from shangmi.cli._common import add_key_args, open_input, read_chunks, resolve_key

_PLAIN = re.compile(r"^([0-9a-fA-F]{64}) [ *](.+)$")
_TAGGED = re.compile(r"^(SM3|HMAC-SM3) \((.+)\) = ([0-9a-fA-F]{64})$")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "sm3", help="SM3 digest (or HMAC-SM3) of files", description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("files", nargs="*", default=["-"], metavar="FILE", help="files to hash; - is standard input (default)")
    p.add_argument("-c", "--check", action="store_true", help="read digests from the FILEs and check them")
    p.add_argument("--tag", action="store_true", help="print BSD-style lines: SM3 (FILE) = HEX")
    p.add_argument("--quiet", action="store_true", help="with -c: do not print OK lines")
    p.add_argument("--status", action="store_true", help="with -c: print nothing; the exit status tells")
    add_key_args(p, "HMAC key", flag="--hmac-key", required=False)
    p.set_defaults(func=run)


def _digest(name: str, key: bytes | None) -> str:
    with open_input(name) as f:
        if key is not None:
            import hmac as std_hmac

            mac = std_hmac.new(key, digestmod=sm3.SM3)
            for chunk in read_chunks(f, name):
                mac.update(chunk)
            return mac.hexdigest()
        h = sm3.SM3()
        for chunk in read_chunks(f, name):
            h.update(chunk)
        return h.hexdigest()


def run(args: argparse.Namespace) -> int:
    key = resolve_key(args, None, flag="--hmac-key")
    if args.check:
        return _check(args, key)
    status = 0
    label = "SM3" if key is None else "HMAC-SM3"
    for name in args.files:
        try:
            digest = _digest(name, key)
        except OSError as exc:
            print(f"shangmi sm3: {name}: {exc.strerror or exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{label} ({name}) = {digest}" if args.tag else f"{digest}  {name}")
    return status


def _check(args: argparse.Namespace, key: bytes | None) -> int:
    failed = unreadable = malformed = checked = 0
    quiet, silent = args.quiet or args.status, args.status
    for listing in args.files:
        with open_input(listing) as f:
            lines = f.read().decode("utf-8", "surrogateescape").splitlines()
        for line in lines:
            if not line.strip():
                continue
            m, t = _PLAIN.match(line), _TAGGED.match(line)
            if m:
                expected, name = m.group(1), m.group(2)
            elif t and (t.group(1) == "SM3") == (key is None):
                expected, name = t.group(3), t.group(2)
            else:
                malformed += 1
                continue
            checked += 1
            try:
                ok = _digest(name, key) == expected.lower()
            except OSError as exc:
                unreadable += 1
                if not silent:
                    print(f"shangmi sm3: {name}: {exc.strerror or exc}", file=sys.stderr)
                    print(f"{name}: FAILED open or read")
                continue
            if not ok:
                failed += 1
            if not silent and (not ok or not quiet):
                print(f"{name}: {'OK' if ok else 'FAILED'}")
    if not silent:
        warnings = (
            (malformed, "line is improperly formatted", "lines are improperly formatted"),
            (unreadable, "listed file could not be read", "listed files could not be read"),
            (failed, "computed checksum did NOT match", "computed checksums did NOT match"),
        )
        for n, one, many in warnings:
            if n:
                print(f"shangmi sm3: WARNING: {n} {one if n == 1 else many}", file=sys.stderr)
    if checked == 0:
        if not silent:
            print("shangmi sm3: no properly formatted SM3 checksum lines found", file=sys.stderr)
        return 1
    return 1 if failed or unreadable else 0
