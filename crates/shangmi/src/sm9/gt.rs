//! GT, the order-n subgroup of Fp12* (inside the cyclotomic subgroup, so
//! squaring is Granger–Scott's and inversion is conjugation), and its
//! exponentiations: constant-time fixed window for secret exponents and a
//! fixed-base comb table for a fixed element (g of a master public key).

use super::fp::Fp;
use super::fp::Scalar;
use super::fp12::Fp12;
use super::window::{mul_fixed_window, FixedBaseTable, WindowGroup, Words, ENTRIES};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

/// An element of GT (always the output of a final exponentiation or a
/// product/power of such).
#[derive(Clone, Copy, Debug, Default)]
pub struct Gt(pub Fp12);

impl ConditionallySelectable for Gt {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Gt(Fp12::conditional_select(&a.0, &b.0, c))
    }
}

impl Zeroize for Gt {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

/// GT table rows: the first 8 Fp coefficients of each entry in one scan,
/// the last 4 in another (an entry is 384 bytes; a scan takes at most 256).
#[derive(Clone)]
pub struct GtRow {
    lo: [Words<32>; ENTRIES],
    hi: [Words<16>; ENTRIES],
}

impl core::fmt::Debug for GtRow {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("GtRow(..)")
    }
}

impl Zeroize for GtRow {
    fn zeroize(&mut self) {
        self.lo.iter_mut().for_each(Zeroize::zeroize);
        self.hi.iter_mut().for_each(Zeroize::zeroize);
    }
}

impl WindowGroup for Gt {
    type Row = GtRow;
    fn identity() -> Self {
        Gt(Fp12::ONE)
    }
    fn dbl(&self) -> Self {
        Gt(self.0.cyclotomic_square())
    }
    fn add_w(&self, o: &Self) -> Self {
        Gt(self.0.mul(&o.0))
    }
    fn add_complete(&self, o: &Self) -> Self {
        Gt(self.0.mul(&o.0))
    }
    fn cneg(&self, c: Choice) -> Self {
        Gt(Fp12::conditional_select(&self.0, &self.0.conj(), c))
    }
    fn make_row(entries: &[Self; ENTRIES]) -> GtRow {
        let words = |e: &Gt| {
            let mut w = [0u64; 48];
            for (k, c) in e.0.coefficients().iter().enumerate() {
                w[4 * k..4 * k + 4].copy_from_slice(c.mont_limbs());
            }
            w
        };
        let all: [[u64; 48]; ENTRIES] = core::array::from_fn(|j| words(&entries[j]));
        GtRow {
            lo: core::array::from_fn(|j| Words(core::array::from_fn(|i| all[j][i]))),
            hi: core::array::from_fn(|j| Words(core::array::from_fn(|i| all[j][32 + i]))),
        }
    }
    fn lookup(row: &GtRow, idx: u64) -> Self {
        let lo = crate::arith::scan(&row.lo, idx + 1).0;
        let hi = crate::arith::scan(&row.hi, idx + 1).0;
        let c = |k: usize| {
            let w = if k < 8 { &lo[4 * k..4 * k + 4] } else { &hi[4 * (k - 8)..4 * (k - 8) + 4] };
            Fp::from_mont_limbs([w[0], w[1], w[2], w[3]])
        };
        Gt(Fp12::from_coefficients(&core::array::from_fn(c)))
    }
}

impl Gt {
    pub fn mul(&self, o: &Self) -> Self {
        Gt(self.0.mul(&o.0))
    }

    /// self^k for a secret k, constant time.
    pub fn pow(&self, k: &Scalar) -> Self {
        let mut l = k.to_canonical();
        let r = mul_fixed_window(self, &l);
        l.zeroize();
        r
    }

    pub fn to_bytes(&self) -> [u8; 384] {
        self.0.to_bytes()
    }

    /// self^k via a fixed-base table of self.
    pub fn pow_table(t: &GtTable, k: &Scalar) -> Self {
        let mut l = k.to_canonical();
        let r = t.mul(&l);
        l.zeroize();
        r
    }
}

/// Fixed-base table for powers of one GT element.
pub type GtTable = FixedBaseTable<Gt>;
