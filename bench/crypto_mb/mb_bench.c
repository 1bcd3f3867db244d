/*
 * Side-by-side timing of Intel's crypto_mb SM2 (eight operations in the eight
 * 64-bit lanes of AVX-512 IFMA) and OpenSSL's P-256 / SM2 verification, one
 * thread, one process. Built against a local crypto_mb by build.sh; crypto_mb
 * itself is never part of this repository.
 *
 *   mb_bench [-r ROUNDS] [-t MS_PER_ROUND] [-c] [-v] [-p]
 *
 * -c times with the process CPU clock (CLOCK_PROCESS_CPUTIME_ID) instead of
 * the monotonic wall clock: on a machine shared with other jobs, time spent
 * descheduled is then not counted (cache and SMT sharing still are).
 *
 * Before timing, every operation is checked on random keys and messages:
 * crypto_mb's verify accepts OpenSSL SM2 signatures and rejects a flipped
 * message or s in exactly that lane; crypto_mb's signatures verify under
 * OpenSSL; crypto_mb's k·P equals OpenSSL's EC_POINT_mul. A failed check
 * exits 1 before any figure is printed, so the figures measure real work.
 *
 * Output, one line per operation (microseconds per single operation, i.e.
 * one mb8 call's time / 8 for the crypto_mb rows):
 *   NAME us_per_op_min us_per_op_median
 * With -v also every round: "sample NAME us_per_op".
 *
 * -p also times crypto_mb's internal SM2 building blocks (global symbols of
 * its static archive, declared here by hand from its internal headers, so
 * tied to the measured version) and prints "piece NAME ns_min ns_median",
 * nanoseconds per lane (one 8-lane call / 8): field product and square,
 * Fermat inversion, point doubling, additions, t·P and s·G.
 *
 * Operations:
 *   crypto_mb_sm2_verify  mbx_sm2_ecdsa_verify_mb8: message + user ID in,
 *                         so Z = SM3(ENTL||ID||a||b||G||P) and e = SM3(Z||M)
 *                         are computed per lane (8-lane SM3), then s·G + t·P.
 *   crypto_mb_sm2_ecdh    mbx_sm2_ecdh_mb8: on-curve check, constant-time
 *                         k·P, inversion, affine x (the variable-base product
 *                         SM2 decryption needs).
 *   crypto_mb_sm2_sign    mbx_sm2_ecdsa_sign_mb8: Z, e, k·G, (1+d)^-1;
 *                         the nonces k are given by the caller (no RNG cost).
 *   openssl_p256_verify   EVP_PKEY_verify of a 32-byte digest, one at a time
 *                         (what `openssl speed ecdsap256` times).
 *   openssl_sm2_verify    EVP_DigestVerify with SM3 and the same user ID
 *                         (Z and e included), one at a time.
 *   crypto_mb_sm3_mb16    mbx_sm3_msg_digest_mb16 of 16 messages of 64 KiB
 *                         (16 AVX-512 lanes); per message.
 *   openssl_sm3_64k       EVP_Digest SM3 of one 64 KiB message.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <immintrin.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/rand.h>

#include <crypto_mb/cpu_features.h>
#include <crypto_mb/ec_sm2.h>
#include <crypto_mb/sm3.h>
#include <crypto_mb/status.h>

#define LANES 8
#define MSG_LEN 64
static const unsigned char UID[] = "1234567812345678"; /* GB/T 32918 default */
#define UID_LEN 16

static void die(const char *what) {
    fprintf(stderr, "mb_bench: %s\n", what);
    ERR_print_errors_fp(stderr);
    exit(1);
}

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now_us(void) {
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* ---- keys and OpenSSL references ------------------------------------ */

typedef struct {
    EVP_PKEY *pkey;
    uint64_t d[4], x[4], y[4]; /* little-endian 64-bit limbs (crypto_mb's BNU) */
} sm2_key;

static void bn_to_limbs(const BIGNUM *bn, uint64_t out[4]) {
    unsigned char le[32];
    if (BN_bn2lebinpad(bn, le, 32) != 32) die("BN_bn2lebinpad");
    memcpy(out, le, 32); /* x86-64 is little-endian */
}

static void sm2_keygen(sm2_key *k) {
    k->pkey = EVP_PKEY_Q_keygen(NULL, NULL, "SM2");
    if (!k->pkey) die("SM2 keygen");
    BIGNUM *d = NULL, *x = NULL, *y = NULL;
    if (!EVP_PKEY_get_bn_param(k->pkey, OSSL_PKEY_PARAM_PRIV_KEY, &d) ||
        !EVP_PKEY_get_bn_param(k->pkey, OSSL_PKEY_PARAM_EC_PUB_X, &x) ||
        !EVP_PKEY_get_bn_param(k->pkey, OSSL_PKEY_PARAM_EC_PUB_Y, &y))
        die("SM2 key params");
    bn_to_limbs(d, k->d);
    bn_to_limbs(x, k->x);
    bn_to_limbs(y, k->y);
    BN_clear_free(d);
    BN_free(x);
    BN_free(y);
}

/* An SM2 DigestSign/DigestVerify context with the user ID set. */
static EVP_MD_CTX *sm2_md_ctx(EVP_PKEY *pkey, int sign) {
    EVP_MD_CTX *m = EVP_MD_CTX_new();
    EVP_PKEY_CTX *p = EVP_PKEY_CTX_new(pkey, NULL);
    if (!m || !p || EVP_PKEY_CTX_set1_id(p, UID, UID_LEN) <= 0) die("SM2 ctx");
    EVP_MD_CTX_set_pkey_ctx(m, p);
    int ok = sign ? EVP_DigestSignInit(m, NULL, EVP_sm3(), NULL, pkey)
                  : EVP_DigestVerifyInit(m, NULL, EVP_sm3(), NULL, pkey);
    if (ok != 1) die("SM2 DigestSign/VerifyInit");
    return m; /* the caller frees p too: EVP_MD_CTX_free does not own it */
}

static void openssl_sm2_sign(EVP_PKEY *pkey, const unsigned char *msg, unsigned char r[32],
                             unsigned char s[32]) {
    EVP_MD_CTX *m = sm2_md_ctx(pkey, 1);
    unsigned char der[80];
    size_t len = sizeof der;
    if (EVP_DigestSign(m, der, &len, msg, MSG_LEN) != 1) die("SM2 sign");
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)len);
    if (!sig) die("d2i_ECDSA_SIG");
    if (BN_bn2binpad(ECDSA_SIG_get0_r(sig), r, 32) != 32 || BN_bn2binpad(ECDSA_SIG_get0_s(sig), s, 32) != 32)
        die("r/s to bytes");
    ECDSA_SIG_free(sig);
    EVP_PKEY_CTX_free(EVP_MD_CTX_get_pkey_ctx(m));
    EVP_MD_CTX_free(m);
}

/* 1 if (r, s) is a valid SM2 signature of msg under pkey per OpenSSL. */
static int openssl_sm2_verify(EVP_PKEY *pkey, const unsigned char *msg, const unsigned char r[32],
                              const unsigned char s[32]) {
    ECDSA_SIG *sig = ECDSA_SIG_new();
    if (!sig || !ECDSA_SIG_set0(sig, BN_bin2bn(r, 32, NULL), BN_bin2bn(s, 32, NULL))) die("ECDSA_SIG");
    unsigned char *der = NULL;
    int len = i2d_ECDSA_SIG(sig, &der);
    EVP_MD_CTX *m = sm2_md_ctx(pkey, 0);
    int ok = EVP_DigestVerify(m, der, (size_t)len, msg, MSG_LEN) == 1;
    EVP_PKEY_CTX_free(EVP_MD_CTX_get_pkey_ctx(m));
    EVP_MD_CTX_free(m);
    OPENSSL_free(der);
    ECDSA_SIG_free(sig);
    return ok;
}

/* A scalar in [1, n-1] as little-endian limbs and as a BIGNUM. */
static void random_scalar(const EC_GROUP *g, uint64_t out[4], BIGNUM **bn) {
    *bn = BN_new();
    if (!*bn || !BN_priv_rand_range(*bn, EC_GROUP_get0_order(g))) die("random scalar");
    if (BN_is_zero(*bn)) BN_one(*bn);
    bn_to_limbs(*bn, out);
}

/* ---- the measured state --------------------------------------------- */

static sm2_key keys[LANES];
static unsigned char msgs[LANES][MSG_LEN];
static unsigned char sig_r[LANES][32], sig_s[LANES][32];
static uint64_t eph[LANES][4], peer_x[LANES][4], peer_y[LANES][4];
static unsigned char shared[LANES][32], out_r[LANES][32], out_s[LANES][32];

static const int8u *pa_r[LANES], *pa_s[LANES], *pa_id[LANES], *pa_msg[LANES];
static int id_len[LANES], msg_len[LANES];
static const int64u *pa_x[LANES], *pa_y[LANES], *pa_d[LANES], *pa_k[LANES], *pa_px[LANES], *pa_py[LANES];
static int8u *pa_shared[LANES], *pa_or[LANES], *pa_os[LANES];

static EVP_PKEY_CTX *p256_vctx;
static unsigned char p256_sig[80], p256_dgst[32];
static size_t p256_sig_len;
static EVP_MD_CTX *sm2_vctx;
static unsigned char sm2_der[80];
static size_t sm2_der_len;

static volatile unsigned sink;

static int op_mb_verify(void) {
    mbx_status st = mbx_sm2_ecdsa_verify_mb8(pa_r, pa_s, pa_id, id_len, pa_msg, msg_len, pa_x, pa_y, NULL, NULL);
    sink += (unsigned)st;
    return st == MBX_STATUS_OK;
}

static int op_mb_ecdh(void) {
    mbx_status st = mbx_sm2_ecdh_mb8(pa_shared, pa_d, pa_px, pa_py, NULL, NULL);
    sink += (unsigned)st + shared[0][0];
    return st == MBX_STATUS_OK;
}

static int op_mb_sign(void) {
    mbx_status st = mbx_sm2_ecdsa_sign_mb8(pa_or, pa_os, pa_id, id_len, pa_msg, msg_len, pa_k, pa_d, pa_x, pa_y,
                                           NULL, NULL);
    sink += (unsigned)st + out_s[0][0];
    return st == MBX_STATUS_OK;
}

static void check(int cond, const char *what);

/* SM3: 16 messages of 64 KiB, each checked against OpenSSL's SM3. */
#define SM3_MSG (64 * 1024)
static unsigned char *sm3_msgs[16];
static unsigned char sm3_out[16][32];
static int sm3_lens[16];

static int op_mb_sm3(void) {
    unsigned char *outs[16];
    for (int i = 0; i < 16; i++) outs[i] = sm3_out[i];
    mbx_status16 st = mbx_sm3_msg_digest_mb16((const int8u *const *)sm3_msgs, sm3_lens, outs);
    sink += (unsigned)st + sm3_out[15][31];
    return st == 0; /* MBX_STATUS_OK (0) in all sixteen lanes */
}

static int op_openssl_sm3(void) {
    unsigned char md[32];
    unsigned int n = 0;
    int ok = EVP_Digest(sm3_msgs[0], SM3_MSG, md, &n, EVP_sm3(), NULL) == 1;
    sink += md[0];
    return ok;
}

static void sm3_setup_and_check(void) {
    for (int i = 0; i < 16; i++) {
        sm3_msgs[i] = malloc(SM3_MSG);
        check(sm3_msgs[i] && RAND_bytes(sm3_msgs[i], SM3_MSG) == 1, "SM3 messages");
        sm3_lens[i] = SM3_MSG;
    }
    check(op_mb_sm3(), "crypto_mb SM3 mb16 failed");
    for (int i = 0; i < 16; i++) {
        unsigned char md[32];
        unsigned int n = 0;
        check(EVP_Digest(sm3_msgs[i], SM3_MSG, md, &n, EVP_sm3(), NULL) == 1 && n == 32, "OpenSSL SM3");
        check(!memcmp(md, sm3_out[i], 32), "crypto_mb SM3 differs from OpenSSL's");
    }
}

static int op_p256_verify(void) {
    int ok = EVP_PKEY_verify(p256_vctx, p256_sig, p256_sig_len, p256_dgst, sizeof p256_dgst) == 1;
    sink += (unsigned)ok;
    return ok;
}

static int op_sm2_verify(void) {
    /* EVP_DigestVerify finishes the context; re-init per call, as a caller must. */
    if (EVP_DigestVerifyInit(sm2_vctx, NULL, EVP_sm3(), NULL, keys[0].pkey) != 1) die("SM2 re-init");
    int ok = EVP_DigestVerify(sm2_vctx, sm2_der, sm2_der_len, msgs[0], MSG_LEN) == 1;
    sink += (unsigned)ok;
    return ok;
}

/* ---- internal building blocks (-p) ------------------------------------
 * crypto_mb's k1 (AVX-512) routines: a field element of eight lanes is five
 * __m512i (radix 2^52, Montgomery form, limb j of every lane in register j);
 * a point is Jacobian X, Y, Z. Scalars for the point products are four
 * 64-bit words per lane, transposed (word j of every lane in register j),
 * plus a zero register. */
typedef __m512i V;
typedef struct { V X[5], Y[5], Z[5]; } mb_point;
typedef struct { V x[5], y[5]; } mb_affine;
extern void ifma_amm52_psm2_mb8(V r[], const V a[], const V b[]);
extern void ifma_ams52_psm2_mb8(V r[], const V a[]);
extern void ifma_aminv52_psm2_mb8(V r[], const V z[]);
extern void ifma_ec_sm2_dbl_point_mb8(mb_point *r, const mb_point *p);
extern void ifma_ec_sm2_add_point_mb8(mb_point *r, const mb_point *p, const mb_point *q);
extern void ifma_ec_sm2_add_point_affine_mb8(mb_point *r, const mb_point *p, const mb_affine *q);
extern void ifma_ec_sm2_mul_point_mb8(mb_point *r, const mb_point *p, const V scalar[]);
extern void ifma_ec_sm2_mul_pointbase_mb8(mb_point *r, const V scalar[]);

static V pa[5], pb[5], pc[5], sc_a[5], sc_b[5];
static mb_point pt_p, pt_q, pt_r;
static mb_affine pt_aff;

static int piece_mul(void) { ifma_amm52_psm2_mb8(pc, pa, pb); ifma_amm52_psm2_mb8(pa, pc, pb); return 1; }
static int piece_sqr(void) { ifma_ams52_psm2_mb8(pc, pa); ifma_ams52_psm2_mb8(pa, pc); return 1; }
static int piece_inv(void) { ifma_aminv52_psm2_mb8(pc, pa); return 1; }
static int piece_dbl(void) { ifma_ec_sm2_dbl_point_mb8(&pt_r, &pt_p); return 1; }
static int piece_add(void) { ifma_ec_sm2_add_point_mb8(&pt_r, &pt_p, &pt_q); return 1; }
static int piece_add_affine(void) { ifma_ec_sm2_add_point_affine_mb8(&pt_r, &pt_p, &pt_aff); return 1; }
static int piece_mul_point(void) { ifma_ec_sm2_mul_point_mb8(&pt_r, &pt_p, sc_a); return 1; }
static int piece_mul_pointbase(void) { ifma_ec_sm2_mul_pointbase_mb8(&pt_r, sc_b); return 1; }

static void pieces_setup(void) {
    /* valid points: s·G and t·G from the fixed-base product (Montgomery
     * Jacobian), random 256-bit scalars below n (top bit cleared), field
     * elements = their coordinates */
    uint64_t w[8][4];
    for (int pass = 0; pass < 2; pass++) {
        if (RAND_bytes((unsigned char *)w, sizeof w) != 1) die("RAND_bytes");
        V *sc = pass ? sc_b : sc_a;
        for (int j = 0; j < 4; j++) {
            uint64_t col[8];
            for (int l = 0; l < 8; l++) col[l] = w[l][j] & (j == 3 ? 0x7fffffffffffffffULL : ~0ULL);
            sc[j] = _mm512_loadu_si512(col);
        }
        sc[4] = _mm512_setzero_si512();
    }
    ifma_ec_sm2_mul_pointbase_mb8(&pt_p, sc_a);
    ifma_ec_sm2_mul_pointbase_mb8(&pt_q, sc_b);
    ifma_aminv52_psm2_mb8(pc, pt_q.Z); /* an affine point for the mixed addition */
    ifma_ams52_psm2_mb8(pb, pc);
    ifma_amm52_psm2_mb8(pt_aff.x, pt_q.X, pb);
    ifma_amm52_psm2_mb8(pb, pb, pc);
    ifma_amm52_psm2_mb8(pt_aff.y, pt_q.Y, pb);
    memcpy(pa, pt_p.X, sizeof pa);
    memcpy(pb, pt_q.Y, sizeof pb);
}

typedef struct {
    const char *name;
    int (*run)(void);
    int ops_per_call;
    long calls;       /* calls per round, set by calibration */
    double *samples;  /* us per op, one per round */
} bench;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Warm-up, calibration to ~round_ms per round, then the rounds with the
 * operations interleaved (drift hits all alike); prints PREFIX NAME min
 * median in microseconds per single operation times SCALE. */
static void measure(bench *benches, int nb, int rounds, double round_ms, int verbose, const char *prefix,
                    double scale) {
    for (int b = 0; b < nb; b++) {
        for (int pass = 0; pass < 2; pass++) {
            long n = 0;
            double t0 = now_us(), t;
            do {
                if (!benches[b].run()) die("operation failed during warm-up");
                n++;
                t = now_us();
            } while (t - t0 < round_ms * 1000.0);
            benches[b].calls = n;
        }
        benches[b].samples = calloc((size_t)rounds, sizeof(double));
        if (!benches[b].samples) die("calloc");
    }
    for (int r = 0; r < rounds; r++) {
        for (int b = 0; b < nb; b++) {
            double t0 = now_us();
            for (long i = 0; i < benches[b].calls; i++) benches[b].run();
            double dt = now_us() - t0;
            benches[b].samples[r] = scale * dt / ((double)benches[b].calls * benches[b].ops_per_call);
            if (verbose) printf("sample %s %.3f\n", benches[b].name, benches[b].samples[r]);
        }
    }
    for (int b = 0; b < nb; b++) {
        qsort(benches[b].samples, (size_t)rounds, sizeof(double), cmp_double);
        double med = rounds % 2 ? benches[b].samples[rounds / 2]
                                : (benches[b].samples[rounds / 2 - 1] + benches[b].samples[rounds / 2]) / 2;
        printf("%s%s %.3f %.3f\n", prefix, benches[b].name, benches[b].samples[0], med);
        free(benches[b].samples);
    }
}

/* ---- checks ---------------------------------------------------------- */

static void check(int cond, const char *what) {
    if (!cond) die(what);
}

static void setup_and_check(void) {
    EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_sm2);
    BN_CTX *bctx = BN_CTX_new();
    check(g && bctx, "SM2 group");
    for (int i = 0; i < LANES; i++) {
        sm2_keygen(&keys[i]);
        check(RAND_bytes(msgs[i], MSG_LEN) == 1, "RAND_bytes");
        openssl_sm2_sign(keys[i].pkey, msgs[i], sig_r[i], sig_s[i]);
        check(openssl_sm2_verify(keys[i].pkey, msgs[i], sig_r[i], sig_s[i]), "OpenSSL rejects its own SM2 signature");
        BIGNUM *k;
        random_scalar(g, eph[i], &k);
        BN_clear_free(k);
        /* a peer point for k·P: another random key's public point */
        sm2_key peer;
        sm2_keygen(&peer);
        memcpy(peer_x[i], peer.x, 32);
        memcpy(peer_y[i], peer.y, 32);
        EVP_PKEY_free(peer.pkey);

        pa_r[i] = sig_r[i];
        pa_s[i] = sig_s[i];
        pa_id[i] = UID;
        id_len[i] = UID_LEN;
        pa_msg[i] = msgs[i];
        msg_len[i] = MSG_LEN;
        pa_x[i] = (const int64u *)keys[i].x;
        pa_y[i] = (const int64u *)keys[i].y;
        pa_d[i] = (const int64u *)keys[i].d;
        pa_k[i] = (const int64u *)eph[i];
        pa_px[i] = (const int64u *)peer_x[i];
        pa_py[i] = (const int64u *)peer_y[i];
        pa_shared[i] = shared[i];
        pa_or[i] = out_r[i];
        pa_os[i] = out_s[i];
    }

    /* verify: all eight OpenSSL signatures accepted */
    mbx_status st = mbx_sm2_ecdsa_verify_mb8(pa_r, pa_s, pa_id, id_len, pa_msg, msg_len, pa_x, pa_y, NULL, NULL);
    check(st == MBX_STATUS_OK, "crypto_mb rejects OpenSSL SM2 signatures");
    /* a flipped message bit in lane 3 and a flipped s bit in lane 6: exactly those lanes fail */
    msgs[3][17] ^= 0x10;
    sig_s[6][31] ^= 0x01;
    st = mbx_sm2_ecdsa_verify_mb8(pa_r, pa_s, pa_id, id_len, pa_msg, msg_len, pa_x, pa_y, NULL, NULL);
    for (int i = 0; i < LANES; i++) {
        int bad = MBX_GET_STS(st, i) != MBX_STATUS_OK;
        check(bad == (i == 3 || i == 6), "crypto_mb verify: wrong lane verdict on flipped inputs");
    }
    msgs[3][17] ^= 0x10;
    sig_s[6][31] ^= 0x01;
    /* the wrong user ID in every lane: all fail */
    {
        static const unsigned char other_id[] = "1234567812345679";
        const int8u *pa_other[LANES];
        for (int i = 0; i < LANES; i++) pa_other[i] = other_id;
        st = mbx_sm2_ecdsa_verify_mb8(pa_r, pa_s, pa_other, id_len, pa_msg, msg_len, pa_x, pa_y, NULL, NULL);
        for (int i = 0; i < LANES; i++) check(MBX_GET_STS(st, i) != MBX_STATUS_OK, "crypto_mb verify ignores the ID");
    }

    /* sign: crypto_mb's signatures verify under OpenSSL */
    st = mbx_sm2_ecdsa_sign_mb8(pa_or, pa_os, pa_id, id_len, pa_msg, msg_len, pa_k, pa_d, pa_x, pa_y, NULL, NULL);
    check(st == MBX_STATUS_OK, "crypto_mb sign failed");
    for (int i = 0; i < LANES; i++)
        check(openssl_sm2_verify(keys[i].pkey, msgs[i], out_r[i], out_s[i]), "OpenSSL rejects a crypto_mb signature");

    /* k·P: x of d·Peer equals OpenSSL's EC_POINT_mul */
    st = mbx_sm2_ecdh_mb8(pa_shared, pa_d, pa_px, pa_py, NULL, NULL);
    check(st == MBX_STATUS_OK, "crypto_mb ecdh failed");
    for (int i = 0; i < LANES; i++) {
        unsigned char le[32], want[32];
        BIGNUM *d, *px, *py, *rx = BN_new();
        memcpy(le, keys[i].d, 32);
        d = BN_lebin2bn(le, 32, NULL);
        memcpy(le, peer_x[i], 32);
        px = BN_lebin2bn(le, 32, NULL);
        memcpy(le, peer_y[i], 32);
        py = BN_lebin2bn(le, 32, NULL);
        EC_POINT *P = EC_POINT_new(g), *R = EC_POINT_new(g);
        check(d && px && py && rx && P && R, "alloc");
        check(EC_POINT_set_affine_coordinates(g, P, px, py, bctx) == 1, "peer point");
        check(EC_POINT_mul(g, R, NULL, P, d, bctx) == 1, "EC_POINT_mul");
        check(EC_POINT_get_affine_coordinates(g, R, rx, NULL, bctx) == 1, "affine");
        check(BN_bn2binpad(rx, want, 32) == 32, "x bytes");
        check(memcmp(want, shared[i], 32) == 0, "crypto_mb k·P differs from OpenSSL's");
        EC_POINT_free(P);
        EC_POINT_free(R);
        BN_clear_free(d);
        BN_free(px);
        BN_free(py);
        BN_free(rx);
    }

    /* OpenSSL P-256: sign a random digest once, verify it repeatedly */
    EVP_PKEY *p256 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    check(p256 != NULL, "P-256 keygen");
    check(RAND_bytes(p256_dgst, sizeof p256_dgst) == 1, "RAND_bytes");
    EVP_PKEY_CTX *sctx = EVP_PKEY_CTX_new(p256, NULL);
    p256_sig_len = sizeof p256_sig;
    check(sctx && EVP_PKEY_sign_init(sctx) == 1 &&
              EVP_PKEY_sign(sctx, p256_sig, &p256_sig_len, p256_dgst, sizeof p256_dgst) == 1,
          "P-256 sign");
    EVP_PKEY_CTX_free(sctx);
    p256_vctx = EVP_PKEY_CTX_new(p256, NULL);
    check(p256_vctx && EVP_PKEY_verify_init(p256_vctx) == 1, "P-256 verify init");
    check(op_p256_verify(), "P-256 verify rejects its own signature");
    p256_dgst[5] ^= 1;
    check(!op_p256_verify(), "P-256 verify accepts a flipped digest");
    ERR_clear_error();
    p256_dgst[5] ^= 1;

    /* OpenSSL SM2 verify one at a time (DER of lane 0's signature) */
    {
        ECDSA_SIG *sig = ECDSA_SIG_new();
        check(sig && ECDSA_SIG_set0(sig, BN_bin2bn(sig_r[0], 32, NULL), BN_bin2bn(sig_s[0], 32, NULL)), "sig");
        unsigned char *p = sm2_der;
        sm2_der_len = (size_t)i2d_ECDSA_SIG(sig, &p);
        ECDSA_SIG_free(sig);
        sm2_vctx = sm2_md_ctx(keys[0].pkey, 0);
        check(op_sm2_verify(), "OpenSSL SM2 verify (timed form) rejects");
    }
    EC_GROUP_free(g);
    BN_CTX_free(bctx);
}

int main(int argc, char **argv) {
    int rounds = 15, verbose = 0, pieces = 0;
    double round_ms = 20.0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "-r") && a + 1 < argc) rounds = atoi(argv[++a]);
        else if (!strcmp(argv[a], "-t") && a + 1 < argc) round_ms = atof(argv[++a]);
        else if (!strcmp(argv[a], "-v")) verbose = 1;
        else if (!strcmp(argv[a], "-c")) clock_id = CLOCK_PROCESS_CPUTIME_ID;
        else if (!strcmp(argv[a], "-p")) pieces = 1;
        else {
            fprintf(stderr, "usage: %s [-r ROUNDS] [-t MS_PER_ROUND] [-c] [-v] [-p]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1 || round_ms <= 0) die("rounds and round time must be positive");

    int64u feats = mbx_get_cpu_features();
    if (!mbx_is_crypto_mb_applicable(feats)) die("crypto_mb: this CPU lacks the AVX-512 IFMA path");

    setup_and_check();
    sm3_setup_and_check();

    bench benches[] = {
        {"crypto_mb_sm2_verify", op_mb_verify, LANES, 0, NULL},
        {"crypto_mb_sm2_ecdh", op_mb_ecdh, LANES, 0, NULL},
        {"crypto_mb_sm2_sign", op_mb_sign, LANES, 0, NULL},
        {"openssl_p256_verify", op_p256_verify, 1, 0, NULL},
        {"openssl_sm2_verify", op_sm2_verify, 1, 0, NULL},
        {"crypto_mb_sm3_mb16", op_mb_sm3, 16, 0, NULL},
        {"openssl_sm3_64k", op_openssl_sm3, 1, 0, NULL},
    };
    measure(benches, (int)(sizeof benches / sizeof benches[0]), rounds, round_ms, verbose, "", 1.0);
    if (pieces) {
        pieces_setup();
        bench parts[] = {
            {"field_mul", piece_mul, 2 * LANES, 0, NULL},
            {"field_sqr", piece_sqr, 2 * LANES, 0, NULL},
            {"field_inv", piece_inv, LANES, 0, NULL},
            {"point_dbl", piece_dbl, LANES, 0, NULL},
            {"point_add", piece_add, LANES, 0, NULL},
            {"point_add_affine", piece_add_affine, LANES, 0, NULL},
            {"mul_point_tP", piece_mul_point, LANES, 0, NULL},
            {"mul_pointbase_sG", piece_mul_pointbase, LANES, 0, NULL},
        };
        measure(parts, (int)(sizeof parts / sizeof parts[0]), rounds, round_ms, 0, "piece ", 1000.0);
    }
    return sink == 0xdeadbeefu ? 3 : 0; /* reads sink: keeps the results live */
}
