//! Eight independent ZUC-128 streams at once, one per 32-bit lane of AVX2
//! registers (the multi-buffer form LTE/NR base stations use for many
//! bearers): the LFSR, bit reorganisation, L1/L2 and the S-boxes of eight
//! streams cost about what one stream's do, and the eight F chains are
//! independent, so the loop is bound by instruction throughput, not by the
//! latency of one stream's R1/R2 chain (see x86/stream.rs).
//!
//! Same constant-time S-boxes as the single-stream code (AES-NI for S1,
//! `pshufb` nibble lookups for S0); AESENCLAST works on 16 bytes, so each
//! 256-bit S-box input goes through it as two halves, with ShiftRows undone
//! by a byte shuffle beforehand. The LFSR works modulo 2^31 - 1 with 31-bit
//! rotations (multiplication by powers of 2) and an exact reduction after
//! each addition, so cells stay in [1, 2^31 - 1] as the standard requires.
//! With GFNI (the `gfni-256` kernel) S1 is two GFNI affine
//! instructions instead (see x86/lanes16.rs); the AES-NI form is what valgrind
//! checks (it does not emulate GFNI).

use core::arch::x86_64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::cpu::{AesAvx2, GfniAvx2};

use super::f::{POST_HI, POST_LO, PRE_HI, PRE_LO, S1_POS};
use super::lanes16::{GFNI_S1_C, GFNI_S1_POST, GFNI_S1_PRE};
use crate::zuc::sbox::{P1, P2, Q3};
use crate::zuc::spec::D128;

/// How the lanes compute S1, with the tokens that prove the features:
/// AES-NI (and AVX2), or GFNI as well.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Sbox {
    Aesni(AesAvx2),
    Gfni(AesAvx2, GfniAvx2),
}

/// Streams processed together.
pub(crate) const LANES: usize = 8;
/// Keystream words per lane produced by one [`Lanes::block`].
pub(crate) const BLOCK: usize = 16;

/// The state of eight streams: LFSR cells (cell j of lane l is
/// `cells[j][l]`) and F's registers. Wiped on drop.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct Lanes {
    cells: [[u32; LANES]; 16],
    r1: [u32; LANES],
    r2: [u32; LANES],
}

struct Consts {
    p1: __m256i,
    p2: __m256i,
    q3: __m256i,
    pre_lo: __m256i,
    pre_hi: __m256i,
    post_lo: __m256i,
    post_hi: __m256i,
    s1_pos: __m256i,
    nib: __m256i,
    s0_mask: __m256i,
    inv_shift_rows: __m256i,
    aes_key: __m128i,
    rol8: __m256i,
    rol16: __m256i,
    rol24: __m256i,
    p31: __m256i,
    gf_pre: __m256i,
    gf_post: __m256i,
}

impl Consts {
    #[inline(always)]
    unsafe fn new() -> Consts {
        // SAFETY: the caller enables AVX2; 16-byte loads from 16-byte arrays.
        unsafe {
            let t = |a: &[u8; 16]| _mm256_broadcastsi128_si256(_mm_loadu_si128(a.as_ptr().cast()));
            let per_word = |a: [i8; 4]| {
                let b = |i: i8| [a[0] + i, a[1] + i, a[2] + i, a[3] + i];
                let (w0, w1, w2, w3) = (b(0), b(4), b(8), b(12));
                _mm256_setr_epi8(
                    w0[0], w0[1], w0[2], w0[3], w1[0], w1[1], w1[2], w1[3], w2[0], w2[1], w2[2], w2[3], w3[0], w3[1],
                    w3[2], w3[3], w0[0], w0[1], w0[2], w0[3], w1[0], w1[1], w1[2], w1[3], w2[0], w2[1], w2[2], w2[3],
                    w3[0], w3[1], w3[2], w3[3],
                )
            };
            Consts {
                p1: t(&P1),
                p2: t(&P2),
                q3: t(&Q3),
                pre_lo: t(&PRE_LO),
                pre_hi: t(&PRE_HI),
                post_lo: t(&POST_LO),
                post_hi: t(&POST_HI),
                s1_pos: t(&S1_POS),
                nib: _mm256_set1_epi8(0x0f),
                s0_mask: _mm256_set1_epi16(0xff00u16 as i16),
                // AESENCLAST's ShiftRows moves input byte SR[i] to position i;
                // feeding it the bytes permuted by SR's inverse leaves each
                // S-box output where its input was.
                inv_shift_rows: t(&[0, 13, 10, 7, 4, 1, 14, 11, 8, 5, 2, 15, 12, 9, 6, 3]),
                // as in x86/stream.rs: cancels SubBytes' 0x63 and adds POST⁻¹(0x55)
                aes_key: _mm_set1_epi8(0xeeu8 as i8),
                rol8: per_word([3, 0, 1, 2]),
                rol16: per_word([2, 3, 0, 1]),
                rol24: per_word([1, 2, 3, 0]),
                p31: _mm256_set1_epi32(0x7fff_ffff),
                gf_pre: _mm256_set1_epi64x(GFNI_S1_PRE as i64),
                gf_post: _mm256_set1_epi64x(GFNI_S1_POST as i64),
            }
        }
    }
}

/// S0/S1 on the bytes of eight words (S1 on the even bytes, S0 on the odd);
/// with `G`, S1 by GFNI (see x86/lanes16.rs) instead of AES-NI.
#[inline(always)]
unsafe fn sbox<const G: bool>(k: &Consts, x: __m256i) -> __m256i {
    if G {
        // SAFETY: the caller enables AVX2 and GFNI.
        return unsafe {
            let s1 = _mm256_gf2p8affineinv_epi64_epi8::<GFNI_S1_C>(
                _mm256_gf2p8affine_epi64_epi8::<0>(x, k.gf_pre),
                k.gf_post,
            );
            let lo = _mm256_and_si256(x, k.nib);
            let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(x), k.nib);
            let t2 = _mm256_xor_si256(_mm256_shuffle_epi8(k.p1, lo), hi);
            let t1 = _mm256_xor_si256(_mm256_shuffle_epi8(k.p2, t2), lo);
            let s0 = _mm256_xor_si256(_mm256_shuffle_epi8(k.q3, t1), _mm256_add_epi8(t2, t2));
            _mm256_blendv_epi8(s1, s0, k.s0_mask)
        };
    }
    // SAFETY: the caller enables AVX2 and AES-NI.
    unsafe {
        let lo = _mm256_and_si256(x, k.nib);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(x), k.nib);
        // S1 first (the longer path; see x86.rs)
        let pre = _mm256_xor_si256(_mm256_shuffle_epi8(k.pre_lo, lo), _mm256_shuffle_epi8(k.pre_hi, hi));
        let pre = _mm256_shuffle_epi8(pre, k.inv_shift_rows);
        let o0 = _mm_aesenclast_si128(_mm256_castsi256_si128(pre), k.aes_key);
        let o1 = _mm_aesenclast_si128(_mm256_extracti128_si256::<1>(pre), k.aes_key);
        let o = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(o0), o1);
        // S0
        let t2 = _mm256_xor_si256(_mm256_shuffle_epi8(k.p1, lo), hi);
        let t1 = _mm256_xor_si256(_mm256_shuffle_epi8(k.p2, t2), lo);
        let s0 = _mm256_xor_si256(_mm256_shuffle_epi8(k.q3, t1), _mm256_add_epi8(t2, t2));
        let s0 = _mm256_and_si256(s0, k.s0_mask);
        let olo = _mm256_and_si256(o, k.s1_pos);
        let ohi = _mm256_and_si256(_mm256_srli_epi16::<4>(o), k.s1_pos);
        _mm256_xor_si256(s0, _mm256_xor_si256(_mm256_shuffle_epi8(k.post_lo, olo), _mm256_shuffle_epi8(k.post_hi, ohi)))
    }
}

/// x · 2^K mod (2^31 - 1) for x in [0, 2^31 - 1]: a 31-bit rotation (R = 31 - K).
#[inline(always)]
unsafe fn mul_pow2<const K: i32, const R: i32>(k: &Consts, x: __m256i) -> __m256i {
    // SAFETY: the caller enables AVX2.
    unsafe { _mm256_or_si256(_mm256_and_si256(_mm256_slli_epi32::<K>(x), k.p31), _mm256_srli_epi32::<R>(x)) }
}

/// a + b mod (2^31 - 1) for a, b in [0, 2^31 - 1], result in [0, 2^31 - 1]
/// (and nonzero unless a = b = 0: 2^31 - 1 stands for 0, as ZUC wants).
#[inline(always)]
unsafe fn add_mod(k: &Consts, a: __m256i, b: __m256i) -> __m256i {
    // SAFETY: the caller enables AVX2.
    unsafe {
        let t = _mm256_add_epi32(a, b);
        _mm256_add_epi32(_mm256_and_si256(t, k.p31), _mm256_srli_epi32::<31>(t))
    }
}

/// One clock of all eight streams: cell j is `s[t + j]`, the new cell goes
/// to `s[t + 16]` (a linear buffer, so that addresses are constant offsets
/// from the loop's position). Returns the keystream word Z (work mode) or W
/// (initialisation mode, where W >> 1 also enters the LFSR).
#[inline(always)]
unsafe fn step<const INIT: bool, const G: bool>(
    k: &Consts,
    s: &mut [__m256i; 32],
    t: usize,
    r1: &mut __m256i,
    r2: &mut __m256i,
) -> __m256i {
    debug_assert!(t < 16);
    // SAFETY: the caller enables AVX2 and AES-NI.
    unsafe {
        let c = |j: usize| s[t + j];
        // Bit reorganisation (cells are below 2^31).
        let x0 = _mm256_blend_epi16::<0xaa>(c(14), _mm256_slli_epi32::<1>(c(15)));
        let x1 = _mm256_or_si256(_mm256_slli_epi32::<16>(c(11)), _mm256_srli_epi32::<15>(c(9)));
        let x2 = _mm256_or_si256(_mm256_slli_epi32::<16>(c(7)), _mm256_srli_epi32::<15>(c(5)));
        let x3 = _mm256_or_si256(_mm256_slli_epi32::<16>(c(2)), _mm256_srli_epi32::<15>(c(0)));
        // F
        let w = _mm256_add_epi32(_mm256_xor_si256(x0, *r1), *r2);
        let w1 = _mm256_add_epi32(*r1, x1);
        let w2 = _mm256_xor_si256(*r2, x2);
        // u = W1 << 16 | W2 >> 16 = rol16(m), v = W2 << 16 | W1 >> 16 = rol16(n)
        let m = _mm256_blend_epi16::<0xaa>(w1, w2);
        let n = _mm256_blend_epi16::<0xaa>(w2, w1);
        // L1(u) = u ^ rol24(u) ^ rol2(u ^ rol8(u) ^ rol16(u)), with rol_j(u) = rol_(j+16)(m)
        let u = _mm256_shuffle_epi8(m, k.rol16);
        let y = _mm256_xor_si256(_mm256_xor_si256(u, _mm256_shuffle_epi8(m, k.rol24)), m);
        let l1 = _mm256_xor_si256(
            _mm256_xor_si256(u, _mm256_shuffle_epi8(m, k.rol8)),
            _mm256_xor_si256(_mm256_slli_epi32::<2>(y), _mm256_srli_epi32::<30>(y)),
        );
        // L2(v) = v ^ rol8(v) ^ rol6(rol8(v) ^ rol16(v) ^ rol24(v))
        let v = _mm256_shuffle_epi8(n, k.rol16);
        let v8 = _mm256_shuffle_epi8(n, k.rol24);
        let y = _mm256_xor_si256(_mm256_xor_si256(v8, n), _mm256_shuffle_epi8(n, k.rol8));
        let l2 = _mm256_xor_si256(
            _mm256_xor_si256(v, v8),
            _mm256_xor_si256(_mm256_slli_epi32::<6>(y), _mm256_srli_epi32::<26>(y)),
        );
        *r1 = sbox::<G>(k, l1);
        *r2 = sbox::<G>(k, l2);
        // LFSR: 2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1 + 2^8) s0 (+ W >> 1)
        let a = add_mod(k, mul_pow2::<15, 16>(k, c(15)), mul_pow2::<17, 14>(k, c(13)));
        let b = add_mod(k, mul_pow2::<21, 10>(k, c(10)), mul_pow2::<20, 11>(k, c(4)));
        let d = add_mod(k, mul_pow2::<8, 23>(k, c(0)), c(0));
        let mut next = add_mod(k, add_mod(k, a, b), d);
        if INIT {
            next = add_mod(k, next, _mm256_srli_epi32::<1>(w));
        }
        s[t + 16] = next;
        if INIT {
            w
        } else {
            _mm256_xor_si256(w, x3)
        }
    }
}

/// Transposes eight rows of eight words (row r, lane l) into `out[l][at..at + 8]`.
#[inline(always)]
unsafe fn transpose_store(z: &[__m256i], out: &mut [[u32; BLOCK]; LANES], at: usize) {
    debug_assert!(z.len() == 8 && at + 8 <= BLOCK);
    // SAFETY: the caller enables AVX2; each store writes out[l][at..at + 8].
    unsafe {
        let t0 = _mm256_unpacklo_epi32(z[0], z[1]);
        let t1 = _mm256_unpackhi_epi32(z[0], z[1]);
        let t2 = _mm256_unpacklo_epi32(z[2], z[3]);
        let t3 = _mm256_unpackhi_epi32(z[2], z[3]);
        let t4 = _mm256_unpacklo_epi32(z[4], z[5]);
        let t5 = _mm256_unpackhi_epi32(z[4], z[5]);
        let t6 = _mm256_unpacklo_epi32(z[6], z[7]);
        let t7 = _mm256_unpackhi_epi32(z[6], z[7]);
        // u_j: lanes j (low half) and j + 4 (high half) of rows 0..3 / 4..7
        let u = [
            _mm256_unpacklo_epi64(t0, t2),
            _mm256_unpackhi_epi64(t0, t2),
            _mm256_unpacklo_epi64(t1, t3),
            _mm256_unpackhi_epi64(t1, t3),
        ];
        let v = [
            _mm256_unpacklo_epi64(t4, t6),
            _mm256_unpackhi_epi64(t4, t6),
            _mm256_unpacklo_epi64(t5, t7),
            _mm256_unpackhi_epi64(t5, t7),
        ];
        for j in 0..4 {
            let lo = _mm256_permute2x128_si256::<0x20>(u[j], v[j]);
            let hi = _mm256_permute2x128_si256::<0x31>(u[j], v[j]);
            _mm256_storeu_si256(out[j].as_mut_ptr().add(at).cast(), lo);
            _mm256_storeu_si256(out[j + 4].as_mut_ptr().add(at).cast(), hi);
        }
    }
}

/// `dst = src ^` the keystream `words` written big-endian (`src` and
/// `dst` the same length, at most 4·[`BLOCK`] bytes); the token proves AVX2.
pub(crate) fn xor_be(_t: AesAvx2, words: &[u32; BLOCK], src: &[u8], dst: &mut [u8]) {
    // SAFETY: the token proves AVX2.
    unsafe { xor_be_avx2(words, src, dst) }
}

/// `dst = src ^ keystream` with the keystream words written big-endian;
/// `src` and `dst` have the same length, at most 4 · [`BLOCK`] bytes.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn xor_be_avx2(words: &[u32; BLOCK], src: &[u8], dst: &mut [u8]) {
    let n = src.len();
    assert!(n == dst.len() && n <= 4 * BLOCK);
    let mut k = 0;
    // SAFETY: AVX2 is enabled; loads and stores cover bytes k..k+32 <= n of
    // src and dst, and words k/4 .. k/4+8 <= BLOCK.
    unsafe {
        let bswap = _mm256_setr_epi8(
            3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12, 3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12,
        );
        while k + 32 <= n {
            let z = _mm256_shuffle_epi8(_mm256_loadu_si256(words.as_ptr().add(k / 4).cast()), bswap);
            let d = _mm256_xor_si256(_mm256_loadu_si256(src.as_ptr().add(k).cast()), z);
            _mm256_storeu_si256(dst.as_mut_ptr().add(k).cast(), d);
            k += 32;
        }
    }
    for b in k..n {
        dst[b] = src[b] ^ words[b / 4].to_be_bytes()[b % 4];
    }
}

impl Lanes {
    /// ZUC-128 key/IV loading and initialisation of eight streams, S1 as
    /// `sbox` says.
    pub(crate) fn new_128(sbox: Sbox, keys: &[[u8; 16]; LANES], ivs: &[[u8; 16]; LANES]) -> Lanes {
        // SAFETY: `sbox`'s tokens prove the features of the function called.
        unsafe {
            match sbox {
                Sbox::Gfni(..) => Lanes::new_128_gfni(keys, ivs),
                Sbox::Aesni(_) => Lanes::new_128_aes(keys, ivs),
            }
        }
    }

    #[target_feature(enable = "avx2,aes")]
    unsafe fn new_128_aes(keys: &[[u8; 16]; LANES], ivs: &[[u8; 16]; LANES]) -> Lanes {
        // SAFETY: same features as this function.
        unsafe { Lanes::new_128_with::<false>(keys, ivs) }
    }

    #[target_feature(enable = "avx2,aes,gfni")]
    unsafe fn new_128_gfni(keys: &[[u8; 16]; LANES], ivs: &[[u8; 16]; LANES]) -> Lanes {
        // SAFETY: same features as this function.
        unsafe { Lanes::new_128_with::<true>(keys, ivs) }
    }

    #[inline(always)]
    unsafe fn new_128_with<const G: bool>(keys: &[[u8; 16]; LANES], ivs: &[[u8; 16]; LANES]) -> Lanes {
        let mut lanes = Lanes { cells: [[0; LANES]; 16], r1: [0; LANES], r2: [0; LANES] };
        for (i, cell) in lanes.cells.iter_mut().enumerate() {
            for (l, c) in cell.iter_mut().enumerate() {
                *c = ((keys[l][i] as u32) << 23) | (D128[i] << 8) | ivs[l][i] as u32;
            }
        }
        // SAFETY: features enabled on this function; loads/stores of 8-word rows.
        unsafe {
            let k = Consts::new();
            let mut s = lanes.load();
            let mut r1 = _mm256_setzero_si256();
            let mut r2 = _mm256_setzero_si256();
            for _ in 0..2 {
                for t in 0..16 {
                    step::<true, G>(&k, &mut s, t, &mut r1, &mut r2);
                }
                s.copy_within(16..32, 0);
            }
            // One work-mode clock whose output is discarded.
            step::<false, G>(&k, &mut s, 0, &mut r1, &mut r2);
            s.copy_within(1..17, 0);
            lanes.store(&s, r1, r2);
            // the stack copies hold key-derived state
            s.zeroize();
            r1.zeroize();
            r2.zeroize();
        }
        lanes
    }

    #[target_feature(enable = "avx2")]
    unsafe fn load(&self) -> [__m256i; 32] {
        let mut s = [_mm256_setzero_si256(); 32];
        for (v, row) in s.iter_mut().zip(&self.cells) {
            // SAFETY: AVX2 enabled; the load reads one 8-word row.
            *v = unsafe { _mm256_loadu_si256(row.as_ptr().cast()) };
        }
        s
    }

    #[target_feature(enable = "avx2")]
    unsafe fn store(&mut self, s: &[__m256i; 32], r1: __m256i, r2: __m256i) {
        // SAFETY: AVX2 enabled; each store writes one 8-word row.
        unsafe {
            for (row, v) in self.cells.iter_mut().zip(s) {
                _mm256_storeu_si256(row.as_mut_ptr().cast(), *v);
            }
            _mm256_storeu_si256(self.r1.as_mut_ptr().cast(), r1);
            _mm256_storeu_si256(self.r2.as_mut_ptr().cast(), r2);
        }
    }

    /// The next [`BLOCK`] keystream words of every stream: `out[l][i]` is
    /// word i of lane l. `sbox` as for [`Lanes::new_128`].
    pub(crate) fn block(&mut self, sbox: Sbox, out: &mut [[u32; BLOCK]; LANES]) {
        // SAFETY: `sbox`'s tokens prove the features of the function called.
        unsafe {
            match sbox {
                Sbox::Gfni(..) => self.block_gfni(out),
                Sbox::Aesni(_) => self.block_aes(out),
            }
        }
    }

    #[target_feature(enable = "avx2,aes")]
    unsafe fn block_aes(&mut self, out: &mut [[u32; BLOCK]; LANES]) {
        // SAFETY: same features as this function.
        unsafe { self.block_with::<false>(out) }
    }

    #[target_feature(enable = "avx2,aes,gfni")]
    unsafe fn block_gfni(&mut self, out: &mut [[u32; BLOCK]; LANES]) {
        // SAFETY: same features as this function.
        unsafe { self.block_with::<true>(out) }
    }

    #[inline(always)]
    unsafe fn block_with<const G: bool>(&mut self, out: &mut [[u32; BLOCK]; LANES]) {
        // SAFETY: features enabled on this function.
        unsafe {
            let k = Consts::new();
            let mut s = self.load();
            let mut r1 = _mm256_loadu_si256(self.r1.as_ptr().cast());
            let mut r2 = _mm256_loadu_si256(self.r2.as_ptr().cast());
            let mut z = [_mm256_setzero_si256(); BLOCK];
            for (t, zt) in z.iter_mut().enumerate() {
                *zt = step::<false, G>(&k, &mut s, t, &mut r1, &mut r2);
            }
            s.copy_within(16..32, 0);
            self.store(&s, r1, r2);
            transpose_store(&z[..8], out, 0);
            transpose_store(&z[8..], out, 8);
            z.zeroize();
            s.zeroize();
            r1.zeroize();
            r2.zeroize();
        }
    }

    /// [`Lanes::block`] on two independent sets of eight streams at once:
    /// their instructions interleave, so each set's latency (the F chain and
    /// the LFSR's own chain) overlaps the other's work.
    pub(crate) fn block_pair(
        sbox: Sbox,
        a: &mut Lanes,
        b: &mut Lanes,
        out_a: &mut [[u32; BLOCK]; LANES],
        out_b: &mut [[u32; BLOCK]; LANES],
    ) {
        // SAFETY: `sbox`'s tokens prove the features of the function called.
        unsafe {
            match sbox {
                Sbox::Gfni(..) => Lanes::block_pair_gfni(a, b, out_a, out_b),
                Sbox::Aesni(_) => Lanes::block_pair_aes(a, b, out_a, out_b),
            }
        }
    }

    #[target_feature(enable = "avx2,aes")]
    unsafe fn block_pair_aes(
        a: &mut Lanes,
        b: &mut Lanes,
        oa: &mut [[u32; BLOCK]; LANES],
        ob: &mut [[u32; BLOCK]; LANES],
    ) {
        // SAFETY: same features as this function.
        unsafe { Lanes::block_pair_with::<false>(a, b, oa, ob) }
    }

    #[target_feature(enable = "avx2,aes,gfni")]
    unsafe fn block_pair_gfni(
        a: &mut Lanes,
        b: &mut Lanes,
        oa: &mut [[u32; BLOCK]; LANES],
        ob: &mut [[u32; BLOCK]; LANES],
    ) {
        // SAFETY: same features as this function.
        unsafe { Lanes::block_pair_with::<true>(a, b, oa, ob) }
    }

    #[inline(always)]
    unsafe fn block_pair_with<const G: bool>(
        a: &mut Lanes,
        b: &mut Lanes,
        out_a: &mut [[u32; BLOCK]; LANES],
        out_b: &mut [[u32; BLOCK]; LANES],
    ) {
        // SAFETY: features enabled on this function.
        unsafe {
            let k = Consts::new();
            let mut sa = a.load();
            let mut sb = b.load();
            let mut ra1 = _mm256_loadu_si256(a.r1.as_ptr().cast());
            let mut ra2 = _mm256_loadu_si256(a.r2.as_ptr().cast());
            let mut rb1 = _mm256_loadu_si256(b.r1.as_ptr().cast());
            let mut rb2 = _mm256_loadu_si256(b.r2.as_ptr().cast());
            let mut za = [_mm256_setzero_si256(); BLOCK];
            let mut zb = [_mm256_setzero_si256(); BLOCK];
            for t in 0..BLOCK {
                za[t] = step::<false, G>(&k, &mut sa, t, &mut ra1, &mut ra2);
                zb[t] = step::<false, G>(&k, &mut sb, t, &mut rb1, &mut rb2);
            }
            sa.copy_within(16..32, 0);
            sb.copy_within(16..32, 0);
            a.store(&sa, ra1, ra2);
            b.store(&sb, rb1, rb2);
            transpose_store(&za[..8], out_a, 0);
            transpose_store(&za[8..], out_a, 8);
            transpose_store(&zb[..8], out_b, 0);
            transpose_store(&zb[8..], out_b, 8);
            for z in [&mut za, &mut zb] {
                z.zeroize();
            }
            for s in [&mut sa, &mut sb] {
                s.zeroize();
            }
            for r in [&mut ra1, &mut ra2, &mut rb1, &mut rb2] {
                r.zeroize();
            }
        }
    }
}
