//! G1: SM9's curve y² = x³ + 5 over Fp (prime order n, cofactor 1).

use super::fp::Sm9N;
use super::fp::{fp, fp_small, fp_sqrt_vartime, Fp};
use crate::arith::comb::{CombGroup, Words};
use crate::arith::curve::{Affine, Curve, Jacobian};
use crate::arith::MulBackend;
use crate::{Error, Result};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// The curve E(Fp): y² = x³ + 5.
#[derive(Clone, Copy, Debug)]
pub struct G1Curve;
impl Curve for G1Curve {
    type F = Fp;
    #[inline(always)]
    fn b() -> Fp {
        B
    }
}

/// b = 5.
pub const B: Fp = fp_small(5);

pub type G1Affine = Affine<Fp>;
pub type G1 = Jacobian<Fp>;

/// The generator P1 (GM/T 0044's parameters).
pub const P1: G1Affine = Affine {
    x: fp([0xe8c4e4817c66dddd, 0xe1e4086909dc3280, 0xf5ed0704487d01d6, 0x93de051d62bf718f]),
    y: fp([0x0c464cd70a3ea616, 0x1c1c00cbfa602435, 0x631065125c395bbc, 0x21fe8dda4f21e607]),
};

/// G1 points as comb and window entries: Jacobian (96 bytes), so a table
/// of a secret point (dsA) is built with no inversion; added with the
/// shared formulas (add-2007-bl, the complete addition last).
impl CombGroup for G1 {
    type Order = Sm9N;
    type Point = G1;
    type Entry = G1;
    type Stored = Words<12>;
    fn double(p: &G1) -> G1 {
        p.double()
    }
    fn add(p: &G1, q: &G1) -> G1 {
        Jacobian::add(p, q)
    }
    fn store(points: &[G1]) -> Vec<Words<12>> {
        points
            .iter()
            .map(|e| {
                let mut w = [0u64; 12];
                for (k, c) in [e.x, e.y, e.z].iter().enumerate() {
                    w[4 * k..4 * k + 4].copy_from_slice(c.mont_limbs());
                }
                Words(w)
            })
            .collect()
    }
    fn lookup(row: &[Words<12>], idx: u64) -> G1 {
        let w = crate::arith::scan(row, idx + 1).0;
        let c = |k: usize| Fp::from_mont_limbs([w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]]);
        G1 { x: c(0), y: c(1), z: c(2) }
    }
    fn cneg(e: &G1, c: Choice) -> G1 {
        G1 { x: e.x, y: Fp::conditional_select(&e.y, &e.y.neg(), c), z: e.z }
    }
    fn to_point(e: &G1) -> G1 {
        *e
    }
    fn start<B: MulBackend>(b: B, e0: &G1, e1: &G1) -> G1 {
        e0.add_distinct_with(b, e1)
    }
    fn add_entry<B: MulBackend>(b: B, p: &G1, e: &G1, complete: bool) -> G1 {
        if complete {
            p.add_with(b, e)
        } else {
            p.add_distinct_with(b, e)
        }
    }
}

/// 04 ‖ x ‖ y (65 bytes).
pub fn encode(p: &G1Affine) -> [u8; 65] {
    let mut out = [0u8; 65];
    out[0] = 4;
    out[1..33].copy_from_slice(&p.x.to_be_bytes());
    out[33..].copy_from_slice(&p.y.to_be_bytes());
    out
}

/// x ‖ y (64 bytes), the form hashed by the schemes.
pub fn encode_xy(p: &G1Affine) -> [u8; 64] {
    let mut out = [0u8; 64];
    out[..32].copy_from_slice(&p.x.to_be_bytes());
    out[32..].copy_from_slice(&p.y.to_be_bytes());
    out
}

fn coord(b: &[u8], what: &str) -> Result<Fp> {
    let mut c = [0u8; 32];
    c.copy_from_slice(b);
    Option::from(Fp::from_be_bytes(&c)).ok_or_else(|| Error::invalid(format!("{what}: coordinate is not below p")))
}

/// Decodes 04‖x‖y, x‖y (64 bytes) or a compressed 02/03‖x, checking every
/// coordinate < p and the point on the curve. `what` names the value in errors.
pub fn decode(b: &[u8], what: &str) -> Result<G1Affine> {
    let xy = match b.len() {
        65 if b[0] == 4 => &b[1..],
        64 => b,
        33 if b[0] == 2 || b[0] == 3 => {
            let x = coord(&b[1..], what)?;
            let rhs = x.square().mul(&x).add(&B);
            let mut y =
                fp_sqrt_vartime(&rhs).ok_or_else(|| Error::invalid(format!("{what}: point is not on the curve")))?;
            let odd = (y.to_canonical()[0] & 1) as u8;
            if odd != (b[0] & 1) {
                y = y.neg();
            }
            return Ok(Affine { x, y });
        }
        n => {
            return Err(Error::invalid(format!(
                "{what}: G1 point must be 65 bytes (04‖x‖y), 64 bytes (x‖y) or 33 bytes (compressed), got {n}"
            )))
        }
    };
    let p = Affine { x: coord(&xy[..32], what)?, y: coord(&xy[32..], what)? };
    if !bool::from(p.is_on_curve::<G1Curve>()) {
        return Err(Error::invalid(format!("{what}: point is not on the curve")));
    }
    Ok(p)
}

/// Equality of affine points (constant time).
pub fn eq(a: &G1Affine, b: &G1Affine) -> Choice {
    a.x.ct_eq(&b.x) & a.y.ct_eq(&b.y)
}
