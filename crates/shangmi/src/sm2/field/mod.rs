//! The SM2 prime field Fp and the scalar field mod n (sm2p256v1): the
//! moduli, their special-form portable kernels and constants; the x86-64
//! assembly is in `x86`, the eight-lane IFMA field in `ifma`, the aarch64
//! Montgomery multiplication and squaring in `aarch64`.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use crate::arith::{adc, final_sub, hex32, sbb, Fe, Limbs, Modulus};

#[cfg(target_arch = "x86_64")]
mod x86;

#[cfg(target_arch = "x86_64")]
pub(crate) mod ifma;

#[cfg(target_arch = "aarch64")]
mod aarch64;

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

    /// Assembly on x86-64 (base instruction set: ADD/ADC/SBB/CMOV, so no
    /// run-time detection), the generic Rust code elsewhere.
    #[inline(always)]
    fn mod_add(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        return x86::addsub::add(a, b);
        #[cfg(not(target_arch = "x86_64"))]
        return crate::arith::add_mod(a, b, &P);
    }

    #[inline(always)]
    fn mod_sub(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        return x86::addsub::sub(a, b);
        #[cfg(not(target_arch = "x86_64"))]
        return crate::arith::sub_mod(a, b, &P);
    }

    /// The interleaved multiplication-free-reduction kernel (below); on
    /// aarch64 the assembly (base instruction set, so it is the one path
    /// there: LLVM's code for the Rust kernel is about 1.7x slower on
    /// Neoverse V1 and Kunpeng 920 models, see `aarch64`).
    #[inline(always)]
    fn mont_mul_portable(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "aarch64")]
        return aarch64::mont_mul(a, b);
        #[cfg(not(target_arch = "aarch64"))]
        return mont_mul_portable(a, b);
    }

    /// The aarch64 squaring (10 products instead of 16); elsewhere the
    /// generic square and `reduce`.
    #[inline(always)]
    fn mont_sqr_portable(a: &Limbs) -> Limbs {
        #[cfg(target_arch = "aarch64")]
        return aarch64::mont_sqr(a);
        #[cfg(not(target_arch = "aarch64"))]
        return Self::reduce(&crate::arith::sqr_wide(a));
    }

    /// SM2's own MULX/ADX kernels (shift-and-add reduction steps).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mont_mul_adx(t: crate::cpu::Adx, a: &Limbs, b: &Limbs) -> Limbs {
        x86::adx::mont_mul(t, a, b)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mont_sqr_adx(t: crate::cpu::Adx, a: &Limbs) -> Limbs {
        x86::adx::mont_sqr(t, a)
    }
}

/// a/2 mod p (a < p): a + p if a is odd (then even), shifted right by one.
/// Constant time.
#[inline(always)]
pub fn fp_half(a: &Fp) -> Fp {
    #[cfg(target_arch = "x86_64")]
    return Fp::from_mont_limbs(x86::addsub::half(a.mont_limbs()));
    #[cfg(not(target_arch = "x86_64"))]
    return Fp::from_mont_limbs(half_portable(a.mont_limbs()));
}

/// The portable a/2 mod p (reference for the assembly, and non-x86 path).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
pub(crate) fn half_portable(a: &Limbs) -> Limbs {
    let m = crate::arith::mask_from_bit(a[0] & 1);
    let (s0, c) = adc(a[0], P[0] & m, 0);
    let (s1, c) = adc(a[1], P[1] & m, c);
    let (s2, c) = adc(a[2], P[2] & m, c);
    let (s3, c) = adc(a[3], P[3] & m, c);
    [(s0 >> 1) | (s1 << 63), (s1 >> 1) | (s2 << 63), (s2 >> 1) | (s3 << 63), (s3 >> 1) | (c << 63)]
}

/// Interleaved (CIOS) multiplication with the same multiplication-free
/// reduction step after each row: a 6-word accumulator instead of an
/// 8-word product keeps everything in registers. (On aarch64 only the
/// reference for the assembly's tests.)
#[cfg(any(test, not(target_arch = "aarch64")))]
#[inline(always)]
pub(crate) fn mont_mul_portable(a: &Limbs, b: &Limbs) -> Limbs {
    let mut t = [0u64; 5];
    for i in 0..4 {
        let (t0, c) = crate::arith::mac(t[0], a[i], b[0], 0);
        let (t1, c) = crate::arith::mac(t[1], a[i], b[1], c);
        let (t2, c) = crate::arith::mac(t[2], a[i], b[2], c);
        let (t3, c) = crate::arith::mac(t[3], a[i], b[3], c);
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
    final_sub([t[0], t[1], t[2], t[3]], t[4], &P)
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
pub type Scalar = Fe<Sm2N>;

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

#[cfg(test)]
mod tests;
