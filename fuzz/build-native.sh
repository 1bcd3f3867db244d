#!/usr/bin/env bash
# Builds the extension with sanitizer coverage (stable rustc flags, as
# cargo-fuzz passes them) into fuzz/.native, so that `python fuzz/run.py
# --site fuzz/.native` guides libFuzzer by the edges inside the Rust code too.
# --target makes RUSTFLAGS skip build scripts (they would need libFuzzer to link).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python}
host=$(rustc -vV | sed -n 's/^host: //p')
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$PWD/target/fuzz}
export RUSTFLAGS="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16
out=$(mktemp -d)
"$PY" -m maturin build --release --target "$host" -o "$out" -q
rm -rf fuzz/.native
"$PY" -m pip install -q --no-deps --target fuzz/.native "$out"/shangmi-*.whl
rm -rf "$out"
echo "instrumented build in fuzz/.native"
