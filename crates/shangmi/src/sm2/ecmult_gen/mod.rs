//! k·G and k·B for a fixed base with a comb (libsecp256k1's ecmult_gen).
//!
//! A comb of ⌈256/w⌉ sub-tables of 2^(w−1) affine points, the odd multiples
//! (2j + 1)·2^(w·i)·B, selected by the regular odd-digit recoding (every
//! digit odd, never zero): one affine + affine addition of the first two
//! entries, then mixed additions, no doublings; every lookup scans its
//! whole sub-table ([`crate::arith::scan`]). For G: w = 7, 37 sub-tables of
//! 64 points (151,552 bytes), built on first use; a prepared public key
//! uses w = 6. Width choices are recorded in bench/NOTES.md.
//!
//! The constant-time paths first make k odd (k or n − k, in constant time,
//! the sign folded into the digits), so the accumulator starts at a real
//! point and no digit is zero: no addition needs the selects for "q is
//! zero" or "p is infinity". The incomplete addition's one remaining
//! exception, p == ±q, can only arise in the last addition (the proof is at
//! [`CombTable::mul`]), which is the complete one.

// Digit arrays are indexed alongside the windows; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::field::{Fp, Sm2N};
use super::point::{add_affine, add_mixed, add_mixed_vartime, batch_to_affine_vartime, Affine, Jacobian};
use crate::arith::with_mul;
use crate::arith::{odd_scalar, recode_odd, scan, wipe_digits, Limbs};
use std::sync::OnceLock;
use subtle::{Choice, ConditionallySelectable};

#[cfg(target_arch = "x86_64")]
mod ifma;

/// A fixed-base comb: `windows` = ⌈256/w⌉ sub-tables of 2^(w−1) affine
/// points, the odd multiples (2j + 1)·2^(w i)·B for j = 0..2^(w−1), which
/// the odd digits of [`recode_odd`] select.
#[derive(Debug)]
pub struct CombTable {
    pub(super) w: usize,
    per: usize,
    windows: usize,
    points: Box<[Affine]>,
}

impl CombTable {
    /// Builds the table for a public base point (variable time, public data).
    pub fn new_vartime(base: &Affine, w: usize) -> Self {
        // Digits fit 64 windows (w ≥ 5) and scans 128 entries (w ≤ 8).
        assert!((5..=8).contains(&w), "comb width must be 5..=8");
        let per = 1usize << (w - 1);
        let windows = 256usize.div_ceil(w);
        let mut jac = Vec::with_capacity(windows * per);
        let mut b = base.to_jacobian();
        for _ in 0..windows {
            let b2 = b.double();
            let mut acc = b;
            jac.push(acc);
            for _ in 1..per {
                acc = acc.add_vartime(&b2);
                jac.push(acc);
            }
            // (2^w − 1)·b + b is the next window's base 2^w·b.
            b = acc.add_vartime(&b);
        }
        // The table depends only on the public base point, so the
        // variable-time batch inversion is allowed (never for secret points).
        CombTable { w, per, windows, points: batch_to_affine_vartime(&jac).into_boxed_slice() }
    }

    /// Memory held by the table's points, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.points.len() * core::mem::size_of::<Affine>()
    }

    /// The entry d·2^(w·win)·B for the digit (index, sign) = ((|d| − 1)/2,
    /// neg), scanning the whole sub-table.
    #[inline(always)]
    fn lookup(&self, win: usize, (idx, neg): (u64, Choice)) -> Affine {
        let mut p = scan(&self.points[win * self.per..(win + 1) * self.per], idx + 1);
        p.y = Fp::conditional_select(&p.y, &p.y.neg(), neg);
        p
    }

    /// k·B in constant time, for any k < 2^256: k made odd (k' = ±k mod n),
    /// recoded into ⌈256/w⌉ odd digits, the sign of k folded into the
    /// digits' signs; the first two entries are added as affine points and
    /// each other one with one mixed addition, with no select and no zero
    /// test. Why no addition but the last can meet an exceptional case:
    /// before window i ≥ 1 the accumulator is A·B with A = Σ_{j<i} d_j 2^(wj),
    /// odd (d_0 is) so non-zero, and |A| ≤ Σ (2^w − 1)·2^(wj) < 2^(wi); the
    /// added entry is d_i·2^(wi)·B with |d_i·2^(wi)| ≥ 2^(wi) > |A|. So A is
    /// never ±d_i·2^(wi) as integers, A·B is never infinity (0 < |A| < n),
    /// and modulo n they can meet only if |A| + |d_i·2^(wi)| (< 2^(w(i+1)))
    /// reaches n > 2^255, so only if w(i + 1) ≥ 256: the last window alone,
    /// as w·(windows − 1) ≤ 255. That last addition is the complete one: it
    /// selects the doubling if the two are equal (this happens: for w = 7,
    /// k' = 30·2^252 − n has last digit 15 and A = 15·2^252 − n; the tests
    /// cover such k for every width), and their being opposite (k ≡ 0)
    /// gives Z = 0, infinity, by itself.
    pub fn mul(&self, k: &Limbs) -> Jacobian {
        let (mut k, flip) = odd_scalar::<Sm2N>(k);
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_odd(&k, self.w, self.windows, flip, &mut digits);
        let acc = with_mul!(|b| {
            // Windows 0 and 1 (never the last: there are at least 32) add
            // as two affine points.
            let first = self.lookup(0, digits[0]);
            let mut acc = add_affine(b, &first, &self.lookup(1, digits[1]));
            for i in 2..self.windows {
                let p = self.lookup(i, digits[i]);
                acc = add_mixed(b, &acc, &p, i + 1 == self.windows);
            }
            acc
        });
        wipe_digits(&mut digits);
        k.iter_mut().for_each(|l| *l = 0);
        acc
    }

    /// k·B for a public k (direct indexing).
    pub fn mul_vartime(&self, k: &Limbs) -> Jacobian {
        let (k, flip) = odd_scalar::<Sm2N>(k);
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_odd(&k, self.w, self.windows, flip, &mut digits);
        with_mul!(|b| {
            let mut acc = Jacobian::IDENTITY;
            for (i, (idx, neg)) in digits.iter().enumerate().take(self.windows) {
                let p = self.points[i * self.per + *idx as usize];
                let p = if bool::from(*neg) { p.neg() } else { p };
                acc = add_mixed_vartime(b, &acc, &p);
            }
            acc
        })
    }
}

/// Width of the comb for G.
const G_COMB_W: usize = 7;

/// The comb for G (about 148 KiB at w = 7), built on first use from G alone.
pub fn g_table() -> &'static CombTable {
    static TABLE: OnceLock<CombTable> = OnceLock::new();
    TABLE.get_or_init(|| CombTable::new_vartime(&Affine::generator(), G_COMB_W))
}

/// k·G in constant time, for any k < 2^256: on eight IFMA lanes where
/// the CPU has them, else the scalar comb.
pub fn mul_g(k: &Limbs) -> Jacobian {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
        return ifma::mul_g(t, k);
    }
    g_table().mul(k)
}

/// The k·G engine [`mul_g`] uses: "ifma-512" (eight lanes of 52-bit
/// limbs), or "portable-64" for the one-lane comb (whose field products
/// follow the `montgomery` backend).
pub fn mul_g_name() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    if <crate::cpu::Ifma as crate::cpu::Token>::get().is_some() {
        return "ifma-512";
    }
    "portable-64"
}

/// k·G on the scalar comb whatever the CPU (the lanes' reference in tests).
#[cfg(test)]
pub fn mul_g_scalar(k: &Limbs) -> Jacobian {
    g_table().mul(k)
}
