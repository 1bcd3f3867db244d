//! The SM2 prime field Fp and the scalar field mod n (sm2p256v1).

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use crate::arith::{adc, final_sub, Fe, Limbs, Modulus};

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
        let mut t = *t;
        let mut top = 0u64;
        for i in 0..4 {
            let k = t[i];
            // t += k·p·2^(64 i); the low word cancels exactly (t[i] + k·(2^64−1)
            // = k·2^64), leaving: + k at word i+1, − k·2^32 at word i+1
            // (from −2^96), − k·2^32 at word i+3 (from −2^224) and + k at
            // word i+4. Written as: k·p_j for the remaining limbs with
            // p1 = 2^64 − 2^32, p2 = 2^64 − 1, p3 = 2^64 − 2^32 − 1.
            let k_lo32 = k << 32;
            let k_hi32 = k >> 32;
            // k·p1 = k·2^64 − k·2^32 → (lo, hi) = (−k<<32 mod 2^64, k − (k>>32) − borrow)
            // Accumulate k·(p + 1) / 2^64 contribution in a carry-save way
            // using 128-bit sums, which LLVM turns into add/adc chains.
            let p1_lo = 0u64.wrapping_sub(k_lo32);
            let p1_hi = k.wrapping_sub(k_hi32).wrapping_sub((k_lo32 != 0) as u64);
            // k·p2 = k·2^64 − k.
            let p2_lo = 0u64.wrapping_sub(k);
            let p2_hi = k.wrapping_sub((k != 0) as u64);
            // k·p3 = k·2^64 − k·2^32 − k.
            let (p3_lo, b1) = sub_wide(0, k_lo32, k);
            let p3_hi = k.wrapping_sub(k_hi32).wrapping_sub(b1);
            // Word i: t[i] + k·p0 = t[i] + k·2^64 − k → carry k (low word 0).
            let carry0 = k;
            let (w1, c) = adc(t[i + 1], p1_lo, 0);
            let (w1, c2) = adc(w1, carry0, 0);
            let carry1 = p1_hi as u128 + c as u128 + c2 as u128;
            let s = t[i + 2] as u128 + p2_lo as u128 + carry1;
            let w2 = s as u64;
            let carry2 = (s >> 64) + p2_hi as u128;
            let s = t[i + 3] as u128 + p3_lo as u128 + carry2;
            let w3 = s as u64;
            let carry3 = (s >> 64) + p3_hi as u128;
            let s = t[i + 4] as u128 + carry3 + top as u128;
            t[i] = 0;
            t[i + 1] = w1;
            t[i + 2] = w2;
            t[i + 3] = w3;
            t[i + 4] = s as u64;
            top = (s >> 64) as u64;
        }
        final_sub([t[4], t[5], t[6], t[7]], top, &Self::M)
    }
}

/// a − b − c over 64 bits → (difference, total borrow 0..=2).
#[inline(always)]
fn sub_wide(a: u64, b: u64, c: u64) -> (u64, u64) {
    let (d, b1) = a.overflowing_sub(b);
    let (d, b2) = d.overflowing_sub(c);
    (d, b1 as u64 + b2 as u64)
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
