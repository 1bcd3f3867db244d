//! The SM2 field kernels against each other and the generic code.

#[cfg(target_arch = "x86_64")]
use super::x86::{addsub, adx};
use super::*;
#[cfg(target_arch = "x86_64")]
use crate::arith::Adx;

/// splitmix64: a deterministic test-only generator.
fn next(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Edge values: 0, 1, small, p − 1, p − 2, and (representation
/// permitting only < p, but both paths run the same algorithm, so they
/// must agree bit-for-bit on any 256-bit input) p, p + 1, 2^256 − 1 and
/// words at their extremes.
fn edge_values() -> Vec<Limbs> {
    let m = u64::MAX;
    vec![
        [0, 0, 0, 0],
        [1, 0, 0, 0],
        [2, 0, 0, 0],
        [m, 0, 0, 0],
        [0, 0, 0, 1 << 63],
        [m, m, m, 0],
        crate::arith::sub_limbs(&P, &[1, 0, 0, 0]).0,
        crate::arith::sub_limbs(&P, &[2, 0, 0, 0]).0,
        [m, 0xffff_ffff_0000_0000, m, 0xffff_fffe_ffff_fffe],
        [0, 0xffff_ffff_0000_0000, m, 0xffff_fffe_ffff_ffff],
        P,
        crate::arith::add_limbs(&P, &[1, 0, 0, 0]).0,
        [m, m, m, m],
        [0, 0, 0, m],
        [m, 0, m, 0],
        [0, m, 0, m],
    ]
}

fn random_values(count: usize, seed: u64) -> Vec<Limbs> {
    let mut s = seed;
    (0..count)
        .map(|i| {
            let mut v = [next(&mut s), next(&mut s), next(&mut s), next(&mut s)];
            // Half of them reduced below p (the values the code base
            // actually produces), the rest any 256-bit value.
            if i % 2 == 0 {
                v = crate::arith::reduce_once(&v, &P);
            }
            v
        })
        .collect()
}

/// The portable multiplication against an independent reduction (the
/// generic word-by-word Montgomery reduction of the full product).
#[test]
fn portable_mul_matches_generic_montgomery() {
    let m_inv = crate::arith::neg_inv64(P[0]);
    let mut vals = edge_values();
    vals.extend(random_values(200, 1));
    for a in vals.iter().map(|v| crate::arith::reduce_once(v, &P)) {
        for b in vals.iter().take(40).map(|v| crate::arith::reduce_once(v, &P)) {
            let wide = crate::arith::mul_wide(&a, &b);
            assert_eq!(mont_mul_portable(&a, &b), crate::arith::mont_reduce_generic(&wide, &P, m_inv));
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn adx_mul_matches_portable() {
    let Some(Adx(t)) = Adx::get() else {
        eprintln!("no BMI2+ADX on this CPU: assembly path not testable here");
        return;
    };
    let mut vals = edge_values();
    vals.extend(random_values(2000, 2));
    for (i, a) in vals.iter().enumerate() {
        // Every edge value against every value, random values pairwise
        // with a sliding partner, and every square.
        let sq = adx::mont_sqr(t, a);
        if crate::arith::lt(a, &P) == 1 {
            // The square's bound (high half < p) needs a < p.
            assert_eq!(sq, mont_mul_portable(a, a), "square of {a:x?}");
        }
        assert_eq!(adx::mont_mul(t, a, a), mont_mul_portable(a, a), "a·a for {a:x?}");
        let partners: Vec<&Limbs> =
            if i < 16 { vals.iter().collect() } else { vals.iter().skip(i % 97).step_by(97).collect() };
        for b in partners {
            let got = adx::mont_mul(t, a, b);
            assert_eq!(got, mont_mul_portable(a, b), "{a:x?} · {b:x?}");
        }
    }
}

/// The aarch64 product and square as calls (not inlined), so
/// `scripts/llvm_mca.sh` finds each as one function in the test binary,
/// next to the portable kernel it replaces.
#[cfg(target_arch = "aarch64")]
#[inline(never)]
fn mul_aarch64_impl(a: &Limbs, b: &Limbs) -> Limbs {
    super::aarch64::mont_mul(a, b)
}

#[cfg(target_arch = "aarch64")]
#[inline(never)]
fn sqr_aarch64_impl(a: &Limbs) -> Limbs {
    super::aarch64::mont_sqr(a)
}

#[cfg(target_arch = "aarch64")]
#[inline(never)]
fn mul_portable_impl(a: &Limbs, b: &Limbs) -> Limbs {
    mont_mul_portable(a, b)
}

/// The square the aarch64 one replaces (the generic square and `reduce`).
#[cfg(target_arch = "aarch64")]
#[inline(never)]
fn sqr_portable_impl(a: &Limbs) -> Limbs {
    Sm2P::reduce(&crate::arith::sqr_wide(a))
}

/// The aarch64 assembly against the portable kernel on values below p
/// (edge values reduced, random ones): every edge value against every
/// value, random values with sliding partners, every square (against
/// the portable product a·a and the generic square with `reduce`).
#[cfg(target_arch = "aarch64")]
#[test]
fn aarch64_mul_sqr_match_portable() {
    let m = u64::MAX;
    let mut vals = reduced_values(2000, 7);
    // Just below p in each word, and all-ones words reduced.
    for d in [3u64, 1 << 32, 1 << 63] {
        vals.push(crate::arith::sub_limbs(&P, &[d, 0, 0, 0]).0);
        vals.push(crate::arith::sub_limbs(&P, &[0, d, 0, 0]).0);
        vals.push(crate::arith::sub_limbs(&P, &[0, 0, 0, d]).0);
    }
    vals.push(crate::arith::reduce_once(&[m, m, m, m], &P));
    vals.push(crate::arith::reduce_once(&[m, m, m, 0xffff_fffe_ffff_ffff], &P));
    type Mul = fn(&Limbs, &Limbs) -> Limbs;
    type Sqr = fn(&Limbs) -> Limbs;
    let (mul, sqr, port, port_sqr): (Mul, Sqr, Mul, Sqr) =
        core::hint::black_box((mul_aarch64_impl, sqr_aarch64_impl, mul_portable_impl, sqr_portable_impl));
    let edges = edge_values().len();
    for (i, a) in vals.iter().enumerate() {
        assert_eq!(crate::arith::lt(a, &P), 1);
        let want = port(a, a);
        assert_eq!(sqr(a), want, "square of {a:x?}");
        assert_eq!(sqr(a), port_sqr(a), "square of {a:x?}");
        assert_eq!(mul(a, a), want, "a·a for {a:x?}");
        let partners: Vec<&Limbs> =
            if i < edges { vals.iter().collect() } else { vals.iter().skip(i % 97).step_by(97).collect() };
        for b in partners {
            let got = mul(a, b);
            assert_eq!(got, port(a, b), "{a:x?} · {b:x?}");
            assert_eq!(crate::arith::lt(&got, &P), 1);
        }
    }
}

/// Values below p: every edge value reduced, and random ones.
fn reduced_values(count: usize, seed: u64) -> Vec<Limbs> {
    let mut vals: Vec<Limbs> = edge_values().iter().map(|v| crate::arith::reduce_once(v, &P)).collect();
    vals.extend(random_values(count, seed).iter().map(|v| crate::arith::reduce_once(v, &P)));
    vals
}

/// The assembly add/sub/half against the generic Rust code (add_mod,
/// sub_mod) and an independent check of halving (2·(a/2) = a).
#[cfg(target_arch = "x86_64")]
#[test]
fn asm_add_sub_half_match_portable() {
    let vals = reduced_values(400, 4);
    for (i, a) in vals.iter().enumerate() {
        let partners: Vec<&Limbs> =
            if i < 16 { vals.iter().collect() } else { vals.iter().skip(i % 31).step_by(31).collect() };
        for b in partners {
            assert_eq!(addsub::add(a, b), crate::arith::add_mod(a, b, &P), "{a:x?} + {b:x?}");
            assert_eq!(addsub::sub(a, b), crate::arith::sub_mod(a, b, &P), "{a:x?} - {b:x?}");
        }
        let h = addsub::half(a);
        assert_eq!(h, half_portable(a), "half {a:x?}");
        assert_eq!(crate::arith::lt(&h, &P), 1);
        assert_eq!(crate::arith::add_mod(&h, &h, &P), *a, "2·(a/2) for {a:x?}");
    }
}

#[test]
fn portable_half_doubles_back() {
    for a in reduced_values(200, 5) {
        let h = half_portable(&a);
        assert_eq!(crate::arith::lt(&h, &P), 1);
        assert_eq!(crate::arith::add_mod(&h, &h, &P), a);
    }
}

/// The inversion chain with either multiplication path, against the
/// generic Fermat power x^(p−2) (4-bit window) and x·x⁻¹ = 1.
#[test]
fn invert_paths_match_fermat() {
    let mut vals = reduced_values(50, 6);
    vals.push([0; 4]);
    for a in vals {
        let x = Fp::from_mont_limbs(a);
        let want = x.pow_public_exp(&<Sm2P as Modulus>::M_MINUS_2);
        // The library's inversion (safegcd) too, and mod n.
        assert_eq!(*x.invert().mont_limbs(), *want.mont_limbs());
        let y = Scalar::from_limbs_reduce(&a);
        assert_eq!(*y.invert().mont_limbs(), *y.pow_public_exp(&<Sm2N as Modulus>::M_MINUS_2).mont_limbs());
        if !bool::from(x.is_zero()) {
            assert_eq!(x.invert().mul(&x).to_canonical(), [1, 0, 0, 0]);
        }
    }
}

/// The dispatching `Fp` operations (assembly on this CPU) agree with the
/// portable field code: products, squares and an inversion round trip.
#[test]
fn fp_ops_match_portable() {
    for a in random_values(300, 3).iter().map(|v| crate::arith::reduce_once(v, &P)) {
        let x = Fp::from_mont_limbs(a);
        assert_eq!(*x.square().mont_limbs(), Sm2P::reduce(&crate::arith::sqr_wide(&a)));
        let y = Fp::from_mont_limbs(crate::arith::reduce_once(&[a[3], a[0], a[1], a[2]], &P));
        assert_eq!(*x.mul(&y).mont_limbs(), mont_mul_portable(&a, y.mont_limbs()));
        if !bool::from(x.is_zero()) {
            assert_eq!(x.invert().mul(&x).to_canonical(), [1, 0, 0, 0]);
        }
    }
}
