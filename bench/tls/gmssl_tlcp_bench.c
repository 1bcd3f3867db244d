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
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <gmssl/sm2.h>
#include <gmssl/sm3.h>
#include <gmssl/sm4.h>
#include <gmssl/tls.h>

#define PASS "shangmi-test"
#define RECORD 16384

static const char *dir;
static char server_certs[4096], server_keys[4096], client_certs[4096], client_keys[4096], root_ca[4096];

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "gmssl_tlcp_bench: %s failed\n", what);
	exit(1);
}

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

/* One side's job: contexts are built once per suite (loading the
 * password-protected keys is not part of a handshake). */
struct side {
	TLS_CTX ctx;
	int is_client;
	int fd;
	int records; /* records to send (client) or receive (server) after the handshake */
	uint64_t hs_ns, rec_ns;
	int ok;
};

static void setup(struct side *s, const struct suite *su, int is_client)
{
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

static void *run_side(void *arg)
{
	struct side *s = arg;
	static __thread uint8_t buf[RECORD];
	TLS_CONNECT *conn = calloc(1, sizeof(TLS_CONNECT));
	int ret, i;
	uint64_t t0, t1;

	s->ok = 0;
	if (!conn)
		return NULL;
	t0 = thread_ns();
	if (tls_init(conn, &s->ctx) != 1)
		goto end;
	if (s->is_client && tls_set_hostname(conn, "localhost") != 1)
		goto end;
	if (tls_set_socket(conn, s->fd) != 1)
		goto end;
	do {
		ret = tls_do_handshake(conn);
	} while (ret == TLS_ERROR_RECV_AGAIN || ret == TLS_ERROR_SEND_AGAIN);
	t1 = thread_ns();
	if (ret != 1)
		goto end;
	s->hs_ns = t1 - t0;

	t0 = thread_ns();
	for (i = 0; i < s->records; i++) {
		size_t done = 0, n;
		while (done < RECORD) {
			if (s->is_client)
				ret = tls_send(conn, buf + done, RECORD - done, &n);
			else
				ret = tls_recv(conn, buf + done, RECORD - done, &n);
			if (ret == TLS_ERROR_RECV_AGAIN || ret == TLS_ERROR_SEND_AGAIN)
				continue;
			if (ret != 1)
				goto end;
			done += n;
		}
	}
	s->rec_ns = thread_ns() - t0;
	s->ok = 1;
end:
	tls_cleanup(conn);
	free(conn);
	return NULL;
}

/* One connection: a full handshake, then `records` records client to server. */
static void connection(struct side *c, struct side *s, int records)
{
	int fds[2];
	pthread_t tc, ts;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
		die("socketpair");
	c->fd = fds[0];
	s->fd = fds[1];
	c->records = s->records = records;
	if (pthread_create(&ts, NULL, run_side, s) != 0 || pthread_create(&tc, NULL, run_side, c) != 0)
		die("pthread_create");
	pthread_join(tc, NULL);
	pthread_join(ts, NULL);
	close(fds[0]);
	close(fds[1]);
	if (!c->ok || !s->ok)
		die("TLCP connection");
}

static void bench_suite(const struct suite *su, int handshakes, int records)
{
	struct side *c = malloc(sizeof(*c)), *s = malloc(sizeof(*s));
	uint64_t cns = 0, sns = 0;
	int i;

	if (!c || !s)
		die("malloc");
	setup(c, su, 1);
	setup(s, su, 0);
	connection(c, s, 0); /* warm-up */
	for (i = 0; i < handshakes; i++) {
		connection(c, s, 0);
		cns += c->hs_ns;
		sns += s->hs_ns;
	}
	if (handshakes > 0)
		printf("handshake suite=%s n=%d client_ns=%llu server_ns=%llu\n", su->name, handshakes,
			(unsigned long long)(cns / handshakes), (unsigned long long)(sns / handshakes));
	if (records > 0) {
		connection(c, s, records);
		printf("record suite=%s n=%d bytes=%d encrypt_ns=%llu decrypt_ns=%llu\n", su->name, records, RECORD,
			(unsigned long long)(c->rec_ns / records), (unsigned long long)(s->rec_ns / records));
	}
	fflush(stdout);
	tls_ctx_cleanup(&c->ctx);
	tls_ctx_cleanup(&s->ctx);
	free(c);
	free(s);
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
		bench_suite(chosen[i], handshakes, records);
	if (prims)
		primitives();
	return 0;
}
