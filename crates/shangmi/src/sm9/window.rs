//! Constant-time fixed-window exponentiation for any group with a
//! complete-enough addition: a 4-bit window over a scalar < n, with every
//! table lookup a masked scan of the whole table. Generic (G1, G2 and GT
//! use it) so it can move to `arith/` beside the other shared helpers.

use crate::arith::Limbs;
use subtle::{ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// What the window needs: identity, doubling (squaring), and an addition
/// that is correct for any pair it meets here (see [`mul_fixed_window`]).
pub trait WindowGroup: Copy + ConditionallySelectable + Zeroize {
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

/// Fixed-base comb for one base B: entry [i][j] = [j·16^i]B, so [k]B for a
/// secret k < n is 63 additions of masked lookups and no doubling.
///
/// Why the additions never meet the doubling case: before row i is added the
/// accumulator is [a]B with a < 16^i, and the entry is [d·16^i]B with
/// a + d·16^i ≤ k < n, so a ≡ ±d·16^i (mod n) only when a = d = 0.
#[derive(Clone)]
pub struct FixedBaseTable<G: WindowGroup> {
    rows: Box<[[G; 16]]>,
}

impl<G: WindowGroup> core::fmt::Debug for FixedBaseTable<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FixedBaseTable(..)")
    }
}

impl<G: WindowGroup> FixedBaseTable<G> {
    pub fn new(base: &G) -> Self {
        let mut rows = vec![[G::identity(); 16]; 64].into_boxed_slice();
        let mut b = *base;
        for row in rows.iter_mut() {
            row[1] = b;
            row[2] = b.dbl();
            for j in 3..16 {
                row[j] = row[j - 1].add_w(&b);
            }
            b = row[8].dbl();
        }
        FixedBaseTable { rows }
    }

    /// [k]B for a secret k < n, constant time.
    pub fn mul_ct(&self, k: &Limbs) -> G {
        let mut acc = ct_lookup(&self.rows[0], (k[0] & 15) as u32);
        for i in 1..64 {
            let d = ((k[i / 16] >> ((i % 16) * 4)) & 15) as u32;
            acc = acc.add_w(&ct_lookup(&self.rows[i], d));
        }
        acc
    }

    /// Bytes held by the table.
    pub fn memory(&self) -> usize {
        self.rows.len() * core::mem::size_of::<[G; 16]>()
    }
}

impl<G: WindowGroup> Drop for FixedBaseTable<G> {
    fn drop(&mut self) {
        // Tables of a user's point are as secret as the point.
        for row in self.rows.iter_mut() {
            for e in row.iter_mut() {
                e.zeroize();
            }
        }
    }
}
