//! SM4 with AES-NI and AVX-512 (F, BW, VL) on x86-64.
//!
//! The SM4 S-box is `post(AES_SubBytes(pre(x)))` for two affine byte maps
//! derived in [`super::sbox`]. `pre`/`post` are evaluated with `pshufb` on the
//! two nibbles of each byte (a register permute: no memory access depends on
//! data), SubBytes with `aesenclast` (zero round key), whose built-in
//! ShiftRows is undone by one more `pshufb`.
//!
//! A group of sixteen blocks is four zmm registers holding word j of each of
//! the 16 blocks (a 4x4 word transpose inside every 128-bit lane), so one
//! round is one S-box pass over a zmm (four `aesenclast`), the rotations of L
//! are `vprold`, and XORs of three terms are `vpternlogd`; the round key is
//! folded into the pre-affine map ([`PreKeys`]). The bulk paths interleave
//! [`GROUPS`] groups round by round.
//!
//! Every entry point is safe and takes the [`cpu::AesAvx512`] token.
//!
//! Without VAES, `aesenclast` only reaches the low 128-bit lane, and the
//! kernel is bound by ports 0 and 5 (Skylake-SP runs 512-bit integer ops on
//! those two only): per group and round about 28 such uops (4 `aesenclast`,
//! 5 `pshufb`, 4 `vprold`, 2 shifts, 3 lane inserts, 10 logic ops). Lane
//! extraction goes through a stack slot (store and load ports) instead.
//! `llvm-mca -mcpu=skylake-avx512` on `rounds` is a steadier guide than
//! wall time on a shared machine.

use core::arch::x86_64::*;

use super::consts::{BSWAP32, INV_SHIFT_ROWS};
use super::sbox::{POST_TABLES, PRE_TABLES};
use crate::cpu;

#[derive(Clone, Copy)]
struct K512 {
    m0f: __m512i,
    pre_lo: __m512i,
    pre_hi: __m512i,
    post_lo: __m512i,
    post_hi: __m512i,
    inv_sr: __m512i,
    bswap: __m512i,
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn bcast(t: &[u8; 16]) -> __m512i {
    // SAFETY: `t` is 16 readable bytes; unaligned load is allowed.
    let x = unsafe { _mm_loadu_si128(t.as_ptr().cast()) };
    _mm512_broadcast_i32x4(x)
}

#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn consts512() -> K512 {
    K512 {
        m0f: _mm512_set1_epi8(0x0f),
        pre_lo: bcast(&PRE_TABLES.0),
        pre_hi: bcast(&PRE_TABLES.1),
        post_lo: bcast(&POST_TABLES.0),
        post_hi: bcast(&POST_TABLES.1),
        inv_sr: bcast(&INV_SHIFT_ROWS),
        bswap: bcast(&BSWAP32),
    }
}

/// `f(x) = lo[x & 15] ^ hi[x >> 4]` on every byte.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn affine512(x: __m512i, lo: __m512i, hi: __m512i, m0f: __m512i) -> __m512i {
    let l = _mm512_and_si512(x, m0f);
    let h = _mm512_and_si512(_mm512_srli_epi16::<4>(x), m0f);
    _mm512_xor_si512(_mm512_shuffle_epi8(lo, l), _mm512_shuffle_epi8(hi, h))
}

/// Scratch for moving the three upper 128-bit lanes of a zmm to where the
/// xmm-only `aesenclast` can reach them. It holds S-box inputs (secret):
/// [`rounds`] wipes it when done.
#[repr(C, align(64))]
struct Lanes([__m128i; 4]);

impl Lanes {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn wipe(&mut self) {
        // SAFETY: 64 writable, 64-aligned bytes; volatile so the wipe of a
        // buffer that is not read again is not optimised away.
        unsafe { core::ptr::write_volatile(self.0.as_mut_ptr().cast::<__m512i>(), _mm512_setzero_si512()) };
    }
}

/// Round keys pushed through the linear part of the pre-affine map, so that
/// the key XOR of every round rides in the affine map's final XOR:
/// `pre(t ^ rk) = lo[t & 15] ^ hi[t >> 4] ^ (pre(rk) ^ c)` where `c =
/// pre(0)` is the map's constant (`pre` is affine). Zeroized on drop.
struct PreKeys([u32; 32]);

impl Drop for PreKeys {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

#[target_feature(enable = "avx512f,avx512bw")]
fn pre_keys(rk: &[u32; 32], k: &K512) -> PreKeys {
    let mut out = PreKeys([0; 32]);
    // pre(0) is lo[0] (hi[0] is 0): the constant to cancel.
    let c = _mm512_set1_epi8(PRE_TABLES.0[0] as i8);
    for (src, dst) in rk.chunks_exact(16).zip(out.0.chunks_exact_mut(16)) {
        // SAFETY: 16 u32 = 64 readable/writable bytes each; unaligned access.
        unsafe {
            let v = _mm512_loadu_si512(src.as_ptr().cast());
            let w = _mm512_xor_si512(affine512(v, k.pre_lo, k.pre_hi, k.m0f), c);
            _mm512_storeu_si512(dst.as_mut_ptr().cast(), w);
        }
    }
    out
}

/// `T(t ^ rk)` on all 64 bytes (the SM4 S-box, then L), given `t` and the
/// broadcast pre-key `pk` of the round.
///
/// Constant time by construction: only register permutes (`pshufb` with
/// data as the index, not as an address), `aesenclast`, fixed-offset
/// stack accesses and bitwise operations; no branch or address depends on
/// data.
#[inline]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl")]
fn t512(t: __m512i, pk: __m512i, k: &K512, lanes: &mut Lanes) -> __m512i {
    let l = _mm512_and_si512(t, k.m0f);
    let h = _mm512_and_si512(_mm512_srli_epi16::<4>(t), k.m0f);
    let u = _mm512_ternarylogic_epi32::<0x96>(_mm512_shuffle_epi8(k.pre_lo, l), _mm512_shuffle_epi8(k.pre_hi, h), pk);
    let zero = _mm_setzero_si128();
    let p = lanes.0.as_mut_ptr();
    // Lanes 1-3 go out through memory (one store, three loads: load/store
    // ports) instead of three `vextracti32x4` on port 5, which the shuffles
    // already keep busy. Volatile keeps LLVM from folding the round trip
    // back into extracts.
    // SAFETY: `lanes` is 64 writable, 64-aligned bytes; p.add(i) for i < 4
    // stays inside it.
    let z = unsafe {
        core::ptr::write_volatile(p.cast::<__m512i>(), u);
        let a0 = _mm_aesenclast_si128(_mm512_castsi512_si128(u), zero);
        let a1 = _mm_aesenclast_si128(core::ptr::read_volatile(p.add(1)), zero);
        let a2 = _mm_aesenclast_si128(core::ptr::read_volatile(p.add(2)), zero);
        let a3 = _mm_aesenclast_si128(core::ptr::read_volatile(p.add(3)), zero);
        let mut z = _mm512_castsi128_si512(a0);
        z = _mm512_inserti32x4::<1>(z, a1);
        z = _mm512_inserti32x4::<2>(z, a2);
        _mm512_inserti32x4::<3>(z, a3)
    };
    let z = _mm512_shuffle_epi8(z, k.inv_sr);
    let s = affine512(z, k.post_lo, k.post_hi, k.m0f);
    // L(s) = s ^ rol2 ^ rol10 ^ rol18 ^ rol24
    let a = _mm512_ternarylogic_epi32::<0x96>(s, _mm512_rol_epi32::<2>(s), _mm512_rol_epi32::<10>(s));
    _mm512_ternarylogic_epi32::<0x96>(a, _mm512_rol_epi32::<18>(s), _mm512_rol_epi32::<24>(s))
}

/// 4x4 transpose of 32-bit words inside every 128-bit lane (an involution).
#[inline]
#[target_feature(enable = "avx512f")]
fn transpose(a: __m512i, b: __m512i, c: __m512i, d: __m512i) -> [__m512i; 4] {
    let t0 = _mm512_unpacklo_epi32(a, b);
    let t1 = _mm512_unpackhi_epi32(a, b);
    let t2 = _mm512_unpacklo_epi32(c, d);
    let t3 = _mm512_unpackhi_epi32(c, d);
    [
        _mm512_unpacklo_epi64(t0, t2),
        _mm512_unpackhi_epi64(t0, t2),
        _mm512_unpacklo_epi64(t1, t3),
        _mm512_unpackhi_epi64(t1, t3),
    ]
}

/// Loads 16 blocks and transposes them into word-sliced form.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn load16(buf: &[u8], k: &K512) -> [__m512i; 4] {
    assert!(buf.len() >= 256);
    let p = buf.as_ptr();
    // SAFETY: at least 256 readable bytes (checked above); unaligned loads.
    let (a, b, c, d) = unsafe {
        (
            _mm512_loadu_si512(p.cast()),
            _mm512_loadu_si512(p.add(64).cast()),
            _mm512_loadu_si512(p.add(128).cast()),
            _mm512_loadu_si512(p.add(192).cast()),
        )
    };
    let sw = |x| _mm512_shuffle_epi8(x, k.bswap);
    transpose(sw(a), sw(b), sw(c), sw(d))
}

/// Writes the output block (X35, X34, X33, X32) of 16 blocks back.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn store16(x: [__m512i; 4], buf: &mut [u8], k: &K512) {
    assert!(buf.len() >= 256);
    let [a, b, c, d] = transpose(x[3], x[2], x[1], x[0]);
    let sw = |x| _mm512_shuffle_epi8(x, k.bswap);
    let p = buf.as_mut_ptr();
    // SAFETY: at least 256 writable bytes (checked above).
    unsafe {
        _mm512_storeu_si512(p.cast(), sw(a));
        _mm512_storeu_si512(p.add(64).cast(), sw(b));
        _mm512_storeu_si512(p.add(128).cast(), sw(c));
        _mm512_storeu_si512(p.add(192).cast(), sw(d));
    }
}

/// One SM4 round on a word-sliced group: `x[i] ^= T(x[i+1] ^ x[i+2] ^ x[i+3] ^ rk)`
/// (`$pk` is the round's pre-key, see [`PreKeys`]).
macro_rules! round {
    ($x:ident, $i:expr, $pk:expr, $k:expr, $lanes:expr) => {
        $x[$i] = _mm512_xor_si512(
            $x[$i],
            t512(
                _mm512_ternarylogic_epi32::<0x96>($x[($i + 1) % 4], $x[($i + 2) % 4], $x[($i + 3) % 4]),
                $pk,
                $k,
                $lanes,
            ),
        );
    };
}

/// Groups of 16 blocks kept in flight by the bulk paths: enough independent
/// work to hide the AES-NI latency (the few spills only use the load/store
/// ports; the choice of four is measured in bench/NOTES.md), and a
/// 1024-byte step divides the usual power-of-two buffer sizes.
const GROUPS: usize = 4;
/// Bytes per bulk step.
const STEP: usize = GROUPS * 256;

/// The 32 rounds on `G` word-sliced groups, interleaved round by round.
#[inline]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl")]
fn rounds<const G: usize>(pk: &PreKeys, s: &mut [[__m512i; 4]; G], k: &K512) {
    // The four rounds are written out with constant word indices: as a loop
    // over i, LLVM kept the state in memory (a store-to-load forwarding
    // delay on every round's critical path).
    let mut st = *s;
    let mut lanes = Lanes([_mm_setzero_si128(); 4]);
    for r in pk.0.chunks_exact(4) {
        let key = _mm512_set1_epi32(r[0] as i32);
        for x in st.iter_mut() {
            round!(x, 0, key, k, &mut lanes);
        }
        let key = _mm512_set1_epi32(r[1] as i32);
        for x in st.iter_mut() {
            round!(x, 1, key, k, &mut lanes);
        }
        let key = _mm512_set1_epi32(r[2] as i32);
        for x in st.iter_mut() {
            round!(x, 2, key, k, &mut lanes);
        }
        let key = _mm512_set1_epi32(r[3] as i32);
        for x in st.iter_mut() {
            round!(x, 3, key, k, &mut lanes);
        }
    }
    lanes.wipe();
    *s = st;
}

/// Where a bulk path reads its input: the output buffer itself, or a
/// separate source at least as long (which saves the caller a copy).
type Src<'a> = Option<&'a [u8]>;

/// Encrypts `G` groups of 16 blocks (256*G bytes) from `src` (or `dst`
/// itself) into `dst`.
#[inline]
#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl")]
fn crypt_groups<const G: usize>(pk: &PreKeys, src: Src<'_>, dst: &mut [u8], k: &K512) {
    assert!(dst.len() >= 256 * G);
    let inp: &[u8] = src.unwrap_or(dst);
    let mut s: [[__m512i; 4]; G] = core::array::from_fn(|g| load16(&inp[256 * g..], k));
    rounds(pk, &mut s, k);
    for (g, x) in s.into_iter().enumerate() {
        store16(x, &mut dst[256 * g..], k);
    }
}

/// Transposes 16 word-sliced keystream blocks back and XORs them with 256
/// bytes of `src` (or of `dst` itself) into `dst`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn xor16(x: [__m512i; 4], src: Src<'_>, dst: &mut [u8], k: &K512) {
    assert!(dst.len() >= 256);
    let [a, b, c, d] = transpose(x[3], x[2], x[1], x[0]);
    let inp: [__m512i; 4] = {
        let inp: &[u8] = src.unwrap_or(dst);
        core::array::from_fn(|i| load512(&inp[64 * i..]))
    };
    let p = dst.as_mut_ptr();
    for (i, v) in [a, b, c, d].into_iter().enumerate() {
        let v = _mm512_shuffle_epi8(v, k.bswap);
        // SAFETY: at least 256 bytes (checked above); 64-byte pieces at i*64.
        unsafe { _mm512_storeu_si512(p.add(64 * i).cast(), _mm512_xor_si512(v, inp[i])) };
    }
}

#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl")]
fn ctr32_xor_impl(rk: &[u32; 32], prefix: [u32; 3], ctr: u32, src: Src<'_>, dst: &mut [u8]) -> usize {
    let k = consts512();
    let pk = pre_keys(rk, &k);
    // Dword 4L + m of a transposed register belongs to block 4m + L.
    let idx = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    let fixed =
        [_mm512_set1_epi32(prefix[0] as i32), _mm512_set1_epi32(prefix[1] as i32), _mm512_set1_epi32(prefix[2] as i32)];
    let mut c = _mm512_add_epi32(_mm512_set1_epi32(ctr as i32), idx);
    let steps = dst.len() / STEP;
    for o in (0..steps).map(|n| n * STEP) {
        let mut st: [[__m512i; 4]; GROUPS] = core::array::from_fn(|_| [fixed[0], fixed[1], fixed[2], c]);
        for (i, x) in st.iter_mut().enumerate() {
            x[3] = _mm512_add_epi32(c, _mm512_set1_epi32(16 * i as i32));
        }
        c = _mm512_add_epi32(c, _mm512_set1_epi32(16 * GROUPS as i32));
        rounds(&pk, &mut st, &k);
        for (i, x) in st.into_iter().enumerate() {
            let at = o + 256 * i;
            xor16(x, src.map(|s| &s[at..]), &mut dst[at..], &k);
        }
    }
    steps * STEP
}

/// CTR with a 32-bit counter: XORs the keystream of the blocks `prefix ||
/// ctr`, `prefix || ctr+1`, ... (the last word wraps mod 2^32) into `dst`
/// in place (`src` = None) or onto `src` (at least `dst.len()` bytes), over
/// whole 1024-byte steps only. Returns the bytes processed.
pub(crate) fn ctr32_xor(
    _t: cpu::AesAvx512,
    rk: &[u32; 32],
    prefix: [u32; 3],
    ctr: u32,
    src: Option<&[u8]>,
    dst: &mut [u8],
) -> usize {
    // SAFETY: the token proves the target features.
    unsafe { ctr32_xor_impl(rk, prefix, ctr, src, dst) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load512(p: &[u8]) -> __m512i {
    assert!(p.len() >= 64);
    // SAFETY: at least 64 readable bytes (checked above); unaligned load.
    unsafe { _mm512_loadu_si512(p.as_ptr().cast()) }
}

#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl")]
fn cbc_decrypt_impl(rk: &[u32; 32], iv: &mut [u8; 16], src: Src<'_>, dst: &mut [u8]) -> usize {
    let k = consts512();
    let pk = pre_keys(rk, &k);
    // SAFETY: 16 readable bytes.
    let mut chain = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(iv.as_ptr().cast()) });
    let steps = dst.len() / STEP;
    for o in (0..steps).map(|n| n * STEP) {
        // All input of the step is in registers before anything is stored,
        // so decrypting in place is safe.
        let inp: &[u8] = src.unwrap_or(dst);
        let r: [__m512i; 4 * GROUPS] = core::array::from_fn(|i| load512(&inp[o + 64 * i..]));
        // The previous ciphertext block of every block: [chain, c0, c1, c2], [c3, ...], ...
        // (valignq shifts the pair of registers by three 128-bit lanes).
        let prev: [__m512i; 4 * GROUPS] =
            core::array::from_fn(|i| _mm512_alignr_epi64::<6>(r[i], if i == 0 { chain } else { r[i - 1] }));
        chain = r[4 * GROUPS - 1];
        let sw = |x| _mm512_shuffle_epi8(x, k.bswap);
        let mut st: [[__m512i; 4]; GROUPS] =
            core::array::from_fn(|g| transpose(sw(r[4 * g]), sw(r[4 * g + 1]), sw(r[4 * g + 2]), sw(r[4 * g + 3])));
        rounds(&pk, &mut st, &k);
        let out = &mut dst[o..o + STEP];
        let p = out.as_mut_ptr();
        for (gi, x) in st.into_iter().enumerate() {
            let words = transpose(x[3], x[2], x[1], x[0]);
            for (j, v) in words.into_iter().enumerate() {
                let i = 4 * gi + j;
                let v = _mm512_xor_si512(sw(v), prev[i]);
                // SAFETY: `out` is STEP bytes; piece i is at 64*i < STEP.
                unsafe { _mm512_storeu_si512(p.add(64 * i).cast(), v) };
            }
        }
    }
    let mut last = [0u8; 64];
    // SAFETY: 64 writable bytes.
    unsafe { _mm512_storeu_si512(last.as_mut_ptr().cast(), chain) };
    iv.copy_from_slice(&last[48..]);
    steps * STEP
}

/// CBC decryption over whole 1024-byte steps, the XOR with the previous
/// ciphertext fused into the kernel, in place in `dst` (`src` = None) or
/// from `src` (at least `dst.len()` bytes) into `dst`; `iv` becomes the last
/// ciphertext block processed. Returns the bytes processed.
pub(crate) fn cbc_decrypt(
    _t: cpu::AesAvx512,
    rk: &[u32; 32],
    iv: &mut [u8; 16],
    src: Option<&[u8]>,
    dst: &mut [u8],
) -> usize {
    // SAFETY: the token proves the target features.
    unsafe { cbc_decrypt_impl(rk, iv, src, dst) }
}

#[target_feature(enable = "aes,avx512f,avx512bw,avx512vl")]
fn crypt_blocks_impl(rk: &[u32; 32], src: Src<'_>, dst: &mut [u8]) {
    let k = consts512();
    let pk = pre_keys(rk, &k);
    let n = dst.len();
    let at = |o: usize| src.map(|s| &s[o..]);
    let mut o = 0;
    while n - o >= STEP {
        crypt_groups::<GROUPS>(&pk, at(o), &mut dst[o..o + STEP], &k);
        o += STEP;
    }
    if n - o >= 512 {
        crypt_groups::<2>(&pk, at(o), &mut dst[o..o + 512], &k);
        o += 512;
    }
    if n - o >= 256 {
        crypt_groups::<1>(&pk, at(o), &mut dst[o..o + 256], &k);
        o += 256;
    }
    if o < n {
        let m = n - o;
        let mut buf = [0u8; 256];
        buf[..m].copy_from_slice(src.map_or(&dst[o..], |s| &s[o..n]));
        crypt_groups::<1>(&pk, None, &mut buf, &k);
        dst[o..].copy_from_slice(&buf[..m]);
        zeroize::Zeroize::zeroize(&mut buf);
    }
}

/// Encrypts (or decrypts, with reversed round keys) whole blocks, in place
/// in `dst` (`src` = None) or from `src` (at least `dst.len()` bytes).
pub(crate) fn crypt_blocks(_t: cpu::AesAvx512, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    // SAFETY: the token proves the target features.
    unsafe { crypt_blocks_impl(rk, src, dst) }
}

#[derive(Clone, Copy)]
struct K128 {
    m0f: __m128i,
    pre_lo: __m128i,
    pre_hi: __m128i,
    post_lo: __m128i,
    post_hi: __m128i,
}

#[inline]
#[target_feature(enable = "ssse3")]
fn load128(t: &[u8; 16]) -> __m128i {
    // SAFETY: 16 readable bytes, unaligned load.
    unsafe { _mm_loadu_si128(t.as_ptr().cast()) }
}

/// The S-box on a word broadcast to all four lanes. Because the four
/// columns are equal, `aesenclast`'s ShiftRows changes nothing, which saves a
/// shuffle on this latency-bound path.
#[inline]
#[target_feature(enable = "aes,ssse3,avx512f,avx512vl")]
fn sbox128(t: __m128i, k: &K128) -> __m128i {
    let l = _mm_and_si128(t, k.m0f);
    let h = _mm_and_si128(_mm_srli_epi16::<4>(t), k.m0f);
    let u = _mm_xor_si128(_mm_shuffle_epi8(k.pre_lo, l), _mm_shuffle_epi8(k.pre_hi, h));
    let z = _mm_aesenclast_si128(u, _mm_setzero_si128());
    let l = _mm_and_si128(z, k.m0f);
    let h = _mm_and_si128(_mm_srli_epi16::<4>(z), k.m0f);
    _mm_xor_si128(_mm_shuffle_epi8(k.post_lo, l), _mm_shuffle_epi8(k.post_hi, h))
}

#[inline]
#[target_feature(enable = "ssse3")]
fn consts128() -> K128 {
    K128 {
        m0f: _mm_set1_epi8(0x0f),
        pre_lo: load128(&PRE_TABLES.0),
        pre_hi: load128(&PRE_TABLES.1),
        post_lo: load128(&POST_TABLES.0),
        post_hi: load128(&POST_TABLES.1),
    }
}

/// One block (as loaded from memory) through the 32 rounds, arranged for the
/// shortest dependency chain: the next round's input is formed directly from
/// the rotations of this round's S-box output and a value computed off the
/// critical path (x[i+2] ^ x[i+3] ^ x[i] ^ rk[i+1]), so a round costs the
/// S-box latency plus three single-cycle steps.
#[inline]
#[target_feature(enable = "aes,ssse3,avx512f,avx512vl")]
fn one_block(rk: &[u32; 32], block: __m128i, k: &K128) -> __m128i {
    let bswap = load128(&BSWAP32);
    let v = _mm_shuffle_epi8(block, bswap);
    let mut x = [
        _mm_shuffle_epi32::<0x00>(v),
        _mm_shuffle_epi32::<0x55>(v),
        _mm_shuffle_epi32::<0xaa>(v),
        _mm_shuffle_epi32::<0xff>(v),
    ];
    let key = |i: usize| _mm_set1_epi32(rk[i % 32] as i32);
    let mut t = _mm_ternarylogic_epi32::<0x96>(x[1], x[2], _mm_xor_si128(x[3], key(0)));
    for i in 0..32 {
        let (j, a_, b_) = (i % 4, (i + 2) % 4, (i + 3) % 4);
        let s = sbox128(t, k);
        let a = _mm_ternarylogic_epi32::<0x96>(s, _mm_rol_epi32::<2>(s), _mm_rol_epi32::<10>(s));
        let (r18, r24) = (_mm_rol_epi32::<18>(s), _mm_rol_epi32::<24>(s));
        let q = _mm_ternarylogic_epi32::<0x96>(x[a_], x[b_], _mm_xor_si128(x[j], key(i + 1)));
        t = _mm_xor_si128(_mm_ternarylogic_epi32::<0x96>(r18, r24, q), a);
        x[j] = _mm_xor_si128(_mm_ternarylogic_epi32::<0x96>(x[j], r18, r24), a);
    }
    // Output (X35, X34, X33, X32) = (x3, x2, x1, x0), words back to big-endian.
    let hi = _mm_unpacklo_epi32(x[3], x[2]);
    let lo = _mm_unpacklo_epi32(x[1], x[0]);
    _mm_shuffle_epi8(_mm_unpacklo_epi64(hi, lo), bswap)
}

#[target_feature(enable = "aes,ssse3,avx512f,avx512vl")]
fn crypt_one_impl(rk: &[u32; 32], block: &mut [u8; 16]) {
    let k = consts128();
    let out = one_block(rk, load128(block), &k);
    // SAFETY: 16 writable bytes.
    unsafe { _mm_storeu_si128(block.as_mut_ptr().cast(), out) };
}

#[target_feature(enable = "aes,ssse3,avx512f,avx512vl")]
fn cbc_encrypt_impl(rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    let k = consts128();
    let mut chain = load128(iv);
    for b in data.chunks_exact_mut(16) {
        let b: &mut [u8; 16] = b.try_into().expect("chunks_exact gives 16 bytes");
        chain = one_block(rk, _mm_xor_si128(chain, load128(b)), &k);
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(b.as_mut_ptr().cast(), chain) };
    }
    // SAFETY: 16 writable bytes.
    unsafe { _mm_storeu_si128(iv.as_mut_ptr().cast(), chain) };
}

/// CBC encryption of whole blocks in place (serial); `iv` becomes the last
/// ciphertext block.
pub(crate) fn cbc_encrypt(_t: cpu::AesAvx512, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves the target features.
    unsafe { cbc_encrypt_impl(rk, iv, data) }
}

/// Encrypts (or decrypts) one block, latency-optimised for serial modes.
pub(crate) fn crypt_one(_t: cpu::AesAvx512, rk: &[u32; 32], block: &mut [u8; 16]) {
    // SAFETY: the token proves the target features.
    unsafe { crypt_one_impl(rk, block) }
}
