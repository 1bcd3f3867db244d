/*
 * GmSSL 3's TLS 1.3 (RFC 8998: TLS_SM4_GCM_SM3 / TLS_SM4_CCM_SM3, curveSM2,
 * sm2sig_sm3), timed the way gmssl_tlcp_bench.c times TLCP: full
 * handshakes and 16 KiB records over a socketpair, GmSSL client against
 * GmSSL server in two threads, each side's cost its own thread CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so time spent blocked waiting for the peer is
 * not counted. Built by bench/tls/build_tls13.sh against a GmSSL prefix for
 * measuring only; crates/shangmi/benches/tls13.rs measures shangmi the same
 * way and runs this program alternately with itself (`--gmssl PATH`).
 *
 *   gmssl_tls13_bench VECTORS [-suite NAME]... [-handshakes N] [-records N]
 *
 * VECTORS is tests/vectors/tlcp (server-sign-chain.pem with its
 * GmSSL-readable encrypted key server-sign.enc-key.pem, password
 * "shangmi-test"; root-ca.pem). NAME is TLS_SM4_GCM_SM3 or TLS_SM4_CCM_SM3
 * (default: both). Handshakes run without client certificates; the client
 * validates the server's chain. One untimed handshake per suite warms up
 * first. Output, one line per figure (averages per operation, nanoseconds):
 *
 *   handshake suite=NAME n=N client_ns=X server_ns=Y
 *   record suite=NAME n=N bytes=16384 encrypt_ns=X decrypt_ns=Y
 *
 * The record figures include the socket write/read of the record, which an
 * in-memory measurement does not pay (a few microseconds per 16 KiB).
 */
#define _GNU_SOURCE
#include <gmssl/sm2.h>
#include <gmssl/sm3.h>
#include <gmssl/sm4.h>
#include <gmssl/tls.h>

#define BENCH_NAME "gmssl_tls13_bench"
#include "gmssl_bench.h"

static const char *dir;
static char server_chain[4096], server_key[4096], root_ca[4096];

struct suite {
	const char *name;
	int code;
};

static const struct suite SUITES[] = {
	{"TLS_SM4_GCM_SM3", TLS_cipher_sm4_gcm_sm3},
	{"TLS_SM4_CCM_SM3", TLS_cipher_sm4_ccm_sm3},
};
#define NSUITES 2

static void setup(struct side *s, const void *suite, int is_client)
{
	const struct suite *su = suite;

	const int group = TLS_curve_sm2p256v1, sig_alg = TLS_sig_sm2sig_sm3;

	memset(s, 0, sizeof(*s));
	s->is_client = is_client;
	if (tls_ctx_init(&s->ctx, TLS_protocol_tls13, is_client ? TLS_client_mode : TLS_server_mode) != 1
		|| tls_ctx_set_cipher_suites(&s->ctx, &su->code, 1) != 1
		|| tls_ctx_set_supported_groups(&s->ctx, &group, 1) != 1
		|| tls_ctx_set_signature_algorithms(&s->ctx, &sig_alg, 1) != 1)
		die("tls_ctx_init");
	if (is_client) {
		if (tls_ctx_set_ca_certificates(&s->ctx, root_ca, TLS_DEFAULT_VERIFY_DEPTH) != 1)
			die("client tls_ctx_set_ca_certificates");
	} else {
		if (tls_ctx_add_certificate_chain_and_key(&s->ctx, server_chain, server_key, PASS) != 1)
			die("tls_ctx_add_certificate_chain_and_key");
	}
}

int main(int argc, char **argv)
{
	const struct suite *chosen[8];
	int nchosen = 0, handshakes = 50, records = 200, i, j;

	if (argc < 2) {
		fprintf(stderr, "usage: %s VECTORS [-suite NAME]... [-handshakes N] [-records N]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-suite") && i + 1 < argc) {
			const char *name = argv[++i];
			for (j = 0; j < NSUITES && strcmp(SUITES[j].name, name); j++)
				;
			if (j == NSUITES || nchosen == 8) {
				fprintf(stderr, "unknown suite %s\n", name);
				return 2;
			}
			chosen[nchosen++] = &SUITES[j];
		} else if (!strcmp(argv[i], "-handshakes") && i + 1 < argc) {
			handshakes = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-records") && i + 1 < argc) {
			records = atoi(argv[++i]);
		} else {
			fprintf(stderr, "unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (nchosen == 0) {
		chosen[nchosen++] = &SUITES[0];
		chosen[nchosen++] = &SUITES[1];
	}
	snprintf(server_chain, sizeof(server_chain), "%s/server-sign-chain.pem", dir);
	snprintf(server_key, sizeof(server_key), "%s/server-sign.enc-key.pem", dir);
	snprintf(root_ca, sizeof(root_ca), "%s/root-ca.pem", dir);
	for (i = 0; i < nchosen; i++)
		bench_suite(chosen[i]->name, chosen[i], setup, handshakes, records);
	return 0;
}
