//! The lanes against the one-at-a-time scalar code (independent formulas
//! and field): see `tests/sm2_lanes.rs` for the batch APIs.

use super::*;
use crate::cpu::Token;
use crate::sm2::ecmult_gen::mul_g_scalar;
use crate::sm2::field::Scalar;

fn same(a: &Jacobian, b: &Jacobian) -> bool {
    // Equal as points: X1·Z2² = X2·Z1², Y1·Z2³ = Y2·Z1³ (or both infinity).
    let (ai, bi) = (bool::from(a.is_identity()), bool::from(b.is_identity()));
    if ai || bi {
        return ai && bi;
    }
    let (z1, z2) = (a.z.square(), b.z.square());
    a.x.mul(&z2).to_canonical() == b.x.mul(&z1).to_canonical()
        && a.y.mul(&z2).mul(&b.z).to_canonical() == b.y.mul(&z1).mul(&a.z).to_canonical()
}

fn scalars(next: &mut impl FnMut() -> u64) -> [Limbs; LANES] {
    core::array::from_fn(|_| Scalar::from_limbs_reduce(&[next(), next(), next(), next()]).to_canonical())
}

fn edge_scalars() -> Vec<[Limbs; LANES]> {
    let n = crate::sm2::field::N;
    let nm1 = [n[0] - 1, n[1], n[2], n[3]];
    let nm2 = [n[0] - 2, n[1], n[2], n[3]];
    let small = |v: u64| [v, 0, 0, 0];
    vec![
        [small(1), small(2), small(3), nm1, nm2, small(0), n, [u64::MAX; 4]],
        [[0, 0, 0, 1 << 63], small(31), small(32), small(33), [1 << 7, 0, 0, 0], [0, 0, 0, 0x0f00], small(64), nm1],
    ]
}

fn points(next: &mut impl FnMut() -> u64) -> [Affine; LANES] {
    let ks = scalars(next);
    let js: Vec<Jacobian> = ks.iter().map(mul_g_scalar).collect();
    let aff = crate::sm2::point::batch_to_affine_vartime(&js);
    core::array::from_fn(|l| aff[l])
}

#[test]
fn mul_g8_matches_scalar_comb() {
    let Some(t) = Ifma::get() else {
        eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
        return;
    };
    let mut next = crate::test_rng(0x5eed_0001);
    let mut sets = edge_scalars();
    sets.extend((0..6).map(|_| scalars(&mut next)));
    for ks in sets {
        let got = mul_g8(t, &ks);
        for l in 0..LANES {
            assert!(same(&got[l], &mul_g_scalar(&ks[l])), "lane {l}, k = {:x?}", ks[l]);
        }
    }
}

#[test]
fn mul8_matches_ecmult_const() {
    let Some(t) = Ifma::get() else {
        eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
        return;
    };
    let mut next = crate::test_rng(0x5eed_0002);
    let mut sets = edge_scalars();
    sets.extend((0..4).map(|_| scalars(&mut next)));
    for ks in sets {
        let ps = points(&mut next);
        let got = mul8(t, &ps, &ks);
        for l in 0..LANES {
            let want = crate::sm2::ecmult_const::mul(&ps[l], &ks[l]);
            assert!(same(&got[l], &want), "lane {l}, k = {:x?}", ks[l]);
        }
    }
}

#[test]
fn double_mul8_matches_scalar_and_flags_exceptions() {
    let Some(t) = Ifma::get() else {
        eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
        return;
    };
    let mut next = crate::test_rng(0x5eed_0003);
    for round in 0..6 {
        let mut s = scalars(&mut next);
        let mut tt = scalars(&mut next);
        let mut ps = points(&mut next);
        if round == 0 {
            // s·G = t·P (P = G, s = t) and s·G = −t·P (P = −G): flagged.
            ps[2] = Affine::generator();
            tt[2] = s[2];
            ps[5] = Affine::generator().neg();
            tt[5] = s[5];
            // Edge scalars 1 and n − 1.
            let n = crate::sm2::field::N;
            s[0] = [1, 0, 0, 0];
            tt[1] = [n[0] - 1, n[1], n[2], n[3]];
        }
        let (got, flagged) = double_mul8_vartime(t, &s, &tt, &ps);
        for l in 0..LANES {
            let want = crate::sm2::ecmult::double_mul_vartime(&s[l], &tt[l], &ps[l], None);
            let exceptional = round == 0 && (l == 2 || l == 5);
            assert_eq!(flagged[l], exceptional, "round {round} lane {l} flag");
            if !exceptional {
                assert!(same(&got[l], &want), "round {round} lane {l}");
            }
        }
    }
}
