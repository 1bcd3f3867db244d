//! 128-bit SM4 engines: AES-NI with SSE (bulk and one block), and GFNI on
//! xmm registers for the one-block latency path of the GFNI backends
//! (with AVX-512VL's `vprold`/`vpternlogd` where the backend has them).
//! Same constant-time argument as the parent module: register operations
//! only, token-proven features.

use super::*;

macro_rules! xmm_common {
    () => {
        type V = __m128i;
        const LANES: usize = 4;
        #[inline(always)]
        fn splat(self, w: u32) -> __m128i {
            // SAFETY: SSE2 is baseline on x86-64.
            unsafe { _mm_set1_epi32(w as i32) }
        }
        #[inline(always)]
        fn xor(self, a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: as above.
            unsafe { _mm_xor_si128(a, b) }
        }
        #[inline(always)]
        fn add(self, a: __m128i, b: __m128i) -> __m128i {
            // SAFETY: as above.
            unsafe { _mm_add_epi32(a, b) }
        }
        #[inline(always)]
        fn first(self, v: __m128i) -> u32 {
            // SAFETY: as above.
            unsafe { _mm_cvtsi128_si32(v) as u32 }
        }
        #[inline(always)]
        fn lane_blocks(self) -> __m128i {
            // SAFETY: as above.
            unsafe { _mm_setr_epi32(0, 1, 2, 3) }
        }
        #[inline(always)]
        fn load(self, src: &[u8]) -> [__m128i; 4] {
            let src = &src[..64];
            // SAFETY: 64 readable bytes (sliced above); the token proves SSSE3.
            unsafe {
                let bs = table(&BSWAP32);
                let p = src.as_ptr();
                let ld = |i: usize| p.add(16 * i).cast();
                let r = [
                    _mm_shuffle_epi8(_mm_loadu_si128(ld(0)), bs),
                    _mm_shuffle_epi8(_mm_loadu_si128(ld(1)), bs),
                    _mm_shuffle_epi8(_mm_loadu_si128(ld(2)), bs),
                    _mm_shuffle_epi8(_mm_loadu_si128(ld(3)), bs),
                ];
                transpose128(r)
            }
        }
        #[inline(always)]
        fn store(self, x: [__m128i; 4], with: With<'_>, dst: &mut [u8]) {
            let dst = &mut dst[..64];
            let w = match with {
                With::Src(s) => Some(&s[..64]),
                _ => None,
            };
            // SAFETY: 64 bytes of `dst` (and of `w`), sliced above; SSSE3.
            unsafe {
                let bs = table(&BSWAP32);
                let r = transpose128([x[3], x[2], x[1], x[0]]);
                let p = dst.as_mut_ptr();
                for (i, v) in r.into_iter().enumerate() {
                    let mut v = _mm_shuffle_epi8(v, bs);
                    match (with, w) {
                        (_, Some(w)) => v = _mm_xor_si128(v, _mm_loadu_si128(w.as_ptr().add(16 * i).cast())),
                        (With::Dst, _) => v = _mm_xor_si128(v, _mm_loadu_si128(p.add(16 * i).cast())),
                        _ => {}
                    }
                    _mm_storeu_si128(p.add(16 * i).cast(), v);
                }
            }
        }
    };
}

#[inline(always)]
unsafe fn transpose128(r: [__m128i; 4]) -> [__m128i; 4] {
    // SAFETY: SSE2 is baseline.
    unsafe {
        let t0 = _mm_unpacklo_epi32(r[0], r[1]);
        let t1 = _mm_unpackhi_epi32(r[0], r[1]);
        let t2 = _mm_unpacklo_epi32(r[2], r[3]);
        let t3 = _mm_unpackhi_epi32(r[2], r[3]);
        [_mm_unpacklo_epi64(t0, t2), _mm_unpackhi_epi64(t0, t2), _mm_unpacklo_epi64(t1, t3), _mm_unpackhi_epi64(t1, t3)]
    }
}

/// L from the byte-rotation masks, as `l256`.
#[inline(always)]
unsafe fn l128(p: __m128i, m: &Rot<__m128i>, isr: bool) -> __m128i {
    // SAFETY: the caller has SSSE3.
    unsafe {
        let s = if isr { _mm_shuffle_epi8(p, m.r0) } else { p };
        let a = _mm_xor_si128(_mm_xor_si128(s, _mm_shuffle_epi8(p, m.r8)), _mm_shuffle_epi8(p, m.r16));
        let a = _mm_or_si128(_mm_slli_epi32::<2>(a), _mm_srli_epi32::<30>(a));
        _mm_xor_si128(_mm_xor_si128(s, _mm_shuffle_epi8(p, m.r24)), a)
    }
}

fn rot128(isr: bool) -> Rot<__m128i> {
    if isr {
        Rot { r0: table(&INV_SHIFT_ROWS), r8: table(&ISR8), r16: table(&ISR16), r24: table(&ISR24) }
    } else {
        Rot { r0: table(&ROL0), r8: table(&ROL8), r16: table(&ROL16), r24: table(&ROL24) }
    }
}

/// AES-NI with SSSE3/SSE4.1 on 128-bit registers.
#[derive(Clone, Copy)]
/// Built only from a token proving AES-NI, SSSE3 and SSE4.1 ([`AesX::new`],
/// [`AesX::broadcast`]), which its methods rely on.
pub(super) struct AesX {
    m0f: __m128i,
    pre: (__m128i, __m128i),
    post: (__m128i, __m128i),
    rot: Rot<__m128i>,
    /// Whether `aesenclast`'s ShiftRows must be undone (not when every
    /// lane holds the same word, as on the one-block path).
    isr: bool,
}

impl AesX {
    /// The engine for the one-block path, whose four lanes are equal.
    #[inline(always)]
    fn broadcast<T: AesSseToken>(_t: T) -> AesX {
        AesX { rot: rot128(false), isr: false, ..AesX::build() }
    }

    #[inline(always)]
    pub(super) fn new(_t: cpu::AesSse) -> AesX {
        AesX::build()
    }

    /// The bulk engine's constants (SSE2 only; callers hold the token).
    #[inline(always)]
    fn build() -> AesX {
        // SAFETY: SSE2 is baseline.
        let m0f = unsafe { _mm_set1_epi8(0x0f) };
        AesX {
            m0f,
            pre: (table(&PRE_TABLES.0), table(&PRE_TABLES.1)),
            post: (table(&POST_TABLES.0), table(&POST_TABLES.1)),
            rot: rot128(true),
            isr: true,
        }
    }

    #[inline(always)]
    fn nibbles(self, x: __m128i, t: (__m128i, __m128i)) -> __m128i {
        // SAFETY: the token proves SSSE3.
        unsafe {
            let l = _mm_and_si128(x, self.m0f);
            let h = _mm_and_si128(_mm_srli_epi16::<4>(x), self.m0f);
            _mm_xor_si128(_mm_shuffle_epi8(t.0, l), _mm_shuffle_epi8(t.1, h))
        }
    }
}

impl Engine for AesX {
    xmm_common!();
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        self.xor(self.xor(a, b), c)
    }
    #[inline(always)]
    fn t(self, x: __m128i) -> __m128i {
        let u = self.nibbles(x, self.pre);
        // SAFETY: the token proves AES-NI and SSSE3.
        unsafe {
            let z = _mm_aesenclast_si128(u, _mm_setzero_si128());
            l128(self.nibbles(z, self.post), &self.rot, self.isr)
        }
    }
}

/// GFNI on xmm registers (VEX encoding, no AVX-512).
#[derive(Clone, Copy)]
struct GfniX {
    _t: cpu::GfniAvx2,
    pre: __m128i,
    post: __m128i,
    rot: Rot<__m128i>,
}

impl Engine for GfniX {
    xmm_common!();
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        self.xor(self.xor(a, b), c)
    }
    #[inline(always)]
    fn t(self, x: __m128i) -> __m128i {
        // SAFETY: the token proves GFNI and AVX.
        unsafe {
            let u = _mm_gf2p8affine_epi64_epi8::<PRE_C>(x, self.pre);
            l128(_mm_gf2p8affineinv_epi64_epi8::<POST_C>(u, self.post), &self.rot, false)
        }
    }
}

/// GFNI on xmm registers with AVX-512VL rotations and three-way XORs.
#[derive(Clone, Copy)]
struct GfniXVl {
    _t: cpu::GfniAvx512,
    pre: __m128i,
    post: __m128i,
}

impl Engine for GfniXVl {
    xmm_common!();
    #[inline(always)]
    fn xor3(self, a: __m128i, b: __m128i, c: __m128i) -> __m128i {
        // SAFETY: the token proves AVX-512F/VL.
        unsafe { _mm_ternarylogic_epi32::<0x96>(a, b, c) }
    }
    #[inline(always)]
    fn t(self, x: __m128i) -> __m128i {
        // SAFETY: the token proves GFNI and AVX-512F/VL.
        unsafe {
            let u = _mm_gf2p8affine_epi64_epi8::<PRE_C>(x, self.pre);
            let s = _mm_gf2p8affineinv_epi64_epi8::<POST_C>(u, self.post);
            let a = _mm_ternarylogic_epi32::<0x96>(s, _mm_rol_epi32::<2>(s), _mm_rol_epi32::<10>(s));
            _mm_ternarylogic_epi32::<0x96>(a, _mm_rol_epi32::<18>(s), _mm_rol_epi32::<24>(s))
        }
    }
    #[inline(always)]
    fn t_xor(self, x: __m128i, acc: __m128i) -> __m128i {
        // SAFETY: the token proves GFNI and AVX-512F/VL.
        unsafe {
            let u = _mm_gf2p8affine_epi64_epi8::<PRE_C>(x, self.pre);
            let s = _mm_gf2p8affineinv_epi64_epi8::<POST_C>(u, self.post);
            let a = _mm_ternarylogic_epi32::<0x96>(acc, s, _mm_rol_epi32::<2>(s));
            let b =
                _mm_ternarylogic_epi32::<0x96>(_mm_rol_epi32::<10>(s), _mm_rol_epi32::<18>(s), _mm_rol_epi32::<24>(s));
            _mm_xor_si128(a, b)
        }
    }
}

fn gfni_consts() -> (__m128i, __m128i) {
    // SAFETY: SSE2 is baseline.
    unsafe { (_mm_set1_epi64x(GFNI_PRE as i64), _mm_set1_epi64x(GFNI_POST as i64)) }
}

#[target_feature(enable = "avx,avx2,avx512f,avx512vl,gfni")]
pub(super) fn one_gfni_vl(t: cpu::GfniAvx512, rk: &[u32; 32], w: [u32; 4]) -> [u32; 4] {
    let (pre, post) = gfni_consts();
    simd::one(GfniXVl { _t: t, pre, post }, rk, w)
}

#[target_feature(enable = "avx,avx2,gfni")]
pub(super) fn one_gfni(t: cpu::GfniAvx2, rk: &[u32; 32], w: [u32; 4]) -> [u32; 4] {
    let (pre, post) = gfni_consts();
    simd::one(GfniX { _t: t, pre, post, rot: rot128(false) }, rk, w)
}

#[target_feature(enable = "aes,ssse3,sse4.1")]
pub(super) fn one_aes<T: AesSseToken>(t: T, rk: &[u32; 32], w: [u32; 4]) -> [u32; 4] {
    simd::one(AesX::broadcast(t), rk, w)
}
