//! Constant-time scalar multiplication (exponentiation) for G1, G2 and GT:
//! a variable-base fixed window here, and the fixed-base comb of
//! [`crate::arith::comb`] (SM9's tables are [`CombTable`]s of width 5).
//! Both use the regular signed odd-digit recoding of `arith` (5-bit
//! windows, digits ±1, ±3, …, ±31, so a row holds 16 odd multiples and a
//! negative digit is a conditional negation: y ↦ −y on the curves,
//! conjugation in GT) and the groups' [`CombGroup`] entries; every lookup
//! is the shared whole-row scan.

use super::fp::Sm9N;
use crate::arith::comb::{odd_multiples_row, CombGroup, CombTable};
use crate::arith::{odd_scalar, recode_odd, wipe_digits, with_mul, Limbs};
use subtle::Choice;
use zeroize::Zeroize;

/// Window width in bits (of the fixed window and of SM9's combs).
pub const W: usize = 5;
/// Digits of a scalar below 2^256.
const WINDOWS: usize = 256usize.div_ceil(W);

/// SM9's comb of `base` (an element of order n, possibly secret: built in
/// constant time).
pub fn comb<G: CombGroup<Point = G>>(base: &G) -> CombTable<G> {
    CombTable::build(base, W)
}

/// k·base for a secret k (any 256-bit value, reduced mod n), constant time:
/// W doublings and one addition per digit, from the most significant.
///
/// Why only the last addition needs the complete formula: with digits d_i
/// (|d_i| ≤ 31) and A_i = Σ_{j≥i} d_j·32^(j−i), |A_i| < k'/32^i + 1 for the
/// odd k' ≤ n the recoding uses, so before digit i ≥ 1 is added 32·A_(i+1)
/// is far below n/2 in size and larger than |d_i|: never ±d_i, never 0.
pub fn mul_fixed_window<G: CombGroup<Order = Sm9N, Point = G>>(base: &G, k: &Limbs) -> G {
    let mut row = odd_multiples_row::<G>(base, W);
    let (mut odd, flip) = odd_scalar::<Sm9N>(k);
    let mut d = [(0u64, Choice::from(0)); WINDOWS];
    recode_odd(&odd, W, WINDOWS, flip, &mut d);
    odd.zeroize();
    let entry = |(idx, neg): (u64, Choice)| G::cneg(&G::lookup(&row, idx), neg);
    let acc = with_mul!(|b| {
        let mut acc = G::to_point(&entry(d[WINDOWS - 1]));
        for i in (0..WINDOWS - 1).rev() {
            for _ in 0..W {
                acc = G::double(&acc);
            }
            let e = entry(d[i]);
            acc = G::add_entry(b, &acc, &e, i == 0);
        }
        acc
    });
    row.iter_mut().for_each(Zeroize::zeroize);
    wipe_digits(&mut d);
    acc
}
