"""Two builds of shangmi against each other: old wheel against new, alternating.

Usage:
  python scripts/ab_wheels.py --a OLD_PYTHON --b NEW_PYTHON [--rounds 3] [ALG ...]

OLD_PYTHON and NEW_PYTHON are the interpreters of two virtual environments,
each with one build of shangmi installed (for example the wheel of main and
the wheel of a change). Two versions of one extension module cannot share a
process, so the runs alternate A B A B ... as whole processes of
`python -m shangmi bench ALG... --quick --cpu-time --json FILE` (the
project's own bench, which times each row after a warm-up). For every row
shangmi measured in both builds the table shows each build's best minimum
and median of medians, and B's time over A's (below 1: B is faster). The
rows' bracketed labels (the backend) are left out of the match, so a renamed one still
pairs with its old name. Read ratios within about ±10% as noise on a shared
machine.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

LABEL = re.compile(r"\s*\[[^\]]*\]")


def run(python: str, algs: list[str], out: Path) -> dict[str, tuple[float, float]]:
    cmd = [python, "-m", "shangmi", "bench", *algs, "--quick", "--cpu-time", "--json", str(out)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    rows = {}
    for row in json.loads(out.read_text()):
        for cand in row["candidates"]:
            if cand["name"] == "shangmi":
                rows[LABEL.sub("", row["name"])] = (cand["min"], cand["median"])
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="interpreter with the old build")
    ap.add_argument("--b", required=True, help="interpreter with the new build")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("algs", nargs="*", default=["sm2", "sm3", "sm4", "sm9", "zuc"])
    args = ap.parse_args()
    seen: dict[str, dict[str, list[tuple[float, float]]]] = {"a": {}, "b": {}}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            for side in ("a", "b"):
                rows = run(getattr(args, side), args.algs, Path(tmp) / f"{side}{r}.json")
                for name, fig in rows.items():
                    seen[side].setdefault(name, []).append(fig)
                print(f"round {r + 1}/{args.rounds} {side.upper()}: {len(rows)} rows", file=sys.stderr)
    print(f"{'row':70} {'A min':>10} {'B min':>10} {'B/A min':>8} {'B/A med':>8}")
    for name in seen["a"]:
        if name not in seen["b"]:
            print(f"{name[:70]:70} only in A")
            continue
        a, b = seen["a"][name], seen["b"][name]
        amin, bmin = min(x[0] for x in a), min(x[0] for x in b)
        amed, bmed = statistics.median(x[1] for x in a), statistics.median(x[1] for x in b)
        print(f"{name[:70]:70} {amin * 1e6:9.1f}u {bmin * 1e6:9.1f}u {bmin / amin:8.3f} {bmed / amed:8.3f}")
    for name in seen["b"]:
        if name not in seen["a"]:
            print(f"{name[:70]:70} only in B")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
