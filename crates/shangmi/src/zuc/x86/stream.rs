//! x86-64 backend: F with S-boxes in SSE registers (AES-NI for S1, `pshufb`
//! nibble lookups for S0), and the EIA3/ZUC-256-MAC inner product with
//! PCLMULQDQ. Needs AVX2 (variable shifts), AES-NI, SSSE3/SSE4.1 and
//! PCLMULQDQ; selected at run time by [`crate::zuc::kernel::Kernel`].
//!
//! Why this shape: the keystream of one stream is a serial chain through F's
//! registers R1, R2, so its speed is the latency of one F step: one add,
//! L1/L2 and the nibble split, the S-box layer (S1's PRE, AESENCLAST and
//! POST, or two GFNI instructions) and the recombination. Many messages at
//! once are not bound by it: see x86/lanes8.rs and x86/lanes16.rs (bench/NOTES.md
//! has the measurements).
//! R1 and R2 stay in one XMM register for a whole batch; everything that does
//! not depend on them is moved off that chain: the LFSR runs one batch ahead
//! inside the same loop (its own chain overlaps F's), and bit reorganisation,
//! the X2 part of W2 and the output words are computed 8 words at a time
//! with AVX2. With AVX-512VL (the `*-avx512-128` kernels) the rotations and
//! three-way XORs are single VPROLVD/VPTERNLOGD instructions, which also
//! shortens the chain (see [`f_core_avx512`]).
//! With GFNI (the `gfni-*` kernels) S1 is two GFNI affine
//! instructions instead of PRE, AESENCLAST and POST (see x86/f.rs).
//!
//! S-boxes without table lookups (constant time):
//! * S0(x) = Q3[t1] ^ (t2 << 1) with t2 = P1[lo] ^ hi, t1 = P2[t2] ^ lo, where
//!   P1, P2 are S0's 4-bit permutations and Q3[n] = rotl5(P3[n] << 4) ^ rotl5(n)
//!   folds P3 and the final 5-bit rotation into one 16-entry `pshufb` table.
//! * S1(x) = POST(AESSubBytes(PRE(x))): S1 = A·x⁻¹ + 0x55 in GF(2⁸) mod 0x18B,
//!   and PRE maps that field onto the AES field (0x11B); PRE and POST are
//!   8×8 bit matrices applied as two nibble `pshufb` lookups each. The
//!   tables are recomputed from the specification by `derive_tests.rs`
//!   and checked against the S1 table by the unit tests.

#![allow(clippy::missing_safety_doc)]

use core::arch::x86_64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::cpu::{AesAvx2, Avx512Vl, GfniAvx2, GfniAvx512};
use crate::zuc::kernel::Generator;
use crate::zuc::spec::{self, BATCH};

use super::f::{f_core, load16, FConsts, AVX2, AVX2_GFNI, AVX512, GFNI};

/// The keystream generator state of the SIMD backend.
///
/// The LFSR runs one batch ahead of F: while F consumes batch b (whose bit
/// reorganisation and X2 terms were computed for all its words at once with
/// AVX2), the same loop advances the LFSR through batch b+1. F's chain (the
/// latency-bound part) thus overlaps the LFSR's chain and the vector work.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
struct Stream {
    /// LFSR cells: `cells[cur]` for the batch F is consuming (16 + BATCH
    /// values), `cells[1 - cur]` for the next one, filled during F's loop.
    cells: [[u32; 16 + BATCH]; 2],
    cur: usize,
    /// Next word of the current batch.
    pos: usize,
    x0: [u32; BATCH],
    /// X1 zero-extended: (X1, 0) loaded twice is what F adds to (R1, R2) twice.
    x1: [u64; BATCH],
    x3: [u32; BATCH],
    /// (L1(X2 >> 16), L2(X2 << 16)): the X2 term of W2 = R2 ^ X2 enters u and v
    /// linearly, so its image under L1/L2 is added after the rotations.
    c: [[u32; 2]; BATCH],
    /// (R1, R2) before each word.
    rs: [[u32; 2]; BATCH],
    r1: u32,
    r2: u32,
    /// The form of F (x86_f's AVX2, AVX512 or GFNI).
    #[zeroize(skip)]
    form: u8,
}

impl Stream {
    /// Takes over an initialised state (16 cells, R1, R2).
    ///
    /// # Safety
    /// The CPU must support AVX2, AES-NI, SSSE3 and SSE4.1.
    /// With `form` AVX512 it must also support AVX-512F and AVX-512VL, with
    /// GFNI those and GFNI, with AVX2_GFNI GFNI.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn new(lfsr: &[u32; 16], r1: u32, r2: u32, form: u8) -> Box<Stream> {
        let mut st = Box::new(Stream {
            cells: [[0; 16 + BATCH]; 2],
            cur: 0,
            pos: 0,
            x0: [0; BATCH],
            x1: [0; BATCH],
            x3: [0; BATCH],
            c: [[0; 2]; BATCH],
            rs: [[0; 2]; BATCH],
            r1,
            r2,
            form,
        });
        st.cells[0][..16].copy_from_slice(lfsr);
        spec::lfsr_run(&mut st.cells[0], BATCH, 2);
        // SAFETY: same features as this function.
        unsafe { st.start_batch() };
        st
    }

    /// Precomputes the current batch and seeds the next one.
    #[target_feature(enable = "avx2")]
    unsafe fn start_batch(&mut self) {
        let cur = self.cur;
        let (a, b) = self.cells.split_at_mut(1);
        let (s, next) = if cur == 0 { (&mut a[0], &mut b[0]) } else { (&mut b[0], &mut a[0]) };
        // SAFETY: AVX2 is enabled; 8-word loads/stores inside the array.
        unsafe {
            // Finish the LFSR's lazy reduction: cells are < 2^32 and never 0,
            // one fold maps them onto [1, 2^31 - 1] (0 is written as 2^31 - 1).
            let p = _mm256_set1_epi32(0x7fff_ffff);
            for i in (16..16 + BATCH).step_by(8) {
                let v = _mm256_loadu_si256(s.as_ptr().add(i).cast());
                let v = _mm256_add_epi32(_mm256_and_si256(v, p), _mm256_srli_epi32::<31>(v));
                _mm256_storeu_si256(s.as_mut_ptr().add(i).cast(), v);
            }
        }
        let s = &*s;
        next[..16].copy_from_slice(&s[BATCH..BATCH + 16]);
        // SAFETY: AVX2 is enabled; loads read s[i + k .. i + k + 8] with
        // i + 8 <= BATCH and k <= 15, inside the 16 + BATCH cells; stores
        // write 8 words of arrays of BATCH words at i + 8 <= BATCH.
        unsafe {
            let lo16 = _mm256_set1_epi32(0xffff);
            let hi15 = _mm256_set1_epi32(0x7fff_8000);
            for i in (0..BATCH).step_by(8) {
                let ld = |k: usize| _mm256_loadu_si256(s.as_ptr().add(i + k).cast());
                let half = |hi: __m256i, lo: __m256i| {
                    _mm256_or_si256(_mm256_slli_epi32::<16>(_mm256_and_si256(hi, lo16)), _mm256_srli_epi32::<15>(lo))
                };
                let x0 = _mm256_or_si256(
                    _mm256_slli_epi32::<1>(_mm256_and_si256(ld(15), hi15)),
                    _mm256_and_si256(ld(14), lo16),
                );
                let x1 = half(ld(11), ld(9));
                let x2 = half(ld(7), ld(5));
                let x3 = half(ld(2), ld(0));
                _mm256_storeu_si256(self.x0.as_mut_ptr().add(i).cast(), x0);
                let x1p = self.x1.as_mut_ptr().add(i).cast::<__m256i>();
                _mm256_storeu_si256(x1p, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(x1)));
                _mm256_storeu_si256(x1p.add(1), _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(x1)));
                _mm256_storeu_si256(self.x3.as_mut_ptr().add(i).cast(), x3);
                let cu = _mm256_srli_epi32::<16>(x2);
                let cv = _mm256_slli_epi32::<16>(x2);
                macro_rules! rol {
                    ($x:expr, $k:literal) => {
                        _mm256_or_si256(_mm256_slli_epi32::<$k>($x), _mm256_srli_epi32::<{ 32 - $k }>($x))
                    };
                }
                let lu = _mm256_xor_si256(
                    _mm256_xor_si256(cu, rol!(cu, 2)),
                    _mm256_xor_si256(_mm256_xor_si256(rol!(cu, 10), rol!(cu, 18)), rol!(cu, 24)),
                );
                let lv = _mm256_xor_si256(
                    _mm256_xor_si256(cv, rol!(cv, 8)),
                    _mm256_xor_si256(_mm256_xor_si256(rol!(cv, 14), rol!(cv, 22)), rol!(cv, 30)),
                );
                // interleave to (lu_i, lv_i) pairs in word order
                let p = _mm256_unpacklo_epi32(lu, lv);
                let q = _mm256_unpackhi_epi32(lu, lv);
                let dst = self.c.as_mut_ptr().add(i).cast::<__m256i>();
                _mm256_storeu_si256(dst, _mm256_permute2x128_si256::<0x20>(p, q));
                _mm256_storeu_si256(dst.add(1), _mm256_permute2x128_si256::<0x31>(p, q));
            }
        }
    }

    /// Fills `out` with the next keystream words.
    ///
    /// # Safety
    /// The CPU must support AVX2, AES-NI, SSSE3 and SSE4.1.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn generate(&mut self, mut out: &mut [u32]) {
        while !out.is_empty() {
            let start = self.pos;
            // SAFETY: features enabled on this function.
            let end = unsafe { self.advance(out.len()) };
            let (dst, rest) = out.split_at_mut(end - start);
            // SAFETY: AVX2 is enabled on this function.
            unsafe { self.output(start, dst) };
            out = rest;
            // SAFETY: features enabled on this function.
            unsafe { self.finish(end) };
        }
    }

    /// `dst = src ^ keystream`, the keystream words written big-endian;
    /// `src` and `dst` have the same length, a multiple of 4.
    ///
    /// # Safety
    /// The CPU must support AVX2, AES-NI, SSSE3 and SSE4.1.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn xor_be(&mut self, mut src: &[u8], mut dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(4));
        while !dst.is_empty() {
            let start = self.pos;
            // SAFETY: features enabled on this function.
            let end = unsafe { self.advance(dst.len() / 4) };
            let bytes = 4 * (end - start);
            let (s, srest) = src.split_at(bytes);
            let (d, drest) = dst.split_at_mut(bytes);
            // SAFETY: AVX2 is enabled on this function.
            unsafe { self.output_xor(start, s, d) };
            (src, dst) = (srest, drest);
            // SAFETY: features enabled on this function.
            unsafe { self.finish(end) };
        }
    }

    /// Runs F over up to `want` words of the current batch; returns the end
    /// index (the words run are pos..end).
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn advance(&mut self, want: usize) -> usize {
        let start = self.pos;
        let end = (start + want).min(BATCH);
        // SAFETY: features enabled on this function; AVX-512F/VL (and
        // GFNI) were checked when `form` was set.
        unsafe {
            match self.form {
                GFNI => self.run_f_gfni(start, end),
                AVX2_GFNI => self.run_f_avx2_gfni(start, end),
                AVX512 => self.run_f_avx512(start, end),
                _ => self.run_f_avx2(start, end),
            }
        };
        end
    }

    /// After the words up to `end` were output: moves on, to the next batch if
    /// this one is used up.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn finish(&mut self, end: usize) {
        self.pos = end;
        if end == BATCH {
            self.cur ^= 1;
            self.pos = 0;
            // SAFETY: features enabled on this function.
            unsafe { self.start_batch() };
        }
    }

    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn run_f_avx2(&mut self, start: usize, end: usize) {
        // SAFETY: same features as this function.
        unsafe { self.run_f::<AVX2>(start, end) }
    }

    /// # Safety
    /// AVX-512F and AVX-512VL must have been detected.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1,avx512f,avx512vl")]
    unsafe fn run_f_avx512(&mut self, start: usize, end: usize) {
        // SAFETY: same features as this function.
        unsafe { self.run_f::<AVX512>(start, end) }
    }

    /// # Safety
    /// GFNI must have been detected.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1,gfni")]
    unsafe fn run_f_avx2_gfni(&mut self, start: usize, end: usize) {
        // SAFETY: same features as this function.
        unsafe { self.run_f::<AVX2_GFNI>(start, end) }
    }

    /// # Safety
    /// AVX-512F, AVX-512VL and GFNI must have been detected.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1,avx512f,avx512vl,gfni")]
    unsafe fn run_f_gfni(&mut self, start: usize, end: usize) {
        // SAFETY: same features as this function.
        unsafe { self.run_f::<GFNI>(start, end) }
    }

    /// Keystream words i..i+8 of the batch (i + 8 <= BATCH): z = (X0 ^ R1) + R2 ^ X3.
    #[inline(always)]
    unsafe fn z8(&self, i: usize) -> __m256i {
        debug_assert!(i + 8 <= BATCH);
        // SAFETY: the caller enables AVX2; loads read words i..i+8 of x0, x3
        // and pairs i..i+8 of rs, inside arrays of BATCH entries.
        unsafe {
            // (R1, R2) pairs of 4 words -> R1s in the low half, R2s in the high half
            let split = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
            let p = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(self.rs.as_ptr().add(i).cast()), split);
            let q = _mm256_permutevar8x32_epi32(_mm256_loadu_si256(self.rs.as_ptr().add(i + 4).cast()), split);
            let r1 = _mm256_permute2x128_si256::<0x20>(p, q);
            let r2 = _mm256_permute2x128_si256::<0x31>(p, q);
            let x0 = _mm256_loadu_si256(self.x0.as_ptr().add(i).cast());
            let x3 = _mm256_loadu_si256(self.x3.as_ptr().add(i).cast());
            _mm256_xor_si256(_mm256_add_epi32(_mm256_xor_si256(x0, r1), r2), x3)
        }
    }

    /// Keystream word i of the batch.
    #[inline(always)]
    fn z1(&self, i: usize) -> u32 {
        ((self.x0[i] ^ self.rs[i][0]).wrapping_add(self.rs[i][1])) ^ self.x3[i]
    }

    /// The keystream words for words start.. of the batch (`dst.len()` of them).
    #[target_feature(enable = "avx2")]
    unsafe fn output(&self, start: usize, dst: &mut [u32]) {
        let n = dst.len();
        debug_assert!(start + n <= BATCH);
        let mut k = 0;
        while k + 8 <= n {
            // SAFETY: AVX2 is enabled; start + k + 8 <= start + n <= BATCH and
            // the store writes dst[k..k+8] with k + 8 <= n.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().add(k).cast(), self.z8(start + k)) };
            k += 8;
        }
        for (j, z) in dst.iter_mut().enumerate().skip(k) {
            *z = self.z1(start + j);
        }
    }

    /// `dst = src ^ keystream` (words big-endian) for words start.. of the
    /// batch; `src` and `dst` have the same length, a multiple of 4.
    #[target_feature(enable = "avx2")]
    unsafe fn output_xor(&self, start: usize, src: &[u8], dst: &mut [u8]) {
        let n = dst.len() / 4;
        debug_assert!(src.len() == dst.len() && dst.len() == 4 * n && start + n <= BATCH);
        let mut k = 0;
        // SAFETY: AVX2 is enabled; start + k + 8 <= start + n <= BATCH, and the
        // load and store touch bytes 4k..4k+32 <= 4n of src and dst.
        unsafe {
            let bswap = _mm256_setr_epi8(
                3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13,
                12,
            );
            while k + 8 <= n {
                let z = _mm256_shuffle_epi8(self.z8(start + k), bswap);
                let d = _mm256_xor_si256(_mm256_loadu_si256(src.as_ptr().add(4 * k).cast()), z);
                _mm256_storeu_si256(dst.as_mut_ptr().add(4 * k).cast(), d);
                k += 8;
            }
        }
        for j in k..n {
            let z = self.z1(start + j).to_be_bytes();
            for b in 0..4 {
                dst[4 * j + b] = src[4 * j + b] ^ z[b];
            }
        }
    }

    /// F over words start..end of the current batch, advancing the LFSR of
    /// the next batch over the same indices. Inlined into a caller that
    /// enables the features of F's form.
    #[inline(always)]
    unsafe fn run_f<const FORM: u8>(&mut self, start: usize, end: usize) {
        assert!(start <= end && end <= BATCH);
        let end = end.min(BATCH);
        let next = &mut self.cells[self.cur ^ 1];
        // SAFETY: all intrinsics below need only the features enabled on
        // this function; every load/store is from/to an array in bounds
        // (i < end <= BATCH).
        unsafe {
            let k = FConsts::new();
            let mut r = _mm_setr_epi32(self.r1 as i32, self.r2 as i32, self.r1 as i32, self.r2 as i32);
            let mut last = next[15 + start] as u64;
            for i in start..end {
                // The next batch's LFSR (independent of F), chained in a register.
                // One fold keeps each cell below 2^32 and congruent mod 2^31 - 1
                // (inputs < 2^31 + 2^23 give sums < 2^54); `start_batch`
                // finishes the reduction for the whole batch with vector ops.
                last = spec::fold(spec::lfsr_sum(last, next[i + 13], next[i + 10], next[i + 4], next[i]));
                next[16 + i] = last as u32;

                // W1 = R1 + X1 in lanes 0 and 2; lanes 1 and 3 keep R2 (its X2 part is in c).
                let w = _mm_add_epi32(r, _mm_castpd_si128(_mm_loaddup_pd(self.x1.as_ptr().add(i).cast())));
                _mm_storel_epi64(self.rs[i].as_mut_ptr().cast(), r);
                let ci = _mm_castpd_si128(_mm_loaddup_pd(self.c[i].as_ptr().cast()));
                r = f_core::<FORM>(&k, w, ci);
            }
            self.r1 = _mm_cvtsi128_si32(r) as u32;
            self.r2 = _mm_extract_epi32::<1>(r) as u32;
        }
    }
}

/// XOR over the set bits of the big-endian 32-bit message words in `msg`
/// (bit b of word j, most significant first) of the 32-bit keystream window
/// starting at bit 32·j + b of `ks`: the inner product of EIA3 and of the
/// ZUC-256 MAC. `ks` must hold `msg.len() / 4 + 1` words.
///
/// With `M` the message bits of word j written least significant first and
/// `K = ks[j] << 32 | ks[j+1]`, the window sum for word j is bits 32..63 of
/// the carry-less product M·K, so the whole sum is bits 32..63 of the XOR of
/// all products.
///
/// The token proves PCLMULQDQ, SSSE3, SSE4.1 and AVX2.
pub(crate) fn window_xor(_t: AesAvx2, msg: &[u8], ks: &[u32]) -> u32 {
    // SAFETY: the token proves every feature `window_xor_simd` enables.
    unsafe { window_xor_simd(msg, ks) }
}

/// [`window_xor`] with its features enabled.
///
/// # Safety
/// The CPU must support PCLMULQDQ, SSSE3 and SSE4.1 (and AVX2 for encoding).
#[target_feature(enable = "avx2,pclmulqdq,ssse3,sse4.1")]
unsafe fn window_xor_simd(msg: &[u8], ks: &[u32]) -> u32 {
    let words = msg.len() / 4;
    debug_assert!(msg.len().is_multiple_of(4) && ks.len() > words);
    // Reverses the bits of each byte with two nibble lookups.
    const REV_LO: [u8; 16] =
        [0x00, 0x80, 0x40, 0xc0, 0x20, 0xa0, 0x60, 0xe0, 0x10, 0x90, 0x50, 0xd0, 0x30, 0xb0, 0x70, 0xf0];
    const REV_HI: [u8; 16] =
        [0x00, 0x08, 0x04, 0x0c, 0x02, 0x0a, 0x06, 0x0e, 0x01, 0x09, 0x05, 0x0d, 0x03, 0x0b, 0x07, 0x0f];
    let mut tail = 0u32;
    // SAFETY: loads are within `msg` (16 bytes at 16·i < 4·words) and `ks`
    // (words j..j+4 and j+1..j+5 with j + 4 < ks.len()).
    let acc = unsafe {
        let rev_lo = load16(&REV_LO);
        let rev_hi = load16(&REV_HI);
        let nib = _mm_set1_epi8(0x0f);
        let zero = _mm_setzero_si128();
        let mut acc0 = _mm_setzero_si128();
        let mut acc1 = _mm_setzero_si128();
        let blocks = words / 4;
        for b in 0..blocks {
            let m = _mm_loadu_si128(msg.as_ptr().add(16 * b).cast());
            let mr = _mm_or_si128(
                _mm_shuffle_epi8(rev_lo, _mm_and_si128(m, nib)),
                _mm_shuffle_epi8(rev_hi, _mm_and_si128(_mm_srli_epi16(m, 4), nib)),
            );
            // (m0, 0, m1, 0) and (m2, 0, m3, 0) as 64-bit lanes
            let mlo = _mm_unpacklo_epi32(mr, zero);
            let mhi = _mm_unpackhi_epi32(mr, zero);
            let k0 = _mm_loadu_si128(ks.as_ptr().add(4 * b).cast());
            let k1 = _mm_loadu_si128(ks.as_ptr().add(4 * b + 1).cast());
            // 64-bit lanes ks[j] << 32 | ks[j+1] for j = 4b .. 4b+3
            let klo = _mm_unpacklo_epi32(k1, k0);
            let khi = _mm_unpackhi_epi32(k1, k0);
            acc0 = _mm_xor_si128(acc0, _mm_clmulepi64_si128::<0x00>(klo, mlo));
            acc1 = _mm_xor_si128(acc1, _mm_clmulepi64_si128::<0x11>(klo, mlo));
            acc0 = _mm_xor_si128(acc0, _mm_clmulepi64_si128::<0x00>(khi, mhi));
            acc1 = _mm_xor_si128(acc1, _mm_clmulepi64_si128::<0x11>(khi, mhi));
        }
        for j in 4 * blocks..words {
            let m = u32::from_be_bytes([msg[4 * j], msg[4 * j + 1], msg[4 * j + 2], msg[4 * j + 3]]);
            tail ^= spec::window_word(m, ks[j], ks[j + 1]);
        }
        let acc = _mm_xor_si128(acc0, acc1);
        (_mm_cvtsi128_si64(acc) as u64 >> 32) as u32
    };
    acc ^ tail
}

/// F's form, with the tokens its instructions need beyond [`AesAvx2`].
#[derive(Clone, Copy, Debug)]
pub(crate) enum Form {
    /// AVX2 only, S1 by AES-NI.
    Avx2,
    /// AVX-512VL rotations and three-way logic, S1 by AES-NI.
    Avx512(Avx512Vl),
    /// AVX2, S1 by GFNI.
    GfniAvx2(GfniAvx2),
    /// AVX-512VL, S1 by GFNI.
    GfniAvx512(GfniAvx512),
}

/// A SIMD stream taking over an initialised state (16 cells, R1, R2); the
/// tokens prove AVX2, AES-NI, SSSE3, SSE4.1 and what `form` needs.
pub(crate) fn generator(token: AesAvx2, form: Form, lfsr: &[u32; 16], r1: u32, r2: u32) -> Box<dyn Generator> {
    let form = match form {
        Form::Avx2 => AVX2,
        Form::Avx512(_) => AVX512,
        Form::GfniAvx2(_) => AVX2_GFNI,
        Form::GfniAvx512(_) => GFNI,
    };
    // SAFETY: `token` proves AVX2, AES-NI, SSSE3 and SSE4.1, and the form's
    // token the features of that form.
    let stream = unsafe { Stream::new(lfsr, r1, r2, form) };
    Box::new(Checked { stream, _token: token })
}

/// A [`Stream`] with the token that proves its features, so that its
/// methods can be called safely through [`Generator`].
struct Checked {
    stream: Box<Stream>,
    _token: AesAvx2,
}

impl Generator for Checked {
    fn generate(&mut self, out: &mut [u32]) {
        // SAFETY: `_token` proves the features Stream needs.
        unsafe { self.stream.generate(out) }
    }

    fn xor_be(&mut self, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as above.
        unsafe { self.stream.xor_be(src, dst) }
    }
}
