/*
 * GmSSL 3's TLCP, timed: full handshakes and 16 KiB records over a
 * socketpair, client and server in two threads, each side's cost its own
 * thread CPU time (CLOCK_THREAD_CPUTIME_ID), so time spent blocked waiting
 * for the peer is not counted. Built by bench/tls/build.sh against a GmSSL
 * prefix for measuring only; `shangmi bench tls --gmssl-tls-bench PATH`
 * runs it alternately with shangmi's own measurement.
 *
 *   gmssl_tlcp_bench VECTORS [-suite NAME]... [-handshakes N] [-records N]
 *                    [-primitives]
 *
 * VECTORS is tests/vectors/tlcp (the GmSSL-format files, password
 * "shangmi-test"). NAME is ECC_SM4_CBC_SM3, ECC_SM4_GCM_SM3,
 * ECDHE_SM4_CBC_SM3 or ECDHE_SM4_GCM_SM3 (default: ECC GCM, ECC CBC,
 * ECDHE GCM). ECC handshakes run without client certificates; ECDHE ones
 * with the client's two certificates, which the server validates. One
 * untimed handshake per suite warms up first. Output, one line per figure
 * (averages per operation, nanoseconds):
 *
 *   handshake suite=NAME n=N client_ns=X server_ns=Y
 *   record suite=NAME n=N bytes=16384 encrypt_ns=X decrypt_ns=Y
 *   primitive name=NAME n=N ns=X
 *
 * The record figures include the socket write/read of the record (a few
 * microseconds per 16 KiB on Linux), which an in-memory measurement does
 * not pay; the primitive lines give GmSSL's bare SM4-GCM, SM4-CBC, HMAC-SM3
 * and SM2 costs for comparison.
 */
#define _GNU_SOURCE
#include <gmssl/sm2.h>
#include <gmssl/sm3.h>
#include <gmssl/sm4.h>
#include <gmssl/tls.h>

#define BENCH_NAME "gmssl_tlcp_bench"
#include "gmssl_bench.h"

static const char *dir;
static char server_certs[4096], server_keys[4096], client_certs[4096], client_keys[4096], root_ca[4096];

struct suite {
	const char *name;
	int code;
	int ecdhe;
};

static const struct suite SUITES[] = {
	{"ECC_SM4_GCM_SM3", TLS_cipher_ecc_sm4_gcm_sm3, 0},
	{"ECC_SM4_CBC_SM3", TLS_cipher_ecc_sm4_cbc_sm3, 0},
	{"ECDHE_SM4_GCM_SM3", TLS_cipher_ecdhe_sm4_gcm_sm3, 1},
	{"ECDHE_SM4_CBC_SM3", TLS_cipher_ecdhe_sm4_cbc_sm3, 1},
};

static void setup(struct side *s, const void *suite, int is_client)
{
	const struct suite *su = suite;

	memset(s, 0, sizeof(*s));
	s->is_client = is_client;
	if (tls_ctx_init(&s->ctx, TLS_protocol_tlcp, is_client ? TLS_client_mode : TLS_server_mode) != 1
		|| tls_ctx_set_cipher_suites(&s->ctx, &su->code, 1) != 1)
		die("tls_ctx_init");
	if (is_client) {
		if (tls_ctx_set_ca_certificates(&s->ctx, root_ca, TLS_DEFAULT_VERIFY_DEPTH) != 1)
			die("client tls_ctx_set_ca_certificates");
		if (su->ecdhe && tls_ctx_set_tlcp_client_certificate_and_keys(&s->ctx, client_certs, client_keys, PASS) != 1)
			die("tls_ctx_set_tlcp_client_certificate_and_keys");
	} else {
		if (tlcp_ctx_add_server_certificate_and_keys(&s->ctx, server_certs, server_keys, PASS) != 1)
			die("tlcp_ctx_add_server_certificate_and_keys");
		if (su->ecdhe) {
			if (tls_ctx_set_ca_certificates(&s->ctx, root_ca, TLS_DEFAULT_VERIFY_DEPTH) != 1
				|| tls_ctx_enable_certificate_request(&s->ctx, 1) != 1)
				die("server client-certificate setup");
		}
	}
}

#define PRIM(label, n, body)                                                                          \
	do {                                                                                          \
		uint64_t _t0 = thread_ns();                                                           \
		for (int _i = 0; _i < (n); _i++) {                                                    \
			body;                                                                         \
		}                                                                                     \
		printf("primitive name=%s n=%d ns=%llu\n", label, (n),                                \
			(unsigned long long)((thread_ns() - _t0) / (uint64_t)(n)));                   \
	} while (0)

static void primitives(void)
{
	static uint8_t in[RECORD], out[RECORD + 64];
	uint8_t key[16] = {1}, iv[16] = {2}, tag[16], mac[32], dgst[32] = {3};
	uint8_t sig[SM2_MAX_SIGNATURE_SIZE], ct[SM2_MAX_CIPHERTEXT_SIZE], pt[SM2_MAX_PLAINTEXT_SIZE];
	uint8_t pms[48] = {4};
	size_t siglen, ctlen, ptlen;
	SM4_KEY sk;
	SM3_HMAC_CTX h;
	SM2_KEY k;

	sm4_set_encrypt_key(&sk, key);
	PRIM("sm4_gcm_encrypt_16k", 200, sm4_gcm_encrypt(&sk, iv, 12, key, 13, in, RECORD, out, 16, tag));
	PRIM("sm4_cbc_encrypt_16k", 200, sm4_cbc_encrypt_blocks(&sk, iv, in, RECORD / 16, out));
	PRIM("sm3_hmac_16k", 200, (sm3_hmac_init(&h, key, 32), sm3_hmac_update(&h, in, RECORD), sm3_hmac_finish(&h, mac)));
	if (sm2_key_generate(&k) != 1)
		die("sm2_key_generate");
	PRIM("sm2_sign_digest", 200, (siglen = sizeof(sig), sm2_sign(&k, dgst, sig, &siglen)));
	PRIM("sm2_verify_digest", 200, sm2_verify(&k, dgst, sig, siglen));
	PRIM("sm2_encrypt_48", 200, (ctlen = sizeof(ct), sm2_encrypt(&k, pms, sizeof(pms), ct, &ctlen)));
	PRIM("sm2_decrypt_48", 200, (ptlen = sizeof(pt), sm2_decrypt(&k, ct, ctlen, pt, &ptlen)));
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const struct suite *chosen[8];
	int nchosen = 0, handshakes = 50, records = 200, prims = 0, i, j;

	if (argc < 2) {
		fprintf(stderr, "usage: %s VECTORS [-suite NAME]... [-handshakes N] [-records N] [-primitives]\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "-suite") && i + 1 < argc) {
			const char *name = argv[++i];
			for (j = 0; j < 4 && strcmp(SUITES[j].name, name); j++)
				;
			if (j == 4 || nchosen == 8) {
				fprintf(stderr, "unknown suite %s\n", name);
				return 2;
			}
			chosen[nchosen++] = &SUITES[j];
		} else if (!strcmp(argv[i], "-handshakes") && i + 1 < argc) {
			handshakes = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-records") && i + 1 < argc) {
			records = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "-primitives")) {
			prims = 1;
		} else {
			fprintf(stderr, "unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (nchosen == 0) {
		chosen[nchosen++] = &SUITES[0];
		chosen[nchosen++] = &SUITES[1];
		chosen[nchosen++] = &SUITES[2];
	}
	snprintf(server_certs, sizeof(server_certs), "%s/server-gmssl-certs.pem", dir);
	snprintf(server_keys, sizeof(server_keys), "%s/server-gmssl-keys.pem", dir);
	snprintf(client_certs, sizeof(client_certs), "%s/client-gmssl-certs.pem", dir);
	snprintf(client_keys, sizeof(client_keys), "%s/client-gmssl-keys.pem", dir);
	snprintf(root_ca, sizeof(root_ca), "%s/root-ca.pem", dir);
	for (i = 0; i < nchosen; i++)
		bench_suite(chosen[i]->name, chosen[i], setup, handshakes, records);
	if (prims)
		primitives();
	return 0;
}
