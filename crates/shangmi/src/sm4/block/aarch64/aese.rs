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

// ------------------------------------------------ CBC encryption

/// CBC encryption: one block after another, so the speed is the latency of
/// a round, not the throughput of many.
///
/// The kernel keeps every state word `X` as `M(X)`, with `M` the linear
/// part of `pre` on each byte, and every word in all four lanes. Then
/// `pre` of a round's input is `M(X1) ^ M(X2) ^ M(X3) ^ pre(rk)`, which
/// `AESE` takes as it is: its key operand is one of the XORed terms, and on
/// a vector whose lanes are equal ShiftRows changes nothing, so there is no
/// `pre` lookup and no ShiftRows to undo. The round's output in the domain,
/// `M(L(post(z)))` of the `AESE` output `z`, is
/// `T0(z) ^ rol8(T1(z)) ^ rol16(T1(z)) ^ rol24(T3(z))` with three byte-wise
/// affine maps (`L` is linear and commutes with byte rotations; `M` and
/// `post` act on each byte; the bytes at distances 1 and 2 get the same
/// map), each two nibble lookups on one nibble split of `z`. The state
/// update is folded into the next `AESE`'s operands (`AESE` XORs its two),
/// so a round is `AESE`, a nibble split, a lookup, an XOR, a byte rotation
/// and an XOR deep: twelve cycles where every step takes two, against
/// about thirty for the word-sliced engine's single-block path.
///
/// Constant time: lookups are `TBL` on registers, the round keys are
/// mapped into the domain with `TBL` too; no branch or address depends on
/// the key or the data.
mod cbc {
    use core::arch::aarch64::*;

    use zeroize::Zeroize;

    use super::{invert_by_search, post, pre, reg, PRE};

    /// The domain map: `pre` without its constant.
    const fn m_lin(x: u8) -> u8 {
        pre(x) ^ pre(0)
    }

    const fn m_inv(y: u8) -> u8 {
        invert_by_search!(y, |x| m_lin(x), "the domain map")
    }

    /// The linear part of `post` on the unit bytes (each `post` inverts by
    /// search, slow in const evaluation: 8 calls, not 256).
    const P_BASIS: [u8; 8] = {
        let mut b = [0u8; 8];
        let mut i = 0;
        while i < 8 {
            b[i] = post(1 << i) ^ post(0);
            i += 1;
        }
        b
    };

    const fn p_lin(x: u8) -> u8 {
        let (mut y, mut i) = (0u8, 0);
        while i < 8 {
            if (x >> i) & 1 == 1 {
                y ^= P_BASIS[i];
            }
            i += 1;
        }
        y
    }

    /// SM4's linear transform L.
    const fn l(x: u32) -> u32 {
        x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
    }

    /// Byte `j` of `M(L(P(b)))` for `b` in the low byte.
    const fn ml(j: u32, b: u8) -> u8 {
        m_lin((l(p_lin(b) as u32) >> (8 * j)) as u8)
    }

    /// `M(L(d d d d))` for `post`'s constant `d`: the same in every byte (L
    /// keeps a word of equal bytes so), folded into `T0`.
    const E: u8 = m_lin(l(post(0) as u32 * 0x0101_0101) as u8);

    const fn t0(b: u8) -> u8 {
        ml(0, b) ^ E
    }
    const fn t1(b: u8) -> u8 {
        ml(1, b)
    }
    const fn t3(b: u8) -> u8 {
        ml(3, b)
    }

    pub(super) const M: ([u8; 16], [u8; 16]) = nibble_tables!(m_lin);
    pub(super) const MINV: ([u8; 16], [u8; 16]) = nibble_tables!(m_inv);
    pub(super) const T0: ([u8; 16], [u8; 16]) = nibble_tables!(t0);
    pub(super) const T1: ([u8; 16], [u8; 16]) = nibble_tables!(t1);
    pub(super) const T3: ([u8; 16], [u8; 16]) = nibble_tables!(t3);

    pub(super) type Tab = (uint8x16_t, uint8x16_t);

    #[derive(Clone, Copy)]
    struct Tables {
        m0f: uint8x16_t,
        t0: Tab,
        t1: Tab,
        t3: Tab,
    }

    /// A byte-wise affine map from its nibble tables.
    #[inline(always)]
    pub(super) fn nib(m0f: uint8x16_t, x: uint8x16_t, t: Tab) -> uint8x16_t {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { veorq_u8(vqtbl1q_u8(t.0, vandq_u8(x, m0f)), vqtbl1q_u8(t.1, vshrq_n_u8::<4>(x))) }
    }

    /// `v` as it is, hidden from the optimizer, so that it does not
    /// reassociate a chain of XORs into a longer critical path.
    #[inline(always)]
    fn pin(mut v: uint8x16_t) -> uint8x16_t {
        // SAFETY: an empty instruction sequence; registers only.
        unsafe { core::arch::asm!("/* {v:v} */", v = inout(vreg) v, options(pure, nomem, nostack, preserves_flags)) };
        v
    }

    #[inline(always)]
    pub(super) fn x(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { veorq_u8(a, b) }
    }

    /// The 32 rounds on the domain words `m` (X0..X3, each in every lane)
    /// with the domain round keys `kd` (`pre` of each byte; one spare
    /// entry); returns X32..X35 in the domain.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn rounds(t: Tables, kd: &[u32; 33], m: [uint8x16_t; 4]) -> [uint8x16_t; 4] {
        let mut m = m;
        let key = |i: usize| {
            // SAFETY: `i` is at most 32, inside `kd`.
            unsafe { vreinterpretq_u8_u32(vld1q_dup_u32(kd.as_ptr().add(i))) }
        };
        // z = AESE(data, key) = SubBytes(data ^ key).
        let mut data = x(x(m[1], m[2]), m[3]);
        let mut k = key(0);
        macro_rules! round {
            ($i:literal, $n:expr) => {{
                // (`AESE` is valid under the function's `aes` target feature.)
                let z = vaeseq_u8(data, k);
                let (lo, hi) = (vandq_u8(z, t.m0f), vshrq_n_u8::<4>(z));
                let a = x(vqtbl1q_u8(t.t0.0, lo), vqtbl1q_u8(t.t0.1, hi));
                let c = x(vqtbl1q_u8(t.t1.0, lo), vqtbl1q_u8(t.t1.1, hi));
                // Every lane holds the same word, so rotating the whole
                // register by k bytes (`EXT`) rotates each lane's word
                // right by 8k bits.
                let c = x(vextq_u8::<3>(c, c), vextq_u8::<2>(c, c));
                let d = x(vqtbl1q_u8(t.t3.0, lo), vqtbl1q_u8(t.t3.1, hi));
                let d = vextq_u8::<1>(d, d);
                // The next round reads m[i+2], m[i+3] and the new m[i]
                // (the key load and the older word first).
                let v = x(pin(x(m[($i + 2) % 4], key($n))), m[($i + 3) % 4]);
                // data = (v ^ m[i] ^ a) ^ d, in that order: `a` is ready
                // two steps before `d` and the key `c`.
                data = x(pin(x(pin(x(v, m[$i])), a)), d);
                m[$i] = x(data, x(v, c));
                k = c;
            }};
        }
        for r in 0..8 {
            round!(0, 4 * r + 1);
            round!(1, 4 * r + 2);
            round!(2, 4 * r + 3);
            round!(3, 4 * r + 4);
        }
        m
    }

    /// CBC encryption of whole blocks of `data` in place, chained from `iv`,
    /// which becomes the last ciphertext block.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) fn encrypt(rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
        let m0f = vdupq_n_u8(0x0f);
        let t =
            Tables { m0f, t0: (reg(&T0.0), reg(&T0.1)), t1: (reg(&T1.0), reg(&T1.1)), t3: (reg(&T3.0), reg(&T3.1)) };
        let dom = (reg(&M.0), reg(&M.1));
        let undo = (reg(&MINV.0), reg(&MINV.1));
        let mut kd = domain_keys(rk);
        // A block's words (big-endian) in the lanes, mapped into the domain.
        let enter = |b: &[u8]| {
            let b = &b[..16];
            // SAFETY: 16 readable bytes.
            unsafe { vreinterpretq_u32_u8(nib(m0f, vrev32q_u8(vld1q_u8(b.as_ptr())), dom)) }
        };
        let c = enter(iv);
        // The previous ciphertext as the last four state words X35..X32
        // would be: X32..X35 are its words 3..0.
        let mut prev = [
            vreinterpretq_u8_u32(vdupq_laneq_u32::<3>(c)),
            vreinterpretq_u8_u32(vdupq_laneq_u32::<2>(c)),
            vreinterpretq_u8_u32(vdupq_laneq_u32::<1>(c)),
            vreinterpretq_u8_u32(vdupq_laneq_u32::<0>(c)),
        ];
        for b in data.chunks_exact_mut(16) {
            let p = enter(b);
            let m = [
                x(vreinterpretq_u8_u32(vdupq_laneq_u32::<0>(p)), prev[3]),
                x(vreinterpretq_u8_u32(vdupq_laneq_u32::<1>(p)), prev[2]),
                x(vreinterpretq_u8_u32(vdupq_laneq_u32::<2>(p)), prev[1]),
                x(vreinterpretq_u8_u32(vdupq_laneq_u32::<3>(p)), prev[0]),
            ];
            prev = rounds(t, &kd, m);
            // SAFETY: 16 writable bytes.
            unsafe { vst1q_u8(b.as_mut_ptr(), leave(m0f, undo, prev)) }
        }
        // SAFETY: 16 writable bytes.
        unsafe { vst1q_u8(iv.as_mut_ptr(), leave(m0f, undo, prev)) }
        kd.zeroize();
    }

    /// The round keys in the domain with `pre`'s constant: `pre` of every
    /// byte (one spare zero word at the end), by `TBL` on registers.
    #[inline(always)]
    pub(super) fn domain_keys(rk: &[u32; 32]) -> [u32; 33] {
        let mut kd = [0u32; 33];
        // SAFETY: NEON is baseline on aarch64.
        let m0f = unsafe { vdupq_n_u8(0x0f) };
        let pre_t = (reg(&PRE.0), reg(&PRE.1));
        for (k, d) in rk.chunks_exact(4).zip(kd.chunks_exact_mut(4)) {
            // SAFETY: four words each.
            unsafe {
                let v = vreinterpretq_u8_u32(vld1q_u32(k.as_ptr()));
                vst1q_u32(d.as_mut_ptr(), vreinterpretq_u32_u8(nib(m0f, v, pre_t)));
            }
        }
        kd
    }

    /// The block X35 X34 X33 X32 (big-endian) from the domain words X32..X35.
    #[inline(always)]
    fn leave(m0f: uint8x16_t, undo: Tab, w: [uint8x16_t; 4]) -> uint8x16_t {
        // SAFETY: NEON is baseline on aarch64.
        unsafe {
            let u = |v| vreinterpretq_u32_u8(v);
            let lo = vzip1q_u32(u(w[3]), u(w[2]));
            let hi = vzip1q_u32(u(w[1]), u(w[0]));
            let v = vreinterpretq_u8_u64(vzip1q_u64(vreinterpretq_u64_u32(lo), vreinterpretq_u64_u32(hi)));
            vrev32q_u8(nib(m0f, v, undo))
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn domain_tables_hold_their_identities() {
            for b in 0..=255u8 {
                assert_eq!(m_inv(m_lin(b)), b);
                assert_eq!(ml(1, b), ml(2, b), "the bytes at distances 1 and 2 share a map");
            }
            assert_eq!(l(post(0) as u32 * 0x0101_0101), (l(post(0) as u32 * 0x0101_0101) & 0xff) * 0x0101_0101);
        }
    }
}

// ------------------------------------------------ bulk: 16 blocks byte-sliced

/// The parallel modes, sixteen blocks at a time, byte-sliced: register
/// `m[w][r]` holds byte `r` (0 the least significant) of state word `w` of
/// all sixteen blocks, one block per lane, in the domain of [`cbc`] (`M` on
/// every byte). A round's S-box input byte `r` is then `M(X1 ^ X2 ^ X3)`
/// byte `r` with `pre(rk)` byte `r` as `AESE`'s key, after one `TBL` that
/// undoes ShiftRows in advance (it moves bytes between lanes, i.e. between
/// blocks); the round's output, `M(L(post(z)))`, is byte `q`:
/// `T0(z_q) ^ T1(z_q-1) ^ T1(z_q-2) ^ T3(z_q-3)`, so `L`'s byte rotations
/// are which register is read, not instructions. Per 16 bytes of S-box
/// input and round: two XORs, one `TBL`, `AESE`, a nibble split, six
/// nibble `TBL`s and seven XORs, against twenty-five instructions for the
/// word-sliced engine.
///
/// Constant time: as [`cbc`]: register lookups and `AESE` only; lengths
/// are public.
mod bulk {
    use core::arch::aarch64::*;

    use zeroize::Zeroize;

    use super::cbc::{domain_keys, nib, x, Tab, M, MINV, T0, T1, T3};
    use super::{isr_rol, reg};

    /// Bytes per step.
    pub(super) const STEP: usize = 256;

    #[derive(Clone, Copy)]
    struct Tables {
        m0f: uint8x16_t,
        t0: Tab,
        t1: Tab,
        t3: Tab,
        isr: uint8x16_t,
    }

    /// A byte-wise affine map from its nibble tables, the nibbles split.
    #[inline(always)]
    fn nib2(t: Tab, lo: uint8x16_t, hi: uint8x16_t) -> uint8x16_t {
        // SAFETY: NEON is baseline on aarch64.
        unsafe { x(vqtbl1q_u8(t.0, lo), vqtbl1q_u8(t.1, hi)) }
    }

    /// Sixteen blocks from `src` into sixteen registers per word byte:
    /// `LD4` gathers byte `j` of every word of four blocks, two rounds of
    /// `UZP` sort them by word; lane `b` is block `b`.
    #[inline(always)]
    fn load(src: &[u8], dom: Tab, m0f: uint8x16_t) -> [[uint8x16_t; 4]; 4] {
        let src = &src[..STEP];
        let zero = reg(&[0; 16]);
        let mut m = [[zero; 4]; 4];
        // SAFETY: 256 readable bytes (sliced above); NEON.
        unsafe {
            let g = [0, 1, 2, 3].map(|i| vld4q_u8(src.as_ptr().add(64 * i)));
            let part = |r: &uint8x16x4_t, j: usize| [r.0, r.1, r.2, r.3][j];
            for j in 0..4 {
                let (r0, r1, r2, r3) = (part(&g[0], j), part(&g[1], j), part(&g[2], j), part(&g[3], j));
                let (a, b) = (vuzp1q_u8(r0, r1), vuzp2q_u8(r0, r1));
                let (c, d) = (vuzp1q_u8(r2, r3), vuzp2q_u8(r2, r3));
                // Byte j of a big-endian word is its byte 3 - j.
                m[0][3 - j] = nib(m0f, vuzp1q_u8(a, c), dom);
                m[1][3 - j] = nib(m0f, vuzp1q_u8(b, d), dom);
                m[2][3 - j] = nib(m0f, vuzp2q_u8(a, c), dom);
                m[3][3 - j] = nib(m0f, vuzp2q_u8(b, d), dom);
            }
        }
        m
    }

    /// The inverse of [`load`] for the output words X35..X32 (`m` holds
    /// X32..X35).
    #[inline(always)]
    fn store(m: &[[uint8x16_t; 4]; 4], undo: Tab, m0f: uint8x16_t, dst: &mut [u8]) {
        let dst = &mut dst[..STEP];
        // SAFETY: 256 writable bytes (sliced above); NEON.
        unsafe {
            let zero = vdupq_n_u8(0);
            let mut g = [uint8x16x4_t(zero, zero, zero, zero); 4];
            for j in 0..4 {
                let w = [0, 1, 2, 3].map(|i| nib(m0f, m[3 - i][3 - j], undo));
                let (a, c) = (vzip1q_u8(w[0], w[2]), vzip2q_u8(w[0], w[2]));
                let (b, d) = (vzip1q_u8(w[1], w[3]), vzip2q_u8(w[1], w[3]));
                let r = [vzip1q_u8(a, b), vzip2q_u8(a, b), vzip1q_u8(c, d), vzip2q_u8(c, d)];
                for (gi, v) in g.iter_mut().zip(r) {
                    match j {
                        0 => gi.0 = v,
                        1 => gi.1 = v,
                        2 => gi.2 = v,
                        _ => gi.3 = v,
                    }
                }
            }
            for (i, v) in g.into_iter().enumerate() {
                vst4q_u8(dst.as_mut_ptr().add(64 * i), v);
            }
        }
    }

    /// `AESE`: ShiftRows and SubBytes of `p ^ k`.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    fn aese(p: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
        vaeseq_u8(p, k)
    }

    /// The 32 rounds on sixteen byte-sliced blocks in the domain (inlined
    /// into the entry points, which carry the `aes` feature).
    #[inline(always)]
    fn rounds(t: Tables, kd: &[u32; 33], m: &mut [[uint8x16_t; 4]; 4]) {
        // `pre(rk_i)` byte `r` in every lane.
        let key = |i: usize, r: usize| {
            // SAFETY: byte 4i + r of the 132 bytes of `kd`.
            unsafe { vld1q_dup_u8(kd.as_ptr().cast::<u8>().add(4 * i + r)) }
        };
        macro_rules! round {
            ($i:literal, $k:expr) => {{
                for r in 0..4 {
                    let p = x(x(m[($i + 1) % 4][r], m[($i + 2) % 4][r]), m[($i + 3) % 4][r]);
                    // SAFETY: the entry points that inline this carry the
                    // `aes` feature (proved by the caller's token); NEON.
                    let (z, m0f) = unsafe { (aese(vqtbl1q_u8(p, t.isr), key($k, r)), t.m0f) };
                    // SAFETY: NEON is baseline on aarch64.
                    let (lo, hi) = unsafe { (vandq_u8(z, m0f), vshrq_n_u8::<4>(z)) };
                    let (a, c, d) = (nib2(t.t0, lo, hi), nib2(t.t1, lo, hi), nib2(t.t3, lo, hi));
                    let w = &mut m[$i];
                    w[r] = x(w[r], a);
                    w[(r + 1) % 4] = x(w[(r + 1) % 4], c);
                    w[(r + 2) % 4] = x(w[(r + 2) % 4], c);
                    w[(r + 3) % 4] = x(w[(r + 3) % 4], d);
                }
            }};
        }
        for r in 0..8 {
            round!(0, 4 * r);
            round!(1, 4 * r + 1);
            round!(2, 4 * r + 2);
            round!(3, 4 * r + 3);
        }
    }

    /// Encrypts (or, with reversed round keys, decrypts) the whole steps of
    /// `dst` from `src` (or in place); returns the bytes done.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) fn crypt(rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) -> usize {
        let steps = dst.len() / STEP;
        if steps == 0 {
            return 0;
        }
        let (t, dom, undo) = tables();
        let mut kd = domain_keys(rk);
        for o in (0..steps).map(|n| n * STEP) {
            let mut m = load(src.map_or(&dst[o..], |s| &s[o..]), dom, t.m0f);
            rounds(t, &kd, &mut m);
            store(&m, undo, t.m0f, &mut dst[o..]);
        }
        kd.zeroize();
        steps * STEP
    }

    /// CTR with a 32-bit counter over the whole steps of `dst` (see
    /// [`crate::sm4::block::simd::ctr32`]); returns the bytes done.
    #[inline]
    #[target_feature(enable = "neon,aes")]
    pub(super) fn ctr32(rk: &[u32; 32], prefix: [u32; 3], ctr: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
        let steps = dst.len() / STEP;
        if steps == 0 {
            return 0;
        }
        let (t, dom, undo) = tables();
        let mut kd = domain_keys(rk);
        let mut buf = [0u8; STEP];
        let mut c = ctr;
        for o in (0..steps).map(|n| n * STEP) {
            for b in buf.chunks_exact_mut(16) {
                for (w, v) in b.chunks_exact_mut(4).zip([prefix[0], prefix[1], prefix[2], c]) {
                    w.copy_from_slice(&v.to_be_bytes());
                }
                c = c.wrapping_add(1);
            }
            let mut m = load(&buf, dom, t.m0f);
            rounds(t, &kd, &mut m);
            store(&m, undo, t.m0f, &mut buf);
            let inp = src.map_or(&dst[o..o + STEP], |s| &s[o..o + STEP]);
            for (d, s) in buf.iter_mut().zip(inp) {
                *d ^= s;
            }
            dst[o..o + STEP].copy_from_slice(&buf);
        }
        buf.zeroize();
        kd.zeroize();
        steps * STEP
    }

    #[inline(always)]
    fn tables() -> (Tables, Tab, Tab) {
        // SAFETY: NEON is baseline on aarch64.
        let m0f = unsafe { vdupq_n_u8(0x0f) };
        let t = Tables {
            m0f,
            t0: (reg(&T0.0), reg(&T0.1)),
            t1: (reg(&T1.0), reg(&T1.1)),
            t3: (reg(&T3.0), reg(&T3.1)),
            isr: reg(&isr_rol(0)),
        };
        (t, (reg(&M.0), reg(&M.1)), (reg(&MINV.0), reg(&MINV.1)))
    }
}

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
