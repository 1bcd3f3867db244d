//! Constant-time fixed-window exponentiation for any group with a
//! complete-enough addition: a 4-bit window over a scalar < n, with every
//! table lookup a masked scan of the whole table. Generic (G1, G2 and GT
//! use it) so it can move to `arith/` beside the other shared helpers.

use crate::arith::Limbs;
use subtle::{ConditionallySelectable, ConstantTimeEq};

/// What the window needs: identity, doubling (squaring), and an addition
/// that is correct for any pair it meets here (see [`mul_fixed_window`]).
pub trait WindowGroup: Copy + ConditionallySelectable {
    fn identity() -> Self;
    fn dbl(&self) -> Self;
    /// self + o where self ≠ ±o unless one of them is the identity.
    fn add_w(&self, o: &Self) -> Self;
}

/// Whole-table masked scan: returns `table[idx]` touching every entry.
#[inline(always)]
pub fn ct_lookup<G: ConditionallySelectable + Copy>(table: &[G], idx: u32) -> G {
    let mut out = table[0];
    for (i, e) in table.iter().enumerate().skip(1) {
        out.conditional_assign(e, (i as u32).ct_eq(&idx));
    }
    out
}

/// [k]base for a secret scalar k < n (n the group order), constant time.
///
/// Why additions never meet the doubling case: before digit d is added the
/// accumulator is [16m]base with 16m + d ≤ k < n, so 16m ≡ ±d (mod n) only
/// when m = d = 0, and then one operand is the identity (handled by the
/// addition's selects). The table entries [i]base (i < 16) are built the same way.
pub fn mul_fixed_window<G: WindowGroup>(base: &G, k: &Limbs) -> G {
    let mut table = [G::identity(); 16];
    table[1] = *base;
    table[2] = base.dbl();
    for i in 3..16 {
        table[i] = table[i - 1].add_w(base);
    }
    let mut acc = G::identity();
    for i in (0..64).rev() {
        if i != 63 {
            acc = acc.dbl().dbl().dbl().dbl();
        }
        let digit = ((k[i / 16] >> ((i % 16) * 4)) & 15) as u32;
        let e = ct_lookup(&table, digit);
        acc = acc.add_w(&e);
    }
    acc
}
