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

/// The odd k = 1 + Σ v_i·2^(7i + 1) whose comb digits read the window
/// values `v` (`arith::recode_odd`: v = 127 is entry 63 positive, 0 entry
/// 63 negative, 64 entry 0 positive, 63 entry 0 negative), window 36's
/// value 3; with `rot`, the pattern starts `rot` windows in.
fn digit_pattern(v: &[u64], rot: usize) -> Limbs {
    let mut k = [1u64, 0, 0, 0];
    let mut put = |bit: usize, val: u64| {
        for b in 0..7 {
            if (val >> b) & 1 == 1 && bit + b < 256 {
                k[(bit + b) / 64] |= 1 << ((bit + b) % 64);
            }
        }
    };
    for i in 0..G_WINDOWS - 1 {
        put(7 * i + 1, v[(i + rot) % v.len()]);
    }
    put(7 * (G_WINDOWS - 1) + 1, 3);
    k
}

/// Scalars whose digits hit the comb rows' first and last entries with
/// both signs in every window, and the permute's pair boundaries (entries
/// 15/16, 31/32, 47/48), beside the edge scalars.
fn digit_edge_scalars() -> Vec<[Limbs; LANES]> {
    let ends = [127, 0, 64, 63];
    // Entries 15, 16, 31, 32, 47, 48 positive (v = 64 + e) and negative
    // (v = 63 − e).
    let bounds = [79, 80, 95, 96, 111, 112, 48, 47, 32, 31, 16, 15];
    let n = crate::sm2::field::N;
    let neg = |k: &Limbs| {
        let (d, _) = crate::arith::sub_limbs(&n, k);
        d
    };
    let a: [Limbs; LANES] = core::array::from_fn(|l| digit_pattern(&ends, l % 4));
    let b: [Limbs; LANES] = core::array::from_fn(|l| digit_pattern(&bounds, l));
    // n − k: even, so recoded as k with every sign flipped.
    let c: [Limbs; LANES] = core::array::from_fn(|l| neg(&if l < 4 { a[l] } else { b[l] }));
    let d: [Limbs; LANES] = core::array::from_fn(|l| digit_pattern(&[[127; 4], [0; 4], [64; 4], [63; 4]][l % 4], 0));
    vec![a, b, c, d]
}

#[test]
fn digit_edge_scalars_reach_every_row_end_and_sign() {
    // What the next test's differential covers: in every window below the
    // last, entries 0 and 63 each with both signs, and entries 15, 16, 31,
    // 32, 47, 48.
    let g = g_table();
    let mut seen = [[[false; 2]; G_PER]; G_WINDOWS - 1];
    let mut digits = crate::arith::comb::no_digits();
    for ks in digit_edge_scalars() {
        for k in &ks {
            g.recode(k, &mut digits);
            for w in 0..G_WINDOWS - 1 {
                seen[w][digits[w].0 as usize][usize::from(digits[w].1.unwrap_u8())] = true;
            }
        }
    }
    for w in 0..G_WINDOWS - 1 {
        for e in [0, 63] {
            assert_eq!(seen[w][e], [true, true], "window {w} entry {e}");
        }
        for e in [15, 16, 31, 32, 47, 48] {
            assert!(seen[w][e][0] || seen[w][e][1], "window {w} entry {e}");
        }
    }
}

#[test]
fn mul_g8_matches_scalar_comb() {
    let Some(t) = Ifma::get() else {
        eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
        return;
    };
    let mut next = crate::test_rng(0x5eed_0001);
    let mut sets = edge_scalars();
    sets.extend(digit_edge_scalars());
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

#[test]
fn mul_g8_reproduces_the_standard_signature_example() {
    // GB/T 32918.5-2016 Annex A (tests/vectors/sm2.json, "sm2-sign-sm2p256v1"):
    // d, k and r for M = "message digest", ID = "1234567812345678", where
    // r = e + x(k·G) mod n. k sits in lanes 0 and 7 beside other scalars.
    let Some(t) = Ifma::get() else {
        eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
        return;
    };
    let b32 = |s: &str| -> [u8; 32] { hex::decode(s).unwrap().try_into().unwrap() };
    let d = b32("3945208f7b2144b13f36e38ac6d39f95889393692860b51a42fb81ef4df7c5b8");
    let k = crate::arith::limbs_from_be(&b32("59276e27d506861a16680f3ad9c02dccef3cc1fa3cdbe4ce6d54b80deac1bc21"));
    let r = b32("f5a03b0648d2c4630eeac513e1bb81a15944da3827d5b74143ac7eaceee720b3");
    let key = crate::sm2::PrivateKey::from_bytes(&d).unwrap();
    let e = key.digest(b"message digest", b"1234567812345678").unwrap();
    let mut next = crate::test_rng(0x5eed_0004);
    let mut ks = scalars(&mut next);
    ks[0] = k;
    ks[7] = k;
    let got = mul_g8(t, &ks);
    for l in [0, 7] {
        let x = got[l].to_affine().unwrap().x;
        let x1 = Scalar::from_limbs_reduce(&x.to_canonical());
        let ef = Scalar::from_limbs_reduce(&crate::arith::limbs_from_be(&e));
        assert_eq!(ef.add(&x1).to_be_bytes(), r, "lane {l}");
    }
}
