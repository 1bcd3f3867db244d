//! SM4 engines for x86-64 (see [`super::simd`] for the word-sliced kernels).
//!
//! Two ways to compute the S-box on every byte of a register, both without
//! memory lookups:
//! - GFNI: `gf2p8affineqb` maps x to `phi(A·x + C)` in the AES field and
//!   `gf2p8affineinvqb` inverts it there and maps back with `A·phi^-1 + C`
//!   (matrices derived in [`super::sbox`]): two instructions.
//! - AES-NI: `pre`/`post` affine maps as `pshufb` nibble lookups in
//!   registers around `aesenclast` with a zero key; its ShiftRows is undone
//!   by the same `pshufb` that rotates bytes for L.
//!
//! Engines by register width: 512-bit (GFNI, VAES), 256-bit (GFNI; AES-NI
//! on the two 128-bit halves), 128-bit (AES-NI with SSE; GFNI for the
//! one-block latency path of CBC encryption). Every engine is built from a
//! [`crate::cpu`] token, so holding one proves its features: the `unsafe`
//! blocks below rely on that alone. No branch or address depends on data.

use core::arch::x86_64::*;

use super::aesni::{BSWAP32, INV_SHIFT_ROWS};
use super::sbox::{GFNI_POST, GFNI_PRE, GFNI_PRE_C, POST_TABLES, PRE_TABLES, SM4_C};
use super::simd::{self, Engine, With};
use super::Backend;
use crate::cpu::{self, Token};

const PRE_C: i32 = GFNI_PRE_C as i32;
const POST_C: i32 = SM4_C as i32;

/// `pshufb` index: `ISR` then a left rotation of every 32-bit lane by `8·r`.
const fn isr_rol(isr: bool, r: usize) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        // Rotating a little-endian lane left by 8r bytes takes byte k from k - r.
        let from = (i & !3) + ((i & 3) + 4 - r) % 4;
        out[i] = if isr { INV_SHIFT_ROWS[from] } else { from as u8 };
        i += 1;
    }
    out
}

const ROL0: [u8; 16] = isr_rol(false, 0);
const ROL8: [u8; 16] = isr_rol(false, 1);
const ROL16: [u8; 16] = isr_rol(false, 2);
const ROL24: [u8; 16] = isr_rol(false, 3);
const ISR8: [u8; 16] = isr_rol(true, 1);
const ISR16: [u8; 16] = isr_rol(true, 2);
const ISR24: [u8; 16] = isr_rol(true, 3);

pub(super) fn table(t: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; SSE2 is baseline on x86-64.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

// ---------------------------------------------------------------- 512-bit

/// Shared 512-bit pieces (AVX-512 F/BW/VL proven by the engine's token).
macro_rules! zmm_common {
    () => {
        type V = __m512i;
        const LANES: usize = 16;
        #[inline(always)]
        fn splat(self, w: u32) -> __m512i {
            // SAFETY: the token proves AVX-512F (module doc).
            unsafe { _mm512_set1_epi32(w as i32) }
        }
        #[inline(always)]
        fn xor(self, a: __m512i, b: __m512i) -> __m512i {
            // SAFETY: as above.
            unsafe { _mm512_xor_si512(a, b) }
        }
        #[inline(always)]
        fn xor3(self, a: __m512i, b: __m512i, c: __m512i) -> __m512i {
            // SAFETY: as above.
            unsafe { _mm512_ternarylogic_epi32::<0x96>(a, b, c) }
        }
        #[inline(always)]
        fn add(self, a: __m512i, b: __m512i) -> __m512i {
            // SAFETY: as above.
            unsafe { _mm512_add_epi32(a, b) }
        }
        #[inline(always)]
        fn first(self, v: __m512i) -> u32 {
            // SAFETY: as above.
            unsafe { _mm_cvtsi128_si32(_mm512_castsi512_si128(v)) as u32 }
        }
        #[inline(always)]
        fn lane_blocks(self) -> __m512i {
            // Dword 4L + m of a transposed register holds block 4m + L.
            // SAFETY: as above.
            unsafe { _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15) }
        }
        #[inline(always)]
        fn load(self, src: &[u8]) -> [__m512i; 4] {
            let src = &src[..256];
            // SAFETY: 256 readable bytes (sliced above); AVX-512F/BW.
            unsafe {
                let bs = _mm512_broadcast_i32x4(table(&BSWAP32));
                let p = src.as_ptr();
                // Written out: a closure here may be compiled without the
                // target features when not inlined (then every intrinsic is
                // a call).
                let ld = |i: usize| p.add(64 * i).cast();
                let r = [
                    _mm512_shuffle_epi8(_mm512_loadu_si512(ld(0)), bs),
                    _mm512_shuffle_epi8(_mm512_loadu_si512(ld(1)), bs),
                    _mm512_shuffle_epi8(_mm512_loadu_si512(ld(2)), bs),
                    _mm512_shuffle_epi8(_mm512_loadu_si512(ld(3)), bs),
                ];
                transpose512(r)
            }
        }
        #[inline(always)]
        fn store(self, x: [__m512i; 4], with: With<'_>, dst: &mut [u8]) {
            let dst = &mut dst[..256];
            let w = match with {
                With::Src(s) => Some(&s[..256]),
                _ => None,
            };
            // SAFETY: 256 bytes of `dst` (and of `w`), sliced above; AVX-512F/BW.
            unsafe {
                let bs = _mm512_broadcast_i32x4(table(&BSWAP32));
                let r = transpose512([x[3], x[2], x[1], x[0]]);
                let p = dst.as_mut_ptr();
                for (i, v) in r.into_iter().enumerate() {
                    let mut v = _mm512_shuffle_epi8(v, bs);
                    match (with, w) {
                        (_, Some(w)) => v = _mm512_xor_si512(v, _mm512_loadu_si512(w.as_ptr().add(64 * i).cast())),
                        (With::Dst, _) => v = _mm512_xor_si512(v, _mm512_loadu_si512(p.add(64 * i).cast())),
                        _ => {}
                    }
                    _mm512_storeu_si512(p.add(64 * i).cast(), v);
                }
            }
        }
    };
}

/// 4x4 transpose of 32-bit words inside every 128-bit lane.
#[inline(always)]
unsafe fn transpose512(r: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: the caller has AVX-512F.
    unsafe {
        let t0 = _mm512_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm512_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm512_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm512_unpackhi_epi32(r[2], r[3]);
        [
            _mm512_unpacklo_epi64(t0, t2),
            _mm512_unpackhi_epi64(t0, t2),
            _mm512_unpacklo_epi64(t1, t3),
            _mm512_unpackhi_epi64(t1, t3),
        ]
    }
}

/// L on 512-bit lanes with `vprold` and three-way XORs.
#[inline(always)]
unsafe fn l512(s: __m512i) -> __m512i {
    // SAFETY: the caller has AVX-512F.
    unsafe {
        let a = _mm512_ternarylogic_epi32::<0x96>(s, _mm512_rol_epi32::<2>(s), _mm512_rol_epi32::<10>(s));
        _mm512_ternarylogic_epi32::<0x96>(a, _mm512_rol_epi32::<18>(s), _mm512_rol_epi32::<24>(s))
    }
}

/// `acc ^ L(s)` as two independent three-way XORs and one XOR.
#[inline(always)]
unsafe fn l512_xor(s: __m512i, acc: __m512i) -> __m512i {
    // SAFETY: the caller has AVX-512F.
    unsafe {
        let a = _mm512_ternarylogic_epi32::<0x96>(acc, s, _mm512_rol_epi32::<2>(s));
        let b = _mm512_ternarylogic_epi32::<0x96>(
            _mm512_rol_epi32::<10>(s),
            _mm512_rol_epi32::<18>(s),
            _mm512_rol_epi32::<24>(s),
        );
        _mm512_xor_si512(a, b)
    }
}

/// GFNI on 512-bit registers.
#[derive(Clone, Copy)]
struct GfniZ {
    _t: cpu::GfniAvx512,
    pre: __m512i,
    post: __m512i,
}

impl GfniZ {
    #[inline(always)]
    fn new(t: cpu::GfniAvx512) -> GfniZ {
        // SAFETY: the token proves AVX-512F.
        unsafe { GfniZ { _t: t, pre: _mm512_set1_epi64(GFNI_PRE as i64), post: _mm512_set1_epi64(GFNI_POST as i64) } }
    }
}

impl GfniZ {
    #[inline(always)]
    fn s(self, x: __m512i) -> __m512i {
        // SAFETY: the token proves GFNI and AVX-512F/BW/VL.
        unsafe {
            let u = _mm512_gf2p8affine_epi64_epi8::<PRE_C>(x, self.pre);
            _mm512_gf2p8affineinv_epi64_epi8::<POST_C>(u, self.post)
        }
    }
}

impl Engine for GfniZ {
    zmm_common!();
    #[inline(always)]
    fn t(self, x: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { l512(self.s(x)) }
    }
    #[inline(always)]
    fn t_xor(self, x: __m512i, acc: __m512i) -> __m512i {
        // SAFETY: the token proves AVX-512F.
        unsafe { l512_xor(self.s(x), acc) }
    }
}

/// VAES on 512-bit registers.
#[derive(Clone, Copy)]
struct VaesZ {
    _t: cpu::VaesAvx512,
    m0f: __m512i,
    pre: (__m512i, __m512i),
    post: (__m512i, __m512i),
    isr: __m512i,
}

impl VaesZ {
    #[inline(always)]
    fn new(t: cpu::VaesAvx512) -> VaesZ {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let b = |x: &[u8; 16]| _mm512_broadcast_i32x4(table(x));
            VaesZ {
                _t: t,
                m0f: _mm512_set1_epi8(0x0f),
                pre: (b(&PRE_TABLES.0), b(&PRE_TABLES.1)),
                post: (b(&POST_TABLES.0), b(&POST_TABLES.1)),
                isr: b(&INV_SHIFT_ROWS),
            }
        }
    }

    /// `lo[x & 15] ^ hi[x >> 4]` on every byte.
    #[inline(always)]
    fn nibbles(self, x: __m512i, t: (__m512i, __m512i)) -> __m512i {
        // SAFETY: the token proves AVX-512F/BW.
        unsafe {
            let l = _mm512_and_si512(x, self.m0f);
            let h = _mm512_and_si512(_mm512_srli_epi16::<4>(x), self.m0f);
            _mm512_xor_si512(_mm512_shuffle_epi8(t.0, l), _mm512_shuffle_epi8(t.1, h))
        }
    }
}

impl Engine for VaesZ {
    zmm_common!();
    #[inline(always)]
    fn t(self, x: __m512i) -> __m512i {
        let u = self.nibbles(x, self.pre);
        // SAFETY: the token proves VAES and AVX-512F/BW.
        unsafe {
            let z = _mm512_shuffle_epi8(_mm512_aesenclast_epi128(u, _mm512_setzero_si512()), self.isr);
            l512(self.nibbles(z, self.post))
        }
    }
}

// ---------------------------------------------------------------- 256-bit

macro_rules! ymm_common {
    () => {
        type V = __m256i;
        const LANES: usize = 8;
        #[inline(always)]
        fn splat(self, w: u32) -> __m256i {
            // SAFETY: the token proves AVX2 (module doc).
            unsafe { _mm256_set1_epi32(w as i32) }
        }
        #[inline(always)]
        fn xor(self, a: __m256i, b: __m256i) -> __m256i {
            // SAFETY: as above.
            unsafe { _mm256_xor_si256(a, b) }
        }
        #[inline(always)]
        fn xor3(self, a: __m256i, b: __m256i, c: __m256i) -> __m256i {
            // SAFETY: as above.
            unsafe { _mm256_xor_si256(_mm256_xor_si256(a, b), c) }
        }
        #[inline(always)]
        fn add(self, a: __m256i, b: __m256i) -> __m256i {
            // SAFETY: as above.
            unsafe { _mm256_add_epi32(a, b) }
        }
        #[inline(always)]
        fn first(self, v: __m256i) -> u32 {
            // SAFETY: as above.
            unsafe { _mm_cvtsi128_si32(_mm256_castsi256_si128(v)) as u32 }
        }
        #[inline(always)]
        fn lane_blocks(self) -> __m256i {
            // Dword 4L + m of a transposed register holds block 2m + L.
            // SAFETY: as above.
            unsafe { _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7) }
        }
        #[inline(always)]
        fn load(self, src: &[u8]) -> [__m256i; 4] {
            let src = &src[..128];
            // SAFETY: 128 readable bytes (sliced above); AVX2.
            unsafe {
                let bs = _mm256_broadcastsi128_si256(table(&BSWAP32));
                let p = src.as_ptr();
                let ld = |i: usize| p.add(32 * i).cast();
                let r = [
                    _mm256_shuffle_epi8(_mm256_loadu_si256(ld(0)), bs),
                    _mm256_shuffle_epi8(_mm256_loadu_si256(ld(1)), bs),
                    _mm256_shuffle_epi8(_mm256_loadu_si256(ld(2)), bs),
                    _mm256_shuffle_epi8(_mm256_loadu_si256(ld(3)), bs),
                ];
                transpose256(r)
            }
        }
        #[inline(always)]
        fn store(self, x: [__m256i; 4], with: With<'_>, dst: &mut [u8]) {
            let dst = &mut dst[..128];
            let w = match with {
                With::Src(s) => Some(&s[..128]),
                _ => None,
            };
            // SAFETY: 128 bytes of `dst` (and of `w`), sliced above; AVX2.
            unsafe {
                let bs = _mm256_broadcastsi128_si256(table(&BSWAP32));
                let r = transpose256([x[3], x[2], x[1], x[0]]);
                let p = dst.as_mut_ptr();
                for (i, v) in r.into_iter().enumerate() {
                    let mut v = _mm256_shuffle_epi8(v, bs);
                    match (with, w) {
                        (_, Some(w)) => v = _mm256_xor_si256(v, _mm256_loadu_si256(w.as_ptr().add(32 * i).cast())),
                        (With::Dst, _) => v = _mm256_xor_si256(v, _mm256_loadu_si256(p.add(32 * i).cast())),
                        _ => {}
                    }
                    _mm256_storeu_si256(p.add(32 * i).cast(), v);
                }
            }
        }
    };
}

#[inline(always)]
unsafe fn transpose256(r: [__m256i; 4]) -> [__m256i; 4] {
    // SAFETY: the caller has AVX2.
    unsafe {
        let t0 = _mm256_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm256_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm256_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm256_unpackhi_epi32(r[2], r[3]);
        [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
        ]
    }
}

/// Byte-rotation masks for L: (rot 0, rot 8, rot 16, rot 24), each
/// composed with the inverse ShiftRows on the AES-NI engines.
#[derive(Clone, Copy)]
pub(super) struct Rot<V> {
    r0: V,
    r8: V,
    r16: V,
    r24: V,
}

/// L from the four byte rotations: `s ^ s<<<24 ^ (s ^ s<<<8 ^ s<<<16)<<<2`.
#[inline(always)]
unsafe fn l256(p: __m256i, m: &Rot<__m256i>, isr: bool) -> __m256i {
    // SAFETY: the caller has AVX2.
    unsafe {
        let s = if isr { _mm256_shuffle_epi8(p, m.r0) } else { p };
        let a = _mm256_xor_si256(_mm256_xor_si256(s, _mm256_shuffle_epi8(p, m.r8)), _mm256_shuffle_epi8(p, m.r16));
        let a = _mm256_or_si256(_mm256_slli_epi32::<2>(a), _mm256_srli_epi32::<30>(a));
        _mm256_xor_si256(_mm256_xor_si256(s, _mm256_shuffle_epi8(p, m.r24)), a)
    }
}

#[inline(always)]
unsafe fn rot256(isr: bool) -> Rot<__m256i> {
    // SAFETY: the caller has AVX2.
    unsafe {
        let b = |x: &[u8; 16]| _mm256_broadcastsi128_si256(table(x));
        if isr {
            Rot { r0: b(&INV_SHIFT_ROWS), r8: b(&ISR8), r16: b(&ISR16), r24: b(&ISR24) }
        } else {
            Rot { r0: b(&ROL0), r8: b(&ROL8), r16: b(&ROL16), r24: b(&ROL24) }
        }
    }
}

/// GFNI on 256-bit registers.
#[derive(Clone, Copy)]
struct GfniY {
    _t: cpu::GfniAvx2,
    pre: __m256i,
    post: __m256i,
    rot: Rot<__m256i>,
}

impl GfniY {
    #[inline(always)]
    fn new(t: cpu::GfniAvx2) -> GfniY {
        // SAFETY: the token proves AVX2.
        unsafe {
            GfniY {
                _t: t,
                pre: _mm256_set1_epi64x(GFNI_PRE as i64),
                post: _mm256_set1_epi64x(GFNI_POST as i64),
                rot: rot256(false),
            }
        }
    }
}

impl Engine for GfniY {
    ymm_common!();
    #[inline(always)]
    fn t(self, x: __m256i) -> __m256i {
        // SAFETY: the token proves GFNI and AVX2.
        unsafe {
            let u = _mm256_gf2p8affine_epi64_epi8::<PRE_C>(x, self.pre);
            l256(_mm256_gf2p8affineinv_epi64_epi8::<POST_C>(u, self.post), &self.rot, false)
        }
    }
}

/// AES-NI on the two halves of 256-bit registers.
#[derive(Clone, Copy)]
struct AesY {
    _t: cpu::AesAvx2,
    m0f: __m256i,
    pre: (__m256i, __m256i),
    post: (__m256i, __m256i),
    rot: Rot<__m256i>,
}

impl AesY {
    #[inline(always)]
    fn new(t: cpu::AesAvx2) -> AesY {
        // SAFETY: the token proves AVX2.
        unsafe {
            let b = |x: &[u8; 16]| _mm256_broadcastsi128_si256(table(x));
            AesY {
                _t: t,
                m0f: _mm256_set1_epi8(0x0f),
                pre: (b(&PRE_TABLES.0), b(&PRE_TABLES.1)),
                post: (b(&POST_TABLES.0), b(&POST_TABLES.1)),
                rot: rot256(true),
            }
        }
    }

    #[inline(always)]
    fn nibbles(self, x: __m256i, t: (__m256i, __m256i)) -> __m256i {
        // SAFETY: the token proves AVX2.
        unsafe {
            let l = _mm256_and_si256(x, self.m0f);
            let h = _mm256_and_si256(_mm256_srli_epi16::<4>(x), self.m0f);
            _mm256_xor_si256(_mm256_shuffle_epi8(t.0, l), _mm256_shuffle_epi8(t.1, h))
        }
    }
}

impl Engine for AesY {
    ymm_common!();
    #[inline(always)]
    fn t(self, x: __m256i) -> __m256i {
        let u = self.nibbles(x, self.pre);
        // SAFETY: the token proves AES-NI and AVX2.
        let z = unsafe {
            let zero = _mm_setzero_si128();
            let lo = _mm_aesenclast_si128(_mm256_castsi256_si128(u), zero);
            let hi = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(u), zero);
            _mm256_set_m128i(hi, lo)
        };
        // SAFETY: as above.
        unsafe { l256(self.nibbles(z, self.post), &self.rot, true) }
    }
}

// ---------------------------------------------------------------- 128-bit

#[path = "x86_xmm.rs"]
mod xmm;
use xmm::{cbc_aes, cbc_gfni, cbc_gfni_vl, one_aes, one_gfni, one_gfni_vl, AesX};

// ---------------------------------------------------------------- dispatch

/// Blocks kept in flight: 64 on 512-bit registers, 16 on 256-bit, 8 on
/// 128-bit (as many as the 16 or 32 architectural registers hold).
macro_rules! entry {
    ($name:ident, $feat:literal, $tok:ty, $eng:ident, $g:literal) => {
        mod $name {
            use super::*;

            #[target_feature(enable = $feat)]
            pub(super) fn crypt(t: $tok, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
                simd::crypt_blocks::<_, $g>($eng::new(t), rk, src, dst)
            }

            #[target_feature(enable = $feat)]
            pub(super) fn ctr32(
                t: $tok,
                rk: &[u32; 32],
                p: [u32; 3],
                c: u32,
                src: Option<&[u8]>,
                dst: &mut [u8],
            ) -> usize {
                simd::ctr32::<_, $g>($eng::new(t), rk, p, c, src, dst)
            }
        }
    };
}

entry!(gfni512, "avx,avx2,avx512f,avx512bw,avx512vl,gfni", cpu::GfniAvx512, GfniZ, 4);
entry!(vaes512, "aes,avx,avx2,avx512f,avx512bw,avx512vl,vaes", cpu::VaesAvx512, VaesZ, 4);
entry!(gfni256, "avx,avx2,gfni", cpu::GfniAvx2, GfniY, 2);
entry!(aes256, "aes,ssse3,avx,avx2", cpu::AesAvx2, AesY, 2);
entry!(aes128, "aes,ssse3,sse4.1", cpu::AesSse, AesX, 2);

/// Whether `b` is one of this module's backends and its token exists.
pub(super) fn supported(b: Backend) -> bool {
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().is_some(),
        Backend::VaesAvx512 => cpu::VaesAvx512::get().is_some(),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().is_some(),
        Backend::AesniAvx2 => cpu::AesAvx2::get().is_some(),
        Backend::AesniSse => cpu::AesSse::get().is_some(),
        _ => false,
    }
}

/// Encrypts (or decrypts, with reversed keys) whole blocks from `src` (or in
/// place) into `dst` on backend `b`; false if `b` is not one of this
/// module's (then nothing was done).
pub(super) fn crypt_blocks(b: Backend, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) -> bool {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { gfni512::crypt(t, rk, src, dst) }),
        Backend::VaesAvx512 => cpu::VaesAvx512::get().map(|t| unsafe { vaes512::crypt(t, rk, src, dst) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { gfni256::crypt(t, rk, src, dst) }),
        Backend::AesniAvx2 => cpu::AesAvx2::get().map(|t| unsafe { aes256::crypt(t, rk, src, dst) }),
        Backend::AesniSse => cpu::AesSse::get().map(|t| unsafe { aes128::crypt(t, rk, src, dst) }),
        _ => None,
    }
    .is_some()
}

/// CTR over the whole multi-group steps of `dst` (see [`simd::ctr32`]);
/// returns the bytes done (0 for a backend not in this module).
pub(super) fn ctr32(b: Backend, rk: &[u32; 32], p: [u32; 3], c: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { gfni512::ctr32(t, rk, p, c, src, dst) }),
        Backend::VaesAvx512 => cpu::VaesAvx512::get().map(|t| unsafe { vaes512::ctr32(t, rk, p, c, src, dst) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { gfni256::ctr32(t, rk, p, c, src, dst) }),
        Backend::AesniAvx2 => cpu::AesAvx2::get().map(|t| unsafe { aes256::ctr32(t, rk, p, c, src, dst) }),
        Backend::AesniSse => cpu::AesSse::get().map(|t| unsafe { aes128::ctr32(t, rk, p, c, src, dst) }),
        _ => None,
    }
    .unwrap_or(0)
}

/// One block through the latency path of backend `b`; false if `b` is not
/// one of this module's.
pub(super) fn one(b: Backend, rk: &[u32; 32], block: &mut [u8; 16]) -> bool {
    let w = simd::words(block);
    // SAFETY (every arm): the token proves the entry point's features.
    let out = match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { one_gfni_vl(t, rk, w) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { one_gfni(t, rk, w) }),
        Backend::VaesAvx512 | Backend::AesniAvx2 | Backend::AesniSse => {
            cpu::AesSse::get().map(|t| unsafe { one_aes(t, rk, w) })
        }
        _ => None,
    };
    match out {
        Some(o) => {
            simd::put_words(o, block);
            true
        }
        None => false,
    }
}

/// CBC encryption of whole blocks in place on backend `b`'s latency path;
/// false if `b` is not one of this module's.
pub(super) fn cbc_encrypt(b: Backend, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) -> bool {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { cbc_gfni_vl(t, rk, iv, data) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { cbc_gfni(t, rk, iv, data) }),
        Backend::VaesAvx512 | Backend::AesniAvx2 | Backend::AesniSse => {
            cpu::AesSse::get().map(|t| unsafe { cbc_aes(t, rk, iv, data) })
        }
        _ => None,
    }
    .is_some()
}
