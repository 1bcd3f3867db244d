"""Runs every fuzz target for a bounded time and prints executions per target.

    python fuzz/run.py                 # 6 s per target, the CI budget
    python fuzz/run.py --seconds 600   # a longer local run
    python fuzz/run.py --site DIR      # use the coverage-instrumented native build in DIR

Each target starts from its committed seeds (fuzz/corpus/TARGET, read-only)
plus a scratch corpus; libFuzzer's -timeout=5 makes any input slower than 5 s
a finding. (Not 1 s: the first input also pays for importing the
instrumented shangmi under atheris, which only works once fuzzing has
started and takes over a second on a 2.45 GHz Zen 3.) The planted ``selftest_raise`` target must be reported as a
finding, proving that findings fail the run. Exit status 0 only if no real
target found anything; crash inputs are kept in fuzz/artifacts/.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ["sm2_private_key", "sm2_public_key", "sm2_signature", "sm2_decrypt", "sm4_ciphertext", "zuc_streams", "compat_gmssl", "pki_parsers", "sm9_parsers", "tlcp_handshake", "tlcp_record", "pkcs12", "ocsp", "jose", "cfca_formats", "cms_ber"]


def run_one(target: str, seconds: int, env: dict[str, str], artifacts: Path, timeout: int) -> tuple[int, int, float, str]:
    with tempfile.TemporaryDirectory(prefix=f"fuzz-{target}-") as work:
        cmd = [
            sys.executable, str(HERE / "targets.py"), target,
            f"-max_total_time={seconds}", f"-timeout={timeout}", "-rss_limit_mb=2048", "-print_final_stats=1",
            f"-artifact_prefix={artifacts}/{target}-", work, str(HERE / "corpus" / target),
        ]
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds * 3 + 60)
        elapsed = time.perf_counter() - t0
    log = proc.stdout + proc.stderr
    m = re.search(r"stat::number_of_executed_units:\s*(\d+)", log)
    cov = re.findall(r"cov: (\d+)", log)
    execs = int(m.group(1)) if m else -1
    return proc.returncode, execs, elapsed, (cov[-1] if cov else "?") if proc.returncode == 0 else log[-3000:]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=6, help="per target (default 6)")
    ap.add_argument("--timeout", type=int, default=5, help="seconds before one input counts as a hang (default 5)")
    ap.add_argument("--site", help="directory holding an instrumented shangmi (put first on PYTHONPATH)")
    ap.add_argument("targets", nargs="*", default=TARGETS)
    args = ap.parse_args()
    env = dict(os.environ)
    if args.site:
        env["PYTHONPATH"] = os.pathsep.join([args.site, env.get("PYTHONPATH", "")])
    artifacts = HERE / "artifacts"
    artifacts.mkdir(exist_ok=True)

    rc, _, _, log = run_one("selftest_raise", 2, env, Path(tempfile.mkdtemp()), args.timeout)
    if rc == 0 or "planted failure" not in log:
        print("fuzz: the planted selftest_raise finding was NOT reported: the harness is broken")
        return 1
    failed = []
    total = 0.0
    print(f"{'target':<18} {'executions':>11} {'seconds':>8} {'cov':>6}")
    for target in args.targets:
        rc, execs, elapsed, info = run_one(target, args.seconds, env, artifacts, args.timeout)
        total += elapsed
        if rc != 0:
            failed.append(target)
            print(f"{target:<18} FINDING (exit {rc}):\n{info}")
        else:
            print(f"{target:<18} {execs:>11} {elapsed:>8.1f} {info:>6}")
    print(f"fuzz: {len(args.targets)} targets, {total:.0f} s, findings: {', '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
