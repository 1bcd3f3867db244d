//! The SM2 prime field Fp and the scalar field mod n (sm2p256v1).

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use crate::arith::{adc, final_sub, mac, sbb, Fe, Limbs, Modulus};

/// p = 2^256 − 2^224 − 2^96 + 2^64 − 1.
#[derive(Clone, Copy, Debug)]
pub struct Sm2P;

impl Modulus for Sm2P {
    const M: Limbs = [0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000, 0xffff_ffff_ffff_ffff, 0xffff_fffe_ffff_ffff];

    /// p's lowest limb is all ones, so −p⁻¹ ≡ 1 (mod 2^64): the per-word
    /// Montgomery factor is the word itself, and k·p = k·2^256 − k·2^224 −
    /// k·2^96 + k·2^64 − k needs no multiplication at all.
    #[inline(always)]
    fn reduce(t: &[u64; 8]) -> Limbs {
        // Each step: with k = t[0] (−p⁻¹ ≡ 1), (t + k·p)/2^64 = (t >> 64) +
        // k·(p + 1)/2^64 because the low word cancels exactly, and
        // (p + 1)/2^64 = 2^192 − 2^160 − 2^32 + 1. With k·2^32 = hi·2^64 + lo:
        // k·(2^192 − 2^160 − 2^32 + 1) = (k − lo) + (−hi)·2^64 + (−lo)·2^128
        // + (k − hi)·2^192, a non-negative 256-bit value (one borrow chain).
        let mut r = [t[0], t[1], t[2], t[3]];
        let mut carry = 0u64;
        for _ in 0..4 {
            let k = r[0];
            let lo = k << 32;
            let hi = k >> 32;
            let (a0, b) = sbb(k, lo, 0);
            let (a1, b) = sbb(0, hi, b);
            let (a2, b) = sbb(0, lo, b);
            let (a3, _) = sbb(k, hi, b);
            // r = (r >> 64) + a; the shifted-in top word is 0 here (the
            // running carry is folded in when the high half is added).
            let (s0, c) = adc(r[1], a0, 0);
            let (s1, c) = adc(r[2], a1, c);
            let (s2, c) = adc(r[3], a2, c);
            let (s3, c) = adc(carry, a3, c);
            r = [s0, s1, s2, s3];
            carry = c;
        }
        // r + carry·2^256 < 2p; add the high half of t.
        let (s0, c) = adc(r[0], t[4], 0);
        let (s1, c) = adc(r[1], t[5], c);
        let (s2, c) = adc(r[2], t[6], c);
        let (s3, c) = adc(r[3], t[7], c);
        final_sub([s0, s1, s2, s3], c + carry, &Self::M)
    }

    /// x^(p−2) by an addition chain: 256 squarings and 16 multiplications
    /// (the generic 4-bit window needs 256 + 64). p − 2 in binary is
    /// 1^31 0 1^128 0^32 1^62 0 1, built from x_k = x^(2^k − 1).
    fn invert(x: &Fp) -> Fp {
        let x1 = *x;
        let x2 = x1.square().mul(&x1);
        let x3 = x2.square().mul(&x1);
        let x6 = x3.square_n(3).mul(&x3);
        let x12 = x6.square_n(6).mul(&x6);
        let x24 = x12.square_n(12).mul(&x12);
        let x30 = x24.square_n(6).mul(&x6);
        let x31 = x30.square().mul(&x1);
        let x32 = x31.square().mul(&x1);
        // 1^31 0
        let mut t = x31.square();
        // 1^128
        for _ in 0..4 {
            t = t.square_n(32).mul(&x32);
        }
        // 0^32
        t = t.square_n(32);
        // 1^62 = 1^32 1^30
        t = t.square_n(32).mul(&x32);
        t = t.square_n(30).mul(&x30);
        // 0 1
        t.square_n(2).mul(&x1)
    }

    /// Interleaved (CIOS) multiplication with the same multiplication-free
    /// reduction step after each row: a 6-word accumulator instead of an
    /// 8-word product keeps everything in registers.
    #[inline(always)]
    fn mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
        let mut t = [0u64; 5];
        for i in 0..4 {
            let (t0, c) = mac(t[0], a[i], b[0], 0);
            let (t1, c) = mac(t[1], a[i], b[1], c);
            let (t2, c) = mac(t[2], a[i], b[2], c);
            let (t3, c) = mac(t[3], a[i], b[3], c);
            let (t4, t5) = adc(t[4], c, 0);
            // (t + k·p) / 2^64 with k = t0 (see `reduce`).
            let k = t0;
            let lo = k << 32;
            let hi = k >> 32;
            let (a0, br) = sbb(k, lo, 0);
            let (a1, br) = sbb(0, hi, br);
            let (a2, br) = sbb(0, lo, br);
            let (a3, _) = sbb(k, hi, br);
            let (s0, c) = adc(t1, a0, 0);
            let (s1, c) = adc(t2, a1, c);
            let (s2, c) = adc(t3, a2, c);
            let (s3, c) = adc(t4, a3, c);
            t = [s0, s1, s2, s3, t5 + c];
        }
        final_sub([t[0], t[1], t[2], t[3]], t[4], &Self::M)
    }
}

/// n, the order of the base point G.
#[derive(Clone, Copy, Debug)]
pub struct Sm2N;

impl Modulus for Sm2N {
    const M: Limbs = [0x53bb_f409_39d5_4123, 0x7203_df6b_21c6_052b, 0xffff_ffff_ffff_ffff, 0xffff_fffe_ffff_ffff];
}

/// An element of the SM2 base field, Montgomery form.
pub type Fp = Fe<Sm2P>;
/// A scalar mod n, Montgomery form.
pub type Fn = Fe<Sm2N>;

/// p as limbs.
pub const P: Limbs = <Sm2P as Modulus>::M;
/// n as limbs.
pub const N: Limbs = <Sm2N as Modulus>::M;

/// Curve coefficient b (a = −3), canonical big-endian.
pub const B_BYTES: [u8; 32] = hex32("28e9fa9e9d9f5e344d5a9e4bcf6509a7f39789f515ab8f92ddbcbd414d940e93");
/// Curve coefficient a = p − 3, canonical big-endian (for Z).
pub const A_BYTES: [u8; 32] = hex32("fffffffeffffffffffffffffffffffffffffffff00000000fffffffffffffffc");
/// Base point G, canonical big-endian coordinates.
pub const GX_BYTES: [u8; 32] = hex32("32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7");
pub const GY_BYTES: [u8; 32] = hex32("bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0");

/// Compile-time hex → 32 bytes.
const fn hex32(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nib(b[2 * i]) << 4) | nib(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nib(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("bad hex"),
    }
}

/// Square root in Fp (p ≡ 3 mod 4): a^((p+1)/4); `None` if a is a non-residue.
pub fn sqrt_vartime(a: &Fp) -> Option<Fp> {
    // (p + 1) / 4
    const E: Limbs = [0x4000_0000_0000_0000, 0xffff_ffff_c000_0000, 0xffff_ffff_ffff_ffff, 0x3fff_ffff_bfff_ffff];
    let r = a.pow_public_exp(&E);
    if bool::from(subtle::ConstantTimeEq::ct_eq(&r.square(), a)) {
        Some(r)
    } else {
        None
    }
}
