//! The final exponentiation of [`super`] with the hard part on the IFMA
//! lanes ([`Fp12x`]): the easy part's inversion on the scalar tower, then
//! the same addition chain with lane products, the one-pass lane
//! cyclotomic square and the Frobenius maps as coefficient-wise lane
//! products. Chosen by [`super::final_exponentiation`] when [`Ifma`] is
//! available; the scalar twin is the reference the tests compare against.
//!
//! Constant time as the scalar code: every branch and loop bound is on
//! the public constant t.

use super::{T_NAF, T_NAF_TOP};
use crate::cpu::Ifma;
use crate::sm9::fp::Fp;
use crate::sm9::fp12::Fp12;
use crate::sm9::fp12_ifma::Fp12x;
use std::sync::OnceLock;

/// The p-, p²- and p³-power Frobenius maps' coefficient multipliers (on
/// the flattened coefficients each map is e_k ↦ e_k·m_k), as scalar
/// elements built once from the scalar maps.
fn frobenius_multipliers() -> &'static [Fp12; 3] {
    static M: OnceLock<[Fp12; 3]> = OnceLock::new();
    M.get_or_init(|| {
        let maps: [fn(&Fp12) -> Fp12; 3] = [Fp12::frobenius, Fp12::frobenius2, Fp12::frobenius3];
        maps.map(|m| {
            // m_k by m on the element with every coefficient 1: each
            // coefficient of the image is m_k·1.
            m(&Fp12::from_coefficients(&[Fp::ONE; 12]))
        })
    })
}

/// x^t on the lanes ([`super::final_exp::exp_by_t_plain`]'s chain: t's
/// NAF, Granger–Scott squarings, x⁻¹ = x̄; the lane squaring is cheaper
/// than Karabina's compressed one plus its decompression).
fn exp_by_t(t: Ifma, x: &Fp12x) -> Fp12x {
    let xi = x.conj(t);
    let mut acc = *x;
    for i in (0..T_NAF_TOP).rev() {
        acc = acc.cyclotomic_square(t);
        match T_NAF[i] {
            1 => acc = acc.mul(t, x),
            -1 => acc = acc.mul(t, &xi),
            _ => {}
        }
    }
    acc
}

/// [`super::final_exp::final_exponentiation`] with the hard part on the
/// lanes (the easy part's inversion on the scalar tower).
pub fn final_exponentiation(t: Ifma, f: &Fp12) -> Fp12 {
    let m = frobenius_multipliers();
    let (fr1, fr2, fr3) = (Fp12x::from_fp12(t, &m[0]), Fp12x::from_fp12(t, &m[1]), Fp12x::from_fp12(t, &m[2]));
    // Easy part: f^((p⁶ − 1)(p² + 1)).
    let f1 = Fp12x::from_fp12(t, &f.invert()).mul(t, &Fp12x::from_fp12(t, &f.conj()));
    let f = f1.mul_lanewise(t, &fr2).mul(t, &f1);
    // Hard part, as super::final_exp::hard_part.
    let fu = exp_by_t(t, &f);
    let fu2 = exp_by_t(t, &fu);
    let fu3 = exp_by_t(t, &fu2);
    let y0 = f.mul_lanewise(t, &fr1).mul(t, &f.mul_lanewise(t, &fr2)).mul(t, &f.mul_lanewise(t, &fr3));
    let y1 = f.conj(t);
    let y2 = fu2.mul_lanewise(t, &fr2);
    let y3 = fu.mul_lanewise(t, &fr1).conj(t);
    let y4 = fu.mul(t, &fu2.mul_lanewise(t, &fr1)).conj(t);
    let y5 = fu2.conj(t);
    let y6 = fu3.mul(t, &fu3.mul_lanewise(t, &fr1)).conj(t);
    let mut t0 = y6.cyclotomic_square(t).mul(t, &y4).mul(t, &y5);
    let mut t1 = y3.mul(t, &y5).mul(t, &t0);
    t0 = t0.mul(t, &y2);
    t1 = t1.cyclotomic_square(t).mul(t, &t0).cyclotomic_square(t);
    t0 = t1.mul(t, &y1);
    t1 = t1.mul(t, &y0);
    t0 = t0.cyclotomic_square(t);
    t0.mul(t, &t1).to_fp12(t)
}
