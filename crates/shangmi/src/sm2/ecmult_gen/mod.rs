//! k·G and k·B for a fixed base: SM2's entries for the one comb,
//! [`crate::arith::comb`] (libsecp256k1's ecmult_gen).
//!
//! SM2's rows hold affine points (64 bytes, [`Affine`]), so the first two
//! entries are added as two affine points and each other one with one
//! mixed addition with no select (the comb's proof says why no exceptional
//! case can reach them), the last with the mixed addition that selects the
//! doubling. For G: w = 7, 37 rows of 64 points (151,552 bytes), built on
//! first use; a prepared public key uses w = 6. Width choices are recorded
//! in bench/NOTES.md. Tables are built only for public points (G, a public
//! key), with variable-time additions and one variable-time batch
//! inversion.
//!
//! On CPUs with AVX-512 IFMA, k·G runs on eight lanes over the same
//! table's entries ([`ifma`]), overriding [`CombTable::mul`] for G.

use super::field::{Fp, Sm2N};
use super::point::{
    add_affine, add_mixed, add_mixed_vartime, batch_to_affine, batch_to_affine_vartime, Affine, Jacobian,
};
use crate::arith::comb::{self, CombGroup};
use crate::arith::with_mul;
use crate::arith::{scan, Limbs, MulBackend};
use std::sync::OnceLock;
use subtle::{Choice, ConditionallySelectable};

#[cfg(target_arch = "x86_64")]
mod ifma;

/// SM2's fixed-base comb: [`comb::CombTable`] over SM2's points, affine
/// entries.
pub type CombTable = comb::CombTable<Jacobian>;

/// SM2's points as comb entries: built as Jacobian points, stored and
/// looked up as affine points (the scan reads 64 bytes per entry), added
/// with the no-select additions of `sm2::point`.
impl CombGroup for Jacobian {
    type Order = Sm2N;
    type Point = Jacobian;
    type Entry = Affine;
    type Stored = Affine;

    fn double(p: &Jacobian) -> Jacobian {
        p.double()
    }
    fn add(p: &Jacobian, q: &Jacobian) -> Jacobian {
        Jacobian::add(p, q)
    }
    fn add_vartime(p: &Jacobian, q: &Jacobian) -> Jacobian {
        p.add_vartime(q)
    }
    fn store(points: &[Jacobian]) -> Vec<Affine> {
        batch_to_affine(points)
    }
    fn store_vartime(points: &[Jacobian]) -> Vec<Affine> {
        // The table depends only on a public base point, so the
        // variable-time batch inversion is allowed (never for secret points).
        batch_to_affine_vartime(points)
    }
    #[inline(always)]
    fn lookup(row: &[Affine], idx: u64) -> Affine {
        scan(row, idx + 1)
    }
    #[inline(always)]
    fn cneg(e: &Affine, neg: Choice) -> Affine {
        Affine { x: e.x, y: Fp::conditional_select(&e.y, &e.y.neg(), neg) }
    }
    fn to_point(e: &Affine) -> Jacobian {
        e.to_jacobian()
    }
    #[inline(always)]
    fn start<B: MulBackend>(b: B, e0: &Affine, e1: &Affine) -> Jacobian {
        add_affine(b, e0, e1)
    }
    #[inline(always)]
    fn add_entry<B: MulBackend>(b: B, p: &Jacobian, e: &Affine, complete: bool) -> Jacobian {
        add_mixed(b, p, e, complete)
    }
}

/// What only SM2 asks of its combs.
impl comb::CombTable<Jacobian> {
    /// The comb of width `w` (5..=8) for a public point (variable time).
    pub fn new_vartime(base: &Affine, w: usize) -> Self {
        Self::build_vartime(&base.to_jacobian(), w)
    }

    /// k·B for a public k (direct indexing).
    pub fn mul_vartime(&self, k: &Limbs) -> Jacobian {
        let mut digits = comb::no_digits();
        self.recode(k, &mut digits);
        with_mul!(|b| {
            let mut acc = Jacobian::IDENTITY;
            for (i, (idx, neg)) in digits.iter().enumerate().take(self.windows()) {
                let p = self.row(i)[*idx as usize];
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
