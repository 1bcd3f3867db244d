//! GHASH with PCLMULQDQ (eight blocks times H^8..H^1, one reduction per
//! eight) and VPCLMULQDQ on 256-bit (AVX2, two blocks per register) or
//! 512-bit registers (four per register), sixteen blocks times H^16..H^1 per
//! reduction. `pclmulqdq`/`vpclmulqdq` have data-independent latency and
//! memory is indexed only by public lengths.

use crate::cpu;
use core::arch::x86_64::*;

/// Carry-less product of two byte-reversed elements as (lo, mid, hi)
/// 128-bit pieces, the middle not yet folded in (so that sums of several
/// products fold once).
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
fn mul3(a: __m128i, b: __m128i) -> (__m128i, __m128i, __m128i) {
    let lo = _mm_clmulepi64_si128::<0x00>(a, b);
    let m = _mm_xor_si128(_mm_clmulepi64_si128::<0x10>(a, b), _mm_clmulepi64_si128::<0x01>(a, b));
    let hi = _mm_clmulepi64_si128::<0x11>(a, b);
    (lo, m, hi)
}

/// Folds the middle term into (hi, lo).
#[inline]
#[target_feature(enable = "sse2")]
fn fold(lo: __m128i, m: __m128i, hi: __m128i) -> (__m128i, __m128i) {
    (_mm_xor_si128(hi, _mm_srli_si128::<8>(m)), _mm_xor_si128(lo, _mm_slli_si128::<8>(m)))
}

/// Shifts the reflected 256-bit product left by one and reduces it modulo
/// x^128 + x^7 + x^2 + x + 1 (Intel's carry-less multiplication white paper).
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
fn reduce(hi: __m128i, lo: __m128i) -> __m128i {
    let t7 = _mm_srli_epi32::<31>(lo);
    let t8 = _mm_srli_epi32::<31>(hi);
    let lo = _mm_slli_epi32::<1>(lo);
    let hi = _mm_slli_epi32::<1>(hi);
    let t9 = _mm_srli_si128::<12>(t7);
    let t8 = _mm_slli_si128::<4>(t8);
    let t7 = _mm_slli_si128::<4>(t7);
    let lo = _mm_or_si128(lo, t7);
    let hi = _mm_or_si128(_mm_or_si128(hi, t8), t9);
    let a = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32::<31>(lo), _mm_slli_epi32::<30>(lo)), _mm_slli_epi32::<25>(lo));
    let t8 = _mm_srli_si128::<4>(a);
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<12>(a));
    let b = _mm_xor_si128(
        _mm_xor_si128(_mm_srli_epi32::<1>(lo), _mm_srli_epi32::<2>(lo)),
        _mm_xor_si128(_mm_srli_epi32::<7>(lo), t8),
    );
    _mm_xor_si128(hi, _mm_xor_si128(lo, b))
}

#[inline]
#[target_feature(enable = "ssse3")]
fn load_rev(b: &[u8]) -> __m128i {
    let rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    // SAFETY: callers pass slices of exactly 16 bytes.
    _mm_shuffle_epi8(unsafe { _mm_loadu_si128(b.as_ptr().cast()) }, rev)
}

#[target_feature(enable = "pclmulqdq,ssse3,sse2")]
fn update_impl(acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // Byte-reversed big-endian block == the u128's little-endian bytes.
    let load = |b: &[u8; 16]| {
        // SAFETY: 16 readable bytes.
        unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
    };
    let h: [__m128i; 8] = core::array::from_fn(|i| load(&powers[i]));
    let mut x = load(&acc.to_le_bytes());
    let mut octets = data.chunks_exact(128);
    for q in &mut octets {
        // x' = (x + B0)·H^8 + B1·H^7 + ... + B7·H: eight products, one
        // middle fold and one reduction.
        let (mut lo, mut m, mut hi) = mul3(_mm_xor_si128(x, load_rev(&q[..16])), h[7]);
        for i in 1..8 {
            let (l, mm, hh) = mul3(load_rev(&q[16 * i..16 * i + 16]), h[7 - i]);
            lo = _mm_xor_si128(lo, l);
            m = _mm_xor_si128(m, mm);
            hi = _mm_xor_si128(hi, hh);
        }
        let (hi, lo) = fold(lo, m, hi);
        x = reduce(hi, lo);
    }
    for b in octets.remainder().chunks_exact(16) {
        let (lo, m, hi) = mul3(_mm_xor_si128(x, load_rev(b)), h[0]);
        let (hi, lo) = fold(lo, m, hi);
        x = reduce(hi, lo);
    }
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
    u128::from_le_bytes(out)
}

/// Absorbs whole blocks of `data`.
pub(super) fn update(_t: cpu::Clmul, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // SAFETY: the token proves the target features.
    unsafe { update_impl(acc, powers, data) }
}

#[target_feature(enable = "pclmulqdq,vpclmulqdq,ssse3,avx,avx2")]
fn update16y_impl(acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // Register j multiplies blocks 2j, 2j+1 by H^(16-2j), H^(15-2j).
    let pw: [__m256i; 8] = core::array::from_fn(|j| {
        let mut b = [0u8; 32];
        b[..16].copy_from_slice(&powers[15 - 2 * j]);
        b[16..].copy_from_slice(&powers[14 - 2 * j]);
        // SAFETY: 32 readable bytes.
        let v = unsafe { _mm256_loadu_si256(b.as_ptr().cast()) };
        zeroize::Zeroize::zeroize(&mut b);
        v
    });
    let rev = _mm256_broadcastsi128_si256(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    // The low lane holds the state, the high one zero.
    let mut x = {
        let a = acc.to_le_bytes();
        // SAFETY: 16 readable bytes.
        _mm256_zextsi128_si256(unsafe { _mm_loadu_si128(a.as_ptr().cast()) })
    };
    for q in data.chunks_exact(256) {
        let (mut lo, mut m, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256(), _mm256_setzero_si256());
        for (j, p) in pw.iter().enumerate() {
            // SAFETY: 32 readable bytes at 32*j < 256.
            let mut b = _mm256_shuffle_epi8(unsafe { _mm256_loadu_si256(q.as_ptr().add(32 * j).cast()) }, rev);
            if j == 0 {
                b = _mm256_xor_si256(b, x);
            }
            lo = _mm256_xor_si256(lo, _mm256_clmulepi64_epi128::<0x00>(b, *p));
            hi = _mm256_xor_si256(hi, _mm256_clmulepi64_epi128::<0x11>(b, *p));
            m = _mm256_xor_si256(
                m,
                _mm256_xor_si256(_mm256_clmulepi64_epi128::<0x10>(b, *p), _mm256_clmulepi64_epi128::<0x01>(b, *p)),
            );
        }
        let h2 = |v: __m256i| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        let (h, l) = fold(h2(lo), h2(m), h2(hi));
        x = _mm256_zextsi128_si256(reduce(h, l));
    }
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm256_castsi256_si128(x)) };
    u128::from_le_bytes(out)
}

/// Absorbs whole 256-byte steps of `data`.
pub(super) fn update16y(_t: cpu::ClmulAvx2, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // SAFETY: the token proves the target features.
    unsafe { update16y_impl(acc, powers, data) }
}

/// XOR of the four 128-bit lanes of `v`.
#[inline]
#[target_feature(enable = "avx512f")]
fn hsum(v: __m512i) -> __m128i {
    let a = _mm_xor_si128(_mm512_castsi512_si128(v), _mm512_extracti32x4_epi32::<1>(v));
    let b = _mm_xor_si128(_mm512_extracti32x4_epi32::<2>(v), _mm512_extracti32x4_epi32::<3>(v));
    _mm_xor_si128(a, b)
}

#[target_feature(enable = "pclmulqdq,vpclmulqdq,ssse3,avx,avx2,avx512f,avx512bw")]
fn update16_impl(acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // Register j multiplies blocks 4j..4j+3 by H^(16-4j)..H^(13-4j).
    let pw: [__m512i; 4] = core::array::from_fn(|j| {
        let mut b = [0u8; 64];
        for l in 0..4 {
            b[16 * l..16 * l + 16].copy_from_slice(&powers[15 - 4 * j - l]);
        }
        // SAFETY: 64 readable bytes.
        let v = unsafe { _mm512_loadu_si512(b.as_ptr().cast()) };
        zeroize::Zeroize::zeroize(&mut b);
        v
    });
    // Each power's two halves XORed, in both halves (Karatsuba).
    let pk: [__m512i; 4] = core::array::from_fn(|j| _mm512_xor_si512(pw[j], _mm512_shuffle_epi32::<0x4E>(pw[j])));
    let rev = _mm512_broadcast_i32x4(_mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    // Lane 0 holds the state, the others zero.
    let mut x = {
        let a = acc.to_le_bytes();
        // SAFETY: 16 readable bytes.
        _mm512_zextsi128_si512(unsafe { _mm_loadu_si128(a.as_ptr().cast()) })
    };
    for q in data.chunks_exact(256) {
        let (mut lo, mut m, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512());
        for (j, p) in pw.iter().enumerate() {
            // SAFETY: 64 readable bytes at 64*j < 256.
            let mut b = _mm512_shuffle_epi8(unsafe { _mm512_loadu_si512(q.as_ptr().add(64 * j).cast()) }, rev);
            if j == 0 {
                b = _mm512_xor_si512(b, x);
            }
            // Karatsuba: the middle term is (b0 + b1)(p0 + p1) + lo + hi,
            // three carry-less products instead of four.
            let bk = _mm512_xor_si512(b, _mm512_shuffle_epi32::<0x4E>(b));
            lo = _mm512_xor_si512(lo, _mm512_clmulepi64_epi128::<0x00>(b, *p));
            hi = _mm512_xor_si512(hi, _mm512_clmulepi64_epi128::<0x11>(b, *p));
            m = _mm512_xor_si512(m, _mm512_clmulepi64_epi128::<0x00>(bk, pk[j]));
        }
        let m = _mm512_ternarylogic_epi64::<0x96>(m, lo, hi);
        let (h, l) = fold(hsum(lo), hsum(m), hsum(hi));
        x = _mm512_zextsi128_si512(reduce(h, l));
    }
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm512_castsi512_si128(x)) };
    u128::from_le_bytes(out)
}

/// Absorbs whole 256-byte steps of `data`.
pub(super) fn update16(_t: cpu::VaesAvx512, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // SAFETY: the token proves the target features.
    unsafe { update16_impl(acc, powers, data) }
}
