//! F's nonlinear step on x86-64 for one stream: the S-box constants
//! (nibble tables for S0, the PRE/POST maps around AESENCLAST for S1) and
//! the AVX2, AVX-512VL and AVX-512VL + GFNI forms of F's register update
//! (see x86/stream.rs for why they look this way). The 16-entry tables
//! PRE/POST are recomputed from the specification by `derive_tests.rs`;
//! the tests also check F against the portable one, itself checked against
//! the standard's S-box tables.

#![allow(clippy::missing_safety_doc)]

use core::arch::x86_64::*;

use super::lanes16::{GFNI_S1_C, GFNI_S1_POST, GFNI_S1_PRE};
use crate::cpu::AesAvx2;
#[cfg(test)]
use crate::cpu::{Avx512Vl, GfniAvx2, GfniAvx512};
use crate::zuc::sbox::{P1, P2, Q3};

/// The forms of F: `f_core::<FORM>`.
pub(super) const AVX2: u8 = 0;
/// AVX-512VL rotations and three-way logic, S1 by AES-NI.
pub(super) const AVX512: u8 = 1;
/// The AVX-512VL form with S1 by GFNI.
pub(super) const GFNI: u8 = 2;
/// The AVX2 form with S1 by GFNI.
pub(super) const AVX2_GFNI: u8 = 3;
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
pub(super) unsafe fn load16(t: &[u8; 16]) -> __m128i {
    // SAFETY: reading 16 bytes from a 16-byte array.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

/// The constants of F's SIMD step.
pub(super) struct FConsts {
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
    /// S1's GFNI matrices (see x86/lanes16.rs).
    gf_pre: __m128i,
    gf_post: __m128i,
}

impl FConsts {
    #[inline(always)]
    pub(super) unsafe fn new() -> FConsts {
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
                // (u, v); opaque to the compiler, which would otherwise turn
                // this shuffle into `pshuflw` + `vpbroadcastq`: two uops on
                // the two shuffle pipes (Zen 3) that F's chain contends for.
                q0: core::hint::black_box(_mm_setr_epi8(6, 7, 0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5)),
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
                gf_pre: _mm_set1_epi64x(GFNI_S1_PRE as i64),
                gf_post: _mm_set1_epi64x(GFNI_S1_POST as i64),
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
/// program order than S1's, or they take port 5 from it.
#[inline(always)]
pub(super) unsafe fn f_core<const FORM: u8>(k: &FConsts, w: __m128i, c: __m128i) -> __m128i {
    if FORM == GFNI {
        // SAFETY: the caller enables AVX2, SSSE3, AVX-512F, AVX-512VL and GFNI.
        return unsafe { f_core_gfni(k, w, c) };
    }
    if FORM == AVX512 {
        // SAFETY: the caller enables AVX2, AES-NI, SSSE3, SSE4.1, AVX-512F and AVX-512VL.
        return unsafe { f_core_avx512(k, w, c) };
    }
    // SAFETY: the caller enables AVX2, AES-NI, SSSE3 and SSE4.1 (and GFNI
    // for the AVX2_GFNI form).
    unsafe {
        // The y shuffles and their rotations first, the base after: they are
        // the longer path from W, and the two shuffle pipes (which also run
        // the shifts) issue the oldest ready uop first (4 % fewer cycles per
        // word on Zen 3 than base first; bench/NOTES.md).
        let y = _mm_xor_si128(
            _mm_xor_si128(_mm_shuffle_epi8(w, k.y1), _mm_shuffle_epi8(w, k.y2)),
            _mm_shuffle_epi8(w, k.y3),
        );
        let sl = _mm_sllv_epi32(y, k.rot_l);
        let sr = _mm_srlv_epi32(y, k.rot_r);
        let base = _mm_xor_si128(_mm_xor_si128(_mm_shuffle_epi8(w, k.q0), _mm_shuffle_epi8(w, k.q1)), c);
        let l = _mm_xor_si128(_mm_xor_si128(base, sl), sr);
        if FORM == AVX2_GFNI {
            // S1 on every byte by GFNI (see x86/lanes16.rs), S0 by nibble lookups,
            // then S0's bytes picked by their mask.
            let s1 =
                _mm_gf2p8affineinv_epi64_epi8::<GFNI_S1_C>(_mm_gf2p8affine_epi64_epi8::<0>(l, k.gf_pre), k.gf_post);
            let lo = _mm_and_si128(l, k.nib);
            let hi = _mm_and_si128(_mm_srli_epi16(l, 4), k.nib);
            let t2 = _mm_xor_si128(_mm_shuffle_epi8(k.p1, lo), hi);
            let t1 = _mm_xor_si128(_mm_shuffle_epi8(k.p2, t2), lo);
            let s0 = _mm_xor_si128(_mm_shuffle_epi8(k.q3, t1), _mm_add_epi8(t2, t2));
            return _mm_blendv_epi8(s1, s0, k.s0_mask);
        }

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

/// [`f_core_avx512`] with S1 by GFNI: S1 = B·inv(M·x) + 0x55 in two
/// instructions on the whole of L (their result is kept on S1's bytes),
/// next to S0's nibble lookups; no AESENCLAST and no PRE/POST lookups.
/// Constant time: register-only instructions.
#[inline(always)]
unsafe fn f_core_gfni(k: &FConsts, w: __m128i, c: __m128i) -> __m128i {
    // SAFETY: the caller enables AVX2, SSSE3, AVX-512F, AVX-512VL and GFNI.
    unsafe {
        const XOR3: i32 = 0x96;
        // (a ^ b) & c
        const XOR_AND: i32 = 0x28;
        // c ? a : b
        const SELECT: i32 = 0xe4;
        let a = _mm_rol_epi64::<16>(w);
        let t1 = _mm_ternarylogic_epi32::<XOR3>(a, _mm_rolv_epi32(a, k.r1), _mm_rolv_epi32(a, k.r2));
        let t2 = _mm_ternarylogic_epi32::<XOR3>(c, _mm_rolv_epi32(a, k.r3), _mm_rolv_epi32(a, k.r4));
        // S1 (first: the longer path)
        let l = _mm_xor_si128(t1, t2);
        let s1 = _mm_gf2p8affineinv_epi64_epi8::<GFNI_S1_C>(_mm_gf2p8affine_epi64_epi8::<0>(l, k.gf_pre), k.gf_post);
        // S0
        let lo = _mm_ternarylogic_epi32::<XOR_AND>(t1, t2, k.nib);
        let hi = _mm_ternarylogic_epi32::<XOR_AND>(_mm_ror_epi32::<4>(t1), _mm_ror_epi32::<4>(t2), k.nib);
        let u2 = _mm_xor_si128(_mm_shuffle_epi8(k.p1, lo), hi);
        let u1 = _mm_xor_si128(_mm_shuffle_epi8(k.p2, u2), lo);
        let s0 = _mm_xor_si128(_mm_shuffle_epi8(k.q3, u1), _mm_add_epi8(u2, u2));
        _mm_ternarylogic_epi32::<SELECT>(s0, s1, k.s0_mask)
    }
}

/// F's register update (see [`crate::zuc::spec::f_update`]) with the SIMD
/// S-boxes; the token proves AVX2, AES-NI, SSSE3 and SSE4.1.
pub(crate) fn f_update(_t: AesAvx2, r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1")]
    unsafe fn run(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        // SAFETY: same features as this function.
        unsafe { f_update_form::<AVX2>(r1, r2, x1, x2) }
    }
    // SAFETY: the token proves the features `run` enables.
    unsafe { run(r1, r2, x1, x2) }
}

/// [`f_update`] with the AVX-512 form of F (for the tests).
#[cfg(test)]
fn f_update_avx512(_t: (AesAvx2, Avx512Vl), r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    #[target_feature(enable = "avx2,aes,ssse3,sse4.1,avx512f,avx512vl")]
    unsafe fn run(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        // SAFETY: same features as this function.
        unsafe { f_update_form::<AVX512>(r1, r2, x1, x2) }
    }
    // SAFETY: the tokens prove the features `run` enables.
    unsafe { run(r1, r2, x1, x2) }
}

/// [`f_update`] with the AVX2 + GFNI form of F (for the tests).
#[cfg(test)]
fn f_update_avx2_gfni(_t: (AesAvx2, GfniAvx2), r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    #[target_feature(enable = "avx2,ssse3,sse4.1,gfni")]
    unsafe fn run(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        // SAFETY: same features as this function.
        unsafe { f_update_form::<AVX2_GFNI>(r1, r2, x1, x2) }
    }
    // SAFETY: the tokens prove the features `run` enables.
    unsafe { run(r1, r2, x1, x2) }
}

/// [`f_update`] with the GFNI form of F (for the tests).
#[cfg(test)]
fn f_update_gfni(_t: (AesAvx2, GfniAvx512), r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    #[target_feature(enable = "avx2,ssse3,sse4.1,avx512f,avx512vl,gfni")]
    unsafe fn run(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        // SAFETY: same features as this function.
        unsafe { f_update_form::<GFNI>(r1, r2, x1, x2) }
    }
    // SAFETY: the tokens prove the features `run` enables.
    unsafe { run(r1, r2, x1, x2) }
}

#[inline(always)]
unsafe fn f_update_form<const FORM: u8>(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    let (cu, cv) = (x2 >> 16, x2 << 16);
    let lu = cu ^ cu.rotate_left(2) ^ cu.rotate_left(10) ^ cu.rotate_left(18) ^ cu.rotate_left(24);
    let lv = cv ^ cv.rotate_left(8) ^ cv.rotate_left(14) ^ cv.rotate_left(22) ^ cv.rotate_left(30);
    // SAFETY: the callers enable the features of F's form.
    unsafe {
        let k = FConsts::new();
        let w1 = r1.wrapping_add(x1) as i32;
        let w = _mm_setr_epi32(w1, r2 as i32, w1, r2 as i32);
        let c = _mm_setr_epi32(lu as i32, lv as i32, lu as i32, lv as i32);
        let r = f_core::<FORM>(&k, w, c);
        (_mm_cvtsi128_si32(r) as u32, _mm_extract_epi32::<1>(r) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SIMD F update (L1/L2 by shuffles and rotations, S-boxes by AES-NI
    /// and nibble shuffles) equals the portable one, itself checked against
    /// the S-box tables, on many inputs covering every byte value.
    #[test]
    fn simd_f_matches_portable() {
        use crate::cpu::Token;
        let Some(t) = AesAvx2::get() else { return };
        let avx512 = Avx512Vl::get();
        let gfni = GfniAvx512::get();
        let gfni_avx2 = GfniAvx2::get();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for i in 0..20_000u32 {
            // xorshift64*: deterministic, covers all bytes in all positions
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            let a = x.wrapping_mul(0x2545_f491_4f6c_dd1d);
            let (r1, r2, x1, x2) = (a as u32, (a >> 32) as u32, (a as u32).rotate_left(7) ^ i, (a >> 17) as u32);
            let want = crate::zuc::spec::f_update(r1, r2, x1, x2);
            assert_eq!(f_update(t, r1, r2, x1, x2), want);
            if let Some(v) = avx512 {
                assert_eq!(f_update_avx512((t, v), r1, r2, x1, x2), want);
            }
            if let Some(g) = gfni {
                assert_eq!(f_update_gfni((t, g), r1, r2, x1, x2), want);
            }
            if let Some(g) = gfni_avx2 {
                assert_eq!(f_update_avx2_gfni((t, g), r1, r2, x1, x2), want);
            }
        }
    }
}
