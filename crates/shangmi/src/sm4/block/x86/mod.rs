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
//! on the two 128-bit halves), 128-bit (AES-NI with SSE; GFNI for single
//! blocks). CBC encryption's latency path is `x86_serial.rs`. Every engine is built from a
//! [`crate::cpu`] token, so holding one proves its features: the `unsafe`
//! blocks below rely on that alone. No branch or address depends on data.

use core::arch::x86_64::*;

pub(crate) mod aesni;
mod consts;
mod sbox;
mod serial;
mod xmm;
mod ymm;

use self::consts::*;
use self::sbox::{aes_pre, GFNI_POST, GFNI_PRE, H0_Q, H1_Q, H3_Q, LIN_INV_Q, LIN_Q, POST_TABLES, PRE_TABLES};
use super::simd::{self, Engine, With};
use crate::cpu::{self, Token};
use crate::sm4::Backend;

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

/// GFNI on 512-bit registers, in the round domain of [`super::sbox::lin`]:
/// the S-box and `lin ∘ L` are three `gf2p8affineinvqb` of the round input
/// (the byte maps h0, h1, h3 of `sbox.rs`), so a round's chain is one GFNI
/// instruction, a rotation and two three-way XORs.
#[derive(Clone, Copy)]
struct GfniZ {
    _t: cpu::GfniAvx512,
    lin: __m512i,
    lin_inv: __m512i,
    h: [__m512i; 3],
    key_c: __m512i,
}

impl GfniZ {
    #[inline(always)]
    fn new(t: cpu::GfniAvx512) -> GfniZ {
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

/// Byte-rotation masks for L: (rot 0, rot 8, rot 16, rot 24), each
/// composed with the inverse ShiftRows on the AES-NI engines.
#[derive(Clone, Copy)]
pub(super) struct Rot<V> {
    r0: V,
    r8: V,
    r16: V,
    r24: V,
}

use ymm::{AesY, GfniY, VaesY};

// ---------------------------------------------------------------- 128-bit

use xmm::{one_aes, one_gfni, one_gfni_vl, AesX};

// ---------------------------------------------------------------- dispatch

/// Blocks kept in flight: 64 on 512-bit registers, 16 on 256-bit, 8 on
/// 128-bit (as many as the 16 or 32 architectural registers hold), except
/// VAES on 256-bit registers: 32 (four groups; the spills go to the load
/// and store ports and the longer S-box chain hides better, measured
/// +10-30% over two groups on Zen 3, bench/NOTES.md).
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

            /// Messages in one group of [`cbc_lanes`].
            pub(super) const LANES: usize = <$eng as Engine>::LANES;

            #[target_feature(enable = $feat)]
            pub(super) fn cbc_lanes(
                t: $tok,
                rk: &[u32; 32],
                chains: &mut [[u8; 16]],
                bufs: &mut [&mut [u8]],
                blocks: usize,
            ) {
                let e = $eng::new(t);
                if bufs.len() == 4 * LANES {
                    simd::cbc_lanes::<_, 4>(e, rk, chains, bufs, blocks)
                } else if bufs.len() == 2 * LANES {
                    simd::cbc_lanes::<_, 2>(e, rk, chains, bufs, blocks)
                } else {
                    simd::cbc_lanes::<_, 1>(e, rk, chains, bufs, blocks)
                }
            }
        }
    };
}

entry!(gfni512, "avx,avx2,avx512f,avx512bw,avx512vl,gfni", cpu::GfniAvx512, GfniZ, 4);
entry!(vaes512, "aes,avx,avx2,avx512f,avx512bw,avx512vl,vaes", cpu::VaesAvx512, VaesZ, 4);
entry!(gfni256, "avx,avx2,gfni", cpu::GfniAvx2, GfniY, 2);
entry!(vaes256, "aes,ssse3,avx,avx2,vaes", cpu::VaesAvx2, VaesY, 4);
entry!(aes256, "aes,ssse3,avx,avx2", cpu::AesAvx2, AesY, 2);
entry!(aes128, "aes,ssse3,sse4.1", cpu::AesSse, AesX, 2);

/// Whether `b` is one of this module's backends and its token exists.
pub(crate) fn supported(b: Backend) -> bool {
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().is_some(),
        Backend::VaesAvx512 => cpu::VaesAvx512::get().is_some(),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().is_some(),
        Backend::VaesAvx2 => cpu::VaesAvx2::get().is_some(),
        Backend::AesniAvx2 => cpu::AesAvx2::get().is_some(),
        Backend::AesniSse => cpu::AesSse::get().is_some(),
        _ => false,
    }
}

/// Encrypts (or decrypts, with reversed keys) whole blocks from `src` (or in
/// place) into `dst` on backend `b`; false if `b` is not one of this
/// module's (then nothing was done).
pub(crate) fn crypt_blocks(b: Backend, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) -> bool {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { gfni512::crypt(t, rk, src, dst) }),
        Backend::VaesAvx512 => cpu::VaesAvx512::get().map(|t| unsafe { vaes512::crypt(t, rk, src, dst) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { gfni256::crypt(t, rk, src, dst) }),
        Backend::VaesAvx2 => cpu::VaesAvx2::get().map(|t| unsafe { vaes256::crypt(t, rk, src, dst) }),
        Backend::AesniAvx2 => cpu::AesAvx2::get().map(|t| unsafe { aes256::crypt(t, rk, src, dst) }),
        Backend::AesniSse => cpu::AesSse::get().map(|t| unsafe { aes128::crypt(t, rk, src, dst) }),
        _ => None,
    }
    .is_some()
}

/// CTR over the whole multi-group steps of `dst` (see [`simd::ctr32`]);
/// returns the bytes done (0 for a backend not in this module).
pub(crate) fn ctr32(b: Backend, rk: &[u32; 32], p: [u32; 3], c: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { gfni512::ctr32(t, rk, p, c, src, dst) }),
        Backend::VaesAvx512 => cpu::VaesAvx512::get().map(|t| unsafe { vaes512::ctr32(t, rk, p, c, src, dst) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { gfni256::ctr32(t, rk, p, c, src, dst) }),
        Backend::VaesAvx2 => cpu::VaesAvx2::get().map(|t| unsafe { vaes256::ctr32(t, rk, p, c, src, dst) }),
        Backend::AesniAvx2 => cpu::AesAvx2::get().map(|t| unsafe { aes256::ctr32(t, rk, p, c, src, dst) }),
        Backend::AesniSse => cpu::AesSse::get().map(|t| unsafe { aes128::ctr32(t, rk, p, c, src, dst) }),
        _ => None,
    }
    .unwrap_or(0)
}

/// One block through the latency path of backend `b`; false if `b` is not
/// one of this module's.
pub(crate) fn one(b: Backend, rk: &[u32; 32], block: &mut [u8; 16]) -> bool {
    let w = simd::words(block);
    // SAFETY (every arm): the token proves the entry point's features.
    let out = match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { one_gfni_vl(t, rk, w) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { one_gfni(t, rk, w) }),
        Backend::VaesAvx512 | Backend::VaesAvx2 | Backend::AesniAvx2 | Backend::AesniSse => {
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
pub(crate) fn cbc_encrypt(b: Backend, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) -> bool {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => cpu::GfniAvx512::get().map(|t| unsafe { serial::cbc_encrypt_gfni_vl(t, rk, iv, data) }),
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { serial::cbc_encrypt_gfni(t, rk, iv, data) }),
        Backend::VaesAvx512 | Backend::VaesAvx2 | Backend::AesniAvx2 => {
            cpu::AesAvx2::get().map(|t| unsafe { serial::cbc_encrypt_avx(t, rk, iv, data) })
        }
        Backend::AesniSse => cpu::AesSse::get().map(|t| unsafe { serial::cbc_encrypt_sse(t, rk, iv, data) }),
        _ => None,
    }
    .is_some()
}

/// Messages one step of [`cbc_lanes`] takes on backend `b` with one group
/// (0 if `b` is not one of this module's or its token is absent).
pub(crate) fn cbc_lanes_width(b: Backend) -> usize {
    if supported(b) {
        match b {
            Backend::GfniAvx512 => gfni512::LANES,
            Backend::VaesAvx512 => vaes512::LANES,
            Backend::GfniAvx2 => gfni256::LANES,
            Backend::VaesAvx2 => vaes256::LANES,
            Backend::AesniAvx2 => aes256::LANES,
            Backend::AesniSse => aes128::LANES,
            _ => 0,
        }
    } else {
        0
    }
}

/// CBC encryption of `bufs.len()` messages side by side on backend `b`
/// (see [`simd::cbc_lanes`]; `bufs.len()` must be 1, 2 or 4 times
/// [`cbc_lanes_width`]); false if `b` is not one of this module's.
pub(crate) fn cbc_lanes(
    b: Backend,
    rk: &[u32; 32],
    chains: &mut [[u8; 16]],
    bufs: &mut [&mut [u8]],
    blocks: usize,
) -> bool {
    // SAFETY (every arm): the token proves the entry point's features.
    match b {
        Backend::GfniAvx512 => {
            cpu::GfniAvx512::get().map(|t| unsafe { gfni512::cbc_lanes(t, rk, chains, bufs, blocks) })
        }
        Backend::VaesAvx512 => {
            cpu::VaesAvx512::get().map(|t| unsafe { vaes512::cbc_lanes(t, rk, chains, bufs, blocks) })
        }
        Backend::GfniAvx2 => cpu::GfniAvx2::get().map(|t| unsafe { gfni256::cbc_lanes(t, rk, chains, bufs, blocks) }),
        Backend::VaesAvx2 => cpu::VaesAvx2::get().map(|t| unsafe { vaes256::cbc_lanes(t, rk, chains, bufs, blocks) }),
        Backend::AesniAvx2 => cpu::AesAvx2::get().map(|t| unsafe { aes256::cbc_lanes(t, rk, chains, bufs, blocks) }),
        Backend::AesniSse => cpu::AesSse::get().map(|t| unsafe { aes128::cbc_lanes(t, rk, chains, bufs, blocks) }),
        _ => None,
    }
    .is_some()
}
