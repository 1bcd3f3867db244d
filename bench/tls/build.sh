#!/usr/bin/env bash
# Builds GmSSL's TLCP timing program (gmssl_tlcp_bench.c; with
# GMSSL_BENCH=tls13 the TLS 1.3 one, gmssl_tls13_bench.c, which
# build_tls13.sh builds) against a GmSSL 3 install prefix (include/gmssl/,
# lib/libgmssl.a or libgmssl.so), for measuring only:
#
#   bash bench/tls/build.sh /path/to/gmssl [OUT]
#
# OUT defaults to target/gmssl_tlcp_bench (target/gmssl_tls13_bench), never
# committed. GmSSL's
# public structs (TLS_CTX, TLS_CONNECT) change size with its CMake options,
# so the program must see the ENABLE_* macros the library was built with:
# by default those of a default CMake build on x86-64 (scripts/peers.sh
# makes one); otherwise set GMSSL_DEFINES to the -D flags of the library's
# build/CMakeFiles/gmssl.dir/flags.make. Then:
#
#   target/gmssl_tlcp_bench tests/vectors/tlcp -primitives
#   shangmi bench tls --gmssl-tls-bench target/gmssl_tlcp_bench
#   target/gmssl_tls13_bench tests/vectors/tlcp
#   cargo bench -p shangmi --bench tls13 -- --gmssl $PWD/target/gmssl_tls13_bench
set -euo pipefail
prefix=${1:?usage: build.sh GMSSL_PREFIX [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
bench=${GMSSL_BENCH:-tlcp}
case $bench in tlcp | tls13) ;; *) echo "build.sh: GMSSL_BENCH is tlcp or tls13, not $bench" >&2; exit 2 ;; esac
out=${2:-$here/../../target/gmssl_${bench}_bench}
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
${CC:-cc} -O2 -Wall $defines -o "$out" "$here/gmssl_${bench}_bench.c" -I"$prefix/include" $lib -lpthread
echo "$out"
