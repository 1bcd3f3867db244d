//! 512-bit SM4 engines: GFNI and VAES on AVX-512 registers. Same
//! constant-time argument as the parent module: register operations only,
//! token-proven features.

use super::*;

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

/// GFNI on 512-bit registers, in the round domain of [`super::sbox::lin`]:
/// the S-box and `lin ∘ L` are three `gf2p8affineinvqb` of the round input
/// (the byte maps h0, h1, h3 of `sbox.rs`), so a round's chain is one GFNI
/// instruction, a rotation and two three-way XORs.
#[derive(Clone, Copy)]
pub(super) struct GfniZ {
    _t: cpu::GfniAvx512,
    lin: __m512i,
    lin_inv: __m512i,
    h: [__m512i; 3],
    key_c: __m512i,
}

impl GfniZ {
    #[inline(always)]
    pub(super) fn new(t: cpu::GfniAvx512) -> GfniZ {
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let q = |m: (u64, u8)| _mm512_set1_epi64(m.0 as i64);
            GfniZ {
                _t: t,
                lin: q(LIN_Q),
                lin_inv: q(LIN_INV_Q),
                h: [q(H0_Q), q(H1_Q), q(H3_Q)],
                key_c: _mm512_set1_epi8(aes_pre(0) as i8),
            }
        }
    }

    /// The three folded maps of the round input `u`.
    #[inline(always)]
    fn maps(self, u: __m512i) -> [__m512i; 3] {
        // SAFETY: the token proves GFNI and AVX-512F/BW/VL.
        unsafe {
            [
                _mm512_gf2p8affineinv_epi64_epi8::<{ H0_Q.1 as i32 }>(u, self.h[0]),
                _mm512_gf2p8affineinv_epi64_epi8::<{ H1_Q.1 as i32 }>(u, self.h[1]),
                _mm512_gf2p8affineinv_epi64_epi8::<{ H3_Q.1 as i32 }>(u, self.h[2]),
            ]
        }
    }
}

impl Engine for GfniZ {
    zmm_common!();
    #[inline(always)]
    fn key(self, k: u32) -> __m512i {
        const { assert!(LIN_Q.1 == 0 && LIN_INV_Q.1 == 0) };
        // SAFETY: the token proves GFNI and AVX-512F.
        unsafe { _mm512_xor_si512(_mm512_gf2p8affine_epi64_epi8::<0>(self.splat(k), self.lin), self.key_c) }
    }
    #[inline(always)]
    fn enter(self, v: __m512i) -> __m512i {
        // SAFETY: as above.
        unsafe { _mm512_gf2p8affine_epi64_epi8::<0>(v, self.lin) }
    }
    #[inline(always)]
    fn leave(self, v: __m512i) -> __m512i {
        // SAFETY: as above.
        unsafe { _mm512_gf2p8affine_epi64_epi8::<0>(v, self.lin_inv) }
    }
    #[inline(always)]
    fn t(self, u: __m512i) -> __m512i {
        let [a0, a1, a3] = self.maps(u);
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let r = _mm512_ternarylogic_epi32::<0x96>(a0, _mm512_rol_epi32::<8>(a1), _mm512_rol_epi32::<16>(a1));
            _mm512_xor_si512(r, _mm512_rol_epi32::<24>(a3))
        }
    }
    #[inline(always)]
    fn t_xor(self, u: __m512i, acc: __m512i) -> __m512i {
        let [a0, a1, a3] = self.maps(u);
        // SAFETY: the token proves AVX-512F.
        unsafe {
            let r = _mm512_ternarylogic_epi32::<0x96>(acc, a0, _mm512_rol_epi32::<24>(a3));
            _mm512_ternarylogic_epi32::<0x96>(r, _mm512_rol_epi32::<8>(a1), _mm512_rol_epi32::<16>(a1))
        }
    }
}

/// VAES on 512-bit registers.
#[derive(Clone, Copy)]
pub(super) struct VaesZ {
    _t: cpu::VaesAvx512,
    m0f: __m512i,
    pre: (__m512i, __m512i),
    post: (__m512i, __m512i),
    isr: __m512i,
}

impl VaesZ {
    #[inline(always)]
    pub(super) fn new(t: cpu::VaesAvx512) -> VaesZ {
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
