//! Tests of the scalar multiplications against each other: combs of every
//! width, the fixed window and the wNAF chains (tests/sm2_reference.rs
//! checks the entry points against an independent big-integer model).

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::ecmult::{double_mul_wnaf_vartime, mul_vartime, G_WNAF_W};
use super::ecmult_const::mul;
use super::ecmult_gen::{g_table, mul_g, mul_g_scalar, CombTable};
use super::field::{Sm2N, N};
use super::point::{batch_to_affine_vartime, Affine, Jacobian};
use crate::arith::curve::odd_multiples_coz_vartime;
use crate::arith::{odd_scalar, recode_odd, reduce_once, sub_limbs, Limbs};
use subtle::{Choice, ConstantTimeEq};

/// Odd multiples P, 3P, ..., (2m − 1)P of a public P, affine, from plain
/// additions and a batch inversion: the tests' reference for
/// [`odd_multiples_coz_vartime`].
#[cfg(test)]
fn odd_multiples_vartime(p: &Affine, m: usize) -> Vec<Affine> {
    let p1 = p.to_jacobian();
    let p2 = p1.double();
    let mut odd = Vec::with_capacity(m);
    odd.push(p1);
    for i in 1..m {
        odd.push(odd[i - 1].add_vartime(&p2));
    }
    // Public points only: the variable-time batch inversion is allowed.
    batch_to_affine_vartime(&odd)
}

fn limbs(seed: &mut u64) -> [u64; 4] {
    core::array::from_fn(|_| {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    })
}

fn same(a: &Jacobian, b: &Jacobian) -> bool {
    if bool::from(a.is_identity()) || bool::from(b.is_identity()) {
        return bool::from(a.is_identity()) && bool::from(b.is_identity());
    }
    let (a, b) = (a.to_affine_vartime().unwrap(), b.to_affine_vartime().unwrap());
    bool::from(a.x.ct_eq(&b.x) & a.y.ct_eq(&b.y))
}

/// Edge scalars (0, 1, 2, n − 2, n − 1, n, n + 1, 2^255, 2^256 − 1,
/// small ones, ones with many zero windows as k and as n − k) and
/// random ones, reduced or not.
fn test_scalars(seed: &mut u64) -> Vec<Limbs> {
    let n = N;
    let sub = |a: &Limbs, d: u64| crate::arith::sub_limbs(a, &[d, 0, 0, 0]).0;
    let add = |a: &Limbs, d: u64| crate::arith::add_limbs(a, &[d, 0, 0, 0]).0;
    let mut ks = vec![
        [0u64; 4],
        sub(&n, 1),
        sub(&n, 2),
        sub(&n, 3),
        n,
        add(&n, 1),
        add(&n, 2),
        [0, 0, 0, 1 << 63],
        [u64::MAX; 4],
        [0, 0, 0, 1 << 60],
        [1, 0, 0, 1 << 60],
        [1, 0, 1, 0],
        [0, 0, 1 << 8, 0],
        [0x80, 0, 0, 0],
        [u64::MAX, 0, 0, 0],
        sub(&n, 1 << 40),
        crate::arith::sub_limbs(&n, &[0, 0, 1, 0]).0,
    ];
    // 1..=40 include k = 6 (k' = n − 6), whose last fixed-window addition
    // (k·P) is a doubling.
    for d in 1..=40u64 {
        ks.push([d, 0, 0, 0]);
    }
    // The scalars whose last comb addition is a doubling: k' = 2Q − n
    // for a last-window entry Q = d·2^(w(windows − 1)), and n − k'.
    for w in 5..=8usize {
        let top = w * (256usize.div_ceil(w) - 1);
        for d in (1..1u64 << w).step_by(2) {
            // c = 2d·2^top may reach 2^256: 5 limbs, then c − n.
            let (limb, off) = (top / 64, top % 64);
            let v = (2 * d as u128) << off;
            let mut c = [0u64; 5];
            c[limb] = v as u64;
            c[limb + 1] = (v >> 64) as u64;
            let (k, b) = sub_limbs(&[c[0], c[1], c[2], c[3]], &n);
            // 0 ≤ c − n < 2^256 (top limb c[4] − b = 0), and below n.
            if c[4] == b && sub_limbs(&k, &n).1 == 1 {
                ks.push(k);
                ks.push(sub_limbs(&n, &k).0);
            }
        }
    }
    for _ in 0..16 {
        ks.push(limbs(seed));
    }
    ks
}

/// The odd recoding gives odd digits below 2^w that sum back to k, for
/// every width the code uses.
#[test]
fn odd_recoding_sums_to_k() {
    let mut seed = 0x5eed_0dd5_1234_5678u64;
    for k in test_scalars(&mut seed) {
        let (odd, flip) = odd_scalar::<Sm2N>(&k);
        assert_eq!(odd[0] & 1, 1);
        // ±odd ≡ k (mod n)
        let k_mod_n = reduce_once(&k, &N);
        let back = if bool::from(flip) { sub_limbs(&N, &odd).0 } else { odd };
        let back = reduce_once(&back, &N);
        assert_eq!(back, k_mod_n, "k={k:x?}");
        for w in 5..=8usize {
            let windows = 256usize.div_ceil(w);
            let mut digits = [(0u64, Choice::from(0)); 64];
            recode_odd(&odd, w, windows, Choice::from(0), &mut digits);
            // Σ d_i 2^(wi) in 320-bit two's complement.
            let mut sum = [0u64; 5];
            for (i, (idx, neg)) in digits.iter().enumerate().take(windows) {
                assert!(*idx < 1 << (w - 1));
                let d = 2 * *idx + 1;
                let mut t = [0u64; 5];
                let (limb, off) = ((w * i) / 64, (w * i) % 64);
                t[limb] = d << off;
                if off > 0 && limb + 1 < 5 {
                    t[limb + 1] = d >> (64 - off);
                }
                if bool::from(*neg) {
                    assert!(i + 1 < windows, "last digit negative");
                    let mut c = 1u64;
                    for l in t.iter_mut() {
                        let (v, o) = (!*l).overflowing_add(c);
                        *l = v;
                        c = o as u64;
                    }
                }
                let mut c = 0u64;
                for (s, t) in sum.iter_mut().zip(t.iter()) {
                    let (v, o1) = s.overflowing_add(*t);
                    let (v, o2) = v.overflowing_add(c);
                    *s = v;
                    c = (o1 | o2) as u64;
                }
            }
            assert_eq!(sum, [odd[0], odd[1], odd[2], odd[3], 0], "w={w} k={k:x?}");
        }
    }
}

/// Every constant-time path (combs of widths 5..=8 for G and P, the
/// fixed window) and the comb's vartime path agree with the wNAF
/// double-and-add (an independent variable-time path: no comb, no odd
/// recoding, no reduction of k) on edge and random scalars; the shared
/// verification chain agrees with the comb + wNAF sum for every G
/// width. (tests/sm2_reference.rs checks the entry points against an
/// independent big-integer model.)
#[test]
fn variants_agree() {
    let mut seed = 0x0fed_cba9_8765_4321u64;
    let g = Affine::generator();
    let p = mul_g(&limbs(&mut seed)).to_affine().unwrap();
    let combs: Vec<CombTable> = (5..=8).map(|w| CombTable::new_vartime(&g, w)).collect();
    let p_combs: Vec<CombTable> = (5..=8).map(|w| CombTable::new_vartime(&p, w)).collect();
    let ks = test_scalars(&mut seed);
    for k in &ks {
        let kg = mul_vartime(&g, k);
        assert!(same(&mul_g(k), &kg), "k·G k={k:x?}");
        for c in &combs {
            assert!(same(&c.mul(k), &kg), "comb w={} k={k:x?}", c.w);
            assert!(same(&c.mul_vartime(k), &kg), "comb vartime w={} k={k:x?}", c.w);
        }
        let kp = mul_vartime(&p, k);
        for c in &p_combs {
            assert!(same(&c.mul(k), &kp), "P comb w={} k={k:x?}", c.w);
        }
        assert!(same(&mul(&p, k), &kp), "k·P k={k:x?}");
        assert!(same(&mul(&g, k), &kg), "k·P with P = G, k={k:x?}");
        let t = ks[(ks.iter().position(|x| x == k).unwrap() + 3) % ks.len()];
        let expect = g_table().mul_vartime(k).add_vartime(&mul_vartime(&p, &t));
        for gw in [2, 5, 8, G_WNAF_W] {
            assert!(same(&double_mul_wnaf_vartime(k, &t, &p, gw), &expect), "s·G + t·P, gw={gw}");
        }
    }
}

/// The co-Z odd multiples match the ones from plain additions.
#[test]
fn coz_odd_multiples() {
    let mut seed = 0x0dd0_dd0d_d0dd_0dd0u64;
    for p in [Affine::generator(), mul_g(&limbs(&mut seed)).to_affine().unwrap()] {
        for m in [1usize, 2, 16] {
            let a = odd_multiples_coz_vartime(&p, m);
            let b = odd_multiples_vartime(&p, m);
            assert_eq!(a.len(), m);
            for (x, y) in a.iter().zip(b.iter()) {
                assert!(bool::from(x.x.ct_eq(&y.x) & x.y.ct_eq(&y.y)), "m={m}");
            }
        }
    }
}

/// k·G on the IFMA lanes (what `mul_g` runs where the CPU has them) and on
/// the scalar comb agree on the edge scalars (those whose last window meets
/// the accumulator, k ≡ 0, n − 1, ...) and on random ones.
#[test]
fn lanes_match_scalar_comb() {
    if <crate::cpu::Ifma as crate::cpu::Token>::get().is_none() {
        eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
        return;
    }
    let mut seed = 0x1a2e_5eed_0f0c_0b0au64;
    let mut ks = test_scalars(&mut seed);
    ks.extend((0..2000).map(|_| limbs(&mut seed)));
    for k in &ks {
        assert!(same(&mul_g(k), &mul_g_scalar(k)), "k={k:x?}");
    }
}
