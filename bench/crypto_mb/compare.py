#!/usr/bin/env python3
"""shangmi's batched SM2 and SM3 against Intel's crypto_mb and OpenSSL's P-256
verify (and SM3), same machine, same run, one thread.

    python3 bench/crypto_mb/compare.py [--harness PATH] [--alternations N]
                                       [--rounds N] [--batch N] [--round-ms MS]
                                       [--clock cpu|wall]

Alternates A B A B ... after a warm-up: A = one run of the C harness
``mb_bench`` (crypto_mb SM2 verify / k·P / sign on eight AVX-512 IFMA lanes,
SM3 on sixteen lanes, OpenSSL's P-256 and SM2 verify and SM3 one at a time),
B = the same number of timed rounds of shangmi's ``sm2.verify_many`` (and
``sm2.decrypt_many`` when the module has it, and ``sm2.sign_many``) on
``--batch`` items, and ``sm3.hash_many`` of 16 × 64 KiB against one 64 KiB
stream, with ``shangmi.set_num_threads(1)``. Times are microseconds per item (per single
operation); min and median over all rounds of all alternations. Ratios are
rates: "X vs Y = 2.0" means X does twice as many operations per second as Y.

Every shangmi batch is checked before timing (all signatures accepted, one
flipped signature rejected at its index, decryptions equal the plaintexts);
the harness checks crypto_mb against OpenSSL itself and exits non-zero if
anything is wrong, which stops this script.

``--clock cpu`` (the default) times with the process CPU clock on both sides
(harness ``-c``; ``time.process_time_ns`` here, which counts shangmi's one
pool thread too), so time spent descheduled on a shared machine is not
counted; ``--clock wall`` uses the monotonic wall clock on both sides.
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from typing import Callable

# build.sh SRC target/crypto_mb puts it here
DEFAULT_HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "target", "crypto_mb", "bin", "mb_bench")


def cpu_line() -> str:
    info: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if ":" in line:
                    k, v = (s.strip() for s in line.split(":", 1))
                    info.setdefault(k, v)
    except OSError:
        return "unknown CPU"
    flags = set(info.get("flags", "").split())
    isa = ",".join(f for f in ("avx512ifma", "avx512vbmi2", "gfni", "vaes", "vpclmulqdq", "sha_ni") if f in flags)
    return (
        f"{info.get('model name', '?')} (family {info.get('cpu family', '?')} model {info.get('model', '?')}; "
        f"{isa}), {os.cpu_count()} logical CPUs"
    )


CLOCK = time.process_time_ns


def run_harness(path: str, rounds: int, round_ms: float, cpu: bool) -> dict[str, list[float]]:
    cmd = [path, "-r", str(rounds), "-t", str(round_ms), "-v"] + (["-c"] if cpu else [])
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        sys.exit(f"harness failed (exit {out.returncode}):\n{out.stderr}{out.stdout}")
    samples: dict[str, list[float]] = defaultdict(list)
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "sample":
            samples[parts[1]].append(float(parts[2]))
    if not samples:
        sys.exit(f"harness printed no samples:\n{out.stdout}")
    return samples


def timed_rounds(fn: Callable[[], object], items: int, rounds: int, round_ms: float) -> list[float]:
    """Microseconds per item, one figure per round of ~round_ms."""
    t0 = CLOCK()
    fn()
    once = (CLOCK() - t0) / 1e9
    calls = max(1, int(round_ms / 1000 / max(once, 1e-9)))
    out = []
    for _ in range(rounds):
        t0 = CLOCK()
        for _ in range(calls):
            fn()
        out.append((CLOCK() - t0) / 1000 / (calls * items))
    return out


def shangmi_ops(batch: int) -> tuple[dict[str, tuple[Callable[[], object], int]], str]:
    import shangmi
    from shangmi import sm2

    shangmi.set_num_threads(1)
    keys = [sm2.PrivateKey.generate() for _ in range(batch)]
    msgs = [os.urandom(64) for _ in range(batch)]
    # one distinct key per item, as the harness uses one per lane: no per-key
    # cache can help
    items = [(k.public_key(), m, k.sign(m)) for k, m in zip(keys, msgs)]
    if not all(sm2.verify_many(items)):
        sys.exit("shangmi verify_many rejects valid signatures")
    bad = list(items)
    sig = bytearray(bad[batch // 2][2])
    sig[-1] ^= 1
    bad[batch // 2] = (bad[batch // 2][0], bad[batch // 2][1], bytes(sig))
    got = sm2.verify_many(bad)
    if got != [i != batch // 2 for i in range(batch)]:
        sys.exit("shangmi verify_many: wrong verdict on a flipped signature")
    ops: dict[str, tuple[Callable[[], object], int]] = {"shangmi_verify_many": (lambda: sm2.verify_many(items), batch)}

    signer = keys[0]
    sigs = sm2.sign_many(signer, msgs)
    pub0 = signer.public_key()
    for m, s in zip(msgs, sigs):
        pub0.verify(s, m)
    ops["shangmi_sign_many"] = (lambda: sm2.sign_many(signer, msgs), batch)

    if hasattr(sm2, "decrypt_many"):
        pts = [os.urandom(32) for _ in range(batch)]
        cts = [pub0.encrypt(p) for p in pts]
        if sm2.decrypt_many(signer, cts) != pts:
            sys.exit("shangmi decrypt_many returns wrong plaintexts")
        ops["shangmi_decrypt_many"] = (lambda: sm2.decrypt_many(signer, cts), batch)

    # SM3: 16 messages of 64 KiB on one thread (the harness's crypto_mb mb16
    # row), and one 64 KiB stream; per message.
    from shangmi import sm3

    blobs = [os.urandom(64 * 1024) for _ in range(16)]
    if sm3.hash_many(blobs) != [sm3.hash(b) for b in blobs]:
        sys.exit("shangmi hash_many differs from hashing each message")
    ops["shangmi_sm3_hash_many"] = (lambda: sm3.hash_many(blobs), 16)
    ops["shangmi_sm3_64k"] = (lambda: sm3.hash(blobs[0]), 1)
    return ops, f"{shangmi.__file__} (version {getattr(shangmi, '__version__', '?')})"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--harness", default=os.environ.get("MB_BENCH", DEFAULT_HARNESS))
    ap.add_argument("--alternations", type=int, default=4, help="A B pairs after the warm-up (default 4)")
    ap.add_argument("--rounds", type=int, default=5, help="timed rounds per op per alternation (default 5)")
    ap.add_argument("--round-ms", type=float, default=20.0, help="length of one round (default 20 ms)")
    ap.add_argument("--batch", type=int, default=64, help="items per shangmi batch call (default 64)")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu", help="process CPU time (default) or wall time")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time_ns if args.clock == "cpu" else time.perf_counter_ns
    cpu = args.clock == "cpu"
    if not os.access(args.harness, os.X_OK):
        sys.exit(f"no harness at {args.harness}: run bench/crypto_mb/build.sh SRC PREFIX first")

    ops, module = shangmi_ops(args.batch)
    print(f"# {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {cpu_line()}")
    print(f"# shangmi: {module}; set_num_threads(1); batch {args.batch}")
    print(
        f"# harness: {args.harness}; {args.alternations} alternations x {args.rounds} rounds of {args.round_ms} ms; "
        f"{args.clock} clock; load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}"
    )

    # warm-up: one short harness run, each shangmi op for a few rounds
    run_harness(args.harness, 1, args.round_ms / 2, cpu)
    for fn, items in ops.values():
        timed_rounds(fn, items, 3, args.round_ms)

    samples: dict[str, list[float]] = defaultdict(list)
    for _ in range(args.alternations):
        for name, vals in run_harness(args.harness, args.rounds, args.round_ms, cpu).items():
            samples[name].extend(vals)
        for name, (fn, items) in ops.items():
            samples[name].extend(timed_rounds(fn, items, args.rounds, args.round_ms))

    stat = {n: (min(v), statistics.median(v)) for n, v in samples.items()}
    v_min, v_med = stat["openssl_p256_verify"]
    print(f"\n{'operation':26} {'us/op min':>10} {'median':>9}   {'V-rate min':>10} {'median':>7}")
    for name, (mn, md) in stat.items():
        print(f"{name:26} {mn:10.2f} {md:9.2f}   {v_min / mn:10.2f} {v_med / md:7.2f}")
    print("(V-rate: operations per second in units of OpenSSL P-256 verifies per second, same run)")

    def ratio(a: str, b: str, label: str, target: str = "") -> None:
        if a in stat and b in stat:
            (amn, amd), (bmn, bmd) = stat[a], stat[b]
            print(f"{label:52} min {bmn / amn:5.2f}  median {bmd / amd:5.2f}  {target}")

    print("\nratios of rates (>1: the first is faster), per single operation, one thread:")
    ratio("shangmi_verify_many", "crypto_mb_sm2_verify", "shangmi verify_many / crypto_mb SM2 verify", "(want >= 1.1)")
    ratio("shangmi_verify_many", "openssl_p256_verify", "shangmi verify_many / OpenSSL P-256 verify", "(want >= 3.3)")
    ratio("crypto_mb_sm2_verify", "openssl_p256_verify", "crypto_mb SM2 verify / OpenSSL P-256 verify")
    ratio("shangmi_decrypt_many", "openssl_p256_verify", "shangmi decrypt_many / OpenSSL P-256 verify", "(want >= 3.0)")
    ratio("shangmi_decrypt_many", "crypto_mb_sm2_ecdh", "shangmi decrypt_many / crypto_mb SM2 k*P (ecdh)")
    ratio("shangmi_sign_many", "crypto_mb_sm2_sign", "shangmi sign_many / crypto_mb SM2 sign")
    ratio("shangmi_sm3_hash_many", "crypto_mb_sm3_mb16", "shangmi SM3 hash_many / crypto_mb SM3 mb16 (16 x 64 KiB)")
    ratio("shangmi_sm3_hash_many", "shangmi_sm3_64k", "shangmi SM3 hash_many / shangmi one stream", "(want >= 5)")
    ratio("shangmi_sm3_64k", "openssl_sm3_64k", "shangmi SM3 one stream / OpenSSL SM3 (64 KiB)")
    print(f"# load average at the end {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if "shangmi_decrypt_many" not in stat:
        print("(sm2.decrypt_many not in this shangmi build: skipped)")


if __name__ == "__main__":
    main()
