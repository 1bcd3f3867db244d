"""``shangmi bench``: same-process A/B benchmarks against installed peers."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from shangmi._bench import Comparison, report, to_json

#: Algorithms with a benchmark module in shangmi._bench.
ALGORITHMS = ["sm3", "sm4", "zuc", "sm2"]


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="benchmark against installed peers", description="Same-process alternating A/B benchmarks.")
    p.add_argument("algorithms", nargs="*", default=[], metavar="ALG", help=f"any of {', '.join(ALGORITHMS)} (default: all)")
    p.add_argument("--quick", action="store_true", help="fewer sizes and rounds")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    chosen = args.algorithms or ALGORITHMS
    unknown = [a for a in chosen if a not in ALGORITHMS]
    if unknown:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(ALGORITHMS)}")
    results: list[Comparison] = []
    for alg in chosen:
        try:
            module = importlib.import_module(f"shangmi._bench.{alg}")
        except ModuleNotFoundError:
            print(f"(no benchmarks for {alg} yet)")
            continue
        for comp in module.run(quick=args.quick):
            print(report(comp), flush=True)
            results.append(comp)
    if args.json:
        with open(args.json, "w") as f:
            f.write(to_json(results))
    return 0
