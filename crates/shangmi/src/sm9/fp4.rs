//! Fp4 = Fp2[v]/(v² − u): the second level of SM9's tower.

use super::fp::Fp;
use super::fp2::Fp2;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// c0 + c1·v.
#[derive(Clone, Copy, Debug, Default)]
pub struct Fp4 {
    pub c0: Fp2,
    pub c1: Fp2,
}

impl Zeroize for Fp4 {
    fn zeroize(&mut self) {
        self.c0.zeroize();
        self.c1.zeroize();
    }
}

impl ConditionallySelectable for Fp4 {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Fp4 { c0: Fp2::conditional_select(&a.c0, &b.c0, c), c1: Fp2::conditional_select(&a.c1, &b.c1, c) }
    }
}

impl ConstantTimeEq for Fp4 {
    #[inline(always)]
    fn ct_eq(&self, o: &Self) -> Choice {
        self.c0.ct_eq(&o.c0) & self.c1.ct_eq(&o.c1)
    }
}

impl Fp4 {
    pub const ZERO: Self = Fp4 { c0: Fp2::ZERO, c1: Fp2::ZERO };
    pub const ONE: Self = Fp4 { c0: Fp2::ONE, c1: Fp2::ZERO };

    #[inline(always)]
    pub const fn new(c0: Fp2, c1: Fp2) -> Self {
        Fp4 { c0, c1 }
    }

    #[inline(always)]
    pub fn add(&self, o: &Self) -> Self {
        Fp4 { c0: self.c0.add(&o.c0), c1: self.c1.add(&o.c1) }
    }

    #[inline(always)]
    pub fn sub(&self, o: &Self) -> Self {
        Fp4 { c0: self.c0.sub(&o.c0), c1: self.c1.sub(&o.c1) }
    }

    #[inline(always)]
    pub fn double(&self) -> Self {
        Fp4 { c0: self.c0.double(), c1: self.c1.double() }
    }

    #[inline(always)]
    pub fn neg(&self) -> Self {
        Fp4 { c0: self.c0.neg(), c1: self.c1.neg() }
    }

    /// Karatsuba: three Fp2 multiplications.
    #[inline(always)]
    pub fn mul(&self, o: &Self) -> Self {
        let v0 = self.c0.mul(&o.c0);
        let v1 = self.c1.mul(&o.c1);
        let s = self.c0.add(&self.c1).mul(&o.c0.add(&o.c1));
        Fp4 { c0: v0.add(&v1.mul_u()), c1: s.sub(&v0).sub(&v1) }
    }

    /// (a0 + a1v)² = a0² + u·a1² + 2a0a1·v: three Fp2 squarings.
    #[inline(always)]
    pub fn square(&self) -> Self {
        let s0 = self.c0.square();
        let s1 = self.c1.square();
        let c1 = self.c0.add(&self.c1).square().sub(&s0).sub(&s1);
        Fp4 { c0: s0.add(&s1.mul_u()), c1 }
    }

    /// Multiplication by an Fp2 element (c1 = 0).
    #[inline(always)]
    pub fn mul_fp2(&self, k: &Fp2) -> Self {
        Fp4 { c0: self.c0.mul(k), c1: self.c1.mul(k) }
    }

    /// Multiplication by an Fp scalar.
    #[inline(always)]
    pub fn mul_fp(&self, k: &Fp) -> Self {
        Fp4 { c0: self.c0.mul_fp(k), c1: self.c1.mul_fp(k) }
    }

    /// ·v: (a0 + a1v)v = u·a1 + a0·v.
    #[inline(always)]
    pub fn mul_v(&self) -> Self {
        Fp4 { c0: self.c1.mul_u(), c1: self.c0 }
    }

    /// Conjugate over Fp2: a0 − a1v (the p²-power Frobenius of Fp4).
    #[inline(always)]
    pub fn conj(&self) -> Self {
        Fp4 { c0: self.c0, c1: self.c1.neg() }
    }

    /// Constant-time inverse (0 ↦ 0): (a0 − a1v)/(a0² − u·a1²).
    pub fn invert(&self) -> Self {
        let d = self.c0.square().sub(&self.c1.square().mul_u()).invert();
        Fp4 { c0: self.c0.mul(&d), c1: self.c1.neg().mul(&d) }
    }

    #[inline(always)]
    pub fn is_zero(&self) -> Choice {
        self.c0.is_zero() & self.c1.is_zero()
    }
}
