//! The EIA3 / ZUC-256-MAC inner product with `PMULL`, as the x86-64
//! PCLMULQDQ kernel (x86/stream.rs, `window_xor`) computes it.
//!
//! With `M` the message bits of word j written least significant first and
//! `K = ks[j] << 32 | ks[j+1]`, the XOR of the 32-bit keystream windows
//! starting at the set bits of word j is bits 32..63 of the carry-less
//! product M·K, so the whole sum is bits 32..63 of the XOR of all products.
//! `RBIT` on bytes loaded little-endian gives M for four words at once.
//!
//! Constant time: `PMULL` has data-independent timing (Arm's DIT list), and
//! memory is indexed by public positions only.

use core::arch::aarch64::*;

use crate::cpu::PmullNeon;
use crate::zuc::spec;

/// Carry-less product of the low 64-bit lanes of `a` and `b` (`PMULL`).
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull_lo(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_p64(vgetq_lane_u64::<0>(a), vgetq_lane_u64::<0>(b)))
}

/// Carry-less product of the high 64-bit lanes of `a` and `b` (`PMULL2`).
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull_hi(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    vreinterpretq_u64_p128(vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)))
}

#[inline(never)]
#[target_feature(enable = "neon,aes")]
fn window_xor_impl(msg: &[u8], ks: &[u32]) -> u32 {
    let words = msg.len() / 4;
    assert!(ks.len() > words, "window_xor needs one keystream word past the message");
    let blocks = words / 4;
    let mut acc0 = vdupq_n_u64(0);
    let mut acc1 = vdupq_n_u64(0);
    for b in 0..blocks {
        // SAFETY: bytes 16b..16b+16 <= 4·words of msg; words 4b..4b+5 <=
        // words + 1 <= ks.len() of ks.
        let (m, k0, k1) = unsafe {
            (
                vld1q_u8(msg.as_ptr().add(16 * b)),
                vld1q_u32(ks.as_ptr().add(4 * b)),
                vld1q_u32(ks.as_ptr().add(4 * b + 1)),
            )
        };
        let m = vreinterpretq_u32_u8(vrbitq_u8(m));
        // (m0, 0, m1, 0) and (m2, 0, m3, 0): 64-bit lanes, zero-extended
        let zero = vdupq_n_u32(0);
        let mlo = vreinterpretq_u64_u32(vzip1q_u32(m, zero));
        let mhi = vreinterpretq_u64_u32(vzip2q_u32(m, zero));
        // 64-bit lanes ks[j] << 32 | ks[j+1] for j = 4b .. 4b+3
        let klo = vreinterpretq_u64_u32(vzip1q_u32(k1, k0));
        let khi = vreinterpretq_u64_u32(vzip2q_u32(k1, k0));
        acc0 = veorq_u64(acc0, pmull_lo(klo, mlo));
        acc1 = veorq_u64(acc1, pmull_hi(klo, mlo));
        acc0 = veorq_u64(acc0, pmull_lo(khi, mhi));
        acc1 = veorq_u64(acc1, pmull_hi(khi, mhi));
    }
    let mut t = (vgetq_lane_u64::<0>(veorq_u64(acc0, acc1)) >> 32) as u32;
    for j in 4 * blocks..words {
        let m = u32::from_be_bytes([msg[4 * j], msg[4 * j + 1], msg[4 * j + 2], msg[4 * j + 3]]);
        t ^= spec::window_word(m, ks[j], ks[j + 1]);
    }
    t
}

/// XOR over the set bits of the big-endian 32-bit message words in `msg`
/// (a multiple of 4 bytes) of the keystream window starting at that bit;
/// `ks` holds `msg.len() / 4 + 1` words. The token proves NEON and PMULL.
pub(crate) fn window_xor(_t: PmullNeon, msg: &[u8], ks: &[u32]) -> u32 {
    // SAFETY: the token proves the features `window_xor_impl` enables.
    unsafe { window_xor_impl(msg, ks) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;

    /// Against the portable window sums on random words, every length of a
    /// few blocks (whole blocks of four words and the tail).
    #[test]
    fn pmull_window_xor_matches_portable() {
        let Some(t) = PmullNeon::get() else { return };
        let mut next = crate::test_rng(0x5851_f42d_4c95_7f2d);
        for words in 0..40usize {
            let msg: Vec<u8> = (0..4 * words).map(|_| next() as u8).collect();
            let ks: Vec<u32> = (0..words + 1).map(|_| next() as u32).collect();
            let want = msg.chunks_exact(4).enumerate().fold(0u32, |acc, (j, m)| {
                acc ^ spec::window_word(u32::from_be_bytes([m[0], m[1], m[2], m[3]]), ks[j], ks[j + 1])
            });
            assert_eq!(window_xor(t, &msg, &ks), want, "{words} words");
        }
    }
}
