//! Unit tests of the tower, curves and pairing: field axioms per level from
//! one template, every named constant recomputed from its definition, and
//! every fast path against its plain twin on random inputs.

use super::final_exp::{easy_part, final_exponentiation};
use super::fp::*;
use super::fp12::*;
use super::fp2::Fp2;
use super::fp4::Fp4;
use super::g1::{self, P1};
use super::g2::{self, P2};
use super::gt::Gt;
use super::pairing::*;
use super::window::{comb, mul_fixed_window};
use crate::arith::curve::Jacobian;
use crate::arith::Modulus;
use num_bigint::BigUint;
use subtle::ConstantTimeEq;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn vectors() -> serde_json::Value {
    let s = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/sm9.json")).unwrap();
    serde_json::from_str(&s).unwrap()
}

use super::test_rng::Sm9Rng;

fn limbs_of(b: &BigUint) -> Vec<u64> {
    b.to_u64_digits()
}

fn p_big() -> BigUint {
    BigUint::from_bytes_be(&crate::arith::limbs_to_be(&Sm9P::M))
}

fn n_big() -> BigUint {
    BigUint::from_bytes_be(&crate::arith::limbs_to_be(&Sm9N::M))
}

/// One template for the field axioms of every tower level.
macro_rules! field_axioms {
    ($name:ident, $t:ty, $gen:ident) => {
        #[test]
        fn $name() {
            let mut r = Sm9Rng::new(0x1234_5678_9abc_def1);
            for _ in 0..20 {
                let (a, b, c) = (r.$gen(), r.$gen(), r.$gen());
                let eq = |x: &$t, y: &$t| bool::from(x.ct_eq(y));
                assert!(eq(&a.mul(&b), &b.mul(&a)), "commutative");
                assert!(eq(&a.mul(&b).mul(&c), &a.mul(&b.mul(&c))), "associative");
                assert!(eq(&a.mul(&b.add(&c)), &a.mul(&b).add(&a.mul(&c))), "distributive");
                assert!(eq(&a.square(), &a.mul(&a)), "square");
                assert!(eq(&a.add(&b).sub(&b), &a), "sub");
                assert!(eq(&a.add(&a.neg()), &<$t>::ZERO), "neg");
                assert!(eq(&a.mul(&<$t>::ONE), &a), "one");
                assert!(eq(&a.mul(&a.invert()), &<$t>::ONE), "inverse");
                assert!(bool::from(<$t>::ZERO.invert().is_zero()), "0 maps to 0");
            }
        }
    };
}
field_axioms!(fp2_axioms, Fp2, fp2);
field_axioms!(fp4_axioms, Fp4, fp4);
field_axioms!(fp12_axioms, Fp12, fp12);

#[test]
fn tower_nonresidues() {
    // u² = −2, v² = u, w³ = v.
    let u = Fp2::new(Fp::ZERO, Fp::ONE);
    assert!(bool::from(u.square().ct_eq(&Fp2::from_fp(fp_small(2).neg()))));
    let v = Fp4::new(Fp2::ZERO, Fp2::ONE);
    assert!(bool::from(v.square().ct_eq(&Fp4::new(u, Fp2::ZERO))));
    let w = Fp12 { c0: Fp4::ZERO, c1: Fp4::ONE, c2: Fp4::ZERO };
    assert!(bool::from(w.square().mul(&w).ct_eq(&Fp12 { c0: v, c1: Fp4::ZERO, c2: Fp4::ZERO })));
    // −2 is not a square mod p (Fp2 is a field) and u is not a square in Fp2 (Fp4 is a field).
    assert!(fp_sqrt_vartime(&fp_small(2).neg()).is_none());
    assert!(u.sqrt_vartime().is_none());
}

#[test]
fn frobenius_constants() {
    // γ_{1,i} = u^(i(p−1)/6).
    let u = Fp2::new(Fp::ZERO, Fp::ONE);
    let e = (p_big() - 1u32) / 6u32;
    let g1 = u.pow_vartime(&limbs_of(&e));
    let gs = [G11, G12, G13, G14, G15];
    let mut acc = Fp2::ONE;
    for g in gs {
        acc = acc.mul(&g1);
        assert!(bool::from(acc.ct_eq(&Fp2::from_fp(g))));
    }
    // The p², p³ coefficients used by frobenius2/3 follow from these.
    let e2 = (p_big().pow(2) - 1u32) / 6u32;
    assert!(bool::from(u.pow_vartime(&limbs_of(&e2)).ct_eq(&Fp2::from_fp(G12))));
    let e3 = (p_big().pow(3) - 1u32) / 6u32;
    assert!(bool::from(u.pow_vartime(&limbs_of(&e3)).ct_eq(&Fp2::from_fp(G13))));
    // The loop constant.
    assert_eq!(ATE_LOOP, 6 * T as u128 + 2);
}

#[test]
fn frobenius_matches_exponentiation() {
    let mut r = Sm9Rng::new(7);
    let p = limbs_of(&p_big());
    for _ in 0..3 {
        let a = r.fp12();
        let ap = a.pow_vartime(&p);
        assert!(bool::from(a.frobenius().ct_eq(&ap)));
        assert!(bool::from(a.frobenius2().ct_eq(&ap.pow_vartime(&p))));
        assert!(bool::from(a.frobenius3().ct_eq(&a.frobenius2().frobenius())));
        let p6 = limbs_of(&p_big().pow(6));
        assert!(bool::from(a.conj().ct_eq(&a.pow_vartime(&p6))));
        let x = r.fp2();
        assert!(bool::from(x.conj().ct_eq(&x.pow_vartime(&p))));
    }
}

#[test]
fn twist_frobenius_is_the_untwisted_frobenius() {
    // π'(Q) must satisfy π'(Q) = [p]Q on G2 (Frobenius acts as p on the trace-zero subgroup).
    let q = P2;
    let fq = g2::frobenius(&q);
    let pq = q.to_jacobian().mul_vartime(&Sm9P::M).to_affine_vartime().unwrap();
    assert!(bool::from(fq.x.ct_eq(&pq.x) & fq.y.ct_eq(&pq.y)));
    let f2 = g2::frobenius2(&q);
    let f2b = g2::frobenius(&fq);
    assert!(bool::from(f2.x.ct_eq(&f2b.x) & f2.y.ct_eq(&f2b.y)));
}

#[test]
fn cyclotomic_square_matches_square() {
    let mut r = Sm9Rng::new(11);
    for _ in 0..5 {
        let f = easy_part(&r.fp12());
        assert!(bool::from(f.cyclotomic_square().ct_eq(&f.square())));
    }
}

#[test]
fn exp_by_t_naf_matches_binary_and_plain_power() {
    use super::final_exp::{exp_by_t, T_NAF};
    let sum: i128 = T_NAF.iter().enumerate().map(|(i, &d)| (d as i128) << i).sum();
    assert_eq!(sum, T as i128);
    assert!(T_NAF.windows(2).all(|w| w[0] == 0 || w[1] == 0), "non-adjacent");
    let mut r = Sm9Rng::new(19);
    let f = easy_part(&r.fp12());
    let binary = {
        let mut acc = f;
        for i in (0..(63 - T.leading_zeros())).rev() {
            acc = acc.cyclotomic_square();
            if (T >> i) & 1 == 1 {
                acc = acc.mul(&f);
            }
        }
        acc
    };
    assert!(bool::from(exp_by_t(&f).ct_eq(&binary)));
    assert!(bool::from(exp_by_t(&f).ct_eq(&f.pow_vartime(&[T]))));
}

#[test]
fn karabina_compressed_squares_match_cyclotomic_squares() {
    use super::final_exp::Compressed;
    let mut r = Sm9Rng::new(23);
    for _ in 0..3 {
        let f = easy_part(&r.fp12());
        let mut c = Compressed::of(&f);
        let mut plain = f;
        for _ in 0..5 {
            c = c.square();
            plain = plain.square();
            assert!(bool::from(c.decompress().ct_eq(&plain)));
        }
    }
    // The identity (all four compressed coefficients zero) and a square of it.
    assert!(bool::from(Compressed::of(&Fp12::ONE).square().decompress().ct_eq(&Fp12::ONE)));
}

#[test]
fn exp_by_t_with_compressed_run_matches_plain_twin() {
    use super::final_exp::{exp_by_t, exp_by_t_plain};
    let mut r = Sm9Rng::new(29);
    for _ in 0..4 {
        let f = easy_part(&r.fp12());
        assert!(bool::from(exp_by_t(&f).ct_eq(&exp_by_t_plain(&f))));
    }
    assert!(bool::from(exp_by_t(&Fp12::ONE).ct_eq(&Fp12::ONE)));
}

#[test]
fn sparse_line_matches_full_multiplication() {
    let mut r = Sm9Rng::new(13);
    for _ in 0..5 {
        let f = r.fp12();
        let (l0, l1, l2) = (r.fp2(), r.fp2(), r.fp2());
        let full = Fp12 { c0: Fp4::new(l0, l1), c1: Fp4::ZERO, c2: Fp4::new(l2, Fp2::ZERO) };
        assert!(bool::from(f.mul_by_line(&l0, &l1, &l2).ct_eq(&f.mul(&full))));
    }
}

#[test]
fn final_exponentiation_matches_plain_power() {
    let mut r = Sm9Rng::new(17);
    let e = (p_big().pow(12) - 1u32) / n_big();
    let f = r.fp12();
    assert!(bool::from(final_exponentiation(&f).ct_eq(&f.pow_vartime(&limbs_of(&e)))));
}

fn g1_mul(k: &Scalar) -> g1::G1Affine {
    mul_fixed_window(&P1.to_jacobian(), &k.to_canonical()).to_affine().unwrap()
}

fn g2_mul(k: &Scalar) -> g2::G2Affine {
    mul_fixed_window(&P2.to_jacobian(), &k.to_canonical()).to_affine().unwrap()
}

#[test]
fn pairing_g_vector_and_properties() {
    let v = vectors();
    let s = &v["sign"][0];
    let ppub = g2::decode(&hex(s["master_public_key_ppub_s"].as_str().unwrap()), "Ppub").unwrap();
    let g = pairing(&P1, &ppub);
    let expect: String = s["g_pairing"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert_eq!(g.to_bytes().to_vec(), hex(&expect));
    assert_eq!(Fp12::from_bytes(&g.to_bytes()).unwrap().to_bytes(), g.to_bytes());
    // Non-degenerate, order n.
    let e = pairing(&P1, &P2);
    assert!(!bool::from(e.is_one()));
    assert!(bool::from(e.pow_vartime(&Sm9N::M).is_one()));
    // Bilinear: e([a]P1, [b]P2) = e(P1, P2)^(ab).
    let mut r = Sm9Rng::new(19);
    let (a, b) = (r.scalar(), r.scalar());
    let lhs = pairing(&g1_mul(&a), &g2_mul(&b));
    let rhs = Gt(e).pow(&a.mul(&b)).0;
    assert!(bool::from(lhs.ct_eq(&rhs)));
    assert!(bool::from(pairing(&g1_mul(&a), &P2).ct_eq(&pairing(&P1, &g2_mul(&a)))));
}

#[test]
fn prepared_and_multi_pairing_match_plain() {
    let mut r = Sm9Rng::new(23);
    let (a, b, c) = (r.scalar(), r.scalar(), r.scalar());
    let (p, q) = (g1_mul(&a), g2_mul(&b));
    let (p2, q2) = (g1_mul(&c), P2);
    let (pq, pq2) = (G2Prepared::new(&q), G2Prepared::new(&q2));
    assert_eq!(pq.lines.len(), LINE_COUNT);
    assert!(bool::from(multi_miller_loop_prepared(&[(&p, &pq)]).ct_eq(&miller_loop(&p, &q))));
    let prod = pairing(&p, &q).mul(&pairing(&p2, &q2));
    assert!(bool::from(multi_pairing_prepared(&[(&p, &pq), (&p2, &pq2)]).ct_eq(&prod)));
}

#[test]
fn fixed_base_and_window_match_plain_multiplication() {
    let mut r = Sm9Rng::new(29);
    let t1 = comb(&P1.to_jacobian());
    let t2 = comb(&P2.to_jacobian());
    let g = Gt(pairing(&P1, &P2));
    let tg = comb(&g);
    // Scalars as limbs: small, n − 1, n − 2, 2^255, 2^256 − 1 (reduced mod n
    // by the recoding) and random ones; also a base other than P1/P2.
    let nm = |k: u64| crate::arith::sub_limbs(&Sm9N::M, &[k, 0, 0, 0]).0;
    let mut edge: Vec<[u64; 4]> =
        vec![[1, 0, 0, 0], [2, 0, 0, 0], [16, 0, 0, 0], [31, 0, 0, 0], nm(1), nm(2), [0, 0, 0, 1 << 63], [u64::MAX; 4]];
    edge.extend((0..6).map(|_| r.scalar().to_canonical()));
    let q1 = g1_mul(&r.scalar()).to_jacobian();
    let tq = comb(&q1);
    for kl in edge {
        let plain1 = P1.to_jacobian().mul_vartime(&kl);
        assert!(bool::from(t1.mul(&kl).ct_eq_point(&plain1)));
        assert!(bool::from(mul_fixed_window(&P1.to_jacobian(), &kl).ct_eq_point(&plain1)));
        assert!(bool::from(tq.mul(&kl).ct_eq_point(&q1.mul_vartime(&kl))));
        let plain2 = P2.to_jacobian().mul_vartime(&kl);
        assert!(bool::from(t2.mul(&kl).ct_eq_point(&plain2)));
        assert!(bool::from(mul_fixed_window(&P2.to_jacobian(), &kl).ct_eq_point(&plain2)));
        let plain_g = g.0.pow_vartime(&kl);
        assert!(bool::from(tg.mul(&kl).0.ct_eq(&plain_g)));
        assert!(bool::from(mul_fixed_window(&g, &kl).0.ct_eq(&plain_g)));
    }
    let k = r.scalar();
    assert!(bool::from(Gt::pow_table(&tg, &k).0.ct_eq(&g.pow(&k).0)));
    // k = 0 gives the identity.
    assert!(bool::from(t1.mul(&[0; 4]).is_identity()));
    assert!(bool::from(mul_fixed_window(&P1.to_jacobian(), &Sm9N::M).is_identity()));
    assert!(bool::from(tg.mul(&[0; 4]).0.is_one()));
}

#[test]
fn point_addition_edge_cases() {
    let p = P1.to_jacobian();
    let id = Jacobian::<Fp>::IDENTITY;
    assert!(bool::from(p.add(&p).ct_eq_point(&p.double())));
    assert!(bool::from(p.add(&p.neg()).is_identity()));
    assert!(bool::from(p.add(&id).ct_eq_point(&p)));
    assert!(bool::from(id.add(&p).ct_eq_point(&p)));
    assert!(bool::from(p.mul_vartime(&Sm9N::M).is_identity()));
}

#[test]
fn g1_encodings_round_trip_and_reject() {
    let e = g1::encode(&P1);
    let d = g1::decode(&e, "P").unwrap();
    assert!(bool::from(g1::eq(&d, &P1)));
    assert!(g1::decode(&e[1..], "P").is_ok());
    assert!(g1::decode(&e[..64], "P").is_err());
    let mut bad = e;
    bad[64] ^= 1;
    assert!(g1::decode(&bad, "P").is_err());
    let mut big = e;
    big[1..33].copy_from_slice(&crate::arith::limbs_to_be(&Sm9P::M));
    assert!(g1::decode(&big, "P").unwrap_err().to_string().contains("below p"));
    let e2 = g2::encode(&P2);
    assert!(g2::decode(&e2, "Q").is_ok());
    assert!(g2::decode(&e2[1..], "Q").is_ok());
    let mut bad2 = e2;
    bad2[128] ^= 1;
    assert!(g2::decode(&bad2, "Q").is_err());
}

#[test]
fn glv_constants_recomputed() {
    use super::glv::*;
    let big = |l: &[u64]| l.iter().rev().fold(BigUint::from(0u32), |acc, &x| (acc << 64) + BigUint::from(x));
    let (p, n) = (p_big(), n_big());
    let t = BigUint::from(T);
    let one = BigUint::from(1u32);
    // β³ = 1 ≠ β in Fp, λ² + λ + 1 ≡ 0 mod n.
    let beta = big(&BETA.to_canonical());
    assert_eq!(beta.modpow(&BigUint::from(3u32), &p), one);
    assert_ne!(beta, one);
    let lam = big(&LAMBDA);
    assert_eq!((&lam * &lam + &lam + &one) % &n, BigUint::from(0u32));
    // The basis in terms of t, and both vectors in the lattice: a + bλ ≡ 0.
    assert_eq!(BigUint::from(A1), BigUint::from(2u32) * &t + &one);
    assert_eq!(big(&A2), BigUint::from(6u32) * &t * &t + BigUint::from(4u32) * &t + &one);
    assert_eq!(big(&B1_ABS), BigUint::from(6u32) * &t * &t + BigUint::from(2u32) * &t);
    assert_eq!((BigUint::from(A1) + &n - (big(&B1_ABS) * &lam) % &n) % &n, BigUint::from(0u32));
    assert_eq!((big(&A2) + BigUint::from(A1) * &lam) % &n, BigUint::from(0u32));
    // The rounding constants.
    assert_eq!(big(&G1_ROUND), (BigUint::from(A1) << 256) / &n);
    assert_eq!(big(&G2_ROUND), (big(&B1_ABS) << 256) / &n);
    // φ(P1) = [λ]P1, with λ applied by the plain double-and-add.
    let lp = P1.to_jacobian().mul_vartime(&LAMBDA).to_affine_vartime().unwrap();
    assert!(bool::from(lp.x.ct_eq(&P1.x.mul(&BETA)) & lp.y.ct_eq(&P1.y)));
}

#[test]
fn glv_decomposition_and_product_match_plain() {
    use super::glv::*;
    let big = |l: &[u64]| l.iter().rev().fold(BigUint::from(0u32), |acc, &x| (acc << 64) + BigUint::from(x));
    let n = n_big();
    let lam = big(&LAMBDA);
    let signed = |(neg, m): (bool, [u64; 3])| {
        assert!(m[2] < 4, "magnitude below 2^130");
        if neg {
            (&n - big(&m) % &n) % &n
        } else {
            big(&m) % &n
        }
    };
    let mut r = Sm9Rng::new(31);
    let nm1 = Scalar::ZERO.sub(&Scalar::ONE);
    let lam_s = Scalar::from_limbs_reduce(&LAMBDA);
    let mut ks = vec![Scalar::ZERO, Scalar::ONE, nm1, lam_s, lam_s.neg(), Scalar::from_limbs_reduce(&[2, 0, 0, 0])];
    for _ in 0..40 {
        ks.push(r.scalar());
    }
    let p = g1_mul(&r.scalar());
    for k in &ks {
        let kc = k.to_canonical();
        let (k1, k2) = decompose_vartime(&kc);
        assert_eq!((signed(k1) + signed(k2) * &lam) % &n, big(&kc));
        for base in [&P1, &p] {
            let fast = mul_glv_vartime(base, k);
            let plain = base.to_jacobian().mul_vartime(&kc);
            assert!(bool::from(fast.ct_eq_point(&plain)));
        }
    }
}

#[test]
fn ate_naf_is_the_loop_constant() {
    use super::pairing::{ATE_LOOP, ATE_NAF, ATE_NAF_TOP, LINE_COUNT};
    let sum: i128 = ATE_NAF.iter().enumerate().map(|(i, &d)| (d as i128) << i).sum();
    assert_eq!(sum, ATE_LOOP as i128);
    assert!(ATE_NAF.windows(2).all(|w| w[0] == 0 || w[1] == 0), "non-adjacent");
    assert_eq!(ATE_NAF_TOP, 127 - ATE_LOOP.leading_zeros() as usize);
    assert_eq!(LINE_COUNT, 65 + 10 + 2);
    assert_eq!(G2Prepared::new(&P2).lines.len(), LINE_COUNT);
}

#[test]
fn twist_b_by_additions_matches_the_product() {
    let mut r = Sm9Rng::new(37);
    for _ in 0..20 {
        let x = r.fp2();
        assert!(bool::from(super::pairing::mul_by_twist_b(&x).ct_eq(&g2::B.mul(&x))));
    }
}
