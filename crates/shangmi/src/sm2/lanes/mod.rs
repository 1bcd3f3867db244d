//! Eight SM2 point products in lockstep, one per AVX-512 IFMA lane, over
//! the radix-2^52 lane field of [`super::field::ifma`]: the batch forms of
//! k·G (signature nonces, pool refills), of k·P (decryption's d·C1) and of
//! s·G + t·P (verification).
//!
//! Where `ecmult_gen::ifma` spreads one k·G over the lanes (windows dealt
//! to lanes), here every lane runs its own product, so all lanes take the
//! same steps: the same comb row, the same window, the same doubling.
//!
//! - k·G ([`mul_g8`]): G's comb (`ecmult_gen`, w = 7, 37 rows of 64
//!   points), one row per round, every lane picking its own entry. The
//!   comb's proof (`ecmult_gen::ifma`, `arith::comb`) shows that no
//!   addition before the last meets an exceptional case; the last one is
//!   complete (the doubling of the entry selected per lane).
//! - k·P ([`mul8`]): `ecmult_const`'s fixed window (odd 5-bit digits, 52
//!   windows, 255 doublings, 51 mixed additions), each lane over its own
//!   affine table P, 3P, …, 31P (built on the lanes from the public P, one
//!   variable-time inversion per lane group); `ecmult_const`'s proof says
//!   only the last addition can meet ±P, and it is complete.
//! - s·G + t·P ([`double_mul8_vartime`]): the comb for s·G (the same
//!   lookups as k·G), [`mul8`]'s chain for t·P, and one
//!   full addition whose exceptional lanes (s·G = ±t·P) are reported for
//!   the caller to redo one at a time.
//!
//! Constant time ([`mul_g8`], [`mul8`]; valgrind cannot run AVX-512, so
//! the argument is by construction and the object-code check of
//! `scripts/ctime.sh`): the scalars enter the lane code only as digit
//! vectors; every table lookup reads every entry of its row or table at
//! public addresses and keeps the wanted one by register permutes indexed
//! by the digits (G's comb rows) or with and/or masks computed from the
//! digits (no mask register, no gather, no address from a digit);
//! negation and the complete additions' doubling are vector selects; loop
//! bounds are constants. The scalar glue here recodes with the constant-
//! time recodings of `arith` and wipes digits and spilled limbs.

// Lane and limb arrays are indexed in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::ecmult_gen::g_table;
use super::field::ifma::{
    add, comb_lane_entries, half, is_zero, lane_limbs, mul, neg, pack, select, sqr, sub, unpack, Fe8,
};
use super::field::{Fp, Sm2N};
use super::point::{Affine, Jacobian};
use crate::arith::comb::no_digits;
use crate::arith::{odd_scalar, recode_odd, wipe_digits, Limbs};
use crate::cpu::Ifma;
use core::arch::x86_64::*;
use std::sync::OnceLock;
use zeroize::Zeroize;

#[cfg(test)]
mod tests;

/// Lanes per group.
pub(crate) const LANES: usize = 8;

/// G's comb: rows and entries per row (w = 7).
const G_WINDOWS: usize = 37;
const G_PER: usize = 64;
/// k·P's fixed window: bits per digit, digits, table entries.
const W: usize = 5;
const WINDOWS: usize = 52;
const ODD: usize = 16;

/// Eight affine points.
#[derive(Clone, Copy)]
struct A8 {
    x: Fe8,
    y: Fe8,
}

/// Eight Jacobian points (Z = 0: infinity).
#[derive(Clone, Copy)]
struct P8 {
    x: Fe8,
    y: Fe8,
    z: Fe8,
}

/// 1 in the lanes' domain, in every lane.
#[target_feature(enable = "avx512f")]
#[inline]
fn one() -> Fe8 {
    Fe8::splat(&lane_limbs(&Fp::ONE))
}

/// 2p, SM2's scaled doubling (`point::double_scaled`: the textbook a = −3
/// doubling scaled by λ = 1/2, 4M + 4S). Z = 0 stays 0.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn double8(p: &P8) -> P8 {
    let zz = sqr(&p.z);
    let yy = sqr(&p.y);
    let z = mul(&p.y, &p.z);
    let t = mul(&add(&p.x, &zz), &sub(&p.x, &zz));
    let m = add(&t, &half(&t));
    let s = mul(&p.x, &yy);
    let y4 = sqr(&yy);
    let x = sub(&sqr(&m), &add(&s, &s));
    let y = sub(&mul(&m, &sub(&s, &x)), &y4);
    P8 { x, y, z }
}

/// p + q, q affine (8M + 3S), with H and R: right for p ≠ ±q, p not
/// infinity; p = −q gives Z = 0 (infinity), p = q garbage (H = R = 0).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn add_mixed8(p: &P8, q: &A8) -> (P8, Fe8, Fe8) {
    let z2 = sqr(&p.z);
    let z3 = mul(&z2, &p.z);
    let u2 = mul(&q.x, &z2);
    let s2 = mul(&q.y, &z3);
    let h = sub(&u2, &p.x);
    let r = sub(&s2, &p.y);
    let h2 = sqr(&h);
    let h3 = mul(&h2, &h);
    let v = mul(&p.x, &h2);
    let x = sub(&sub(&sqr(&r), &h3), &add(&v, &v));
    let y = sub(&mul(&r, &sub(&v, &x)), &mul(&p.y, &h3));
    let z = mul(&p.z, &h);
    (P8 { x, y, z }, h, r)
}

/// [`add_mixed8`] also right for p = q: 2q computed beside it and selected
/// in the lanes where H ≡ R ≡ 0 (vector masks, no branch).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn add_mixed8_complete(p: &P8, q: &A8) -> P8 {
    let (sum, h, r) = add_mixed8(p, q);
    let dbl = double8(&P8 { x: q.x, y: q.y, z: one() });
    let m = _mm512_and_si512(is_zero(&h), is_zero(&r));
    P8 { x: select(&sum.x, &dbl.x, m), y: select(&sum.y, &dbl.y, m), z: select(&sum.z, &dbl.z, m) }
}

/// p + q (12M + 4S) for p ≠ ±q, neither infinity, and the lanes' H (zero
/// where p = ±q).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn add8(p: &P8, q: &P8) -> (P8, Fe8) {
    let z1z1 = sqr(&p.z);
    let z2z2 = sqr(&q.z);
    let u1 = mul(&p.x, &z2z2);
    let u2 = mul(&q.x, &z1z1);
    let s1 = mul(&mul(&p.y, &q.z), &z2z2);
    let s2 = mul(&mul(&q.y, &p.z), &z1z1);
    let h = sub(&u2, &u1);
    let r = sub(&s2, &s1);
    let h2 = sqr(&h);
    let h3 = mul(&h2, &h);
    let v = mul(&u1, &h2);
    let x = sub(&sub(&sqr(&r), &h3), &add(&v, &v));
    let y = sub(&mul(&r, &sub(&v, &x)), &mul(&s1, &h3));
    let z = mul(&mul(&p.z, &q.z), &h);
    (P8 { x, y, z }, h)
}

/// All ones in the lanes where `v` equals `e`: (v ^ e) − 1 is negative
/// only for 0 (both below 2^63).
#[target_feature(enable = "avx512f")]
#[inline]
fn eq_mask(v: __m512i, e: u64) -> __m512i {
    let d = _mm512_xor_si512(v, _mm512_set1_epi64(e as i64));
    _mm512_srai_epi64::<63>(_mm512_sub_epi64(d, _mm512_set1_epi64(1)))
}

/// One row of G's comb laid out for [`lookup_row`]: per limb (x's five,
/// then y's), the row's 64 entries' values contiguous, eight registers of
/// eight entries (5,120 bytes).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Row([[u64; G_PER]; 10]);

/// Per lane, the digit's entry of one comb row (every lane the same row,
/// each its own index `idx` < 64), the whole row read: for each limb the
/// row's eight registers are loaded at the row's fixed addresses, one
/// `vpermi2q` per register pair picks each lane's value among that pair's
/// 16 entries (index bits 0–3, the index in a register), and two rounds of
/// and/or selects on masks from index bits 4 and 5 keep the right pair's
/// pick. No address, branch or mask register follows the digits. `negm`
/// negates.
#[target_feature(enable = "avx512f")]
#[inline]
fn lookup_row(row: &Row, idx: __m512i, negm: __m512i) -> A8 {
    // All ones in the lanes whose index has bit 4 (bit 5) set.
    let m4 = _mm512_srai_epi64::<63>(_mm512_slli_epi64::<59>(idx));
    let m5 = _mm512_srai_epi64::<63>(_mm512_slli_epi64::<58>(idx));
    let limb = |i: usize| {
        let v = &row.0[i];
        // SAFETY: 64 readable bytes inside the row, 64-byte aligned (the
        // row is, and each register is 64 bytes from the last).
        let r = |j: usize| unsafe { _mm512_load_si512(v[8 * j..8 * j + 8].as_ptr().cast()) };
        let pick = |j: usize| _mm512_permutex2var_epi64(r(2 * j), idx, r(2 * j + 1));
        // Truth table of (a, b, mask) ↦ mask ? b : a, as `select`.
        let low = _mm512_ternarylogic_epi64::<0xD8>(pick(0), pick(1), m4);
        let high = _mm512_ternarylogic_epi64::<0xD8>(pick(2), pick(3), m4);
        _mm512_ternarylogic_epi64::<0xD8>(low, high, m5)
    };
    let x = Fe8(core::array::from_fn(limb));
    let y = Fe8(core::array::from_fn(|i| limb(i + 5)));
    A8 { x, y: select(&y, &neg(&y), negm) }
}

/// Per lane, the digit's entry of the lane's own table (`t[e]`, every
/// entry read and and/or-merged).
#[target_feature(enable = "avx512f")]
#[inline]
fn lookup_own(t: &[A8; ODD], idx: __m512i, negm: __m512i) -> A8 {
    let mut x = [_mm512_setzero_si512(); 5];
    let mut y = [_mm512_setzero_si512(); 5];
    for (e, p) in t.iter().enumerate() {
        let m = eq_mask(idx, e as u64);
        for i in 0..5 {
            x[i] = _mm512_ternarylogic_epi64::<0xF8>(x[i], p.x.0[i], m);
            y[i] = _mm512_ternarylogic_epi64::<0xF8>(y[i], p.y.0[i], m);
        }
    }
    let y = Fe8(y);
    A8 { x: Fe8(x), y: select(&y, &neg(&y), negm) }
}

/// Each lane's P, 3P, …, 31P as affine points, for public P: built in
/// Jacobian coordinates (2P, then 15 additions: (2i − 1)P ≠ ±2P for a
/// point of prime order n > 33), then one batch inversion per lane group
/// (variable time: the points are public).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn odd_table8(p: &A8) -> [A8; ODD] {
    let pj = P8 { x: p.x, y: p.y, z: one() };
    let d = double8(&pj);
    let mut t = [pj; ODD];
    for i in 1..ODD {
        t[i] = add8(&t[i - 1], &d).0;
    }
    let mut pre = [one(); ODD];
    let mut acc = one();
    for i in 0..ODD {
        pre[i] = acc;
        acc = mul(&acc, &t[i].z);
    }
    let mut zs = unpack(&acc);
    crate::arith::batch_invert_vartime(&mut zs);
    let mut inv = pack(&zs);
    let mut out = [A8 { x: p.x, y: p.y }; ODD];
    for i in (0..ODD).rev() {
        let zi = mul(&inv, &pre[i]);
        inv = mul(&inv, &t[i].z);
        let zi2 = sqr(&zi);
        out[i] = A8 { x: mul(&t[i].x, &zi2), y: mul(&t[i].y, &mul(&zi2, &zi)) };
    }
    out
}

/// Σ over G's comb rows of each lane's entries (`idx`, `neg`: per row, per
/// lane), the last addition complete.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn comb8(rows: &[Row], idx: &[[u64; LANES]; G_WINDOWS], negs: &[[u64; LANES]; G_WINDOWS]) -> P8 {
    let get = |w: usize| {
        // SAFETY: 64 readable bytes each.
        let (i, n) =
            unsafe { (_mm512_loadu_si512(idx[w].as_ptr().cast()), _mm512_loadu_si512(negs[w].as_ptr().cast())) };
        lookup_row(&rows[w], i, n)
    };
    let first = get(0);
    let mut acc = P8 { x: first.x, y: first.y, z: one() };
    for w in 1..G_WINDOWS - 1 {
        acc = add_mixed8(&acc, &get(w)).0;
    }
    add_mixed8_complete(&acc, &get(G_WINDOWS - 1))
}

/// Each lane's k·P over its own odd-multiple table: `ecmult_const`'s chain.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn varbase8(t: &[A8; ODD], idx: &[[u64; LANES]; WINDOWS], negs: &[[u64; LANES]; WINDOWS]) -> P8 {
    let get = |w: usize| {
        // SAFETY: 64 readable bytes each.
        let (i, n) =
            unsafe { (_mm512_loadu_si512(idx[w].as_ptr().cast()), _mm512_loadu_si512(negs[w].as_ptr().cast())) };
        lookup_own(t, i, n)
    };
    let first = get(WINDOWS - 1);
    let mut acc = P8 { x: first.x, y: first.y, z: one() };
    for w in (1..WINDOWS - 1).rev() {
        for _ in 0..W {
            acc = double8(&acc);
        }
        acc = add_mixed8(&acc, &get(w)).0;
    }
    for _ in 0..W {
        acc = double8(&acc);
    }
    add_mixed8_complete(&acc, &get(0))
}

/// The lanes' radix-2^52 form of G's comb, 37 [`Row`]s (189,440 bytes),
/// built on first use from `ecmult_gen::g_table`.
fn g_rows() -> &'static [Row] {
    static ROWS: OnceLock<Box<[Row]>> = OnceLock::new();
    ROWS.get_or_init(|| {
        let g = g_table();
        assert!(g.windows() == G_WINDOWS && g.row(0).len() == G_PER);
        let mut rows = vec![Row([[0; G_PER]; 10]); G_WINDOWS];
        comb_lane_entries(g, |w, e, limbs| {
            for i in 0..10 {
                rows[w].0[i][e] = limbs[i];
            }
        });
        rows.into_boxed_slice()
    })
}

/// Eight Jacobian points out of the lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn points(p: &P8) -> [Jacobian; LANES] {
    let (x, y, z) = (unpack(&p.x), unpack(&p.y), unpack(&p.z));
    core::array::from_fn(|l| Jacobian { x: x[l], y: y[l], z: z[l] })
}

/// Eight affine points into the lanes.
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes_of(ps: &[Affine; LANES]) -> A8 {
    A8 { x: pack(&core::array::from_fn(|l| ps[l].x)), y: pack(&core::array::from_fn(|l| ps[l].y)) }
}

/// G's comb digits of each k, as (index, negate-mask) rows per window.
fn comb_digits(ks: &[Limbs; LANES], idx: &mut [[u64; LANES]; G_WINDOWS], negs: &mut [[u64; LANES]; G_WINDOWS]) {
    let g = g_table();
    let mut digits = no_digits();
    for (l, k) in ks.iter().enumerate() {
        g.recode(k, &mut digits);
        for w in 0..G_WINDOWS {
            idx[w][l] = digits[w].0;
            negs[w][l] = 0u64.wrapping_sub(u64::from(digits[w].1.unwrap_u8()));
        }
    }
    wipe_digits(&mut digits);
}

/// `ecmult_const`'s odd 5-bit digits of each k (made odd as there).
fn fixed_digits(ks: &[Limbs; LANES], idx: &mut [[u64; LANES]; WINDOWS], negs: &mut [[u64; LANES]; WINDOWS]) {
    let mut digits = [(0u64, subtle::Choice::from(0)); 64];
    for (l, k) in ks.iter().enumerate() {
        let (mut ko, flip) = odd_scalar::<Sm2N>(k);
        recode_odd(&ko, W, WINDOWS, flip, &mut digits);
        ko.zeroize();
        for w in 0..WINDOWS {
            idx[w][l] = digits[w].0;
            negs[w][l] = 0u64.wrapping_sub(u64::from(digits[w].1.unwrap_u8()));
        }
    }
    wipe_digits(&mut digits);
}

#[target_feature(enable = "avx512f,avx512ifma")]
#[inline(never)]
fn mul_g8_lanes(idx: &[[u64; LANES]; G_WINDOWS], negs: &[[u64; LANES]; G_WINDOWS]) -> [Jacobian; LANES] {
    points(&comb8(g_rows(), idx, negs))
}

#[target_feature(enable = "avx512f,avx512ifma")]
#[inline(never)]
fn mul8_lanes(
    ps: &[Affine; LANES],
    idx: &[[u64; LANES]; WINDOWS],
    negs: &[[u64; LANES]; WINDOWS],
) -> [Jacobian; LANES] {
    points(&varbase8(&odd_table8(&lanes_of(ps)), idx, negs))
}

#[target_feature(enable = "avx512f,avx512ifma")]
#[inline(never)]
fn double_mul8_lanes_vartime(
    ps: &[Affine; LANES],
    sidx: &[[u64; LANES]; G_WINDOWS],
    snegs: &[[u64; LANES]; G_WINDOWS],
    tidx: &[[u64; LANES]; WINDOWS],
    tnegs: &[[u64; LANES]; WINDOWS],
) -> ([Jacobian; LANES], [bool; LANES]) {
    let sg = comb8(g_rows(), sidx, snegs);
    let tp = varbase8(&odd_table8(&lanes_of(ps)), tidx, tnegs);
    let (sum, h) = add8(&sg, &tp);
    let mut bad = [0u64; LANES];
    // SAFETY: 64 writable bytes.
    unsafe { _mm512_storeu_si512(bad.as_mut_ptr().cast(), is_zero(&h)) };
    (points(&sum), bad.map(|b| b != 0))
}

/// k·G for eight secret k < 2^256 at once, in constant time (the same
/// points as `ecmult_gen::mul_g` on each).
pub(crate) fn mul_g8(_: Ifma, ks: &[Limbs; LANES]) -> [Jacobian; LANES] {
    let mut idx = [[0u64; LANES]; G_WINDOWS];
    let mut negs = [[0u64; LANES]; G_WINDOWS];
    comb_digits(ks, &mut idx, &mut negs);
    // SAFETY: the token proves AVX-512F and IFMA.
    let out = unsafe { mul_g8_lanes(&idx, &negs) };
    idx.zeroize();
    negs.zeroize();
    out
}

/// k_l·P_l for eight public points (on the curve, not infinity) and secret
/// k_l < 2^256, in constant time (the same points as `ecmult_const::mul`).
pub(crate) fn mul8(_: Ifma, ps: &[Affine; LANES], ks: &[Limbs; LANES]) -> [Jacobian; LANES] {
    let mut idx = [[0u64; LANES]; WINDOWS];
    let mut negs = [[0u64; LANES]; WINDOWS];
    fixed_digits(ks, &mut idx, &mut negs);
    // SAFETY: the token proves AVX-512F and IFMA.
    let out = unsafe { mul8_lanes(ps, &idx, &negs) };
    idx.zeroize();
    negs.zeroize();
    out
}

/// s_l·G + t_l·P_l for public s_l, t_l ∈ [1, n − 1] and public points P_l
/// (variable time). A lane is flagged (`true`) where s·G = ±t·P, the one
/// case the final addition does not handle; its point is then garbage and
/// the caller recomputes it one at a time.
pub(crate) fn double_mul8_vartime(
    _: Ifma,
    s: &[Limbs; LANES],
    t: &[Limbs; LANES],
    ps: &[Affine; LANES],
) -> ([Jacobian; LANES], [bool; LANES]) {
    let mut sidx = [[0u64; LANES]; G_WINDOWS];
    let mut snegs = [[0u64; LANES]; G_WINDOWS];
    comb_digits(s, &mut sidx, &mut snegs);
    let mut tidx = [[0u64; LANES]; WINDOWS];
    let mut tnegs = [[0u64; LANES]; WINDOWS];
    fixed_digits(t, &mut tidx, &mut tnegs);
    // SAFETY: the token proves AVX-512F and IFMA.
    unsafe { double_mul8_lanes_vartime(ps, &sidx, &snegs, &tidx, &tnegs) }
}
