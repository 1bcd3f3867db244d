//! G2: the order-n subgroup of the M-type sextic twist E'(Fp2): y² = x³ + 5u.
//!
//! The twist maps to E(Fp12) by ψ(x, y) = (x·w⁻², y·w⁻³) (w⁶ = u), which is
//! what the pairing's line functions assume.

use super::fp::Sm9N;
use super::fp::{fp, Fp};
use super::fp12::{G12, G13, G14};
use super::fp2::Fp2;
use crate::arith::comb::{CombGroup, Words};
use crate::arith::curve::{Affine, Curve, Jacobian};
use crate::arith::MulBackend;
use crate::{Error, Result};
use subtle::{Choice, ConditionallySelectable};

/// The twist E'(Fp2): y² = x³ + 5u.
#[derive(Clone, Copy, Debug)]
pub struct G2Curve;
impl Curve for G2Curve {
    type F = Fp2;
    #[inline(always)]
    fn b() -> Fp2 {
        B
    }
}

/// b' = 5u.
pub const B: Fp2 = Fp2::new(Fp::ZERO, super::fp::fp_small(5));

pub type G2Affine = Affine<Fp2>;
pub type G2 = Jacobian<Fp2>;

/// The generator P2 (GM/T 0044's parameters).
pub const P2: G2Affine = Affine {
    x: Fp2::new(
        fp([0xf9b7213baf82d65b, 0xee265948d19c17ab, 0xd2aab97fd34ec120, 0x3722755292130b08]),
        fp([0x54806c11d8806141, 0xf1dd2c190f5e93c4, 0x597b6027b441a01f, 0x85aef3d078640c98]),
    ),
    y: Fp2::new(
        fp([0x6215bba5c999a7c7, 0x47efba98a71a0811, 0x5f3170153d278ff2, 0xa7cf28d519be3da6]),
        fp([0x856dc76b84ebeb96, 0x0736a96fa347c8bd, 0x66ba0d262cbee6ed, 0x17509b092e845c12]),
    ),
};

/// G2 points as comb and window entries: Jacobian (192 bytes), added with
/// the shared formulas, as G1's.
impl CombGroup for G2 {
    type Order = Sm9N;
    type Point = G2;
    type Entry = G2;
    type Stored = Words<24>;
    fn double(p: &G2) -> G2 {
        p.double()
    }
    fn add(p: &G2, q: &G2) -> G2 {
        Jacobian::add(p, q)
    }
    fn store(points: &[G2]) -> Vec<Words<24>> {
        points
            .iter()
            .map(|e| {
                let mut w = [0u64; 24];
                for (k, c) in [e.x.c0, e.x.c1, e.y.c0, e.y.c1, e.z.c0, e.z.c1].iter().enumerate() {
                    w[4 * k..4 * k + 4].copy_from_slice(c.mont_limbs());
                }
                Words(w)
            })
            .collect()
    }
    fn lookup(row: &[Words<24>], idx: u64) -> G2 {
        let w = crate::arith::scan(row, idx + 1).0;
        let c = |k: usize| Fp::from_mont_limbs([w[4 * k], w[4 * k + 1], w[4 * k + 2], w[4 * k + 3]]);
        G2 { x: Fp2::new(c(0), c(1)), y: Fp2::new(c(2), c(3)), z: Fp2::new(c(4), c(5)) }
    }
    fn cneg(e: &G2, c: Choice) -> G2 {
        G2 { x: e.x, y: Fp2::conditional_select(&e.y, &e.y.neg(), c), z: e.z }
    }
    fn to_point(e: &G2) -> G2 {
        *e
    }
    fn start<B: MulBackend>(b: B, e0: &G2, e1: &G2) -> G2 {
        e0.add_distinct_with(b, e1)
    }
    fn add_entry<B: MulBackend>(b: B, p: &G2, e: &G2, complete: bool) -> G2 {
        if complete {
            p.add_with(b, e)
        } else {
            p.add_distinct_with(b, e)
        }
    }
}

/// The p-power Frobenius carried to the twist: π'(x, y) = (x̄·w^(2−2p), ȳ·w^(3−3p))
/// with w^(2−2p) = −G14 and w^(3−3p) = −G13 (fp12.rs's γ constants; a test recomputes both).
pub fn frobenius(q: &G2Affine) -> G2Affine {
    Affine { x: q.x.conj().mul_fp(&G14).neg(), y: q.y.conj().mul_fp(&G13).neg() }
}

/// π'²(x, y) = (x·w^(2−2p²), y·w^(3−3p²)) = (−G12·x, −y).
pub fn frobenius2(q: &G2Affine) -> G2Affine {
    Affine { x: q.x.mul_fp(&G12).neg(), y: q.y.neg() }
}

fn put(out: &mut [u8], x: &Fp2) {
    out[..32].copy_from_slice(&x.c1.to_be_bytes());
    out[32..64].copy_from_slice(&x.c0.to_be_bytes());
}

/// 04 ‖ x1 ‖ x0 ‖ y1 ‖ y0 (129 bytes, the u-coefficient first).
pub fn encode(q: &G2Affine) -> [u8; 129] {
    let mut out = [0u8; 129];
    out[0] = 4;
    put(&mut out[1..65], &q.x);
    put(&mut out[65..], &q.y);
    out
}

/// x1 ‖ x0 ‖ y1 ‖ y0 (128 bytes).
pub fn encode_raw(q: &G2Affine) -> [u8; 128] {
    let mut out = [0u8; 128];
    put(&mut out[..64], &q.x);
    put(&mut out[64..], &q.y);
    out
}

fn fp2_at(b: &[u8], what: &str) -> Result<Fp2> {
    let get = |s: &[u8]| {
        let mut c = [0u8; 32];
        c.copy_from_slice(s);
        Option::from(Fp::from_be_bytes(&c)).ok_or_else(|| Error::invalid(format!("{what}: coordinate is not below p")))
    };
    let c1 = get(&b[..32])?;
    let c0 = get(&b[32..64])?;
    Ok(Fp2::new(c0, c1))
}

/// Decodes 04‖x1‖x0‖y1‖y0 or the same without 04, checking coordinates < p,
/// the point on the twist and in the order-n subgroup.
pub fn decode(b: &[u8], what: &str) -> Result<G2Affine> {
    let q = decode_on_twist(b, what)?;
    if !in_subgroup_vartime(&q) {
        return Err(Error::invalid(format!("{what}: point is not in the order-n subgroup G2")));
    }
    Ok(q)
}

/// [`decode`] without the subgroup check: coordinates < p and the point on
/// the twist only (for measuring the subgroup check apart, and for callers
/// that check membership themselves).
pub fn decode_on_twist(b: &[u8], what: &str) -> Result<G2Affine> {
    let raw = match b.len() {
        129 if b[0] == 4 => &b[1..],
        128 => b,
        n => {
            return Err(Error::invalid(format!(
                "{what}: G2 point must be 129 bytes (04‖x1‖x0‖y1‖y0) or 128 bytes, got {n}"
            )))
        }
    };
    let q = Affine { x: fp2_at(&raw[..64], what)?, y: fp2_at(&raw[64..], what)? };
    if !bool::from(q.is_on_curve::<G2Curve>()) {
        return Err(Error::invalid(format!("{what}: point is not on the twist curve")));
    }
    Ok(q)
}

/// ψ (= [`frobenius`]) on Jacobian coordinates: x = X/Z² gives
/// x̄ = X̄/Z̄², so (X, Y, Z) ↦ (−X̄·G14, −Ȳ·G13, Z̄) and no inversion.
fn psi_jacobian(q: &G2) -> G2 {
    G2 { x: q.x.conj().mul_fp(&G14).neg(), y: q.y.conj().mul_fp(&G13).neg(), z: q.z.conj() }
}

/// ψ² (= [`frobenius2`]) on Jacobian coordinates: (−G12·X, −Y, Z).
fn psi2_jacobian(q: &G2) -> G2 {
    G2 { x: q.x.mul_fp(&G12).neg(), y: q.y.neg(), z: q.z }
}

/// Whether a point already checked on the twist lies in G2 (variable time:
/// public points only). About one 63-bit scalar product instead of the
/// 256-bit [n]Q of [`in_subgroup_by_order_vartime`].
///
/// The test is Scott's for BN curves (M. Scott, "A note on group
/// membership tests for G1, G2 and GT on BLS pairing-friendly curves",
/// ePrint 2021/1130, §4; El Housni, Guillevic, Piellard, "Co-factor
/// clearing and subgroup membership testing on pairing-friendly curves",
/// AFRICACRYPT 2022, ePrint 2022/352, give the general argument):
///
///   [t + 1]Q + ψ([t]Q) + ψ²([t]Q) = ψ³([2t]Q),
///
/// with t the BN parameter. Why it is exact for SM9's curve: ψ is the
/// p-power Frobenius carried to the twist, an endomorphism of E' with
/// ψ² − trψ + p = 0 (tr = 6t² + 1, E's trace). Reducing the test's
/// endomorphism (t+1) + tψ + tψ² − 2tψ³ modulo that relation gives a + bψ
/// with a = t + 1 − tp + 2ttr·p and b = t + t·tr − 2t(tr² − p).
/// - Q ∈ G2 ⇒ the test holds: on G2, ψ acts as [p] = [6t²] mod n, and
///   a + b·6t² ≡ 0 (mod n).
/// - The test holds ⇒ Q ∈ G2: Q is in the kernel of a + bψ, an isogeny of
///   degree N = a² + ab·tr + b²p, so the order of Q divides N; it also
///   divides #E'(Fp2) = n·h (h = p − 1 + tr). gcd(N, h) = 1 for SM9's t,
///   so the order divides n, and E'(Fp2)'s n-torsion is G2 (gcd(n, h) = 1).
///
/// `tests/sm9_subgroup.rs` recomputes a + b·6t² ≡ 0 (mod n), gcd(N, h) = 1
/// and gcd(n, h) = 1 from t, and compares this test with [n]Q on points in G2, on random twist points,
/// on points of order 13 (a factor of h) and on their sums with G2 points.
pub fn in_subgroup_vartime(q: &G2Affine) -> bool {
    // [t]Q by the NAF of t (t public, Q public).
    let nq = q.neg();
    let mut tq = G2::IDENTITY;
    for i in (0..T_NAF.len()).rev() {
        tq = tq.double();
        match T_NAF[i] {
            1 => tq = tq.add_mixed(q),
            -1 => tq = tq.add_mixed(&nq),
            _ => {}
        }
    }
    let p1 = psi_jacobian(&tq);
    let p2 = psi2_jacobian(&tq);
    let p3 = psi_jacobian(&p2);
    let lhs = tq.add_mixed(q).add(&p1).add(&p2);
    let rhs = p3.double();
    bool::from(lhs.ct_eq_point(&rhs))
}

/// The NAF of the BN parameter t, least significant digit first.
const T_NAF: [i8; 65] = crate::arith::naf_const::<65>(super::fp::T as u128);

/// [n]q = O: the definition of G2 membership, 256 doublings; the reference
/// for [`in_subgroup_vartime`] (tests and benchmarks).
pub fn in_subgroup_by_order_vartime(q: &G2Affine) -> bool {
    use crate::arith::Modulus;
    bool::from(q.to_jacobian().mul_vartime(&super::fp::Sm9N::M).is_identity())
}
