/*
 * What gmssl_tlcp_bench.c and gmssl_tls13_bench.c share: GmSSL client and
 * server in two threads over a socketpair, each side's cost its own thread
 * CPU time (CLOCK_THREAD_CPUTIME_ID, so time blocked on the peer is not
 * counted), full handshakes and then 16 KiB records client to server, and
 * the output lines the Rust benches and `shangmi bench tls` read:
 *
 *   handshake suite=NAME n=N client_ns=X server_ns=Y
 *   record suite=NAME n=N bytes=16384 encrypt_ns=X decrypt_ns=Y
 *
 * A program defines BENCH_NAME (its name in error messages) and includes
 * this after <gmssl/tls.h>; it provides the contexts (a `setup` function
 * filling `struct side`'s TLS_CTX for one suite and one side) and its own
 * command line. For measuring only, never linked into shangmi.
 */
#ifndef GMSSL_BENCH_H
#define GMSSL_BENCH_H

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PASS "shangmi-test"
#define RECORD 16384

static uint64_t thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, BENCH_NAME ": %s failed\n", what);
	exit(1);
}

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
		die("connection");
}

/* One suite: client and server contexts set up by the caller's `setup`
 * (given `suite` and 1 for the client, 0 for the server), one untimed
 * handshake to warm up, `handshakes` timed ones, then one connection
 * carrying `records` records; the averages printed as the lines above. */
static void bench_suite(const char *name, const void *suite, void (*setup)(struct side *, const void *, int),
	int handshakes, int records)
{
	struct side *c = malloc(sizeof(*c)), *s = malloc(sizeof(*s));
	uint64_t cns = 0, sns = 0;
	int i;

	if (!c || !s)
		die("malloc");
	setup(c, suite, 1);
	setup(s, suite, 0);
	connection(c, s, 0); /* warm-up */
	for (i = 0; i < handshakes; i++) {
		connection(c, s, 0);
		cns += c->hs_ns;
		sns += s->hs_ns;
	}
	if (handshakes > 0)
		printf("handshake suite=%s n=%d client_ns=%llu server_ns=%llu\n", name, handshakes,
			(unsigned long long)(cns / handshakes), (unsigned long long)(sns / handshakes));
	if (records > 0) {
		connection(c, s, records);
		printf("record suite=%s n=%d bytes=%d encrypt_ns=%llu decrypt_ns=%llu\n", name, records, RECORD,
			(unsigned long long)(c->rec_ns / records), (unsigned long long)(s->rec_ns / records));
	}
	fflush(stdout);
	tls_ctx_cleanup(&c->ctx);
	tls_ctx_cleanup(&s->ctx);
	free(c);
	free(s);
}

#endif
