//! SM9's Fp12 on the IFMA lanes of [`super::fp_ifma`]: one element in two
//! eight-lane vectors, products as one lazily reduced convolution.
//!
//! Flattened, Fp12 = Fp[w]/(w¹² + 2) (w³ = v, w⁶ = v² = u, u² = −2), and
//! an element is Σ e_k·w^k with e_k = a_k.c0 and e_(k+6) = a_k.c1 for the
//! Fp2 coefficients a_0..a_5 of w⁰..w⁵ (a0 = c0.c0, a1 = c1.c0,
//! a2 = c2.c0, a3 = c0.c1, a4 = c1.c1, a5 = c2.c1; see [`super::fp12`]).
//! [`Fp12x`] holds e_0..e_7 in the lanes of `lo` and e_8..e_11 in lanes
//! 0..3 of `hi`; `hi`'s lanes 4..7 carry bounded values nobody reads.
//!
//! A product c = a·b is the twisted convolution
//! c_k = Σ_j b_j·S[12 + k − j] with S[12 + m] = e_m and S[m] = −2·e_m
//! (m = 0..11): for each of b's twelve coefficients, a window of eight
//! consecutive entries of S (a two-register permute at a fixed index)
//! times b_j broadcast, accumulated unreduced in ten columns, and one
//! Montgomery reduction per output vector. Contract ("canonical"): every
//! coefficient below p (and −2e is taken as p − (2e mod p) ≤ p), so a
//! column sum of twelve products is below 12p² < p·R (R/p ≈ 22.5) and the
//! reduction returns below 1.54p; one conditional subtraction of p makes
//! it canonical again.
//!
//! Constant time: straight-line vector arithmetic; the permutes' indices
//! are constants (which coefficient goes to which lane), never data. The
//! conditional subtraction's sign select may compile to a k-mask blend
//! between registers (no memory operand; `scripts/ctime.sh` fails on any
//! k-masked memory access in SM9 code), and the conversions transpose by
//! permutes, not gathers.

#![cfg(target_arch = "x86_64")]

mod square;

use super::fp::{fp_small, Fp};
use super::fp12::Fp12;
use super::fp2::Fp2;
use super::fp4::Fp4;
use super::fp_ifma::{carry, mac, radix52, reduce, Fp8, P52};
use crate::cpu::Ifma;
use core::arch::x86_64::*;

/// 2^264 mod p (canonical): the lane product of a scalar-tower limb value
/// x·2^256 with it is x·2^260, the lanes' form.
const TO_LANES: [u64; 5] = {
    let m = fp_small(256);
    let l = m.mont_limbs();
    radix52([l[0], l[1], l[2], l[3], 0])
};

/// 2^256 mod p (canonical): the lane product of x·2^260 with it is x·2^256,
/// the scalar tower's Montgomery form.
const FROM_LANES: [u64; 5] = {
    let l = Fp::ONE.mont_limbs();
    radix52([l[0], l[1], l[2], l[3], 0])
};

/// An Fp12 element on the lanes (see the module comment).
#[derive(Clone, Copy)]
pub struct Fp12x {
    lo: Fp8,
    hi: Fp8,
}

impl core::fmt::Debug for Fp12x {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Fp12x(..)")
    }
}

/// The twelve flattened coefficients e_0..e_11 of an Fp12.
fn flatten(x: &Fp12) -> [Fp; 12] {
    let a = [x.c0.c0, x.c1.c0, x.c2.c0, x.c0.c1, x.c1.c1, x.c2.c1];
    core::array::from_fn(|k| if k < 6 { a[k].c0 } else { a[k - 6].c1 })
}

/// Inverse of [`flatten`].
fn unflatten(e: &[Fp; 12]) -> Fp12 {
    let a = |i: usize| Fp2::new(e[i], e[i + 6]);
    Fp12 { c0: Fp4::new(a(0), a(3)), c1: Fp4::new(a(1), a(4)), c2: Fp4::new(a(2), a(5)) }
}

#[target_feature(enable = "avx512f")]
#[inline]
fn splat(c: &[u64; 5]) -> [__m512i; 5] {
    core::array::from_fn(|i| _mm512_set1_epi64(c[i] as i64))
}

/// x − p if that is not negative, else x, for carried x below 2p: the
/// canonical representative, constant time (a vector sign mask).
#[target_feature(enable = "avx512f")]
#[inline]
fn canon(x: [__m512i; 5]) -> [__m512i; 5] {
    let d = carry(core::array::from_fn(|i| _mm512_sub_epi64(x[i], _mm512_set1_epi64(P52[i] as i64))));
    let neg = _mm512_srai_epi64::<63>(d[4]);
    core::array::from_fn(|i| _mm512_or_si512(_mm512_and_si512(neg, x[i]), _mm512_andnot_si512(neg, d[i])))
}

/// −2x as p − (2x mod p), in (0, p], for canonical x.
#[target_feature(enable = "avx512f")]
#[inline]
fn neg2(x: &[__m512i; 5]) -> [__m512i; 5] {
    let d = canon(carry(core::array::from_fn(|i| _mm512_slli_epi64::<1>(x[i]))));
    carry(core::array::from_fn(|i| _mm512_sub_epi64(_mm512_set1_epi64(P52[i] as i64), d[i])))
}

/// Lane-wise Montgomery product by a broadcast constant, made canonical.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn mul_const(x: &[__m512i; 5], c: &[u64; 5]) -> [__m512i; 5] {
    let mut t = [_mm512_setzero_si512(); 10];
    mac(&mut t, &Fp8(*x), &Fp8(splat(c)));
    canon(reduce(t).0)
}

/// S's three vectors (S[0..8], S[8..16], S[16..24]) and a zero fourth.
#[target_feature(enable = "avx512f")]
#[inline]
fn sources(a: &Fp12x) -> [[__m512i; 5]; 4] {
    let (tlo, thi) = (neg2(&a.lo.0), neg2(&a.hi.0));
    let v1 = core::array::from_fn(|i| _mm512_inserti64x4::<1>(thi[i], _mm512_castsi512_si256(a.lo.0[i])));
    let v2 = core::array::from_fn(|i| _mm512_alignr_epi64::<4>(a.hi.0[i], a.lo.0[i]));
    [tlo, v1, v2, [_mm512_setzero_si512(); 5]]
}

/// S[x..x + 8] (x in 1..=20), one two-register permute per limb.
#[target_feature(enable = "avx512f")]
#[inline]
fn window(s: &[[__m512i; 5]; 4], x: usize) -> Fp8 {
    let idx = _mm512_add_epi64(_mm512_set1_epi64((x % 8) as i64), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    let (a, b) = (&s[x / 8], &s[x / 8 + 1]);
    Fp8(core::array::from_fn(|i| _mm512_permutex2var_epi64(a[i], idx, b[i])))
}

/// Lane j % 8 of `v` in every lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn broadcast(v: &Fp8, j: usize) -> Fp8 {
    let idx = _mm512_set1_epi64((j % 8) as i64);
    Fp8(core::array::from_fn(|i| _mm512_permutexvar_epi64(idx, v.0[i])))
}

/// Σ over the terms (j, b_j broadcast) of b_j·w^j·a, one reduction per
/// output vector (at most twelve terms, canonical operands).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn convolve(a: &Fp12x, terms: &[(usize, Fp8)]) -> Fp12x {
    debug_assert!(terms.len() <= 12);
    let s = sources(a);
    let mut lo = [_mm512_setzero_si512(); 10];
    let mut hi = [_mm512_setzero_si512(); 10];
    for (j, bj) in terms {
        mac(&mut lo, &window(&s, 12 - j), bj);
        mac(&mut hi, &window(&s, 20 - j), bj);
    }
    Fp12x { lo: Fp8(canon(reduce(lo).0)), hi: Fp8(canon(reduce(hi).0)) }
}

#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn mul_impl(a: &Fp12x, b: &Fp12x) -> Fp12x {
    let terms: [(usize, Fp8); 12] = core::array::from_fn(|j| (j, broadcast(if j < 8 { &b.lo } else { &b.hi }, j)));
    convolve(a, &terms)
}

/// Eight 4×64-bit values (two per vector, as they lie in memory) into
/// the four vectors of their limbs: an 8×4 transpose by constant permutes
/// (written out so the compiler does not turn the transposition into
/// gathers).
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose_in(z: [__m512i; 4]) -> [__m512i; 4] {
    let ix = |v: [i64; 8]| _mm512_set_epi64(v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0]);
    let (p, q) = (ix([0, 4, 8, 12, 1, 5, 9, 13]), ix([2, 6, 10, 14, 3, 7, 11, 15]));
    let (p01, q01) = (_mm512_permutex2var_epi64(z[0], p, z[1]), _mm512_permutex2var_epi64(z[0], q, z[1]));
    let (p23, q23) = (_mm512_permutex2var_epi64(z[2], p, z[3]), _mm512_permutex2var_epi64(z[2], q, z[3]));
    let (lo, hi) = (ix([0, 1, 2, 3, 8, 9, 10, 11]), ix([4, 5, 6, 7, 12, 13, 14, 15]));
    [
        _mm512_permutex2var_epi64(p01, lo, p23),
        _mm512_permutex2var_epi64(p01, hi, p23),
        _mm512_permutex2var_epi64(q01, lo, q23),
        _mm512_permutex2var_epi64(q01, hi, q23),
    ]
}

/// Inverse of [`transpose_in`].
#[target_feature(enable = "avx512f")]
#[inline]
fn transpose_out(l: [__m512i; 4]) -> [__m512i; 4] {
    let ix = |v: [i64; 8]| _mm512_set_epi64(v[7], v[6], v[5], v[4], v[3], v[2], v[1], v[0]);
    let (lo, hi) = (ix([0, 1, 2, 3, 8, 9, 10, 11]), ix([4, 5, 6, 7, 12, 13, 14, 15]));
    // p01 = [l0 of e0..e3, l1 of e0..e3], p23 the same for e4..e7.
    let (p01, p23) = (_mm512_permutex2var_epi64(l[0], lo, l[1]), _mm512_permutex2var_epi64(l[0], hi, l[1]));
    let (q01, q23) = (_mm512_permutex2var_epi64(l[2], lo, l[3]), _mm512_permutex2var_epi64(l[2], hi, l[3]));
    // z_k = [e_2k's four limbs, e_(2k+1)'s four limbs].
    let a = ix([0, 4, 8, 12, 1, 5, 9, 13]);
    let b = ix([2, 6, 10, 14, 3, 7, 11, 15]);
    [
        _mm512_permutex2var_epi64(p01, a, q01),
        _mm512_permutex2var_epi64(p01, b, q01),
        _mm512_permutex2var_epi64(p23, a, q23),
        _mm512_permutex2var_epi64(p23, b, q23),
    ]
}

#[target_feature(enable = "avx512f,avx512ifma")]
fn from_fp12_impl(x: &Fp12) -> Fp12x {
    let e = flatten(x);
    let mut limbs = [[0u64; 4]; 16];
    for (d, c) in limbs.iter_mut().zip(e.iter()) {
        *d = *c.mont_limbs();
    }
    let mask = _mm512_set1_epi64(super::fp_ifma::MASK as i64);
    let half = |h: usize| -> [__m512i; 5] {
        // SAFETY: limbs[8h + 2k..8h + 2k + 2] are 64 readable bytes.
        let z = core::array::from_fn(|k| unsafe { _mm512_loadu_si512(limbs[8 * h + 2 * k..].as_ptr().cast()) });
        let l = transpose_in(z);
        [
            _mm512_and_si512(l[0], mask),
            _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<52>(l[0]), _mm512_slli_epi64::<12>(l[1])), mask),
            _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<40>(l[1]), _mm512_slli_epi64::<24>(l[2])), mask),
            _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64::<28>(l[2]), _mm512_slli_epi64::<36>(l[3])), mask),
            _mm512_srli_epi64::<16>(l[3]),
        ]
    };
    let (lo, hi) = (half(0), half(1));
    Fp12x { lo: Fp8(mul_const(&lo, &TO_LANES)), hi: Fp8(mul_const(&hi, &TO_LANES)) }
}

#[target_feature(enable = "avx512f,avx512ifma")]
fn to_fp12_impl(x: &Fp12x) -> Fp12 {
    let mut limbs = [[0u64; 4]; 16];
    for (h, v) in [&x.lo, &x.hi].into_iter().enumerate() {
        // Canonical x·2^256 (below p < 2^256: the top limb below 2^48).
        let r = mul_const(&v.0, &FROM_LANES);
        let l = [
            _mm512_or_si512(r[0], _mm512_slli_epi64::<52>(r[1])),
            _mm512_or_si512(_mm512_srli_epi64::<12>(r[1]), _mm512_slli_epi64::<40>(r[2])),
            _mm512_or_si512(_mm512_srli_epi64::<24>(r[2]), _mm512_slli_epi64::<28>(r[3])),
            _mm512_or_si512(_mm512_srli_epi64::<36>(r[3]), _mm512_slli_epi64::<16>(r[4])),
        ];
        for (k, z) in transpose_out(l).into_iter().enumerate() {
            // SAFETY: limbs[8h + 2k..8h + 2k + 2] are 64 writable bytes.
            unsafe { _mm512_storeu_si512(limbs[8 * h + 2 * k..].as_mut_ptr().cast(), z) };
        }
    }
    unflatten(&core::array::from_fn(|k| Fp::from_mont_limbs(limbs[k])))
}

/// The lane form of one scalar-tower coefficient in every lane
/// (x·2^256 → x·2^260 by four modular doublings, then the radix change).
fn splat_fp(x: &Fp) -> [u64; 5] {
    let m = x.double().double().double().double();
    let l = m.mont_limbs();
    radix52([l[0], l[1], l[2], l[3], 0])
}

#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn mul_by_line_impl(f: &Fp12x, l0: &Fp2, l1: &Fp2, l2: &Fp2, scaled: bool) -> Fp12x {
    // The line l0 + l1·v + l2·w² = l0 + l1·w³ + l2·w²: flattened, e0 = l0.c0,
    // e6 = l0.c1, e3 = l1.c0, e9 = l1.c1, e2 = l2.c0, e8 = l2.c1. With
    // `scaled`, l1 and l2 are given times 2⁴ already (their Montgomery
    // limbs are the lane form): no doublings.
    let c = [(0, &l0.c0), (6, &l0.c1), (3, &l1.c0), (9, &l1.c1), (2, &l2.c0), (8, &l2.c1)];
    let terms: [(usize, Fp8); 6] = core::array::from_fn(|i| {
        let limbs = if scaled && i >= 2 {
            let l = c[i].1.mont_limbs();
            radix52([l[0], l[1], l[2], l[3], 0])
        } else {
            splat_fp(c[i].1)
        };
        (c[i].0, Fp8(splat(&limbs)))
    });
    convolve(f, &terms)
}

/// w ↦ −w: the odd coefficients negated (p − e, made canonical).
#[target_feature(enable = "avx512f")]
#[inline]
fn conj_impl(a: &Fp12x) -> Fp12x {
    let odd = _mm512_set_epi64(-1, 0, -1, 0, -1, 0, -1, 0);
    let f = |x: &Fp8| {
        let n = canon(carry(core::array::from_fn(|i| _mm512_sub_epi64(_mm512_set1_epi64(P52[i] as i64), x.0[i]))));
        Fp8(core::array::from_fn(|i| _mm512_or_si512(_mm512_and_si512(odd, n[i]), _mm512_andnot_si512(odd, x.0[i]))))
    };
    Fp12x { lo: f(&a.lo), hi: f(&a.hi) }
}

/// Coefficient by coefficient: e_k·m_k (the Frobenius maps, whose
/// multipliers are constants per coefficient).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn mul_lanewise_impl(a: &Fp12x, m: &Fp12x) -> Fp12x {
    let f = |x: &Fp8, y: &Fp8| {
        let mut t = [_mm512_setzero_si512(); 10];
        mac(&mut t, x, y);
        Fp8(canon(reduce(t).0))
    };
    Fp12x { lo: f(&a.lo, &m.lo), hi: f(&a.hi, &m.hi) }
}

impl Fp12x {
    /// The lane form of 1.
    pub fn one(t: Ifma) -> Fp12x {
        Fp12x::from_fp12(t, &Fp12::ONE)
    }

    /// A scalar-tower element on the lanes.
    pub fn from_fp12(_t: Ifma, x: &Fp12) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { from_fp12_impl(x) }
    }

    /// Back to the scalar tower.
    pub fn to_fp12(&self, _t: Ifma) -> Fp12 {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { to_fp12_impl(self) }
    }

    /// self·o.
    #[inline]
    pub fn mul(&self, _t: Ifma, o: &Fp12x) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { mul_impl(self, o) }
    }

    /// self².
    #[inline]
    pub fn square(&self, _t: Ifma) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { square::square_impl(self) }
    }

    /// Granger–Scott's squaring: only for elements of the cyclotomic
    /// subgroup (after the final exponentiation's easy part), as
    /// [`Fp12::cyclotomic_square`].
    #[inline]
    pub fn cyclotomic_square(&self, _t: Ifma) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { square::cyclotomic_square_impl(self) }
    }

    /// The conjugate (w ↦ −w; the inverse of a cyclotomic element).
    #[inline]
    pub fn conj(&self, _t: Ifma) -> Fp12x {
        // SAFETY: the token proves AVX-512 F.
        unsafe { conj_impl(self) }
    }

    /// Each coefficient e_k times m's e_k (no convolution).
    #[inline]
    pub fn mul_lanewise(&self, _t: Ifma, m: &Fp12x) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { mul_lanewise_impl(self, m) }
    }

    /// self · (l0 + l1·v + l2·w²), the Miller loop's sparse line product
    /// ([`Fp12::mul_by_line`]; the coefficients from the scalar tower).
    #[inline]
    pub fn mul_by_line(&self, _t: Ifma, l0: &Fp2, l1: &Fp2, l2: &Fp2) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { mul_by_line_impl(self, l0, l1, l2, false) }
    }

    /// [`Fp12x::mul_by_line`] with l1 and l2 given times 16 (the Miller
    /// loop scales the point P once instead: yP·16, xP·16).
    #[inline]
    pub fn mul_by_line_scaled(&self, _t: Ifma, l0: &Fp2, l1x16: &Fp2, l2x16: &Fp2) -> Fp12x {
        // SAFETY: the token proves AVX-512 F and IFMA.
        unsafe { mul_by_line_impl(self, l0, l1x16, l2x16, true) }
    }
}

/// a·b on the lanes, scalar in and out (conversions included): a drop-in
/// for [`Fp12::mul`].
pub fn mul(t: Ifma, a: &Fp12, b: &Fp12) -> Fp12 {
    Fp12x::from_fp12(t, a).mul(t, &Fp12x::from_fp12(t, b)).to_fp12(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;
    use subtle::ConstantTimeEq;

    use crate::sm9::test_rng::Sm9Rng;

    fn eq(a: &Fp12, b: &Fp12) -> bool {
        bool::from(a.ct_eq(b))
    }

    #[test]
    fn flatten_round_trip_and_constants() {
        let mut rng = Sm9Rng::new(0x1f12_0000_5eed_0001);
        let x = rng.fp12_edgy();
        assert!(eq(&unflatten(&flatten(&x)), &x));
        // w·w¹¹ = w¹² = −2 through the scalar tower: the flattening's order.
        let w = |k: usize| unflatten(&core::array::from_fn(|i| if i == k { Fp::ONE } else { Fp::ZERO }));
        let m2 = unflatten(&core::array::from_fn(|i| if i == 0 { fp_small(2).neg() } else { Fp::ZERO }));
        assert!(eq(&w(1).mul(&w(11)), &m2));
        assert!(eq(&w(5).mul(&w(7)), &m2));
        assert!(eq(&w(3).mul(&w(4)), &w(7)));
    }

    /// Products, squares and line products on the lanes against the
    /// MULX/ADX (or portable) scalar tower, chained so lane outputs are fed
    /// back as inputs; the all-(p − 1) element included.
    #[test]
    fn lanes_match_scalar_fp12() {
        let Some(t) = Ifma::get() else {
            eprintln!("no AVX-512 IFMA (or masked): Fp12 lane tests skipped");
            return;
        };
        let mut rng = Sm9Rng::new(0x1f12_0000_5eed_0002);
        let pm1 = Fp::ZERO.sub(&Fp::ONE);
        let all_pm1 = unflatten(&[pm1; 12]);
        for round in 0..200 {
            let (a, b) = if round == 0 { (all_pm1, all_pm1) } else { (rng.fp12_edgy(), rng.fp12_edgy()) };
            let (la, lb) = (Fp12x::from_fp12(t, &a), Fp12x::from_fp12(t, &b));
            assert!(eq(&la.to_fp12(t), &a), "round trip {round}");
            let ab = la.mul(t, &lb);
            let want = a.mul(&b);
            assert!(eq(&ab.to_fp12(t), &want), "mul {round}");
            assert!(eq(&mul(t, &a, &b), &want), "scalar-in/out mul {round}");
            let sq = ab.square(t);
            let want_sq = want.square();
            assert!(eq(&sq.to_fp12(t), &want_sq), "square {round}");
            let (l0, l1, l2) = (rng.fp2_edgy(), rng.fp2_edgy(), rng.fp2_edgy());
            let ln = sq.mul_by_line(t, &l0, &l1, &l2).mul(t, &la);
            let want_ln = want_sq.mul_by_line(&l0, &l1, &l2).mul(&a);
            assert!(eq(&ln.to_fp12(t), &want_ln), "line {round}");
            let x16 = |x: &Fp2| x.double().double().double().double();
            let ls = sq.mul_by_line_scaled(t, &l0, &x16(&l1), &x16(&l2)).mul(t, &la);
            assert!(eq(&ls.to_fp12(t), &want_ln), "scaled line {round}");
        }
        assert!(eq(&Fp12x::one(t).mul(t, &Fp12x::from_fp12(t, &all_pm1)).to_fp12(t), &all_pm1));
    }

    /// Cyclotomic squares and conjugates of elements after the easy part
    /// (and of 1) against the scalar tower, chained.
    #[test]
    fn cyclotomic_lanes_match_scalar() {
        let Some(t) = Ifma::get() else { return };
        let mut rng = Sm9Rng::new(0x1f12_0000_5eed_0003);
        for round in 0..100 {
            // The easy part's map f ↦ f^((p⁶ − 1)(p² + 1)) lands in the
            // cyclotomic subgroup.
            let x = if round == 0 {
                Fp12::ONE
            } else {
                let f = rng.fp12_edgy();
                let f1 = f.conj().mul(&f.invert());
                f1.frobenius2().mul(&f1)
            };
            let mut lx = Fp12x::from_fp12(t, &x);
            let mut sx = x;
            for _ in 0..3 {
                lx = lx.cyclotomic_square(t);
                sx = sx.cyclotomic_square();
                assert!(eq(&lx.to_fp12(t), &sx), "cyclotomic square {round}");
            }
            assert!(eq(&lx.conj(t).to_fp12(t), &sx.conj()), "conj {round}");
            assert!(eq(&lx.conj(t).mul(t, &lx).to_fp12(t), &Fp12::ONE), "x̄·x {round}");
        }
    }
}
