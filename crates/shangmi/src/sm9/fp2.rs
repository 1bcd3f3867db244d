//! Fp2 = Fp[u]/(u² + 2): the first level of SM9's tower (u² = −2; −2 is a
//! non-residue mod p, checked in fp.rs's tests).

use super::fp::{fp_sqrt_vartime, Fp};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// c0 + c1·u.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fp2 {
    pub c0: Fp,
    pub c1: Fp,
}

impl Zeroize for Fp2 {
    fn zeroize(&mut self) {
        self.c0.zeroize();
        self.c1.zeroize();
    }
}

impl ConditionallySelectable for Fp2 {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Fp2 { c0: Fp::conditional_select(&a.c0, &b.c0, c), c1: Fp::conditional_select(&a.c1, &b.c1, c) }
    }
}

impl ConstantTimeEq for Fp2 {
    #[inline(always)]
    fn ct_eq(&self, o: &Self) -> Choice {
        self.c0.ct_eq(&o.c0) & self.c1.ct_eq(&o.c1)
    }
}

impl Fp2 {
    pub const ZERO: Self = Fp2 { c0: Fp::ZERO, c1: Fp::ZERO };
    pub const ONE: Self = Fp2 { c0: Fp::ONE, c1: Fp::ZERO };

    #[inline(always)]
    pub const fn new(c0: Fp, c1: Fp) -> Self {
        Fp2 { c0, c1 }
    }

    #[inline(always)]
    pub fn from_fp(c0: Fp) -> Self {
        Fp2 { c0, c1: Fp::ZERO }
    }

    #[inline(always)]
    pub fn add(&self, o: &Self) -> Self {
        Fp2 { c0: self.c0.add(&o.c0), c1: self.c1.add(&o.c1) }
    }

    #[inline(always)]
    pub fn sub(&self, o: &Self) -> Self {
        Fp2 { c0: self.c0.sub(&o.c0), c1: self.c1.sub(&o.c1) }
    }

    #[inline(always)]
    pub fn double(&self) -> Self {
        Fp2 { c0: self.c0.double(), c1: self.c1.double() }
    }

    #[inline(always)]
    pub fn neg(&self) -> Self {
        Fp2 { c0: self.c0.neg(), c1: self.c1.neg() }
    }

    /// Karatsuba: three Fp multiplications.
    #[inline(always)]
    pub fn mul(&self, o: &Self) -> Self {
        let v0 = self.c0.mul(&o.c0);
        let v1 = self.c1.mul(&o.c1);
        let s = self.c0.add(&self.c1).mul(&o.c0.add(&o.c1));
        Fp2 { c0: v0.sub(&v1.double()), c1: s.sub(&v0).sub(&v1) }
    }

    /// (a0 + a1u)² = (a0 + a1)(a0 − 2a1) + a0a1 + 2a0a1·u: two multiplications.
    #[inline(always)]
    pub fn square(&self) -> Self {
        let ab = self.c0.mul(&self.c1);
        let t = self.c0.add(&self.c1).mul(&self.c0.sub(&self.c1.double()));
        Fp2 { c0: t.add(&ab), c1: ab.double() }
    }

    /// Multiplication by an Fp scalar.
    #[inline(always)]
    pub fn mul_fp(&self, k: &Fp) -> Self {
        Fp2 { c0: self.c0.mul(k), c1: self.c1.mul(k) }
    }

    /// ·u: (a0 + a1u)u = −2a1 + a0u.
    #[inline(always)]
    pub fn mul_u(&self) -> Self {
        Fp2 { c0: self.c1.double().neg(), c1: self.c0 }
    }

    /// Conjugate a0 − a1u, which is also the p-power Frobenius (u^p = −u).
    #[inline(always)]
    pub fn conj(&self) -> Self {
        Fp2 { c0: self.c0, c1: self.c1.neg() }
    }

    /// Norm a0² + 2a1² ∈ Fp.
    #[inline(always)]
    pub fn norm(&self) -> Fp {
        self.c0.square().add(&self.c1.square().double())
    }

    /// Constant-time inverse (0 ↦ 0).
    pub fn invert(&self) -> Self {
        let ni = self.norm().invert();
        Fp2 { c0: self.c0.mul(&ni), c1: self.c1.neg().mul(&ni) }
    }

    /// Variable-time inverse: public values only.
    pub fn invert_vartime(&self) -> Self {
        let ni = self.norm().invert_vartime();
        Fp2 { c0: self.c0.mul(&ni), c1: self.c1.neg().mul(&ni) }
    }

    #[inline(always)]
    pub fn is_zero(&self) -> Choice {
        self.c0.is_zero() & self.c1.is_zero()
    }

    /// self^e for a public exponent (little-endian limbs).
    pub fn pow_vartime(&self, e: &[u64]) -> Self {
        let mut acc = Fp2::ONE;
        for limb in e.iter().rev() {
            for i in (0..64).rev() {
                acc = acc.square();
                if (limb >> i) & 1 == 1 {
                    acc = acc.mul(self);
                }
            }
        }
        acc
    }

    /// √self if it exists (public inputs: point decompression). Uses the
    /// norm: for a = x + yu, √a = α + (y/2α)u with α² = (x ± √N(a))/2.
    pub fn sqrt_vartime(&self) -> Option<Self> {
        if bool::from(self.is_zero()) {
            return Some(Fp2::ZERO);
        }
        let n = fp_sqrt_vartime(&self.norm())?;
        let half = super::fp::fp_small(2).invert_vartime();
        for cand in [self.c0.add(&n).mul(&half), self.c0.sub(&n).mul(&half)] {
            if let Some(alpha) = fp_sqrt_vartime(&cand) {
                if bool::from(alpha.is_zero()) {
                    continue;
                }
                let beta = self.c1.mul(&alpha.double().invert_vartime());
                let r = Fp2::new(alpha, beta);
                if bool::from(r.square().ct_eq(self)) {
                    return Some(r);
                }
            }
        }
        // a = x with y = 0 and x a non-square in Fp: √a = √(−x/2)·u.
        let c = self.c0.mul(&half).neg();
        let b = fp_sqrt_vartime(&c)?;
        let r = Fp2::new(Fp::ZERO, b);
        bool::from(r.square().ct_eq(self)).then_some(r)
    }
}
