//! The G2 subgroup test by the endomorphism ψ ([`g2::in_subgroup_vartime`])
//! against the definition [n]Q = O ([`g2::in_subgroup_by_order_vartime`]):
//! its constants recomputed from t, then both tests on points of G2, on
//! random twist points, on points of small order (13 and 1621 divide the
//! cofactor) and on their sums with G2 points, and on the G2 points of the
//! standard's examples. Run under every CPU mask by CI.

use crate::common;

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::{One, Zero};
use shangmi::arith::curve::{Affine, Jacobian};
use shangmi::sm9::fp::{Fp, Scalar, T};
use shangmi::sm9::fp2::Fp2;
use shangmi::sm9::g2::{self, G2Affine, G2Curve, G2};

use crate::common::Rng;

fn fp(rng: &mut Rng) -> Fp {
    Fp::from_limbs_reduce(&[rng.next(), rng.next(), rng.next(), rng.next() >> 1])
}

fn scalar(rng: &mut Rng) -> Scalar {
    Scalar::from_limbs_reduce(&[rng.next(), rng.next(), rng.next(), rng.next() >> 1])
}

/// A random point of E'(Fp2) (x random until x³ + b' is a square).
fn twist_point(rng: &mut Rng) -> G2Affine {
    loop {
        let x = Fp2::new(fp(rng), fp(rng));
        let rhs = x.square().mul(&x).add(&g2::B);
        if let Some(y) = rhs.sqrt_vartime() {
            let q = Affine { x, y };
            assert!(bool::from(q.is_on_curve::<G2Curve>()));
            return q;
        }
    }
}

/// (t, p, n, tr, h) from the BN parameter t (h = #E'(Fp2)/n = p − 1 + tr).
fn params() -> (BigInt, BigInt, BigInt, BigInt, BigInt) {
    let t = BigInt::from(T);
    let c = |k: i64| BigInt::from(k);
    let p = c(36) * t.pow(4) + c(36) * t.pow(3) + c(24) * t.pow(2) + c(6) * &t + c(1);
    let n = c(36) * t.pow(4) + c(36) * t.pow(3) + c(18) * t.pow(2) + c(6) * &t + c(1);
    let tr = c(6) * t.pow(2) + c(1);
    let h = &p - c(1) + &tr;
    (t, p, n, tr, h)
}

fn limbs(b: &BigInt) -> Vec<u64> {
    assert!(b.sign() != num_bigint::Sign::Minus);
    b.magnitude().to_u64_digits()
}

fn to_affine(q: &G2) -> Option<G2Affine> {
    q.to_affine_vartime()
}

/// Both tests on q; they must agree, and the answer is returned.
fn agree(q: &G2Affine) -> bool {
    let fast = g2::in_subgroup_vartime(q);
    let slow = g2::in_subgroup_by_order_vartime(q);
    assert_eq!(fast, slow, "ψ test and [n]Q disagree on {:?}", g2::encode(q));
    fast
}

#[test]
fn g2_fast_subgroup_constants() {
    let (t, p, n, tr, h) = params();
    // #E'(Fp2) = n·h is the sextic twist's order: p² + 1 − t₂' with the
    // twist trace from t₂ = tr² − 2p and t₂² − 4p² = −3f².
    let t2 = &tr * &tr - BigInt::from(2) * &p;
    let f2 = (BigInt::from(4) * &p * &p - &t2 * &t2) / BigInt::from(3);
    let f = f2.sqrt();
    assert_eq!(&f * &f, f2);
    let order = &p * &p + BigInt::one() - (&t2 + BigInt::from(3) * &f) / BigInt::from(2);
    let other = &p * &p + BigInt::one() - (&t2 - BigInt::from(3) * &f) / BigInt::from(2);
    assert!(order == &n * &h || other == &n * &h, "n·h is one of the sextic twists' orders");
    // (t+1) + tψ + tψ² − 2tψ³ reduced by ψ² = tr·ψ − p: a + bψ.
    let a = &t + BigInt::one() - &t * &p + BigInt::from(2) * &t * &tr * &p;
    let b = &t + &t * &tr - BigInt::from(2) * &t * (&tr * &tr - &p);
    let lambda = &p - &n; // = 6t², ψ's eigenvalue on G2 (p mod n)
    assert_eq!(lambda, BigInt::from(6) * &t * &t);
    assert!((&a + &b * &lambda).mod_floor(&n).is_zero());
    let norm = &a * &a + &a * &b * &tr + &b * &b * &p;
    assert!(norm.mod_floor(&n).is_zero());
    assert!(norm.gcd(&h).is_one(), "gcd(N, h) = 1 makes the test exact");
    assert!(n.gcd(&h).is_one());
    // Small factors of h used below.
    assert!(h.mod_floor(&BigInt::from(13)).is_zero());
    assert!(h.mod_floor(&BigInt::from(1621)).is_zero());
    let _ = BigUint::zero();
}

#[test]
fn g2_fast_subgroup_accepts_g2_points() {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    assert!(agree(&g2::P2));
    for _ in 0..24 {
        let k = scalar(&mut rng);
        let q = to_affine(&g2::P2.to_jacobian().mul_vartime(&k.to_canonical())).unwrap();
        assert!(agree(&q));
        assert!(agree(&q.neg()));
    }
    // Cofactor clearing of random twist points lands in G2.
    let (_, _, _, _, h) = params();
    for _ in 0..8 {
        let r = twist_point(&mut rng);
        let q = to_affine(&r.to_jacobian().mul_vartime(&limbs(&h))).unwrap();
        assert!(agree(&q));
    }
}

#[test]
fn g2_fast_subgroup_rejects_points_outside_g2() {
    let mut rng = Rng(0x0fed_cba9_8765_4321);
    let (_, _, n, _, h) = params();
    // Random twist points: in G2 with probability 1/h.
    for _ in 0..24 {
        assert!(!agree(&twist_point(&mut rng)));
    }
    // [n]R: order dividing h, no G2 component.
    for _ in 0..6 {
        let r = twist_point(&mut rng);
        if let Some(q) = to_affine(&r.to_jacobian().mul_vartime(&limbs(&n))) {
            assert!(!agree(&q));
        }
    }
    // Points of order ℓ ∈ {13, 1621} (ℓ | h), alone and added to G2
    // points: the adversarial case a check by a multiple of n would miss
    // if it dropped ℓ.
    for ell in [13i64, 1621] {
        let cof = &n * &h / BigInt::from(ell);
        let mut found = 0;
        while found < 3 {
            let r = twist_point(&mut rng);
            let Some(small) = to_affine(&r.to_jacobian().mul_vartime(&limbs(&cof))) else { continue };
            found += 1;
            // Its order is exactly ℓ (prime): [ℓ]T = O.
            let lt = small.to_jacobian().mul_vartime(&[ell as u64]);
            assert!(bool::from(lt.is_identity()));
            assert!(!agree(&small));
            for _ in 0..3 {
                let k = scalar(&mut rng);
                let g = g2::P2.to_jacobian().mul_vartime(&k.to_canonical());
                let mixed = to_affine(&Jacobian::add(&g, &small.to_jacobian())).unwrap();
                assert!(!agree(&mixed));
            }
        }
    }
}

#[test]
fn g2_fast_subgroup_on_the_standard_points() {
    let v = common::json("sm9.json");
    let mut points = vec![common::hexv(&v["sign"][0]["master_public_key_ppub_s"])];
    for e in v["key_exchange"].as_array().unwrap() {
        points.push(common::hexv(&e["user_private_key_de_a"]));
        points.push(common::hexv(&e["user_private_key_de_b"]));
    }
    for e in v["encrypt"].as_array().unwrap().iter().chain(v["kem"].as_array().unwrap()) {
        if let Some(d) = e.get("user_private_key_de") {
            points.push(common::hexv(d));
        }
    }
    assert!(points.len() >= 3);
    for b in &points {
        let q = g2::decode(b, "vector").unwrap();
        assert!(agree(&q));
        // The same point with one coordinate changed is off the curve or
        // (after re-solving y) a random twist point: rejected.
        let x = q.x.add(&Fp2::ONE);
        if let Some(y) = x.square().mul(&x).add(&g2::B).sqrt_vartime() {
            assert!(!agree(&Affine { x, y }));
        }
    }
}
