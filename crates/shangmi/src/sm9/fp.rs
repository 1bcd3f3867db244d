//! SM9's base field Fp and scalar field Scalar (BN256 with t = 0x600000000058F98A),
//! both on the shared Montgomery arithmetic of [`crate::arith`].
//!
//! p = 36t⁴ + 36t³ + 24t² + 6t + 1 and n = 36t⁴ + 36t³ + 18t² + 6t + 1
//! (checked by a test). Both have their top bit set, so the generic
//! reduction (no spare-bit tricks) is used; a faster kernel for any
//! modulus arrives through `Modulus` without changes here.

use crate::arith::{add_mod_const, Fe, Limbs, Modulus};

/// SM9's field prime p.
#[derive(Clone, Copy, Debug)]
pub struct Sm9P;
impl Modulus for Sm9P {
    const M: Limbs = [0xe56f9b27e351457d, 0x21f2934b1a7aeedb, 0xd603ab4ff58ec745, 0xb640000002a3a6f1];

    // The tower does thousands of products per pairing: one out-of-line
    // body per product keeps the Fp2..Fp12 code small enough for the
    // instruction cache (inlining every product in Fp12 multiplied the
    // code size by the whole tower), at the cost of a call.
    #[inline(never)]
    fn mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::arith::Adx::get() {
            return Self::mont_mul_adx(t.0, a, b);
        }
        Self::mont_mul_portable(a, b)
    }

    #[inline(never)]
    fn mont_sqr(a: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = crate::arith::Adx::get() {
            return Self::mont_sqr_adx(t.0, a);
        }
        Self::mont_sqr_portable(a)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mod_add(a: &Limbs, b: &Limbs) -> Limbs {
        super::fp_asm::add_mod_p(a, b, &Self::M)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mod_sub(a: &Limbs, b: &Limbs) -> Limbs {
        super::fp_asm::sub_mod_p(a, b, &Self::M)
    }
}

/// SM9's group order n (G1, G2 and GT all have order n; BN256's G1 cofactor is 1).
#[derive(Clone, Copy, Debug)]
pub struct Sm9N;
impl Modulus for Sm9N {
    const M: Limbs = [0xe56ee19cd69ecf25, 0x49f2934b18ea8bee, 0xd603ab4ff58ec744, 0xb640000002a3a6f1];
}

/// An element of Fp.
pub type Fp = Fe<Sm9P>;
/// An element of Z/nZ (scalars).
pub type Scalar = Fe<Sm9N>;

/// The BN parameter t.
pub const T: u64 = 0x600000000058f98a;

/// Montgomery form of a canonical value < M at compile time (256 modular
/// doublings of a: a·2^256 mod M), so constants are written canonically.
pub const fn mont_const<M: Modulus>(a: Limbs) -> Fe<M> {
    let mut x = a;
    let mut i = 0;
    while i < 256 {
        x = add_mod_const(&x, &x, &M::M);
        i += 1;
    }
    Fe::from_mont_limbs(x)
}

/// An Fp constant from canonical little-endian limbs.
pub const fn fp(a: Limbs) -> Fp {
    mont_const::<Sm9P>(a)
}

/// An Fp element from a small integer.
pub const fn fp_small(a: u64) -> Fp {
    fp([a, 0, 0, 0])
}

/// x^e for a public exponent given as little-endian limbs of any length
/// (square-and-multiply; the exponent is public, the base may be secret).
pub fn fp_pow_vartime(x: &Fp, e: &[u64]) -> Fp {
    let mut acc = Fp::ONE;
    for limb in e.iter().rev() {
        for i in (0..64).rev() {
            acc = acc.square();
            if (limb >> i) & 1 == 1 {
                acc = acc.mul(x);
            }
        }
    }
    acc
}

/// √x for x a square (p ≡ 5 mod 8 is not the case; p ≡ 1 mod 4 needs
/// Tonelli–Shanks): public inputs only (decompression of public points).
pub fn fp_sqrt_vartime(x: &Fp) -> Option<Fp> {
    use subtle::ConstantTimeEq;
    // p − 1 = 2^s · q with q odd.
    let pm1 = crate::arith::sub_limbs(&Sm9P::M, &[1, 0, 0, 0]).0;
    let s = pm1[0].trailing_zeros();
    let q = shr_limbs(&pm1, s);
    // A quadratic non-residue: −2 (u² = −2 makes Fp2 a field).
    let z = fp_small(2).neg();
    let mut m = s;
    let mut c = fp_pow_vartime(&z, &q);
    let mut tt = fp_pow_vartime(x, &q);
    let q1 = shr_limbs(&crate::arith::add_limbs(&q, &[1, 0, 0, 0]).0, 1);
    let mut r = fp_pow_vartime(x, &q1);
    loop {
        if bool::from(tt.is_zero()) {
            return Some(Fp::ZERO);
        }
        if bool::from(tt.ct_eq(&Fp::ONE)) {
            return Some(r);
        }
        let mut i = 0;
        let mut t2 = tt;
        while !bool::from(t2.ct_eq(&Fp::ONE)) {
            t2 = t2.square();
            i += 1;
            if i == m {
                return None;
            }
        }
        let b = c.square_n((m - i - 1) as usize);
        m = i;
        c = b.square();
        tt = tt.mul(&c);
        r = r.mul(&b);
    }
}

fn shr_limbs(a: &Limbs, s: u32) -> Limbs {
    let mut out = [0u64; 4];
    for i in 0..4 {
        let hi = if i + 1 < 4 && s > 0 { a[i + 1] << (64 - s) } else { 0 };
        out[i] = (a[i] >> s) | hi;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn big(l: &Limbs) -> BigUint {
        let mut b = Vec::new();
        for x in l {
            b.extend_from_slice(&x.to_le_bytes());
        }
        BigUint::from_bytes_le(&b)
    }

    #[test]
    fn p_and_n_from_t() {
        let t = BigUint::from(T);
        let c = |k: u32| BigUint::from(k);
        let p = c(36) * t.pow(4) + c(36) * t.pow(3) + c(24) * t.pow(2) + c(6) * &t + c(1);
        let n = c(36) * t.pow(4) + c(36) * t.pow(3) + c(18) * t.pow(2) + c(6) * &t + c(1);
        assert_eq!(big(&Sm9P::M), p);
        assert_eq!(big(&Sm9N::M), n);
    }

    #[test]
    fn mont_const_matches_runtime_conversion() {
        let a = [0x1234, 5, 6, 0x7];
        assert_eq!(fp(a).mont_limbs(), Fp::from_canonical(&a).mont_limbs());
        assert_eq!(fp_small(5).to_canonical(), [5, 0, 0, 0]);
    }

    #[test]
    fn sqrt() {
        for k in 2..40u64 {
            let x = fp_small(k).square();
            let r = fp_sqrt_vartime(&x).unwrap();
            assert_eq!(r.square().to_canonical(), x.to_canonical());
        }
        // −2 is a non-residue.
        assert!(fp_sqrt_vartime(&fp_small(2).neg()).is_none());
    }
}

/// The assembly add/sub against the generic carry-chain versions.
#[cfg(all(test, target_arch = "x86_64"))]
mod asm_tests {
    use super::Sm9P;
    use crate::arith::{add_mod, sub_mod, Limbs, Modulus};
    use crate::sm9::fp_asm::{add_mod_p, sub_mod_p};
    const P: Limbs = Sm9P::M;

    #[test]
    fn asm_add_sub_match_generic() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let pm1 = crate::arith::sub_limbs(&Sm9P::M, &[1, 0, 0, 0]).0;
        let mut edge = vec![[0u64; 4], [1, 0, 0, 0], pm1, [u64::MAX, 0, 0, 0]];
        for _ in 0..2000 {
            let mut x = [next(), next(), next(), next()];
            x[3] %= Sm9P::M[3];
            edge.push(x);
        }
        for (i, a) in edge.iter().enumerate() {
            let b = &edge[(i * 7 + 3) % edge.len()];
            for (x, y) in [(a, b), (b, a), (a, a)] {
                assert_eq!(add_mod_p(x, y, &P), add_mod(x, y, &P));
                assert_eq!(sub_mod_p(x, y, &P), sub_mod(x, y, &P));
            }
        }
        assert_eq!(add_mod_p(&pm1, &pm1, &P), sub_limbs_p(&pm1));
    }

    /// p − 2 = (p − 1) + (p − 1) mod p.
    fn sub_limbs_p(pm1: &Limbs) -> Limbs {
        crate::arith::sub_limbs(pm1, &[1, 0, 0, 0]).0
    }
}
