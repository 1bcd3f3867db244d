//! The SM9 unit tests' generator of arbitrary (not secret) field elements
//! and scalars, on the crate's xorshift64* (`crate::test_rng`).

// The edge-mixing draws serve the IFMA lane tests, which are x86-64 only.
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::fp::{Fp, Scalar};
use super::fp12::Fp12;
use super::fp2::Fp2;
use super::fp4::Fp4;

/// Deterministic from its seed, so a failure can be replayed.
pub(crate) struct Sm9Rng(Box<dyn FnMut() -> u64>);

impl Sm9Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Sm9Rng(Box::new(crate::test_rng(seed)))
    }

    pub(crate) fn next(&mut self) -> u64 {
        (self.0)()
    }

    /// Uniform-looking limbs reduced mod p (the top limb halved, so the
    /// reduction rarely matters).
    pub(crate) fn fp(&mut self) -> Fp {
        Fp::from_limbs_reduce(&[self.next(), self.next(), self.next(), self.next() >> 1])
    }

    /// Random values with the edges 0, 1 and p − 1 mixed in (3 in 8), and
    /// full-width limbs otherwise.
    pub(crate) fn fp_edgy(&mut self) -> Fp {
        match self.next() % 8 {
            0 => Fp::ZERO,
            1 => Fp::ONE,
            2 => Fp::ZERO.sub(&Fp::ONE),
            _ => Fp::from_limbs_reduce(&[self.next(), self.next(), self.next(), self.next()]),
        }
    }

    pub(crate) fn fp2(&mut self) -> Fp2 {
        Fp2::new(self.fp(), self.fp())
    }

    pub(crate) fn fp2_edgy(&mut self) -> Fp2 {
        Fp2::new(self.fp_edgy(), self.fp_edgy())
    }

    pub(crate) fn fp4(&mut self) -> Fp4 {
        Fp4::new(self.fp2(), self.fp2())
    }

    pub(crate) fn fp12(&mut self) -> Fp12 {
        Fp12::from_coefficients(&core::array::from_fn(|_| self.fp()))
    }

    pub(crate) fn fp12_edgy(&mut self) -> Fp12 {
        Fp12::from_coefficients(&core::array::from_fn(|_| self.fp_edgy()))
    }

    pub(crate) fn scalar(&mut self) -> Scalar {
        Scalar::from_limbs_reduce(&[self.next(), self.next(), self.next(), self.next() >> 1])
    }
}
