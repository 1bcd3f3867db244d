#!/usr/bin/env bash
# Constant-time check (libsecp256k1-style): builds the SM2 harness with the
# valgrind client requests enabled and runs it under memcheck with the
# secrets marked undefined. Exits non-zero if any branch or memory index
# depends on a secret (or if valgrind is missing).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "ctime: valgrind not installed" >&2; exit 2; }
cargo build --release -p shangmi --features ctime --example sm2_ctime
exec valgrind --error-exitcode=1 --track-origins=yes --num-callers=30 -q \
    target/release/examples/sm2_ctime
