//! The constant-time table lookup: every entry is read whatever the index,
//! for entries of any size that is a multiple of 32 bytes (SM2's affine
//! points are 64 bytes, SM9's G2 points 192), and of one part of larger
//! entries ([`scan_part`]: a GT entry, 384 bytes, is read in two scans).
//!
//! Three implementations compute the same result: AVX-512F + VL (k-mask
//! merges on ymm registers: the index reaches only a vector compare and
//! register-to-register merge-masked moves, whose timing doesn't depend on
//! the mask; inline assembly keeps LLVM from turning them into masked
//! loads), AVX2 (a vector compare makes each entry's mask in a
//! register, then and/or) and portable (and/or on words with masks made
//! first). The choice follows the [`crate::cpu`] tokens, once per process.
//! Valgrind cannot run AVX-512, so tests/ctgrind.rs checks the AVX2 and
//! portable scans, which have the same data flow with and/or in place of
//! the masked moves. The ymm (not zmm) width is deliberate: 512-bit
//! instructions lower the clock on some Intel parts, slowing the scalar
//! field code around the scans.

use core::sync::atomic::{AtomicU8, Ordering};

/// A table entry the scan may treat as plain words.
///
/// # Safety
/// The type must be `#[repr(C)]` or `#[repr(transparent)]`, made only of
/// `u64` words (any bit pattern valid, no padding), with a size that is a
/// non-zero multiple of 32 bytes. (What one scan returns is at most
/// [`MAX_ENTRY_BYTES`]: [`scan`] and [`scan_part`] check that at compile
/// time; a larger entry is read in parts.)
pub unsafe trait ScanEntry: Copy {}

/// Largest entry (or part of an entry) one scan returns: eight ymm
/// accumulators, which leave AVX2's sixteen registers room for the rest.
pub const MAX_ENTRY_BYTES: usize = 256;

/// Most entries one scan covers.
pub const MAX_SCAN: usize = 128;

/// The scans by kind: 1 = portable, 2 = AVX2, 3 = AVX-512F + VL.
const PORTABLE: u8 = 1;
#[cfg(target_arch = "x86_64")]
const AVX2: u8 = 2;
#[cfg(target_arch = "x86_64")]
const AVX512: u8 = 3;

/// The best kind on this CPU under the mask (0 = not yet detected).
static KIND: AtomicU8 = AtomicU8::new(0);

#[inline(always)]
fn kind() -> u8 {
    match KIND.load(Ordering::Relaxed) {
        0 => detect(),
        k => k,
    }
}

#[cold]
fn detect() -> u8 {
    #[allow(unused_mut)]
    let mut k = PORTABLE;
    #[cfg(target_arch = "x86_64")]
    {
        use crate::cpu::{Avx2, Avx512Vl, Token};
        if Avx512Vl::get().is_some() {
            k = AVX512;
        } else if Avx2::get().is_some() {
            k = AVX2;
        }
    }
    KIND.store(k, Ordering::Relaxed);
    k
}

/// The name of the scan in use: "avx512", "avx2" or "portable".
pub fn scan_name() -> &'static str {
    match kind() {
        3 => "avx512-512",
        2 => "avx2-256",
        _ => "portable-64",
    }
}

/// Entry number `idx` (1-based) of `entries`, or all-zero words if idx = 0
/// or idx > len, reading every entry whatever idx is (constant time in idx
/// and in the entries' contents). `entries.len()` ≤ [`MAX_SCAN`].
#[inline(always)]
pub fn scan<T: ScanEntry>(entries: &[T], idx: u64) -> T {
    scan_kind::<T, T, 0>(kind(), entries, idx)
}

/// The part `U` at byte offset `OFF` of entry number `idx` (1-based) of
/// `entries`, or all-zero words if idx = 0 or idx > len, reading that part
/// of every entry whatever idx is (as [`scan`], for entries larger than
/// [`MAX_ENTRY_BYTES`]; a lookup reads all of each entry by scanning each of
/// its parts). `OFF` is a multiple of 32 and the part lies inside `T`
/// (checked at compile time).
#[inline(always)]
pub fn scan_part<T: ScanEntry, U: ScanEntry, const OFF: usize>(entries: &[T], idx: u64) -> U {
    scan_kind::<T, U, OFF>(kind(), entries, idx)
}

/// [`scan_part`] with the implementation `kind` (at most [`kind`]'s; the
/// tests run every one the CPU has).
#[inline(always)]
fn scan_kind<T: ScanEntry, U: ScanEntry, const OFF: usize>(kind: u8, entries: &[T], idx: u64) -> U {
    const { assert!(core::mem::size_of::<U>().is_multiple_of(32) && core::mem::size_of::<U>() > 0) };
    const { assert!(core::mem::size_of::<U>() <= MAX_ENTRY_BYTES) };
    const { assert!(OFF.is_multiple_of(32) && OFF + core::mem::size_of::<U>() <= core::mem::size_of::<T>()) };
    assert!(entries.len() <= MAX_SCAN);
    let mut out = [0u64; MAX_ENTRY_BYTES / 8];
    #[cfg(target_arch = "x86_64")]
    if kind == AVX512 {
        // SAFETY: kind 3 is only ever the detected one (or a test's choice
        // capped by it), so the CPU has AVX-512F and VL.
        unsafe { scan_avx512vl::<T, U, OFF>(entries, idx, &mut out) };
        return from_words(&out);
    }
    #[cfg(target_arch = "x86_64")]
    if kind == AVX2 {
        // SAFETY: kind 2 implies the CPU has AVX2 (as above).
        unsafe { scan_avx2::<T, U, OFF>(entries, idx, &mut out) };
        return from_words(&out);
    }
    // All masks first, then one barrier for the lot: the scan itself is
    // then plain and/or over the table, which LLVM can't turn into a branch.
    // The barrier takes the array by reference (black_box of the array by
    // value copied its 1 KiB with memcpy on every lookup).
    let mut masks = [0u64; MAX_SCAN];
    for (j, m) in masks.iter_mut().enumerate().take(entries.len()) {
        *m = (((j as u64 + 1) ^ idx).wrapping_sub(1) >> 63).wrapping_neg();
    }
    core::hint::black_box(&mut masks);
    let _ = kind;
    scan_portable::<T, U, OFF>(entries, &masks, &mut out);
    from_words(&out)
}

#[inline(always)]
fn words<T: ScanEntry>(e: &T) -> &[u64] {
    // SAFETY: ScanEntry guarantees T is plain u64 words with no padding.
    unsafe { core::slice::from_raw_parts(e as *const T as *const u64, core::mem::size_of::<T>() / 8) }
}

#[inline(always)]
fn from_words<T: ScanEntry>(w: &[u64; MAX_ENTRY_BYTES / 8]) -> T {
    // SAFETY: every bit pattern is a valid T (ScanEntry), and `w` holds at
    // least size_of::<T>() bytes; the read is unaligned-safe.
    unsafe { core::ptr::read_unaligned(w.as_ptr() as *const T) }
}

#[inline(always)]
fn scan_portable<T: ScanEntry, U: ScanEntry, const OFF: usize>(
    entries: &[T],
    masks: &[u64; MAX_SCAN],
    out: &mut [u64; MAX_ENTRY_BYTES / 8],
) {
    let n = core::mem::size_of::<U>() / 8;
    for (e, m) in entries.iter().zip(masks.iter()) {
        for (o, w) in out[..n].iter_mut().zip(&words(e)[OFF / 8..]) {
            *o |= w & m;
        }
    }
}

/// Each entry as 32-byte loads, ANDed with a mask made in a register by a
/// vector compare of a running counter with the broadcast index, and ORed
/// into the accumulators: the index reaches only `vpcmpeqq` and the
/// and/or, whose timing doesn't depend on their operands. (Masks computed
/// beforehand into a stack array, as the portable scan does, made this
/// scan slower than the portable one: the 16-byte mask stores reloaded as
/// 8-byte broadcasts; bench/NOTES.md has the figures.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn scan_avx2<T: ScanEntry, U: ScanEntry, const OFF: usize>(
    entries: &[T],
    idx: u64,
    out: &mut [u64; MAX_ENTRY_BYTES / 8],
) {
    use core::arch::x86_64::*;
    let n = core::mem::size_of::<U>() / 32;
    let want = _mm256_set1_epi64x(idx as i64);
    let one = _mm256_set1_epi64x(1);
    let mut j = one;
    let mut acc = [_mm256_setzero_si256(); MAX_ENTRY_BYTES / 32];
    for e in entries {
        let mv = _mm256_cmpeq_epi64(j, want);
        j = _mm256_add_epi64(j, one);
        // SAFETY: OFF + size_of::<U>() ≤ size_of::<T>() (checked by the caller).
        let p = unsafe { (e as *const T as *const u8).add(OFF) } as *const __m256i;
        for (i, a) in acc[..n].iter_mut().enumerate() {
            // SAFETY: the part at OFF is size_of::<U>() = 32·n bytes inside
            // `e`; the unaligned 32-byte load i < n stays inside it.
            let v = unsafe { _mm256_loadu_si256(p.add(i)) };
            *a = _mm256_or_si256(*a, _mm256_and_si256(v, mv));
        }
    }
    let o = out.as_mut_ptr() as *mut __m256i;
    for (i, a) in acc[..n].iter().enumerate() {
        // SAFETY: `out` holds MAX_ENTRY_BYTES ≥ 32·n bytes.
        unsafe { _mm256_storeu_si256(o.add(i), *a) };
    }
}

/// Plain (unmasked) loads of every entry; the index reaches only a compare
/// into a k-register and merge-masked register-to-register moves. The
/// moves are inline assembly because, written as the intrinsic
/// `_mm256_mask_mov_epi64(acc, k, load)`, LLVM folds the load into the
/// move and emits a merge-masked *load* (`vmovdqu64 (mem), ymm{k}`), and
/// whether a masked-off load reads its cache lines is up to the CPU: the
/// lines touched could then depend on the secret index. With the load
/// kept separate, every entry is read by a plain load whatever the mask.
/// (Same speed on Zen 4; a zmm version, one 64-byte move per point, was
/// slower there: bench/NOTES.md.)
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
fn scan_avx512vl<T: ScanEntry, U: ScanEntry, const OFF: usize>(
    entries: &[T],
    idx: u64,
    out: &mut [u64; MAX_ENTRY_BYTES / 8],
) {
    use core::arch::x86_64::*;
    let n = core::mem::size_of::<U>() / 32;
    let want = _mm256_set1_epi64x(idx as i64);
    let one = _mm256_set1_epi64x(1);
    let mut j = one;
    let mut acc = [_mm256_setzero_si256(); MAX_ENTRY_BYTES / 32];
    for e in entries {
        let k = _mm256_cmpeq_epi64_mask(j, want);
        j = _mm256_add_epi64(j, one);
        // SAFETY: as in scan_avx2.
        let p = unsafe { (e as *const T as *const u8).add(OFF) } as *const __m256i;
        for (i, a) in acc[..n].iter_mut().enumerate() {
            // SAFETY: the part is 32·n bytes inside `e`; load i < n stays inside it.
            let v = unsafe { _mm256_loadu_si256(p.add(i)) };
            // SAFETY: a register-to-register merge-masked move (AVX-512F +
            // VL, which this function enables); no memory, stack or flags.
            unsafe {
                core::arch::asm!(
                    "vmovdqa64 {a}{{{k}}}, {v}",
                    a = inout(ymm_reg) *a,
                    k = in(kreg) k,
                    v = in(ymm_reg) v,
                    options(pure, nomem, nostack, preserves_flags),
                );
            }
        }
    }
    let o = out.as_mut_ptr() as *mut __m256i;
    for (i, a) in acc[..n].iter().enumerate() {
        // SAFETY: as in scan_avx2.
        unsafe { _mm256_storeu_si256(o.add(i), *a) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct E64([u64; 8]);
    // SAFETY: repr(C) array of u64, 64 bytes.
    unsafe impl ScanEntry for E64 {}

    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct E128([u64; 16]);
    // SAFETY: repr(C) array of u64, 128 bytes.
    unsafe impl ScanEntry for E128 {}

    fn next(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    fn check<T: ScanEntry + PartialEq + core::fmt::Debug>(make: impl Fn(&mut u64) -> T, zero: T) {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let best = kind();
        for len in [1usize, 16, 32, 64, 128] {
            let entries: Vec<T> = (0..len).map(|_| make(&mut seed)).collect();
            for idx in 0..=len as u64 + 1 {
                let want = (idx as usize).checked_sub(1).and_then(|i| entries.get(i)).copied().unwrap_or(zero);
                for k in PORTABLE..=best {
                    assert_eq!(scan_kind::<T, T, 0>(k, &entries, idx), want, "kind {k}, {len} entries, index {idx}");
                }
            }
        }
    }

    /// Every scan the CPU has returns entry idx (1-based) or zeros, for
    /// every index of every table size the combs use, for 64- and 128-byte
    /// entries.
    #[test]
    fn scans_agree() {
        check(|s| E64(core::array::from_fn(|_| next(s))), E64([0; 8]));
        check(|s| E128(core::array::from_fn(|_| next(s))), E128([0; 16]));
    }

    #[derive(Clone, Copy, Debug, PartialEq)]
    #[repr(C)]
    struct E384([u64; 48]);
    // SAFETY: repr(C) array of u64, 384 bytes (read in parts).
    unsafe impl ScanEntry for E384 {}

    /// Every scan reads the right part of a 384-byte entry (a GT entry's
    /// two parts), or zeros.
    #[test]
    fn parts_agree() {
        let mut seed = 0x0fed_cba9_8765_4321u64;
        let best = kind();
        let entries: Vec<E384> = (0..16).map(|_| E384(core::array::from_fn(|_| next(&mut seed)))).collect();
        for idx in 0..=17u64 {
            let e = (idx as usize).checked_sub(1).and_then(|i| entries.get(i)).copied().unwrap_or(E384([0; 48]));
            for k in PORTABLE..=best {
                let lo: E128 = scan_kind::<E384, E128, 0>(k, &entries, idx);
                let mid: E64 = scan_kind::<E384, E64, 128>(k, &entries, idx);
                let hi: E128 = scan_kind::<E384, E128, 256>(k, &entries, idx);
                assert_eq!(lo.0[..], e.0[..16], "kind {k}, index {idx}");
                assert_eq!(mid.0[..], e.0[16..24], "kind {k}, index {idx}");
                assert_eq!(hi.0[..], e.0[32..], "kind {k}, index {idx}");
            }
        }
    }
}
