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
