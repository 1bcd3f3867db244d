//! SM9's Fp and Fp2 on eight lanes at once: AVX-512 IFMA
//! (`vpmadd52luq`/`vpmadd52huq`) in radix 2^52, five limbs, Montgomery's
//! domain with R = 2^260 — the first level of an IFMA tower, with the
//! scalar MULX/ADX tower ([`super::fp`], [`super::fp2`]) as its reference.
//!
//! An [`Fp8`] is five 512-bit registers: limb i of lane l holds bits 52i..
//! of lane l's value, which is (≡) x·2^260 mod p for the lane's element x.
//!
//! Contract ("reduced"): every limb in [0, 2^52) and the value below 2p
//! (< 2^257, so the top limb is below 2^49). Every operation takes reduced
//! inputs and returns a reduced output, not necessarily below p.
//!
//! Sums of products reduced once (Longa's lazy reduction): the ten-column
//! products of several pairs are accumulated first and one Montgomery
//! reduction follows. For operands below 2p a sum of k products is below
//! 4k·p², and the reduction returns (Σ + m·p)/R < 4kp²/R + p, which stays
//! below 2p while 4kp < R, i.e. k ≤ 5 (R/4p ≈ 5.6); with operands below p
//! up to 22 products fit (R/p ≈ 22.5). Fp2's products are two-term sums
//! with one operand up to 4p (the negated, doubled a1): 12p² < pR.
//!
//! Columns: a column of a k-term sum receives at most 10k IFMA halves
//! below 2^52 each plus the reduction's ten; 64-bit lanes hold far more.
//! IFMA reads only the low 52 bits of its multiplicands, which is why
//! limbs are always carried back into [0, 2^52) before a product.
//!
//! Constant time: straight-line vector arithmetic (multiply-add, add, sub,
//! shifts, and) with no branch, no memory index and no mask register.

#![cfg(target_arch = "x86_64")]

use super::fp::{fp, Fp, Sm9P};
use super::fp2::Fp2;
use crate::arith::{Limbs, Modulus};
use crate::cpu::Ifma;
use core::arch::x86_64::*;

/// Bits per limb.
pub(super) const W: u32 = 52;
/// The low 52 bits.
pub(super) const MASK: u64 = (1 << W) - 1;

/// A 320-bit value's five 52-bit limbs (the top limb takes bits 208..320).
pub(super) const fn radix52(v: [u64; 5]) -> [u64; 5] {
    [
        v[0] & MASK,
        ((v[0] >> 52) | (v[1] << 12)) & MASK,
        ((v[1] >> 40) | (v[2] << 24)) & MASK,
        ((v[2] >> 28) | (v[3] << 36)) & MASK,
        (v[3] >> 16) | (v[4] << 48),
    ]
}

const P: Limbs = Sm9P::M;
/// p's limbs.
pub(super) const P52: [u64; 5] = radix52([P[0], P[1], P[2], P[3], 0]);
/// 4p's limbs (4p < 2^259: the top limb is below 2^51).
const P52X4: [u64; 5] = radix52([
    P[0] << 2,
    (P[1] << 2) | (P[0] >> 62),
    (P[2] << 2) | (P[1] >> 62),
    (P[3] << 2) | (P[2] >> 62),
    P[3] >> 62,
]);
/// −p⁻¹ mod 2^52 (the low bits of the 64-bit Montgomery constant).
const K0: u64 = Sm9P::M_INV & MASK;

/// 2⁻⁴ mod p (canonical): 2^260-domain values become 2^256-domain ones
/// by one Montgomery product with it (`tests::inv16`).
const INV16: Fp = fp([0x2dbcbaab6c47dfc6, 0x8756c543a2348437, 0x432285c6f8d228ff, 0x7d4c000001d082c6]);

/// The value of reduced limbs (< 2^257) brought below p: two constant-time
/// conditional subtractions of p.
pub(super) fn from_radix52(l: &[u64; 5]) -> Limbs {
    use crate::arith::{mask_from_bit, sbb};
    let mut v = [
        l[0] | (l[1] << 52),
        (l[1] >> 12) | (l[2] << 40),
        (l[2] >> 24) | (l[3] << 28),
        (l[3] >> 36) | (l[4] << 16),
        l[4] >> 48,
    ];
    let p = [P[0], P[1], P[2], P[3], 0];
    for _ in 0..2 {
        let mut d = [0u64; 5];
        let mut borrow = 0;
        for i in 0..5 {
            (d[i], borrow) = sbb(v[i], p[i], borrow);
        }
        let keep = mask_from_bit(borrow);
        for i in 0..5 {
            v[i] = (v[i] & keep) | (d[i] & !keep);
        }
    }
    [v[0], v[1], v[2], v[3]]
}

/// Eight Fp elements (see the module comment for the contract).
#[derive(Clone, Copy)]
pub struct Fp8(pub(super) [__m512i; 5]);

/// Eight Fp2 elements, c0 + c1·u.
#[derive(Clone, Copy)]
pub struct Fp2x8 {
    pub c0: Fp8,
    pub c1: Fp8,
}

impl core::fmt::Debug for Fp8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Fp8(..)")
    }
}

impl core::fmt::Debug for Fp2x8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Fp2x8(..)")
    }
}

impl Fp8 {
    /// Eight scalar-tower elements into the lanes (x·2^256 → x·2^260: four
    /// modular doublings, then the radix change).
    pub fn from_fp(_t: Ifma, xs: &[Fp; 8]) -> Fp8 {
        let mut rows = [[0u64; 8]; 5];
        for (lane, x) in xs.iter().enumerate() {
            let l = x.double().double().double().double();
            let m = l.mont_limbs();
            let r = radix52([m[0], m[1], m[2], m[3], 0]);
            for i in 0..5 {
                rows[i][lane] = r[i];
            }
        }
        // SAFETY: the token proves AVX-512 F.
        unsafe { Self::load(&rows) }
    }

    /// The lanes back as scalar-tower elements (x·2^260 → x·2^256: below p,
    /// then one product by 2⁻⁴).
    pub fn to_fp(&self, _t: Ifma) -> [Fp; 8] {
        let mut rows = [[0u64; 8]; 5];
        // SAFETY: the token proves AVX-512 F.
        unsafe { self.store(&mut rows) };
        core::array::from_fn(|lane| {
            let l = [rows[0][lane], rows[1][lane], rows[2][lane], rows[3][lane], rows[4][lane]];
            Fp::from_mont_limbs(from_radix52(&l)).mul(&INV16)
        })
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load(rows: &[[u64; 8]; 5]) -> Fp8 {
        // SAFETY: each row is 64 readable bytes; unaligned loads.
        Fp8(core::array::from_fn(|i| unsafe { _mm512_loadu_si512(rows[i].as_ptr().cast()) }))
    }

    #[target_feature(enable = "avx512f")]
    #[inline]
    fn store(&self, rows: &mut [[u64; 8]; 5]) {
        for (i, row) in rows.iter_mut().enumerate() {
            // SAFETY: each row is 64 writable bytes; unaligned stores.
            unsafe { _mm512_storeu_si512(row.as_mut_ptr().cast(), self.0[i]) };
        }
    }
}

/// Carries signed limbs (magnitudes below 2^62, of a value in [0, 2^260))
/// into [0, 2^52), the top limb taking the rest.
#[target_feature(enable = "avx512f")]
#[inline]
pub(super) fn carry(mut l: [__m512i; 5]) -> [__m512i; 5] {
    let mask = _mm512_set1_epi64(MASK as i64);
    for i in 0..4 {
        let c = _mm512_srai_epi64::<52>(l[i]);
        l[i] = _mm512_and_si512(l[i], mask);
        l[i + 1] = _mm512_add_epi64(l[i + 1], c);
    }
    l
}

/// 4p − 2a for reduced a (a < 2p): in [0, 4p], carried into limbs (the
/// top limb below 2^51). ≡ −2a, an operand of a lazily reduced sum.
#[target_feature(enable = "avx512f")]
#[inline]
fn neg2_plus_4p(a: &Fp8) -> Fp8 {
    Fp8(carry(core::array::from_fn(|i| {
        _mm512_sub_epi64(_mm512_set1_epi64(P52X4[i] as i64), _mm512_slli_epi64::<1>(a.0[i]))
    })))
}

/// 2a, carried (below 4p).
#[target_feature(enable = "avx512f")]
#[inline]
fn double_wide(a: &Fp8) -> Fp8 {
    Fp8(carry(core::array::from_fn(|i| _mm512_slli_epi64::<1>(a.0[i]))))
}

/// Adds the ten-column product a·b into `t` (50 multiply-adds).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(super) fn mac(t: &mut [__m512i; 10], a: &Fp8, b: &Fp8) {
    for i in 0..5 {
        for j in 0..5 {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[j], b.0[i]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[j], b.0[i]);
        }
    }
}

/// Montgomery reduction of ten non-negative columns (a value below p·R):
/// five rows, each m = (column mod 2^52)·K0 mod 2^52 (one low multiply-add
/// reads exactly the column's low 52 bits), m·p added, the column's
/// carry moved up. The result (Σ + m·p)/R is below 2p, carried.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(super) fn reduce(mut t: [__m512i; 10]) -> Fp8 {
    let zero = _mm512_setzero_si512();
    let k0 = _mm512_set1_epi64(K0 as i64);
    let p: [__m512i; 5] = core::array::from_fn(|j| _mm512_set1_epi64(P52[j] as i64));
    for i in 0..5 {
        let m = _mm512_madd52lo_epu64(zero, t[i], k0);
        for j in 0..5 {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], m, p[j]);
            if i + j + 1 < 10 {
                t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], m, p[j]);
            }
        }
        // t[i] ≡ 0 (mod 2^52) now; its carry goes up (all columns are
        // non-negative: logical shift).
        t[i + 1] = _mm512_add_epi64(t[i + 1], _mm512_srli_epi64::<52>(t[i]));
    }
    Fp8(carry([t[5], t[6], t[7], t[8], t[9]]))
}

/// a·b·2^−260 mod p on every lane.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn mul_impl(a: &Fp8, b: &Fp8) -> Fp8 {
    let mut t = [_mm512_setzero_si512(); 10];
    mac(&mut t, a, b);
    reduce(t)
}

/// Σ aᵢ·bᵢ·2^−260 mod p with one reduction (at most five pairs of reduced
/// operands: see the module comment).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn sum_of_products_impl(pairs: &[(&Fp8, &Fp8)]) -> Fp8 {
    debug_assert!(pairs.len() <= 5);
    let mut t = [_mm512_setzero_si512(); 10];
    for (a, b) in pairs {
        mac(&mut t, a, b);
    }
    reduce(t)
}

/// (a0 + a1u)(b0 + b1u) with u² = −2: c0 = a0b0 + (4p − 2a1)b1 and
/// c1 = a0b1 + a1b0, each one two-term sum and one reduction (four
/// products, two reductions; no Karatsuba, whose additions would cost
/// carries here).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn fp2_mul_impl(a: &Fp2x8, b: &Fp2x8) -> Fp2x8 {
    let n = neg2_plus_4p(&a.c1);
    let mut t0 = [_mm512_setzero_si512(); 10];
    mac(&mut t0, &a.c0, &b.c0);
    mac(&mut t0, &n, &b.c1);
    let mut t1 = [_mm512_setzero_si512(); 10];
    mac(&mut t1, &a.c0, &b.c1);
    mac(&mut t1, &a.c1, &b.c0);
    Fp2x8 { c0: reduce(t0), c1: reduce(t1) }
}

/// (a0 + a1u)² = a0² − 2a1² + 2a0a1·u: c0 = a0·a0 + (4p − 2a1)·a1 (one
/// reduction), c1 = (2a0)·a1.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn fp2_square_impl(a: &Fp2x8) -> Fp2x8 {
    let n = neg2_plus_4p(&a.c1);
    let d = double_wide(&a.c0);
    let mut t0 = [_mm512_setzero_si512(); 10];
    mac(&mut t0, &a.c0, &a.c0);
    mac(&mut t0, &n, &a.c1);
    Fp2x8 { c0: reduce(t0), c1: mul_impl(&d, &a.c1) }
}

/// Lane-wise Montgomery product (the token proves AVX-512 F and IFMA).
#[inline]
pub fn mul(_t: Ifma, a: &Fp8, b: &Fp8) -> Fp8 {
    // SAFETY: the token proves the features the body needs.
    unsafe { mul_impl(a, b) }
}

/// Lane-wise Σ aᵢ·bᵢ with one reduction; at most five pairs (checked).
pub fn sum_of_products(_t: Ifma, pairs: &[(&Fp8, &Fp8)]) -> Option<Fp8> {
    if pairs.len() > 5 {
        return None;
    }
    // SAFETY: the token proves the features the body needs.
    Some(unsafe { sum_of_products_impl(pairs) })
}

/// Lane-wise Fp2 product.
#[inline]
pub fn fp2_mul(_t: Ifma, a: &Fp2x8, b: &Fp2x8) -> Fp2x8 {
    // SAFETY: the token proves the features the body needs.
    unsafe { fp2_mul_impl(a, b) }
}

/// Lane-wise Fp2 square.
#[inline]
pub fn fp2_square(_t: Ifma, a: &Fp2x8) -> Fp2x8 {
    // SAFETY: the token proves the features the body needs.
    unsafe { fp2_square_impl(a) }
}

impl Fp2x8 {
    pub fn from_fp2(t: Ifma, xs: &[Fp2; 8]) -> Fp2x8 {
        Fp2x8 {
            c0: Fp8::from_fp(t, &core::array::from_fn(|i| xs[i].c0)),
            c1: Fp8::from_fp(t, &core::array::from_fn(|i| xs[i].c1)),
        }
    }

    pub fn to_fp2(&self, t: Ifma) -> [Fp2; 8] {
        let (c0, c1) = (self.c0.to_fp(t), self.c1.to_fp(t));
        core::array::from_fn(|i| Fp2::new(c0[i], c1[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;
    use subtle::ConstantTimeEq;

    use crate::sm9::test_rng::Sm9Rng;

    fn eq(a: &Fp, b: &Fp) -> bool {
        bool::from(a.ct_eq(b))
    }

    #[test]
    fn inv16() {
        assert!(eq(&super::super::fp::fp_small(16).mul(&INV16), &Fp::ONE));
        // K0·p ≡ −1 (mod 2^52).
        assert_eq!(K0.wrapping_mul(P52[0]).wrapping_add(1) & MASK, 0);
        assert_eq!(
            P52X4,
            radix52([
                P[0] << 2,
                (P[1] << 2) | (P[0] >> 62),
                (P[2] << 2) | (P[1] >> 62),
                (P[3] << 2) | (P[2] >> 62),
                P[3] >> 62
            ])
        );
    }

    /// Every product, sum of products, Fp2 product and square on the lanes
    /// against the MULX/ADX (or portable) scalar tower; chained, so
    /// unreduced (< 2p) outputs are fed back as inputs.
    #[test]
    fn lanes_match_scalar_tower() {
        let Some(t) = Ifma::get() else {
            eprintln!("no AVX-512 IFMA (or masked): lane tests skipped");
            return;
        };
        let mut rng = Sm9Rng::new(0x5eed_1f3a_0000_0001);
        for _ in 0..200 {
            let (a, b, c, d) = (
                core::array::from_fn(|_| rng.fp_edgy()),
                core::array::from_fn(|_| rng.fp_edgy()),
                core::array::from_fn(|_| rng.fp_edgy()),
                core::array::from_fn(|_| rng.fp_edgy()),
            );
            let (va, vb, vc, vd) = (Fp8::from_fp(t, &a), Fp8::from_fp(t, &b), Fp8::from_fp(t, &c), Fp8::from_fp(t, &d));
            // Round trip.
            let back = va.to_fp(t);
            assert!((0..8).all(|i| eq(&back[i], &a[i])));
            // Products, chained three deep (outputs below 2p as inputs).
            let ab = mul(t, &va, &vb);
            let abc = mul(t, &ab, &vc);
            let abcab = mul(t, &abc, &ab);
            let (g1, g2, g3) = (ab.to_fp(t), abc.to_fp(t), abcab.to_fp(t));
            for i in 0..8 {
                let s1 = a[i].mul(&b[i]);
                let s2 = s1.mul(&c[i]);
                assert!(eq(&g1[i], &s1) && eq(&g2[i], &s2) && eq(&g3[i], &s2.mul(&s1)));
            }
            // Sums of up to five products, on unreduced operands.
            let ops = [&ab, &abc, &vd, &abcab, &va];
            let opv = [ab.to_fp(t), abc.to_fp(t), d, abcab.to_fp(t), a];
            for k in 1..=5 {
                let pairs: Vec<(&Fp8, &Fp8)> = (0..k).map(|j| (ops[j], ops[(j + 2) % 5])).collect();
                let got = sum_of_products(t, &pairs).unwrap().to_fp(t);
                for i in 0..8 {
                    let want = (0..k).fold(Fp::ZERO, |s, j| s.add(&opv[j][i].mul(&opv[(j + 2) % 5][i])));
                    assert!(eq(&got[i], &want), "sum of {k} products, lane {i}");
                }
            }
            assert!(sum_of_products(t, &[(&va, &vb); 6]).is_none());
            // Fp2, chained.
            let x: [Fp2; 8] = core::array::from_fn(|i| Fp2::new(a[i], b[i]));
            let y: [Fp2; 8] = core::array::from_fn(|i| Fp2::new(c[i], d[i]));
            let (vx, vy) = (Fp2x8::from_fp2(t, &x), Fp2x8::from_fp2(t, &y));
            let xy = fp2_mul(t, &vx, &vy);
            let xy2 = fp2_square(t, &xy);
            let xy2x = fp2_mul(t, &xy2, &vx);
            let (h1, h2, h3) = (xy.to_fp2(t), xy2.to_fp2(t), xy2x.to_fp2(t));
            for i in 0..8 {
                let s1 = x[i].mul(&y[i]);
                let s2 = s1.square();
                assert!(bool::from(h1[i].ct_eq(&s1)), "fp2 mul lane {i}");
                assert!(bool::from(h2[i].ct_eq(&s2)), "fp2 square lane {i}");
                assert!(bool::from(h3[i].ct_eq(&s2.mul(&x[i]))), "fp2 chain lane {i}");
            }
        }
    }

    /// The largest reduced inputs (limbs of 2p − 1) through every operation.
    #[test]
    fn largest_unreduced_inputs() {
        let Some(t) = Ifma::get() else { return };
        // 2p − 1 in limbs, a valid "reduced" value ≡ p − 1 ≡ −1.
        let two_p_minus_1 = {
            let d = crate::arith::add_limbs(&P, &P).0;
            let v = crate::arith::sub_limbs(&d, &[1, 0, 0, 0]).0;
            // 2p < 2^257: the carry of p + p is limb 4's bit 0.
            radix52([v[0], v[1], v[2], v[3], 1])
        };
        let rows: [[u64; 8]; 5] = core::array::from_fn(|i| [two_p_minus_1[i]; 8]);
        // SAFETY: the token proves AVX-512 F.
        let m1 = unsafe { Fp8::load(&rows) };
        let got = m1.to_fp(t);
        // The lanes' element, recomputed from the limbs by the scalar code.
        let lane_val = Fp::from_mont_limbs(from_radix52(&two_p_minus_1)).mul(&INV16);
        assert!(eq(&got[0], &lane_val));
        let sq = mul(t, &m1, &m1).to_fp(t);
        assert!(eq(&sq[3], &lane_val.mul(&lane_val)));
        let five = sum_of_products(t, &[(&m1, &m1); 5]).unwrap().to_fp(t);
        let f = lane_val.mul(&lane_val);
        assert!(eq(&five[7], &f.add(&f).add(&f).add(&f).add(&f)));
        let x2 = Fp2x8 { c0: m1, c1: m1 };
        let g = fp2_mul(t, &x2, &x2).to_fp2(t);
        let s = Fp2::new(lane_val, lane_val);
        assert!(bool::from(g[5].ct_eq(&s.mul(&s))));
        let g = fp2_square(t, &x2).to_fp2(t);
        assert!(bool::from(g[2].ct_eq(&s.square())));
    }
}
