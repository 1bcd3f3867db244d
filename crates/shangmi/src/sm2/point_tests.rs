//! Point formulas against an affine reference, and the fast paths against the complete ones.

use super::*;
use subtle::ConstantTimeEq;

/// The method forms of the reference additions, for the tests.
impl Jacobian {
    fn add_mixed_complete(&self, q: &Affine, q_is_zero: Choice, complete: bool) -> Jacobian {
        with_mul!(|b| add_mixed_complete(b, self, q, q_is_zero, complete))
    }
    fn add_complete(&self, q: &Jacobian, complete: bool) -> Jacobian {
        with_mul!(|b| add_complete(b, self, q, complete))
    }
    fn add_mixed_vartime(&self, q: &Affine) -> Jacobian {
        with_mul!(|b| add_mixed_vartime(b, self, q))
    }
}

/// Affine addition/doubling from the textbook formulas (slopes with
/// one inversion each): an independent reference for the Jacobian code.
fn affine_add(p: &Affine, q: &Affine) -> Option<Affine> {
    let three = Fp::ONE.double().add(&Fp::ONE);
    let lambda = if bool::from(p.x.ct_eq(&q.x)) {
        if !bool::from(p.y.ct_eq(&q.y)) || bool::from(p.y.is_zero()) {
            return None;
        }
        p.x.square().mul(&three).sub(&three).mul(&p.y.double().invert())
    } else {
        q.y.sub(&p.y).mul(&q.x.sub(&p.x).invert())
    };
    let x = lambda.square().sub(&p.x).sub(&q.x);
    let y = lambda.mul(&p.x.sub(&x)).sub(&p.y);
    Some(Affine { x, y })
}

fn same(a: &Affine, b: &Jacobian) -> bool {
    let c = b.to_affine().unwrap();
    bool::from(a.x.ct_eq(&c.x) & a.y.ct_eq(&c.y))
}

/// Some points with Z ≠ 1: multiples of G (Jacobian, from doublings and
/// additions), paired with their affine forms.
fn points() -> Vec<(Affine, Jacobian)> {
    let g = Affine::generator();
    let mut out = vec![(g, g.to_jacobian())];
    let mut aff = g;
    let mut jac = g.to_jacobian();
    for i in 0..24 {
        // Alternate doubling and adding G, checking as we go.
        if i % 2 == 0 {
            aff = affine_add(&aff, &aff).unwrap();
            jac = jac.double();
        } else {
            aff = affine_add(&aff, &g).unwrap();
            jac = jac.add_mixed_vartime(&g);
        }
        assert!(same(&aff, &jac), "step {i}");
        out.push((aff, jac));
    }
    out
}

#[test]
fn double_and_adds_match_affine_reference() {
    let pts = points();
    for (i, (pa, pj)) in pts.iter().enumerate() {
        assert!(same(&affine_add(pa, pa).unwrap(), &pj.double()));
        assert!(same(&affine_add(pa, pa).unwrap(), &double(crate::arith::Portable, pj)));
        let (qa, qj) = &pts[(i * 7 + 3) % pts.len()];
        if let Some(sum) = affine_add(pa, qa) {
            assert!(same(&sum, &pj.add_complete(qj, true)));
            assert!(same(&sum, &pj.add_vartime(qj)));
            assert!(same(&sum, &pj.add_mixed_complete(qa, Choice::from(0), true)));
            assert!(same(&sum, &add_complete(crate::arith::Portable, pj, qj, true)));
            assert!(same(&sum, &add_mixed_complete(crate::arith::Portable, pj, qa, Choice::from(0), true)));
        }
        // P + P through the complete additions, and P + (−P) = O.
        assert!(same(&affine_add(pa, pa).unwrap(), &pj.add_complete(pj, true)));
        assert!(same(&affine_add(pa, pa).unwrap(), &pj.add_mixed_complete(pa, Choice::from(0), true)));
        assert!(bool::from(pj.add_complete(&pj.neg(), true).is_identity()));
        // Infinity on either side, and q ignored.
        assert!(same(pa, &Jacobian::IDENTITY.add_mixed_complete(pa, Choice::from(0), false)));
        assert!(same(pa, &pj.add_mixed_complete(qa, Choice::from(1), false)));
        assert!(same(pa, &Jacobian::IDENTITY.add_complete(pj, false)));
        assert!(same(pa, &pj.add_complete(&Jacobian::IDENTITY, false)));
    }
    assert!(bool::from(Jacobian::IDENTITY.double().is_identity()));
    // The variable-time conversions give the same affine points (the
    // affine reference, the constant-time batch and single ones).
    let jacs: Vec<Jacobian> = pts.iter().map(|(_, j)| *j).collect();
    let vt = batch_to_affine_vartime(&jacs);
    let ct = batch_to_affine(&jacs);
    for i in 0..pts.len() {
        let (want, j) = &pts[i];
        let one = j.to_affine_vartime().unwrap();
        for got in [&vt[i], &ct[i], &one] {
            assert!(bool::from(got.x.ct_eq(&want.x) & got.y.ct_eq(&want.y)), "point {i}");
        }
    }
}

/// The 1/2-scaled doubling is exactly the textbook a = −3 doubling
/// (S = 4XY², M = 3(X − Z²)(X + Z²), X3 = M² − 2S, Y3 = M(S − X3) − 8Y⁴,
/// Z3 = 2YZ, written out here with plain field operations) with its
/// coordinates divided by 4, 8 and 2, on both multiplication paths.
#[test]
fn scaled_doubling_is_textbook_doubling_over_powers_of_two() {
    let textbook = |p: &Jacobian| {
        let zz = p.z.square();
        let yy = p.y.square();
        let s = p.x.mul(&yy).double().double();
        let t = p.x.sub(&zz).mul(&p.x.add(&zz));
        let m = t.double().add(&t);
        let x3 = m.square().sub(&s.double());
        let y8 = yy.square().double().double().double();
        let y3 = m.mul(&s.sub(&x3)).sub(&y8);
        let z3 = p.y.mul(&p.z).double();
        (x3, y3, z3)
    };
    let check = |got: &Jacobian, p: &Jacobian| {
        let (x3, y3, z3) = textbook(p);
        assert_eq!(got.x.to_canonical(), fp_half(&fp_half(&x3)).to_canonical());
        assert_eq!(got.y.to_canonical(), fp_half(&fp_half(&fp_half(&y3))).to_canonical());
        assert_eq!(got.z.to_canonical(), fp_half(&z3).to_canonical());
    };
    for (_, pj) in points() {
        check(&double(crate::arith::Portable, &pj), &pj);
        #[cfg(target_arch = "x86_64")]
        if let Some(adx) = crate::arith::Adx::get() {
            check(&double(adx, &pj), &pj);
        }
    }
}

/// Both multiplication paths give identical coordinates.
#[cfg(target_arch = "x86_64")]
#[test]
fn paths_agree_bit_for_bit() {
    let Some(adx) = crate::arith::Adx::get() else {
        eprintln!("no BMI2+ADX: nothing to compare");
        return;
    };
    let pts = points();
    let eq = |a: &Jacobian, b: &Jacobian| {
        a.x.mont_limbs() == b.x.mont_limbs()
            && a.y.mont_limbs() == b.y.mont_limbs()
            && a.z.mont_limbs() == b.z.mont_limbs()
    };
    for (i, (pa, pj)) in pts.iter().enumerate() {
        let (qa, qj) = &pts[(i * 5 + 1) % pts.len()];
        assert!(eq(&double(adx, pj), &double(crate::arith::Portable, pj)));
        assert!(eq(&add_complete(adx, pj, qj, true), &add_complete(crate::arith::Portable, pj, qj, true)));
        let z = Choice::from(0);
        assert!(eq(
            &add_mixed_complete(adx, pj, qa, z, true),
            &add_mixed_complete(crate::arith::Portable, pj, qa, z, true)
        ));
        let _ = pa;
    }
}
