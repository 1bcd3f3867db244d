#!/usr/bin/env bash
# Builds GmSSL's TLS 1.3 timing program (gmssl_tls13_bench.c) the way
# build.sh builds the TLCP one (same ENABLE_* defaults, same GMSSL_DEFINES
# override), for measuring only:
#
#   bash bench/tls/build_tls13.sh /path/to/gmssl [OUT]
#
# OUT defaults to target/gmssl_tls13_bench (never committed). Then:
#
#   target/gmssl_tls13_bench tests/vectors/tlcp
#   cargo bench -p shangmi --bench tls13 -- --gmssl $PWD/target/gmssl_tls13_bench
GMSSL_BENCH=tls13 exec bash "$(dirname "$0")/build.sh" "$@"
