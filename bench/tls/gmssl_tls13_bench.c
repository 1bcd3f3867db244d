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
static char server_chain[4096], server_key[4096], root_ca[4096];

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "gmssl_tls13_bench: %s failed\n", what);
	exit(1);
}

struct suite {
	const char *name;
	int code;
};

static const struct suite SUITES[] = {
	{"TLS_SM4_GCM_SM3", TLS_cipher_sm4_gcm_sm3},
	{"TLS_SM4_CCM_SM3", TLS_cipher_sm4_ccm_sm3},
};
#define NSUITES 2

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
		die("TLS 1.3 connection");
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
		bench_suite(chosen[i], handshakes, records);
	return 0;
}
