//! SM4 engines for x86-64 (see [`super::simd`] for the word-sliced kernels).
//!
//! Two ways to compute the S-box on every byte of a register, both without
//! memory lookups:
//! - GFNI: `gf2p8affineqb` maps x to `phi(A·x + C)` in the AES field and
//!   `gf2p8affineinvqb` inverts it there and maps back with `A·phi^-1 + C`
//!   (matrices derived in [`sbox`]): two instructions.
//! - AES-NI: `pre`/`post` affine maps as `pshufb` nibble lookups in
//!   registers around `aesenclast` with a zero key; its ShiftRows is undone
//!   by the same `pshufb` that rotates bytes for L.
//!
//! Engines by register width: `zmm.rs` (GFNI, VAES), `ymm.rs` (GFNI; VAES;
//! AES-NI on the two 128-bit halves), `xmm.rs` (AES-NI with SSE; GFNI for
//! single blocks); AES-NI with AVX-512 keeps its own tuned kernel
//! (`aesni.rs`). CBC encryption's latency path is `serial.rs`, the S-box
//! maps onto these instructions `sbox.rs`, the shared `pshufb` indices
//! `consts.rs`. Every engine is built from a [`crate::cpu`] token, so holding one proves its features: the `unsafe`
//! blocks below rely on that alone. No branch or address depends on data.

//!
//! Every function this module offers the kernel choice in
//! [`crate::sm4::block::Kernel`] is safe and takes the token that proves its
//! features by value: holding the token is the proof, so no `unsafe fn` is
//! reachable without it. The latency paths (one block, CBC encryption) of
//! the wider AES engines need only a subset of their features; the traits
//! [`AesSseToken`] and [`AesAvxToken`] name the tokens that prove the
//! subset, checked at compile time against [`Token::NEEDS`].

use core::arch::x86_64::*;

pub(crate) mod aesni;
mod consts;
mod sbox;
mod serial;
mod xmm;
mod ymm;
mod zmm;

use self::consts::*;
use self::sbox::{aes_pre, GFNI_POST, GFNI_PRE, H0_Q, H1_Q, H3_Q, LIN_INV_Q, LIN_Q, POST_TABLES, PRE_TABLES};
use super::simd::{self, Engine, With};
use crate::cpu::{self, Feature, Token};
use xmm::AesX;
use ymm::{AesY, GfniY, VaesY};
use zmm::{GfniZ, VaesZ};

pub(super) fn table(t: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes; SSE2 is baseline on x86-64.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
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

// ---------------------------------------------------------------- tokens

/// Whether every feature of `fs` is in `needs` (at compile time).
const fn needs_all(needs: &[Feature], fs: &[Feature]) -> bool {
    let mut i = 0;
    while i < fs.len() {
        let mut j = 0;
        let mut found = false;
        while j < needs.len() {
            found |= needs[j] as u8 == fs[i] as u8;
            j += 1;
        }
        if !found {
            return false;
        }
        i += 1;
    }
    true
}

/// A token proving AES-NI, SSSE3 and SSE4.1 (the one-block AES path).
pub(crate) trait AesSseToken: Token {}
/// A token proving AES-NI, SSSE3, SSE4.1, AVX and AVX2 (the VEX-encoded
/// CBC-encryption latency path).
pub(crate) trait AesAvxToken: AesSseToken {}

macro_rules! proves {
    ($tr:ident = $fs:expr; $($t:ty),+) => {$(
        impl $tr for $t {}
        const _: () = assert!(needs_all(<$t as Token>::NEEDS, $fs));
    )+};
}

const AES_SSE: &[Feature] = &[Feature::Ssse3, Feature::Sse41, Feature::Aes];
const AES_AVX: &[Feature] = &[Feature::Ssse3, Feature::Sse41, Feature::Aes, Feature::Avx, Feature::Avx2];
proves!(AesSseToken = AES_SSE; cpu::AesSse, cpu::AesAvx2, cpu::AesAvx512, cpu::VaesAvx2, cpu::VaesAvx512);
proves!(AesAvxToken = AES_AVX; cpu::AesAvx2, cpu::AesAvx512, cpu::VaesAvx2, cpu::VaesAvx512);

// ---------------------------------------------------------------- entry points

/// Blocks kept in flight: 64 on 512-bit registers, 16 on 256-bit, 8 on
/// 128-bit (as many as the 16 or 32 architectural registers hold), except
/// VAES on 256-bit registers: 32 (four groups; the spills go to the load
/// and store ports and the longer S-box chain hides better, measured
/// +10-30% over two groups on Zen 3, bench/NOTES.md).
macro_rules! entry {
    ($name:ident, $feat:literal, $tok:ty, $eng:ident, $g:literal) => {
        /// The bulk kernels of one engine: safe, the token proves the features.
        pub(crate) mod $name {
            use super::*;

            /// Messages in one group of [`cbc_lanes`].
            pub(crate) const LANES: usize = <$eng as Engine>::LANES;

            /// Encrypts (or decrypts, with reversed keys) whole blocks from
            /// `src` (or in place) into `dst`.
            #[inline]
            pub(crate) fn crypt(t: $tok, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
                // SAFETY: the token proves the target features.
                unsafe { imp::crypt(t, rk, src, dst) }
            }

            /// CTR over the whole multi-group steps of `dst` (see
            /// [`simd::ctr32`]); returns the bytes done.
            #[inline]
            pub(crate) fn ctr32(
                t: $tok,
                rk: &[u32; 32],
                p: [u32; 3],
                c: u32,
                src: Option<&[u8]>,
                dst: &mut [u8],
            ) -> usize {
                // SAFETY: the token proves the target features.
                unsafe { imp::ctr32(t, rk, p, c, src, dst) }
            }

            /// CBC encryption of `bufs.len()` messages side by side (1, 2
            /// or 4 times [`LANES`]; see [`simd::cbc_lanes`]).
            #[inline]
            pub(crate) fn cbc_lanes(
                t: $tok,
                rk: &[u32; 32],
                chains: &mut [[u8; 16]],
                bufs: &mut [&mut [u8]],
                blocks: usize,
            ) {
                // SAFETY: the token proves the target features.
                unsafe { imp::cbc_lanes(t, rk, chains, bufs, blocks) }
            }

            mod imp {
                use super::super::*;
                use super::LANES;

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
        }
    };
}

entry!(gfni512, "avx,avx2,avx512f,avx512bw,avx512vl,gfni", cpu::GfniAvx512, GfniZ, 4);
entry!(vaes512, "aes,avx,avx2,avx512f,avx512bw,avx512vl,vaes", cpu::VaesAvx512, VaesZ, 4);
entry!(gfni256, "avx,avx2,gfni", cpu::GfniAvx2, GfniY, 2);
entry!(vaes256, "aes,ssse3,avx,avx2,vaes", cpu::VaesAvx2, VaesY, 4);
entry!(aes256, "aes,ssse3,avx,avx2", cpu::AesAvx2, AesY, 2);
entry!(aes128, "aes,ssse3,sse4.1", cpu::AesSse, AesX, 2);

// ---------------------------------------------------------------- latency paths

/// One block with GFNI on xmm registers and AVX-512VL's rotations.
#[inline]
pub(crate) fn one_gfni512(t: cpu::GfniAvx512, rk: &[u32; 32], block: &mut [u8; 16]) {
    // SAFETY: the token proves the target features.
    let o = unsafe { xmm::one_gfni_vl(t, rk, simd::words(block)) };
    simd::put_words(o, block);
}

/// One block with GFNI on xmm registers (VEX encoding).
#[inline]
pub(crate) fn one_gfni256(t: cpu::GfniAvx2, rk: &[u32; 32], block: &mut [u8; 16]) {
    // SAFETY: the token proves the target features.
    let o = unsafe { xmm::one_gfni(t, rk, simd::words(block)) };
    simd::put_words(o, block);
}

/// One block with AES-NI on xmm registers.
#[inline]
pub(crate) fn one_aes<T: AesSseToken>(t: T, rk: &[u32; 32], block: &mut [u8; 16]) {
    // SAFETY: the token proves AES-NI, SSSE3 and SSE4.1 (`AesSseToken`).
    let o = unsafe { xmm::one_aes(t, rk, simd::words(block)) };
    simd::put_words(o, block);
}

/// CBC encryption of whole blocks in place on the GFNI latency path with
/// AVX-512VL; `iv` becomes the last ciphertext block.
#[inline]
pub(crate) fn cbc_encrypt_gfni512(t: cpu::GfniAvx512, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves the target features.
    unsafe { serial::cbc_encrypt_gfni_vl(t, rk, iv, data) }
}

/// As [`cbc_encrypt_gfni512`] with GFNI and AVX2.
#[inline]
pub(crate) fn cbc_encrypt_gfni256(t: cpu::GfniAvx2, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves the target features.
    unsafe { serial::cbc_encrypt_gfni(t, rk, iv, data) }
}

/// As [`cbc_encrypt_gfni512`] on the AES-NI latency path, VEX-encoded.
#[inline]
pub(crate) fn cbc_encrypt_aes_avx<T: AesAvxToken>(t: T, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves AES-NI, SSSE3, SSE4.1 and AVX2 (`AesAvxToken`).
    unsafe { serial::cbc_encrypt_avx(t, rk, iv, data) }
}

/// As [`cbc_encrypt_gfni512`] on the AES-NI latency path with SSE.
#[inline]
pub(crate) fn cbc_encrypt_aes_sse(t: cpu::AesSse, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves the target features.
    unsafe { serial::cbc_encrypt_sse(t, rk, iv, data) }
}
