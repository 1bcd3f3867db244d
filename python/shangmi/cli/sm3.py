"""``shangmi sm3 [FILE ...]``: digests like sha256sum."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shangmi import sm3
from shangmi.cli._common import hex_arg, open_input, read_chunks


def register(sub: Any) -> None:
    p = sub.add_parser("sm3", help="SM3 digest (or HMAC-SM3) of files", description="Print SM3 digests like sha256sum.")
    p.add_argument("files", nargs="*", default=["-"], metavar="FILE", help="files to hash; - is standard input (default)")
    p.add_argument("--hmac-key", type=hex_arg("HMAC key"), metavar="HEX", help="print HMAC-SM3 under this key instead")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    status = 0
    for name in args.files:
        try:
            with open_input(name) as f:
                if args.hmac_key is not None:
                    import hmac as std_hmac

                    mac = std_hmac.new(args.hmac_key, digestmod=sm3.SM3)
                    for chunk in read_chunks(f, name):
                        mac.update(chunk)
                    digest = mac.hexdigest()
                else:
                    h = sm3.SM3()
                    for chunk in read_chunks(f, name):
                        h.update(chunk)
                    digest = h.hexdigest()
        except OSError as exc:
            print(f"shangmi sm3: {name}: {exc.strerror or exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{digest}  {name}")
    return status
