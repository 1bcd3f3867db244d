//! F's nonlinear step on NEON registers for one stream: the S-box
//! constants and the register update, the x86-64 AVX2 form (x86/f.rs) with
//! NEON instructions.
//!
//! The vector holds W = (R1 + X1, R2) twice (32-bit lanes 0, 1 and 2, 3).
//! L1 and L2 are computed as on x86: the rotations by whole bytes are `TBL`
//! shuffles straight from W, the two others per-lane `USHL` shifts, and the
//! X2 part of W2 enters through `c` (precomputed, see stream.rs). The copy
//! in lanes 2, 3 is what makes `AESE` usable without undoing ShiftRows:
//! ShiftRows moves bytes 10 and 14 onto S1's positions 2 and 6 (and 2, 6
//! onto 10, 14), which hold the same values, so the result is (R1, R2)
//! twice again.
//!
//! S-boxes (constant time: register-only instructions):
//! * S1(x) = POST(AESE(PRE(x), 0)): `AESE` with a zero key is ShiftRows then
//!   SubBytes; PRE maps S1's field (mod 0x18B) onto the AES field (0x11B)
//!   and POST undoes SubBytes' affine map and applies S1's, each as two
//!   nibble `TBL` lookups. These are the x86-64 kernel's PRE/POST tables
//!   (derived from the specification by x86/derive_tests.rs), with the
//!   constant SubBytes adds folded into POST's low table here instead of
//!   into the AES round key.
//! * S0(x) = Q3[t1] ^ (t2 << 1) with t2 = P1[lo] ^ hi, t1 = P2[t2] ^ lo (see
//!   [`crate::zuc::sbox::Q3`]), as on x86.
//!
//! S1's bytes (even positions) and S0's (odd) are merged with one `BSL`.

use core::arch::aarch64::*;

use crate::cpu::AesNeon;
use crate::zuc::sbox::{P1, P2, Q3};

/// The field isomorphism into the AES field, on the low and high nibble.
const PRE_LO: [u8; 16] =
    [0x00, 0x01, 0x32, 0x33, 0x73, 0x72, 0x41, 0x40, 0x75, 0x74, 0x47, 0x46, 0x06, 0x07, 0x34, 0x35];
const PRE_HI: [u8; 16] =
    [0x00, 0xd9, 0xe8, 0x31, 0xcd, 0x14, 0x25, 0xfc, 0x2d, 0xf4, 0xc5, 0x1c, 0xe0, 0x39, 0x08, 0xd1];
/// The linear part of POST (SubBytes' affine map undone, the way back,
/// S1's matrix A), on the low and high nibble.
const POST_LIN_LO: [u8; 16] =
    [0x00, 0x4f, 0x90, 0xdf, 0x4b, 0x04, 0xdb, 0x94, 0x37, 0x78, 0xa7, 0xe8, 0x7c, 0x33, 0xec, 0xa3];
const POST_LIN_HI: [u8; 16] =
    [0x00, 0x34, 0x42, 0x76, 0x36, 0x02, 0x74, 0x40, 0x66, 0x52, 0x24, 0x10, 0x50, 0x64, 0x12, 0x26];
/// POST on SubBytes' output z: POST_LIN(z ^ 0x63 ^ 0x8d), where 0x63 cancels
/// SubBytes' constant and POST_LIN(0x8d) = 0x55 is S1's. The constant is
/// carried by the low table.
const POST_LO: [u8; 16] = {
    let k = POST_LIN_LO[0xe] ^ POST_LIN_HI[0xe];
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = POST_LIN_LO[i] ^ k;
        i += 1;
    }
    t
};

/// Byte shuffles of W = (W1, R2) twice giving (u, v) with u = W1 << 16 |
/// W2 >> 16, v = W2 << 16 | W1 >> 16 and their byte rotations, twice.
const fn twice(a: [u8; 8]) -> [u8; 16] {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        t[i] = a[i % 8];
        i += 1;
    }
    t
}
/// (u, v)
const Q0: [u8; 16] = twice([6, 7, 0, 1, 2, 3, 4, 5]);
/// (rol24 u, rol8 v)
const Q1: [u8; 16] = twice([7, 0, 1, 6, 5, 2, 3, 4]);
/// (u, rol8 v)
const Y1: [u8; 16] = twice([6, 7, 0, 1, 5, 2, 3, 4]);
/// (rol8 u, rol16 v)
const Y2: [u8; 16] = twice([1, 6, 7, 0, 4, 5, 2, 3]);
/// (rol16 u, rol24 v)
const Y3: [u8; 16] = twice([0, 1, 6, 7, 3, 4, 5, 2]);

/// The constants of F's step, in registers for a whole batch.
pub(super) struct FConsts {
    p1: uint8x16_t,
    p2: uint8x16_t,
    q3: uint8x16_t,
    pre_lo: uint8x16_t,
    pre_hi: uint8x16_t,
    post_lo: uint8x16_t,
    post_hi: uint8x16_t,
    nib: uint8x16_t,
    /// 0xff on S0's bytes (the odd ones).
    s0_mask: uint8x16_t,
    q0: uint8x16_t,
    q1: uint8x16_t,
    y1: uint8x16_t,
    y2: uint8x16_t,
    y3: uint8x16_t,
    /// L1 = u ^ rol24 u ^ rol2(u ^ rol8 u ^ rol16 u), L2 = v ^ rol8 v ^
    /// rol6(rol8 v ^ rol16 v ^ rol24 v): shifts by (2, 6) and (-30, -26).
    rot_l: int32x4_t,
    rot_r: int32x4_t,
}

#[inline(always)]
fn load16(t: &[u8; 16]) -> uint8x16_t {
    // SAFETY: reads the 16 bytes of the array (NEON is baseline on aarch64).
    unsafe { vld1q_u8(t.as_ptr()) }
}

impl FConsts {
    #[inline]
    #[target_feature(enable = "neon")]
    pub(super) fn new() -> FConsts {
        let p1: [u8; 16] = P1;
        let p2: [u8; 16] = P2;
        let q3: [u8; 16] = Q3;
        // SAFETY: reads of whole constant arrays.
        let (rot_l, rot_r) = unsafe { (vld1q_s32([2, 6, 2, 6].as_ptr()), vld1q_s32([-30, -26, -30, -26].as_ptr())) };
        FConsts {
            p1: load16(&p1),
            p2: load16(&p2),
            q3: load16(&q3),
            pre_lo: load16(&PRE_LO),
            pre_hi: load16(&PRE_HI),
            post_lo: load16(&POST_LO),
            post_hi: load16(&POST_LIN_HI),
            nib: vdupq_n_u8(0x0f),
            // Opaque to the compiler, which would otherwise see the byte
            // pattern and turn `BSL` into XTN + UZP2 + ZIP1 (one more
            // instruction on F's chain).
            s0_mask: core::hint::black_box(vreinterpretq_u8_u16(vdupq_n_u16(0xff00))),
            q0: load16(&Q0),
            q1: load16(&Q1),
            y1: load16(&Y1),
            y2: load16(&Y2),
            y3: load16(&Y3),
            rot_l,
            rot_r,
        }
    }
}

/// One F update: from W = (R1 + X1, R2) and c = (L1(X2 >> 16), L2(X2 << 16)),
/// each twice, the new (R1, R2) twice.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) fn f_core(k: &FConsts, w: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
    // The y shuffles and their shifts first: the longer path from W.
    let y = veorq_u8(veorq_u8(vqtbl1q_u8(w, k.y1), vqtbl1q_u8(w, k.y2)), vqtbl1q_u8(w, k.y3));
    let y = vreinterpretq_u32_u8(y);
    let sl = vreinterpretq_u8_u32(vshlq_u32(y, k.rot_l));
    let sr = vreinterpretq_u8_u32(vshlq_u32(y, k.rot_r));
    let base = veorq_u8(veorq_u8(vqtbl1q_u8(w, k.q0), vqtbl1q_u8(w, k.q1)), c);
    let l = veorq_u8(veorq_u8(base, sl), sr);
    let lo = vandq_u8(l, k.nib);
    let hi = vshrq_n_u8::<4>(l);
    // S1 (first: AESE's latency is the longer path)
    let pre = veorq_u8(vqtbl1q_u8(k.pre_lo, lo), vqtbl1q_u8(k.pre_hi, hi));
    let o = vaeseq_u8(pre, vdupq_n_u8(0));
    let s1 = veorq_u8(vqtbl1q_u8(k.post_lo, vandq_u8(o, k.nib)), vqtbl1q_u8(k.post_hi, vshrq_n_u8::<4>(o)));
    // S0
    let t2 = veorq_u8(vqtbl1q_u8(k.p1, lo), hi);
    let t1 = veorq_u8(vqtbl1q_u8(k.p2, t2), lo);
    let s0 = veorq_u8(vqtbl1q_u8(k.q3, t1), vaddq_u8(t2, t2));
    vbslq_u8(k.s0_mask, s0, s1)
}

/// (L1(X2 >> 16), L2(X2 << 16)): the X2 part of W2 = R2 ^ X2 under L1 and
/// L2, added to F's sums by [`f_core`] (L1 and L2 are linear).
#[inline(always)]
pub(super) fn x2_terms(x2: u32) -> [u32; 2] {
    let (cu, cv) = (x2 >> 16, x2 << 16);
    [crate::zuc::spec::l1(cu), crate::zuc::spec::l2(cv)]
}

#[target_feature(enable = "neon,aes")]
fn f_update_impl(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    let k = FConsts::new();
    let c = x2_terms(x2);
    let w1 = r1.wrapping_add(x1);
    // SAFETY: reads of whole local arrays.
    let (w, c) = unsafe { (vld1q_u32([w1, r2, w1, r2].as_ptr()), vld1q_u32([c[0], c[1], c[0], c[1]].as_ptr())) };
    let r = vreinterpretq_u32_u8(f_core(&k, vreinterpretq_u8_u32(w), vreinterpretq_u8_u32(c)));
    (vgetq_lane_u32::<0>(r), vgetq_lane_u32::<1>(r))
}

/// F's register update (see [`crate::zuc::spec::f_update`]) with the NEON
/// S-boxes; the token proves NEON and AESE.
pub(crate) fn f_update(_t: AesNeon, r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    // SAFETY: the token proves the features `f_update_impl` enables.
    unsafe { f_update_impl(r1, r2, x1, x2) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;

    /// The NEON F update equals the portable one (itself checked against
    /// the standard's S-box tables) on inputs covering every byte value in
    /// every position.
    #[test]
    fn neon_f_matches_portable() {
        let Some(t) = AesNeon::get() else { return };
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        for i in 0..20_000u32 {
            let a = next();
            let (r1, r2, x1, x2) = (a as u32, (a >> 32) as u32, (a as u32).rotate_left(7) ^ i, next() as u32);
            assert_eq!(f_update(t, r1, r2, x1, x2), crate::zuc::spec::f_update(r1, r2, x1, x2));
        }
    }
}
