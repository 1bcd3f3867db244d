//! s·G + t·P and t·P for public scalars and points (libsecp256k1's
//! ecmult; verification only, variable time): one chain of 256 doublings
//! with t's w = 5 wNAF over P's odd multiples and s's w = 10 wNAF over a
//! static table of G's odd multiples; with a prepared key, both combs
//! (direct indexing) and one addition.

use super::ecmult_gen::{g_table, CombTable};
use super::point::{add_mixed_vartime, double, Affine, Jacobian};
use crate::arith::curve::odd_multiples_coz_vartime;
use crate::arith::{with_mul, MulBackend};
use crate::arith::{wnaf_vartime, Limbs};
use std::sync::OnceLock;

/// Adds the wNAF digit d (odd, or 0 for nothing) of `odd`'s base. One
/// inlined addition for either sign (the negation is a select of y), so
/// the accumulator stays in place across the doubling chain instead of
/// being copied in and out of an out-of-line call.
#[inline(always)]
fn add_wnaf_digit<B: MulBackend>(b: B, acc: &mut Jacobian, odd: &[Affine], d: i32) {
    if d != 0 {
        let q = &odd[(d.unsigned_abs() as usize) / 2];
        let q = if d > 0 { *q } else { q.neg() };
        *acc = add_mixed_vartime(b, acc, &q);
    }
}

/// t·P for public t and P (w=5 wNAF).
pub fn mul_vartime(p: &Affine, t: &Limbs) -> Jacobian {
    let naf = wnaf_vartime(t, 5);
    let odd = odd_multiples_coz_vartime(p, 8);
    with_mul!(|b| {
        let mut acc = Jacobian::IDENTITY;
        if let Some(top) = naf.iter().rposition(|&d| d != 0) {
            for i in (0..=top).rev() {
                acc = double(b, &acc);
                add_wnaf_digit(b, &mut acc, &odd, naf[i]);
            }
        }
        acc
    })
}

/// wNAF width for s·G in verification: odd multiples up to 2^(w−1) − 1 of
/// G, 2^(w−2) affine points (w = 10: 256 points, 16 KiB, built on the first
/// verification), about 257/(w+1) = 23 additions.
/// w = 12 (64 KiB) would save 3.6 more additions, about 1% of a verify.
pub(super) const G_WNAF_W: u32 = 10;

/// G, 3G, 5G, ... for the verification wNAF (built on first use).
fn g_odd_table() -> &'static [Affine] {
    static TABLE: OnceLock<Vec<Affine>> = OnceLock::new();
    TABLE.get_or_init(|| odd_multiples_coz_vartime(&Affine::generator(), 1 << (G_WNAF_W - 2)))
}

/// s·G + t·P, variable time (public inputs only). `prepared` is P's comb if
/// the key was prepared: then both products come from combs (no doublings).
/// Otherwise one shared chain of 256 doublings with t's w=5 wNAF over P's
/// odd multiples and s's w=10 wNAF over G's (about 43 + 23 mixed additions,
/// where the comb for s·G would add 37 plus a final full addition).
pub fn double_mul_vartime(s: &Limbs, t: &Limbs, p: &Affine, prepared: Option<&CombTable>) -> Jacobian {
    match prepared {
        Some(tab) => g_table().mul_vartime(s).add_vartime(&tab.mul_vartime(t)),
        None => double_mul_wnaf_vartime(s, t, p, G_WNAF_W),
    }
}

/// The shared-chain s·G + t·P with a G wNAF of width `gw` (≤ G_WNAF_W;
/// narrower widths use a prefix of the same table, which the tests use).
pub(super) fn double_mul_wnaf_vartime(s: &Limbs, t: &Limbs, p: &Affine, gw: u32) -> Jacobian {
    let gw = gw.clamp(2, G_WNAF_W);
    let gtab = g_odd_table();
    let ns = wnaf_vartime(s, gw);
    let nt = wnaf_vartime(t, 5);
    let podd = odd_multiples_coz_vartime(p, 8);
    let top = ns.iter().rposition(|&d| d != 0).max(nt.iter().rposition(|&d| d != 0));
    with_mul!(|b| {
        let mut acc = Jacobian::IDENTITY;
        if let Some(top) = top {
            for i in (0..=top).rev() {
                acc = double(b, &acc);
                add_wnaf_digit(b, &mut acc, &podd, nt[i]);
                add_wnaf_digit(b, &mut acc, gtab, ns[i]);
            }
        }
        acc
    })
}
