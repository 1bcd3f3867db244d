//! Constant-time scalar multiplication (exponentiation) for G1, G2 and GT:
//! a variable-base fixed window and a fixed-base comb, both over the
//! regular signed odd-digit recoding of `arith` (5-bit windows, digits
//! ±1, ±3, …, ±31, so a table holds 16 odd multiples and a negative digit
//! is a conditional negation: y ↦ −y on the curves, conjugation in GT).
//! Every lookup is the shared whole-table scan [`crate::arith::scan`].

use super::fp::Sm9N;
use crate::arith::{odd_scalar, recode_odd, Limbs};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

/// Window width in bits.
const W: usize = 5;
/// Digits of a scalar below 2^256.
const WINDOWS: usize = 256usize.div_ceil(W);
/// Table entries per window: the odd multiples 1, 3, …, 2^W − 1.
pub const ENTRIES: usize = 1 << (W - 1);

/// What the windows need from a group: doubling, an addition that is right
/// whenever the operands are neither equal nor opposite nor the identity
/// (`add_w`), a complete one, a conditional negation, and a table row form
/// that the constant-time scan can read.
pub trait WindowGroup: Copy + ConditionallySelectable + Zeroize {
    /// A row of [`ENTRIES`] group elements in scan-ready form.
    type Row: Clone + Send + Sync + Zeroize;
    fn identity() -> Self;
    fn dbl(&self) -> Self;
    /// self + o for self ≠ ±o, neither the identity.
    fn add_w(&self, o: &Self) -> Self;
    /// self + o in every case.
    fn add_complete(&self, o: &Self) -> Self;
    /// −self if c, else self (constant time).
    fn cneg(&self, c: Choice) -> Self;
    fn make_row(entries: &[Self; ENTRIES]) -> Self::Row;
    /// Entry `idx` (< ENTRIES) of the row, reading every entry.
    fn lookup(row: &Self::Row, idx: u64) -> Self;
}

/// The odd multiples [1]b, [3]b, …, [2^W − 1]b (b of order n, so none of
/// these additions meets an equal, opposite or identity operand).
fn odd_multiples<G: WindowGroup>(b: &G) -> [G; ENTRIES] {
    let b2 = b.dbl();
    let mut t = [*b; ENTRIES];
    for j in 1..ENTRIES {
        t[j] = t[j - 1].add_complete(&b2);
    }
    t
}

/// The recoded digits of k: (index, negate) pairs, least significant first.
fn digits(k: &Limbs) -> [(u64, Choice); WINDOWS] {
    let (mut odd, flip) = odd_scalar::<Sm9N>(k);
    let mut d = [(0u64, Choice::from(0)); WINDOWS];
    recode_odd(&odd, W, WINDOWS, flip, &mut d);
    odd.zeroize();
    d
}

/// [k]base for a secret k (any 256-bit value, reduced mod n), constant time.
///
/// Why only the last addition needs the complete formula: with digits d_i
/// (|d_i| ≤ 31) and A_i = Σ_{j≥i} d_j·32^(j−i), |A_i| < k'/32^i + 1 for the
/// odd k' ≤ n the recoding uses, so before digit i ≥ 1 is added 32·A_(i+1)
/// is far below n/2 in size and larger than |d_i|: never ±d_i, never 0.
pub fn mul_fixed_window<G: WindowGroup>(base: &G, k: &Limbs) -> G {
    let mut row = G::make_row(&odd_multiples(base));
    let mut d = digits(k);
    let mut acc = G::lookup(&row, d[WINDOWS - 1].0).cneg(d[WINDOWS - 1].1);
    for i in (0..WINDOWS - 1).rev() {
        for _ in 0..W {
            acc = acc.dbl();
        }
        let e = G::lookup(&row, d[i].0).cneg(d[i].1);
        acc = if i == 0 { acc.add_complete(&e) } else { acc.add_w(&e) };
    }
    row.zeroize();
    d.zeroize_all();
    acc
}

/// Fixed-base comb for one base B: row i holds [(2j + 1)·32^i]B, so [k]B
/// for a secret k is one masked lookup per digit, conditional negations
/// and additions, no doubling.
///
/// Why only the last addition needs the complete formula: before row i the
/// accumulator is [a]B with |a| < 32^i ≤ |d_i·32^i|, and for i below the
/// last row |a| + |d_i·32^i| < 2^255 < n, so a ≢ ±d_i·32^i and a ≢ 0.
#[derive(Clone)]
pub struct FixedBaseTable<G: WindowGroup> {
    rows: Box<[G::Row]>,
}

impl<G: WindowGroup> core::fmt::Debug for FixedBaseTable<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("FixedBaseTable(..)")
    }
}

impl<G: WindowGroup> FixedBaseTable<G> {
    /// The comb of `base` (an element of order n).
    pub fn new(base: &G) -> Self {
        let mut rows = Vec::with_capacity(WINDOWS);
        let mut b = *base;
        for _ in 0..WINDOWS {
            rows.push(G::make_row(&odd_multiples(&b)));
            for _ in 0..W {
                b = b.dbl();
            }
        }
        FixedBaseTable { rows: rows.into_boxed_slice() }
    }

    /// [k]B for a secret k (any 256-bit value, reduced mod n), constant time.
    pub fn mul(&self, k: &Limbs) -> G {
        let mut d = digits(k);
        let mut acc = G::lookup(&self.rows[0], d[0].0).cneg(d[0].1);
        for (i, (row, &(idx, neg))) in self.rows.iter().zip(d.iter()).enumerate().skip(1) {
            let e = G::lookup(row, idx).cneg(neg);
            acc = if i + 1 == WINDOWS { acc.add_complete(&e) } else { acc.add_w(&e) };
        }
        d.zeroize_all();
        acc
    }

    /// Bytes held by the table.
    pub fn memory(&self) -> usize {
        self.rows.len() * core::mem::size_of::<G::Row>()
    }
}

impl<G: WindowGroup> Drop for FixedBaseTable<G> {
    fn drop(&mut self) {
        // Tables of a user's point are as secret as the point.
        for row in self.rows.iter_mut() {
            row.zeroize();
        }
    }
}

/// Wiping recoded digits (they are the secret scalar in another form).
trait ZeroizeDigits {
    fn zeroize_all(&mut self);
}

impl ZeroizeDigits for [(u64, Choice); WINDOWS] {
    fn zeroize_all(&mut self) {
        for (i, c) in self.iter_mut() {
            i.zeroize();
            *c = Choice::from(0);
        }
    }
}

/// Scan-ready words: `N` u64 words, `#[repr(C)]`, as `arith::scan` requires.
#[derive(Clone, Copy)]
#[repr(C)]
pub struct Words<const N: usize>(pub [u64; N]);

impl<const N: usize> core::fmt::Debug for Words<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Entries may be secret: never print them.
        f.write_str("Words(..)")
    }
}

impl<const N: usize> Zeroize for Words<N> {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

// SAFETY: repr(C) over u64 words only; the sizes used (12, 24, 32 and 16
// words: 96, 192, 256 and 128 bytes) are multiples of 32 bytes and at most
// MAX_ENTRY_BYTES, which `scan` also asserts at compile time.
unsafe impl<const N: usize> crate::arith::ScanEntry for Words<N> {}
