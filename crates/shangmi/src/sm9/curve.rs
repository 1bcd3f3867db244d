//! SM9's G1 (over Fp) and G2 (over Fp2, the M-type twist): points of
//! y² = x³ + b (a = 0) with the formulas shared with SM2 in
//! [`crate::arith::curve`]; this file only says how SM9's fields provide
//! what those formulas need.
//!
//! (X, Y, Z) stands for (X/Z², Y/Z³); Z = 0 is the point at infinity.

use super::fp::Fp;
use super::fp2::Fp2;
pub use crate::arith::curve::*;
use subtle::Choice;

macro_rules! curve_field {
    ($t:ty) => {
        impl CurveField for $t {
            const A: Coeff = Coeff::Zero;
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            #[inline(always)]
            fn add(&self, o: &Self) -> Self {
                <$t>::add(self, o)
            }
            #[inline(always)]
            fn sub(&self, o: &Self) -> Self {
                <$t>::sub(self, o)
            }
            #[inline(always)]
            fn mul(&self, o: &Self) -> Self {
                <$t>::mul(self, o)
            }
            #[inline(always)]
            fn square(&self) -> Self {
                <$t>::square(self)
            }
            #[inline(always)]
            fn double(&self) -> Self {
                <$t>::double(self)
            }
            #[inline(always)]
            fn neg(&self) -> Self {
                <$t>::neg(self)
            }
            fn invert(&self) -> Self {
                <$t>::invert(self)
            }
            fn invert_vartime(&self) -> Self {
                <$t>::invert_vartime(self)
            }
            #[inline(always)]
            fn is_zero(&self) -> Choice {
                <$t>::is_zero(self)
            }
        }
    };
}
curve_field!(Fp);
curve_field!(Fp2);
