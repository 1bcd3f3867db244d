//! Differential tests of the Montgomery backends: ADX against portable
//! against a big-integer model, for SM2's p and n and SM9's p and n.

use super::*;
use num_bigint::BigUint;

#[derive(Clone, Copy, Debug)]
struct Sm9P;
impl Modulus for Sm9P {
    // SM9's BN256 p (GM/T 0044.1), top bit set.
    const M: Limbs = limbs_from_hex("B640000002A3A6F1D603AB4FF58EC74521F2934B1A7AEEDBE56F9B27E351457D");
}

#[derive(Clone, Copy, Debug)]
struct Sm9N;
impl Modulus for Sm9N {
    // SM9's group order n.
    const M: Limbs = limbs_from_hex("B640000002A3A6F1D603AB4FF58EC74449F2934B18EA8BEEE56EE19CD69ECF25");
}

use crate::sm2::field::{Sm2N, Sm2P};

fn big(a: &Limbs) -> BigUint {
    BigUint::from_bytes_be(&limbs_to_be(a))
}

fn limbs(x: &BigUint) -> Limbs {
    let b = x.to_bytes_be();
    let mut out = [0u8; 32];
    out[32 - b.len()..].copy_from_slice(&b);
    limbs_from_be(&out)
}

/// a·b·R⁻¹ mod M by the model (every modulus here is prime).
fn model_mul(m: &BigUint, a: &BigUint, b: &BigUint) -> BigUint {
    let r: BigUint = BigUint::from(1u8) << 256usize;
    let r_inv = r.modpow(&(m - 2u8), m);
    a * b % m * r_inv % m
}

/// splitmix64: a deterministic test-only generator.
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Any 256-bit values: edges (0, 1, M − 1, M − 2, M, M + 1, words at their
/// extremes, values near 2^256) and random ones.
fn values<M: Modulus>(count: usize, seed: u64) -> Vec<Limbs> {
    let x = u64::MAX;
    let mut v = vec![
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [2, 0, 0, 0],
        [x, 0, 0, 0],
        [0, 0, 0, 1 << 63],
        [x, x, x, 0],
        sub_limbs(&M::M, &[1, 0, 0, 0]).0,
        sub_limbs(&M::M, &[2, 0, 0, 0]).0,
        M::M,
        add_limbs(&M::M, &[1, 0, 0, 0]).0,
        [x, x, x, x],
        [x - 1, x, x, x],
        [0, 0, 0, x],
        [x, 0, x, 0],
        [0, x, 0, x],
    ];
    let mut s = seed;
    v.extend((0..count).map(|_| [next(&mut s), next(&mut s), next(&mut s), next(&mut s)]));
    v
}

/// Every pair from the edges, random values with sliding partners.
fn pairs(vals: &[Limbs]) -> Vec<(Limbs, Limbs)> {
    let mut out = Vec::new();
    for (i, a) in vals.iter().enumerate() {
        let step = if i < 15 { 1 } else { 37 };
        for b in vals.iter().skip(i % step).step_by(step) {
            out.push((*a, *b));
        }
    }
    out
}

fn check<M: Modulus>(seed: u64) {
    let m = big(&M::M);
    let vals = values::<M>(600, seed);
    let mut checked = 0;
    for (a, b) in pairs(&vals) {
        let (ra, rb) = (reduce_once(&a, &M::M), reduce_once(&b, &M::M));
        // Reduced inputs (the contract): exact canonical value.
        let want = limbs(&model_mul(&m, &big(&ra), &big(&rb)));
        assert_eq!(M::mont_mul_portable(&ra, &rb), want, "portable {ra:x?}·{rb:x?}");
        let fa = Fe::<M>::from_mont_limbs(ra);
        let fb = Fe::<M>::from_mont_limbs(rb);
        assert_eq!(*Portable.mul(&fa, &fb).mont_limbs(), want);
        assert_eq!(*fa.mul(&fb).mont_limbs(), want, "dispatching Fe::mul");
        if ra == rb {
            assert_eq!(M::mont_sqr_portable(&ra), want);
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = Adx::get() {
            assert_eq!(*t.mul(&fa, &fb).mont_limbs(), want, "adx {ra:x?}·{rb:x?}");
            assert_eq!(*t.sqr(&fa).mont_limbs(), M::mont_sqr_portable(&ra), "adx square {ra:x?}");
            // The generic kernel on any 256-bit input agrees bit for bit
            // with the generic portable reduction (both compute the same
            // (ab + KM)/R, then one conditional subtraction).
            let g = mont_mul_adx(t.0, &a, &b, M::WORDS);
            assert_eq!(g, mont_reduce_generic(&mul_wide(&a, &b), &M::M, M::M_INV), "generic adx {a:x?}·{b:x?}");
            if lt(&a, &M::M) == 1 && lt(&b, &M::M) == 1 {
                assert_eq!(g, want);
            } else {
                assert_eq!(big(&g) % &m, model_mul(&m, &big(&a), &big(&b)));
            }
        }
        checked += 1;
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn sm2_p() {
    check::<Sm2P>(1);
}

#[test]
fn sm2_n() {
    check::<Sm2N>(2);
}

#[test]
fn sm9_p() {
    check::<Sm9P>(3);
}

#[test]
fn sm9_n() {
    check::<Sm9N>(4);
}

#[test]
fn generic_kernel_on_sm2_p_matches_the_special_one() {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = Adx::get() {
        for (a, b) in pairs(&values::<Sm2P>(300, 5)) {
            let (a, b) = (reduce_once(&a, &Sm2P::M), reduce_once(&b, &Sm2P::M));
            assert_eq!(mont_mul_adx(t.0, &a, &b, Sm2P::WORDS), Sm2P::mont_mul_adx(t.0, &a, &b));
        }
    }
}

#[test]
fn words_hold_the_modulus_and_its_inverse() {
    assert_eq!(&Sm9P::WORDS[..4], &Sm9P::M[..]);
    assert_eq!(Sm9P::M[0].wrapping_mul(Sm9P::WORDS[4]), u64::MAX);
    assert_eq!(big(&Sm9N::M).to_str_radix(16), "b640000002a3a6f1d603ab4ff58ec74449f2934b18ea8beee56ee19cd69ecf25");
}

#[test]
fn from_be_wide_matches_the_model() {
    fn one<M: Modulus>(seed: u64) {
        let m = big(&M::M);
        let mut s = seed;
        let mut cases: Vec<[u8; 64]> = vec![[0; 64], [0xff; 64]];
        let mut top = [0u8; 64];
        top[..32].copy_from_slice(&limbs_to_be(&M::M));
        cases.push(top);
        for _ in 0..200 {
            let mut b = [0u8; 64];
            for c in b.chunks_mut(8) {
                c.copy_from_slice(&next(&mut s).to_be_bytes());
            }
            cases.push(b);
        }
        for b in cases {
            let want = BigUint::from_bytes_be(&b) % &m;
            assert_eq!(BigUint::from_bytes_be(&Fe::<M>::from_be_wide(&b).to_be_bytes()), want);
        }
    }
    one::<Sm2N>(7);
    one::<Sm9N>(8);
    one::<Sm9P>(9);
    one::<super::tests::P25519>(10);
}

#[test]
fn range_check_and_blinded_inversion_for_any_modulus() {
    fn one<M: Modulus>() {
        let m1 = limbs_to_be(&sub_limbs(&M::M, &[1, 0, 0, 0]).0);
        for (b, ok) in [
            ([0u8; 32], false),
            (limbs_to_be(&[1, 0, 0, 0]), true),
            (m1, true),
            (limbs_to_be(&M::M), false),
            ([0xff; 32], false),
        ] {
            let (x, got) = nonzero_below::<M>(&b);
            assert_eq!(bool::from(got), ok, "{b:x?}");
            assert_eq!(x.to_be_bytes(), if ok { b } else { [0; 32] });
        }
        for (a, beta) in pairs(&values::<M>(40, 11)).into_iter().take(400) {
            let z = Fe::<M>::from_limbs_reduce(&a);
            let beta = Fe::<M>::from_limbs_reduce(&beta);
            if bool::from(beta.is_zero()) {
                continue;
            }
            assert_eq!(invert_blinded(&z, &beta).to_canonical(), z.invert().to_canonical());
        }
    }
    one::<Sm2N>();
    one::<Sm9P>();
    one::<Sm9N>();
}

/// The odd-digit recoding is generic over the group order: for SM9's n,
/// ±k' ≡ k (mod n) with k' odd, and the digits sum back to k'.
#[test]
fn odd_recoding_for_sm9_n() {
    let n = big(&Sm9N::M);
    for k in values::<Sm9N>(200, 12) {
        let (odd, flip) = odd_scalar::<Sm9N>(&k);
        assert_eq!(odd[0] & 1, 1);
        let back = if bool::from(flip) { (&n - big(&odd)) % &n } else { big(&odd) % &n };
        assert_eq!(back, big(&k) % &n, "k={k:x?}");
        for w in 5..=8usize {
            let windows = 256usize.div_ceil(w);
            let mut digits = [(0u64, subtle::Choice::from(0)); 64];
            recode_odd(&odd, w, windows, subtle::Choice::from(0), &mut digits);
            let mut sum = num_bigint::BigInt::from(0);
            for (i, (idx, neg)) in digits.iter().enumerate().take(windows) {
                assert!(*idx < 1 << (w - 1));
                let d = num_bigint::BigInt::from(2 * *idx + 1) << (w * i);
                sum += if bool::from(*neg) { -d } else { d };
            }
            assert_eq!(sum, num_bigint::BigInt::from(big(&odd)), "w={w}");
        }
    }
}
