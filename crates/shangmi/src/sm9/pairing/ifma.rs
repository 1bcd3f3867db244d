//! The Miller loops of [`super`] with the Fp12 accumulator on the IFMA
//! lanes ([`Fp12x`]): the same steps in the same order, the value
//! converted to the lanes once at the start and back once at the end. The
//! G2 point steps and the lines' Fp2 arithmetic stay on the scalar tower.
//! Chosen by [`super::miller_loop`] and
//! [`super::multi_miller_loop_prepared`] when [`Ifma`] is available; the
//! scalar loops remain the reference the tests compare against.
//!
//! Constant time as the scalar code: every branch and loop bound is on
//! the public constant 6t + 2.

use super::{add_step, double_step, G2Prepared, Line, Proj, ATE_NAF, ATE_NAF_TOP};
use crate::cpu::Ifma;
use crate::sm9::fp::Fp;
use crate::sm9::fp12::Fp12;
use crate::sm9::fp12_ifma::Fp12x;
use crate::sm9::g1::G1Affine;
use crate::sm9::g2::{self, G2Affine};

/// P with both coordinates times 16: l1·yP·16 and l2·xP·16 come out in the
/// lanes' form (x·2^260) with no per-line conversion.
#[derive(Clone, Copy)]
struct Scaled {
    x: Fp,
    y: Fp,
}

fn scaled(p: &G1Affine) -> Scaled {
    let x16 = |v: &Fp| v.double().double().double().double();
    Scaled { x: x16(&p.x), y: x16(&p.y) }
}

#[inline(always)]
fn eval(t: Ifma, f: &Fp12x, l: &Line, p: &Scaled) -> Fp12x {
    f.mul_by_line_scaled(t, &l.l0, &l.l1.mul_fp(&p.y), &l.l2.mul_fp(&p.x))
}

/// [`super::pairing::multi_miller_loop_prepared`] on the lanes.
pub fn multi_miller_loop_prepared(t: Ifma, pairs: &[(&G1Affine, &G2Prepared)]) -> Fp12 {
    let ps: Vec<Scaled> = pairs.iter().map(|(p, _)| scaled(p)).collect();
    let pairs: Vec<(&Scaled, &G2Prepared)> = ps.iter().zip(pairs.iter()).map(|(s, (_, q))| (s, *q)).collect();
    let mut f = Fp12x::one(t);
    let mut idx = 0;
    let top = ATE_NAF_TOP;
    for i in (0..top).rev() {
        if i != top - 1 {
            f = f.square(t);
        }
        for (p, q) in &pairs {
            f = eval(t, &f, &q.lines[idx], p);
        }
        idx += 1;
        if ATE_NAF[i] != 0 {
            for (p, q) in &pairs {
                f = eval(t, &f, &q.lines[idx], p);
            }
            idx += 1;
        }
    }
    for _ in 0..2 {
        for (p, q) in &pairs {
            f = eval(t, &f, &q.lines[idx], p);
        }
        idx += 1;
    }
    f.to_fp12(t)
}

/// [`super::pairing::miller_loop`] on the lanes (lines computed on the fly).
pub fn miller_loop(t: Ifma, p: &G1Affine, q: &G2Affine) -> Fp12 {
    let p = &scaled(p);
    let mut f = Fp12x::one(t);
    let mut tp = Proj { x: q.x, y: q.y, z: crate::sm9::fp2::Fp2::ONE };
    let nq = q.neg();
    let top = ATE_NAF_TOP;
    for i in (0..top).rev() {
        if i != top - 1 {
            f = f.square(t);
        }
        let l = double_step(&mut tp);
        f = eval(t, &f, &l, p);
        if ATE_NAF[i] != 0 {
            let l = add_step(&mut tp, if ATE_NAF[i] == 1 { q } else { &nq });
            f = eval(t, &f, &l, p);
        }
    }
    let q1 = g2::frobenius(q);
    let q2 = g2::frobenius2(q).neg();
    let l = add_step(&mut tp, &q1);
    f = eval(t, &f, &l, p);
    let l = add_step(&mut tp, &q2);
    eval(t, &f, &l, p).to_fp12(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;
    use crate::sm9::final_exp::{self, ifma::final_exponentiation};
    use crate::sm9::g1::P1;
    use crate::sm9::g2::P2;
    use crate::sm9::pairing;
    use crate::sm9::window::mul_fixed_window;
    use subtle::ConstantTimeEq;

    fn eq(a: &Fp12, b: &Fp12) -> bool {
        bool::from(a.ct_eq(b))
    }

    use crate::sm9::test_rng::Sm9Rng;

    /// The lane Miller loops and final exponentiation against their scalar
    /// twins on random points and elements (P1, P2 themselves included).
    #[test]
    fn lane_pairing_matches_scalar() {
        let Some(t) = Ifma::get() else {
            eprintln!("no AVX-512 IFMA (or masked): lane pairing tests skipped");
            return;
        };
        let mut rng = Sm9Rng::new(0x9a1e_0000_5eed_0001);
        for round in 0..6 {
            let (p, q) = if round == 0 {
                (P1, P2)
            } else {
                let p = mul_fixed_window(&P1.to_jacobian(), &rng.scalar().to_canonical()).to_affine().unwrap();
                let q = mul_fixed_window(&P2.to_jacobian(), &rng.scalar().to_canonical()).to_affine().unwrap();
                (p, q)
            };
            let f = miller_loop(t, &p, &q);
            assert!(eq(&f, &pairing::miller_loop_scalar(&p, &q)), "miller loop {round}");
            let (qp, p2) = (G2Prepared::new(&q), mul_fixed_window(&P1.to_jacobian(), &rng.scalar().to_canonical()));
            let p2 = p2.to_affine().unwrap();
            let pairs = [(&p, &qp), (&p2, &qp)];
            assert!(eq(&multi_miller_loop_prepared(t, &pairs), &pairing::multi_miller_loop_prepared_scalar(&pairs)));
            assert!(eq(&final_exponentiation(t, &f), &final_exp::final_exponentiation_scalar(&f)), "final exp {round}");
            let r = rng.fp12();
            assert!(eq(&final_exponentiation(t, &r), &final_exp::final_exponentiation_scalar(&r)), "random {round}");
        }
        // The zero element (not invertible) maps to zero on both paths.
        assert!(eq(&final_exponentiation(t, &Fp12::ZERO), &final_exp::final_exponentiation_scalar(&Fp12::ZERO)));
    }
}
