//! k·G on eight lanes (AVX-512 IFMA, `field::ifma`): the comb's windows
//! dealt to lanes, so eight mixed additions run side by side.
//!
//! The comb for G has 37 windows (w = 7, [`super::G_COMB_W`]). Lane l takes
//! windows l, l + 8, l + 16, l + 24 and, for l < 4, l + 32: four rounds of
//! eight-lane mixed additions after a first lookup, the fifth round's
//! result kept in lanes 0..4 only. Three rounds of eight-lane Jacobian
//! additions (partner lanes 4, 2, 1 apart) merge the lanes into lane 0,
//! which leaves the scalar code to add window 36 with its complete mixed
//! addition, exactly as the scalar comb's last step.
//!
//! Why no lane addition meets an exceptional case (p = ±q, or infinity):
//! every partial sum is A·G with A = Σ d_j 2^(7j) over a set of windows
//! j < 36 with odd (non-zero) digits |d_j| < 2^7. Two sums over disjoint
//! sets S, T (a lane's accumulator and its next entry, or two merged
//! lanes) give A ± B = a signed-digit sum over S ∪ T whose top digit
//! outweighs all lower ones (2^(7t) > Σ_{j<t} 127·2^(7j)), so A ± B ≠ 0;
//! and |A ± B| < 2^(7·36) = 2^252 < n, so A ± B ≢ 0 (mod n) and no sum is
//! infinity. Window 36 is the only one whose sums can reach n, and the
//! scalar complete addition takes it.
//!
//! The lane table (`[round][entry]`, each entry the eight lanes' x and y
//! limb-major, 640 bytes; 5 × 64 entries, 204,800 bytes) is built on first
//! use from the entries of G's comb (`arith::comb`, whose `mul` this
//! overrides), and the recoding is that comb's. Each round's lookup scans all 64 entries of
//! its block with and/or masks made from the digits (no mask registers, no
//! index-dependent address); negation is a vector select.
//!
//! Constant time as the scalar comb: nothing branches on or indexes by k.
//! Valgrind cannot run AVX-512; the instruction sequence has no branch and
//! no address that depends on the digits, and scripts/ctime.sh checks that
//! the harness's machine code has no k-masked memory operand.

// Lane and limb arrays are indexed in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::super::field::ifma::{add, comb_lane_entries, from_lane, lane_limbs, mul, select, sqr, sub, Fe8};
use super::super::field::Fp;
use super::super::point::Jacobian;
use super::{g_table, CombTable};
use crate::arith::comb::{no_digits, CombGroup};
use crate::arith::{wipe_digits, with_mul, Limbs};
use crate::cpu::Ifma;
use core::arch::x86_64::*;
use std::sync::OnceLock;
use zeroize::Zeroize;

/// Windows taken by the lanes (the 37th is the scalar code's).
const LANE_WINDOWS: usize = 36;
/// Rounds of lookups: ⌈36 / 8⌉.
const ROUNDS: usize = 5;
/// Entries per window (2^(w − 1), w = 7).
const PER: usize = 64;

const _: () = assert!(256usize.div_ceil(super::G_COMB_W) == LANE_WINDOWS + 1 && PER == 1 << (super::G_COMB_W - 1));

/// One entry of a round: lane l's point is window (l + 8·round)'s entry,
/// x then y, limb-major.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Entry([[[u64; 8]; 5]; 2]);

/// Eight affine points.
#[derive(Clone, Copy)]
struct Affine8 {
    x: Fe8,
    y: Fe8,
}

/// Eight Jacobian points.
#[derive(Clone, Copy)]
struct Jacobian8 {
    x: Fe8,
    y: Fe8,
    z: Fe8,
}

fn lane_table(g: &CombTable) -> &'static [Entry] {
    static TABLE: OnceLock<Box<[Entry]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = vec![Entry([[[0; 8]; 5]; 2]); ROUNDS * PER];
        comb_lane_entries(g, |win, e, limbs| {
            // Window win's slot (round win / 8, lane win % 8); the slots past
            // window 35 (last round, lanes 4..8) hold window 0's entries, any
            // valid points: their sums are discarded.
            for slot in 0..ROUNDS * 8 {
                if slot == win || (slot >= LANE_WINDOWS && win == 0) {
                    for i in 0..10 {
                        t[slot / 8 * PER + e].0[i / 5][i % 5][slot % 8] = limbs[i];
                    }
                }
            }
        });
        t.into_boxed_slice()
    })
}

/// The eight lanes' entries for one round: `idx[l]` (0..64) picks lane l's
/// entry, `neg[l]` (all ones or zero) negates it. Every entry is read.
#[target_feature(enable = "avx512f")]
#[inline]
fn lookup(block: &[Entry], idx: &[u64; 8], neg: &[u64; 8]) -> Affine8 {
    // SAFETY: 64 readable bytes each.
    let (idx, neg) = unsafe { (_mm512_loadu_si512(idx.as_ptr().cast()), _mm512_loadu_si512(neg.as_ptr().cast())) };
    let one = _mm512_set1_epi64(1);
    let mut acc = [[_mm512_setzero_si512(); 5]; 2];
    for (e, entry) in block.iter().enumerate() {
        // All ones where idx == e: (idx ^ e) − 1 is negative only for 0.
        let m = _mm512_srai_epi64::<63>(_mm512_sub_epi64(_mm512_xor_si512(idx, _mm512_set1_epi64(e as i64)), one));
        for c in 0..2 {
            for i in 0..5 {
                // SAFETY: 64 readable, aligned bytes.
                let v = unsafe { _mm512_load_si512(entry.0[c][i].as_ptr().cast()) };
                // acc | (v & m)
                acc[c][i] = _mm512_ternarylogic_epi64::<0xF8>(acc[c][i], v, m);
            }
        }
    }
    let (x, y) = (Fe8(acc[0]), Fe8(acc[1]));
    let y = select(&y, &sub(&Fe8::splat(&[0; 5]), &y), neg);
    Affine8 { x, y }
}

/// p + q for p ≠ ±q, neither infinity, q affine (8M + 3S).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn add_mixed8(p: &Jacobian8, q: &Affine8) -> Jacobian8 {
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
    Jacobian8 { x, y, z }
}

/// p + q for p ≠ ±q, neither infinity (12M + 4S).
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
fn add8(p: &Jacobian8, q: &Jacobian8) -> Jacobian8 {
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
    Jacobian8 { x, y, z }
}

/// The lanes rotated down by `N` (lane l takes lane l + N mod 8).
#[target_feature(enable = "avx512f")]
#[inline]
fn rotate<const N: i32>(p: &Jacobian8) -> Jacobian8 {
    let r = |a: &Fe8| Fe8(core::array::from_fn(|i| _mm512_alignr_epi64::<N>(a.0[i], a.0[i])));
    Jacobian8 { x: r(&p.x), y: r(&p.y), z: r(&p.z) }
}

/// Σ over lanes and rounds of the selected entries, as lane 0's Jacobian
/// coordinates (x, y, z limbs in the lanes' domain).
#[target_feature(enable = "avx512f,avx512ifma")]
fn lane_sum(table: &[Entry], idx: &[[u64; 8]; ROUNDS], neg: &[[u64; 8]; ROUNDS]) -> [[u64; 5]; 3] {
    let first = lookup(&table[..PER], &idx[0], &neg[0]);
    let one = lane_limbs(&Fp::ONE);
    let mut acc = Jacobian8 { x: first.x, y: first.y, z: Fe8::splat(&one) };
    for r in 1..ROUNDS {
        let q = lookup(&table[r * PER..(r + 1) * PER], &idx[r], &neg[r]);
        let sum = add_mixed8(&acc, &q);
        acc = if r + 1 < ROUNDS {
            sum
        } else {
            // Lanes 0..4 have a window in the last round (a public mask).
            let keep = _mm512_set_epi64(0, 0, 0, 0, -1, -1, -1, -1);
            Jacobian8 {
                x: select(&acc.x, &sum.x, keep),
                y: select(&acc.y, &sum.y, keep),
                z: select(&acc.z, &sum.z, keep),
            }
        };
    }
    acc = add8(&acc, &rotate::<4>(&acc));
    acc = add8(&acc, &rotate::<2>(&acc));
    acc = add8(&acc, &rotate::<1>(&acc));
    let mut out = [[0u64; 5]; 3];
    let mut lanes = [[0u64; 8]; 5];
    for (c, f) in [acc.x, acc.y, acc.z].iter().enumerate() {
        f.store(&mut lanes);
        out[c] = core::array::from_fn(|i| lanes[i][0]);
    }
    lanes.zeroize();
    out
}

/// k·G in constant time for any k < 2^256, on eight IFMA lanes; the same
/// point as [`CombTable::mul`] on G's comb (same recoding, same last step).
pub(super) fn mul_g(_: Ifma, k: &Limbs) -> Jacobian {
    let g = g_table();
    let table = lane_table(g);
    let mut digits = no_digits();
    g.recode(k, &mut digits);
    let mut idx = [[0u64; 8]; ROUNDS];
    let mut neg = [[0u64; 8]; ROUNDS];
    for win in 0..LANE_WINDOWS {
        idx[win / 8][win % 8] = digits[win].0;
        neg[win / 8][win % 8] = 0u64.wrapping_sub(u64::from(digits[win].1.unwrap_u8()));
    }
    // SAFETY: the token proves AVX-512F and IFMA.
    let mut c = unsafe { lane_sum(table, &idx, &neg) };
    let p = Jacobian { x: from_lane(&c[0]), y: from_lane(&c[1]), z: from_lane(&c[2]) };
    let last = g.entry(LANE_WINDOWS, digits[LANE_WINDOWS]);
    let acc = with_mul!(|b| Jacobian::add_entry(b, &p, &last, true));
    wipe_digits(&mut digits);
    idx.zeroize();
    neg.zeroize();
    c.zeroize();
    acc
}
