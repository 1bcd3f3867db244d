//! SM4-CBC encryption on AES-NI or GFNI with the shortest dependency chain
//! per round: each block needs the previous ciphertext, so CBC encryption runs
//! at the latency of 32 rounds, not at the throughput of the bulk engines.
//!
//! The AES-NI S-box is `post(aesenclast(pre(x)))` with byte-wise affine
//! maps `pre` and `post` (see `sbox.rs`). The plain one-block round
//! (`xmm.rs`) computes, in order, `pre` (nibble lookups), `aesenclast`,
//! `post` (nibble lookups) and L (rotations), each waiting for the one
//! before. Here:
//!
//! * the state words are kept in the domain of `pre`'s linear part `lin`
//!   (a byte-wise linear bijection), so a round's S-box input is
//!   `X1 ⊕ X2 ⊕ X3 ⊕ RK'` with `RK' = lin(rk) ⊕ pre(0)`: no lookups before
//!   `aesenclast`;
//! * `lin ∘ L ∘ post` is folded into byte-wise tables: writing
//!   `Y = post(z)`, `a(Y) = Y << 2` and `b(Y) = Y >> 6` per byte (the two
//!   halves of the 2-bit rotation), L(Y) = [Y ⊕ a] ⊕ R8[a ⊕ b] ⊕
//!   R16[a ⊕ b] ⊕ R24[Y ⊕ b] with R8..R24 the byte rotations of the word,
//!   and `lin` commutes with byte rotations. So the round's output is three
//!   byte maps of `z` (six nibble lookups), byte-rotated and XORed: one
//!   lookup deep instead of two plus the shifts;
//! * the next round's input needs the new word only as the last XOR term,
//!   so the other three terms are combined while `aesenclast` runs.
//!
//! All four 32-bit lanes of a register hold the same word (as on the
//! plain one-block path), which makes AES's ShiftRows the identity and a
//! byte rotation of every word a rotation of the whole register.
//! Plaintexts enter the domain with `lin`, ciphertexts leave it with `lin⁻¹`,
//! both off the chain; the chaining value stays in the domain.
//!
//! With GFNI the same folding holds with `gf2p8affineinvqb` in place of
//! `aesenclast` and the lookups: it returns `M·v + c` for the AES-field
//! inverse `v` of the round input and any byte-wise affine map, so the three
//! folded maps are three instructions on the round input, one deep.
//!
//! Constant time: registers, `pshufb` lookups and GFNI affine maps only, no
//! branch, memory addressed only by the public block index.

use core::arch::x86_64::*;

use super::sbox::{aes_post, aes_pre, lin, lin_inv, nibble_tables, H0_Q, H1_Q, H3_Q, LIN_INV_Q, LIN_Q};
use crate::cpu;

/// Byte-wise parts of `lin ∘ L ∘ post` (module comment): g0 for the
/// unrotated word, g1 for R8 and R16, g3 for R24.
const fn g0(z: u8) -> u8 {
    let y = aes_post(z);
    lin(y ^ (y << 2))
}
const fn g1(z: u8) -> u8 {
    let y = aes_post(z);
    lin((y << 2) ^ (y >> 6))
}
const fn g3(z: u8) -> u8 {
    let y = aes_post(z);
    lin(y ^ (y >> 6))
}

const LIN: ([u8; 16], [u8; 16]) = nibble_tables!(lin);
const LIN_INV: ([u8; 16], [u8; 16]) = nibble_tables!(lin_inv);
const G0: ([u8; 16], [u8; 16]) = nibble_tables!(g0);
const G1: ([u8; 16], [u8; 16]) = nibble_tables!(g1);
const G3: ([u8; 16], [u8; 16]) = nibble_tables!(g3);

#[inline(always)]
fn load(t: &[u8; 16]) -> __m128i {
    // SAFETY: a 16-byte unaligned load from a valid array (SSE2 baseline).
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

#[inline(always)]
fn tables(t: &([u8; 16], [u8; 16])) -> (__m128i, __m128i) {
    (load(&t.0), load(&t.1))
}

/// The byte map with nibble tables `t` applied to every byte of `x`.
///
/// # Safety
/// The CPU must have SSSE3.
#[inline(always)]
unsafe fn nibbles(x: __m128i, m: __m128i, t: (__m128i, __m128i)) -> __m128i {
    // SAFETY: SSSE3 per the contract.
    unsafe {
        let lo = _mm_and_si128(x, m);
        let hi = _mm_and_si128(_mm_srli_epi16::<4>(x), m);
        _mm_xor_si128(_mm_shuffle_epi8(t.0, lo), _mm_shuffle_epi8(t.1, hi))
    }
}

/// Word i of a block (big-endian bytes 4i..4i+4) broadcast to every lane
/// as a little-endian u32.
///
/// # Safety
/// The CPU must have SSSE3.
#[inline(always)]
unsafe fn split(b: __m128i) -> [__m128i; 4] {
    // SAFETY: SSSE3 per the contract.
    unsafe {
        [
            _mm_shuffle_epi8(b, _mm_setr_epi8(3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0, 3, 2, 1, 0)),
            _mm_shuffle_epi8(b, _mm_setr_epi8(7, 6, 5, 4, 7, 6, 5, 4, 7, 6, 5, 4, 7, 6, 5, 4)),
            _mm_shuffle_epi8(b, _mm_setr_epi8(11, 10, 9, 8, 11, 10, 9, 8, 11, 10, 9, 8, 11, 10, 9, 8)),
            _mm_shuffle_epi8(b, _mm_setr_epi8(15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12, 15, 14, 13, 12)),
        ]
    }
}

/// The inverse of [`split`]: four broadcast words back into one block.
///
/// # Safety
/// The CPU must have SSSE3 and SSE4.1.
#[inline(always)]
unsafe fn gather(w: [__m128i; 4]) -> __m128i {
    // SAFETY: SSSE3 and SSE4.1 per the contract.
    unsafe {
        let w01 = _mm_blend_epi16::<0b0000_1100>(w[0], w[1]);
        let w23 = _mm_blend_epi16::<0b1100_0000>(w[2], w[3]);
        let bswap = _mm_setr_epi8(3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12);
        _mm_shuffle_epi8(_mm_blend_epi16::<0b1111_0000>(w01, w23), bswap)
    }
}

/// The byte maps of a round: into and out of the domain, and the three
/// folded output maps of the round input `u` (h0/g0, h1/g1, h3/g3).
///
/// # Safety
/// Implementations use instructions their constructor's caller proved.
trait Maps: Copy {
    unsafe fn into(self, x: __m128i) -> __m128i;
    unsafe fn out(self, x: __m128i) -> __m128i;
    unsafe fn maps(self, u: __m128i) -> [__m128i; 3];
}

/// AES-NI: `aesenclast` with a zero key (ShiftRows is the identity on equal
/// lanes), then nibble lookups; the domain changes are nibble lookups too.
#[derive(Clone, Copy)]
struct AesMaps {
    m: __m128i,
    lin: (__m128i, __m128i),
    lin_inv: (__m128i, __m128i),
    g: [(__m128i, __m128i); 3],
}

impl Maps for AesMaps {
    #[inline(always)]
    unsafe fn into(self, x: __m128i) -> __m128i {
        // SAFETY: SSSE3 (trait contract).
        unsafe { nibbles(x, self.m, self.lin) }
    }
    #[inline(always)]
    unsafe fn out(self, x: __m128i) -> __m128i {
        // SAFETY: as above.
        unsafe { nibbles(x, self.m, self.lin_inv) }
    }
    #[inline(always)]
    unsafe fn maps(self, u: __m128i) -> [__m128i; 3] {
        // SAFETY: AES-NI and SSSE3 (trait contract).
        unsafe {
            let z = _mm_aesenclast_si128(u, _mm_setzero_si128());
            let lo = _mm_and_si128(z, self.m);
            let hi = _mm_and_si128(_mm_srli_epi16::<4>(z), self.m);
            let look = |t: (__m128i, __m128i)| _mm_xor_si128(_mm_shuffle_epi8(t.0, lo), _mm_shuffle_epi8(t.1, hi));
            [look(self.g[0]), look(self.g[1]), look(self.g[2])]
        }
    }
}

/// GFNI: three `gf2p8affineinvqb` of the round input (one instruction deep
/// on the chain); the domain changes are `gf2p8affineqb`.
#[derive(Clone, Copy)]
struct GfniMaps {
    lin: __m128i,
    lin_inv: __m128i,
    h: [__m128i; 3],
}

impl Maps for GfniMaps {
    #[inline(always)]
    unsafe fn into(self, x: __m128i) -> __m128i {
        const { assert!(LIN_Q.1 == 0 && LIN_INV_Q.1 == 0) };
        // SAFETY: GFNI (trait contract).
        unsafe { _mm_gf2p8affine_epi64_epi8::<0>(x, self.lin) }
    }
    #[inline(always)]
    unsafe fn out(self, x: __m128i) -> __m128i {
        // SAFETY: as above.
        unsafe { _mm_gf2p8affine_epi64_epi8::<0>(x, self.lin_inv) }
    }
    #[inline(always)]
    unsafe fn maps(self, u: __m128i) -> [__m128i; 3] {
        // SAFETY: as above.
        unsafe {
            [
                _mm_gf2p8affineinv_epi64_epi8::<{ H0_Q.1 as i32 }>(u, self.h[0]),
                _mm_gf2p8affineinv_epi64_epi8::<{ H1_Q.1 as i32 }>(u, self.h[1]),
                _mm_gf2p8affineinv_epi64_epi8::<{ H3_Q.1 as i32 }>(u, self.h[2]),
            ]
        }
    }
}

/// The body of every entry point (inlined into each, so VEX encoding is
/// used where the entry point enables AVX).
///
/// # Safety
/// The CPU must have SSSE3, SSE4.1 and what `f`'s instructions need.
#[inline(always)]
unsafe fn cbc_body<F: Maps>(f: F, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: SSSE3, SSE4.1 and F's features per the contract; every memory
    // access is a 16-byte access inside `iv`, a `chunks_exact` block of
    // `data` or a local array.
    unsafe {
        let zero = _mm_setzero_si128();

        // RK'_i = lin(rk_i) ⊕ pre(0) in every byte, each word broadcast.
        let c1 = _mm_set1_epi8(aes_pre(0) as i8);
        let mut rkx = [zero; 32];
        for (i, r) in rk.chunks_exact(4).enumerate() {
            let v = _mm_set_epi32(r[3] as i32, r[2] as i32, r[1] as i32, r[0] as i32);
            let v = _mm_xor_si128(f.into(v), c1);
            rkx[4 * i] = _mm_shuffle_epi32::<0x00>(v);
            rkx[4 * i + 1] = _mm_shuffle_epi32::<0x55>(v);
            rkx[4 * i + 2] = _mm_shuffle_epi32::<0xaa>(v);
            rkx[4 * i + 3] = _mm_shuffle_epi32::<0xff>(v);
        }

        // The chaining value, in the domain, as broadcast words.
        let mut chain = split(f.into(_mm_loadu_si128(iv.as_ptr().cast())));
        for block in data.chunks_exact_mut(16) {
            let p = split(f.into(_mm_loadu_si128(block.as_ptr().cast())));
            let mut x = [
                _mm_xor_si128(p[0], chain[0]),
                _mm_xor_si128(p[1], chain[1]),
                _mm_xor_si128(p[2], chain[2]),
                _mm_xor_si128(p[3], chain[3]),
            ];
            let mut u = _mm_xor_si128(_mm_xor_si128(_mm_xor_si128(x[1], x[2]), x[3]), rkx[0]);
            // Round r replaces word i = r mod 4 (constant indices keep the
            // state in registers). The next input is formed from the three
            // words that are already known and, last, this round's maps.
            macro_rules! round {
                ($i:expr, $r:expr) => {{
                    let [a0, a1, a3] = f.maps(u);
                    // R8, R16, R24 of every lane: the register rotated by
                    // 1, 2, 3 bytes towards the top (all lanes are equal).
                    // Rotating the three maps' outputs rather than the
                    // nibble indices takes 10 shuffle-port µops a round on
                    // AES-NI, not 15.
                    let r24 = _mm_alignr_epi8::<13>(a3, a3);
                    let r816 = _mm_xor_si128(_mm_alignr_epi8::<15>(a1, a1), _mm_alignr_epi8::<14>(a1, a1));
                    let early = _mm_xor_si128(
                        _mm_xor_si128(_mm_xor_si128(x[$i], x[($i + 2) % 4]), x[($i + 3) % 4]),
                        rkx[($r + 1) % 32],
                    );
                    x[$i] = _mm_xor_si128(_mm_xor_si128(_mm_xor_si128(x[$i], a0), r24), r816);
                    u = _mm_xor_si128(_mm_xor_si128(_mm_xor_si128(early, a0), r24), r816);
                }};
            }
            for j in 0..8 {
                round!(0, 4 * j);
                round!(1, 4 * j + 1);
                round!(2, 4 * j + 2);
                round!(3, 4 * j + 3);
            }
            // The output block is (x35, x34, x33, x32) = (x[3], x[2], x[1], x[0]).
            chain = [x[3], x[2], x[1], x[0]];
            _mm_storeu_si128(block.as_mut_ptr().cast(), f.out(gather(chain)));
        }
        if let Some(last) = data.chunks_exact(16).next_back() {
            iv.copy_from_slice(last);
        }
        // The expanded round keys are secret: clear the stack copy.
        for r in rkx.iter_mut() {
            core::ptr::write_volatile(r, zero);
        }
    }
}

/// The AES-NI maps (the caller must have SSSE3).
#[inline(always)]
unsafe fn aes_maps() -> AesMaps {
    // SAFETY: SSE2 loads and sets only.
    unsafe {
        AesMaps {
            m: _mm_set1_epi8(0x0f),
            lin: tables(&LIN),
            lin_inv: tables(&LIN_INV),
            g: [tables(&G0), tables(&G1), tables(&G3)],
        }
    }
}

/// The GFNI maps.
#[inline(always)]
fn gfni_maps() -> GfniMaps {
    // SAFETY: SSE2 is baseline on x86-64.
    unsafe {
        let q = |m: (u64, u8)| _mm_set1_epi64x(m.0 as i64);
        GfniMaps { lin: q(LIN_Q), lin_inv: q(LIN_INV_Q), h: [q(H0_Q), q(H1_Q), q(H3_Q)] }
    }
}

/// CBC encryption in place over whole blocks (`data.len()` a multiple of
/// 16, checked by the caller); `iv` becomes the last ciphertext block.
#[target_feature(enable = "aes,ssse3,sse4.1")]
pub(super) fn cbc_encrypt_sse(_t: cpu::AesSse, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves AES-NI, SSSE3 and SSE4.1.
    unsafe { cbc_body(aes_maps(), rk, iv, data) }
}

/// [`cbc_encrypt_sse`] with VEX encoding (three-operand forms, fewer moves).
#[target_feature(enable = "aes,ssse3,sse4.1,avx,avx2")]
pub(super) fn cbc_encrypt_avx<T: super::AesAvxToken>(_t: T, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves AES-NI, SSSE3, SSE4.1 and AVX.
    unsafe { cbc_body(aes_maps(), rk, iv, data) }
}

/// CBC encryption in place over whole blocks with GFNI on xmm registers
/// (VEX encoding); as [`cbc_encrypt_sse`] otherwise.
#[target_feature(enable = "gfni,ssse3,sse4.1,avx,avx2")]
pub(super) fn cbc_encrypt_gfni(_t: cpu::GfniAvx2, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves GFNI and AVX2 (which implies SSSE3, SSE4.1).
    unsafe { cbc_body(gfni_maps(), rk, iv, data) }
}

/// [`cbc_encrypt_gfni`] with AVX-512VL (three-way XORs as `vpternlogd`).
#[target_feature(enable = "gfni,ssse3,sse4.1,avx,avx2,avx512f,avx512vl")]
pub(super) fn cbc_encrypt_gfni_vl(_t: cpu::GfniAvx512, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves GFNI, AVX2 and AVX-512F/VL.
    unsafe { cbc_body(gfni_maps(), rk, iv, data) }
}
