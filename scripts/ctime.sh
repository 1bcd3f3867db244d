#!/usr/bin/env bash
# Object-code check of the constant-time harness's SM2/SM9 code. Valgrind
# (tests/ctgrind.rs, run by .ci/run) cannot execute AVX-512, so the
# AVX-512VL table scans are checked here instead: no instruction of the
# SM2/SM9/shared-arithmetic code linked into the harness may combine a k-mask
# with a memory operand. Whether a masked load reads the cache lines of
# masked-off entries is up to the CPU, so a scan whose merge LLVM folded into
# masked loads would make the lines it touches depend on the secret index
# (the scan before 8e11c89 compiled to 226 such `vmovdqu64 (mem),%ymm{%k}`).
#
# Functions of SM3, SM4 and ZUC are left out: their AVX-512 kernels use
# masked loads and stores at public lengths (message tails, lanes), by
# design. Everything else in the binary, the harness's own inlined code
# included, is checked. Exits non-zero on a finding, or if the binary holds
# no k-masked code at all (the check would prove nothing).
#
# Second part: SM2's and SM9's eight-lane IFMA code (sm2::lanes,
# ecmult_gen::ifma, field::ifma; SM9's Fp and Fp12 on lanes, its lane
# Miller loop and final exponentiation, the GT comb), as linked into the
# integration tests, whose sm2_lanes and sm9 modules run batch decryption,
# signing, pool refills and SM9's schemes. Its constant-time argument is by
# construction (SM9's lane functions are straight-line arithmetic; the GT
# comb reads its rows through the shared comb's whole-row scan): a secret scalar reaches the lanes only as digit vectors;
# every lookup reads every entry of its table at addresses fixed by the
# loop counter and picks each lane's entry in registers, with and/or masks
# computed from the digits or register permutes indexed by them (vector
# masks and permute indices, not k-masks); negations and the complete
# additions' doublings are vector selects; loop bounds are constants. What
# the object code can show is checked here, in every function of that code
# whose name lacks `_vartime` (those take public indices only): no
# k-masked memory operand and no gather or scatter (the two ways
# an AVX-512 instruction's addresses or touched lines can follow a lane's
# data), and the two constant-time kernels must be present.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v objdump >/dev/null || { echo "ctime: objdump not installed" >&2; exit 2; }
exe=$(cargo test --release -p shangmi --features ctime --test ctgrind --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "ctgrind" and m.get("executable"):
        print(m["executable"])')
[ -n "$exe" ] || { echo "ctime: the ctgrind test did not build" >&2; exit 1; }
dis=$(mktemp)
trap 'rm -f "$dis"' EXIT
objdump -dC --no-show-raw-insn "$exe" | awk '
    /^[0-9a-f]+ <.*>:$/ { skip = ($0 ~ /<shangmi::(sm3|sm4|zuc)::/); next }
    !skip && /\{%k[1-7]\}/ { print }' >"$dis"
masked=$(wc -l <"$dis")
n=$(grep -cE '\(' "$dis" || true)
echo "ctime: $(basename "$exe"): $masked k-masked instructions in SM2/SM9 code, $n with a memory operand"
if [ "$masked" -eq 0 ]; then
    echo "ctime: no k-masked code found (AVX-512 scans not compiled in?): nothing was checked" >&2
    exit 1
fi
if [ "$n" -ne 0 ]; then
    grep -E '\(' "$dis" | head >&2
    echo "ctime: masked memory accesses (secret-dependent cache lines)" >&2
    exit 1
fi
lanes=$(cargo test --release -p shangmi --test integration --no-run --message-format=json 2>/dev/null |
    python3 -c 'import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("target", {}).get("name") == "integration" and m.get("executable"):
        print(m["executable"])')
[ -n "$lanes" ] || { echo "ctime: the integration tests did not build" >&2; exit 1; }
objdump -dC --no-show-raw-insn "$lanes" | awk '
    /^[0-9a-f]+ <.*>:$/ {
        keep = ($0 ~ /<shangmi::(sm2::(lanes|ecmult_gen::ifma|field::ifma)|sm9::(fp_ifma|fp12_ifma|pairing::ifma|final_exp::ifma|gt::comb_mul))/) && ($0 !~ /_vartime/)
        if (keep) print "FUNC " $0
        next
    }
    keep { print }' >"$dis"
for kernel in sm2::lanes::mul8_lanes sm2::lanes::mul_g8_lanes sm9::fp12_ifma::.*convolve \
    sm9::fp12_ifma::.*cyclotomic_square_impl sm9::fp12_ifma::.*square_impl; do
    grep -q "^FUNC .*$kernel" "$dis" || {
        echo "ctime: $kernel not found in $(basename "$lanes"): nothing was checked" >&2
        exit 1
    }
done
funcs=$(grep -c '^FUNC' "$dis")
bad=$(grep -vE '^FUNC' "$dis" | grep -E '\{%k[1-7]\}.*\(|\(.*\{%k[1-7]\}|vp?gather|vp?scatter' || true)
echo "ctime: $(basename "$lanes"): $funcs constant-time lane functions, $(grep -vc '^FUNC' "$dis") instructions checked"
if [ -n "$bad" ]; then
    echo "$bad" | head >&2
    echo "ctime: k-masked memory operands or gathers in the constant-time lane code" >&2
    exit 1
fi
