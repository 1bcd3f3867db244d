//! The one fixed-base comb (libsecp256k1's ecmult_gen): k·B for a fixed B
//! in constant time, for every group that multiplies a fixed element by a
//! secret — SM2's G and prepared public keys (affine entries, widths 5–8),
//! SM9's P1, P2, a master public key and a user's key dsA (Jacobian
//! entries), and powers of a fixed GT element (GT entries, read in two
//! parts). What differs between them is the entry, which [`CombGroup`]
//! describes; the table, the recoding and the order of additions are here.
//!
//! A comb of `windows` = ⌈256/w⌉ rows of 2^(w−1) entries, the odd multiples
//! (2j + 1)·2^(w·i)·B, selected by the regular odd-digit recoding
//! ([`recode_odd`]: every digit odd, never zero): one addition of the first
//! two entries, then one addition per row, no doublings; every lookup scans
//! its whole row ([`crate::arith::scan()`]) and a negative digit is a
//! conditional negation. k is first made odd (k or n − k, in constant time,
//! the sign folded into the digits), so the sum starts at a real element
//! and no digit is zero: no addition needs the selects for "the entry is
//! zero" or "the sum is the identity". The incomplete addition's one
//! remaining exception, sum == ±entry, can only arise in the last addition
//! (the proof is at [`CombTable::mul`]), which is the complete one.
//!
//! SM2's k·G on eight IFMA lanes (`sm2::ecmult_gen::ifma`) is an override
//! of [`CombTable::mul`] for G's table: a kernel over the same entries
//! ([`CombTable::row`]), dealt to lanes.

// Digit arrays are indexed alongside the rows; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::{odd_scalar, recode_odd, wipe_digits, with_mul, Limbs, Modulus, MulBackend, ScanEntry};
use subtle::Choice;
use zeroize::Zeroize;

/// Most rows a table has (w ≥ 5: ⌈256/5⌉ = 52).
const MAX_WINDOWS: usize = 64;

/// A scalar's recoded digits, (entry index, negate) pairs ([`recode_odd`]).
pub type Digits = [(u64, Choice); MAX_WINDOWS];

/// All-zero digits, to recode into.
#[inline(always)]
pub fn no_digits() -> Digits {
    [(0, Choice::from(0)); MAX_WINDOWS]
}

/// What the comb needs from a group: how an entry is stored (scan-ready),
/// looked up and negated, how rows are built, and the additions.
///
/// Three element forms: [`Self::Point`], the form the table is built in
/// and the running sum; [`Self::Entry`], what a lookup returns (the same,
/// or cheaper to add: an affine point); [`Self::Stored`], an entry as the
/// table stores it, plain words the constant-time scan reads.
pub trait CombGroup: Sized + 'static {
    /// The group order n (above 2^255, as [`odd_scalar`] needs).
    type Order: Modulus;
    /// An element while the table is built, and the running sum.
    type Point: Copy;
    /// A table entry as the additions take it.
    type Entry: Copy;
    /// A table entry in scan-ready form.
    type Stored: ScanEntry + Zeroize + Send + Sync;

    /// 2·p, constant time.
    fn double(p: &Self::Point) -> Self::Point;
    /// p + q in every case, constant time.
    fn add(p: &Self::Point, q: &Self::Point) -> Self::Point;
    /// [`Self::add`] for public points: may be variable time.
    fn add_vartime(p: &Self::Point, q: &Self::Point) -> Self::Point {
        Self::add(p, q)
    }
    /// The stored forms of `points` (none the identity), constant time.
    fn store(points: &[Self::Point]) -> Vec<Self::Stored>;
    /// [`Self::store`] for public points: may be variable time.
    fn store_vartime(points: &[Self::Point]) -> Vec<Self::Stored> {
        Self::store(points)
    }

    /// Entry `idx` (< `row.len()` ≤ [`crate::arith::MAX_SCAN`]) of a row,
    /// reading every entry of the row whatever idx is.
    fn lookup(row: &[Self::Stored], idx: u64) -> Self::Entry;
    /// −e if `neg`, else e (constant time).
    fn cneg(e: &Self::Entry, neg: Choice) -> Self::Entry;
    /// An entry as a point.
    fn to_point(e: &Self::Entry) -> Self::Point;

    /// e0 + e1 for e0 ≠ ±e1, neither the identity: the start of a sum.
    fn start<B: MulBackend>(b: B, e0: &Self::Entry, e1: &Self::Entry) -> Self::Point;
    /// p + e for p and e not the identity: for p ≠ ±e, or, when `complete`,
    /// in every case (p == e and p == −e included). `complete` is public
    /// (the comb sets it for its last addition only), and one body serves
    /// both, so an implementation shares the sum and adds only the select
    /// (SM2's mixed addition computes the doubling of e beside it).
    fn add_entry<B: MulBackend>(b: B, p: &Self::Point, e: &Self::Entry, complete: bool) -> Self::Point;
}

/// Appends the odd multiples b, 3b, …, (2m − 1)·b of an element b of
/// order n to `out` (none of these additions meets an equal, opposite or
/// identity operand). Constant time unless `vartime` (public b only).
fn odd_multiples<G: CombGroup>(b: &G::Point, m: usize, vartime: bool, out: &mut Vec<G::Point>) {
    let add = if vartime { G::add_vartime } else { G::add };
    let b2 = G::double(b);
    let mut acc = *b;
    out.push(acc);
    for _ in 1..m {
        acc = add(&acc, &b2);
        out.push(acc);
    }
}

/// One row of odd multiples b, 3b, …, (2^w − 1)·b in stored form, for a
/// variable-base fixed window (constant time: b may be secret).
pub fn odd_multiples_row<G: CombGroup>(b: &G::Point, w: usize) -> Vec<G::Stored> {
    let mut pts = Vec::with_capacity(1 << (w - 1));
    odd_multiples::<G>(b, 1 << (w - 1), false, &mut pts);
    G::store(&pts)
}

/// The fixed-base comb of one element B (see the module comment). Its
/// entries are wiped when it is dropped (a table of a secret point, such
/// as SM9's dsA, is as secret as the point).
pub struct CombTable<G: CombGroup> {
    /// The width w (read-only outside this module by convention: the
    /// tests name it in their messages).
    pub(crate) w: usize,
    per: usize,
    windows: usize,
    entries: Box<[G::Stored]>,
}

impl<G: CombGroup> CombTable<G> {
    /// The comb of width `w` (5..=8) for `base`, an element of order n,
    /// in constant time (the base may be secret).
    pub fn build(base: &G::Point, w: usize) -> Self {
        Self::build_with(base, w, false)
    }

    /// [`Self::build`] for a public base (variable time).
    pub fn build_vartime(base: &G::Point, w: usize) -> Self {
        Self::build_with(base, w, true)
    }

    fn build_with(base: &G::Point, w: usize, vartime: bool) -> Self {
        // Digits fit MAX_WINDOWS (w ≥ 5), a row fits one scan (w ≤ 8), and
        // there are at least three rows (the first two start the sum).
        assert!((5..=8).contains(&w), "comb width must be 5..=8");
        let per = 1usize << (w - 1);
        let windows = 256usize.div_ceil(w);
        let mut pts = Vec::with_capacity(windows * per);
        let mut b = *base;
        let add = if vartime { G::add_vartime } else { G::add };
        for _ in 0..windows {
            odd_multiples::<G>(&b, per, vartime, &mut pts);
            // (2^w − 1)·b + b is the next row's base 2^w·b (one addition
            // in place of w doublings).
            b = add(&pts[pts.len() - 1], &b);
        }
        let entries = if vartime { G::store_vartime(&pts) } else { G::store(&pts) };
        CombTable { w, per, windows, entries: entries.into_boxed_slice() }
    }

    /// The number of rows, ⌈256/w⌉.
    pub fn windows(&self) -> usize {
        self.windows
    }

    /// Row `win`: the 2^(w−1) stored entries (2j + 1)·2^(w·win)·B.
    #[inline(always)]
    pub fn row(&self, win: usize) -> &[G::Stored] {
        &self.entries[win * self.per..(win + 1) * self.per]
    }

    /// Memory held by the entries, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.entries.len() * core::mem::size_of::<G::Stored>()
    }

    /// The entry d·2^(w·win)·B for the digit (index, sign) = ((|d| − 1)/2,
    /// neg), scanning the whole row.
    #[inline(always)]
    pub fn entry(&self, win: usize, (idx, neg): (u64, Choice)) -> G::Entry {
        G::cneg(&G::lookup(self.row(win), idx), neg)
    }

    /// The digits of k into `digits` (the first ⌈256/w⌉), least
    /// significant first, as (index, sign) pairs: k made odd (k' = ±k mod
    /// n), recoded into odd digits, the sign of k folded into the digits'
    /// signs. Wipe them after use ([`wipe_digits`]). (An out parameter: a
    /// returned array was copied, 1 KiB, on every k·G.)
    #[inline(always)]
    pub fn recode(&self, k: &Limbs, digits: &mut Digits) {
        let (mut k, flip) = odd_scalar::<G::Order>(k);
        recode_odd(&k, self.w, self.windows, flip, digits);
        k.zeroize();
    }

    /// k·B in constant time, for any k < 2^256: the first two entries are
    /// added by [`CombGroup::start`] and each other one with one
    /// [`CombGroup::add_entry`], complete for the last only; no select and no zero test. Why no
    /// addition but the last can meet an exceptional case: before row
    /// i ≥ 1 the sum is A·B with A = Σ_{j<i} d_j 2^(wj), odd (d_0 is) so
    /// non-zero, and |A| ≤ Σ (2^w − 1)·2^(wj) < 2^(wi); the added entry is
    /// d_i·2^(wi)·B with |d_i·2^(wi)| ≥ 2^(wi) > |A|. So A is never
    /// ±d_i·2^(wi) as integers, A·B is never the identity (0 < |A| < n), and
    /// modulo n they can meet only if |A| + |d_i·2^(wi)| (< 2^(w(i+1)))
    /// reaches n > 2^255, so only if w(i + 1) ≥ 256: the last row alone, as
    /// w·(windows − 1) ≤ 255. That last addition is the complete one: the
    /// two being equal happens (for w = 7 and SM2's n, k' = 30·2^252 − n has
    /// last digit 15 and A = 15·2^252 − n; the tests cover such k for every
    /// width), and their being opposite (k ≡ 0) gives the identity.
    pub fn mul(&self, k: &Limbs) -> G::Point {
        let mut digits = no_digits();
        self.recode(k, &mut digits);
        let acc = with_mul!(|b| {
            // Rows 0 and 1 are never the last: there are at least 32.
            let mut acc = G::start(b, &self.entry(0, digits[0]), &self.entry(1, digits[1]));
            for i in 2..self.windows {
                acc = G::add_entry(b, &acc, &self.entry(i, digits[i]), i + 1 == self.windows);
            }
            acc
        });
        wipe_digits(&mut digits);
        acc
    }
}

impl<G: CombGroup> Clone for CombTable<G> {
    fn clone(&self) -> Self {
        CombTable { w: self.w, per: self.per, windows: self.windows, entries: self.entries.clone() }
    }
}

impl<G: CombGroup> core::fmt::Debug for CombTable<G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Entries may be secret: never print them.
        write!(f, "CombTable(w = {}, {} rows of {})", self.w, self.windows, self.per)
    }
}

impl<G: CombGroup> Drop for CombTable<G> {
    fn drop(&mut self) {
        self.entries.iter_mut().for_each(Zeroize::zeroize);
    }
}

/// Scan-ready words: `N` u64 words, `#[repr(C)]`, as [`ScanEntry`]
/// requires (entries whose coordinates are stored as Montgomery limbs).
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

// SAFETY: repr(C) over u64 words only. The sizes used (12, 24 and 48
// words: 96, 192 and 384 bytes) are multiples of 32 bytes; the scans check
// at compile time what they read of them.
unsafe impl<const N: usize> ScanEntry for Words<N> {}
