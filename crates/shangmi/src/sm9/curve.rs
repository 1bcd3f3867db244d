//! Short-Weierstrass points y² = x³ + b (a = 0) in Jacobian coordinates,
//! generic over the coordinate field so G1 (over Fp) and G2 (over Fp2, the
//! M-type twist) share one set of formulas.
//!
//! (X, Y, Z) stands for (X/Z², Y/Z³); Z = 0 is the point at infinity.

use super::fp::Fp;
use super::fp2::Fp2;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// What the point formulas need from a coordinate field.
pub trait CurveField: Copy + ConditionallySelectable + ConstantTimeEq + Zeroize + core::fmt::Debug + Default {
    const ZERO: Self;
    const ONE: Self;
    fn add(&self, o: &Self) -> Self;
    fn sub(&self, o: &Self) -> Self;
    fn mul(&self, o: &Self) -> Self;
    fn square(&self) -> Self;
    fn double(&self) -> Self;
    fn neg(&self) -> Self;
    fn invert(&self) -> Self;
    fn invert_vartime(&self) -> Self;
    fn is_zero(&self) -> Choice;
}

macro_rules! curve_field {
    ($t:ty) => {
        impl CurveField for $t {
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

/// A curve: its coordinate field and coefficient b.
pub trait Curve: Copy + Clone + core::fmt::Debug + 'static {
    type F: CurveField;
    /// The coefficient b of y² = x³ + b.
    fn b() -> Self::F;
}

/// An affine point (x, y); never the point at infinity (which has no
/// affine form here: encodings of it are refused).
#[derive(Clone, Copy, Debug, Default)]
pub struct Affine<F: CurveField> {
    pub x: F,
    pub y: F,
}

impl<F: CurveField> Zeroize for Affine<F> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
    }
}

impl<F: CurveField> ConditionallySelectable for Affine<F> {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Affine { x: F::conditional_select(&a.x, &b.x, c), y: F::conditional_select(&a.y, &b.y, c) }
    }
}

impl<F: CurveField> Affine<F> {
    /// y² = x³ + b.
    pub fn is_on_curve<C: Curve<F = F>>(&self) -> Choice {
        let rhs = self.x.square().mul(&self.x).add(&C::b());
        self.y.square().ct_eq(&rhs)
    }

    pub fn neg(&self) -> Self {
        Affine { x: self.x, y: self.y.neg() }
    }

    pub fn to_jacobian(&self) -> Jacobian<F> {
        Jacobian { x: self.x, y: self.y, z: F::ONE }
    }
}

/// A point in Jacobian coordinates.
#[derive(Clone, Copy, Debug, Default)]
pub struct Jacobian<F: CurveField> {
    pub x: F,
    pub y: F,
    pub z: F,
}

impl<F: CurveField> Zeroize for Jacobian<F> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

impl<F: CurveField> ConditionallySelectable for Jacobian<F> {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Jacobian {
            x: F::conditional_select(&a.x, &b.x, c),
            y: F::conditional_select(&a.y, &b.y, c),
            z: F::conditional_select(&a.z, &b.z, c),
        }
    }
}

impl<F: CurveField> Jacobian<F> {
    pub const IDENTITY: Self = Jacobian { x: F::ONE, y: F::ONE, z: F::ZERO };

    pub fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    pub fn neg(&self) -> Self {
        Jacobian { x: self.x, y: self.y.neg(), z: self.z }
    }

    /// 2·self (dbl-2009-l, a = 0): 2M + 5S; the identity maps to itself.
    pub fn double(&self) -> Self {
        let a = self.x.square();
        let b = self.y.square();
        let c = b.square();
        let d = self.x.add(&b).square().sub(&a).sub(&c).double();
        let e = a.double().add(&a);
        let f = e.square();
        let x3 = f.sub(&d.double());
        let c8 = c.double().double().double();
        let y3 = e.mul(&d.sub(&x3)).sub(&c8);
        let z3 = self.y.mul(&self.z).double();
        Jacobian { x: x3, y: y3, z: z3 }
    }

    /// self + o (add-2007-bl) for self ≠ ±o, either may be the identity
    /// (handled by constant-time selection). Callers guarantee self ≠ ±o
    /// when both are finite (fixed-window multiplication by a scalar < n
    /// never meets that case); [`Jacobian::add`] handles every case.
    pub fn add_distinct(&self, o: &Self) -> Self {
        let z1z1 = self.z.square();
        let z2z2 = o.z.square();
        let u1 = self.x.mul(&z2z2);
        let u2 = o.x.mul(&z1z1);
        let s1 = self.y.mul(&o.z).mul(&z2z2);
        let s2 = o.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&u1);
        let i = h.double().square();
        let j = h.mul(&i);
        let r = s2.sub(&s1).double();
        let v = u1.mul(&i);
        let x3 = r.square().sub(&j).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&s1.mul(&j).double());
        let z3 = self.z.add(&o.z).square().sub(&z1z1).sub(&z2z2).mul(&h);
        let sum = Jacobian { x: x3, y: y3, z: z3 };
        let t = Self::conditional_select(&sum, o, self.is_identity());
        Self::conditional_select(&t, self, o.is_identity())
    }

    /// self + o in every case (doubling and opposite points included), constant time.
    pub fn add(&self, o: &Self) -> Self {
        let sum = self.add_distinct(o);
        let dbl = self.double();
        // Same x and y (as projective values) and both finite: doubling.
        let z1z1 = self.z.square();
        let z2z2 = o.z.square();
        let same_x = self.x.mul(&z2z2).ct_eq(&o.x.mul(&z1z1));
        let same_y = self.y.mul(&o.z).mul(&z2z2).ct_eq(&o.y.mul(&self.z).mul(&z1z1));
        let finite = !self.is_identity() & !o.is_identity();
        let r = Self::conditional_select(&sum, &dbl, finite & same_x & same_y);
        Self::conditional_select(&r, &Self::IDENTITY, finite & same_x & !same_y)
    }

    /// The affine form, or `None` for the identity (constant time up to that outcome).
    pub fn to_affine(&self) -> Option<Affine<F>> {
        let zi = self.z.invert();
        let zi2 = zi.square();
        let a = Affine { x: self.x.mul(&zi2), y: self.y.mul(&zi2).mul(&zi) };
        (!bool::from(self.is_identity())).then_some(a)
    }

    /// The affine form and whether self is the identity (then the affine
    /// value is meaningless), with no branch: for secret points.
    pub fn to_affine_masked(&self) -> (Affine<F>, Choice) {
        let zi = self.z.invert();
        let zi2 = zi.square();
        (Affine { x: self.x.mul(&zi2), y: self.y.mul(&zi2).mul(&zi) }, self.is_identity())
    }

    /// A point about to be published (a public key, a signature's S, C1):
    /// the affine form, declassified for the constant-time check, or `None`
    /// for the identity.
    pub fn to_affine_public(&self) -> Option<Affine<F>> {
        let (a, inf) = self.to_affine_masked();
        if crate::ctime::public_bool(inf) {
            return None;
        }
        crate::ctime::declassify(&a);
        Some(a)
    }

    /// [`Jacobian::to_affine`] with a variable-time inversion: public points only.
    pub fn to_affine_vartime(&self) -> Option<Affine<F>> {
        if bool::from(self.is_identity()) {
            return None;
        }
        let zi = self.z.invert_vartime();
        let zi2 = zi.square();
        Some(Affine { x: self.x.mul(&zi2), y: self.y.mul(&zi2).mul(&zi) })
    }

    /// Equality as points (constant time).
    pub fn ct_eq_point(&self, o: &Self) -> Choice {
        let z1z1 = self.z.square();
        let z2z2 = o.z.square();
        let same_x = self.x.mul(&z2z2).ct_eq(&o.x.mul(&z1z1));
        let same_y = self.y.mul(&o.z).mul(&z2z2).ct_eq(&o.y.mul(&self.z).mul(&z1z1));
        let both_inf = self.is_identity() & o.is_identity();
        let none_inf = !self.is_identity() & !o.is_identity();
        both_inf | (none_inf & same_x & same_y)
    }

    /// [k]self for a public scalar (little-endian limbs of any length, any
    /// value): plain double-and-add with complete additions, variable time.
    pub fn mul_vartime(&self, k: &[u64]) -> Self {
        let mut acc = Self::IDENTITY;
        for limb in k.iter().rev() {
            for i in (0..64).rev() {
                acc = acc.double();
                if (limb >> i) & 1 == 1 {
                    acc = acc.add(self);
                }
            }
        }
        acc
    }
}
