//! SM4 with the SM4 instructions (`SM4E`), on NEON registers.
//!
//! A block's four big-endian words go into the four 32-bit lanes (a
//! `REV32` of the loaded bytes), lane 0 first; eight `SM4E` with the round
//! keys four by four leave X32..X35 in lanes 0..3, and the ciphertext is
//! X35..X32 big-endian, which is the whole register's bytes reversed. The
//! parallel modes keep [`WIDE`] blocks in flight (the instruction's latency
//! is several cycles and the cores issue one or two per cycle); CBC
//! encryption is the latency path, one block's 8 dependent `SM4E` per block.
//!
//! The key schedule is eight `SM4EKEY`, each giving four round keys from
//! the previous four and four constants CK.
//!
//! Constant time: registers only, no branch or address that depends on the
//! key or the data (`SM4E` is on Arm's list of data-independent-timing
//! instructions).

use core::arch::aarch64::*;
use core::arch::asm;

use crate::cpu;

/// Blocks in flight on the parallel paths.
pub(crate) const WIDE: usize = 8;

/// Four rounds: `x` holds X_i..X_i+3, `k` rk_i..rk_i+3; returns X_i+4..X_i+7.
#[inline]
#[target_feature(enable = "neon,sm4")]
fn sm4e(mut x: uint32x4_t, k: uint32x4_t) -> uint32x4_t {
    // SAFETY: the function's `sm4` target feature (proved by the caller's
    // token) makes the instruction valid; it reads and writes registers only.
    unsafe {
        asm!("sm4e {x:v}.4s, {k:v}.4s", x = inout(vreg) x, k = in(vreg) k,
             options(pure, nomem, nostack, preserves_flags));
    }
    x
}

/// Four key-schedule rounds: `k` holds K_i..K_i+3, `ck` CK_i..CK_i+3;
/// returns K_i+4..K_i+7 (the round keys rk_i..rk_i+3).
#[inline]
#[target_feature(enable = "neon,sm4")]
fn sm4ekey(k: uint32x4_t, ck: uint32x4_t) -> uint32x4_t {
    let out: uint32x4_t;
    // SAFETY: as for `sm4e`: the `sm4` target feature makes the instruction
    // valid; registers only.
    unsafe {
        asm!("sm4ekey {d:v}.4s, {n:v}.4s, {m:v}.4s", d = lateout(vreg) out, n = in(vreg) k, m = in(vreg) ck,
             options(pure, nomem, nostack, preserves_flags));
    }
    out
}

#[target_feature(enable = "neon,sm4")]
fn expand_key_impl(key: &[u8; 16]) -> [u32; 32] {
    use crate::sm4::block::portable::{CK, FK};
    // SAFETY: reads the 4 words of FK.
    let mut k = veorq_u32(load(key), unsafe { vld1q_u32(FK.as_ptr()) });
    let mut rk = [0u32; 32];
    for i in 0..8 {
        // SAFETY: words 4i..4i+4 of CK and of rk, both 32 words long.
        unsafe {
            k = sm4ekey(k, vld1q_u32(CK.as_ptr().add(4 * i)));
            vst1q_u32(rk.as_mut_ptr().add(4 * i), k);
        }
    }
    k = vdupq_n_u32(0);
    core::hint::black_box(k);
    rk
}

/// The 32 encryption round keys of `key` (GB/T 32907-2016 §7.3).
pub(crate) fn expand_key(_t: cpu::Sm4Neon, key: &[u8; 16]) -> [u32; 32] {
    // SAFETY: the token proves NEON and the SM4 instructions.
    unsafe { expand_key_impl(key) }
}

/// The 32 round keys as eight registers of four.
#[inline]
#[target_feature(enable = "neon")]
fn keys(rk: &[u32; 32]) -> [uint32x4_t; 8] {
    // SAFETY: each load reads 4 u32 inside `rk`.
    core::array::from_fn(|i| unsafe { vld1q_u32(rk.as_ptr().add(4 * i)) })
}

/// 16 bytes (a whole block) into state lanes.
#[inline]
#[target_feature(enable = "neon")]
fn load(b: &[u8]) -> uint32x4_t {
    debug_assert!(b.len() >= 16);
    // SAFETY: callers pass at least 16 readable bytes.
    vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(b.as_ptr()) }))
}

/// The output block of final state lanes X32..X35: every byte reversed.
#[inline]
#[target_feature(enable = "neon")]
fn finish(x: uint32x4_t) -> uint8x16_t {
    let r = vrev64q_u8(vreinterpretq_u8_u32(x));
    vextq_u8::<8>(r, r)
}

#[inline]
#[target_feature(enable = "neon")]
fn store(b: &mut [u8], v: uint8x16_t) {
    debug_assert!(b.len() >= 16);
    // SAFETY: callers pass at least 16 writable bytes.
    unsafe { vst1q_u8(b.as_mut_ptr(), v) }
}

/// The 32 rounds on `N` independent blocks.
#[inline]
#[target_feature(enable = "neon,sm4")]
fn rounds<const N: usize>(mut x: [uint32x4_t; N], k: &[uint32x4_t; 8]) -> [uint32x4_t; N] {
    for kr in k {
        for xi in x.iter_mut() {
            *xi = sm4e(*xi, *kr);
        }
    }
    x
}

#[target_feature(enable = "neon,sm4")]
fn crypt_one_impl(rk: &[u32; 32], block: &mut [u8; 16]) {
    let k = keys(rk);
    let [x] = rounds([load(block)], &k);
    store(block, finish(x));
}

#[target_feature(enable = "neon,sm4")]
fn crypt_impl(rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    let k = keys(rk);
    let src = src.unwrap_or(&[]);
    let mut off = 0;
    while off + 16 * WIDE <= dst.len() {
        let from: &[u8] = if src.is_empty() { &dst[off..off + 16 * WIDE] } else { &src[off..off + 16 * WIDE] };
        let x: [uint32x4_t; WIDE] = core::array::from_fn(|i| load(&from[16 * i..]));
        let y = rounds(x, &k);
        for (i, yi) in y.into_iter().enumerate() {
            store(&mut dst[off + 16 * i..], finish(yi));
        }
        off += 16 * WIDE;
    }
    while off + 16 <= dst.len() {
        let from: &[u8] = if src.is_empty() { &dst[off..off + 16] } else { &src[off..off + 16] };
        let [y] = rounds([load(from)], &k);
        store(&mut dst[off..], finish(y));
        off += 16;
    }
}

#[target_feature(enable = "neon,sm4")]
fn ctr32_impl(rk: &[u32; 32], prefix: [u32; 3], ctr: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    let k = keys(rk);
    let src = src.unwrap_or(&[]);
    // SAFETY: reads the 4 u32 of the array.
    let base = unsafe { vld1q_u32([prefix[0], prefix[1], prefix[2], 0].as_ptr()) };
    let mut c = ctr;
    let mut off = 0;
    let n = dst.len() - dst.len() % 16;
    while off < n {
        let step = (n - off).min(16 * WIDE);
        let x: [uint32x4_t; WIDE] = core::array::from_fn(|i| vsetq_lane_u32::<3>(c.wrapping_add(i as u32), base));
        let y = rounds(x, &k);
        for (i, yi) in y.into_iter().enumerate().take(step / 16) {
            let at = off + 16 * i;
            let from: &[u8] = if src.is_empty() { &dst[at..at + 16] } else { &src[at..at + 16] };
            // SAFETY: 16 readable bytes.
            let d = veorq_u8(unsafe { vld1q_u8(from.as_ptr()) }, finish(yi));
            store(&mut dst[at..], d);
        }
        c = c.wrapping_add((step / 16) as u32);
        off += step;
    }
    n
}

#[target_feature(enable = "neon,sm4")]
fn cbc_encrypt_impl(rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    let k = keys(rk);
    // The chaining value stays in output byte order; each plaintext is
    // XORed onto it, put into lanes, and run through the eight dependent
    // `SM4E`: the loop's chain is REV32 + 8 SM4E + the output reversal + EOR.
    // SAFETY: 16 readable bytes.
    let mut chain = unsafe { vld1q_u8(iv.as_ptr()) };
    for b in data.chunks_exact_mut(16) {
        // SAFETY: 16 readable bytes.
        let p = unsafe { vld1q_u8(b.as_ptr()) };
        let x = vreinterpretq_u32_u8(vrev32q_u8(veorq_u8(p, chain)));
        let [y] = rounds([x], &k);
        chain = finish(y);
        store(b, chain);
    }
    store(iv, chain);
}

/// One block in place.
pub(crate) fn crypt_one(_t: cpu::Sm4Neon, rk: &[u32; 32], block: &mut [u8; 16]) {
    // SAFETY: the token proves NEON and the SM4 instructions.
    unsafe { crypt_one_impl(rk, block) }
}

/// Whole blocks from `src` (as long as `dst`) or in place into `dst`.
pub(crate) fn crypt(_t: cpu::Sm4Neon, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    // SAFETY: the token proves NEON and the SM4 instructions.
    unsafe { crypt_impl(rk, src, dst) }
}

/// CTR with a 32-bit counter (the last word, wrapping) over the whole
/// blocks of `dst`; returns the bytes done (all whole blocks).
pub(crate) fn ctr32(
    _t: cpu::Sm4Neon,
    rk: &[u32; 32],
    prefix: [u32; 3],
    ctr: u32,
    src: Option<&[u8]>,
    dst: &mut [u8],
) -> usize {
    // SAFETY: the token proves NEON and the SM4 instructions.
    unsafe { ctr32_impl(rk, prefix, ctr, src, dst) }
}

/// CBC encryption of whole blocks in place; `iv` becomes the last block.
pub(crate) fn cbc_encrypt(_t: cpu::Sm4Neon, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
    // SAFETY: the token proves NEON and the SM4 instructions.
    unsafe { cbc_encrypt_impl(rk, iv, data) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::Token;
    use crate::sm4::block::portable;

    /// `SM4EKEY`'s schedule against the portable one (checked against the
    /// standard's example) on the standard's key and random keys.
    #[test]
    fn sm4ekey_schedule_matches_portable() {
        let Some(t) = cpu::Sm4Neon::get() else { return };
        let mut next = crate::test_rng(0x853c_49e6_748f_ea9b);
        // GB/T 32907-2016 Appendix A: rk0 and rk31 of its example key.
        let mut key = [0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10];
        let rk = expand_key(t, &key);
        assert_eq!((rk[0], rk[31]), (0xf121_86f9, 0x9124_a012));
        for _ in 0..200 {
            assert_eq!(expand_key(t, &key), portable::expand_key(&key), "key {key:02x?}");
            key = core::array::from_fn(|_| next() as u8);
        }
    }
}
