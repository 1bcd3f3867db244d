//! SM4 through `AESE` on NEON registers, for cores with the AES
//! instructions but not the SM4 ones (Graviton 2/3, Apple M1-M3, Ampere
//! Altra, Neoverse N1/V1/N2 as usually licensed).
//!
//! The S-box is `post(AESE(pre(x), 0))`: `pre(x) = phi(A·x + C)` carries
//! SM4's field onto AES's through the isomorphism `phi`, `AESE` with a zero
//! key is AES's ShiftRows then SubBytes, and `post` undoes AES's affine map
//! and `phi` and applies SM4's output affine map (the maps the x86-64 AES-NI
//! engines use, derived the same way at compile time below). `pre` and
//! `post` are byte-wise affine maps done as two `TBL` nibble lookups in
//! registers; ShiftRows is undone by the same `TBL` that rotates bytes for
//! L. That engine plugs into the word-sliced kernels of
//! [`crate::sm4::block::simd`] (four blocks per group, `LD4`/`ST4`
//! transpose them) for single blocks, bulk tails and many-message CBC.
//!
//! The hot paths keep the state in `pre`'s linear domain instead, where
//! `pre` disappears into the XORs before `AESE` and `post` and `L` become
//! three byte-wise nibble-table maps and byte rotations: [`cbc`] for the
//! serial CBC encryption (one block, latency-bound) and [`bulk`] for the
//! parallel modes (sixteen blocks byte-sliced, 256 bytes a step).
//!
//! Constant time: `TBL` indexes a register, not memory; `AESE` has
//! data-independent timing; no branch or address depends on the data.

use core::arch::aarch64::*;

use super::super::sbox::{gmul, invert_by_search, mat_rows, SM4_A_ROWS, SM4_C};
use super::super::simd::{self, Engine, With};
use crate::cpu;

/// Messages per group of [`cbc_lanes`].
pub(crate) const LANES: usize = 4;

// ------------------------------------------------ the S-box maps (const)

/// Low byte of the AES field polynomial 0x11B.
const AES_POLY: u8 = 0x1B;

/// A root of SM4's field polynomial x^8+x^7+x^6+x^5+x^4+x^2+1 in AES's
/// field: x -> BETA extends to the isomorphism `phi`.
const BETA: u8 = {
    let mut beta = 2u16;
    loop {
        let b = beta as u8;
        let (mut acc, mut p, mut k) = (0u8, 1u8, 0);
        while k < 9 {
            if (0x1F5u16 >> k) & 1 == 1 {
                acc ^= p;
            }
            p = gmul(p, b, AES_POLY);
            k += 1;
        }
        if acc == 0 {
            break b;
        }
        beta += 1;
        assert!(beta < 256, "SM4 field polynomial has no root in the AES field");
    }
};

const fn phi(x: u8) -> u8 {
    let (mut y, mut p, mut i) = (0u8, 1u8, 0);
    while i < 8 {
        if (x >> i) & 1 == 1 {
            y ^= p;
        }
        p = gmul(p, BETA, AES_POLY);
        i += 1;
    }
    y
}

/// `pre(x) = phi(A·x + C)`: AES's inversion of it is phi of SM4's inversion.
const fn pre(x: u8) -> u8 {
    phi(mat_rows(&SM4_A_ROWS, x) ^ SM4_C)
}

/// From AES SubBytes' output back to SM4's S-box output.
const fn post(z: u8) -> u8 {
    let inv = invert_by_search!(
        z,
        |b| b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63,
        "the AES affine map"
    );
    let w = invert_by_search!(inv, |v| phi(v), "phi");
    mat_rows(&SM4_A_ROWS, w) ^ SM4_C
}

/// `f(x) = lo[x & 15] ^ hi[x >> 4]` for an affine byte map `f`.
macro_rules! nibble_tables {
    ($f:ident) => {{
        let c = $f(0);
        let (mut lo, mut hi) = ([0u8; 16], [0u8; 16]);
        let mut i = 0;
        while i < 16 {
            lo[i] = $f(i as u8);
            hi[i] = $f((i as u8) << 4) ^ c;
            i += 1;
        }
        (lo, hi)
    }};
}

const PRE: ([u8; 16], [u8; 16]) = nibble_tables!(pre);
const POST: ([u8; 16], [u8; 16]) = nibble_tables!(post);

/// `TBL` index: AES's ShiftRows undone (`out[r + 4c] = in[r + 4((c + r) % 4)]`
/// after ShiftRows), then every 32-bit lane rotated left by `8·r` bits.
const fn isr_rol(r: usize) -> [u8; 16] {
    let mut inv = [0u8; 16];
    let mut p = 0;
    while p < 16 {
        let (row, col) = (p % 4, p / 4);
        inv[row + 4 * ((col + row) % 4)] = p as u8;
        p += 1;
    }
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        out[i] = inv[(i & !3) + ((i & 3) + 4 - r) % 4];
        i += 1;
    }
    out
}

// ------------------------------------------------ the engine

/// `AESE` with a zero key: AES's ShiftRows, then SubBytes (inlined into
/// the entry points, which carry the `aes` feature).
#[inline]
#[target_feature(enable = "neon,aes")]
fn aese0(p: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(p, vdupq_n_u8(0))
}

/// Every 32-bit lane byte-swapped (SM4 words are big-endian).
#[inline(always)]
fn be32(v: uint32x4_t) -> uint32x4_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(v))) }
}

/// The AESE engine: the lookup tables in registers. Built only from an
/// [`cpu::AesNeon`] token, which its methods rely on for `AESE`.
#[derive(Clone, Copy)]
pub(crate) struct AesN {
    m0f: uint8x16_t,
    pre: (uint8x16_t, uint8x16_t),
    post: (uint8x16_t, uint8x16_t),
    rot: [uint8x16_t; 4],
}

#[inline(always)]
fn reg(t: &[u8; 16]) -> uint8x16_t {
    // SAFETY: 16 readable bytes; NEON is baseline on aarch64.
    unsafe { vld1q_u8(t.as_ptr()) }
}

impl AesN {
    #[inline(always)]
    fn new(_t: cpu::AesNeon) -> AesN {
        AesN {
            m0f: reg(&[0x0f; 16]),
            pre: (reg(&PRE.0), reg(&PRE.1)),
            post: (reg(&POST.0), reg(&POST.1)),
            rot: [reg(&isr_rol(0)), reg(&isr_rol(1)), reg(&isr_rol(2)), reg(&isr_rol(3))],
        }
    }

    /// A byte-wise affine map from its nibble tables.
    #[inline(always)]
    fn nibbles(self, x: uint8x16_t, t: (uint8x16_t, uint8x16_t)) -> uint8x16_t {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { veorq_u8(vqtbl1q_u8(t.0, vandq_u8(x, self.m0f)), vqtbl1q_u8(t.1, vshrq_n_u8::<4>(x))) }
    }
}

impl Engine for AesN {
    type V = uint32x4_t;
    const LANES: usize = 4;

    #[inline(always)]
    fn splat(self, w: u32) -> uint32x4_t {
        // SAFETY: NEON is baseline on aarch64 (as in every method below).
        unsafe { vdupq_n_u32(w) }
    }
    #[inline(always)]
    fn xor(self, a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        // SAFETY: NEON.
        unsafe { veorq_u32(a, b) }
    }
    #[inline(always)]
    fn xor3(self, a: uint32x4_t, b: uint32x4_t, c: uint32x4_t) -> uint32x4_t {
        // SAFETY: NEON.
        unsafe { veorq_u32(veorq_u32(a, b), c) }
    }
    #[inline(always)]
    fn add(self, a: uint32x4_t, b: uint32x4_t) -> uint32x4_t {
        // SAFETY: NEON.
        unsafe { vaddq_u32(a, b) }
    }
    #[inline(always)]
    fn t(self, x: uint32x4_t) -> uint32x4_t {
        // SAFETY: NEON; the engine exists only with a token proving AES.
        unsafe {
            let p = self.nibbles(vreinterpretq_u8_u32(x), self.pre);
            let z = aese0(p);
            let y = self.nibbles(z, self.post);
            // L(y) = y ^ y<<<24 ^ (y ^ y<<<8 ^ y<<<16)<<<2, every rotation's
            // `TBL` also undoing ShiftRows.
            let s = vqtbl1q_u8(y, self.rot[0]);
            let a = veorq_u8(veorq_u8(s, vqtbl1q_u8(y, self.rot[1])), vqtbl1q_u8(y, self.rot[2]));
            let a = vreinterpretq_u32_u8(a);
            let a = vsliq_n_u32::<2>(vshrq_n_u32::<30>(a), a);
            veorq_u32(vreinterpretq_u32_u8(veorq_u8(s, vqtbl1q_u8(y, self.rot[3]))), a)
        }
    }
    #[inline(always)]
    fn first(self, v: uint32x4_t) -> u32 {
        // SAFETY: NEON.
        unsafe { vgetq_lane_u32::<0>(v) }
    }
    #[inline(always)]
    fn lane_blocks(self) -> uint32x4_t {
        // SAFETY: reads the four u32 of a local array.
        unsafe { vld1q_u32([0u32, 1, 2, 3].as_ptr()) }
    }
    #[inline(always)]
    fn load(self, src: &[u8]) -> [uint32x4_t; 4] {
        let src = &src[..64];
        // SAFETY: 64 readable bytes (sliced above); `LD4` puts word j of
        // block b in lane b of register j.
        unsafe {
            let r = vld4q_u32(src.as_ptr().cast());
            [be32(r.0), be32(r.1), be32(r.2), be32(r.3)]
        }
    }
    #[inline(always)]
    fn store(self, x: [uint32x4_t; 4], with: With<'_>, dst: &mut [u8]) {
        let dst = &mut dst[..64];
        let mut out = uint32x4x4_t(be32(x[3]), be32(x[2]), be32(x[1]), be32(x[0]));
        let other = match with {
            With::Nothing => None,
            With::Dst => Some(&dst[..]),
            With::Src(s) => Some(&s[..64]),
        };
        if let Some(o) = other {
            // SAFETY: 64 readable bytes (sliced above).
            unsafe {
                let w = vld4q_u32(o.as_ptr().cast());
                out = uint32x4x4_t(
                    veorq_u32(out.0, w.0),
                    veorq_u32(out.1, w.1),
                    veorq_u32(out.2, w.2),
                    veorq_u32(out.3, w.3),
                );
            }
        }
        // SAFETY: 64 writable bytes (sliced above).
        unsafe { vst4q_u32(dst.as_mut_ptr().cast(), out) }
    }
}

// ------------------------------------------------ entry points

#[target_feature(enable = "neon,aes")]
fn crypt_impl(e: AesN, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    // Sixteen blocks at a time byte-sliced, the rest word-sliced.
    let done = bulk::crypt(rk, src, dst);
    simd::crypt_blocks::<AesN, 1>(e, rk, src.map(|s| &s[done..]), &mut dst[done..])
}

#[target_feature(enable = "neon,aes")]
fn ctr32_impl(_e: AesN, rk: &[u32; 32], p: [u32; 3], c: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    bulk::ctr32(rk, p, c, src, dst)
}

#[target_feature(enable = "neon,aes")]
fn one_impl(e: AesN, rk: &[u32; 32], block: &mut [u8; 16]) {
    simd::put_words(simd::one(e, rk, simd::words(block)), block)
}

#[target_feature(enable = "neon,aes")]
fn cbc_encrypt_impl(_e: AesN, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    cbc::encrypt(rk, iv, data)
}

#[target_feature(enable = "neon,aes")]
fn cbc_lanes_impl(e: AesN, rk: &[u32; 32], chains: &mut [[u8; 16]], bufs: &mut [&mut [u8]], blocks: usize) {
    match bufs.len() / LANES {
        1 => simd::cbc_lanes::<AesN, 1>(e, rk, chains, bufs, blocks),
        2 => simd::cbc_lanes::<AesN, 2>(e, rk, chains, bufs, blocks),
        _ => simd::cbc_lanes::<AesN, 4>(e, rk, chains, bufs, blocks),
    }
}

/// One block in place.
pub(crate) fn crypt_one(t: cpu::AesNeon, rk: &[u32; 32], block: &mut [u8; 16]) {
    // SAFETY: the token proves NEON and AES.
    unsafe { one_impl(AesN::new(t), rk, block) }
}

/// Whole blocks from `src` (as long as `dst`) or in place into `dst`.
pub(crate) fn crypt(t: cpu::AesNeon, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    // SAFETY: the token proves NEON and AES.
    unsafe { crypt_impl(AesN::new(t), rk, src, dst) }
}

/// CTR over the whole 256-byte steps of `dst`; returns the bytes done.
pub(crate) fn ctr32(t: cpu::AesNeon, rk: &[u32; 32], p: [u32; 3], c: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    // SAFETY: the token proves NEON and AES.
    unsafe { ctr32_impl(AesN::new(t), rk, p, c, src, dst) }
}

/// CBC encryption of whole blocks in place, one block at a time.
pub(crate) fn cbc_encrypt(t: cpu::AesNeon, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves NEON and AES.
    unsafe { cbc_encrypt_impl(AesN::new(t), rk, iv, data) }
}

/// CBC encryption of 4, 8 or 16 messages side by side (see
/// [`simd::cbc_lanes`]).
pub(crate) fn cbc_lanes(
    t: cpu::AesNeon,
    rk: &[u32; 32],
    chains: &mut [[u8; 16]],
    bufs: &mut [&mut [u8]],
    blocks: usize,
) {
    // SAFETY: the token proves NEON and AES.
    unsafe { cbc_lanes_impl(AesN::new(t), rk, chains, bufs, blocks) }
}

// The hot paths in the domain of `pre` (they use the maps above).
mod bulk;
mod cbc;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm4::block::sbox::{ginv, sm4_sbox_formula};

    /// AES's S-box from its definition (FIPS 197: inversion, then affine).
    fn aes_sbox(x: u8) -> u8 {
        let b = ginv(x, AES_POLY);
        b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
    }

    #[test]
    fn pre_aes_post_is_the_sm4_sbox_on_every_byte() {
        assert_eq!(aes_sbox(0x53), 0xed, "FIPS 197 example");
        for x in 0..=255u8 {
            let want = sm4_sbox_formula(x);
            assert_eq!(post(aes_sbox(pre(x))), want, "{x:#04x}");
            let t = |v: ([u8; 16], [u8; 16]), b: u8| v.0[(b & 15) as usize] ^ v.1[(b >> 4) as usize];
            assert_eq!(t(POST, aes_sbox(t(PRE, x))), want, "nibble tables, {x:#04x}");
        }
    }
}
