//! Short-Weierstrass points y² = x³ + a·x + b in Jacobian coordinates, the
//! formulas written once, generic over the coordinate field and the curve
//! coefficient a (a = −3 for SM2, a = 0 for SM9's G1 over Fp and G2 over
//! Fp2).
//!
//! (X, Y, Z) stands for (X/Z², Y/Z³); Z = 0 is the point at infinity.
//!
//! The names and signatures follow `sm9/curve.rs` (`CurveField`, `Curve`,
//! `Affine`, `Jacobian`), so SM9 can re-export this module and keep its
//! impls. Two additions: each coordinate field states the coefficient a of
//! the curve its points lie on ([`CurveField::A`]; every field here carries
//! exactly one curve), and every formula has a `_with` form taking a
//! [`MulBackend`] (a zero-sized value, chosen once per operation by
//! `with_mul!`), so a field whose products are Montgomery products
//! (`arith::Fe`, overriding [`CurveField::mul_with`]) keeps the backend
//! selected once per operation rather than once per product. A field may also override a formula
//! ([`CurveField::double_point`], [`CurveField::add_mixed_point`]) with a
//! kernel of its own, which then reaches every caller.
//!
//! Every function here runs in constant time (no branch or index on the
//! coordinates) except those named `_vartime`.

use super::{with_mul, MulBackend};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// The coefficient a of y² = x³ + a·x + b, as far as the formulas use it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coeff {
    /// a = 0 (SM9's G1 and G2).
    Zero,
    /// a = −3 (SM2).
    MinusThree,
}

/// What the point formulas need from a coordinate field.
pub trait CurveField: Copy + ConditionallySelectable + ConstantTimeEq + Zeroize + core::fmt::Debug + Default {
    const ZERO: Self;
    const ONE: Self;
    /// The coefficient a of the curve whose points use this field.
    const A: Coeff;
    fn add(&self, o: &Self) -> Self;
    fn sub(&self, o: &Self) -> Self;
    fn mul(&self, o: &Self) -> Self;
    fn square(&self) -> Self;
    fn double(&self) -> Self;
    fn neg(&self) -> Self;
    fn invert(&self) -> Self;
    fn invert_vartime(&self) -> Self;
    fn is_zero(&self) -> Choice;

    /// self·o with the products of backend `b`; the default ignores `b`
    /// (fields whose products dispatch by themselves, such as towers).
    #[inline(always)]
    fn mul_with<B: MulBackend>(&self, _b: B, o: &Self) -> Self {
        self.mul(o)
    }

    /// self² with backend `b` (default: ignores `b`).
    #[inline(always)]
    fn square_with<B: MulBackend>(&self, _b: B) -> Self {
        self.square()
    }

    /// 2·p; a field may override it with its own kernel computing a
    /// Jacobian triple of the same point (infinity maps to infinity).
    #[inline(always)]
    fn double_point<B: MulBackend>(b: B, p: &Jacobian<Self>) -> Jacobian<Self> {
        double_generic(b, p)
    }

    /// p + q (q affine) with the flags (H == 0, R == 0), which together say
    /// p == q and H == 0 alone p == −q; the sum is meaningless when p is
    /// infinity or H == 0. A field may override it (same contract).
    #[inline(always)]
    fn add_mixed_point<B: MulBackend>(b: B, p: &Jacobian<Self>, q: &Affine<Self>) -> (Jacobian<Self>, Choice, Choice) {
        add_mixed_generic(b, p, q)
    }
}

/// A curve: its coordinate field and coefficients.
pub trait Curve: Copy + Clone + core::fmt::Debug + 'static {
    type F: CurveField;
    /// The coefficient a (the one the field states).
    const A: Coeff = <Self::F as CurveField>::A;
    /// The coefficient b of y² = x³ + a·x + b.
    fn b() -> Self::F;
}

/// An affine point (x, y); never the point at infinity (which has no
/// affine form here: encodings of it are refused). C layout, x then y.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
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
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Affine { x: F::conditional_select(&a.x, &b.x, c), y: F::conditional_select(&a.y, &b.y, c) }
    }
}

impl<F: CurveField> Affine<F> {
    /// y² = x³ + a·x + b.
    pub fn is_on_curve<C: Curve<F = F>>(&self) -> Choice {
        let x3 = self.x.square().mul(&self.x);
        let rhs = match C::A {
            Coeff::Zero => x3,
            Coeff::MinusThree => x3.sub(&self.x.double().add(&self.x)),
        }
        .add(&C::b());
        self.y.square().ct_eq(&rhs)
    }

    /// (x, −y).
    pub fn neg(&self) -> Self {
        Affine { x: self.x, y: self.y.neg() }
    }

    /// (x, y, 1).
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
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Jacobian {
            x: F::conditional_select(&a.x, &b.x, c),
            y: F::conditional_select(&a.y, &b.y, c),
            z: F::conditional_select(&a.z, &b.z, c),
        }
    }
}

/// 2·p from the textbook formulas: a = 0, dbl-2009-l (2M + 5S); a = −3,
/// dbl-2001-b (3M + 5S: α = 3(X − Z²)(X + Z²), β = XY², X3 = α² − 8β,
/// Z3 = (Y + Z)² − Y² − Z², Y3 = α(4β − X3) − 8Y⁴). Infinity (Z = 0) maps
/// to Z3 = 0.
#[inline(always)]
pub fn double_generic<F: CurveField, B: MulBackend>(b: B, p: &Jacobian<F>) -> Jacobian<F> {
    match F::A {
        Coeff::Zero => {
            let a = p.x.square_with(b);
            let bb = p.y.square_with(b);
            let c = bb.square_with(b);
            let d = p.x.add(&bb).square_with(b).sub(&a).sub(&c).double();
            let e = a.double().add(&a);
            let f = e.square_with(b);
            let x3 = f.sub(&d.double());
            let c8 = c.double().double().double();
            let y3 = e.mul_with(b, &d.sub(&x3)).sub(&c8);
            let z3 = p.y.mul_with(b, &p.z).double();
            Jacobian { x: x3, y: y3, z: z3 }
        }
        Coeff::MinusThree => {
            let delta = p.z.square_with(b);
            let gamma = p.y.square_with(b);
            let beta = p.x.mul_with(b, &gamma);
            let t = p.x.sub(&delta).mul_with(b, &p.x.add(&delta));
            let alpha = t.double().add(&t);
            let beta4 = beta.double().double();
            let x3 = alpha.square_with(b).sub(&beta4.double());
            let z3 = p.y.add(&p.z).square_with(b).sub(&gamma).sub(&delta);
            let g8 = gamma.square_with(b).double().double().double();
            let y3 = alpha.mul_with(b, &beta4.sub(&x3)).sub(&g8);
            Jacobian { x: x3, y: y3, z: z3 }
        }
    }
}

/// p + q for an affine q (madd, 8M + 3S) with the flags (H == 0, R == 0):
/// U2 = x·Z², S2 = y·Z³, H = U2 − X, R = S2 − Y, X3 = R² − H³ − 2X·H²,
/// Y3 = R(X·H² − X3) − Y·H³, Z3 = Z·H. a-independent.
#[inline(always)]
pub fn add_mixed_generic<F: CurveField, B: MulBackend>(
    b: B,
    p: &Jacobian<F>,
    q: &Affine<F>,
) -> (Jacobian<F>, Choice, Choice) {
    let z1z1 = p.z.square_with(b);
    let u2 = q.x.mul_with(b, &z1z1);
    let s2 = q.y.mul_with(b, &p.z.mul_with(b, &z1z1));
    let h = u2.sub(&p.x);
    let r = s2.sub(&p.y);
    let hh = h.square_with(b);
    let hhh = h.mul_with(b, &hh);
    let v = p.x.mul_with(b, &hh);
    let x3 = r.square_with(b).sub(&hhh).sub(&v.double());
    let y3 = r.mul_with(b, &v.sub(&x3)).sub(&p.y.mul_with(b, &hhh));
    let z3 = p.z.mul_with(b, &h);
    (Jacobian { x: x3, y: y3, z: z3 }, h.is_zero(), r.is_zero())
}

/// 2p and p as Jacobian points sharing one Z (= 2y), for an affine p with
/// y ≠ 0 (every point but infinity on a curve of odd order). With
/// M = 3x² + a and S = 4xy²: 2p = (M² − 2S, M(S − X) − 8y⁴, 2y) and
/// p = (S, 8y⁴, 2y) (4S + 2M). Starts the co-Z chain of odd multiples.
#[inline(always)]
pub fn dblu_affine<F: CurveField, B: MulBackend>(b: B, p: &Affine<F>) -> (Jacobian<F>, Jacobian<F>) {
    let xx = p.x.square_with(b);
    let yy = p.y.square_with(b);
    let y4 = yy.square_with(b);
    let s = p.x.mul_with(b, &yy).double().double(); // 4xy²
    let m = match F::A {
        Coeff::Zero => xx,
        Coeff::MinusThree => xx.sub(&F::ONE),
    };
    let m = m.double().add(&m); // 3x² + a
    let y8 = y4.double().double().double(); // 8y⁴
    let x2 = m.square_with(b).sub(&s.double());
    let y2 = m.mul_with(b, &s.sub(&x2)).sub(&y8);
    let z = p.y.double();
    (Jacobian { x: x2, y: y2, z }, Jacobian { x: s, y: y8, z })
}

/// Co-Z addition (Meloni's ZADDU, 5M + 2S) of p and q sharing Z, p ≠ ±q:
/// returns p + q and p re-expressed with the sum's Z, which is Z·(Xp − Xq).
/// With C = (Xp − Xq)², W1 = Xp·C, W2 = Xq·C, D = (Yp − Yq)²,
/// A = Yp·(W1 − W2): X3 = D − W1 − W2, Y3 = (Yp − Yq)(W1 − X3) − A, and p
/// becomes (W1, A, Z3). a-independent.
#[inline(always)]
pub fn zaddu<F: CurveField, B: MulBackend>(b: B, p: &Jacobian<F>, q: &Jacobian<F>) -> (Jacobian<F>, Jacobian<F>) {
    let dx = p.x.sub(&q.x);
    let dy = p.y.sub(&q.y);
    let c = dx.square_with(b);
    let w1 = p.x.mul_with(b, &c);
    let w2 = q.x.mul_with(b, &c);
    let a = p.y.mul_with(b, &w1.sub(&w2));
    let x3 = dy.square_with(b).sub(&w1).sub(&w2);
    let y3 = dy.mul_with(b, &w1.sub(&x3)).sub(&a);
    let z3 = p.z.mul_with(b, &dx);
    (Jacobian { x: x3, y: y3, z: z3 }, Jacobian { x: w1, y: a, z: z3 })
}

/// P, 3P, ..., (2m − 1)P, affine, for a public P (m ≥ 1, 2m − 1 below the
/// order): a co-Z chain (Meloni; Longa–Gebotys for the inversion). 2P and P
/// come out sharing Z_0 = 2y; each co-Z addition (5M + 2S) gives
/// (2j + 1)P = (2j − 1)P + 2P with Z_j = Z_(j−1)·f_j, f_j = X(2P) − X((2j − 1)P),
/// and 2P re-expressed with that same Z_j for the next step. The Z's form a
/// chain, so one inversion of the last Z gives all of them backwards,
/// Z_(j−1)⁻¹ = Z_j⁻¹·f_j (1M each, against the 3M of a batch inversion).
/// Public data only: the inversion is the variable-time one.
pub fn odd_multiples_coz_vartime<F: CurveField>(p: &Affine<F>, m: usize) -> Vec<Affine<F>> {
    let mut jac = Vec::with_capacity(m);
    let mut f = Vec::with_capacity(m);
    with_mul!(|b| {
        let (mut two, mut cur) = dblu_affine(b, p);
        for _ in 1..m {
            f.push(two.x.sub(&cur.x));
            let (sum, two_same_z) = zaddu(b, &two, &cur);
            two = two_same_z;
            cur = sum;
            jac.push(cur);
        }
    });
    let mut out = vec![*p; m];
    if let Some(last) = jac.last() {
        let mut zi = last.z.invert_vartime();
        for j in (0..jac.len()).rev() {
            let zi2 = zi.square();
            out[j + 1] = Affine { x: jac[j].x.mul(&zi2), y: jac[j].y.mul(&zi2).mul(&zi) };
            zi = zi.mul(&f[j]);
        }
    }
    out
}

impl<F: CurveField> Jacobian<F> {
    pub const IDENTITY: Self = Jacobian { x: F::ONE, y: F::ONE, z: F::ZERO };

    /// Whether Z = 0.
    #[inline(always)]
    pub fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    /// −self.
    pub fn neg(&self) -> Self {
        Jacobian { x: self.x, y: self.y.neg(), z: self.z }
    }

    /// 2·self; the identity maps to itself.
    #[inline]
    pub fn double(&self) -> Self {
        with_mul!(|b| self.double_with(b))
    }

    /// [`Self::double`] with backend `b` (the field's kernel,
    /// [`CurveField::double_point`]).
    #[inline(always)]
    pub fn double_with<B: MulBackend>(&self, b: B) -> Self {
        F::double_point(b, self)
    }

    /// self + o (add-2007-bl) for self ≠ ±o, either may be the identity
    /// (handled by constant-time selection). Callers guarantee self ≠ ±o
    /// when both are finite; [`Jacobian::add`] handles every case.
    pub fn add_distinct(&self, o: &Self) -> Self {
        with_mul!(|b| self.add_distinct_with(b, o))
    }

    /// [`Self::add_distinct`] with backend `b` (11M + 5S).
    #[inline(always)]
    pub fn add_distinct_with<B: MulBackend>(&self, b: B, o: &Self) -> Self {
        let z1z1 = self.z.square_with(b);
        let z2z2 = o.z.square_with(b);
        let u1 = self.x.mul_with(b, &z2z2);
        let u2 = o.x.mul_with(b, &z1z1);
        let s1 = self.y.mul_with(b, &o.z).mul_with(b, &z2z2);
        let s2 = o.y.mul_with(b, &self.z).mul_with(b, &z1z1);
        let h = u2.sub(&u1);
        let i = h.double().square_with(b);
        let j = h.mul_with(b, &i);
        let r = s2.sub(&s1).double();
        let v = u1.mul_with(b, &i);
        let x3 = r.square_with(b).sub(&j).sub(&v.double());
        let y3 = r.mul_with(b, &v.sub(&x3)).sub(&s1.mul_with(b, &j).double());
        let z3 = self.z.add(&o.z).square_with(b).sub(&z1z1).sub(&z2z2).mul_with(b, &h);
        let sum = Jacobian { x: x3, y: y3, z: z3 };
        let t = Self::conditional_select(&sum, o, self.is_identity());
        Self::conditional_select(&t, self, o.is_identity())
    }

    /// self + o in every case (doubling and opposite points included), constant time.
    pub fn add(&self, o: &Self) -> Self {
        with_mul!(|b| self.add_with(b, o))
    }

    /// [`Self::add`] with backend `b`.
    #[inline(always)]
    pub fn add_with<B: MulBackend>(&self, b: B, o: &Self) -> Self {
        let sum = self.add_distinct_with(b, o);
        let dbl = self.double_with(b);
        // Same x and y (as projective values) and both finite: doubling.
        let z1z1 = self.z.square_with(b);
        let z2z2 = o.z.square_with(b);
        let same_x = self.x.mul_with(b, &z2z2).ct_eq(&o.x.mul_with(b, &z1z1));
        let same_y = self.y.mul_with(b, &o.z).mul_with(b, &z2z2).ct_eq(&o.y.mul_with(b, &self.z).mul_with(b, &z1z1));
        let finite = !self.is_identity() & !o.is_identity();
        let r = Self::conditional_select(&sum, &dbl, finite & same_x & same_y);
        Self::conditional_select(&r, &Self::IDENTITY, finite & same_x & !same_y)
    }

    /// self + q for an affine q in every case (self may be the identity;
    /// q == ±self handled), constant time.
    pub fn add_mixed(&self, q: &Affine<F>) -> Self {
        with_mul!(|b| self.add_mixed_with(b, q))
    }

    /// [`Self::add_mixed`] with backend `b`: the field's mixed addition
    /// ([`CurveField::add_mixed_point`]), the doubling of q selected when
    /// self == q, infinity when self == −q, q when self is the identity.
    #[inline(always)]
    pub fn add_mixed_with<B: MulBackend>(&self, b: B, q: &Affine<F>) -> Self {
        let (sum, h0, r0) = F::add_mixed_point(b, self, q);
        let qj = q.to_jacobian();
        let dbl = qj.double_with(b);
        let inf = self.is_identity();
        let r = Self::conditional_select(&sum, &dbl, h0 & r0 & !inf);
        let r = Self::conditional_select(&r, &Self::IDENTITY, h0 & !r0 & !inf);
        Self::conditional_select(&r, &qj, inf)
    }

    /// The affine form, or `None` for the identity (constant time up to that outcome).
    pub fn to_affine(&self) -> Option<Affine<F>> {
        let (a, inf) = self.to_affine_masked();
        (!bool::from(inf)).then_some(a)
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
        with_mul!(|b| {
            let mut acc = Self::IDENTITY;
            for limb in k.iter().rev() {
                for i in (0..64).rev() {
                    acc = acc.double_with(b);
                    if (limb >> i) & 1 == 1 {
                        acc = acc.add_with(b, self);
                    }
                }
            }
            acc
        })
    }
}

#[cfg(test)]
#[path = "curve_tests.rs"]
mod tests;
