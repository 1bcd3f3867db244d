//! The shared formulas against a big-integer affine model, on random points
//! in random Jacobian representations, for a = −3 (SM2's curve over its Fp)
//! and a = 0 (y² = x³ + 7 over the same prime, through a wrapper field that
//! states a = 0), with every backend this CPU has.

use super::*;
use crate::arith::Portable;
use crate::sm2::field::{Fp, B_BYTES};
use num_bigint::BigUint;
use num_traits::{One, Zero};

/// A coordinate field equal to SM2's Fp but for a curve with a = 0.
#[derive(Clone, Copy, Debug, Default)]
struct T0(Fp);

impl ConditionallySelectable for T0 {
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        T0(Fp::conditional_select(&a.0, &b.0, c))
    }
}
impl ConstantTimeEq for T0 {
    fn ct_eq(&self, o: &Self) -> Choice {
        self.0.ct_eq(&o.0)
    }
}
impl Zeroize for T0 {
    fn zeroize(&mut self) {
        self.0.zeroize()
    }
}
impl CurveField for T0 {
    const ZERO: Self = T0(Fp::ZERO);
    const ONE: Self = T0(Fp::ONE);
    const A: Coeff = Coeff::Zero;
    fn add(&self, o: &Self) -> Self {
        T0(self.0.add(&o.0))
    }
    fn sub(&self, o: &Self) -> Self {
        T0(self.0.sub(&o.0))
    }
    fn mul(&self, o: &Self) -> Self {
        T0(self.0.mul(&o.0))
    }
    fn square(&self) -> Self {
        T0(self.0.square())
    }
    fn double(&self) -> Self {
        T0(self.0.double())
    }
    fn neg(&self) -> Self {
        T0(self.0.neg())
    }
    fn invert(&self) -> Self {
        T0(self.0.invert())
    }
    fn invert_vartime(&self) -> Self {
        T0(self.0.invert_vartime())
    }
    fn is_zero(&self) -> Choice {
        self.0.is_zero()
    }
    fn mul_with<B: MulBackend>(&self, b: B, o: &Self) -> Self {
        T0(b.mul(&self.0, &o.0))
    }
    fn square_with<B: MulBackend>(&self, b: B) -> Self {
        T0(b.sqr(&self.0))
    }
}

#[derive(Clone, Copy, Debug)]
struct Sm2Curve;
impl Curve for Sm2Curve {
    type F = Fp;
    fn b() -> Fp {
        Fp::from_be_bytes(&B_BYTES).unwrap()
    }
}

#[derive(Clone, Copy, Debug)]
struct Curve7;
impl Curve for Curve7 {
    type F = T0;
    fn b() -> T0 {
        let mut b = [0u8; 32];
        b[31] = 7;
        T0(Fp::from_be_bytes(&b).unwrap())
    }
}

/// Conversions between the model's integers and a test field.
trait Conv: CurveField {
    fn from_big(x: &BigUint) -> Self;
    fn to_big(&self) -> BigUint;
}
impl Conv for Fp {
    fn from_big(x: &BigUint) -> Self {
        let v = x.to_bytes_be();
        let mut b = [0u8; 32];
        b[32 - v.len()..].copy_from_slice(&v);
        Fp::from_be_bytes(&b).unwrap()
    }
    fn to_big(&self) -> BigUint {
        BigUint::from_bytes_be(&self.to_be_bytes())
    }
}
impl Conv for T0 {
    fn from_big(x: &BigUint) -> Self {
        T0(Fp::from_big(x))
    }
    fn to_big(&self) -> BigUint {
        self.0.to_big()
    }
}

/// The affine model: y² = x³ + a·x + b mod p; `None` is infinity.
struct Model {
    p: BigUint,
    a: BigUint,
    b: BigUint,
}
type Pt = Option<(BigUint, BigUint)>;

impl Model {
    fn new<C: Curve>() -> Self
    where
        C::F: Conv,
    {
        let p = BigUint::from_bytes_be(&crate::arith::limbs_to_be(&crate::sm2::field::P));
        let a = match C::A {
            Coeff::Zero => BigUint::zero(),
            Coeff::MinusThree => &p - 3u32,
        };
        Model { b: C::b().to_big(), a, p }
    }
    fn inv(&self, x: &BigUint) -> BigUint {
        x.modpow(&(&self.p - 2u32), &self.p)
    }
    fn add(&self, p1: &Pt, p2: &Pt) -> Pt {
        let p = &self.p;
        let (x1, y1) = match p1 {
            None => return p2.clone(),
            Some(v) => v,
        };
        let (x2, y2) = match p2 {
            None => return p1.clone(),
            Some(v) => v,
        };
        let l = if x1 == x2 {
            if (y1 + y2) % p == BigUint::zero() {
                return None;
            }
            (BigUint::from(3u32) * x1 * x1 + &self.a) * self.inv(&(BigUint::from(2u32) * y1)) % p
        } else {
            ((y2 + p - y1) % p) * self.inv(&((x2 + p - x1) % p)) % p
        };
        let x3 = (&l * &l + p * 2u32 - x1 - x2) % p;
        let y3 = (&l * ((x1 + p - &x3) % p) + p - y1) % p;
        Some((x3, y3))
    }
    fn mul(&self, k: u64, pt: &Pt) -> Pt {
        let mut acc = None;
        for i in (0..64).rev() {
            acc = self.add(&acc, &acc);
            if (k >> i) & 1 == 1 {
                acc = self.add(&acc, pt);
            }
        }
        acc
    }
    /// A point from the seed: the first x ≥ seed on the curve (p ≡ 3 mod 4).
    fn point(&self, seed: &BigUint) -> (BigUint, BigUint) {
        let mut x = seed % &self.p;
        loop {
            let rhs = (&x * &x * &x + &self.a * &x + &self.b) % &self.p;
            let y = rhs.modpow(&((&self.p + 1u32) >> 2), &self.p);
            if (&y * &y) % &self.p == rhs {
                return (x, y);
            }
            x += 1u32;
        }
    }
}

fn rng(s: &mut u64) -> BigUint {
    let mut b = [0u8; 32];
    for c in b.chunks_mut(8) {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        c.copy_from_slice(&s.to_le_bytes());
    }
    BigUint::from_bytes_be(&b)
}

/// (x, y) as a Jacobian point with Z = λ (random, non-zero).
fn jac<F: Conv>(m: &Model, pt: &Pt, lambda: &BigUint) -> Jacobian<F> {
    match pt {
        None => Jacobian::IDENTITY,
        Some((x, y)) => {
            let l = lambda % &m.p;
            let l = if l.is_zero() { BigUint::one() } else { l };
            let l2 = &l * &l % &m.p;
            let l3 = &l2 * &l % &m.p;
            Jacobian { x: F::from_big(&(x * &l2 % &m.p)), y: F::from_big(&(y * &l3 % &m.p)), z: F::from_big(&l) }
        }
    }
}

fn aff<F: Conv>(pt: &Pt) -> Affine<F> {
    let (x, y) = pt.as_ref().unwrap();
    Affine { x: F::from_big(x), y: F::from_big(y) }
}

fn back<F: Conv>(p: &Jacobian<F>) -> Pt {
    p.to_affine_vartime().map(|a| (a.x.to_big(), a.y.to_big()))
}

fn neg(m: &Model, pt: &Pt) -> Pt {
    pt.as_ref().map(|(x, y)| (x.clone(), (&m.p - y) % &m.p))
}

fn check_backend<C: Curve, B: MulBackend>(b: B, seed: u64)
where
    C::F: Conv,
{
    let m = Model::new::<C>();
    let mut s = seed;
    for case in 0..40 {
        let p1: Pt = Some(m.point(&rng(&mut s)));
        let p2: Pt = Some(m.point(&rng(&mut s)));
        let j1: Jacobian<C::F> = jac(&m, &p1, &rng(&mut s));
        let j2: Jacobian<C::F> = jac(&m, &p2, &rng(&mut s));
        let j1b: Jacobian<C::F> = jac(&m, &p1, &rng(&mut s));
        let inf = Jacobian::<C::F>::IDENTITY;
        assert!(bool::from(aff::<C::F>(&p1).is_on_curve::<C>()), "case {case}");
        let mut off = aff::<C::F>(&p1);
        off.y = off.y.add(&C::F::ONE);
        assert!(!bool::from(off.is_on_curve::<C>()), "case {case}");

        let dbl = m.add(&p1, &p1);
        assert_eq!(back(&j1.double_with(b)), dbl, "double, case {case}");
        assert_eq!(back(&double_generic(b, &j1)), dbl, "shared double, case {case}");
        assert_eq!(back(&inf.double_with(b)), None);
        let sum = m.add(&p1, &p2);
        assert_eq!(back(&j1.add_distinct_with(b, &j2)), sum, "add_distinct, case {case}");
        assert_eq!(back(&j1.add_distinct_with(b, &inf)), p1);
        assert_eq!(back(&inf.add_distinct_with(b, &j2)), p2);
        // The complete addition in every case.
        assert_eq!(back(&j1.add_with(b, &j2)), sum, "add, case {case}");
        assert_eq!(back(&j1.add_with(b, &j1b)), dbl, "add of equal points, case {case}");
        assert_eq!(back(&j1.add_with(b, &j1b.neg())), None, "add of opposite points, case {case}");
        assert_eq!(back(&j1.add_with(b, &inf)), p1);
        assert_eq!(back(&inf.add_with(b, &j2)), p2);
        assert_eq!(back(&inf.add_with(b, &inf)), None);
        // Mixed additions, raw and complete.
        let q2 = aff::<C::F>(&p2);
        let (raw, h0, r0) = add_mixed_generic(b, &j1, &q2);
        assert!(!bool::from(h0) && !bool::from(r0));
        assert_eq!(back(&raw), sum, "madd, case {case}");
        let (_, h0, r0) = add_mixed_generic(b, &j1, &aff(&p1));
        assert!(bool::from(h0) && bool::from(r0));
        let (_, h0, r0) = add_mixed_generic(b, &j1, &aff(&neg(&m, &p1)));
        assert!(bool::from(h0) && !bool::from(r0));
        assert_eq!(back(&j1.add_mixed_with(b, &q2)), sum);
        assert_eq!(back(&j1.add_mixed_with(b, &aff(&p1))), dbl);
        assert_eq!(back(&j1.add_mixed_with(b, &aff(&neg(&m, &p1)))), None);
        assert_eq!(back(&inf.add_mixed_with(b, &q2)), p2);
        // Conversions and equality.
        let a1 = j1.to_affine().unwrap();
        assert_eq!((a1.x.to_big(), a1.y.to_big()), p1.clone().unwrap());
        assert!(inf.to_affine().is_none() && inf.to_affine_public().is_none());
        let (_, is_inf) = j1.to_affine_masked();
        assert!(!bool::from(is_inf));
        assert!(bool::from(j1.ct_eq_point(&j1b)) && !bool::from(j1.ct_eq_point(&j2)));
        assert!(bool::from(inf.ct_eq_point(&inf)) && !bool::from(inf.ct_eq_point(&j1)));
        assert_eq!(back(&j1.neg()), neg(&m, &p1));
        let a_pub = j1.to_affine_public().unwrap();
        assert!(bool::from(a_pub.x.ct_eq(&a1.x) & a_pub.y.ct_eq(&a1.y)));
        // Scalar multiples.
        let k = 1 + (s % 1000);
        assert_eq!(back(&j1.mul_vartime(&[k])), m.mul(k, &p1), "mul {k}, case {case}");
        // The co-Z chain of odd multiples (its start, dblu_affine, uses a).
        if case < 4 {
            let odd = odd_multiples_coz_vartime(&aff::<C::F>(&p1), 5);
            for (j, q) in odd.iter().enumerate() {
                let want = m.mul(2 * j as u64 + 1, &p1);
                assert_eq!(Some((q.x.to_big(), q.y.to_big())), want, "odd multiple {j}, case {case}");
            }
        }
        // Chains of doublings stay on the model.
        let mut acc = j1;
        let mut want = p1.clone();
        for _ in 0..5 {
            acc = acc.double_with(b);
            want = m.add(&want, &want);
        }
        assert_eq!(back(&acc), want);
    }
}

fn check<C: Curve>(seed: u64)
where
    C::F: Conv,
{
    check_backend::<C, Portable>(Portable, seed);
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = crate::arith::Adx::get() {
        check_backend::<C, crate::arith::Adx>(t, seed ^ 0x55);
    }
}

#[test]
fn formulas_match_the_model_for_a_minus_3() {
    check::<Sm2Curve>(0x1234_5678_9abc_def1);
}

#[test]
fn formulas_match_the_model_for_a_zero() {
    check::<Curve7>(0x0fed_cba9_8765_4321);
}

/// SM2's doubling kernel (Fp's override) and the shared a = −3 formula give
/// the same point on random inputs (and infinity for infinity).
#[test]
fn sm2_doubling_override_agrees_with_the_shared_formula() {
    let m = Model::new::<Sm2Curve>();
    let mut s = 99u64;
    for _ in 0..100 {
        let p: Pt = Some(m.point(&rng(&mut s)));
        let j: Jacobian<Fp> = jac(&m, &p, &rng(&mut s));
        let a = with_mul!(|b| double_generic(b, &j));
        assert!(bool::from(a.ct_eq_point(&j.double())));
    }
    let inf = Jacobian::<Fp>::IDENTITY;
    assert!(bool::from(with_mul!(|b| double_generic(b, &inf)).is_identity()));
}
