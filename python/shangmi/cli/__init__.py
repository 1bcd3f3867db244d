"""The ``shangmi`` command line tool, shaped like ``gmssl`` and ``openssl``.

Each algorithm has its own module here with a ``register(subparsers)``
function; this module only dispatches and turns errors into one clear line.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from shangmi import __version__
from shangmi.cli import bench, cms, sm2, sm3, sm4, sm9, tls, x509, zuc
from shangmi.exceptions import ShangmiError

__all__ = ["main"]


class CliError(Exception):
    """An error to report as one line, without a traceback."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="shangmi",
        description="SM2, SM3, SM4, SM9, ZUC, certificates and TLCP channels from the command line.",
    )
    parser.add_argument("--version", action="version", version=f"shangmi {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in (sm2, sm3, sm4, sm9, zuc, x509, cms, tls, bench):
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.func(args)
        return result
    except KeyboardInterrupt:
        print("shangmi: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 141
    except (ShangmiError, ValueError, TypeError, OSError) as exc:
        print(f"shangmi {args.command}: error: {_describe(exc)}", file=sys.stderr)
        return 1


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.strerror or exc}: {exc.filename}"
    text = str(exc)
    return text if text else type(exc).__name__


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
