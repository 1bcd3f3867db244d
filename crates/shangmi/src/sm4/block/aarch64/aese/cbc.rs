//! CBC encryption: one block after another, so the speed is the latency of
//! a round, not the throughput of many.
//!
//! The kernel keeps every state word `X` as `M(X)`, with `M` the linear
//! part of `pre` on each byte, and every word in all four lanes. Then
//! `pre` of a round's input is `M(X1) ^ M(X2) ^ M(X3) ^ pre(rk)`, which
//! `AESE` takes as it is: its key operand is one of the XORed terms, and on
//! a vector whose lanes are equal ShiftRows changes nothing, so there is no
//! `pre` lookup and no ShiftRows to undo. The round's output in the domain,
//! `M(L(post(z)))` of the `AESE` output `z`, is
//! `T0(z) ^ rol8(T1(z)) ^ rol16(T1(z)) ^ rol24(T3(z))` with three byte-wise
//! affine maps (`L` is linear and commutes with byte rotations; `M` and
//! `post` act on each byte; the bytes at distances 1 and 2 get the same
//! map), each two nibble lookups on one nibble split of `z`. The state
//! update is folded into the next `AESE`'s operands (`AESE` XORs its two),
//! so a round is `AESE`, a nibble split, a lookup, an XOR, a byte rotation
//! and an XOR deep: twelve cycles where every step takes two, against
//! about thirty for the word-sliced engine's single-block path.
//!
//! Constant time: lookups are `TBL` on registers, the round keys are
//! mapped into the domain with `TBL` too; no branch or address depends on
//! the key or the data.

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
    let t = Tables { m0f, t0: (reg(&T0.0), reg(&T0.1)), t1: (reg(&T1.0), reg(&T1.1)), t3: (reg(&T3.0), reg(&T3.1)) };
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
