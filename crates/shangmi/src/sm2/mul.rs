//! Scalar multiplication: three entry points (as libsecp256k1 has them).
//!
//! * k·G, constant time: a comb of 37 sub-tables of 64 affine points
//!   (j·2^(7i)·G, j = 1..64) with signed 7-bit digits: 37 mixed additions,
//!   no doublings; every lookup scans its whole sub-table with masks.
//! * k·P, constant time: signed 5-bit fixed windows (52 windows), a 16-entry
//!   Jacobian table of P's multiples scanned with masks; or, for a prepared
//!   key, the same comb as G's with 5-bit digits (52 sub-tables of 16 points,
//!   52 mixed additions, no doublings).
//! * s·G + t·P, variable time (verification only): s·G from G's comb with
//!   direct indexing, t·P by w=5 wNAF (or the prepared comb), then one add.
//!
//! Exceptional cases of the incomplete addition formulas: in the comb the
//! accumulator before window i is (Σ_{j<i} d_j 2^(wj))·B with |Σ| < 2^(wi),
//! and the added point is d_i·2^(wi)·B, so P == ±Q as integers is impossible
//! and modulo n it can only happen in the last window; in the fixed-window
//! ladder the accumulator before the final addition is the only one whose
//! multiplier can reach n. So every addition is the cheap one except the
//! last, which also computes the doubling and selects it in constant time.
//! The accumulator starting at infinity and zero digits are handled with
//! constant-time selects everywhere.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::field::{Fn, Fp};
use super::point::{batch_to_affine, Affine, Jacobian};
use crate::arith::Limbs;
use std::sync::OnceLock;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// Bits [pos, pos + w) of k (positions are public; zero beyond 256).
#[inline(always)]
fn bits(k: &Limbs, pos: usize, w: usize) -> u64 {
    if pos >= 256 {
        return 0;
    }
    let limb = pos / 64;
    let off = pos % 64;
    let mut v = k[limb] >> off;
    if off + w > 64 && limb + 1 < 4 {
        v |= k[limb + 1] << (64 - off);
    }
    v & ((1u64 << w) - 1)
}

/// Signed-digit recoding: k = Σ d_i 2^(w i) with d_i ∈ [−2^(w−1), 2^(w−1)].
/// Constant time (arithmetic only). Returns digits as (|d|, sign) pairs.
#[inline]
fn recode_signed(k: &Limbs, w: usize, windows: usize, out: &mut [(u64, Choice)]) {
    let half = 1u64 << (w - 1);
    let mut carry = 0u64;
    for (i, o) in out.iter_mut().enumerate().take(windows) {
        let v = bits(k, i * w, w) + carry; // 0..=2^w
                                           // v > half ⇔ half − v wraps around.
        carry = half.wrapping_sub(v) >> 63;
        let d = v.wrapping_sub(carry << w); // two's complement digit
        let neg = d >> 63;
        let mask = neg.wrapping_neg();
        let abs = (d ^ mask).wrapping_add(neg);
        *o = (abs, Choice::from(neg as u8));
    }
}

/// Mask of all ones iff a == b (a, b < 2^63).
#[inline(always)]
fn eq_mask(a: u64, b: u64) -> u64 {
    crate::arith::mask_from_bit((a ^ b).wrapping_sub(1) >> 63)
}

/// OR of the entries selected by the masks (each 0 or 1): the constant-time
/// scan. Plain and/or over every entry; with AVX2 it runs 4 limbs at a time.
#[inline(always)]
fn scan_portable(entries: &[Affine], masks: &[u64; 64]) -> [u64; 8] {
    let mut acc = [0u64; 8];
    for (e, m) in entries.iter().zip(masks.iter()) {
        let m = m.wrapping_neg();
        for l in 0..4 {
            acc[l] |= e.x.0[l] & m;
            acc[4 + l] |= e.y.0[l] & m;
        }
    }
    acc
}

/// The scan with AVX2: one entry (x‖y, 64 bytes) is two 256-bit loads, each
/// ANDed with the broadcast mask and ORed into the accumulators.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scan_avx2(entries: &[Affine], masks: &[u64; 64]) -> [u64; 8] {
    use core::arch::x86_64::*;
    const _: () = assert!(core::mem::size_of::<Affine>() == 64);
    let mut ax = _mm256_setzero_si256();
    let mut ay = _mm256_setzero_si256();
    for (e, m) in entries.iter().zip(masks.iter()) {
        let mv = _mm256_set1_epi64x(m.wrapping_neg() as i64);
        // SAFETY: `e` is a valid 64-byte Affine (two [u64; 4]); unaligned
        // 32-byte loads of its two halves stay inside it.
        let (x, y) = unsafe {
            let p = e as *const Affine as *const __m256i;
            (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
        };
        ax = _mm256_or_si256(ax, _mm256_and_si256(x, mv));
        ay = _mm256_or_si256(ay, _mm256_and_si256(y, mv));
    }
    let mut out = [0u64; 8];
    // SAFETY: `out` is 64 bytes; two unaligned 32-byte stores fill it.
    unsafe {
        let p = out.as_mut_ptr() as *mut __m256i;
        _mm256_storeu_si256(p, ax);
        _mm256_storeu_si256(p.add(1), ay);
    }
    out
}

#[inline(always)]
fn scan(entries: &[Affine], masks: &[u64; 64]) -> [u64; 8] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2 (checked just above); scan_avx2 is
        // plain safe Rust compiled with AVX2 enabled.
        return unsafe { scan_avx2(entries, masks) };
    }
    scan_portable(entries, masks)
}

/// A fixed-base comb: `windows` sub-tables of 2^(w−1) affine points
/// j·2^(w i)·B for j = 1..=2^(w−1).
#[derive(Debug)]
pub struct CombTable {
    w: usize,
    per: usize,
    windows: usize,
    points: Box<[Affine]>,
}

impl CombTable {
    /// Builds the table for a public base point (variable time, public data).
    pub fn new_vartime(base: &Affine, w: usize) -> Self {
        let per = 1usize << (w - 1);
        let windows = 257usize.div_ceil(w);
        let mut jac = Vec::with_capacity(windows * per);
        let mut b = base.to_jacobian();
        for _ in 0..windows {
            let mut acc = b;
            jac.push(acc);
            for _ in 1..per {
                acc = acc.add_vartime(&b);
                jac.push(acc);
            }
            // 2^(w−1)·b doubled once is the next window's base.
            b = acc.double();
        }
        CombTable { w, per, windows, points: batch_to_affine(&jac).into_boxed_slice() }
    }

    /// Memory held by the table's points, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.points.len() * core::mem::size_of::<Affine>()
    }

    /// The entry |d|·2^(w·win)·B, scanning the whole sub-table; zeros if d = 0.
    #[inline(always)]
    fn lookup_ct(&self, win: usize, abs: u64) -> Affine {
        let entries = &self.points[win * self.per..(win + 1) * self.per];
        // All masks first, then one barrier for the lot: the scan itself is
        // then plain and/or over the table, which LLVM vectorises.
        let mut masks = [0u64; 64];
        for (j, m) in masks.iter_mut().enumerate().take(self.per) {
            *m = ((j as u64 + 1) ^ abs).wrapping_sub(1) >> 63;
        }
        let masks = core::hint::black_box(masks);
        let acc = scan(entries, &masks);
        Affine {
            x: Fp::from_mont_limbs([acc[0], acc[1], acc[2], acc[3]]),
            y: Fp::from_mont_limbs([acc[4], acc[5], acc[6], acc[7]]),
        }
    }

    /// k·B in constant time, for any k < 2^256.
    pub fn mul_ct(&self, k: &Limbs) -> Jacobian {
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_signed(k, self.w, self.windows, &mut digits);
        let mut acc = Jacobian::INFINITY;
        for (i, (abs, neg)) in digits.iter().enumerate().take(self.windows) {
            let mut p = self.lookup_ct(i, *abs);
            p.y = Fp::conditional_select(&p.y, &p.y.neg(), *neg);
            acc = acc.add_mixed_ct(&p, abs.ct_eq(&0), i + 1 == self.windows);
        }
        digits.iter_mut().for_each(|d| *d = (0, Choice::from(0)));
        acc
    }

    /// k·B for a public k (direct indexing, zero digits skipped).
    pub fn mul_vartime(&self, k: &Limbs) -> Jacobian {
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_signed(k, self.w, self.windows, &mut digits);
        let mut acc = Jacobian::INFINITY;
        for (i, (abs, neg)) in digits.iter().enumerate().take(self.windows) {
            if *abs == 0 {
                continue;
            }
            let p = self.points[i * self.per + *abs as usize - 1];
            let p = if bool::from(*neg) { p.neg() } else { p };
            acc = acc.add_mixed_vartime(&p);
        }
        acc
    }
}

/// The comb for G (about 148 KiB), built on first use from G alone.
pub fn g_table() -> &'static CombTable {
    static TABLE: OnceLock<CombTable> = OnceLock::new();
    TABLE.get_or_init(|| CombTable::new_vartime(&Affine::generator(), 7))
}

/// k·G, constant time.
pub fn mul_g_ct(k: &Limbs) -> Jacobian {
    g_table().mul_ct(k)
}

/// k·P for a secret k < 2^256 and a public P: signed 5-bit fixed window,
/// constant-time lookups in a 16-entry table.
pub fn mul_ct(p: &Affine, k: &Limbs) -> Jacobian {
    const W: usize = 5;
    const WINDOWS: usize = 52;
    let mut table = [Jacobian::INFINITY; 16];
    table[0] = p.to_jacobian();
    table[1] = table[0].double();
    for i in 2..16 {
        table[i] = table[i - 1].add_vartime(&table[0]);
    }
    let mut digits = [(0u64, Choice::from(0)); 64];
    recode_signed(k, W, WINDOWS, &mut digits);
    let lookup = |abs: u64| -> Jacobian {
        let mut out = [[0u64; 4]; 3];
        for (j, e) in table.iter().enumerate() {
            let m = eq_mask(j as u64 + 1, abs);
            for l in 0..4 {
                out[0][l] |= e.x.0[l] & m;
                out[1][l] |= e.y.0[l] & m;
                out[2][l] |= e.z.0[l] & m;
            }
        }
        // abs = 0 leaves Z = 0: the point at infinity.
        Jacobian { x: Fp::from_mont_limbs(out[0]), y: Fp::from_mont_limbs(out[1]), z: Fp::from_mont_limbs(out[2]) }
    };
    let (abs, neg) = digits[WINDOWS - 1];
    let mut acc = lookup(abs);
    acc.conditional_neg(neg);
    for i in (0..WINDOWS - 1).rev() {
        for _ in 0..W {
            acc = acc.double();
        }
        let (abs, neg) = digits[i];
        let mut q = lookup(abs);
        q.conditional_neg(neg);
        acc = acc.add_ct(&q, i == 0);
    }
    digits.iter_mut().for_each(|d| *d = (0, Choice::from(0)));
    acc
}

/// Width-w NAF of a public k < 2^256: 257 digits, odd or zero, |d| < 2^(w−1).
fn wnaf_vartime(k: &Limbs, w: u32) -> [i32; 258] {
    let mut out = [0i32; 258];
    let mut x = [k[0], k[1], k[2], k[3], 0u64];
    let mut i = 0;
    while x != [0; 5] {
        if x[0] & 1 == 1 {
            let m = (x[0] & ((1u64 << w) - 1)) as i64;
            let d = if m >= 1 << (w - 1) { m - (1 << w) } else { m };
            // x −= d
            if d > 0 {
                let (v, mut b) = x[0].overflowing_sub(d as u64);
                x[0] = v;
                for limb in x.iter_mut().skip(1) {
                    if !b {
                        break;
                    }
                    let (v, nb) = limb.overflowing_sub(1);
                    *limb = v;
                    b = nb;
                }
            } else {
                let (v, mut c) = x[0].overflowing_add((-d) as u64);
                x[0] = v;
                for limb in x.iter_mut().skip(1) {
                    if !c {
                        break;
                    }
                    let (v, nc) = limb.overflowing_add(1);
                    *limb = v;
                    c = nc;
                }
            }
            out[i] = d as i32;
        }
        // x >>= 1
        for j in 0..4 {
            x[j] = (x[j] >> 1) | (x[j + 1] << 63);
        }
        x[4] >>= 1;
        i += 1;
    }
    out
}

/// t·P for public t and P (w=5 wNAF).
pub fn mul_vartime(p: &Affine, t: &Limbs) -> Jacobian {
    let naf = wnaf_vartime(t, 5);
    // Odd multiples P, 3P, ..., 15P.
    let p1 = p.to_jacobian();
    let p2 = p1.double();
    let mut odd = [p1; 8];
    for i in 1..8 {
        odd[i] = odd[i - 1].add_vartime(&p2);
    }
    let odd = batch_to_affine(&odd);
    let top = naf.iter().rposition(|&d| d != 0);
    let mut acc = Jacobian::INFINITY;
    if let Some(top) = top {
        for i in (0..=top).rev() {
            acc = acc.double();
            let d = naf[i];
            if d > 0 {
                acc = acc.add_mixed_vartime(&odd[(d as usize) / 2]);
            } else if d < 0 {
                acc = acc.add_mixed_vartime(&odd[((-d) as usize) / 2].neg());
            }
        }
    }
    acc
}

/// s·G + t·P, variable time (public inputs only). `prepared` is P's comb if
/// the key was prepared.
pub fn double_mul_vartime(s: &Limbs, t: &Limbs, p: &Affine, prepared: Option<&CombTable>) -> Jacobian {
    let sg = g_table().mul_vartime(s);
    let tp = match prepared {
        Some(tab) => tab.mul_vartime(t),
        None => mul_vartime(p, t),
    };
    sg.add_vartime(&tp)
}

/// Canonical limbs of a scalar (helper for callers holding an [`Fn`]).
#[inline]
pub fn scalar_limbs(k: &Fn) -> Limbs {
    k.to_canonical()
}
