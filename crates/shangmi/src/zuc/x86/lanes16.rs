//! Sixteen independent ZUC-128 streams at once, one per 32-bit lane of
//! AVX-512 registers, with GFNI for S1: `gfni-512`, the many-message
//! 128-EEA3 kernel.
//!
//! Same structure as the eight-lane AVX2 code (x86/lanes8.rs), on 512-bit
//! registers: LFSR modulo 2^31 - 1 with 31-bit rotations, lazily reduced
//! partial sums and an exact last addition (cells stay in [1, 2^31 - 1]), bit
//! reorganisation, L1/L2 with VPROLD and VPTERNLOGD, and the S-box layer:
//! * S1(x) = B·inv(M·x) + 0x55, where inv is inversion in the AES field,
//!   M the field isomorphism from S1's field (x^8+x^7+x^3+x+1) onto it and
//!   B = A·M⁻¹ with A S1's affine map: one `gf2p8affineqb` and one
//!   `gf2p8affineinvqb` (Intel's multi-buffer ZUC does the same).
//! * S0 is not affine-equivalent to an inversion (it is a network of 4-bit
//!   permutations), so it stays three nibble `vpshufb` lookups, as on the
//!   other SIMD backends.
//!
//! Both S-boxes run on every byte and a byte mask picks S1 for the even
//! bytes and S0 for the odd ones. The keystream of 16 steps is transposed
//! in registers (16 × 16 words) so that each lane's 64 bytes are one
//! register, XORed with the message and stored (masked at a message's end).
//!
//! Constant time: register-only arithmetic, shuffles with secret indices
//! inside registers, and memory accesses whose addresses and masks depend
//! only on the (public) message lengths.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use crate::zuc::sbox::{P1, P2, Q3};
use crate::zuc::spec::D128;

/// Streams processed together.
pub(crate) const LANES: usize = 16;
/// Keystream words per lane per block (one 64-byte register per lane).
const BLOCK: usize = 16;

/// M: S1's field onto the AES field, as a GFNI matrix (row i in byte 7 - i).
pub(crate) const GFNI_S1_PRE: u64 = 0xdd06_c8f0_1eae_7c70;
/// B = A·M⁻¹: back from the AES field through S1's affine map.
pub(crate) const GFNI_S1_POST: u64 = 0xb903_e536_0f14_f0e3;
/// S1's affine constant.
pub(crate) const GFNI_S1_C: i32 = 0x55;

struct Consts {
    p1: __m512i,
    p2: __m512i,
    q3: __m512i,
    nib: __m512i,
    pre: __m512i,
    post: __m512i,
    p31: __m512i,
    bswap: __m512i,
}

impl Consts {
    #[inline(always)]
    unsafe fn new() -> Consts {
        // SAFETY: the caller enables AVX-512F/BW; 16-byte loads from 16-byte arrays.
        unsafe {
            let t = |a: &[u8; 16]| _mm512_broadcast_i32x4(_mm_loadu_si128(a.as_ptr().cast()));
            Consts {
                p1: t(&P1),
                p2: t(&P2),
                q3: t(&Q3),
                nib: _mm512_set1_epi8(0x0f),
                pre: _mm512_set1_epi64(GFNI_S1_PRE as i64),
                post: _mm512_set1_epi64(GFNI_S1_POST as i64),
                p31: _mm512_set1_epi32(0x7fff_ffff),
                bswap: t(&[3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12]),
            }
        }
    }
}

/// Bytes of each word that go through S0 (the odd ones: from the most
/// significant byte the order is S0, S1, S0, S1).
const S0_BYTES: __mmask64 = 0xaaaa_aaaa_aaaa_aaaa;

/// S0/S1 on the bytes of sixteen words (S1 on the even bytes, S0 on the odd).
#[inline(always)]
unsafe fn sbox(k: &Consts, x: __m512i) -> __m512i {
    // SAFETY: the caller enables AVX-512F/BW and GFNI.
    unsafe {
        let s1 = _mm512_gf2p8affineinv_epi64_epi8::<GFNI_S1_C>(_mm512_gf2p8affine_epi64_epi8::<0>(x, k.pre), k.post);
        let lo = _mm512_and_si512(x, k.nib);
        let hi = _mm512_and_si512(_mm512_srli_epi16::<4>(x), k.nib);
        let t2 = _mm512_xor_si512(_mm512_shuffle_epi8(k.p1, lo), hi);
        let t1 = _mm512_xor_si512(_mm512_shuffle_epi8(k.p2, t2), lo);
        let s0 = _mm512_xor_si512(_mm512_shuffle_epi8(k.q3, t1), _mm512_add_epi8(t2, t2));
        _mm512_mask_blend_epi8(S0_BYTES, s1, s0)
    }
}

/// (a & b) | c.
const AND_OR: i32 = 0xea;
/// a ^ b ^ c.
const XOR3: i32 = 0x96;

/// x · 2^K mod (2^31 - 1) for x in [0, 2^31 - 1]: a 31-bit rotation (R = 31 - K).
#[inline(always)]
unsafe fn mul_pow2<const K: u32, const R: u32>(k: &Consts, x: __m512i) -> __m512i {
    // SAFETY: the caller enables AVX-512F.
    unsafe { _mm512_ternarylogic_epi32::<AND_OR>(_mm512_slli_epi32::<K>(x), k.p31, _mm512_srli_epi32::<R>(x)) }
}

/// a + b mod (2^31 - 1) for a, b in [0, 2^31 - 1], result in [0, 2^31 - 1]
/// (nonzero unless a = b = 0: 2^31 - 1 stands for 0, as ZUC wants).
#[inline(always)]
unsafe fn add_mod(k: &Consts, a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: the caller enables AVX-512F.
    unsafe {
        let t = _mm512_add_epi32(a, b);
        _mm512_add_epi32(_mm512_and_si512(t, k.p31), _mm512_srli_epi32::<31>(t))
    }
}

/// a + b mod (2^31 - 1) for a, b in [0, 2^31 - 1], result in [0, 2^31 - 1]
/// where both 0 and 2^31 - 1 stand for 0: for partial sums that
/// [`add_mod`] finishes (t - p wraps above t when t < p, so the unsigned
/// minimum picks the reduced value).
#[inline(always)]
unsafe fn add_lazy(k: &Consts, a: __m512i, b: __m512i) -> __m512i {
    // SAFETY: the caller enables AVX-512F.
    unsafe {
        let t = _mm512_add_epi32(a, b);
        _mm512_min_epu32(t, _mm512_sub_epi32(t, k.p31))
    }
}

/// One clock of all sixteen streams: cell j is `s[t + j]`, the new cell goes
/// to `s[t + 16]`. Returns the keystream word Z (work mode) or W
/// (initialisation mode, where W >> 1 also enters the LFSR).
#[inline(always)]
unsafe fn step<const INIT: bool>(
    k: &Consts,
    s: &mut [__m512i; 32],
    t: usize,
    r1: &mut __m512i,
    r2: &mut __m512i,
) -> __m512i {
    debug_assert!(t < 16);
    // SAFETY: the caller enables AVX-512F/BW and GFNI.
    unsafe {
        let c = |j: usize| s[t + j];
        const HI16: __mmask32 = 0xaaaa_aaaa;
        // Bit reorganisation (cells are below 2^31).
        let x0 = _mm512_mask_blend_epi16(HI16, c(14), _mm512_slli_epi32::<1>(c(15)));
        let x1 = _mm512_or_si512(_mm512_slli_epi32::<16>(c(11)), _mm512_srli_epi32::<15>(c(9)));
        let x2 = _mm512_or_si512(_mm512_slli_epi32::<16>(c(7)), _mm512_srli_epi32::<15>(c(5)));
        let x3 = _mm512_or_si512(_mm512_slli_epi32::<16>(c(2)), _mm512_srli_epi32::<15>(c(0)));
        // F
        let w = _mm512_add_epi32(_mm512_xor_si512(x0, *r1), *r2);
        let w1 = _mm512_add_epi32(*r1, x1);
        let w2 = _mm512_xor_si512(*r2, x2);
        // u = rol16(m), v = rol16(n) with m = (W1 low half, W2 high half), n the other way
        let m = _mm512_mask_blend_epi16(HI16, w1, w2);
        let n = _mm512_mask_blend_epi16(HI16, w2, w1);
        // L1(u) = u ^ rol24(u) ^ rol2(u ^ rol8(u) ^ rol16(u)) with u = rol16(m),
        // so rol_j(u) = rol_(j+16)(m)
        let u = _mm512_rol_epi32::<16>(m);
        let y = _mm512_ternarylogic_epi32::<XOR3>(u, _mm512_rol_epi32::<24>(m), m);
        let l1 = _mm512_ternarylogic_epi32::<XOR3>(u, _mm512_rol_epi32::<8>(m), _mm512_rol_epi32::<2>(y));
        // L2(v) = v ^ rol8(v) ^ rol6(rol8(v) ^ rol16(v) ^ rol24(v)) with v = rol16(n)
        let v8 = _mm512_rol_epi32::<24>(n);
        let y = _mm512_ternarylogic_epi32::<XOR3>(v8, n, _mm512_rol_epi32::<8>(n));
        let l2 = _mm512_ternarylogic_epi32::<XOR3>(_mm512_rol_epi32::<16>(n), v8, _mm512_rol_epi32::<6>(y));
        *r1 = sbox(k, l1);
        *r2 = sbox(k, l2);
        // LFSR: 2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1 + 2^8) s0 (+ W >> 1)
        // Partial sums lazily reduced; d = 257·s0 is exact and never 0 (s0 is
        // not 0 mod p), so the last add_mod lands in [1, 2^31 - 1].
        let a = add_lazy(k, mul_pow2::<15, 16>(k, c(15)), mul_pow2::<17, 14>(k, c(13)));
        let b = add_lazy(k, mul_pow2::<21, 10>(k, c(10)), mul_pow2::<20, 11>(k, c(4)));
        let d = add_mod(k, mul_pow2::<8, 23>(k, c(0)), c(0));
        let mut next = add_mod(k, add_lazy(k, a, b), d);
        if INIT {
            next = add_mod(k, next, _mm512_srli_epi32::<1>(w));
        }
        s[t + 16] = next;
        if INIT {
            w
        } else {
            _mm512_xor_si512(w, x3)
        }
    }
}

/// Transposes 16 rows of 16 words (row t = step t, word l = lane l) in
/// place: afterwards `z[l]` holds lane l's words 0..16.
#[inline(always)]
unsafe fn transpose(z: &mut [__m512i; 16]) {
    // SAFETY: the caller enables AVX-512F.
    unsafe {
        let mut t = [_mm512_setzero_si512(); 16];
        for i in (0..16).step_by(2) {
            t[i] = _mm512_unpacklo_epi32(z[i], z[i + 1]);
            t[i + 1] = _mm512_unpackhi_epi32(z[i], z[i + 1]);
        }
        // c[4g + j]: in 128-bit lane q, rows 4g..4g+4 of word 4q + j
        let mut c = [_mm512_setzero_si512(); 16];
        for g in 0..4 {
            let (a, b, e, f) = (t[4 * g], t[4 * g + 1], t[4 * g + 2], t[4 * g + 3]);
            c[4 * g] = _mm512_unpacklo_epi64(a, e);
            c[4 * g + 1] = _mm512_unpackhi_epi64(a, e);
            c[4 * g + 2] = _mm512_unpacklo_epi64(b, f);
            c[4 * g + 3] = _mm512_unpackhi_epi64(b, f);
        }
        // For each j, a 4 × 4 transpose of 128-bit lanes across the groups g.
        for j in 0..4 {
            let x0 = _mm512_shuffle_i32x4::<0x44>(c[j], c[4 + j]);
            let x1 = _mm512_shuffle_i32x4::<0xee>(c[j], c[4 + j]);
            let x2 = _mm512_shuffle_i32x4::<0x44>(c[8 + j], c[12 + j]);
            let x3 = _mm512_shuffle_i32x4::<0xee>(c[8 + j], c[12 + j]);
            z[j] = _mm512_shuffle_i32x4::<0x88>(x0, x2);
            z[4 + j] = _mm512_shuffle_i32x4::<0xdd>(x0, x2);
            z[8 + j] = _mm512_shuffle_i32x4::<0x88>(x1, x3);
            z[12 + j] = _mm512_shuffle_i32x4::<0xdd>(x1, x3);
        }
        t.zeroize();
        c.zeroize();
    }
}

/// 128-EEA3 keystream XOR for up to sixteen messages: lane l (l < `dst.len()`)
/// runs ZUC-128 from `keys[l]`, `ivs[l]` and writes `dst[l][i] = src[l][i] ^
/// keystream byte i` for every byte of `dst[l]` (keystream words read
/// big-endian). `src[l]` has at least `dst[l].len()` bytes. Lanes beyond
/// `dst.len()` run on the given (ignored) keys and write nothing.
///
/// The token proves AVX-512F, AVX-512BW and GFNI.
pub(crate) fn eea3_x16(
    _t: crate::cpu::GfniAvx512,
    keys: &[[u8; 16]; LANES],
    ivs: &[[u8; 16]; LANES],
    src: &[&[u8]],
    dst: &mut [&mut [u8]],
) {
    // SAFETY: the token proves every feature `run` enables.
    unsafe { run(keys, ivs, src, dst) }
}

/// [`eea3_x16`] with its features enabled.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512BW and GFNI.
#[target_feature(enable = "avx512f,avx512bw,gfni")]
unsafe fn run(keys: &[[u8; 16]; LANES], ivs: &[[u8; 16]; LANES], src: &[&[u8]], dst: &mut [&mut [u8]]) {
    assert!(dst.len() <= LANES && src.len() == dst.len());
    assert!(src.iter().zip(dst.iter()).all(|(s, d)| s.len() >= d.len()));
    let longest = dst.iter().map(|d| d.len()).max().unwrap_or(0);
    let mut cells = [[0u32; LANES]; 16];
    for (i, cell) in cells.iter_mut().enumerate() {
        for (l, c) in cell.iter_mut().enumerate() {
            *c = ((keys[l][i] as u32) << 23) | (D128[i] << 8) | ivs[l][i] as u32;
        }
    }
    // SAFETY: features enabled on this function. Loads read one 16-word row
    // of `cells`; the message loads and stores are masked to bytes
    // off..off + n of each lane's slices, with off + n <= dst[l].len() <= src[l].len().
    unsafe {
        let k = Consts::new();
        let mut s = [_mm512_setzero_si512(); 32];
        for (v, row) in s.iter_mut().zip(&cells) {
            *v = _mm512_loadu_si512(row.as_ptr().cast());
        }
        cells.zeroize();
        let mut r1 = _mm512_setzero_si512();
        let mut r2 = _mm512_setzero_si512();
        for _ in 0..2 {
            for t in 0..16 {
                step::<true>(&k, &mut s, t, &mut r1, &mut r2);
            }
            s.copy_within(16..32, 0);
        }
        // One work-mode clock whose output is discarded.
        step::<false>(&k, &mut s, 0, &mut r1, &mut r2);
        s.copy_within(1..17, 0);

        let mut z = [_mm512_setzero_si512(); BLOCK];
        let mut off = 0;
        while off < longest {
            for (t, zt) in z.iter_mut().enumerate() {
                *zt = step::<false>(&k, &mut s, t, &mut r1, &mut r2);
            }
            s.copy_within(16..32, 0);
            transpose(&mut z);
            for (l, d) in dst.iter_mut().enumerate() {
                let n = d.len().saturating_sub(off).min(4 * BLOCK);
                if n == 0 {
                    continue;
                }
                let ks = _mm512_shuffle_epi8(z[l], k.bswap);
                let sp = src[l].as_ptr().add(off);
                let dp = d.as_mut_ptr().add(off);
                if n == 4 * BLOCK {
                    _mm512_storeu_si512(dp.cast(), _mm512_xor_si512(_mm512_loadu_si512(sp.cast()), ks));
                } else {
                    let mask: __mmask64 = (1u64 << n) - 1;
                    let m = _mm512_maskz_loadu_epi8(mask, sp.cast());
                    _mm512_mask_storeu_epi8(dp.cast(), mask, _mm512_xor_si512(m, ks));
                }
            }
            off += 4 * BLOCK;
        }
        z.zeroize();
        s.zeroize();
        r1.zeroize();
        r2.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::{GfniAvx512, Token};

    #[test]
    fn gfni_s1_matches_table_on_all_bytes() {
        if GfniAvx512::get().is_none() {
            return;
        }
        #[target_feature(enable = "avx512f,avx512bw,gfni")]
        unsafe fn s1_all() -> [u8; 256] {
            let mut out = [0u8; 256];
            // SAFETY: features enabled; 64-byte loads/stores inside the arrays.
            unsafe {
                let pre = _mm512_set1_epi64(GFNI_S1_PRE as i64);
                let post = _mm512_set1_epi64(GFNI_S1_POST as i64);
                for i in 0..4 {
                    let x: [u8; 64] = core::array::from_fn(|j| (64 * i + j) as u8);
                    let v = _mm512_loadu_si512(x.as_ptr().cast());
                    let y =
                        _mm512_gf2p8affineinv_epi64_epi8::<GFNI_S1_C>(_mm512_gf2p8affine_epi64_epi8::<0>(v, pre), post);
                    _mm512_storeu_si512(out.as_mut_ptr().add(64 * i).cast(), y);
                }
            }
            out
        }
        // SAFETY: features checked above.
        assert_eq!(unsafe { s1_all() }, crate::zuc::sbox::S1);
    }

    #[test]
    fn sbox_layer_matches_portable_on_all_bytes() {
        if GfniAvx512::get().is_none() {
            return;
        }
        #[target_feature(enable = "avx512f,avx512bw,gfni")]
        unsafe fn layer(words: &[u32; 16]) -> [u32; 16] {
            let mut out = [0u32; 16];
            // SAFETY: features enabled; one 16-word load and store.
            unsafe {
                let k = Consts::new();
                let v = sbox(&k, _mm512_loadu_si512(words.as_ptr().cast()));
                _mm512_storeu_si512(out.as_mut_ptr().cast(), v);
            }
            out
        }
        for base in (0..256u32).step_by(16) {
            // every byte value in every byte position
            let words: [u32; 16] = core::array::from_fn(|i| {
                let b = base + i as u32;
                b | ((b ^ 0x5a) << 8) | ((255 - b) << 16) | (b.wrapping_mul(7) & 0xff) << 24
            });
            // SAFETY: features checked above.
            let got = unsafe { layer(&words) };
            for (w, g) in words.iter().zip(got) {
                let (want, _) = crate::zuc::sbox::sbox_pair(*w, 0);
                assert_eq!(g, want, "S-box layer of {w:#010x}");
            }
        }
    }

    #[test]
    fn transpose_is_a_transpose() {
        if GfniAvx512::get().is_none() {
            return;
        }
        #[target_feature(enable = "avx512f,avx512bw,gfni")]
        unsafe fn run() -> [[u32; 16]; 16] {
            let mut rows = [[0u32; 16]; 16];
            // SAFETY: features enabled; 16-word loads and stores of rows.
            unsafe {
                let mut z = [_mm512_setzero_si512(); 16];
                for (t, v) in z.iter_mut().enumerate() {
                    let r: [u32; 16] = core::array::from_fn(|l| (t * 16 + l) as u32);
                    *v = _mm512_loadu_si512(r.as_ptr().cast());
                }
                transpose(&mut z);
                for (row, v) in rows.iter_mut().zip(&z) {
                    _mm512_storeu_si512(row.as_mut_ptr().cast(), *v);
                }
            }
            rows
        }
        // SAFETY: features checked above.
        let rows = unsafe { run() };
        for (l, row) in rows.iter().enumerate() {
            for (t, &v) in row.iter().enumerate() {
                assert_eq!(v, (t * 16 + l) as u32);
            }
        }
    }
}
