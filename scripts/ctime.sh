#!/usr/bin/env bash
# Constant-time check (libsecp256k1-style): builds the SM2 harness with the
# valgrind client requests enabled and runs it under memcheck with the
# secrets marked undefined. Exits non-zero if any branch or memory index
# depends on a secret (or if valgrind is missing).
#
# Runs the harness once per SM2 field-arithmetic path, chosen with the
# library's one CPU mask (SHANGMI_CPU_DISABLE): the portable code (adx
# masked) and, if this CPU has BMI2 and ADX, the MULX/ADCX/ADOX assembly
# (valgrind's CPUID hides ADX; `ctime` builds add it back from
# /proc/cpuinfo, see src/cpu.rs); and once more with the portable table scan
# (avx2 masked; otherwise valgrind, which hides AVX-512 but shows AVX2,
# checks the AVX2 scan). The AVX-512VL scan can't run under valgrind: it is
# constant time by construction (see arith/scan.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "ctime: valgrind not installed" >&2; exit 2; }
cargo build --release -p shangmi --features ctime --example sm2_ctime --example sm9_ctime
# Each entry is a SHANGMI_CPU_DISABLE value.
masks=(adx)
if grep -qw bmi2 /proc/cpuinfo && grep -qw adx /proc/cpuinfo; then
    masks+=("")
fi
run() {
    echo "ctime: SHANGMI_CPU_DISABLE='$1'"
    SHANGMI_CPU_DISABLE=$1 valgrind --error-exitcode=1 --track-origins=yes --num-callers=30 -q \
        target/release/examples/sm2_ctime
}
# Negative control: a secret scalar through the variable-time comb must be
# reported (valgrind exits 42 on errors there), or the harness proves nothing.
echo "ctime: negative control (must be reported)"
set +e
SHANGMI_CPU_DISABLE=adx valgrind --error-exitcode=42 -q target/release/examples/sm2_ctime leak >/dev/null 2>&1
rc=$?
set -e
if [ "$rc" -ne 42 ]; then
    echo "ctime: the negative control was not detected (exit $rc)" >&2
    exit 1
fi
for mask in "${masks[@]}"; do
    run "$mask"
done
run "${masks[-1]:+${masks[-1]},}avx2"

# SM9: extraction, signing, encryption, decryption, decapsulation and key
# exchange with the master keys (and every random scalar) marked undefined,
# on the portable and (if present) ADX field paths; the negative control
# feeds a secret scalar to the variable-time double-and-add.
echo "ctime: SM9 negative control (must be reported)"
set +e
SHANGMI_CPU_DISABLE=adx valgrind --error-exitcode=42 -q target/release/examples/sm9_ctime leak >/dev/null 2>&1
rc=$?
set -e
if [ "$rc" -ne 42 ]; then
    echo "ctime: the SM9 negative control was not detected (exit $rc)" >&2
    exit 1
fi
for mask in "${masks[@]}"; do
    echo "ctime: SM9, SHANGMI_CPU_DISABLE='$mask'"
    SHANGMI_CPU_DISABLE=$mask valgrind --error-exitcode=1 --track-origins=yes --num-callers=30 -q target/release/examples/sm9_ctime
done

# The AVX-512 table scan can't run under valgrind, so check its machine code
# instead: no instruction of the SM2/SM9 harnesses may have a k-mask and a
# memory operand. Whether a masked load reads the cache lines of masked-off
# entries is up to the CPU, so a scan whose merge LLVM folded into masked
# loads would make the lines it touches depend on the secret index (the
# scan before 8e11c89 compiled to 226 such `vmovdqu64 (mem),%ymm{%k}`).
if command -v objdump >/dev/null; then
    for b in sm2_ctime sm9_ctime; do
        n=$(objdump -d --no-show-raw-insn "target/release/examples/$b" | grep -E '\{%k[1-7]\}' | grep -cE '\(' || true)
        echo "ctime: $b: $n k-masked memory operands"
        if [ "$n" -ne 0 ]; then
            objdump -d --no-show-raw-insn "target/release/examples/$b" | grep -E '\{%k[1-7]\}' | grep -E '\(' | head >&2
            echo "ctime: masked memory accesses in $b (secret-dependent cache lines)" >&2
            exit 1
        fi
    done
else
    echo "ctime: objdump not installed, masked-load check skipped" >&2
fi
