//! Four SM3 compressions side by side on NEON registers, one message per
//! 32-bit lane ("neon-128"), for [`crate::sm3::many`]: the x86-64 lane
//! kernel (x86/lanes.rs) with NEON instructions. Rotations are `SHL` +
//! `SRI` (a rotation by 8 one `TBL`); four blocks' words are put into
//! lanes with `REV32` and a 4×4 transpose (`TRN1`/`TRN2`).
//!
//! Constant time: every load address is a public block position, every
//! operation a register operation, no branch depends on the data.

use core::arch::aarch64::*;

use crate::cpu;
use crate::sm3::blocks::Blocks;
use crate::sm3::IV;

/// Messages per batch.
pub(crate) const LANES: usize = 4;

/// `x <<< r` in every lane.
macro_rules! rol {
    ($x:expr, $r:literal) => {{
        let x = $x;
        vsriq_n_u32::<{ 32 - $r }>(vshlq_n_u32::<$r>(x), x)
    }};
}

/// `TBL` index of `x <<< 8` in every 32-bit lane.
const ROL8: [u8; 16] = [3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14];

#[inline]
#[target_feature(enable = "neon")]
fn xor3(a: uint32x4_t, b: uint32x4_t, c: uint32x4_t) -> uint32x4_t {
    veorq_u32(veorq_u32(a, b), c)
}

/// FF and GG of rounds 16..64: majority, and bits of `f` where `e` is set,
/// of `g` elsewhere (`BSL`).
#[inline]
#[target_feature(enable = "neon")]
fn maj(a: uint32x4_t, b: uint32x4_t, c: uint32x4_t) -> uint32x4_t {
    vorrq_u32(vandq_u32(a, b), vandq_u32(c, vorrq_u32(a, b)))
}

/// Words 4i..4i+4 of the four blocks, block l in lane l, as numbers.
#[inline]
#[target_feature(enable = "neon")]
fn words4(blocks: &[&[u8]; LANES], i: usize) -> [uint32x4_t; 4] {
    // SAFETY: each block is 64 bytes (Blocks::block), i < 4.
    let r: [uint32x4_t; 4] = core::array::from_fn(|l| {
        debug_assert!(blocks[l].len() >= 16 * i + 16);
        vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(blocks[l].as_ptr().add(16 * i)) }))
    });
    let t0 = vreinterpretq_u64_u32(vtrn1q_u32(r[0], r[1]));
    let t1 = vreinterpretq_u64_u32(vtrn2q_u32(r[0], r[1]));
    let t2 = vreinterpretq_u64_u32(vtrn1q_u32(r[2], r[3]));
    let t3 = vreinterpretq_u64_u32(vtrn2q_u32(r[2], r[3]));
    [
        vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)),
        vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)),
        vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)),
        vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)),
    ]
}

/// One block of each of the four messages (block l in lane l) into the
/// states. Not inlined, so that the static-analysis script finds it.
#[inline(never)]
#[target_feature(enable = "neon")]
fn block4_impl(st: &mut [uint32x4_t; 8], blocks: &[&[u8]; LANES]) {
    // SAFETY: reads the 16 bytes of a constant.
    let rol8_idx = unsafe { vld1q_u8(ROL8.as_ptr()) };
    let rol8 = |x: uint32x4_t| vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x), rol8_idx));
    let p0 = |x: uint32x4_t| {
        let r9 = rol!(x, 9);
        xor3(x, r9, rol8(r9))
    };
    let p1 = |x: uint32x4_t| {
        let r15 = rol!(x, 15);
        xor3(x, r15, rol8(r15))
    };
    let mut w = [vdupq_n_u32(0); 68];
    for i in 0..4 {
        w[4 * i..4 * i + 4].copy_from_slice(&words4(blocks, i));
    }
    for j in 16..68 {
        w[j] = xor3(p1(xor3(w[j - 16], w[j - 9], rol!(w[j - 3], 15))), rol!(w[j - 13], 7), w[j - 6]);
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *st;
    // Grouped as on x86-64: the terms ready early are added first.
    macro_rules! round {
        ($j:expr, $ff:expr, $gg:expr) => {{
            let j = $j;
            let a12 = rol!(a, 12);
            let ss1 = rol!(vaddq_u32(vaddq_u32(a12, vdupq_n_u32(crate::sm3::consts::T[j])), e), 7);
            let ss2 = veorq_u32(ss1, a12);
            let tt1 = vaddq_u32(vaddq_u32($ff(a, b, c), vaddq_u32(d, veorq_u32(w[j], w[j + 4]))), ss2);
            let tt2 = vaddq_u32(vaddq_u32($gg(e, f, g), vaddq_u32(h, w[j])), ss1);
            d = c;
            c = rol!(b, 9);
            b = a;
            a = tt1;
            h = g;
            g = rol!(f, 19);
            f = e;
            e = p0(tt2);
        }};
    }
    for j in 0..16 {
        round!(j, xor3, xor3);
    }
    for j in 16..64 {
        round!(j, maj, |e, f, g| vbslq_u32(e, f, g));
    }
    for (s, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = veorq_u32(*s, v);
    }
}

#[inline(never)]
#[target_feature(enable = "neon")]
fn multi_impl(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    let lane = |l: usize| &msgs[if l < msgs.len() { l } else { 0 }];
    let mut st: [uint32x4_t; 8] = core::array::from_fn(|i| {
        let w: [u32; 4] = core::array::from_fn(|l| if l < states.len() { states[l][i] } else { IV[i] });
        // SAFETY: reads the 4 words of a local array.
        unsafe { vld1q_u32(w.as_ptr()) }
    });
    for k in 0..common {
        let blocks: [&[u8]; LANES] = core::array::from_fn(|l| lane(l).block(k));
        block4_impl(&mut st, &blocks);
    }
    for (i, v) in st.iter().enumerate() {
        let mut w = [0u32; 4];
        // SAFETY: writes the 4 words of a local array.
        unsafe { vst1q_u32(w.as_mut_ptr(), *v) };
        for (l, s) in states.iter_mut().enumerate().take(LANES) {
            s[i] = w[l];
        }
    }
}

/// Compresses the first `common` blocks of each of up to four messages,
/// message l from `states[l]`, in the lanes of NEON registers. The token
/// proves NEON.
pub(crate) fn x4(_t: cpu::Neon, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    debug_assert!(!msgs.is_empty() && msgs.len() <= LANES && states.len() == msgs.len());
    // SAFETY: the token proves NEON.
    unsafe { multi_impl(msgs, common, states) }
}
