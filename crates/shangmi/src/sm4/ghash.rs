//! GHASH (the universal hash of GCM, NIST SP 800-38D).
//!
//! Three implementations, chosen by [`Kind::best`] through [`crate::cpu`]
//! independently of the SM4 backend:
//! - portable, constant time: 64x64 carry-less products from integer
//!   multiplications of bit-sparse operands (one bit in four, so carries
//!   never reach a bit that is kept), Karatsuba, and the high halves from
//!   the bit-reversed operands (BearSSL's `ghash_ctmul64` construction);
//!   four blocks times H^4..H^1 per reduction. No branch or table depends
//!   on H or the data.
//! - PCLMULQDQ: eight blocks times H^8..H^1, one reduction per eight.
//! - VPCLMULQDQ on 256-bit registers (AVX2, no AVX-512): sixteen blocks
//!   times H^16..H^1 (two per register), one reduction per sixteen.
//! - VPCLMULQDQ on 512-bit registers: sixteen blocks times H^16..H^1 (four
//!   per register), one reduction per sixteen.
//!
//! The carry-less paths are constant time too: `pclmulqdq`/`vpclmulqdq`
//! have data-independent latency, and memory is indexed only by public
//! lengths.

use crate::cpu::{self, Token};

/// A GHASH implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Integer multiplications only (constant time).
    Portable,
    /// PCLMULQDQ on 128-bit registers.
    Clmul,
    /// VPCLMULQDQ on 256-bit registers.
    VclmulY,
    /// VPCLMULQDQ on 512-bit registers.
    Vclmul,
}

impl Kind {
    /// The fastest kind the CPU allows.
    pub(crate) fn best() -> Kind {
        *Kind::available().last().unwrap_or(&Kind::Portable)
    }

    /// Every kind the CPU allows, slowest first.
    pub(crate) fn available() -> Vec<Kind> {
        let mut v = vec![Kind::Portable];
        if cpu::Clmul::get().is_some() {
            v.push(Kind::Clmul);
        }
        if cpu::ClmulAvx2::get().is_some() {
            v.push(Kind::VclmulY);
        }
        if cpu::VaesAvx512::get().is_some() {
            v.push(Kind::Vclmul);
        }
        v
    }
}

/// Bit-sparse masks: part i of a word keeps the bits at positions i mod 4.
const M: [u64; 4] = [0x1111_1111_1111_1111, 0x2222_2222_2222_2222, 0x4444_4444_4444_4444, 0x8888_8888_8888_8888];

#[inline(always)]
fn parts(x: u64) -> [u64; 4] {
    [x & M[0], x & M[1], x & M[2], x & M[3]]
}

/// The carry-less product of `x` and `y` (given as [`parts`]), low 64 bits,
/// before masking: part k of the result is `z[k] & M[k]`. The integer
/// product of two parts has at most 15 contributions per kept position
/// below bit 60 and 16 at bit 60, whose carry leaves the word, so masking
/// keeps exactly the carry-less result; and masking is linear, so unmasked
/// products may be XORed first and masked once.
#[inline(always)]
fn bmul64_acc(z: &mut [u64; 4], x: u64, y: &[u64; 4]) {
    let xs = parts(x);
    for (k, zk) in z.iter_mut().enumerate() {
        for (i, xi) in xs.iter().enumerate() {
            *zk ^= xi.wrapping_mul(y[(k + 4 - i) % 4]);
        }
    }
}

#[inline(always)]
fn masked(z: &[u64; 4]) -> u64 {
    (z[0] & M[0]) | (z[1] & M[1]) | (z[2] & M[2]) | (z[3] & M[3])
}

/// A multiplier prepared for [`Product::add`]: the parts of its halves, of
/// their XOR (Karatsuba) and of their bit reversals (the high halves of
/// the 64x64 products are the reversed low halves of the reversed
/// operands: BearSSL's `ghash_ctmul64` construction).
#[derive(Clone, Copy, Default)]
struct Multiplier([[u64; 4]; 6]);

impl Multiplier {
    fn new(h: u128) -> Multiplier {
        let (h1, h0) = ((h >> 64) as u64, h as u64);
        let w = [h0, h1, h0 ^ h1, h0.reverse_bits(), h1.reverse_bits(), (h0 ^ h1).reverse_bits()];
        Multiplier(w.map(parts))
    }
}

/// A sum of unreduced products x·H (the six 64x64 products of Karatsuba,
/// unmasked): sums of products are reduced once.
#[derive(Default)]
struct Product([[u64; 4]; 6]);

impl Product {
    #[inline(always)]
    fn add(&mut self, x: u128, h: &Multiplier) {
        let (y1, y0) = ((x >> 64) as u64, x as u64);
        let w = [y0, y1, y0 ^ y1, y0.reverse_bits(), y1.reverse_bits(), (y0 ^ y1).reverse_bits()];
        for ((z, y), hp) in self.0.iter_mut().zip(w).zip(h.0.iter()) {
            bmul64_acc(z, y, hp);
        }
    }

    /// The sum reduced modulo the GCM polynomial.
    #[inline(always)]
    fn reduce(&self) -> u128 {
        let [z0, z1, mut z2, z0h, z1h, mut z2h] = self.0.each_ref().map(masked);
        z2 ^= z0 ^ z1;
        z2h ^= z0h ^ z1h;
        let (z0h, z1h, z2h) = (z0h.reverse_bits() >> 1, z1h.reverse_bits() >> 1, z2h.reverse_bits() >> 1);
        let (mut v0, mut v1, mut v2, mut v3) = (z0, z0h ^ z2, z1 ^ z2h, z1h);
        // The reflected product is one bit short: shift left, then reduce
        // modulo x^128 + x^7 + x^2 + x + 1 in the reflected representation.
        v3 = (v3 << 1) | (v2 >> 63);
        v2 = (v2 << 1) | (v1 >> 63);
        v1 = (v1 << 1) | (v0 >> 63);
        v0 <<= 1;
        v2 ^= v0 ^ (v0 >> 1) ^ (v0 >> 2) ^ (v0 >> 7);
        v1 ^= (v0 << 63) ^ (v0 << 62) ^ (v0 << 57);
        v3 ^= v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
        v2 ^= (v1 << 63) ^ (v1 << 62) ^ (v1 << 57);
        ((v3 as u128) << 64) | v2 as u128
    }
}

impl Drop for Product {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

/// Multiplies two field elements in GCM's bit-reflected big-endian form
/// (`x` as `u128::from_be_bytes` of its block), in constant time.
fn gf_mul(x: u128, h: u128) -> u128 {
    let mut p = Product::default();
    p.add(x, &Multiplier::new(h));
    p.reduce()
}

/// Blocks per reduction on the portable path (times H^4..H^1).
const PORTABLE_AGG: usize = 4;

/// Portable GHASH of whole blocks: Horner's rule four blocks at a time,
/// `acc' = (acc + x1)·H^4 + x2·H^3 + x3·H^2 + x4·H`, one reduction each.
fn update_portable(mut acc: u128, pows: &[Multiplier; PORTABLE_AGG], data: &[u8]) -> u128 {
    let block = |b: &[u8]| u128::from_be_bytes(b.try_into().expect("16-byte block"));
    let mut quads = data.chunks_exact(16 * PORTABLE_AGG);
    for q in &mut quads {
        let mut p = Product::default();
        for (j, b) in q.chunks_exact(16).enumerate() {
            let x = if j == 0 { acc ^ block(b) } else { block(b) };
            p.add(x, &pows[PORTABLE_AGG - 1 - j]);
        }
        acc = p.reduce();
    }
    for b in quads.remainder().chunks_exact(16) {
        let mut p = Product::default();
        p.add(acc ^ block(b), &pows[0]);
        acc = p.reduce();
    }
    acc
}

/// Hash key and running state.
#[derive(Clone)]
pub(crate) struct Ghash {
    acc: u128,
    /// Only the x86-64 carry-less paths branch on it; elsewhere every kind
    /// is the portable one.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    kind: Kind,
    /// H^1..H^4 prepared for the portable path.
    pows: [Multiplier; PORTABLE_AGG],
    /// H^1..H^16 in the byte-reversed layout of the carry-less code.
    powers: [[u8; 16]; 16],
}

impl Drop for Ghash {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.acc);
        for p in self.pows.iter_mut() {
            zeroize::Zeroize::zeroize(&mut p.0);
        }
        zeroize::Zeroize::zeroize(&mut self.powers);
    }
}

impl Ghash {
    /// GHASH with key `h` on the fastest implementation this CPU allows.
    pub(crate) fn new(h: &[u8; 16]) -> Ghash {
        Ghash::with_kind(h, Kind::best())
    }

    /// GHASH on an explicit implementation (tests compare them); `kind`
    /// must be in [`Kind::available`], else the portable one is used.
    pub(crate) fn with_kind(h: &[u8; 16], kind: Kind) -> Ghash {
        let kind = if Kind::available().contains(&kind) { kind } else { Kind::Portable };
        let hv = u128::from_be_bytes(*h);
        let mut powers = [[0u8; 16]; 16];
        let mut pows = [Multiplier::default(); PORTABLE_AGG];
        let mut acc = hv;
        if kind == Kind::Portable {
            for p in pows.iter_mut() {
                *p = Multiplier::new(acc);
                acc = gf_mul(acc, hv);
            }
        } else {
            for slot in powers.iter_mut() {
                *slot = acc.to_le_bytes();
                acc = gf_mul(acc, hv);
            }
        }
        zeroize::Zeroize::zeroize(&mut acc);
        Ghash { acc: 0, kind, pows, powers }
    }

    /// Absorbs `data`, zero-padding a final partial block.
    pub(crate) fn update_padded(&mut self, data: &[u8]) {
        let whole = data.len() - data.len() % 16;
        self.update_blocks(&data[..whole]);
        if whole < data.len() {
            let mut b = [0u8; 16];
            b[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(&b);
        }
    }

    /// Absorbs whole 16-byte blocks.
    pub(crate) fn update_blocks(&mut self, data: &[u8]) {
        debug_assert!(data.len().is_multiple_of(16));
        #[cfg(target_arch = "x86_64")]
        let data = self.update_clmul(data);
        self.acc = update_portable(self.acc, &self.pows, data);
    }

    /// Absorbs what the carry-less kinds take of `data` (all of it, unless
    /// this is the portable kind or a VPCLMULQDQ kind leaves a tail shorter
    /// than 16 blocks and PCLMULQDQ is masked) and returns the rest.
    #[cfg(target_arch = "x86_64")]
    fn update_clmul<'a>(&mut self, mut data: &'a [u8]) -> &'a [u8] {
        if self.kind == Kind::Vclmul {
            if let Some(t) = cpu::VaesAvx512::get() {
                let n = data.len() - data.len() % 256;
                // SAFETY: the token proves VPCLMULQDQ and AVX-512F/BW.
                self.acc = unsafe { clmul::update16(t, self.acc, &self.powers, &data[..n]) };
                data = &data[n..];
            }
        }
        if self.kind == Kind::VclmulY {
            if let Some(t) = cpu::ClmulAvx2::get() {
                let n = data.len() - data.len() % 256;
                // SAFETY: the token proves VPCLMULQDQ and AVX2.
                self.acc = unsafe { clmul::update16y(t, self.acc, &self.powers, &data[..n]) };
                data = &data[n..];
            }
        }
        if self.kind != Kind::Portable {
            if let Some(t) = cpu::Clmul::get() {
                // SAFETY: the token proves PCLMULQDQ and SSSE3.
                self.acc = unsafe { clmul::update(t, self.acc, &self.powers, data) };
                return &[];
            }
        }
        data
    }

    /// The hash so far.
    pub(crate) fn value(&self) -> [u8; 16] {
        self.acc.to_be_bytes()
    }
}

#[cfg(target_arch = "x86_64")]
mod clmul {
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
        let a =
            _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32::<31>(lo), _mm_slli_epi32::<30>(lo)), _mm_slli_epi32::<25>(lo));
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

    /// # Safety
    /// Sound for any arguments: the token proves PCLMULQDQ and SSSE3.
    pub(super) unsafe fn update(_t: cpu::Clmul, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
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
    ///
    /// # Safety
    /// Sound for any arguments: the token proves VPCLMULQDQ and AVX2.
    pub(super) unsafe fn update16y(_t: cpu::ClmulAvx2, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
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
    ///
    /// # Safety
    /// Sound for any arguments: the token proves VPCLMULQDQ and AVX-512.
    pub(super) unsafe fn update16(_t: cpu::VaesAvx512, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
        // SAFETY: the token proves the target features.
        unsafe { update16_impl(acc, powers, data) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SP 800-38D's bit-serial multiplication, the reference.
    fn gf_mul_serial(x: u128, y: u128) -> u128 {
        let mut z = 0u128;
        let mut v = y;
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            v = if v & 1 == 1 { (v >> 1) ^ (0xE1u128 << 120) } else { v >> 1 };
        }
        z
    }

    fn rng(seed: u64) -> impl FnMut() -> u8 {
        let mut next = crate::test_rng(seed);
        move || next() as u8
    }

    /// The portable path (four blocks per reduction, a remainder one at a
    /// time) equals Horner's rule with the bit-serial multiplication.
    #[test]
    fn portable_update_matches_bit_serial_horner() {
        let mut next = rng(0xddb1_a5e5);
        for blocks in [0usize, 1, 3, 4, 5, 8, 11, 33] {
            let h: [u8; 16] = core::array::from_fn(|_| next());
            let data: Vec<u8> = (0..16 * blocks).map(|_| next()).collect();
            let hv = u128::from_be_bytes(h);
            let want = data
                .chunks_exact(16)
                .fold(0u128, |acc, b| gf_mul_serial(acc ^ u128::from_be_bytes(b.try_into().unwrap()), hv));
            let mut g = Ghash::with_kind(&h, Kind::Portable);
            g.update_blocks(&data);
            assert_eq!(g.value(), want.to_be_bytes(), "{blocks} blocks");
        }
    }

    #[test]
    fn ct_multiplication_matches_bit_serial() {
        let mut next = rng(0x1234_5678_9abc_def1);
        let mut val = || u128::from_le_bytes(core::array::from_fn(|_| next()));
        for _ in 0..2000 {
            let (a, b) = (val(), val());
            assert_eq!(gf_mul(a, b), gf_mul_serial(a, b), "{a:#x} {b:#x}");
        }
        for (a, b) in [(0, 0), (u128::MAX, u128::MAX), (1, u128::MAX), (1 << 127, 1 << 127), (u128::MAX, 1)] {
            assert_eq!(gf_mul(a, b), gf_mul_serial(a, b), "{a:#x} {b:#x}");
        }
    }

    #[test]
    fn every_kind_matches_portable() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        let h: [u8; 16] = core::array::from_fn(|_| next());
        let data: Vec<u8> = (0..16 * 75).map(|_| next()).collect();
        let mut p = Ghash::with_kind(&h, Kind::Portable);
        p.update_blocks(&data);
        for k in Kind::available() {
            for split in [0, 16, 48, 64, 80, 128, 144, 176, 256, 272, 432, 528, 1200] {
                let mut g = Ghash::with_kind(&h, k);
                g.update_blocks(&data[..split]);
                g.update_blocks(&data[split..]);
                assert_eq!(g.value(), p.value(), "{k:?} split {split}");
            }
        }
    }
}
