//! Points of y² = x³ − 3x + b over Fp: affine and Jacobian coordinates.
//!
//! Jacobian (X, Y, Z) represents (X/Z², Y/Z³); Z = 0 is the point at
//! infinity. Functions without `_vartime` run in constant time.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::field::{sqrt_vartime, Fp, B_BYTES, GX_BYTES, GY_BYTES};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// An affine point, never the point at infinity.
#[derive(Clone, Copy, Debug, Default)]
// C layout: x then y, 64 bytes, which the AVX2 table scan relies on.
#[repr(C)]
pub struct Affine {
    pub x: Fp,
    pub y: Fp,
}

/// A Jacobian point.
#[derive(Clone, Copy, Debug, Default)]
pub struct Jacobian {
    pub x: Fp,
    pub y: Fp,
    pub z: Fp,
}

impl Zeroize for Affine {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
    }
}

impl Zeroize for Jacobian {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

impl ConditionallySelectable for Affine {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Affine { x: Fp::conditional_select(&a.x, &b.x, c), y: Fp::conditional_select(&a.y, &b.y, c) }
    }
}

impl ConditionallySelectable for Jacobian {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Jacobian {
            x: Fp::conditional_select(&a.x, &b.x, c),
            y: Fp::conditional_select(&a.y, &b.y, c),
            z: Fp::conditional_select(&a.z, &b.z, c),
        }
    }
}

/// The curve coefficient b in Montgomery form.
#[inline]
pub fn curve_b() -> Fp {
    Fp::from_be_bytes(&B_BYTES).unwrap()
}

impl Affine {
    /// The base point G.
    pub fn generator() -> Self {
        Affine { x: Fp::from_be_bytes(&GX_BYTES).unwrap(), y: Fp::from_be_bytes(&GY_BYTES).unwrap() }
    }

    /// y² == x³ − 3x + b.
    pub fn is_on_curve(&self) -> Choice {
        let rhs = self.x.square().sub(&Fp::ONE.double().add(&Fp::ONE)).mul(&self.x).add(&curve_b());
        self.y.square().ct_eq(&rhs)
    }

    /// Decodes x‖y (each 32 bytes big-endian): coordinates < p and on the curve.
    /// (The point at infinity has no affine encoding, so it can't come out.)
    pub fn from_xy_vartime(x: &[u8; 32], y: &[u8; 32]) -> Result<Self, &'static str> {
        let xf = Option::<Fp>::from(Fp::from_be_bytes(x)).ok_or("x coordinate is not less than p")?;
        let yf = Option::<Fp>::from(Fp::from_be_bytes(y)).ok_or("y coordinate is not less than p")?;
        let p = Affine { x: xf, y: yf };
        if bool::from(p.is_on_curve()) {
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

    pub fn to_jacobian(&self) -> Jacobian {
        Jacobian { x: self.x, y: self.y, z: Fp::ONE }
    }

    pub fn neg(&self) -> Self {
        Affine { x: self.x, y: self.y.neg() }
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

impl Jacobian {
    /// The point at infinity.
    pub const INFINITY: Jacobian = Jacobian { x: Fp::ONE, y: Fp::ONE, z: Fp::ZERO };

    #[inline(always)]
    pub fn is_infinity(&self) -> Choice {
        self.z.is_zero()
    }

    /// 2·P with a = −3 (dbl-2001-b: 3M + 5S). Infinity maps to infinity.
    #[inline]
    pub fn double(&self) -> Jacobian {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x.mul(&gamma);
        let t = self.x.sub(&delta).mul(&self.x.add(&delta));
        let alpha = t.double().add(&t);
        let beta4 = beta.double().double();
        let x3 = alpha.square().sub(&beta4.double());
        let z3 = self.y.add(&self.z).square().sub(&gamma).sub(&delta);
        let g2 = gamma.square();
        let y3 = alpha.mul(&beta4.sub(&x3)).sub(&g2.double().double().double());
        Jacobian { x: x3, y: y3, z: z3 }
    }

    /// Mixed addition core (8M + 3S): returns the sum and the flags
    /// (H == 0, R == 0) signalling P == ±Q. Garbage when self is infinity.
    #[inline(always)]
    fn add_mixed_raw(&self, q: &Affine) -> (Jacobian, Choice, Choice) {
        let z1z1 = self.z.square();
        let u2 = q.x.mul(&z1z1);
        let s2 = q.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&self.x);
        let r = s2.sub(&self.y);
        let hh = h.square();
        let hhh = h.mul(&hh);
        let v = self.x.mul(&hh);
        let x3 = r.square().sub(&hhh).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&self.y.mul(&hhh));
        let z3 = self.z.mul(&h);
        (Jacobian { x: x3, y: y3, z: z3 }, h.is_zero(), r.is_zero())
    }

    /// self + q in constant time, where q is ignored (treated as infinity)
    /// when `q_is_zero`. Handles self = infinity. Does NOT handle self == q
    /// (the caller proves it can't happen) unless `complete` is set, in which
    /// case the doubling is computed too and selected.
    #[inline(always)]
    pub fn add_mixed_ct(&self, q: &Affine, q_is_zero: Choice, complete: bool) -> Jacobian {
        let (mut sum, h0, r0) = self.add_mixed_raw(q);
        if complete {
            let dbl = q.to_jacobian().double();
            sum = Jacobian::conditional_select(&sum, &dbl, h0 & r0 & !self.is_infinity());
        }
        let sum = Jacobian::conditional_select(&sum, &q.to_jacobian(), self.is_infinity());
        Jacobian::conditional_select(&sum, self, q_is_zero)
    }

    /// Full Jacobian addition core (12M + 4S) with the (H == 0, R == 0) flags.
    #[inline(always)]
    fn add_raw(&self, q: &Jacobian) -> (Jacobian, Choice, Choice) {
        let z1z1 = self.z.square();
        let z2z2 = q.z.square();
        let u1 = self.x.mul(&z2z2);
        let u2 = q.x.mul(&z1z1);
        let s1 = self.y.mul(&q.z).mul(&z2z2);
        let s2 = q.y.mul(&self.z).mul(&z1z1);
        let h = u2.sub(&u1);
        let r = s2.sub(&s1);
        let hh = h.square();
        let hhh = h.mul(&hh);
        let v = u1.mul(&hh);
        let x3 = r.square().sub(&hhh).sub(&v.double());
        let y3 = r.mul(&v.sub(&x3)).sub(&s1.mul(&hhh));
        let z3 = self.z.mul(&q.z).mul(&h);
        (Jacobian { x: x3, y: y3, z: z3 }, h.is_zero(), r.is_zero())
    }

    /// self + q in constant time, handling either operand at infinity; the
    /// doubling case only when `complete` (see [`Self::add_mixed_ct`]).
    #[inline(always)]
    pub fn add_ct(&self, q: &Jacobian, complete: bool) -> Jacobian {
        let (mut sum, h0, r0) = self.add_raw(q);
        let p_inf = self.is_infinity();
        let q_inf = q.is_infinity();
        if complete {
            let dbl = self.double();
            sum = Jacobian::conditional_select(&sum, &dbl, h0 & r0 & !p_inf & !q_inf);
        }
        let sum = Jacobian::conditional_select(&sum, q, p_inf);
        Jacobian::conditional_select(&sum, self, q_inf)
    }

    /// self + q for public points, every case handled by branching.
    pub fn add_vartime(&self, q: &Jacobian) -> Jacobian {
        if bool::from(self.is_infinity()) {
            return *q;
        }
        if bool::from(q.is_infinity()) {
            return *self;
        }
        let (sum, h0, r0) = self.add_raw(q);
        if bool::from(h0) {
            return if bool::from(r0) { self.double() } else { Jacobian::INFINITY };
        }
        sum
    }

    /// self + q (affine) for public points, every case handled by branching.
    pub fn add_mixed_vartime(&self, q: &Affine) -> Jacobian {
        if bool::from(self.is_infinity()) {
            return q.to_jacobian();
        }
        let (sum, h0, r0) = self.add_mixed_raw(q);
        if bool::from(h0) {
            return if bool::from(r0) { q.to_jacobian().double() } else { Jacobian::INFINITY };
        }
        sum
    }

    pub fn neg(&self) -> Jacobian {
        Jacobian { x: self.x, y: self.y.neg(), z: self.z }
    }

    /// Conditionally negates (constant time).
    #[inline(always)]
    pub fn conditional_neg(&mut self, c: Choice) {
        self.y = Fp::conditional_select(&self.y, &self.y.neg(), c);
    }

    /// Affine form (constant-time inversion); `None`-like garbage (0, 0) for
    /// infinity, which callers exclude or check via [`Self::is_infinity`].
    pub fn to_affine(&self) -> Affine {
        let zi = self.z.invert();
        let zi2 = zi.square();
        Affine { x: self.x.mul(&zi2), y: self.y.mul(&zi2).mul(&zi) }
    }
}

/// Converts many Jacobian points to affine with one inversion (points at
/// infinity come out as (0, 0)).
pub fn batch_to_affine(points: &[Jacobian]) -> Vec<Affine> {
    let mut zs: Vec<Fp> = points.iter().map(|p| p.z).collect();
    crate::arith::batch_invert(&mut zs);
    points
        .iter()
        .zip(zs.iter())
        .map(|(p, zi)| {
            let zi2 = zi.square();
            Affine { x: p.x.mul(&zi2), y: p.y.mul(&zi2).mul(zi) }
        })
        .collect()
}
