//! GHASH with `PMULL`/`PMULL2`: eight blocks times H^8..H^1 per reduction
//! (aggregated reduction: the eight 256-bit products are summed, their
//! middle terms folded once and the sum reduced once), the rest one block
//! at a time. The arithmetic is the x86-64 PCLMULQDQ kernel's on
//! byte-reversed elements, instruction for instruction: the reflected
//! 256-bit product shifted left by one and reduced modulo
//! x^128 + x^7 + x^2 + x + 1 with shifts (Intel's carry-less
//! multiplication white paper).
//!
//! Constant time: `PMULL` has data-independent timing (on Arm's DIT list),
//! everything stays in registers, and memory is indexed only by public
//! lengths.

use core::arch::aarch64::*;

use crate::cpu;

/// Carry-less 64x64 product of lanes `I` of `a` and `J` of `b`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn pmull<const I: i32, const J: i32>(a: uint64x2_t, b: uint64x2_t) -> uint8x16_t {
    vreinterpretq_u8_p128(vmull_p64(vgetq_lane_u64::<I>(a), vgetq_lane_u64::<J>(b)))
}

/// Carry-less product of two byte-reversed elements as (lo, mid, hi)
/// 128-bit pieces, the middle not yet folded in.
#[inline]
#[target_feature(enable = "neon,aes")]
fn mul3(a: uint8x16_t, b: uint8x16_t) -> (uint8x16_t, uint8x16_t, uint8x16_t) {
    let (a, b) = (vreinterpretq_u64_u8(a), vreinterpretq_u64_u8(b));
    let lo = pmull::<0, 0>(a, b);
    let m = veorq_u8(pmull::<1, 0>(a, b), pmull::<0, 1>(a, b));
    let hi = vreinterpretq_u8_p128(vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)));
    (lo, m, hi)
}

/// Folds the middle term into (hi, lo).
#[inline]
#[target_feature(enable = "neon")]
fn fold(lo: uint8x16_t, m: uint8x16_t, hi: uint8x16_t) -> (uint8x16_t, uint8x16_t) {
    let z = vdupq_n_u8(0);
    (veorq_u8(hi, vextq_u8::<8>(m, z)), veorq_u8(lo, vextq_u8::<8>(z, m)))
}

/// The x86 kernel's `reduce` with NEON operations: `_mm_srli_si128::<n>(x)`
/// is `EXT x, 0, #n` and `_mm_slli_si128::<n>(x)` is `EXT 0, x, #16-n`.
#[inline]
#[target_feature(enable = "neon")]
fn reduce(hi: uint8x16_t, lo: uint8x16_t) -> uint8x16_t {
    let z = vdupq_n_u8(0);
    let (hi32, lo32) = (vreinterpretq_u32_u8(hi), vreinterpretq_u32_u8(lo));
    let t7 = vreinterpretq_u8_u32(vshrq_n_u32::<31>(lo32));
    let t8 = vreinterpretq_u8_u32(vshrq_n_u32::<31>(hi32));
    let lo = vreinterpretq_u8_u32(vshlq_n_u32::<1>(lo32));
    let hi = vreinterpretq_u8_u32(vshlq_n_u32::<1>(hi32));
    let t9 = vextq_u8::<12>(t7, z);
    let t8 = vextq_u8::<12>(z, t8);
    let t7 = vextq_u8::<12>(z, t7);
    let lo = vorrq_u8(lo, t7);
    let hi = vorrq_u8(vorrq_u8(hi, t8), t9);
    let l32 = vreinterpretq_u32_u8(lo);
    let a = veorq_u32(veorq_u32(vshlq_n_u32::<31>(l32), vshlq_n_u32::<30>(l32)), vshlq_n_u32::<25>(l32));
    let a = vreinterpretq_u8_u32(a);
    let t8 = vextq_u8::<4>(a, z);
    let lo = veorq_u8(lo, vextq_u8::<4>(z, a));
    let l32 = vreinterpretq_u32_u8(lo);
    let b = veorq_u32(
        veorq_u32(vshrq_n_u32::<1>(l32), vshrq_n_u32::<2>(l32)),
        veorq_u32(vshrq_n_u32::<7>(l32), vreinterpretq_u32_u8(t8)),
    );
    veorq_u8(hi, veorq_u8(lo, vreinterpretq_u8_u32(b)))
}

/// A big-endian block as the byte-reversed element.
#[inline]
#[target_feature(enable = "neon")]
fn load_rev(b: &[u8]) -> uint8x16_t {
    debug_assert!(b.len() >= 16);
    // SAFETY: callers pass at least 16 readable bytes.
    let v = vrev64q_u8(unsafe { vld1q_u8(b.as_ptr()) });
    vextq_u8::<8>(v, v)
}

#[target_feature(enable = "neon,aes")]
fn update_impl(acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // SAFETY: each load reads one 16-byte array.
    let h: [uint8x16_t; 8] = core::array::from_fn(|i| unsafe { vld1q_u8(powers[i].as_ptr()) });
    let a = acc.to_le_bytes();
    // SAFETY: 16 readable bytes.
    let mut x = unsafe { vld1q_u8(a.as_ptr()) };
    let mut octets = data.chunks_exact(128);
    for q in &mut octets {
        let (mut lo, mut m, mut hi) = mul3(veorq_u8(x, load_rev(&q[..16])), h[7]);
        for i in 1..8 {
            let (l, mm, hh) = mul3(load_rev(&q[16 * i..]), h[7 - i]);
            lo = veorq_u8(lo, l);
            m = veorq_u8(m, mm);
            hi = veorq_u8(hi, hh);
        }
        let (hi, lo) = fold(lo, m, hi);
        x = reduce(hi, lo);
    }
    for b in octets.remainder().chunks_exact(16) {
        let (lo, m, hi) = mul3(veorq_u8(x, load_rev(b)), h[0]);
        let (hi, lo) = fold(lo, m, hi);
        x = reduce(hi, lo);
    }
    let mut out = [0u8; 16];
    // SAFETY: 16 writable bytes.
    unsafe { vst1q_u8(out.as_mut_ptr(), x) };
    u128::from_le_bytes(out)
}

/// Absorbs whole blocks of `data`.
pub(super) fn update(_t: cpu::PmullNeon, acc: u128, powers: &[[u8; 16]; 16], data: &[u8]) -> u128 {
    // SAFETY: the token proves NEON, AES and PMULL (Rust's `aes` target
    // feature covers `PMULL`).
    unsafe { update_impl(acc, powers, data) }
}
