#!/usr/bin/env python3
"""Runs the benchmarks and writes JSON to bench/results/.

    python bench/run.py [sm3 sm4 zuc sm2] [--quick]

Same as ``shangmi bench --json bench/results/<timestamp>.json``.
"""

import os
import sys
import time

from shangmi.cli import main

if __name__ == "__main__":
    out_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    os.makedirs(out_dir, exist_ok=True)
    out = os.path.join(out_dir, time.strftime("%Y%m%d-%H%M%S") + ".json")
    sys.exit(main(["bench", *sys.argv[1:], "--json", out]))
