//! Portable SM4 backend: constant-time, no table lookups at all.
//!
//! Cache timing: a table-driven S-box (`SBOX[x]`, or 4 KiB "T-tables" as in
//! OpenSSL's C code) leaks the index through the cache. Here the S-box is
//! computed from its algebraic form (`A·inv(A·x + C) + C`, see [`super::sbox`])
//! on eight bytes at once inside a `u64`, as the Boolean circuit of
//! [`super::tower`] on the bytes' bit planes: AND, XOR and NOT only, never
//! branches or memory indices, so the running time and the memory access
//! pattern are independent of keys and data. Runs of many blocks go through [`super::bitsliced`] instead (64
//! blocks per call); this SWAR code serves single blocks, short tails, the
//! key schedule and serial modes.

use super::bitsliced;
use super::tower;

/// Fewest blocks worth a bitsliced call.
const BITSLICE_MIN: usize = 8;

const LSB: u64 = 0x0101_0101_0101_0101;

/// The SM4 S-box on each of the eight bytes of `x`: bit b of every byte
/// becomes plane b (one bit per byte, at the byte's bit 0) for the
/// tower-field circuit of [`super::tower`], and back.
#[inline(always)]
pub(crate) fn sbox_x8(x: u64) -> u64 {
    let planes: [u64; 8] = core::array::from_fn(|b| (x >> b) & LSB);
    let y = tower::sbox(&planes);
    y.iter().enumerate().fold(0, |acc, (b, &p)| acc | ((p & LSB) << b))
}

/// The linear map L of the encryption rounds.
#[inline(always)]
fn l_enc(b: u32) -> u32 {
    b ^ b.rotate_left(2) ^ b.rotate_left(10) ^ b.rotate_left(18) ^ b.rotate_left(24)
}

/// The linear map L' of the key schedule.
#[inline(always)]
fn l_key(b: u32) -> u32 {
    b ^ b.rotate_left(13) ^ b.rotate_left(23)
}

/// The key schedule's system parameter FK (GB/T 32907-2016 §7.3).
pub(crate) const FK: [u32; 4] = [0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc];

/// CK_i: byte j is (4i + j) * 7 mod 256.
pub(crate) const CK: [u32; 32] = {
    let mut ck = [0u32; 32];
    let mut i = 0;
    while i < 32 {
        let mut w = 0u32;
        let mut j = 0;
        while j < 4 {
            w = (w << 8) | (((4 * i + j) * 7) % 256) as u32;
            j += 1;
        }
        ck[i] = w;
        i += 1;
    }
    ck
};

/// The key schedule (constant time; the S-box is the SWAR one).
pub(crate) fn expand_key(key: &[u8; 16]) -> [u32; 32] {
    let mut k = [0u32; 4];
    for i in 0..4 {
        k[i] = u32::from_be_bytes([key[4 * i], key[4 * i + 1], key[4 * i + 2], key[4 * i + 3]]) ^ FK[i];
    }
    let mut rk = [0u32; 32];
    for i in 0..32 {
        let t = k[(i + 1) % 4] ^ k[(i + 2) % 4] ^ k[(i + 3) % 4] ^ CK[i];
        let s = sbox_x8(t as u64) as u32;
        let next = k[i % 4] ^ l_key(s);
        k[i % 4] = next;
        rk[i] = next;
    }
    k.iter_mut().for_each(|w| *w = 0);
    rk
}

fn load(b: &[u8]) -> [u32; 4] {
    let w = |i: usize| u32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    [w(0), w(1), w(2), w(3)]
}

fn store(x: &[u32; 4], b: &mut [u8]) {
    // Output is (X35, X34, X33, X32): the state reversed.
    for i in 0..4 {
        b[4 * i..4 * i + 4].copy_from_slice(&x[3 - i].to_be_bytes());
    }
}

/// Encrypts (or, with reversed round keys, decrypts) whole 16-byte blocks in
/// place, two at a time so that both 32-bit halves of the SWAR S-box work.
pub(crate) fn crypt_blocks(rk: &[u32; 32], data: &mut [u8]) {
    debug_assert!(data.len().is_multiple_of(16));
    // Runs of at least BITSLICE_MIN blocks go through the bitsliced code
    // (64 at a time, a shorter run padded in a wiped buffer); it costs about
    // as much per call as that many blocks here.
    let mut data = data;
    while data.len() >= 16 * BITSLICE_MIN {
        let n = data.len().min(16 * bitsliced::BLOCKS);
        let (now, rest) = data.split_at_mut(n);
        if n == 16 * bitsliced::BLOCKS {
            bitsliced::crypt64(rk, now);
        } else {
            let mut buf = [0u8; 16 * bitsliced::BLOCKS];
            buf[..n].copy_from_slice(now);
            bitsliced::crypt64(rk, &mut buf);
            now.copy_from_slice(&buf[..n]);
            zeroize::Zeroize::zeroize(&mut buf);
        }
        data = rest;
    }
    let mut pairs = data.chunks_exact_mut(32);
    for pair in &mut pairs {
        let (a, b) = pair.split_at_mut(16);
        let mut x = load(a);
        let mut y = load(b);
        for (i, &k) in rk.iter().enumerate() {
            let tx = x[(i + 1) % 4] ^ x[(i + 2) % 4] ^ x[(i + 3) % 4] ^ k;
            let ty = y[(i + 1) % 4] ^ y[(i + 2) % 4] ^ y[(i + 3) % 4] ^ k;
            let s = sbox_x8(tx as u64 | (ty as u64) << 32);
            x[i % 4] ^= l_enc(s as u32);
            y[i % 4] ^= l_enc((s >> 32) as u32);
        }
        store(&x, a);
        store(&y, b);
    }
    let rest = pairs.into_remainder();
    if !rest.is_empty() {
        let mut x = load(rest);
        for (i, &k) in rk.iter().enumerate() {
            let t = x[(i + 1) % 4] ^ x[(i + 2) % 4] ^ x[(i + 3) % 4] ^ k;
            x[i % 4] ^= l_enc(sbox_x8(t as u64) as u32);
        }
        store(&x, rest);
    }
}

#[cfg(test)]
mod tests {
    use super::super::sbox::sm4_sbox_formula;
    use super::*;

    #[test]
    fn swar_sbox_matches_formula_on_every_byte() {
        for x in 0..=255u8 {
            let lanes = (x as u64) * LSB;
            let want = sm4_sbox_formula(x) as u64 * LSB;
            assert_eq!(sbox_x8(lanes), want, "x = {x:#04x}");
        }
    }
}
