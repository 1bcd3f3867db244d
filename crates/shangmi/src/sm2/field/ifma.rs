//! SM2's p on eight lanes at once: AVX-512 IFMA (`vpmadd52luq`/`vpmadd52huq`)
//! in radix 2^52, for the lane-parallel comb of `ecmult_gen::ifma`.
//!
//! An [`Fe8`] is five 512-bit registers: limb i of lane l holds bits
//! 52i.. of lane l's value. The domain is Montgomery's with R = 2^260: a
//! field element x is held as (a value ≡) x·2^260 mod p.
//!
//! Contract ("reduced"): every limb in [0, 2^52) and the value below 2^257
//! (so the top limb is below 2^49). Every operation here takes reduced
//! inputs and returns a reduced output, not necessarily below p: the
//! product of two values below 2^258 is (ab + m·p)/2^260 < 2^256 + p <
//! 2^257; a sum or difference (a − b + 4p) is folded (the bits above 2^256
//! replaced through 2^256 ≡ 2^224 + 2^96 − 2^64 + 1) and carried. IFMA
//! reads only the low 52 bits of its multiplicands, which is why limbs are
//! always carried back into [0, 2^52) before a product.
//!
//! Constant time: straight-line vector arithmetic (multiply-add, add, sub,
//! shifts, and) with no branch, no memory index and no mask register.

use core::arch::x86_64::*;

/// Bits per limb.
const W: u32 = 52;
/// The low 52 bits.
const MASK: u64 = (1 << W) - 1;

/// A 320-bit value's five 52-bit limbs (the top limb takes bits 208..320).
const fn radix52(v: [u64; 5]) -> [u64; 5] {
    [
        v[0] & MASK,
        ((v[0] >> 52) | (v[1] << 12)) & MASK,
        ((v[1] >> 40) | (v[2] << 24)) & MASK,
        ((v[2] >> 28) | (v[3] << 36)) & MASK,
        (v[3] >> 16) | (v[4] << 48),
    ]
}

/// p's limbs: [2^52 − 1, p1, 2^52 − 1, 2^52 − 1, p4]. The reduction uses
/// that limbs 0, 2 and 3 are all ones (so their multiples of m are shifts
/// of m), and multiplies only by p1 and p4.
const P52: [u64; 5] = radix52([super::P[0], super::P[1], super::P[2], super::P[3], 0]);

/// 4p's limbs: the offset that keeps a − b non-negative for reduced b.
const P52X4: [u64; 5] = radix52([
    super::P[0] << 2,
    (super::P[1] << 2) | (super::P[0] >> 62),
    (super::P[2] << 2) | (super::P[1] >> 62),
    (super::P[3] << 2) | (super::P[2] >> 62),
    super::P[3] >> 62,
]);

/// 2p's limbs (below 2^257): with 0 and p, the reduced forms of zero.
const P52X2: [u64; 5] = radix52([
    super::P[0] << 1,
    (super::P[1] << 1) | (super::P[0] >> 63),
    (super::P[2] << 1) | (super::P[1] >> 63),
    (super::P[3] << 1) | (super::P[2] >> 63),
    super::P[3] >> 63,
]);

const _: () = assert!(P52[0] == MASK && P52[2] == MASK && P52[3] == MASK);

/// A 256-bit value's limbs, for the lane tables.
pub(crate) const fn to_radix52(a: &crate::arith::Limbs) -> [u64; 5] {
    radix52([a[0], a[1], a[2], a[3], 0])
}

/// The value of reduced limbs (< 2^257) brought below p: two constant-time
/// conditional subtractions of p (2^257 < 3p).
pub(crate) fn from_radix52(l: &[u64; 5]) -> crate::arith::Limbs {
    use crate::arith::{mask_from_bit, sbb};
    let mut v = [
        l[0] | (l[1] << 52),
        (l[1] >> 12) | (l[2] << 40),
        (l[2] >> 24) | (l[3] << 28),
        (l[3] >> 36) | (l[4] << 16),
        l[4] >> 48,
    ];
    let p = [super::P[0], super::P[1], super::P[2], super::P[3], 0];
    for _ in 0..2 {
        let mut d = [0u64; 5];
        let mut borrow = 0;
        for i in 0..5 {
            (d[i], borrow) = sbb(v[i], p[i], borrow);
        }
        // borrow = 1: v < p, keep v.
        let keep = mask_from_bit(borrow);
        for i in 0..5 {
            v[i] = (v[i] & keep) | (d[i] & !keep);
        }
    }
    [v[0], v[1], v[2], v[3]]
}

/// Eight field elements (see the module comment for the contract).
#[derive(Clone, Copy)]
pub(crate) struct Fe8(pub(crate) [__m512i; 5]);

impl Fe8 {
    /// Loads eight lanes from limb-major memory (`limbs[i][lane]`).
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(crate) fn load(limbs: &[[u64; 8]; 5]) -> Fe8 {
        // SAFETY: each row is 64 readable bytes; unaligned loads.
        Fe8(core::array::from_fn(|i| unsafe { _mm512_loadu_si512(limbs[i].as_ptr().cast()) }))
    }

    /// Stores the lanes limb-major (`limbs[i][lane]`).
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(crate) fn store(&self, limbs: &mut [[u64; 8]; 5]) {
        for i in 0..5 {
            // SAFETY: each row is 64 writable bytes; unaligned stores.
            unsafe { _mm512_storeu_si512(limbs[i].as_mut_ptr().cast(), self.0[i]) };
        }
    }

    /// The same constant in every lane.
    #[target_feature(enable = "avx512f")]
    #[inline]
    pub(crate) fn splat(limbs: &[u64; 5]) -> Fe8 {
        Fe8(core::array::from_fn(|i| _mm512_set1_epi64(limbs[i] as i64)))
    }
}

/// Carries limbs (signed, of any size below 2^62 in magnitude, of a value
/// in [0, 2^260)) into [0, 2^52), the top limb taking the rest.
#[target_feature(enable = "avx512f")]
#[inline]
fn carry(mut l: [__m512i; 5]) -> Fe8 {
    let mask = _mm512_set1_epi64(MASK as i64);
    for i in 0..4 {
        let c = _mm512_srai_epi64::<52>(l[i]);
        l[i] = _mm512_and_si512(l[i], mask);
        l[i + 1] = _mm512_add_epi64(l[i + 1], c);
    }
    Fe8(l)
}

/// Folds the bits from 2^256 up (top limb non-negative, value < 2^260)
/// through 2^256 ≡ 2^224 + 2^96 − 2^64 + 1 (mod p), then carries: the
/// value drops by t·p for t = its top limb's bits 48.., stays
/// non-negative, and ends below 2^256 + 2^230.
#[target_feature(enable = "avx512f")]
#[inline]
fn fold(mut l: [__m512i; 5]) -> Fe8 {
    let t = _mm512_srli_epi64::<48>(l[4]);
    l[4] = _mm512_and_si512(l[4], _mm512_set1_epi64((1 << 48) - 1));
    l[4] = _mm512_add_epi64(l[4], _mm512_slli_epi64::<16>(t));
    l[1] = _mm512_add_epi64(l[1], _mm512_sub_epi64(_mm512_slli_epi64::<44>(t), _mm512_slli_epi64::<12>(t)));
    l[0] = _mm512_add_epi64(l[0], t);
    carry(l)
}

/// a + b.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn add(a: &Fe8, b: &Fe8) -> Fe8 {
    fold(core::array::from_fn(|i| _mm512_add_epi64(a.0[i], b.0[i])))
}

/// a − b (as a + 4p − b: every reduced b is below 4p).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn sub(a: &Fe8, b: &Fe8) -> Fe8 {
    fold(core::array::from_fn(|i| {
        _mm512_sub_epi64(_mm512_add_epi64(a.0[i], _mm512_set1_epi64(P52X4[i] as i64)), b.0[i])
    }))
}

/// a·b·2^−260 mod p: operand scanning, one limb of b per row. With
/// −p⁻¹ ≡ 1 (mod 2^52) a row's Montgomery factor m is its low limb's low
/// 52 bits, and m·p needs only two products: m·p0 = m·2^52 − m leaves the
/// row's carry (t0 >> 52) + m for limb 1, and p's limbs 2 and 3 (all
/// ones) contribute m·2^208 − m·2^104, i.e. −m to limb 2 and +m to limb 4.
/// Accumulators are signed (limb 2 goes down by m), so t0's carry is an
/// arithmetic shift; magnitudes stay below 2^58.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(crate) fn mul(a: &Fe8, b: &Fe8) -> Fe8 {
    let zero = _mm512_setzero_si512();
    let mask = _mm512_set1_epi64(MASK as i64);
    let p1 = _mm512_set1_epi64(P52[1] as i64);
    let p4 = _mm512_set1_epi64(P52[4] as i64);
    let mut t = [zero; 6];
    for i in 0..5 {
        let bi = b.0[i];
        for j in 0..5 {
            t[j] = _mm512_madd52lo_epu64(t[j], a.0[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a.0[j], bi);
        }
        let m = _mm512_and_si512(t[0], mask);
        let c = _mm512_add_epi64(_mm512_srai_epi64::<52>(t[0]), m);
        t[1] = _mm512_add_epi64(_mm512_madd52lo_epu64(t[1], m, p1), c);
        t[2] = _mm512_sub_epi64(_mm512_madd52hi_epu64(t[2], m, p1), m);
        t[4] = _mm512_add_epi64(_mm512_madd52lo_epu64(t[4], m, p4), m);
        t[5] = _mm512_madd52hi_epu64(t[5], m, p4);
        t = [t[1], t[2], t[3], t[4], t[5], zero];
    }
    carry([t[0], t[1], t[2], t[3], t[4]])
}

/// a²: the 15 distinct limb products (cross terms accumulated once and
/// doubled, 30 multiply-adds in place of 50), then the same Montgomery
/// rows as [`mul`] on the ten-limb square. The square is below 2^514 (a <
/// 2^257), so the result is below 2^254 + p; limb magnitudes stay below
/// 2^58.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(crate) fn sqr(a: &Fe8) -> Fe8 {
    let zero = _mm512_setzero_si512();
    let mut t = [zero; 10];
    for i in 0..5 {
        for j in i + 1..5 {
            t[i + j] = _mm512_madd52lo_epu64(t[i + j], a.0[i], a.0[j]);
            t[i + j + 1] = _mm512_madd52hi_epu64(t[i + j + 1], a.0[i], a.0[j]);
        }
    }
    for k in 1..9 {
        t[k] = _mm512_add_epi64(t[k], t[k]);
    }
    for i in 0..5 {
        t[2 * i] = _mm512_madd52lo_epu64(t[2 * i], a.0[i], a.0[i]);
        t[2 * i + 1] = _mm512_madd52hi_epu64(t[2 * i + 1], a.0[i], a.0[i]);
    }
    let mask = _mm512_set1_epi64(MASK as i64);
    let p1 = _mm512_set1_epi64(P52[1] as i64);
    let p4 = _mm512_set1_epi64(P52[4] as i64);
    for i in 0..5 {
        let m = _mm512_and_si512(t[i], mask);
        let c = _mm512_add_epi64(_mm512_srai_epi64::<52>(t[i]), m);
        t[i + 1] = _mm512_add_epi64(_mm512_madd52lo_epu64(t[i + 1], m, p1), c);
        t[i + 2] = _mm512_sub_epi64(_mm512_madd52hi_epu64(t[i + 2], m, p1), m);
        t[i + 4] = _mm512_add_epi64(_mm512_madd52lo_epu64(t[i + 4], m, p4), m);
        t[i + 5] = _mm512_madd52hi_epu64(t[i + 5], m, p4);
    }
    carry([t[5], t[6], t[7], t[8], t[9]])
}

/// Per lane, `b` where `mask` is all ones and `a` where it is zero (the
/// mask is a vector, not a mask register: and/or only).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn select(a: &Fe8, b: &Fe8, mask: __m512i) -> Fe8 {
    // Truth table of (a, b, mask) ↦ mask ? b : a.
    Fe8(core::array::from_fn(|i| _mm512_ternarylogic_epi64::<0xD8>(a.0[i], b.0[i], mask)))
}

/// −a (as 4p − a).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn neg(a: &Fe8) -> Fe8 {
    sub(&Fe8::splat(&[0; 5]), a)
}

/// a/2 mod p: a + p where a is odd (a lane mask, no branch), then shifted
/// right one bit across the limbs. a + p < 2^258, so the half is below
/// 2^257 (reduced).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn half(a: &Fe8) -> Fe8 {
    let one = _mm512_set1_epi64(1);
    let odd = _mm512_sub_epi64(_mm512_setzero_si512(), _mm512_and_si512(a.0[0], one));
    let c = carry(core::array::from_fn(|i| {
        _mm512_add_epi64(a.0[i], _mm512_and_si512(_mm512_set1_epi64(P52[i] as i64), odd))
    }));
    Fe8(core::array::from_fn(|i| {
        if i < 4 {
            _mm512_or_si512(_mm512_srli_epi64::<1>(c.0[i]), _mm512_slli_epi64::<51>(_mm512_and_si512(c.0[i + 1], one)))
        } else {
            _mm512_srli_epi64::<1>(c.0[4])
        }
    }))
}

/// All ones in the lanes where a ≡ 0 (mod p), zero elsewhere: a reduced
/// value is zero mod p only as 0, p or 2p, each compared limb by limb
/// (xor, or, and a sign: no mask register, no branch).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn is_zero(a: &Fe8) -> __m512i {
    let one = _mm512_set1_epi64(1);
    let mut hit = _mm512_setzero_si512();
    for c in [[0u64; 5], P52, P52X2] {
        let mut d = _mm512_setzero_si512();
        for i in 0..5 {
            d = _mm512_or_si512(d, _mm512_xor_si512(a.0[i], _mm512_set1_epi64(c[i] as i64)));
        }
        // d < 2^52: d − 1 is negative only for d = 0.
        hit = _mm512_or_si512(hit, _mm512_srai_epi64::<63>(_mm512_sub_epi64(d, one)));
    }
    hit
}

/// x·2^260 mod p (the lanes' Montgomery domain) for Fp's x·2^256.
pub(crate) fn lane_limbs(x: &super::Fp) -> [u64; 5] {
    to_radix52(x.double().double().double().double().mont_limbs())
}

/// Every entry of a comb table (G's, for the lanes' k·G tables) in the
/// lanes' domain, handed to `put(window, entry, limbs)` as x's five limbs
/// then y's: each lane table is this one conversion laid out its way
/// (`ecmult_gen::ifma`: one window per lane; `sm2::lanes`: one row per
/// lookup, limb-major).
/// (The table is named by its `arith` types, SM2's `CombTable`, so that
/// the field does not import the modules built on it.)
pub(crate) fn comb_lane_entries(
    g: &crate::arith::comb::CombTable<crate::arith::curve::Jacobian<super::Fp>>,
    mut put: impl FnMut(usize, usize, &[u64; 10]),
) {
    for w in 0..g.windows() {
        for (e, p) in g.row(w).iter().enumerate() {
            let (x, y) = (lane_limbs(&p.x), lane_limbs(&p.y));
            put(w, e, &core::array::from_fn(|i| if i < 5 { x[i] } else { y[i - 5] }));
        }
    }
}

/// From the lanes' domain back to Fp: below p, then divided by 16
/// (constant time).
pub(crate) fn from_lane(l: &[u64; 5]) -> super::Fp {
    let mut x = super::Fp::from_mont_limbs(from_radix52(l));
    for _ in 0..4 {
        x = super::fp_half(&x);
    }
    x
}

/// Eight field elements into lanes.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn pack(xs: &[super::Fp; 8]) -> Fe8 {
    let mut m = [[0u64; 8]; 5];
    for (l, x) in xs.iter().enumerate() {
        let v = lane_limbs(x);
        for i in 0..5 {
            m[i][l] = v[i];
        }
    }
    let f = Fe8::load(&m);
    zeroize::Zeroize::zeroize(&mut m);
    f
}

/// The eight lanes as field elements (constant time; the spilled limbs
/// are wiped).
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) fn unpack(f: &Fe8) -> [super::Fp; 8] {
    let mut m = [[0u64; 8]; 5];
    f.store(&mut m);
    let out = core::array::from_fn(|l| from_lane(&core::array::from_fn(|i| m[i][l])));
    zeroize::Zeroize::zeroize(&mut m);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{Ifma, Token};
    use crate::sm2::field::{fp_half, Fp};

    /// x·2^260 mod p as limbs: Fp holds x·2^256, times 16.
    fn lane_value(x: &Fp) -> [u64; 5] {
        to_radix52(x.double().double().double().double().mont_limbs())
    }

    fn from_lane(l: &[u64; 5]) -> Fp {
        let mut x = Fp::from_mont_limbs(from_radix52(l));
        for _ in 0..4 {
            x = fp_half(&x);
        }
        x
    }

    fn pack(xs: &[Fp; 8]) -> [[u64; 8]; 5] {
        let mut m = [[0u64; 8]; 5];
        for (l, x) in xs.iter().enumerate() {
            let v = lane_value(x);
            for i in 0..5 {
                m[i][l] = v[i];
            }
        }
        m
    }

    fn unpack(m: &[[u64; 8]; 5]) -> [Fp; 8] {
        core::array::from_fn(|l| {
            let v: [u64; 5] = core::array::from_fn(|i| m[i][l]);
            assert!(v[..4].iter().all(|&x| x <= MASK) && v[4] < 1 << 49, "not reduced: {v:x?}");
            from_lane(&v)
        })
    }

    fn fp(next: &mut impl FnMut() -> u64) -> Fp {
        let l = [next(), next(), next(), next()];
        Fp::from_limbs_reduce(&l)
    }

    /// Edge values: 0, 1, −1, −2, 2^256 mod p and random ones.
    fn values(next: &mut impl FnMut() -> u64) -> Vec<Fp> {
        let mut v = vec![Fp::ZERO, Fp::ONE, Fp::ONE.neg(), Fp::ONE.double().neg()];
        v.push(Fp::from_canonical(&[0, 0, 0, 1 << 63]).double());
        v.extend((0..60).map(|_| fp(next)));
        v
    }

    /// Every lane operation against the scalar field, on edge and random
    /// values, chained (outputs fed back as inputs, so the reduced-but-not-
    /// canonical outputs are exercised as inputs too).
    #[test]
    fn lanes_match_scalar_field() {
        let Some(_) = Ifma::get() else {
            eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
            return;
        };
        let mut next = crate::test_rng(0x1f3a_2b4c_5d6e_7f80);
        let vs = values(&mut next);
        for round in 0..vs.len() {
            let a: [Fp; 8] = core::array::from_fn(|l| vs[(round + l) % vs.len()]);
            let b: [Fp; 8] = core::array::from_fn(|l| vs[(round * 7 + 3 * l + 1) % vs.len()]);
            // SAFETY: the token proves AVX-512F and IFMA.
            unsafe {
                let (pa, pb) = (Fe8::load(&pack(&a)), Fe8::load(&pack(&b)));
                let mut out = [[0u64; 8]; 5];
                let mut check = |r: Fe8, want: [Fp; 8], what: &str| {
                    r.store(&mut out);
                    let got = unpack(&out);
                    for l in 0..8 {
                        assert_eq!(got[l].to_canonical(), want[l].to_canonical(), "{what}, round {round} lane {l}");
                    }
                    r
                };
                let m = check(mul(&pa, &pb), core::array::from_fn(|l| a[l].mul(&b[l])), "mul");
                let s = check(sub(&m, &pb), core::array::from_fn(|l| a[l].mul(&b[l]).sub(&b[l])), "sub");
                let d = check(
                    add(&s, &m),
                    core::array::from_fn(|l| a[l].mul(&b[l]).sub(&b[l]).add(&a[l].mul(&b[l]))),
                    "add",
                );
                let q = check(
                    sqr(&d),
                    core::array::from_fn(|l| a[l].mul(&b[l]).sub(&b[l]).add(&a[l].mul(&b[l])).square()),
                    "sqr",
                );
                check(
                    mul(&q, &s),
                    core::array::from_fn(|l| {
                        let m = a[l].mul(&b[l]);
                        let s = m.sub(&b[l]);
                        s.add(&m).square().mul(&s)
                    }),
                    "mul of outputs",
                );
                check(sub(&pa, &pa), [Fp::ZERO; 8], "a − a");
                check(sub(&Fe8::splat(&[0; 5]), &pb), core::array::from_fn(|l| b[l].neg()), "0 − b");
            }
        }
    }

    /// The largest reduced inputs (limbs all ones up to 2^257 − 1, and
    /// 2^257 − 1 itself) still give reduced, correct products and sums.
    #[test]
    fn lanes_at_the_bound() {
        let Some(_) = Ifma::get() else {
            eprintln!("skipped: no AVX-512 IFMA on this CPU (or masked)");
            return;
        };
        let top = [MASK, MASK, MASK, MASK, (1 << 49) - 1];
        let x = from_lane(&top);
        // SAFETY: the token proves AVX-512F and IFMA.
        unsafe {
            let a = Fe8::splat(&top);
            let mut out = [[0u64; 8]; 5];
            for (r, want) in [(mul(&a, &a), x.square()), (add(&a, &a), x.double()), (sub(&a, &a), Fp::ZERO)] {
                r.store(&mut out);
                assert_eq!(unpack(&out)[0].to_canonical(), want.to_canonical());
            }
        }
    }
}
