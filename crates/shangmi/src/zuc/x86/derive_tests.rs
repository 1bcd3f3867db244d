//! The generator of the x86 kernels' S1 constants, as a test: each is
//! recomputed from the specification (S1's table in GB/T 33133.1-2016,
//! S1 = A·x⁻¹ + 0x55 in GF(2⁸) mod x⁸+x⁷+x³+x+1, and the AES S-box's
//! affine map, FIPS 197 §5.1.1) and compared with the literal in use.
//!
//! PRE (and the GFNI matrix M) is the field isomorphism from S1's field onto
//! the AES field that sends x to the smallest root of x⁸+x⁷+x³+x+1 there;
//! POST (and the GFNI matrix B) is A after the way back, and, for
//! AESENCLAST, after undoing the AES S-box's affine map.

use super::f::{POST_HI, POST_LO, PRE_HI, PRE_LO};
use super::lanes16::{GFNI_S1_C, GFNI_S1_POST, GFNI_S1_PRE};
use crate::zuc::sbox::S1;

/// The product in GF(2⁸) modulo `poly` (bit 8 included).
fn mul(mut a: u32, mut b: u32, poly: u32) -> u32 {
    let mut r = 0;
    while b != 0 {
        if b & 1 == 1 {
            r ^= a;
        }
        b >>= 1;
        a <<= 1;
        if a & 0x100 != 0 {
            a ^= poly;
        }
    }
    r
}

fn inv(a: u32, poly: u32) -> u32 {
    (1..256).find(|&y| mul(a, y, poly) == 1).unwrap_or(0)
}

/// The linear map with images `cols[i]` of the unit vectors.
fn apply(cols: &[u32; 8], x: u32) -> u32 {
    (0..8).filter(|i| (x >> i) & 1 == 1).fold(0, |acc, i| acc ^ cols[i])
}

/// `f` as a GFNI matrix: row i (output bit i) in byte 7 - i.
fn gfni_matrix(f: impl Fn(u32) -> u32) -> u64 {
    (0..8).fold(0u64, |m, i| {
        let row = (0..8).fold(0u64, |r, j| r | ((((f(1 << j) >> i) & 1) as u64) << j));
        m | (row << (8 * (7 - i)))
    })
}

#[test]
fn s1_constants_follow_from_the_specification() {
    const ZUC_POLY: u32 = 0x18b;
    const AES_POLY: u32 = 0x11b;
    let pow = |b: u32, e: u32| (0..e).fold(1, |r, _| mul(r, b, AES_POLY));
    let beta = (2..256)
        .find(|&y| pow(y, 8) ^ pow(y, 7) ^ pow(y, 3) ^ y ^ 1 == 0)
        .expect("x⁸+x⁷+x³+x+1 has roots in the AES field");
    let phi_cols: [u32; 8] = core::array::from_fn(|i| pow(beta, i as u32));
    let phi = |x: u32| apply(&phi_cols, x);
    let mut phi_inv = [0u32; 256];
    (0..256).for_each(|x| phi_inv[phi(x) as usize] = x);
    // A from the table: A·v = S1(v⁻¹) + 0x55 (inversion is an involution).
    let a_cols: [u32; 8] = core::array::from_fn(|i| S1[inv(1 << i, ZUC_POLY) as usize] as u32 ^ 0x55);
    for x in 0..256 {
        assert_eq!(apply(&a_cols, inv(x, ZUC_POLY)) ^ 0x55, S1[x as usize] as u32, "S1 is A·x⁻¹ + 0x55");
    }
    // The AES S-box's affine map (linear part) and its inverse.
    let aes_affine = |a: u32| {
        (0..8).fold(0, |r, i| {
            r | ((a >> i ^ a >> ((i + 4) % 8) ^ a >> ((i + 5) % 8) ^ a >> ((i + 6) % 8) ^ a >> ((i + 7) % 8)) & 1) << i
        })
    };
    let mut aes_affine_inv = [0u32; 256];
    (0..256).for_each(|x| aes_affine_inv[aes_affine(x) as usize] = x);
    let post = |y: u32| apply(&a_cols, phi_inv[aes_affine_inv[y as usize] as usize]);
    for n in 0..16u32 {
        assert_eq!(PRE_LO[n as usize] as u32, phi(n), "PRE_LO[{n}]");
        assert_eq!(PRE_HI[n as usize] as u32, phi(n << 4), "PRE_HI[{n}]");
        assert_eq!(POST_LO[n as usize] as u32, post(n), "POST_LO[{n}]");
        assert_eq!(POST_HI[n as usize] as u32, post(n << 4), "POST_HI[{n}]");
    }
    assert_eq!(GFNI_S1_PRE, gfni_matrix(phi));
    assert_eq!(GFNI_S1_POST, gfni_matrix(|y| apply(&a_cols, phi_inv[y as usize])));
    assert_eq!(GFNI_S1_C, 0x55);
}
