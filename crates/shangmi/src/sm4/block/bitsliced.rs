//! Bitsliced SM4 for the portable backend: 64 blocks per call in 64-bit
//! words, on any CPU.
//!
//! Bit `i` of plane `32·w + b` is bit `b` of word `w` of block `i`, so every
//! operation works on the same bit of all 64 blocks at once: the S-box is a
//! Boolean circuit (the affine maps are XORs of planes, the inversion a
//! tower-field circuit, [`super::tower`]),
//! the rotations of L are plane renumbering, and the round key is XORed as
//! all-ones or all-zero masks. There are no branches or memory indices that
//! depend on data or keys at all; the only data-independent branches are on
//! the constant matrices, which the compiler folds away.

use zeroize::Zeroize;

/// Blocks per call.
pub(super) const BLOCKS: usize = 64;

type Byte = [u64; 8];

/// The SM4 S-box on 64 bytes in bit planes.
#[inline(always)]
fn sbox(x: &Byte) -> Byte {
    super::tower::sbox(x)
}

/// Transposes a 64x64 bit matrix in place (an involution): bit `j` of
/// `a[i]` becomes bit `i` of `a[j]`.
fn transpose64(a: &mut [u64; 64]) {
    let mut j = 32;
    let mut m: u64 = 0x0000_0000_ffff_ffff;
    while j != 0 {
        let mut k = 0;
        while k < 64 {
            let t = ((a[k] >> j) ^ a[k + j]) & m;
            a[k + j] ^= t;
            a[k] ^= t << j;
            k = (k + j + 1) & !j;
        }
        j >>= 1;
        m ^= m << j;
    }
}

/// 64 blocks into planes: `planes[32·w + b]`.
fn load(blocks: &[u8], planes: &mut [u64; 128]) {
    let mut half = [[0u64; 64]; 2];
    for (i, b) in blocks.chunks_exact(16).enumerate() {
        let w = |k: usize| u32::from_be_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]]) as u64;
        half[0][i] = w(0) | (w(1) << 32);
        half[1][i] = w(2) | (w(3) << 32);
    }
    for (h, m) in half.iter_mut().enumerate() {
        transpose64(m);
        planes[64 * h..64 * h + 64].copy_from_slice(m);
    }
    half.zeroize();
}

/// Planes back into 64 blocks (the inverse of [`load`]).
fn store(planes: &[u64; 128], blocks: &mut [u8]) {
    let mut half = [[0u64; 64]; 2];
    for (h, m) in half.iter_mut().enumerate() {
        m.copy_from_slice(&planes[64 * h..64 * h + 64]);
        transpose64(m);
    }
    for (i, b) in blocks.chunks_exact_mut(16).enumerate() {
        for k in 0..4 {
            let v = (half[k / 2][i] >> (32 * (k % 2))) as u32;
            b[4 * k..4 * k + 4].copy_from_slice(&v.to_be_bytes());
        }
    }
    half.zeroize();
}

/// Encrypts (or, with reversed round keys, decrypts) exactly 64 blocks
/// (1024 bytes) in place.
pub(super) fn crypt64(rk: &[u32; 32], data: &mut [u8]) {
    debug_assert_eq!(data.len(), 16 * BLOCKS);
    let mut s = [0u64; 128];
    load(data, &mut s);
    let mut x: [[u64; 32]; 4] = core::array::from_fn(|w| s[32 * w..32 * w + 32].try_into().expect("32 planes"));
    macro_rules! round {
        ($i:expr, $k:expr) => {{
            let mut t = [0u64; 32];
            for (b, v) in t.iter_mut().enumerate() {
                let key = 0u64.wrapping_sub((($k >> b) & 1) as u64);
                *v = x[($i + 1) % 4][b] ^ x[($i + 2) % 4][b] ^ x[($i + 3) % 4][b] ^ key;
            }
            for k in 0..4 {
                let byte: Byte = t[8 * k..8 * k + 8].try_into().expect("8 planes");
                t[8 * k..8 * k + 8].copy_from_slice(&sbox(&byte));
            }
            // L: rotating a word left by r moves bit b - r to bit b.
            let w = &mut x[$i];
            for b in 0..32 {
                w[b] ^= t[b] ^ t[(b + 30) % 32] ^ t[(b + 22) % 32] ^ t[(b + 14) % 32] ^ t[(b + 8) % 32];
            }
            t.zeroize();
        }};
    }
    for r in rk.chunks_exact(4) {
        round!(0, r[0]);
        round!(1, r[1]);
        round!(2, r[2]);
        round!(3, r[3]);
    }
    // Output (X35, X34, X33, X32).
    for (w, planes) in s.chunks_exact_mut(32).enumerate() {
        planes.copy_from_slice(&x[3 - w]);
    }
    store(&s, data);
    s.zeroize();
    x.zeroize();
}

#[cfg(test)]
mod tests {
    use super::super::sbox::sm4_sbox_formula;
    use super::*;

    #[test]
    #[allow(clippy::needless_range_loop)] // i and j index two matrices
    fn transpose_moves_bit_j_of_row_i_to_bit_i_of_row_j() {
        let mut s = 0x243f_6a88_85a3_08d3u64;
        let a: [u64; 64] = core::array::from_fn(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        });
        let mut t = a;
        transpose64(&mut t);
        for i in 0..64 {
            for j in 0..64 {
                assert_eq!((t[j] >> i) & 1, (a[i] >> j) & 1, "{i} {j}");
            }
        }
    }

    #[test]
    fn bitsliced_sbox_matches_formula() {
        // Lane i of the planes holds byte i (and i + 64 - 64 for the upper
        // lanes): 64 inputs per call, four calls cover all 256.
        for base in [0u16, 64, 128, 192] {
            let x: Byte =
                core::array::from_fn(|bit| (0..64).fold(0u64, |acc, i| acc | ((((base + i) as u64) >> bit) & 1) << i));
            let y = sbox(&x);
            for i in 0..64u16 {
                let got = (0..8).fold(0u8, |acc, bit| acc | (((y[bit] >> i) & 1) as u8) << bit);
                assert_eq!(got, sm4_sbox_formula((base + i) as u8), "x = {}", base + i);
            }
        }
    }
}
