#!/usr/bin/env bash
# Builds the GmSSL TLS 1.3 timing program (gmssl_tls13_bench.c) against a
# GmSSL 3 install prefix, for measuring only, exactly as build.sh builds
# the TLCP one (same ENABLE_* defaults, same GMSSL_DEFINES override):
#
#   bash bench/tls/build_tls13.sh /path/to/gmssl [OUT]
#
# OUT defaults to target/gmssl_tls13_bench (never committed). Then:
#
#   target/gmssl_tls13_bench tests/vectors/tlcp
#   cargo bench -p shangmi --bench tls13 -- --gmssl target/gmssl_tls13_bench
set -euo pipefail
prefix=${1:?usage: build_tls13.sh GMSSL_PREFIX [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here/../../target/gmssl_tls13_bench}
defaults="-DENABLE_AES -DENABLE_AES_CCM -DENABLE_CMS -DENABLE_GHASH -DENABLE_KYBER -DENABLE_LMS -DENABLE_QUIC
  -DENABLE_SDF -DENABLE_SECP256R1 -DENABLE_SECP384R1 -DENABLE_SHA1 -DENABLE_SHA2 -DENABLE_SKF -DENABLE_SM4_CBC_MAC
  -DENABLE_SM4_CCM -DENABLE_SM4_CFB -DENABLE_SM4_ECB -DENABLE_SM4_FF1 -DENABLE_SM4_OFB -DENABLE_SM4_XTS -DENABLE_SM9
  -DENABLE_SPHINCS -DENABLE_TLS -DENABLE_XMSS -DENABLE_ZUC"
[ "$(uname -m)" = x86_64 ] && defaults="$defaults -DENABLE_SM2_AMD64"
defines=${GMSSL_DEFINES:-$defaults}
if [ -f "$prefix/lib/libgmssl.a" ]; then
  lib="$prefix/lib/libgmssl.a"
else
  lib="-L$prefix/lib -lgmssl -Wl,-rpath,$prefix/lib"
fi
# shellcheck disable=SC2086
${CC:-cc} -O2 -Wall $defines -o "$out" "$here/gmssl_tls13_bench.c" -I"$prefix/include" $lib -lpthread
echo "$out"
