//! 256-bit SM4 engines: GFNI with AVX2, and the AES S-box either with
//! AES-NI on the two 128-bit halves of AVX2 registers or with VAES on the
//! whole register (one generic engine, [`AesLanes`]). Same constant-time
//! argument as the parent module: register operations only, token-proven
//! features.

use super::*;

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
pub(super) struct GfniY {
    _t: cpu::GfniAvx2,
    pre: __m256i,
    post: __m256i,
    rot: Rot<__m256i>,
}

impl GfniY {
    #[inline(always)]
    pub(super) fn new(t: cpu::GfniAvx2) -> GfniY {
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

/// The one step in which the two AES engines on 256-bit registers differ:
/// `aesenclast` with a zero key on both 128-bit lanes of a register (the
/// S-box core between the `pre` and `post` affine maps). Implemented only
/// by tokens that also prove AVX2, which [`AesLanes`]'s other methods rely
/// on.
pub(super) trait AesRound: Token {
    /// `aesenclast(u, 0)` on each 128-bit half of `u`.
    fn aesenclast0(self, u: __m256i) -> __m256i;
}

impl AesRound for cpu::AesAvx2 {
    /// AES-NI on the two extracted 128-bit halves.
    #[inline(always)]
    fn aesenclast0(self, u: __m256i) -> __m256i {
        // SAFETY: the token proves AES-NI and AVX2.
        unsafe {
            let zero = _mm_setzero_si128();
            let lo = _mm_aesenclast_si128(_mm256_castsi256_si128(u), zero);
            let hi = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(u), zero);
            _mm256_set_m128i(hi, lo)
        }
    }
}

impl AesRound for cpu::VaesAvx2 {
    /// One `vaesenclast` on the whole ymm register.
    #[inline(always)]
    fn aesenclast0(self, u: __m256i) -> __m256i {
        // SAFETY: the token proves VAES and AVX2.
        unsafe { _mm256_aesenclast_epi128(u, _mm256_setzero_si256()) }
    }
}

/// The AES-instruction S-box on 256-bit registers, generic over how the
/// `aesenclast` step is done ([`AesRound`]): [`AesY`] with AES-NI on the
/// two halves, [`VaesY`] with VAES on the whole register; the affine maps,
/// the rotations for L and (in [`simd`]) the rounds and the block loops are
/// the same code. Constant time as every engine here: `vpand`, `vpsrlw`,
/// `vpshufb` with the tables *in registers* (the data only selects bytes
/// among register lanes, never a memory address), `aesenclast` with a zero
/// key, XORs and shifts; no branch at all. (The AES-NI and VAES S-box
/// instructions have data-independent latency on every x86 CPU that has
/// them; valgrind cannot run VAES, so for [`VaesY`] this is argued here
/// rather than checked by the ctgrind test.)
#[derive(Clone, Copy)]
pub(super) struct AesLanes<T> {
    t: T,
    m0f: __m256i,
    pre: (__m256i, __m256i),
    post: (__m256i, __m256i),
    rot: Rot<__m256i>,
}

/// AES-NI on the two halves of 256-bit registers.
pub(super) type AesY = AesLanes<cpu::AesAvx2>;
/// VAES on whole 256-bit registers: one `vaesenclast` instead of two
/// `aesenclast` on extracted halves.
pub(super) type VaesY = AesLanes<cpu::VaesAvx2>;

impl<T: AesRound> AesLanes<T> {
    #[inline(always)]
    pub(super) fn new(t: T) -> AesLanes<T> {
        // SAFETY: every `AesRound` token proves AVX2 (trait doc).
        unsafe {
            let b = |x: &[u8; 16]| _mm256_broadcastsi128_si256(table(x));
            AesLanes {
                t,
                m0f: _mm256_set1_epi8(0x0f),
                pre: (b(&PRE_TABLES.0), b(&PRE_TABLES.1)),
                post: (b(&POST_TABLES.0), b(&POST_TABLES.1)),
                rot: rot256(true),
            }
        }
    }

    /// `t.0[x & 15] ^ t.1[x >> 4]` on every byte.
    #[inline(always)]
    fn nibbles(self, x: __m256i, t: (__m256i, __m256i)) -> __m256i {
        // SAFETY: every `AesRound` token proves AVX2.
        unsafe {
            let l = _mm256_and_si256(x, self.m0f);
            let h = _mm256_and_si256(_mm256_srli_epi16::<4>(x), self.m0f);
            _mm256_xor_si256(_mm256_shuffle_epi8(t.0, l), _mm256_shuffle_epi8(t.1, h))
        }
    }
}

impl<T: AesRound> Engine for AesLanes<T> {
    ymm_common!();
    #[inline(always)]
    fn t(self, x: __m256i) -> __m256i {
        let z = self.t.aesenclast0(self.nibbles(x, self.pre));
        // SAFETY: every `AesRound` token proves AVX2.
        unsafe { l256(self.nibbles(z, self.post), &self.rot, true) }
    }
}
