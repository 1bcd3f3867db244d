#!/usr/bin/env bash
# The core on aarch64, the other CPU family users run this on (Arm servers,
# Apple silicon under Linux): cross-built with warnings as errors, so no
# x86-only item is left ungated, and its tests run under qemu-user with
# `-cpu max` (every Armv8/v9 extension qemu emulates: NEON, AES, PMULL,
# SHA3, SM3, SM4), so the aarch64 kernels (SM4's sm4ce-128 and aese-128,
# GHASH's pmull-128, SM3's sm3ce-128 and neon-128 lanes, ZUC's
# aese-pmull-128 and aese-128) run next to the portable paths they are
# differential-tested against (the tests reach every kernel the CPU and
# the mask allow, not only the fastest). The whole suite runs once with every backend; then, to keep CI
# time in check, only the backend-dependent tests (`sm3`, `sm4`, `zuc`,
# `cpu`) run again under each `SHANGMI_CPU_DISABLE` mask: `sm4,sm3` (AESE
# S-box for SM4, portable SM3), `aes,pmull` (SM4 instructions, portable
# GHASH), `all` (the portable code alone). The Python binding is
# type-checked for the same target.
#
# Needs the Rust standard library for the target (rustup) and Debian's cross
# linker and qemu-user; when rustup cannot fetch the target, the step says so
# and is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
start=$SECONDS

if ! rustup target list --installed | grep -qx "$target"; then
  if ! timeout 300 rustup target add "$target"; then
    echo "aarch64: SKIPPED (rustup could not install the standard library for $target)"
    exit 0
  fi
fi
missing=()
command -v qemu-aarch64 >/dev/null || missing+=(qemu-user)
command -v aarch64-linux-gnu-gcc >/dev/null || missing+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross)
if [ ${#missing[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${missing[@]}" >/dev/null
fi

export CARGO_TARGET_DIR="$PWD/target/aarch64"
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu"
export RUSTFLAGS="-D warnings"
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# run LABEL CARGO-TEST-ARGS...: the tests, a one-line count, the log on failure.
run() {
  local label=$1
  shift
  if ! cargo test -p shangmi --release --target "$target" -q "$@" >"$log" 2>&1; then
    cat "$log"; echo "aarch64 ($label): cargo test failed" >&2; exit 1
  fi
  grep -E "^test result" "$log" | awk -v l="$label" '{p+=$4; f+=$6} END {print "rust (aarch64, qemu -cpu max, " l "): " p " passed, " f " failed"}'
}

run "every backend"
for mask in sm4,sm3 aes,pmull all; do
  SHANGMI_CPU_DISABLE=$mask run "SHANGMI_CPU_DISABLE=$mask" --lib -- sm3 sm4 zuc cpu
done
# abi3: the binding needs no aarch64 Python to be checked.
PYO3_CROSS=1 PYO3_CROSS_PYTHON_VERSION=3.11 cargo check -q -p shangmi-python --target "$target"
echo "aarch64: binding checked"
echo "aarch64: $((SECONDS - start)) s"
