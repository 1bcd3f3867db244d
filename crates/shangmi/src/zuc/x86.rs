//! x86-64 backend: F with S-boxes in SSE registers (AES-NI for S1, `pshufb`
//! nibble lookups for S0), and the EIA3/ZUC-256-MAC inner product with
//! PCLMULQDQ. Needs AVX2 (variable shifts), AES-NI, SSSE3/SSE4.1 and
//! PCLMULQDQ; selected at run time by [`super::Backend`].
//!
//! Why this shape: the keystream of one stream is a serial chain through F's
//! registers R1, R2, so speed is the latency of one F step. Measured on
//! Skylake-SP (2.0 GHz TSC, cores at 2.4 GHz), in core cycles per word: F
//! alone ~24.4 with the first AVX-512 form and ~20.5 with the present one,
//! whose dependency chain is 1 add, 5 for L1/L2 and the nibble split, 3 for
//! PRE, 5 for AESENCLAST (its latency here) and 4 for POST: about 18, plus
//! port conflicts (the shuffles of S0, PRE and POST share port 5). The whole
//! generator runs at ~24.5 (the LFSR and output add ~4), EEA3 at ~25,
//! i.e. ~370 MiB/s at 2.4 GHz; 500 MiB/s would need ~18.3 core cycles per
//! word, below the chain's own latency. Many messages at once are not bound
//! by it: see x86_many.rs (eea3_many, ~12 cycles per word).
//! R1 and R2 stay in one XMM register for a whole batch; everything that does
//! not depend on them is moved off that chain: the LFSR runs one batch ahead
//! inside the same loop (its own chain overlaps F's), and bit reorganisation,
//! the X2 part of W2 and the output words are computed 8 words at a time
//! with AVX2. With AVX-512VL (the `Avx512` backend) the rotations and
//! three-way XORs are single VPROLVD/VPTERNLOGD instructions, which also
//! shortens the chain (see [`f_core_avx512`]).
//! GFNI (one instruction for S1's affine maps) is not used: the machines
//! this was built on lack it, and untested code paths are not shipped.
//!
//! S-boxes without table lookups (constant time):
//! * S0(x) = Q3[t1] ^ (t2 << 1) with t2 = P1[lo] ^ hi, t1 = P2[t2] ^ lo, where
//!   P1, P2 are S0's 4-bit permutations and Q3[n] = rotl5(P3[n] << 4) ^ rotl5(n)
//!   folds P3 and the final 5-bit rotation into one 16-entry `pshufb` table.
//! * S1(x) = POST(AESSubBytes(PRE(x))): S1 = A·x⁻¹ + 0x55 in GF(2⁸) mod 0x18B,
//!   and PRE maps that field onto the AES field (0x11B); PRE and POST are
//!   8×8 bit matrices applied as two nibble `pshufb` lookups each. The
//!   tables were derived by a script from the S-box definitions and are
//!   checked against the S1 table by the unit tests.

#![allow(clippy::missing_safety_doc)]

use core::arch::x86_64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::core::BATCH;

pub(super) const P1: [u8; 16] =
    [0x09, 0x0f, 0x00, 0x0e, 0x0f, 0x0f, 0x02, 0x0a, 0x00, 0x04, 0x00, 0x0c, 0x07, 0x05, 0x03, 0x09];
pub(super) const P2: [u8; 16] =
    [0x08, 0x0d, 0x06, 0x05, 0x07, 0x00, 0x0c, 0x04, 0x0b, 0x01, 0x0e, 0x0a, 0x0f, 0x03, 0x09, 0x02];
pub(super) const Q3: [u8; 16] =
    [0x04, 0x2c, 0x54, 0x6c, 0x80, 0xba, 0xd4, 0xfe, 0x07, 0x27, 0x5b, 0x6b, 0x81, 0xb3, 0xd9, 0xfb];
pub(super) const PRE_LO: [u8; 16] =
    [0x00, 0x01, 0x32, 0x33, 0x73, 0x72, 0x41, 0x40, 0x75, 0x74, 0x47, 0x46, 0x06, 0x07, 0x34, 0x35];
pub(super) const PRE_HI: [u8; 16] =
    [0x00, 0xd9, 0xe8, 0x31, 0xcd, 0x14, 0x25, 0xfc, 0x2d, 0xf4, 0xc5, 0x1c, 0xe0, 0x39, 0x08, 0xd1];
/// Linear part of POST on the low nibble (the 0x55 constant is added separately).
pub(super) const POST_LO: [u8; 16] =
    [0x00, 0x4f, 0x90, 0xdf, 0x4b, 0x04, 0xdb, 0x94, 0x37, 0x78, 0xa7, 0xe8, 0x7c, 0x33, 0xec, 0xa3];
pub(super) const POST_HI: [u8; 16] =
    [0x00, 0x34, 0x42, 0x76, 0x36, 0x02, 0x74, 0x40, 0x66, 0x52, 0x24, 0x10, 0x50, 0x64, 0x12, 0x26];

/// Bytes of each 32-bit word (little-endian positions) that go through S1:
/// positions 0 and 2 (S-box order from the most significant byte is S0, S1, S0, S1).
pub(super) const S1_POS: [u8; 16] = [0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0, 0x0f, 0];

#[inline(always)]
unsafe fn load16(t: &[u8; 16]) -> __m128i {
    // SAFETY: reading 16 bytes from a 16-byte array.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

/// The constants of F's SIMD step.
struct FConsts {
    p1: __m128i,
    p2: __m128i,
    q3: __m128i,
    pre_lo: __m128i,
    pre_hi: __m128i,
    post_lo: __m128i,
    post_hi: __m128i,
    s1_pos: __m128i,
    nib: __m128i,
    s0_mask: __m128i,
    aes_key: __m128i,
    q0: __m128i,
    q1: __m128i,
    y1: __m128i,
    y2: __m128i,
    y3: __m128i,
    rot_l: __m128i,
    rot_r: __m128i,
    r1: __m128i,
    r2: __m128i,
    r3: __m128i,
    r4: __m128i,
    /// 0xff on S1's bytes (the even ones).
    s1_even: __m128i,
    /// AESENCLAST key of the AVX-512 form: 0xee on S1's bytes, 0x63 on S0's.
    aes_key_even: __m128i,
}

impl FConsts {
    #[inline(always)]
    unsafe fn new() -> FConsts {
        // SAFETY: SSE2 loads/sets of constants (the caller enables the features).
        unsafe {
            FConsts {
                p1: load16(&P1),
                p2: load16(&P2),
                q3: load16(&Q3),
                pre_lo: load16(&PRE_LO),
                pre_hi: load16(&PRE_HI),
                post_lo: load16(&POST_LO),
                post_hi: load16(&POST_HI),
                s1_pos: load16(&S1_POS),
                nib: _mm_set1_epi8(0x0f),
                // S0 lanes are the odd bytes of each word.
                s0_mask: _mm_set1_epi16(0xff00u16 as i16),
                // AESENCLAST adds 0x63 (cancelling SubBytes' constant) and 0x8d,
                // whose image under POST is 0x55, the constant of S1's affine
                // map; so the POST lookups are linear and give 0 where masked out.
                aes_key: _mm_set1_epi8(0xeeu8 as i8),
                // L1(u) = u ^ rol24(u) ^ rol2(u ^ rol8(u) ^ rol16(u)) and
                // L2(v) = v ^ rol8(v) ^ rol6(rol8(v) ^ rol16(v) ^ rol24(v)): the
                // rotations by whole bytes are byte shuffles straight from
                // W = (W1, W2), with u = W1 << 16 | W2 >> 16 and v = W2 << 16 | W1 >> 16.
                // Every shuffle yields (lane for u, lane for v) twice: the copy in
                // lanes 2, 3 feeds AESENCLAST's ShiftRows, which moves bytes 10
                // and 14 onto positions 2 and 6.
                q0: _mm_setr_epi8(6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5), // (u, v)
                q1: _mm_setr_epi8(7, 0, 1, 6, 5, 2, 3, 4, 7, 0, 1, 6, 5, 2, 3, 4), // (rol24 u, rol8 v)
                y1: _mm_setr_epi8(6, 7, 0, 1, 5, 2, 3, 4, 6, 7, 0, 1, 5, 2, 3, 4), // (u, rol8 v)
                y2: _mm_setr_epi8(1, 6, 7, 0, 4, 5, 2, 3, 1, 6, 7, 0, 4, 5, 2, 3), // (rol8 u, rol16 v)
                y3: _mm_setr_epi8(0, 1, 6, 7, 3, 4, 5, 2, 0, 1, 6, 7, 3, 4, 5, 2), // (rol16 u, rol24 v)
                rot_l: _mm_setr_epi32(2, 6, 2, 6),
                rot_r: _mm_setr_epi32(30, 26, 30, 26),
                // L1 rotates u by 2, 10, 18, 24; L2 rotates v by 8, 14, 22, 30.
                r1: _mm_setr_epi32(2, 8, 2, 8),
                r2: _mm_setr_epi32(10, 14, 10, 14),
                r3: _mm_setr_epi32(18, 22, 18, 22),
                r4: _mm_setr_epi32(24, 30, 24, 30),
                s1_even: _mm_set1_epi16(0x00ff),
                aes_key_even: _mm_set1_epi16(0x63ee),
            }
        }
    }
}

/// One F update: from W = (R1 + X1, R2) and c = (L1(X2 >> 16), L2(X2 << 16)),
/// each twice (lanes 0, 1 and 2, 3), the new (R1, R2) twice. (The AVX2 form
/// reads only lanes 0, 1 of W.)
///
/// The S1 half is written first: it is the longer path (AESENCLAST's
/// latency), and the out-of-order core gives a port to the oldest ready
/// instruction, so S0's shuffles (which have slack) must not come earlier in
/// program order than S1's, or they take port 5 from it (measured: about 3
/// cycles per word on Skylake-SP).
#[inline(always)]
unsafe fn f_core<const AVX512: bool>(k: &FConsts, w: __m128i, c: __m128i) -> __m128i {
    if AVX512 {
        // SAFETY: the caller enables AVX2, AES-NI, SSSE3, SSE4.1, AVX-512F and AVX-512VL.
        return unsafe { f_core_avx512(k, w, c) };
    }
    // SAFETY: the caller enables AVX2, AES-NI, SSSE3 and SSE4.1.
    unsafe {
        let base = _mm_xor_si128(_mm_xor_si128(_mm_shuffle_epi8(w, k.q0), _mm_shuffle_epi8(w, k.q1)), c);
        let y = _mm_xor_si128(
            _mm_xor_si128(_mm_shuffle_epi8(w, k.y1), _mm_shuffle_epi8(w, k.y2)),
            _mm_shuffle_epi8(w, k.y3),
        );
        let l = _mm_xor_si128(_mm_xor_si128(base, _mm_sllv_epi32(y, k.rot_l)), _mm_srlv_epi32(y, k.rot_r));

        // S-box layer on the bytes of l.
        let lo = _mm_and_si128(l, k.nib);
        let hi = _mm_and_si128(_mm_srli_epi16(l, 4), k.nib);
        // S1 (first: see above)
        let pre = _mm_xor_si128(_mm_shuffle_epi8(k.pre_lo, lo), _mm_shuffle_epi8(k.pre_hi, hi));
        let o = _mm_aesenclast_si128(pre, k.aes_key);
        // S0
        let t2 = _mm_xor_si128(_mm_shuffle_epi8(k.p1, lo), hi);
        let t1 = _mm_xor_si128(_mm_shuffle_epi8(k.p2, t2), lo);
        let s0 = _mm_xor_si128(_mm_shuffle_epi8(k.q3, t1), _mm_add_epi8(t2, t2));
        let s0 = _mm_and_si128(s0, k.s0_mask);
        let olo = _mm_and_si128(o, k.s1_pos);
        let ohi = _mm_and_si128(_mm_srli_epi16(o, 4), k.s1_pos);
        _mm_xor_si128(_mm_xor_si128(s0, _mm_shuffle_epi8(k.post_lo, olo)), _mm_shuffle_epi8(k.post_hi, ohi))
    }
}

/// [`f_core`] with AVX-512VL: rotations in one instruction (VPROLVD) and
/// three-input logic (VPTERNLOGD) that also applies the nibble and byte masks.
///
/// Compared with the AVX2 form, the dependency chain from W to the next W is
/// shorter by 5 instructions: the high nibbles come from the two halves of
/// L's sum rotated by 4 (in parallel with the low nibbles) instead of a shift
/// and a mask after the sum, PRE's lookups are masked to S1's bytes inside
/// their XOR, and so AESENCLAST's output is 0 on S0's bytes (its key is 0x63
/// there, SubBytes(0) = 0x63), which lets POST use the output directly (one
/// AND for the low nibbles, one 16-bit shift for the high ones).
/// Constant time: register-only instructions, no data-dependent memory access
/// or branch (the same argument as the AVX2 form, which valgrind checks).
#[inline(always)]
unsafe fn f_core_avx512(k: &FConsts, w: __m128i, c: __m128i) -> __m128i {
    // SAFETY: the caller enables AVX2, AES-NI, SSSE3, SSE4.1, AVX-512F and AVX-512VL.
    unsafe {
        const XOR3: i32 = 0x96;
        // (a ^ b) & c
        const XOR_AND: i32 = 0x28;
        // (u, v) twice: W = (W1, W2) twice is one 64-bit lane rotated by 16.
        let a = _mm_rol_epi64::<16>(w);
        // L1(u) = u ^ rol2 ^ rol10 ^ rol18 ^ rol24, L2(v) = v ^ rol8 ^ rol14 ^ rol22 ^ rol30,
        // as two partial sums t1, t2 (c, the X2 part, in t2).
        let t1 = _mm_ternarylogic_epi32::<XOR3>(a, _mm_rolv_epi32(a, k.r1), _mm_rolv_epi32(a, k.r2));
        let t2 = _mm_ternarylogic_epi32::<XOR3>(c, _mm_rolv_epi32(a, k.r3), _mm_rolv_epi32(a, k.r4));
        let lo = _mm_ternarylogic_epi32::<XOR_AND>(t1, t2, k.nib);
        let hi = _mm_ternarylogic_epi32::<XOR_AND>(_mm_ror_epi32::<4>(t1), _mm_ror_epi32::<4>(t2), k.nib);
        // S1 (first: see f_core); S0's bytes of `pre` cleared.
        let pre = _mm_ternarylogic_epi32::<XOR_AND>(
            _mm_shuffle_epi8(k.pre_lo, lo),
            _mm_shuffle_epi8(k.pre_hi, hi),
            k.s1_even,
        );
        let o = _mm_aesenclast_si128(pre, k.aes_key_even);
        // S0
        let t2 = _mm_xor_si128(_mm_shuffle_epi8(k.p1, lo), hi);
        let t1 = _mm_xor_si128(_mm_shuffle_epi8(k.p2, t2), lo);
        let s0 = _mm_ternarylogic_epi32::<XOR_AND>(_mm_shuffle_epi8(k.q3, t1), _mm_add_epi8(t2, t2), k.s0_mask);
        // POST on S1's bytes; o is 0 on S0's, so the high nibble of each S1
        // byte after a 16-bit shift is clean, and POST's tables map 0 to 0.
        let olo = _mm_and_si128(o, k.nib);
        let ohi = _mm_srli_epi16(o, 4);
        _mm_ternarylogic_epi32::<XOR3>(s0, _mm_shuffle_epi8(k.post_lo, olo), _mm_shuffle_epi8(k.post_hi, ohi))
    }
}

/// One F update outside the batch loop (initialisation): new (R1, R2).
///
/// # Safety
/// The CPU must support AVX2, AES-NI, SSSE3 and SSE4.1.
#[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
pub(crate) unsafe fn f_update(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    // SAFETY: same features as this function.
    unsafe { f_update_with::<false>(r1, r2, x1, x2) }
}

/// [`f_update`] with the AVX-512 form of F (for the tests).
///
/// # Safety
/// The CPU must support AVX2, AES-NI, SSSE3, SSE4.1, AVX-512F and AVX-512VL.
#[cfg(test)]
#[target_feature(enable = "avx2,aes,ssse3,sse4.1,avx512f,avx512vl")]
unsafe fn f_update_avx512(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    // SAFETY: same features as this function.
    unsafe { f_update_with::<true>(r1, r2, x1, x2) }
}

#[inline(always)]
unsafe fn f_update_with<const AVX512: bool>(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    let (cu, cv) = (x2 >> 16, x2 << 16);
    let lu = cu ^ cu.rotate_left(2) ^ cu.rotate_left(10) ^ cu.rotate_left(18) ^ cu.rotate_left(24);
    let lv = cv ^ cv.rotate_left(8) ^ cv.rotate_left(14) ^ cv.rotate_left(22) ^ cv.rotate_left(30);
    // SAFETY: the callers enable the features of F's form.
    unsafe {
        let k = FConsts::new();
        let w1 = r1.wrapping_add(x1) as i32;
        let w = _mm_setr_epi32(w1, r2 as i32, w1, r2 as i32);
        let c = _mm_setr_epi32(lu as i32, lv as i32, lu as i32, lv as i32);
        let r = f_core::<AVX512>(&k, w, c);
        (_mm_cvtsi128_si32(r) as u32, _mm_extract_epi32::<1>(r) as u32)
    }
}

/// The keystream generator state of the SIMD backend.
///
/// The LFSR runs one batch ahead of F: while F consumes batch b (whose bit
/// reorganisation and X2 terms were computed for all its words at once with
/// AVX2), the same loop advances the LFSR through batch b+1. F's chain (the
/// latency-bound part) thus overlaps the LFSR's chain and the vector work.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct Stream {
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
    /// Use the AVX-512VL form of F.
    #[zeroize(skip)]
    avx512: bool,
}

impl Stream {
    /// Takes over an initialised state (16 cells, R1, R2).
    ///
    /// # Safety
    /// The CPU must support AVX2, AES-NI, SSSE3 and SSE4.1.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    /// With `avx512`, the CPU must also support AVX-512F and AVX-512VL.
    pub(crate) unsafe fn new(lfsr: &[u32; 16], r1: u32, r2: u32, avx512: bool) -> Box<Stream> {
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
            avx512,
        });
        st.cells[0][..16].copy_from_slice(lfsr);
        let cells = &mut st.cells[0];
        let mut last = cells[15] as u64;
        for i in 0..BATCH {
            // s15 chained through a register (see run_f)
            let v = (last << 15)
                + ((cells[i + 13] as u64) << 17)
                + ((cells[i + 10] as u64) << 21)
                + ((cells[i + 4] as u64) << 20)
                + ((cells[i] as u64) << 8)
                + cells[i] as u64;
            let v = (v & 0x7fff_ffff) + (v >> 31);
            last = (v & 0x7fff_ffff) + (v >> 31);
            cells[16 + i] = last as u32;
        }
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
    pub(crate) unsafe fn generate(&mut self, mut out: &mut [u32]) {
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
    pub(crate) unsafe fn xor_be(&mut self, mut src: &[u8], mut dst: &mut [u8]) {
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
        // SAFETY: features enabled on this function; AVX-512F/VL were
        // checked when `avx512` was set.
        unsafe {
            if self.avx512 {
                self.run_f_avx512(start, end)
            } else {
                self.run_f_avx2(start, end)
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
        unsafe { self.run_f::<false>(start, end) }
    }

    /// # Safety
    /// AVX-512F and AVX-512VL must have been detected.
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1,avx512f,avx512vl")]
    unsafe fn run_f_avx512(&mut self, start: usize, end: usize) {
        // SAFETY: same features as this function.
        unsafe { self.run_f::<true>(start, end) }
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
    unsafe fn run_f<const AVX512: bool>(&mut self, start: usize, end: usize) {
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
                let v = (last << 15)
                    + ((next[i + 13] as u64) << 17)
                    + ((next[i + 10] as u64) << 21)
                    + ((next[i + 4] as u64) << 20)
                    + ((next[i] as u64) << 8)
                    + next[i] as u64;
                last = (v & 0x7fff_ffff) + (v >> 31);
                next[16 + i] = last as u32;

                // W1 = R1 + X1 in lanes 0 and 2; lanes 1 and 3 keep R2 (its X2 part is in c).
                let w = _mm_add_epi32(r, _mm_castpd_si128(_mm_loaddup_pd(self.x1.as_ptr().add(i).cast())));
                _mm_storel_epi64(self.rs[i].as_mut_ptr().cast(), r);
                let ci = _mm_castpd_si128(_mm_loaddup_pd(self.c[i].as_ptr().cast()));
                r = f_core::<AVX512>(&k, w, ci);
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
/// # Safety
/// The CPU must support PCLMULQDQ, SSSE3 and SSE4.1 (and AVX2 for encoding).
#[target_feature(enable = "avx2,pclmulqdq,ssse3,sse4.1")]
pub(crate) unsafe fn window_xor(msg: &[u8], ks: &[u32]) -> u32 {
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
            tail ^= super::mac::window_word_portable(m, ks[j], ks[j + 1]);
        }
        let acc = _mm_xor_si128(acc0, acc1);
        (_mm_cvtsi128_si64(acc) as u64 >> 32) as u32
    };
    acc ^ tail
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD F update (L1/L2 by shuffles and rotations, S-boxes by AES-NI
    /// and nibble shuffles) equals the portable one, itself checked against
    /// the S-box tables, on many inputs covering every byte value.
    #[test]
    fn simd_f_matches_portable() {
        if !super::super::Backend::Simd.is_available() {
            return;
        }
        let avx512 = super::super::Backend::Avx512.is_available();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..20_000u32 {
            // xorshift64*: deterministic, covers all bytes in all positions
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let a = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            let (r1, r2, x1, x2) = (a as u32, (a >> 32) as u32, (a as u32).rotate_left(7) ^ i, (a >> 17) as u32);
            let want = super::super::core::f_update(r1, r2, x1, x2);
            // SAFETY: features checked above.
            assert_eq!(unsafe { f_update(r1, r2, x1, x2) }, want);
            if avx512 {
                // SAFETY: AVX-512F/VL checked above.
                assert_eq!(unsafe { f_update_avx512(r1, r2, x1, x2) }, want);
            }
        }
    }
}
