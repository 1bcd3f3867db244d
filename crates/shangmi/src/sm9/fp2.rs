//! Fp2 = Fp[u]/(u² + 2): the first level of SM9's tower (u² = −2; −2 is a
//! non-residue mod p, checked in fp.rs's tests).

use super::fp::{fp_sqrt_vartime, Fp};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// Evaluates `$body` with `$k` an inlined Montgomery product of two Fp
/// elements on the best backend, checked once for the whole body.
macro_rules! with_kernel {
    (|$k:ident| $body:expr) => {{
        use $crate::arith::Modulus as _;
        use $crate::sm9::fp::{Fp as F, Sm9P as P};
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = $crate::arith::Adx::get() {
            let $k = |a: &F, b: &F| F::from_mont_limbs(P::mont_mul_adx(t.0, a.mont_limbs(), b.mont_limbs()));
            return $body;
        }
        let $k = |a: &F, b: &F| F::from_mont_limbs(P::mont_mul_portable(a.mont_limbs(), b.mont_limbs()));
        $body
    }};
}

/// c0 + c1·u.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
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

    /// Karatsuba: three Fp multiplications. One out-of-line body per Fp2
    /// product with the Montgomery kernel inlined three times and the
    /// backend chosen once (not per Fp product).
    #[inline(never)]
    pub fn mul(&self, o: &Self) -> Self {
        with_kernel!(|k| self.mul_k(o, k))
    }

    /// [`Fp2::mul`] with the Fp product `k` given (inlined by callers that
    /// chose the backend already, see `with_kernel!`).
    #[inline(always)]
    pub(crate) fn mul_k(&self, o: &Self, k: impl Fn(&Fp, &Fp) -> Fp) -> Self {
        let v0 = k(&self.c0, &o.c0);
        let v1 = k(&self.c1, &o.c1);
        let s = k(&self.c0.add(&self.c1), &o.c0.add(&o.c1));
        Fp2 { c0: v0.sub(&v1.double()), c1: s.sub(&v0).sub(&v1) }
    }

    /// (a0 + a1u)² = (a0 + a1)(a0 − 2a1) + a0a1 + 2a0a1·u: two
    /// multiplications. Out of line like [`Fp2::mul`]: both Montgomery
    /// kernels inlined, the backend chosen once per square (calling the
    /// per-product `Fp::mul` twice cost a CPU check and a call each, which
    /// is what made the cyclotomic square, nine of these, slower).
    #[inline(never)]
    pub fn square(&self) -> Self {
        with_kernel!(|k| self.square_k(k))
    }

    /// [`Fp2::square`] with the Fp product `k` given.
    #[inline(always)]
    pub(crate) fn square_k(&self, k: impl Fn(&Fp, &Fp) -> Fp) -> Self {
        let ab = k(&self.c0, &self.c1);
        let t = k(&self.c0.add(&self.c1), &self.c0.sub(&self.c1.double()));
        Fp2 { c0: t.add(&ab), c1: ab.double() }
    }

    /// Multiplication by an Fp scalar.
    #[inline(never)]
    pub fn mul_fp(&self, s: &Fp) -> Self {
        with_kernel!(|k| Fp2 { c0: k(&self.c0, s), c1: k(&self.c1, s) })
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
