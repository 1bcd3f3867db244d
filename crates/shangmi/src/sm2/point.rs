//! SM2's points: the shared [`crate::arith::curve`] types over SM2's Fp
//! (y² = x³ − 3x + b), with what only SM2 needs.
//!
//! [`Affine`] and [`Jacobian`] are `curve::Affine<Fp>` and
//! `curve::Jacobian<Fp>`: one point type for SM2 and SM9. Jacobian
//! (X, Y, Z) represents (X/Z², Y/Z³); Z = 0 is the point at infinity.
//! Functions without `_vartime` run in constant time. Each formula is
//! generic over the [`crate::arith::MulBackend`] and called through
//! `with_mul!` once per operation.
//!
//! Doubling and mixed addition are the shared formulas (Fp is a
//! [`CurveField`] with a = −3); Fp overrides the doubling with SM2's own
//! scaled kernel ([`double_scaled`], see [`CurveField::double_point`] below
//! for why), which thereby reaches every caller of `Jacobian::double`. The
//! co-Z chain of odd multiples is shared too
//! ([`curve::odd_multiples_coz_vartime`]). What stays here: SM2's encodings
//! and generator (inherent methods on the shared types), the affine + affine
//! step and the no-select mixed addition of the comb and fixed-window
//! multiplications, the full Jacobian addition for public points, and the
//! batch conversions to affine.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]
// Points are 64–96 bytes: conversions borrow them rather than copy.
#![allow(clippy::wrong_self_convention)]

use super::field::{fp_half, sqrt_vartime, Fp, B_BYTES, GX_BYTES, GY_BYTES};
use crate::arith::curve::{self, Coeff, CurveField};
use crate::arith::{with_mul, MulBackend};
use subtle::{Choice, ConditionallySelectable};

/// An SM2 point in affine coordinates: the shared [`curve::Affine`] over
/// SM2's Fp (never the point at infinity; C layout x then y, 64 bytes,
/// which the AVX2 table scan relies on).
pub type Affine = curve::Affine<Fp>;

/// An SM2 point in Jacobian coordinates: the shared [`curve::Jacobian`].
pub type Jacobian = curve::Jacobian<Fp>;

/// SM2's curve y² = x³ − 3x + b over Fp, for the shared checks
/// ([`curve::Affine::is_on_curve`]).
#[derive(Clone, Copy, Debug)]
pub struct Sm2Curve;

impl curve::Curve for Sm2Curve {
    type F = Fp;
    fn b() -> Fp {
        curve_b()
    }
}

// SAFETY: repr(C) pair of Fp (each repr(transparent) over four u64), 64
// bytes, no padding, every bit pattern a valid value.
unsafe impl crate::arith::ScanEntry for Affine {}

/// SM2's Fp as a coordinate field of the shared formulas (a = −3).
impl CurveField for Fp {
    const ZERO: Self = Fp::ZERO;
    const ONE: Self = Fp::ONE;
    const A: Coeff = Coeff::MinusThree;
    #[inline(always)]
    fn add(&self, o: &Self) -> Self {
        Fp::add(self, o)
    }
    #[inline(always)]
    fn sub(&self, o: &Self) -> Self {
        Fp::sub(self, o)
    }
    #[inline(always)]
    fn mul(&self, o: &Self) -> Self {
        Fp::mul(self, o)
    }
    #[inline(always)]
    fn square(&self) -> Self {
        Fp::square(self)
    }
    #[inline(always)]
    fn double(&self) -> Self {
        Fp::double(self)
    }
    #[inline(always)]
    fn neg(&self) -> Self {
        Fp::neg(self)
    }
    fn invert(&self) -> Self {
        Fp::invert(self)
    }
    fn invert_vartime(&self) -> Self {
        Fp::invert_vartime(self)
    }
    #[inline(always)]
    fn is_zero(&self) -> Choice {
        Fp::is_zero(self)
    }
    #[inline(always)]
    fn mul_with<B: MulBackend>(&self, b: B, o: &Self) -> Self {
        b.mul(self, o)
    }
    #[inline(always)]
    fn square_with<B: MulBackend>(&self, b: B) -> Self {
        b.sqr(self)
    }
    /// SM2 keeps its scaled doubling ([`double_scaled`]): the same 4M + 4S
    /// class as the shared a = −3 formula (3M + 5S) but two fewer field
    /// additions and no 8·Y⁴; the shared one measured slower here (the
    /// ratio is in bench/NOTES.md), and doublings dominate k·P and s·G + t·P.
    #[inline(always)]
    fn double_point<B: MulBackend>(b: B, p: &Jacobian) -> Jacobian {
        double_scaled(b, p)
    }
}

/// The curve coefficient b in Montgomery form.
#[inline]
pub fn curve_b() -> Fp {
    Fp::from_be_bytes(&B_BYTES).unwrap()
}

/// SM2-specific constructors and encodings of the shared affine type.
impl curve::Affine<Fp> {
    /// The base point G.
    pub fn generator() -> Self {
        Affine { x: Fp::from_be_bytes(&GX_BYTES).unwrap(), y: Fp::from_be_bytes(&GY_BYTES).unwrap() }
    }

    /// Decodes x‖y (each 32 bytes big-endian): coordinates < p and on the curve.
    /// (The point at infinity has no affine encoding, so it can't come out.)
    pub fn from_xy_vartime(x: &[u8; 32], y: &[u8; 32]) -> Result<Self, &'static str> {
        let xf = Option::<Fp>::from(Fp::from_be_bytes(x)).ok_or("x coordinate is not less than p")?;
        let yf = Option::<Fp>::from(Fp::from_be_bytes(y)).ok_or("y coordinate is not less than p")?;
        let p = Affine { x: xf, y: yf };
        if bool::from(p.is_on_curve::<Sm2Curve>()) {
            Ok(p)
        } else {
            Err("point is not on the SM2 curve")
        }
    }

    /// Decodes a compressed point: x and the parity of y.
    pub fn decompress_vartime(x: &[u8; 32], y_odd: bool) -> Result<Self, &'static str> {
        let xf = Option::<Fp>::from(Fp::from_be_bytes(x)).ok_or("x coordinate is not less than p")?;
        let rhs = xf.square().sub(&Fp::ONE.double().add(&Fp::ONE)).mul(&xf).add(&curve_b());
        let y = sqrt_vartime(&rhs).ok_or("x is not the coordinate of a point on the SM2 curve")?;
        let odd = y.to_be_bytes()[31] & 1 == 1;
        let y = if odd == y_odd { y } else { y.neg() };
        Ok(Affine { x: xf, y })
    }

    /// 04‖x‖y.
    pub fn to_uncompressed(&self) -> [u8; 65] {
        let mut out = [0u8; 65];
        out[0] = 4;
        out[1..33].copy_from_slice(&self.x.to_be_bytes());
        out[33..].copy_from_slice(&self.y.to_be_bytes());
        out
    }
}

/// SM2's public-point addition on the shared Jacobian type.
impl curve::Jacobian<Fp> {
    /// self + q for public points, every case handled by branching.
    pub fn add_vartime(&self, q: &Jacobian) -> Jacobian {
        if bool::from(self.is_identity()) {
            return *q;
        }
        if bool::from(q.is_identity()) {
            return *self;
        }
        let (sum, h0, r0) = with_mul!(|b| add_raw(b, self, q));
        if bool::from(h0) {
            return if bool::from(r0) { self.double() } else { Jacobian::IDENTITY };
        }
        sum
    }
}

/// SM2's doubling kernel (Fp's [`CurveField::double_point`]). The textbook a = −3 doubling (S = 4XY²,
/// M = 3(X − Z²)(X + Z²), X3 = M² − 2S, Y3 = M(S − X3) − 8Y⁴, Z3 = 2YZ) is
/// computed scaled by λ = 1/2, i.e. as the equivalent Jacobian triple
/// (X3/4, Y3/8, Z3/2) of the same point: with M' = M/2 = t + t/2 for
/// t = (X − Z²)(X + Z²), S' = S/4 = XY²,
/// X3' = M'² − 2S', Y3' = M'(S' − X3') − Y⁴, Z3' = YZ
/// (check: M'(S' − X3') = M(S − X3)/8). Same 4M + 4S, but 8 additions-class
/// operations instead of 10: no 2Y, and 3/2·t = t + t/2 replaces 3t and
/// the halving of 16Y⁴. Infinity (Z = 0) maps to Z3' = 0.
///
/// Always inlined: called out of line, its result came back through memory
/// written with 8-byte stores and was reloaded by the caller's chain with
/// 16-byte loads, a store-forwarding stall on every doubling of verify's
/// s·G + t·P chain (about 3% of a verify; 2026-12-06, AMD EPYC Zen 4).
#[inline(always)]
pub fn double_scaled<B: MulBackend>(b: B, p: &Jacobian) -> Jacobian {
    let zz = b.sqr(&p.z); // Z²
    let yy = b.sqr(&p.y); // Y²
    let z3 = b.mul(&p.y, &p.z); // YZ
    let t = b.mul(&p.x.add(&zz), &p.x.sub(&zz)); // X² − Z⁴
    let m = t.add(&fp_half(&t)); // 3(X² − Z⁴)/2
    let s = b.mul(&p.x, &yy); // XY²
    let y4 = b.sqr(&yy); // Y⁴
                         // 2S' is formed off the critical path (S' is ready long before M'²).
    let x3 = b.sqr(&m).sub(&s.double());
    let y3 = b.mul(&m, &s.sub(&x3)).sub(&y4);
    Jacobian { x: x3, y: y3, z: z3 }
}

/// 2·p (see [`Jacobian::double`]): the shared doubling, i.e. Fp's kernel.
#[inline(always)]
pub fn double<B: MulBackend>(b: B, p: &Jacobian) -> Jacobian {
    double_scaled(b, p)
}

/// Mixed addition core (8M + 3S, the shared formula): returns the sum and
/// the flags (H == 0, R == 0) signalling P == ±Q. Garbage when p is
/// infinity.
#[inline(always)]
fn add_mixed_raw<B: MulBackend>(b: B, p: &Jacobian, q: &Affine) -> (Jacobian, Choice, Choice) {
    Fp::add_mixed_point(b, p, q)
}

/// p + q in constant time, where q is ignored (treated as infinity) when
/// `q_is_zero`; handles p = infinity; p == q only when `complete` (then the
/// doubling is computed too and selected). The tests' reference for the
/// faster additions.
#[cfg(test)]
pub fn add_mixed_complete<B: MulBackend>(
    b: B,
    p: &Jacobian,
    q: &Affine,
    q_is_zero: Choice,
    complete: bool,
) -> Jacobian {
    let (mut sum, h0, r0) = add_mixed_raw(b, p, q);
    if complete {
        let dbl = double(b, &q.to_jacobian());
        sum = Jacobian::conditional_select(&sum, &dbl, h0 & r0 & !p.is_identity());
    }
    let sum = Jacobian::conditional_select(&sum, &q.to_jacobian(), p.is_identity());
    Jacobian::conditional_select(&sum, p, q_is_zero)
}

/// p + q (affine) for public points, every case handled by branching.
#[inline(always)]
pub fn add_mixed_vartime<B: MulBackend>(b: B, p: &Jacobian, q: &Affine) -> Jacobian {
    if bool::from(p.is_identity()) {
        return q.to_jacobian();
    }
    let (sum, h0, r0) = add_mixed_raw(b, p, q);
    if bool::from(h0) {
        // P == Q is rare: the out-of-line doubling keeps the inlined kernel
        // out of the comb's loop (measured: prepared-key verify 1.5% slower
        // with it inlined here).
        return if bool::from(r0) { q.to_jacobian().double() } else { Jacobian::IDENTITY };
    }
    sum
}

/// p + q for a p that is never the point at infinity and a q that is never
/// −p (8M + 3S, no selects), for the odd-digit scalar multiplications of
/// `ecmult_gen` and `ecmult_const`, whose comments prove when these cases can't arise. p == q can
/// happen only where `complete` is set: then 2q is computed too and selected
/// in constant time. (p == −q needs nothing: H = 0 makes Z3 = Z1·H = 0, the
/// point at infinity, which is the right answer.)
#[inline(always)]
pub fn add_mixed<B: MulBackend>(b: B, p: &Jacobian, q: &Affine, complete: bool) -> Jacobian {
    let (sum, h0, r0) = add_mixed_raw(b, p, q);
    if complete {
        // 2q from the affine q directly (4S + 2M, no multiplications by Z = 1).
        let dbl = curve::dblu_affine(b, q).0;
        return Jacobian::conditional_select(&sum, &dbl, h0 & r0);
    }
    sum
}

/// p + q for affine p and q with p ≠ ±q (the caller proves it): the mixed
/// addition with Z1 = 1, 4M + 2S. With H = x2 − x1, R = y2 − y1:
/// X3 = R² − H³ − 2·x1·H², Y3 = R(x1·H² − X3) − y1·H³, Z3 = H.
#[inline]
pub fn add_affine<B: MulBackend>(b: B, p: &Affine, q: &Affine) -> Jacobian {
    let h = q.x.sub(&p.x);
    let r = q.y.sub(&p.y);
    let hh = b.sqr(&h);
    let hhh = b.mul(&h, &hh);
    let v = b.mul(&p.x, &hh);
    let x3 = b.sqr(&r).sub(&hhh).sub(&v.double());
    let y3 = b.mul(&r, &v.sub(&x3)).sub(&b.mul(&p.y, &hhh));
    Jacobian { x: x3, y: y3, z: h }
}

/// Full Jacobian addition core (12M + 4S) with the (H == 0, R == 0) flags.
#[inline(always)]
fn add_raw<B: MulBackend>(b: B, p: &Jacobian, q: &Jacobian) -> (Jacobian, Choice, Choice) {
    let z1z1 = b.sqr(&p.z);
    let z2z2 = b.sqr(&q.z);
    let u1 = b.mul(&p.x, &z2z2);
    let u2 = b.mul(&q.x, &z1z1);
    let s1 = b.mul(&p.y, &b.mul(&q.z, &z2z2));
    let s2 = b.mul(&q.y, &b.mul(&p.z, &z1z1));
    let h = u2.sub(&u1);
    let r = s2.sub(&s1);
    let hh = b.sqr(&h);
    let hhh = b.mul(&h, &hh);
    let v = b.mul(&u1, &hh);
    let x3 = b.sqr(&r).sub(&hhh).sub(&v.double());
    let y3 = b.mul(&r, &v.sub(&x3)).sub(&b.mul(&s1, &hhh));
    let z3 = b.mul(&b.mul(&p.z, &q.z), &h);
    (Jacobian { x: x3, y: y3, z: z3 }, h.is_zero(), r.is_zero())
}

/// p + q in constant time, either operand at infinity; p == q only when
/// `complete`. The tests' reference for the faster additions.
#[cfg(test)]
pub fn add_complete<B: MulBackend>(b: B, p: &Jacobian, q: &Jacobian, complete: bool) -> Jacobian {
    let (mut sum, h0, r0) = add_raw(b, p, q);
    let p_inf = p.is_identity();
    let q_inf = q.is_identity();
    if complete {
        let dbl = double(b, p);
        sum = Jacobian::conditional_select(&sum, &dbl, h0 & r0 & !p_inf & !q_inf);
    }
    let sum = Jacobian::conditional_select(&sum, q, p_inf);
    Jacobian::conditional_select(&sum, p, q_inf)
}

/// Converts many Jacobian points to affine with one inversion (points at
/// infinity come out as (0, 0)).
pub fn batch_to_affine(points: &[Jacobian]) -> Vec<Affine> {
    let mut zs: Vec<Fp> = points.iter().map(|p| p.z).collect();
    crate::arith::batch_invert(&mut zs);
    finish_batch(points, &zs)
}

/// [`batch_to_affine`] for public points (variable-time inversion).
pub fn batch_to_affine_vartime(points: &[Jacobian]) -> Vec<Affine> {
    let mut zs: Vec<Fp> = points.iter().map(|p| p.z).collect();
    crate::arith::batch_invert_vartime(&mut zs);
    finish_batch(points, &zs)
}

/// (X·Z⁻², Y·Z⁻³) given the inverses.
fn finish_batch(points: &[Jacobian], zs: &[Fp]) -> Vec<Affine> {
    points
        .iter()
        .zip(zs.iter())
        .map(|(p, zi)| {
            let zi2 = zi.square();
            Affine { x: p.x.mul(&zi2), y: p.y.mul(&zi2).mul(zi) }
        })
        .collect()
}

#[cfg(test)]
#[path = "point_tests.rs"]
mod tests;
