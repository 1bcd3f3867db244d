#!/usr/bin/env bash
# Builds Intel's multi-buffer library crypto_mb (ipp-crypto, now
# "cryptography-primitives") from its public source, for measuring only, and
# the side-by-side harness mb_bench against it. Nothing of ipp-crypto is ever
# copied into this repository.
#
#   bash bench/crypto_mb/build.sh SRC PREFIX
#
# SRC     a checkout of github.com/intel/cryptography-primitives (or the older
#         intel/ipp-crypto); the CMake project used is
#         SRC/sources/ippcp/crypto_mb.
# PREFIX  install directory for crypto_mb (lib/libcrypto_mb.a,
#         include/crypto_mb/*.h); the harness binary goes to PREFIX/bin/mb_bench.
#
# Needs: cmake >= 3.18, a C compiler with AVX-512 IFMA intrinsics (gcc >= 8.2;
# gcc >= 13 also builds the 256-bit AVX-IFMA paths, unused on Zen 4), python3
# (crypto_mb generates its dispatcher headers), OpenSSL >= 3.0.8 headers and
# libcrypto (Debian: apt-get install -y cmake libssl-dev).
# Idempotent: an existing PREFIX/lib/libcrypto_mb.a is kept (delete it to
# rebuild); the harness is rebuilt each run (one file, a second).
set -euo pipefail
if [ $# -ne 2 ]; then
    echo "usage: $0 SRC PREFIX   (SRC = cryptography-primitives checkout)" >&2
    exit 2
fi
SRC=$(cd "$1" && pwd)
MB="$SRC/sources/ippcp/crypto_mb"
[ -f "$MB/CMakeLists.txt" ] || { echo "not a crypto_mb source tree: $MB" >&2; exit 1; }
mkdir -p "$2"
PREFIX=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
JOBS=${JOBS:-2}

for tool in cmake cc python3; do
    command -v "$tool" >/dev/null || { echo "missing: $tool (apt-get install -y cmake gcc python3)" >&2; exit 1; }
done
[ -f /usr/include/openssl/evp.h ] || [ -n "${OPENSSL_ROOT_DIR:-}" ] ||
    { echo "missing: OpenSSL 3 headers (apt-get install -y libssl-dev, or set OPENSSL_ROOT_DIR)" >&2; exit 1; }

if [ ! -f "$PREFIX/lib/libcrypto_mb.a" ]; then
    BUILD="$PREFIX/build"
    cmake -S "$MB" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_INSTALL_PREFIX="$PREFIX" ${OPENSSL_ROOT_DIR:+-DOPENSSL_ROOT_DIR="$OPENSSL_ROOT_DIR"}
    cmake --build "$BUILD" -j "$JOBS"
    cmake --install "$BUILD"
fi

mkdir -p "$PREFIX/bin"
cc -O2 -march=native -Wall -Wextra -o "$PREFIX/bin/mb_bench" "$HERE/mb_bench.c" \
    -I"$PREFIX/include" "$PREFIX/lib/libcrypto_mb.a" -lcrypto
echo "built $PREFIX/bin/mb_bench"
