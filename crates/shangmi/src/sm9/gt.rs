//! GT, the order-n subgroup of Fp12* (inside the cyclotomic subgroup, so
//! squaring is Granger–Scott's and inversion is conjugation), and its
//! exponentiations: constant-time fixed window for secret exponents and a
//! fixed-base comb table for a fixed element (g of a master public key).

use super::fp::Fp;
use super::fp::Scalar;
use super::fp::Sm9N;
use super::fp12::Fp12;
use super::window::mul_fixed_window;
use crate::arith::comb::{CombGroup, CombTable, Words};
use crate::arith::{scan_part, MulBackend};
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

/// GT elements as comb and window entries: the twelve Fp coefficients in
/// Montgomery form (384 bytes), read in two scans (the first eight
/// coefficients, then the last four: one scan returns at most 256 bytes);
/// negation is conjugation (GT lies in the cyclotomic subgroup), doubling
/// Granger–Scott's cyclotomic squaring, every addition one Fp12 product
/// (complete: no exceptional cases).
impl CombGroup for Gt {
    type Order = Sm9N;
    type Point = Gt;
    type Entry = Gt;
    type Stored = Words<48>;
    fn double(p: &Gt) -> Gt {
        Gt(p.0.cyclotomic_square())
    }
    fn add(p: &Gt, q: &Gt) -> Gt {
        p.mul(q)
    }
    fn store(points: &[Gt]) -> Vec<Words<48>> {
        points
            .iter()
            .map(|e| {
                let mut w = [0u64; 48];
                for (k, c) in e.0.coefficients().iter().enumerate() {
                    w[4 * k..4 * k + 4].copy_from_slice(c.mont_limbs());
                }
                Words(w)
            })
            .collect()
    }
    fn lookup(row: &[Words<48>], idx: u64) -> Gt {
        let lo: Words<32> = scan_part::<_, _, 0>(row, idx + 1);
        let hi: Words<16> = scan_part::<_, _, 256>(row, idx + 1);
        let c = |k: usize| {
            let w = if k < 8 { &lo.0[4 * k..4 * k + 4] } else { &hi.0[4 * (k - 8)..4 * (k - 8) + 4] };
            Fp::from_mont_limbs([w[0], w[1], w[2], w[3]])
        };
        Gt(Fp12::from_coefficients(&core::array::from_fn(c)))
    }
    fn cneg(e: &Gt, c: Choice) -> Gt {
        Gt(Fp12::conditional_select(&e.0, &e.0.conj(), c))
    }
    fn to_point(e: &Gt) -> Gt {
        *e
    }
    fn start<B: MulBackend>(_: B, e0: &Gt, e1: &Gt) -> Gt {
        e0.mul(e1)
    }
    fn add_entry<B: MulBackend>(_: B, p: &Gt, e: &Gt, _complete: bool) -> Gt {
        p.mul(e)
    }
}

impl Gt {
    /// self·o (on the IFMA lanes when the CPU has them).
    pub fn mul(&self, o: &Self) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
            return Gt(super::fp12_ifma::mul(t, &self.0, &o.0));
        }
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
    /// On the IFMA lanes when the CPU has them ([`super::gt_ifma`]).
    pub fn pow_table(t: &GtTable, k: &Scalar) -> Self {
        let mut l = k.to_canonical();
        #[cfg(target_arch = "x86_64")]
        if let Some(tok) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
            let r = comb_mul(tok, t, &l);
            l.zeroize();
            return r;
        }
        let r = t.mul(&l);
        l.zeroize();
        r
    }
}

/// Fixed-base table for powers of one GT element.
pub type GtTable = CombTable<Gt>;

/// k·B for the table's base B with the accumulator on the IFMA lanes: the
/// same recoding and constant-time whole-row scans as
/// [`crate::arith::comb::CombTable::mul`] (every product in GT is
/// complete, so no row needs a special case), one lane product per row
/// (each scanned entry converted to the lanes, the sum converted back once).
#[cfg(target_arch = "x86_64")]
fn comb_mul(t: crate::cpu::Ifma, table: &GtTable, k: &crate::arith::Limbs) -> Gt {
    use super::fp12_ifma::Fp12x;
    use crate::arith::{comb::no_digits, wipe_digits};
    let mut digits = no_digits();
    table.recode(k, &mut digits);
    let entry = |i: usize| Fp12x::from_fp12(t, &table.entry(i, digits[i]).0);
    let mut acc = entry(0).mul(t, &entry(1));
    for i in 2..table.windows() {
        acc = acc.mul(t, &entry(i));
    }
    wipe_digits(&mut digits);
    Gt(acc.to_fp12(t))
}

#[cfg(all(test, target_arch = "x86_64"))]
mod ifma_tests {
    use super::*;
    use crate::cpu::{Ifma, Token};
    use crate::sm9::fp::Scalar;
    use crate::sm9::window::comb;
    use subtle::ConstantTimeEq;

    /// The lane comb and product against Fp12's square-and-multiply on the
    /// scalar tower, for small, edge (n − 1, 0) and random exponents.
    #[test]
    fn lane_comb_matches_scalar_pow() {
        let Some(t) = Ifma::get() else { return };
        let g = Gt(crate::sm9::pairing::pairing(&crate::sm9::g1::P1, &crate::sm9::g2::P2));
        let table = comb(&g);
        let mut s = 0x6a7e_0000_5eed_0001u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let n1 = Scalar::ZERO.sub(&Scalar::ONE).to_canonical();
        let mut ks = vec![[1, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0], n1];
        ks.extend((0..6).map(|_| Scalar::from_limbs_reduce(&[next(), next(), next(), next() >> 1]).to_canonical()));
        for k in ks {
            let want = g.0.pow_vartime(&k);
            assert!(bool::from(comb_mul(t, &table, &k).0.ct_eq(&want)), "{k:x?}");
        }
        let h = Gt(g.0.frobenius());
        assert!(bool::from(g.mul(&h).0.ct_eq(&g.0.mul(&h.0))));
    }
}
