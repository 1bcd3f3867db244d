//! Scalar multiplication: three entry points (as libsecp256k1 has them).
//!
//! * k·G, constant time: a comb of 37 sub-tables of 64 affine points, the
//!   odd multiples (2j + 1)·2^(7i)·G, j = 0..64, with the regular odd-digit
//!   recoding (every digit odd, in ±1..±127, never zero): one affine +
//!   affine addition of the first two entries, then 35 mixed additions, no
//!   doublings; every lookup scans its whole sub-table with masks (AVX-512VL
//!   k-mask merges, else AVX2 and/or, else portable and/or). Width 7
//!   measured best: w = 8 (32 windows, 128-entry scans) ran the same
//!   (examples/sm2_mul_ab.rs, `comb`) with a table twice the size; software
//!   prefetch of the next sub-table during the addition gained nothing
//!   (within 2% with 4 or 16 entries, 7% slower with the whole 4 KiB), so
//!   there is none.
//! * k·P, constant time: odd 5-bit digits (52 windows, 255 doublings, 51
//!   mixed additions), an affine table P, 3P, ..., 31P (co-Z chain, one
//!   inversion) scanned like the combs; or, for a prepared key, a comb with
//!   6-bit odd digits (43 sub-tables of 32 points, 42 mixed additions).
//! * s·G + t·P, variable time (verification only): one chain of 256
//!   doublings with t's w=5 wNAF over P's odd multiples and s's w=10 wNAF
//!   over a static table of G's; with a prepared key, both combs (direct
//!   indexing) and one addition.
//!
//! The constant-time paths first make k odd (k or n − k, in constant time,
//! the sign folded into the digits), so the accumulator starts at a real
//! point and no digit is zero: no addition needs the selects for "q is
//! zero" or "p is infinity". The incomplete addition formula's one
//! remaining exception, p == ±q, can only arise in the last addition (the
//! proofs are at [`CombTable::mul_ct`] and [`mul_ct`]), which is the
//! complete one: it also computes the doubling and selects it in constant
//! time (p == −q gives Z = 0, infinity, by itself).

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use super::field::{with_fp_mul, Fn, Fp, N};
use super::point::{
    add_affine_nz_with, add_mixed_ct_with, add_mixed_nz_with, add_mixed_vartime_with, batch_to_affine_vartime,
    dblu_affine_with, double_with, zaddu_with, Affine, Jacobian,
};
use crate::arith::{mask_from_bit, reduce_once, sub_limbs, Limbs};
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

/// k mod n made odd, in constant time: (k', flip) with k' = k mod n if that
/// is odd, else n − (k mod n) (odd, as n is), and flip set in that case, so
/// that k·B = (−1)^flip · k'·B for every B of order n. Any k < 2^256 (< 2n):
/// one conditional subtraction reduces it. k' ∈ [1, n]; k' = n only for
/// k ≡ 0, whose product is infinity.
#[inline]
fn odd_scalar(k: &Limbs) -> (Limbs, Choice) {
    let k = reduce_once(k, &N);
    let (nk, _) = sub_limbs(&N, &k);
    let even = (k[0] & 1) ^ 1;
    let m = mask_from_bit(even);
    let out = core::array::from_fn(|i| (k[i] & !m) | (nk[i] & m));
    (out, Choice::from(even as u8))
}

/// Regular odd-digit recoding (Joye–Tunstall) of an odd k < 2^256 into
/// `windows` = ⌈256/w⌉ digits d_i, all odd and non-zero:
/// d_i = 2·bits(k, wi + 1, w) + 1 − 2^w ∈ {±1, ±3, …, ±(2^w − 1)} for
/// i < windows − 1 and the last d = 2·bits(k, w(windows − 1) + 1, ..) + 1 > 0,
/// which has at most w − 1 bits there, so it is below 2^w too. The sum
/// telescopes: Σ 2·bits·2^(wi) = k − 1 and Σ (1 − 2^w)·2^(wi) + 2^(w·last)
/// = 1. (Equivalently k_(i+1) = (k_i − d_i)/2^w with d_i = (k_i mod
/// 2^(w+1)) − 2^w keeps every k_i odd.) Each digit comes out as (entry
/// index (|d| − 1)/2, sign), the sign XORed with `flip`. Constant time:
/// shifts and masks only.
#[inline]
fn recode_odd(k: &Limbs, w: usize, windows: usize, flip: Choice, out: &mut [(u64, Choice)]) {
    let half = 1u64 << (w - 1);
    let flip = flip.unwrap_u8() as u64;
    for (i, o) in out.iter_mut().enumerate().take(windows) {
        let v = bits(k, i * w + 1, w);
        // The last digit is positive (its top bit is clear, see above);
        // otherwise d < 0 iff v < 2^(w−1), and then |d| = 2^w − 1 − 2v.
        debug_assert!(i + 1 < windows || v < half, "last odd digit out of range");
        let neg = if i + 1 == windows { 0 } else { (v >> (w - 1)) ^ 1 };
        let idx = (v ^ neg.wrapping_neg()) & (half - 1);
        *o = (idx, Choice::from((neg ^ flip) as u8));
    }
}

/// Mask of all ones iff a == b (a, b < 2^63).
#[inline(always)]
fn eq_mask(a: u64, b: u64) -> u64 {
    crate::arith::mask_from_bit((a ^ b).wrapping_sub(1) >> 63)
}

/// Most entries a constant-time scan covers (a w = 8 comb sub-table).
const MAX_SCAN: usize = 128;

/// OR of the entries selected by the masks (each 0 or 1): the constant-time
/// scan. Plain and/or over every entry; with AVX2 it runs 4 limbs at a time.
#[inline(always)]
fn scan_portable(entries: &[Affine], masks: &[u64; MAX_SCAN]) -> [u64; 8] {
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
fn scan_avx2(entries: &[Affine], masks: &[u64; MAX_SCAN]) -> [u64; 8] {
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

/// The scan with AVX-512F + AVX-512VL: every entry loaded with plain
/// (unmasked) 32-byte loads whatever the index; the index reaches only a
/// vector compare (vpcmpeqq of a running counter against it, into a
/// k-register) and register-to-register merge-masked moves (vmovdqa64
/// ymm{k}), whose timing doesn't depend on the mask: no branch, no address
/// depends on it, so constant time by construction. (Valgrind can't run
/// AVX-512, so scripts/ctime.sh checks the AVX2 and portable scans, which
/// have the same data flow with and/or in place of the masked moves.)
///
/// On ymm registers, not zmm: Skylake-SP lowers the core clock for a while
/// after 512-bit instructions, which slowed the scalar field code around
/// the scans. In-process A/B (examples/sm2_mul_ab.rs, min of 60 alternating
/// rounds): the 37 k·G lookups take 3.3 µs with this scan, 7.0 µs with
/// AVX2's and/or, 6.1 µs portable; a whole k·G 15.1 µs against 18.9 µs
/// with AVX2; a zmm version of this scan made k·G 21.1 µs.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn scan_avx512vl(entries: &[Affine], abs: u64) -> [u64; 8] {
    use core::arch::x86_64::*;
    let want = _mm256_set1_epi64x(abs as i64);
    let one = _mm256_set1_epi64x(1);
    let mut j = one;
    let mut ax = _mm256_setzero_si256();
    let mut ay = _mm256_setzero_si256();
    for e in entries {
        // SAFETY: `e` is a valid 64-byte Affine; unaligned 32-byte loads of
        // its two halves stay inside it.
        let (x, y) = unsafe {
            let p = e as *const Affine as *const __m256i;
            (_mm256_loadu_si256(p), _mm256_loadu_si256(p.add(1)))
        };
        let k = _mm256_cmpeq_epi64_mask(j, want);
        j = _mm256_add_epi64(j, one);
        ax = _mm256_mask_mov_epi64(ax, k, x);
        ay = _mm256_mask_mov_epi64(ay, k, y);
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

/// Which scan the CPU runs: 0 = not yet detected, 1 = portable, 2 = AVX2,
/// 3 = AVX-512F + VL. Detected once.
static SCAN_KIND: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

#[inline(always)]
fn scan_kind() -> u8 {
    match SCAN_KIND.load(core::sync::atomic::Ordering::Relaxed) {
        0 => detect_scan(),
        k => k,
    }
}

/// The name of the constant-time table scan in use: "avx512", "avx2" or
/// "portable".
pub fn scan_name() -> &'static str {
    match scan_kind() {
        3 => "avx512",
        2 => "avx2",
        _ => "portable",
    }
}

#[cold]
fn detect_scan() -> u8 {
    #[allow(unused_mut)]
    let mut k = 1;
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::{Avx2, Avx512Vl, Token};
        if Avx512Vl::get().is_some() {
            k = 3;
        } else if Avx2::get().is_some() {
            k = 2;
        }
    }
    SCAN_KIND.store(k, core::sync::atomic::Ordering::Relaxed);
    k
}

/// Forces the table scan to `kind` (1 = portable, 2 = AVX2, 3 = AVX-512VL;
/// 0 = detect again), capped at what the CPU has, for tests and the A/B
/// example: every kind computes the same result, so this changes speed
/// only. Returns the kind now in use.
#[doc(hidden)]
pub fn set_scan_kind(kind: u8) -> u8 {
    SCAN_KIND.store(0, core::sync::atomic::Ordering::Relaxed);
    let best = detect_scan();
    let k = if kind == 0 { best } else { kind.min(best) };
    SCAN_KIND.store(k, core::sync::atomic::Ordering::Relaxed);
    k
}

/// The entry number `abs` (1-based) of `entries`, or zeros if abs = 0 (or
/// beyond the table), scanning every entry whatever abs is.
#[inline(always)]
fn scan(entries: &[Affine], abs: u64) -> Affine {
    debug_assert!(entries.len() <= MAX_SCAN);
    let kind = scan_kind();
    #[cfg(target_arch = "x86_64")]
    if kind == 3 {
        // SAFETY: the CPU has AVX-512F and VL (detected at run time).
        return from_limbs8(unsafe { scan_avx512vl(entries, abs) });
    }
    // All masks first, then one barrier for the lot: the scan itself is
    // then plain and/or over the table, which LLVM can't turn into a branch.
    // The barrier takes the array by reference (black_box of the array by
    // value copied its 1 KiB with memcpy on every lookup).
    let mut masks = [0u64; MAX_SCAN];
    for (j, m) in masks.iter_mut().enumerate().take(entries.len()) {
        *m = ((j as u64 + 1) ^ abs).wrapping_sub(1) >> 63;
    }
    core::hint::black_box(&mut masks);
    #[cfg(target_arch = "x86_64")]
    if kind == 2 {
        // SAFETY: the CPU has AVX2 (detected at run time); scan_avx2 is
        // plain safe Rust compiled with AVX2 enabled.
        return from_limbs8(unsafe { scan_avx2(entries, &masks) });
    }
    let _ = kind;
    from_limbs8(scan_portable(entries, &masks))
}

#[inline(always)]
fn from_limbs8(acc: [u64; 8]) -> Affine {
    Affine {
        x: Fp::from_mont_limbs([acc[0], acc[1], acc[2], acc[3]]),
        y: Fp::from_mont_limbs([acc[4], acc[5], acc[6], acc[7]]),
    }
}

/// A fixed-base comb: `windows` = ⌈256/w⌉ sub-tables of 2^(w−1) affine
/// points, the odd multiples (2j + 1)·2^(w i)·B for j = 0..2^(w−1), which
/// the odd digits of [`recode_odd`] select.
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
        // Digits fit 64 windows (w ≥ 5) and scans 128 entries (w ≤ 8).
        assert!((5..=8).contains(&w), "comb width must be 5..=8");
        let per = 1usize << (w - 1);
        let windows = 256usize.div_ceil(w);
        let mut jac = Vec::with_capacity(windows * per);
        let mut b = base.to_jacobian();
        for _ in 0..windows {
            let b2 = b.double();
            let mut acc = b;
            jac.push(acc);
            for _ in 1..per {
                acc = acc.add_vartime(&b2);
                jac.push(acc);
            }
            // (2^w − 1)·b + b is the next window's base 2^w·b.
            b = acc.add_vartime(&b);
        }
        // The table depends only on the public base point, so the
        // variable-time batch inversion is allowed (never for secret points).
        CombTable { w, per, windows, points: batch_to_affine_vartime(&jac).into_boxed_slice() }
    }

    /// Memory held by the table's points, in bytes.
    pub fn memory_bytes(&self) -> usize {
        self.points.len() * core::mem::size_of::<Affine>()
    }

    /// The entry d·2^(w·win)·B for the digit (index, sign) = ((|d| − 1)/2,
    /// neg), scanning the whole sub-table.
    #[inline(always)]
    fn lookup_ct(&self, win: usize, (idx, neg): (u64, Choice)) -> Affine {
        let mut p = scan(&self.points[win * self.per..(win + 1) * self.per], idx + 1);
        p.y = Fp::conditional_select(&p.y, &p.y.neg(), neg);
        p
    }

    /// The lookups of [`Self::mul_ct`] alone (their sum of x coordinates),
    /// to time the scans in the A/B example.
    #[doc(hidden)]
    pub fn lookups_only(&self, k: &Limbs) -> Fp {
        let (k, flip) = odd_scalar(k);
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_odd(&k, self.w, self.windows, flip, &mut digits);
        let mut acc = Fp::ZERO;
        for (i, d) in digits.iter().enumerate().take(self.windows) {
            acc = acc.add(&self.lookup_ct(i, *d).x);
        }
        acc
    }

    /// k·B in constant time, for any k < 2^256: k made odd (k' = ±k mod n),
    /// recoded into ⌈256/w⌉ odd digits, the sign of k folded into the
    /// digits' signs; the first two entries are added as affine points and
    /// each other one with one mixed addition, with no select and no zero
    /// test. Why no addition but the last can meet an exceptional case:
    /// before window i ≥ 1 the accumulator is A·B with A = Σ_{j<i} d_j 2^(wj),
    /// odd (d_0 is) so non-zero, and |A| ≤ Σ (2^w − 1)·2^(wj) < 2^(wi); the
    /// added entry is d_i·2^(wi)·B with |d_i·2^(wi)| ≥ 2^(wi) > |A|. So A is
    /// never ±d_i·2^(wi) as integers, A·B is never infinity (0 < |A| < n),
    /// and modulo n they can meet only if |A| + |d_i·2^(wi)| (< 2^(w(i+1)))
    /// reaches n > 2^255, so only if w(i + 1) ≥ 256: the last window alone,
    /// as w·(windows − 1) ≤ 255. That last addition is the complete one: it
    /// selects the doubling if the two are equal (this happens: for w = 7,
    /// k' = 30·2^252 − n has last digit 15 and A = 15·2^252 − n; the tests
    /// cover such k for every width), and their being opposite (k ≡ 0)
    /// gives Z = 0, infinity, by itself.
    pub fn mul_ct(&self, k: &Limbs) -> Jacobian {
        let (mut k, flip) = odd_scalar(k);
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_odd(&k, self.w, self.windows, flip, &mut digits);
        let acc = with_fp_mul!(|b| {
            // Windows 0 and 1 (never the last: there are at least 32) add
            // as two affine points.
            let first = self.lookup_ct(0, digits[0]);
            let mut acc = add_affine_nz_with(b, &first, &self.lookup_ct(1, digits[1]));
            for i in 2..self.windows {
                let p = self.lookup_ct(i, digits[i]);
                acc = add_mixed_nz_with(b, &acc, &p, i + 1 == self.windows);
            }
            acc
        });
        digits.iter_mut().for_each(|d| *d = (0, Choice::from(0)));
        k.iter_mut().for_each(|l| *l = 0);
        acc
    }

    /// k·B for a public k (direct indexing).
    pub fn mul_vartime(&self, k: &Limbs) -> Jacobian {
        let (k, flip) = odd_scalar(k);
        let mut digits = [(0u64, Choice::from(0)); 64];
        recode_odd(&k, self.w, self.windows, flip, &mut digits);
        with_fp_mul!(|b| {
            let mut acc = Jacobian::INFINITY;
            for (i, (idx, neg)) in digits.iter().enumerate().take(self.windows) {
                let p = self.points[i * self.per + *idx as usize];
                let p = if bool::from(*neg) { p.neg() } else { p };
                acc = add_mixed_vartime_with(b, &acc, &p);
            }
            acc
        })
    }
}

/// Width of the comb for G (see the module header for the measurements).
const G_COMB_W: usize = 7;

/// The comb for G (about 148 KiB at w = 7), built on first use from G alone.
pub fn g_table() -> &'static CombTable {
    static TABLE: OnceLock<CombTable> = OnceLock::new();
    TABLE.get_or_init(|| CombTable::new_vartime(&Affine::generator(), G_COMB_W))
}

/// k·G, constant time.
pub fn mul_g_ct(k: &Limbs) -> Jacobian {
    g_table().mul_ct(k)
}

/// j·P for j = 1..=n (public P, n ≥ 2, all multiples below the order):
/// even multiples by doubling (3M + 5S), odd ones by one mixed addition of
/// P (8M + 3S), instead of n − 1 full additions (12M + 4S each).
fn multiples_jacobian_vartime(p: &Affine, n: usize) -> Vec<Jacobian> {
    let mut t = Vec::with_capacity(n);
    t.push(p.to_jacobian());
    for j in 2..=n {
        let next = if j % 2 == 0 { t[j / 2 - 1].double() } else { t[j - 2].add_mixed_vartime(p) };
        t.push(next);
    }
    t
}

/// P, 3P, ..., (2m − 1)P, affine, for a public P (m ≥ 1, 2m − 1 below the
/// order): a co-Z chain (Meloni; Longa–Gebotys for the inversion). 2P and P
/// come out sharing Z_0 = 2y; each co-Z addition (5M + 2S) gives
/// (2j + 1)P = (2j − 1)P + 2P with Z_j = Z_(j−1)·f_j, f_j = X(2P) − X((2j − 1)P),
/// and 2P re-expressed with that same Z_j for the next step. The Z's form a
/// chain, so one inversion of the last Z gives all of them backwards,
/// Z_(j−1)⁻¹ = Z_j⁻¹·f_j (1M each, against the 3M of a batch inversion).
/// Public data only: the inversion is the variable-time one.
fn odd_multiples_coz_vartime(p: &Affine, m: usize) -> Vec<Affine> {
    let mut jac = Vec::with_capacity(m);
    let mut f = Vec::with_capacity(m);
    with_fp_mul!(|b| {
        let (mut two, mut cur) = dblu_affine_with(b, p);
        for _ in 1..m {
            f.push(two.x.sub(&cur.x));
            let (sum, two_same_z) = zaddu_with(b, &two, &cur);
            two = two_same_z;
            cur = sum;
            jac.push(cur);
        }
    });
    let mut out = vec![*p; m];
    if let Some(last) = jac.last() {
        let mut zi = last.z.invert_vartime();
        for j in (0..jac.len()).rev() {
            let zi2 = zi.square();
            out[j + 1] = Affine { x: jac[j].x.mul(&zi2), y: jac[j].y.mul(&zi2).mul(&zi) };
            zi = zi.mul(&f[j]);
        }
    }
    out
}

/// k·P for a secret k < 2^256 and a public P: odd-digit 5-bit fixed window
/// (k made odd as in [`CombTable::mul_ct`], 52 digits, 255 doublings, 51
/// mixed additions), constant-time lookups in an affine table of P, 3P, ...,
/// 31P (16 entries, from [`odd_multiples_coz_vartime`]). The table depends
/// only on the public point P (C1 in decryption, the public key in
/// encryption, the peer's combined point in key exchange), never on k, so
/// it uses the variable-time inversion; the doublings and additions run
/// with the multiplication backend chosen once.
///
/// Exceptional cases: with k_i the recoding's remainders (k_0 = k' ≤ n,
/// k_(i+1) = (k_i − d_i)/32, all odd, k_51 = 1, 1 ≤ k_i < 2^(256−5i) + 1),
/// the accumulator before adding d_i is A = 32·k_(i+1), and A + d_i = k_i.
/// For i ≥ 1: 0 < A − 31 ≤ A ± d_i ≤ k_i + 62 < n, so neither A ≡ ±d_i nor
/// A ≡ 0 (nor any 2^t·k_(i+1) of the doublings before it). For i = 0,
/// A = 32·k_1 ≤ n + 32 is even, so not n, so the accumulator isn't infinity
/// either; only that last addition can meet ±P, and it is the complete one
/// (the doubling selected; k ≡ 0 gives Z = 0 by itself).
pub fn mul_ct(p: &Affine, k: &Limbs) -> Jacobian {
    const W: usize = 5;
    const WINDOWS: usize = 52;
    let table = odd_multiples_coz_vartime(p, 16);
    let (mut k, flip) = odd_scalar(k);
    let mut digits = [(0u64, Choice::from(0)); 64];
    recode_odd(&k, W, WINDOWS, flip, &mut digits);
    let lookup = |(idx, neg): (u64, Choice)| -> Affine {
        let mut q = scan(&table, idx + 1);
        q.y = Fp::conditional_select(&q.y, &q.y.neg(), neg);
        q
    };
    let acc = with_fp_mul!(|b| {
        let mut acc = lookup(digits[WINDOWS - 1]).to_jacobian();
        for i in (0..WINDOWS - 1).rev() {
            for _ in 0..W {
                acc = double_with(b, &acc);
            }
            acc = add_mixed_nz_with(b, &acc, &lookup(digits[i]), i == 0);
        }
        acc
    });
    digits.iter_mut().for_each(|d| *d = (0, Choice::from(0)));
    k.iter_mut().for_each(|l| *l = 0);
    acc
}

/// The session-2 k·P (signed digits with zeros, 16 multiples 1P..16P from
/// doublings and additions plus a batch inversion, selects for the zero
/// digits and the infinity start), kept for the in-process A/B of
/// `examples/sm2_mul_ab.rs` and as a second implementation in the tests.
#[doc(hidden)]
pub fn mul_ct_signed(p: &Affine, k: &Limbs) -> Jacobian {
    const W: usize = 5;
    const WINDOWS: usize = 52;
    let table = batch_to_affine_vartime(&multiples_jacobian_vartime(p, 16));
    let mut digits = [(0u64, Choice::from(0)); 64];
    recode_signed(k, W, WINDOWS, &mut digits);
    let lookup = |(abs, neg): (u64, Choice)| -> Affine {
        let mut q = scan(&table, abs);
        q.y = Fp::conditional_select(&q.y, &q.y.neg(), neg);
        q
    };
    let top = digits[WINDOWS - 1];
    // A zero top digit leaves the accumulator at infinity (the lookup gave
    // zeros, which are not the point at infinity in Jacobian form).
    let start = Jacobian::conditional_select(&lookup(top).to_jacobian(), &Jacobian::INFINITY, top.0.ct_eq(&0));
    let acc = with_fp_mul!(|b| {
        let mut acc = start;
        for i in (0..WINDOWS - 1).rev() {
            for _ in 0..W {
                acc = double_with(b, &acc);
            }
            let q = lookup(digits[i]);
            acc = add_mixed_ct_with(b, &acc, &q, digits[i].0.ct_eq(&0), i == 0);
        }
        acc
    });
    digits.iter_mut().for_each(|d| *d = (0, Choice::from(0)));
    acc
}

/// The previous k·P (16-entry Jacobian table, 52 full additions), kept for
/// the in-process A/B of `examples/sm2_mul_ab.rs`.
#[doc(hidden)]
pub fn mul_ct_jacobian_table(p: &Affine, k: &Limbs) -> Jacobian {
    const W: usize = 5;
    const WINDOWS: usize = 52;
    let table = multiples_jacobian_vartime(p, 16);
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

/// Adds the wNAF digit d (odd, or 0 for nothing) of `odd`'s base.
#[inline(always)]
fn add_wnaf_digit<B: super::field::FpMul>(b: B, acc: Jacobian, odd: &[Affine], d: i32) -> Jacobian {
    match d.cmp(&0) {
        core::cmp::Ordering::Greater => add_mixed_vartime_with(b, &acc, &odd[(d as usize) / 2]),
        core::cmp::Ordering::Less => add_mixed_vartime_with(b, &acc, &odd[((-d) as usize) / 2].neg()),
        core::cmp::Ordering::Equal => acc,
    }
}

/// t·P for public t and P (w=5 wNAF).
pub fn mul_vartime(p: &Affine, t: &Limbs) -> Jacobian {
    let naf = wnaf_vartime(t, 5);
    let odd = odd_multiples_coz_vartime(p, 8);
    with_fp_mul!(|b| {
        let mut acc = Jacobian::INFINITY;
        if let Some(top) = naf.iter().rposition(|&d| d != 0) {
            for i in (0..=top).rev() {
                acc = add_wnaf_digit(b, double_with(b, &acc), &odd, naf[i]);
            }
        }
        acc
    })
}

/// wNAF width for s·G in verification: odd multiples up to 2^(w−1) − 1 of
/// G, 2^(w−2) affine points (w = 10: 256 points, 16 KiB, built on the first
/// verification in about a millisecond), about 257/(w+1) = 23 additions.
/// w = 12 (64 KiB) would save 3.6 more additions, about 1% of a verify.
const G_WNAF_W: u32 = 10;

/// G, 3G, 5G, ... for the verification wNAF (built on first use).
fn g_odd_table() -> &'static [Affine] {
    static TABLE: OnceLock<Vec<Affine>> = OnceLock::new();
    TABLE.get_or_init(|| odd_multiples_coz_vartime(&Affine::generator(), 1 << (G_WNAF_W - 2)))
}

/// s·G + t·P, variable time (public inputs only). `prepared` is P's comb if
/// the key was prepared: then both products come from combs (no doublings).
/// Otherwise one shared chain of 256 doublings with t's w=5 wNAF over P's
/// odd multiples and s's w=10 wNAF over G's (about 43 + 23 mixed additions,
/// where the comb for s·G would add 37 plus a final full addition).
pub fn double_mul_vartime(s: &Limbs, t: &Limbs, p: &Affine, prepared: Option<&CombTable>) -> Jacobian {
    match prepared {
        Some(tab) => g_table().mul_vartime(s).add_vartime(&tab.mul_vartime(t)),
        None => double_mul_wnaf_vartime(s, t, p, G_WNAF_W),
    }
}

/// The shared-chain s·G + t·P with a G wNAF of width `gw` (≤ G_WNAF_W;
/// narrower widths use a prefix of the same table). Public for the A/B
/// example only.
#[doc(hidden)]
pub fn double_mul_wnaf_vartime(s: &Limbs, t: &Limbs, p: &Affine, gw: u32) -> Jacobian {
    let gw = gw.clamp(2, G_WNAF_W);
    let gtab = g_odd_table();
    let ns = wnaf_vartime(s, gw);
    let nt = wnaf_vartime(t, 5);
    let podd = odd_multiples_coz_vartime(p, 8);
    let top = ns.iter().rposition(|&d| d != 0).max(nt.iter().rposition(|&d| d != 0));
    with_fp_mul!(|b| {
        let mut acc = Jacobian::INFINITY;
        if let Some(top) = top {
            for i in (0..=top).rev() {
                acc = double_with(b, &acc);
                acc = add_wnaf_digit(b, acc, &podd, nt[i]);
                acc = add_wnaf_digit(b, acc, gtab, ns[i]);
            }
        }
        acc
    })
}

/// The previous verification chain (s·G from the comb, t·P by wNAF, one
/// full addition), kept for the A/B example.
#[doc(hidden)]
pub fn double_mul_comb_vartime(s: &Limbs, t: &Limbs, p: &Affine) -> Jacobian {
    g_table().mul_vartime(s).add_vartime(&mul_vartime(p, t))
}

/// The affine x of a Jacobian point, X·(Z⁻¹)², in constant time: signing
/// needs only x, so the y coordinate's two multiplications are skipped.
#[inline]
pub fn x_affine_ct(p: &Jacobian) -> Fp {
    p.x.mul(&p.z.invert().square())
}

/// Canonical limbs of a scalar (helper for callers holding an [`Fn`]).
#[inline]
pub fn scalar_limbs(k: &Fn) -> Limbs {
    k.to_canonical()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limbs(seed: &mut u64) -> [u64; 4] {
        core::array::from_fn(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            *seed
        })
    }

    /// Every scan kind the CPU has returns entry abs (1-based) or zeros,
    /// for every index of every table size the combs use.
    #[test]
    fn scans_agree() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let best = set_scan_kind(0);
        for len in [16usize, 32, 64, 128] {
            let entries: Vec<Affine> = (0..len)
                .map(|_| Affine { x: Fp::from_mont_limbs(limbs(&mut seed)), y: Fp::from_mont_limbs(limbs(&mut seed)) })
                .collect();
            for abs in 0..=len as u64 + 1 {
                let expect: [u64; 8] = match (abs as usize).checked_sub(1).and_then(|i| entries.get(i)) {
                    Some(e) => core::array::from_fn(|i| if i < 4 { e.x.0[i] } else { e.y.0[i - 4] }),
                    None => [0; 8],
                };
                for kind in 1..=best {
                    set_scan_kind(kind);
                    let got = scan(&entries, abs);
                    let got: [u64; 8] = core::array::from_fn(|i| if i < 4 { got.x.0[i] } else { got.y.0[i - 4] });
                    assert_eq!(got, expect, "scan kind {kind}, {len} entries, index {abs}");
                }
            }
        }
        set_scan_kind(0);
    }

    fn same(a: &Jacobian, b: &Jacobian) -> bool {
        if bool::from(a.is_infinity()) || bool::from(b.is_infinity()) {
            return bool::from(a.is_infinity()) && bool::from(b.is_infinity());
        }
        let (a, b) = (a.to_affine(), b.to_affine());
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
            let (odd, flip) = odd_scalar(&k);
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
    /// fixed window, the session-2 signed-digit one and its Jacobian-table
    /// predecessor) and the comb's vartime path agree with the wNAF
    /// double-and-add (an independent variable-time path: no comb, no odd
    /// recoding, no reduction of k) on edge and random scalars; the shared
    /// verification chain agrees with the comb + wNAF sum for every G
    /// width. (tests/sm2_reference.rs checks the entry points against an
    /// independent big-integer model.)
    #[test]
    fn variants_agree() {
        let mut seed = 0x0fed_cba9_8765_4321u64;
        let g = Affine::generator();
        let p = mul_g_ct(&limbs(&mut seed)).to_affine();
        let combs: Vec<CombTable> = (5..=8).map(|w| CombTable::new_vartime(&g, w)).collect();
        let p_combs: Vec<CombTable> = (5..=8).map(|w| CombTable::new_vartime(&p, w)).collect();
        let ks = test_scalars(&mut seed);
        for k in &ks {
            let kg = mul_vartime(&g, k);
            assert!(same(&mul_g_ct(k), &kg), "k·G k={k:x?}");
            for c in &combs {
                assert!(same(&c.mul_ct(k), &kg), "comb w={} k={k:x?}", c.w);
                assert!(same(&c.mul_vartime(k), &kg), "comb vartime w={} k={k:x?}", c.w);
            }
            if !bool::from(kg.is_infinity()) {
                assert!(bool::from(x_affine_ct(&kg).ct_eq(&kg.to_affine().x)));
            }
            let kp = mul_vartime(&p, k);
            for c in &p_combs {
                assert!(same(&c.mul_ct(k), &kp), "P comb w={} k={k:x?}", c.w);
            }
            assert!(same(&mul_ct(&p, k), &kp), "k·P k={k:x?}");
            assert!(same(&mul_ct(&g, k), &kg), "k·P with P = G, k={k:x?}");
            assert!(same(&mul_ct_signed(&p, k), &kp), "k·P (signed digits) k={k:x?}");
            assert!(same(&mul_ct_jacobian_table(&p, k), &kp), "k·P (Jacobian table) k={k:x?}");
            let t = ks[(ks.iter().position(|x| x == k).unwrap() + 3) % ks.len()];
            let expect = double_mul_comb_vartime(k, &t, &p);
            for gw in [2, 5, 8, G_WNAF_W] {
                assert!(same(&double_mul_wnaf_vartime(k, &t, &p, gw), &expect), "s·G + t·P, gw={gw}");
            }
        }
    }

    /// The co-Z odd multiples match the ones from plain additions.
    #[test]
    fn coz_odd_multiples() {
        let mut seed = 0x0dd0_dd0d_d0dd_0dd0u64;
        for p in [Affine::generator(), mul_g_ct(&limbs(&mut seed)).to_affine()] {
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
}
