//! GT, the order-n subgroup of Fp12* (inside the cyclotomic subgroup, so
//! squaring is Granger–Scott's and inversion is conjugation), and its
//! exponentiations: constant-time fixed window for secret exponents and a
//! fixed-base comb table for a fixed element (g of a master public key).

use super::fp::Fn;
use super::fp12::Fp12;
use super::window::{mul_fixed_window, FixedBaseTable, WindowGroup};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

/// An element of GT (always the output of a final exponentiation or a
/// product/power of such).
#[derive(Clone, Copy, Debug, Default)]
pub struct Gt(pub Fp12);

impl ConditionallySelectable for Gt {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Gt(Fp12::conditional_select(&a.0, &b.0, c))
    }
}

impl Zeroize for Gt {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl WindowGroup for Gt {
    fn identity() -> Self {
        Gt(Fp12::ONE)
    }
    fn dbl(&self) -> Self {
        Gt(self.0.cyclotomic_square())
    }
    fn add_w(&self, o: &Self) -> Self {
        Gt(self.0.mul(&o.0))
    }
}

impl Gt {
    pub fn mul(&self, o: &Self) -> Self {
        Gt(self.0.mul(&o.0))
    }

    /// self^k for a secret k, constant time.
    pub fn pow_ct(&self, k: &Fn) -> Self {
        let mut l = k.to_canonical();
        let r = mul_fixed_window(self, &l);
        l.zeroize();
        r
    }

    pub fn to_bytes(&self) -> [u8; 384] {
        self.0.to_bytes()
    }

    /// self^k via a fixed-base table of self.
    pub fn pow_table(t: &GtTable, k: &Fn) -> Self {
        let mut l = k.to_canonical();
        let r = t.mul_ct(&l);
        l.zeroize();
        r
    }
}

/// Fixed-base table for powers of one GT element.
pub type GtTable = FixedBaseTable<Gt>;
