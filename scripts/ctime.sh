#!/usr/bin/env bash
# Constant-time check (libsecp256k1-style): builds the SM2 harness with the
# valgrind client requests enabled and runs it under memcheck with the
# secrets marked undefined. Exits non-zero if any branch or memory index
# depends on a secret (or if valgrind is missing).
#
# Runs the harness once per SM2 field-arithmetic path: the portable code and,
# if this CPU has BMI2 and ADX, the MULX/ADCX/ADOX assembly (valgrind's CPUID
# hides ADX, so the path is chosen with SHANGMI_CTIME_FIELD, honoured only in
# `ctime` builds).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "ctime: valgrind not installed" >&2; exit 2; }
cargo build --release -p shangmi --features ctime --example sm2_ctime
paths=(portable)
if grep -qw bmi2 /proc/cpuinfo && grep -qw adx /proc/cpuinfo; then
    paths+=(adx)
fi
for path in "${paths[@]}"; do
    echo "ctime: field path $path"
    SHANGMI_CTIME_FIELD=$path valgrind --error-exitcode=1 --track-origins=yes --num-callers=30 -q \
        target/release/examples/sm2_ctime
done
