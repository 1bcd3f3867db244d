#!/usr/bin/env bash
# Build the TLCP / TLS 1.3 interop peers from their public sources, for tests only
# (never committed, never shipped):
#   GmSSL 3   -> PREFIX/gmssl/bin/gmssl, PREFIX/gmssl/lib/libgmssl.a, PREFIX/gmssl/include/gmssl
#   Tongsuo   -> PREFIX/tongsuo/bin/openssl  (static, with NTLS: s_server -enable_ntls, s_client -enable_ntls -ntls)
#
# Usage: scripts/peers.sh SRC_DIR_GMSSL SRC_DIR_TONGSUO PREFIX
#   SRC_DIR_*: a source tree, or a git directory (bare or not) whose HEAD is exported
#   with `git archive` into PREFIX/<name>-src first.
#   Either source may be "-" to skip that peer.
# Needs: a C compiler, make, perl (Tongsuo's Configure) and cmake (GmSSL); without a
# system cmake, `pip install cmake` in a venv is enough.
# Environment: JOBS (default 2), NICE (default 10).
# Afterwards: export SHANGMI_GMSSL=PREFIX/gmssl/bin/gmssl SHANGMI_TONGSUO=PREFIX/tongsuo/bin/openssl
#
# Measured 2026-12-07 (2 shared cores, AMD EPYC Zen 4, family 25 model 17): GmSSL ~1.5 min,
# Tongsuo `make build_programs` ~3 to 5 min.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
GMSSL_SRC=$1 TONGSUO_SRC=$2 PREFIX=$(mkdir -p "$3" && cd "$3" && pwd)
JOBS=${JOBS:-2} NICE=${NICE:-10}

# A source tree from a directory or a git dir.  Blobs missing from a partial mirror
# (Tongsuo's test/recipes and fuzz corpora) are left out: the programs don't need them.
source_tree() {
  local src=$1 name=$2 out
  if [[ -f "$src/CMakeLists.txt" || -f "$src/Configure" ]]; then
    echo "$src"
    return
  fi
  out=$PREFIX/$name-src
  if [[ ! -d "$out" ]]; then
    rm -rf "$out.part"
    mkdir -p "$out.part"
    # git may still report the excluded missing blobs; what matters is that the tree arrived.
    { git -C "$src" archive HEAD -- . ':!test/recipes' ':!fuzz/corpora' || true; } | tar -x -C "$out.part"
    [[ -f "$out.part/CMakeLists.txt" || -f "$out.part/Configure" ]] || { echo "no source tree from $src" >&2; exit 1; }
    mv "$out.part" "$out"
    git -C "$src" rev-parse HEAD > "$out/.source-commit"
  fi
  echo "$out"
}

if [[ "$GMSSL_SRC" != "-" ]]; then
  src=$(source_tree "$GMSSL_SRC" gmssl)
  command -v cmake > /dev/null || { echo "cmake not found (pip install cmake)" >&2; exit 1; }
  mkdir -p "$src/build"
  (cd "$src/build" &&
    nice -n "$NICE" cmake .. -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
      -DCMAKE_INSTALL_PREFIX="$PREFIX/gmssl" > cmake.log &&
    nice -n "$NICE" make -j"$JOBS" gmssl-bin > make.log)
  # `make install` would build every test program too: copy what the peers need.
  mkdir -p "$PREFIX/gmssl/bin" "$PREFIX/gmssl/lib" "$PREFIX/gmssl/include"
  cp "$src/build/bin/gmssl" "$PREFIX/gmssl/bin/"
  cp "$src/build/bin/libgmssl.a" "$PREFIX/gmssl/lib/"
  cp -r "$src/include/gmssl" "$PREFIX/gmssl/include/"
  "$PREFIX/gmssl/bin/gmssl" version
fi

if [[ "$TONGSUO_SRC" != "-" ]]; then
  src=$(source_tree "$TONGSUO_SRC" tongsuo)
  (cd "$src" &&
    nice -n "$NICE" ./config enable-ntls no-shared no-tests --prefix="$PREFIX/tongsuo" > config.log &&
    nice -n "$NICE" make -j"$JOBS" build_programs > make.log)
  mkdir -p "$PREFIX/tongsuo/bin"
  cp "$src/apps/openssl" "$PREFIX/tongsuo/bin/openssl"
  "$PREFIX/tongsuo/bin/openssl" version
fi

[[ "$GMSSL_SRC" == "-" ]] || echo "export SHANGMI_GMSSL=$PREFIX/gmssl/bin/gmssl"
[[ "$TONGSUO_SRC" == "-" ]] || echo "export SHANGMI_TONGSUO=$PREFIX/tongsuo/bin/openssl"
