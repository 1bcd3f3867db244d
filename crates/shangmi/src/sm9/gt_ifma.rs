//! GT's fixed-base comb ([`super::gt::GtTable`]) with the accumulator on
//! the IFMA lanes: the same recoding, the same constant-time whole-row
//! scans, one lane product per row instead of a scalar-tower Fp12 product
//! (each scanned entry converted to the lanes, the sum converted back
//! once).

#![cfg(target_arch = "x86_64")]

use super::fp12_ifma::Fp12x;
use super::gt::{Gt, GtTable};
use crate::arith::comb::no_digits;
use crate::arith::{wipe_digits, Limbs};
use crate::cpu::Ifma;

/// k·B for the table's base B (as [`crate::arith::comb::CombTable::mul`]:
/// every product in GT is complete, so no row needs a special case).
pub fn comb_mul(t: Ifma, table: &GtTable, k: &Limbs) -> Gt {
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

/// a·b on the lanes, scalar in and out.
pub fn mul(t: Ifma, a: &Gt, b: &Gt) -> Gt {
    Gt(super::fp12_ifma::mul(t, &a.0, &b.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;
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
        assert!(bool::from(mul(t, &g, &h).0.ct_eq(&g.0.mul(&h.0))));
    }
}
