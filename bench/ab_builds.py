"""A/B two installed builds of shangmi (an old wheel against the new one).

Usage::

    python bench/ab_builds.py OLD_PYTHON NEW_PYTHON [--rounds 5]

Each interpreter must have its own shangmi installed (for example two
virtual environments). Every round runs the same workload script once in each
interpreter, alternating which goes first, so both see the same machine load;
each run reports its best time per operation over several repetitions after
a warm-up. The table gives, per operation, the new/old time ratio (min and
median over the rounds): below 1 is faster.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

WORKLOAD = r"""
import json, os, time
from shangmi import sm2, sm3, sm4, zuc

MB = os.urandom(1 << 20)
key, iv, nonce = os.urandom(16), os.urandom(16), os.urandom(12)
priv = sm2.PrivateKey.generate()
pub = priv.public_key()
msg = os.urandom(32)
sig = priv.sign(msg)
ct = pub.encrypt(msg)
gcm, cbc, ctr = sm4.SM4GCM(key), sm4.SM4CBC(key), sm4.SM4CTR(key)
cbc_ct = cbc.encrypt(iv, MB)

ops = {
    "sm3 1MiB": (lambda: sm3.hash(MB), 20),
    "sm4-ctr 1MiB": (lambda: ctr.encrypt(iv, MB), 20),
    "sm4-gcm 1MiB": (lambda: gcm.encrypt(nonce, MB, b""), 20),
    "sm4-cbc-enc 1MiB": (lambda: cbc.encrypt(iv, MB), 5),
    "sm4-cbc-dec 1MiB": (lambda: cbc.decrypt(iv, cbc_ct), 20),
    "zuc-eea3 1MiB": (lambda: zuc.eea3(key, 0x12345678, 5, 1, MB), 10),
    "sm2 keygen": (sm2.PrivateKey.generate, 300),
    "sm2 sign": (lambda: priv.sign(msg), 300),
    "sm2 verify": (lambda: pub.verify(sig, msg), 100),
    "sm2 encrypt": (lambda: pub.encrypt(msg), 100),
    "sm2 decrypt": (lambda: priv.decrypt(ct), 100),
}
out = {}
for name, (f, n) in ops.items():
    for _ in range(max(2, n // 10)):
        f()
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(n):
            f()
        best = min(best, (time.perf_counter() - t) / n)
    out[name] = best
print(json.dumps(out))
"""


def run(python: str) -> dict[str, float]:
    proc = subprocess.run([python, "-c", WORKLOAD], capture_output=True, text=True, check=True)
    result: dict[str, float] = json.loads(proc.stdout)
    return result


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    ratios: dict[str, list[float]] = {}
    olds: dict[str, list[float]] = {}
    for r in range(args.rounds):
        order = [args.old, args.new] if r % 2 == 0 else [args.new, args.old]
        res = {p: run(p) for p in order}
        for op, t_old in res[args.old].items():
            ratios.setdefault(op, []).append(res[args.new][op] / t_old)
            olds.setdefault(op, []).append(t_old)
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{'operation':<20} {'old (best)':>12} {'new/old min':>12} {'new/old median':>15}")
    for op, rs in ratios.items():
        best_old = min(olds[op])
        unit, scale = ("ms", 1e3) if best_old > 1e-3 else ("µs", 1e6)
        print(f"{op:<20} {best_old * scale:>9.2f} {unit} {min(rs):>12.3f} {statistics.median(rs):>15.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
