"""``shangmi bench``: same-process A/B benchmarks against installed peers."""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import subprocess
import sys
from typing import Any

from shangmi._bench import Comparison, report, set_clock, to_json

#: Algorithms with a benchmark module in shangmi._bench.
ALGORITHMS = ["sm3", "sm4", "zuc", "sm2", "sm9", "x509", "tls"]


def register(sub: Any) -> None:
    p = sub.add_parser("bench", help="benchmark against installed peers", description="Same-process alternating A/B benchmarks.")
    p.add_argument("algorithms", nargs="*", default=[], metavar="ALG", help=f"any of {', '.join(ALGORITHMS)} (default: all)")
    p.add_argument("--quick", action="store_true", help="fewer sizes and rounds")
    p.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    p.add_argument("--peers", action="store_true", help="also measure libgcrypt (ctypes) and gmssl where installed")
    p.add_argument(
        "--gmssl-lib",
        metavar="PATH",
        help="GmSSL's libgmssl.so for --peers (SM2, SM3, SM4, ZUC) and the sm9 comparison; default: "
        "$SHANGMI_GMSSL_LIB, else GmSSL is skipped",
    )
    p.add_argument(
        "--gmssl-tls-bench",
        metavar="PATH",
        help="GmSSL's TLCP timing program (bench/tls/build.sh) for the tls comparison; default: "
        "$SHANGMI_GMSSL_TLS_BENCH, else GmSSL is skipped",
    )
    p.add_argument(
        "--cpu-time",
        action="store_true",
        help="time every single-thread comparison with this thread's CPU time (time.thread_time_ns) instead of "
        "wall time, which on a loaded machine mostly measures the other processes; each table's header names its "
        "clock. Calls that run on shangmi's thread pool (SM3 hash_many, SM2 verify_many) keep wall time, since the "
        "calling thread only waits for them. Without this option everything is wall time, except the SM2 rows "
        "against GmSSL's C library (--peers), always thread CPU time, and the rows interleaved with `openssl "
        "speed` (sm2, sm9), always process CPU time as openssl speed itself uses",
    )
    p.add_argument(
        "--all-backends",
        action="store_true",
        help="repeat the run in a subprocess under each SHANGMI_CPU_DISABLE mask in MASKS (every backend this CPU has)",
    )
    p.set_defaults(func=run)


#: Masks that step through the backends below the best (SHANGMI_CPU_DISABLE values).
MASKS = ["", "gfni", "avx512f", "avx512f,gfni", "avx512f,gfni,vaes", "avx512f,avx2", "all"]


def _all_backends(args: argparse.Namespace) -> int:
    base = [sys.executable, "-m", "shangmi", "bench", *args.algorithms]
    base += ["--quick"] * args.quick + ["--peers"] * args.peers + ["--cpu-time"] * args.cpu_time
    if args.gmssl_lib:
        base += ["--gmssl-lib", args.gmssl_lib]
    if args.gmssl_tls_bench:
        base += ["--gmssl-tls-bench", args.gmssl_tls_bench]
    seen: set[str] = set()
    for mask in MASKS:
        env = dict(os.environ, SHANGMI_CPU_DISABLE=mask)
        probe = subprocess.run(
            [sys.executable, "-c", "import shangmi, json; print(json.dumps(shangmi.cpu_features()['backends']))"],
            env=env,
            capture_output=True,
            text=True,
        )
        if probe.returncode != 0 or probe.stdout in seen:
            continue  # same backends as a mask already run
        seen.add(probe.stdout)
        print(f"=== SHANGMI_CPU_DISABLE={mask!r}: backends {probe.stdout.strip()}", flush=True)
        rc = subprocess.run(base, env=env).returncode
        if rc != 0:
            return rc
    return 0


def run(args: argparse.Namespace) -> int:
    chosen = args.algorithms or ALGORITHMS
    unknown = [a for a in chosen if a not in ALGORITHMS]
    if unknown:
        raise ValueError(f"unknown algorithm {unknown[0]!r}; choose from {', '.join(ALGORITHMS)}")
    if args.all_backends:
        return _all_backends(args)
    set_clock(args.cpu_time)
    if args.gmssl_lib:
        from shangmi._bench import gmssl_lib

        if gmssl_lib.load(args.gmssl_lib) is None:
            raise ValueError(f"--gmssl-lib {args.gmssl_lib!r}: not a loadable GmSSL library with SM3 and SM4")
        gmssl_lib.set_default_path(args.gmssl_lib)
    results: list[Comparison] = []
    for alg in chosen:
        try:
            module = importlib.import_module(f"shangmi._bench.{alg}")
        except ModuleNotFoundError:
            print(f"(no benchmarks for {alg} yet)")
            continue
        kwargs: dict[str, Any] = {"quick": args.quick}
        if "peers" in inspect.signature(module.run).parameters:
            kwargs["peers"] = args.peers
        if "gmssl_lib" in inspect.signature(module.run).parameters:
            kwargs["gmssl_lib"] = args.gmssl_lib
        if "gmssl_tls_bench" in inspect.signature(module.run).parameters:
            kwargs["gmssl_tls_bench"] = args.gmssl_tls_bench
        for comp in module.run(**kwargs):
            print(report(comp), flush=True)
            results.append(comp)
    if args.json:
        with open(args.json, "w") as f:
            f.write(to_json(results))
    return 0
