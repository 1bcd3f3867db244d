//! The steps of the ZUC specification (GB/T 33133.1-2016, the ZUC-256
//! paper, 3GPP TS 35.221/35.222), each written once: the constants, the LFSR
//! step over GF(2³¹−1), bit reorganisation, L1/L2 and F's register update,
//! key/IV loading, the 3GPP IV constructions and the MAC's keystream
//! windows. Every backend builds on these; the SIMD code re-expresses only
//! what it must (eight lanes at once) and is tested against this file.

use zeroize::Zeroize;

use super::sbox;

/// The LFSR's modulus 2³¹ − 1.
pub(crate) const P: u64 = 0x7fff_ffff;

/// Keystream words produced per batch by the single-stream generators.
pub(crate) const BATCH: usize = 64;

/// The 15-bit constants d_i of ZUC-128.
pub(crate) const D128: [u32; 16] = [
    0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4, 0x1af1, 0x5e26, 0x3c4d,
    0x789a, 0x47ac,
];

/// The 7-bit constants d of ZUC-256: keystream, then MAC with 32/64/128-bit
/// tags (ZUC-256 specification, 2018 revision).
pub(crate) const D256_KEYSTREAM: [u8; 16] =
    [0x22, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];
pub(crate) const D256_MAC32: [u8; 16] =
    [0x22, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];
pub(crate) const D256_MAC64: [u8; 16] =
    [0x23, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];
pub(crate) const D256_MAC128: [u8; 16] =
    [0x23, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];

/// The LFSR feedback before reduction:
/// 2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1 + 2^8) s0, in 64 bits.
/// Inputs below 2^32 give sums below 2^54, so [`fold`] applies.
#[inline(always)]
pub(crate) fn lfsr_sum(s15: u64, s13: u32, s10: u32, s4: u32, s0: u32) -> u64 {
    (s15 << 15) + ((s13 as u64) << 17) + ((s10 as u64) << 21) + ((s4 as u64) << 20) + ((s0 as u64) << 8) + s0 as u64
}

/// One fold of the lazy reduction mod 2^31 − 1: the result is congruent to
/// `v` and, for `v` < 2^54, below 2^32 (a second fold lands in [0, 2^31]).
#[inline(always)]
pub(crate) fn fold(v: u64) -> u64 {
    (v & P) + (v >> 31)
}

/// s16 from cells s0..s15 plus `extra` (W >> 1 in initialisation mode):
/// the sum folded twice. Inputs in [1, p] give a non-zero sum, so the result
/// is in [1, p], the representation the standard requires (0 written as p).
#[inline(always)]
pub(crate) fn lfsr_next(s: &[u32], extra: u32) -> u32 {
    fold(fold(lfsr_sum(s[15] as u64, s[13], s[10], s[4], s[0]) + extra as u64)) as u32
}

/// Work-mode LFSR over a linear buffer: `cells[16 + i]` = s16 of the window
/// `cells[i..i + 16]`, for i in 0..n, each folded once (`folds` = 1, values
/// below 2^32, to be finished by the caller) or twice (`folds` = 2, in
/// [1, p]). s15 is chained through a register rather than re-read from the
/// cell just stored: store-to-load forwarding would lengthen the chain.
#[inline(always)]
pub(crate) fn lfsr_run(cells: &mut [u32], n: usize, folds: u32) {
    let mut last = cells[15] as u64;
    for i in 0..n {
        let v = fold(lfsr_sum(last, cells[i + 13], cells[i + 10], cells[i + 4], cells[i]));
        last = if folds == 2 { fold(v) } else { v };
        cells[16 + i] = last as u32;
    }
}

#[inline(always)]
pub(crate) fn l1(x: u32) -> u32 {
    x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
}

#[inline(always)]
pub(crate) fn l2(x: u32) -> u32 {
    x ^ x.rotate_left(8) ^ x.rotate_left(14) ^ x.rotate_left(22) ^ x.rotate_left(30)
}

/// Bit reorganisation: (X0, X1, X2, X3) from the 16 LFSR cells `s`.
#[inline(always)]
pub(crate) fn bit_reorg(s: &[u32]) -> [u32; 4] {
    [
        ((s[15] & 0x7fff_8000) << 1) | (s[14] & 0xffff),
        ((s[11] & 0xffff) << 16) | (s[9] >> 15),
        ((s[7] & 0xffff) << 16) | (s[5] >> 15),
        ((s[2] & 0xffff) << 16) | (s[0] >> 15),
    ]
}

/// One step of F's memory update (portable, constant time): new (R1, R2).
#[inline(always)]
pub(crate) fn f_update(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    let w1 = r1.wrapping_add(x1);
    let w2 = r2 ^ x2;
    let u = l1((w1 << 16) | (w2 >> 16));
    let v = l2((w2 << 16) | (w1 >> 16));
    sbox::sbox_pair(u, v)
}

/// ZUC-128 key/IV loading: s_i = k_i ‖ d_i ‖ iv_i (8 + 15 + 8 bits).
pub(crate) fn load_128(key: &[u8; 16], iv: &[u8; 16]) -> [u32; 16] {
    let mut lfsr = [0u32; 16];
    for i in 0..16 {
        lfsr[i] = ((key[i] as u32) << 23) | (D128[i] << 8) | iv[i] as u32;
    }
    lfsr
}

/// ZUC-256 key/IV loading. `iv` is the 23-byte packed form (IV0..IV16 as
/// bytes, then IV17..IV24 as eight 6-bit values packed big-endian).
pub(crate) fn load_256(key: &[u8; 32], iv: &[u8; 23], d: &[u8; 16]) -> [u32; 16] {
    let k = |i: usize| key[i] as u32;
    let v = |i: usize| iv[i] as u32;
    let mut i6 = [0u32; 8];
    let mut bits: u64 = 0;
    for &b in &iv[17..23] {
        bits = (bits << 8) | b as u64;
    }
    for (j, slot) in i6.iter_mut().enumerate() {
        *slot = ((bits >> (42 - 6 * j)) & 0x3f) as u32;
    }
    let d = |i: usize| d[i] as u32;
    let cell = |a: u32, b: u32, c: u32, e: u32| (a << 23) | (b << 16) | (c << 8) | e;
    let lfsr = [
        cell(k(0), d(0), k(21), k(16)),
        cell(k(1), d(1), k(22), k(17)),
        cell(k(2), d(2), k(23), k(18)),
        cell(k(3), d(3), k(24), k(19)),
        cell(k(4), d(4), k(25), k(20)),
        cell(v(0), d(5) | i6[0], k(5), k(26)),
        cell(v(1), d(6) | i6[1], k(6), k(27)),
        cell(v(10), d(7) | i6[2], k(7), v(2)),
        cell(k(8), d(8) | i6[3], v(3), v(11)),
        cell(k(9), d(9) | i6[4], v(12), v(4)),
        cell(v(5), d(10) | i6[5], k(10), k(28)),
        cell(k(11), d(11) | i6[6], v(6), v(13)),
        cell(k(12), d(12) | i6[7], v(7), v(14)),
        cell(k(13), d(13), v(15), v(8)),
        cell(k(14), d(14) | (k(31) >> 4), v(16), v(9)),
        cell(k(15), d(15) | (k(31) & 0x0f), k(30), k(29)),
    ];
    i6.zeroize();
    bits.zeroize();
    lfsr
}

/// The 128-EEA3 IV (3GPP TS 35.221 §3.3): COUNT ‖ BEARER ‖ DIRECTION ‖ 0…, twice.
pub(crate) fn eea3_iv(count: u32, bearer: u32, direction: u32) -> [u8; 16] {
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = ((bearer << 3) | (direction << 2)) as u8;
    iv.copy_within(0..8, 8);
    iv
}

/// Clears the bits of the last byte of an EEA3 output beyond `length_bits`
/// (3GPP TS 35.221 §3.5: the output is exactly LENGTH bits); `out` has
/// ceil(length_bits / 8) bytes.
pub(crate) fn clear_tail_bits(out: &mut [u8], length_bits: usize) {
    if !length_bits.is_multiple_of(8) {
        out[length_bits / 8] &= 0xffu8 << (8 - length_bits % 8);
    }
}

/// The 128-EIA3 IV (3GPP TS 35.221 §4.3), with DIRECTION in bytes 8 and 14.
pub(crate) fn eia3_iv(count: u32, bearer: u32, direction: u32) -> [u8; 16] {
    let c = count.to_be_bytes();
    let b = (bearer << 3) as u8;
    let d = (direction << 7) as u8;
    [c[0], c[1], c[2], c[3], b, 0, 0, 0, c[0] ^ d, c[1], c[2], c[3], b, 0, d, 0]
}

/// The window sum of one message word `m` (big-endian bit order) against the
/// 64-bit keystream `k0 ‖ k1`, constant time: the XOR of the 32-bit windows
/// starting at every set bit of `m`.
#[inline(always)]
pub(crate) fn window_word(m: u32, k0: u32, k1: u32) -> u32 {
    let k = ((k0 as u64) << 32) | k1 as u64;
    let mut t = 0u32;
    for b in 0..32 {
        let mask = ((m >> (31 - b)) & 1).wrapping_neg();
        t ^= mask & ((k << b) >> 32) as u32;
    }
    t
}

/// The last, partial message word of a MAC input: the bits of word
/// `length_bits / 32` below `length_bits`, big-endian, the rest cleared;
/// `None` when `length_bits` is a multiple of 32. `data` holds
/// ceil(length_bits / 8) bytes or more.
#[inline]
pub(crate) fn last_partial_word(data: &[u8], length_bits: usize) -> Option<u32> {
    let (full, rem) = (length_bits / 32, length_bits % 32);
    if rem == 0 {
        return None;
    }
    let mut last = [0u8; 4];
    let bytes = rem.div_ceil(8);
    last[..bytes].copy_from_slice(&data[4 * full..4 * full + bytes]);
    let m = u32::from_be_bytes(last) & (u32::MAX << (32 - rem));
    last.zeroize();
    Some(m)
}

/// The 32-bit window of the keystream starting at bit `pos` of `ks`.
#[inline(always)]
pub(crate) fn window_at(ks: &[u32], pos: usize) -> u32 {
    let (w, b) = (pos / 32, pos % 32);
    let k = ((ks[w] as u64) << 32) | ks[w + 1] as u64;
    ((k << b) >> 32) as u32
}
