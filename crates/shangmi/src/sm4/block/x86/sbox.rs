//! The SM4 S-box mapped onto x86-64 instructions, at compile time: the
//! field isomorphism phi from SM4's field onto AES's (so `aesenclast`'s
//! S-box computes SM4's between two affine byte maps, [`aes_pre`] and
//! [`aes_post`]), the `gf2p8affineinvqb` matrices of the GFNI path, and the
//! byte maps of the latency round's domain ([`lin`], h0, h1, h3). The tests
//! check each path against the S-box formula on every byte.

use crate::sm4::block::sbox::{gmul, invert_by_search, mat_rows, SM4_A_ROWS, SM4_C};

/// Low byte of the AES field polynomial 0x11B.
const AES_POLY: u8 = 0x1B;

#[cfg(test)]
/// The AES S-box from its description (affine after inversion mod 0x11B).
pub(crate) const fn aes_sbox_formula(x: u8) -> u8 {
    let b = crate::sm4::block::sbox::ginv(x, AES_POLY);
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
}

/// A root of the SM4 field polynomial inside the AES field: mapping the SM4
/// generator x to it extends to a field isomorphism phi (bit i -> beta^i).
const BETA: u8 = {
    let mut beta = 2u16;
    loop {
        // Evaluate x^8+x^7+x^6+x^5+x^4+x^2+1 at beta in the AES field.
        let b = beta as u8;
        let mut acc = 0u8;
        let mut p = 1u8;
        let mut k = 0;
        while k < 9 {
            if (0x1F5u16 >> k) & 1 == 1 {
                acc ^= p;
            }
            p = gmul(p, b, AES_POLY);
            k += 1;
        }
        if acc == 0 {
            break b;
        }
        beta += 1;
        assert!(beta < 256, "SM4 field polynomial has no root in the AES field");
    }
};

/// The isomorphism phi: GF(2^8)/0x1F5 -> GF(2^8)/0x11B.
pub(crate) const fn phi(x: u8) -> u8 {
    let mut y = 0u8;
    let mut p = 1u8;
    let mut i = 0;
    while i < 8 {
        if (x >> i) & 1 == 1 {
            y ^= p;
        }
        p = gmul(p, BETA, AES_POLY);
        i += 1;
    }
    y
}

/// Pre-affine for the AES-NI path: `pre(x) = phi(A·x + C)`, so that
/// `inv_aes(pre(x)) = phi(inv_sm4(A·x + C))`.
pub(crate) const fn aes_pre(x: u8) -> u8 {
    phi(mat_rows(&SM4_A_ROWS, x) ^ SM4_C)
}

/// Post-affine for the AES-NI path: `aesenclast` returns
/// `z = SubBytes_aes(u) = Aff_aes(inv_aes(u))`; this maps z back to `S(x)`.
pub(crate) const fn aes_post(z: u8) -> u8 {
    // Undo the AES affine map by inverting it as a 256-entry permutation, then
    // undo phi the same way (both are bijections; compile-time search is fine).
    let inv = invert_linear_aes_affine(z);
    let w = invert_phi(inv);
    mat_rows(&SM4_A_ROWS, w) ^ SM4_C
}

const fn invert_linear_aes_affine(z: u8) -> u8 {
    // Aff_aes(v) = v ^ rotl1 ^ rotl2 ^ rotl3 ^ rotl4 ^ 0x63.
    invert_by_search!(
        z,
        |b| b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63,
        "the AES affine map"
    )
}

const fn invert_phi(y: u8) -> u8 {
    invert_by_search!(y, |v| phi(v), "phi")
}

/// 4-bit lookup tables for an affine byte map `f`: `f(x) = lo[x & 15] ^ hi[x >> 4]`
/// (the constant is folded into `lo`). Laid out for `pshufb` (16 bytes each).
macro_rules! nibble_tables {
    ($f:ident) => {{
        let c = $f(0);
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 16];
        let mut i = 0;
        while i < 16 {
            lo[i] = $f(i as u8);
            hi[i] = $f((i as u8) << 4) ^ c;
            i += 1;
        }
        (lo, hi)
    }};
}

pub(crate) use nibble_tables;

/// Nibble tables of [`aes_pre`] (low, high).
pub(crate) const PRE_TABLES: ([u8; 16], [u8; 16]) = nibble_tables!(aes_pre);
/// Nibble tables of [`aes_post`] (low, high).
pub(crate) const POST_TABLES: ([u8; 16], [u8; 16]) = nibble_tables!(aes_post);

/// Columns of a linear map (`cols[j] = f(1 << j)`) to the `gf2p8affineqb`
/// qword.
pub(crate) const fn gfni_matrix(cols: [u8; 8]) -> u64 {
    let mut q = 0u64;
    let mut i = 0;
    while i < 8 {
        let mut row = 0u8;
        let mut j = 0;
        while j < 8 {
            row |= ((cols[j] >> i) & 1) << j;
            j += 1;
        }
        q |= (row as u64) << (8 * (7 - i));
        i += 1;
    }
    q
}

/// GFNI pre-map `u = phi(A·x + C)` (linear part): `gf2p8affineinvqb` then
/// inverts `u` in the AES field, which is `phi(inv_sm4(A·x + C))`.
pub(crate) const GFNI_PRE: u64 = {
    let mut cols = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        cols[j] = phi(mat_rows(&SM4_A_ROWS, 1 << j));
        j += 1;
    }
    gfni_matrix(cols)
};
/// The byte map of the GFNI post-step: `A·phi^-1(v) + C`, the S-box output
/// for the AES-field inverse `v` of its (mapped) input.
pub(crate) const fn gfni_post(v: u8) -> u8 {
    mat_rows(&SM4_A_ROWS, invert_phi(v)) ^ SM4_C
}

/// The constant of the GFNI pre-map, `phi(C)`.
pub(crate) const GFNI_PRE_C: u8 = phi(SM4_C);
/// GFNI post-map `A·phi^-1(v)` (linear part), applied by `gf2p8affineinvqb`
/// to the AES-field inverse `v`; its constant is [`SM4_C`].
pub(crate) const GFNI_POST: u64 = {
    let mut cols = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        cols[j] = mat_rows(&SM4_A_ROWS, invert_phi(1 << j));
        j += 1;
    }
    gfni_matrix(cols)
};

// The round domain of the latency and GFNI paths: state words are kept as
// `lin(x)`, the linear part of the pre-map (`aes_pre(x) = lin(x) ^
// aes_pre(0)`, a byte-wise bijection), and the round's output map
// `lin ∘ L ∘ S` is folded into three byte maps of the AES-field inverse
// (h0 for the unrotated word, h1 for its rotations by 8 and 16 bits, h3 for
// 24): with `Y = S(x)`, `a = Y << 2` and `b = Y >> 6` per byte,
// L(Y) = [Y ⊕ a] ⊕ R8[a ⊕ b] ⊕ R16[a ⊕ b] ⊕ R24[Y ⊕ b], and `lin` commutes
// with byte rotations (serial.rs has the derivation).

/// `pre`'s linear part.
pub(crate) const fn lin(x: u8) -> u8 {
    aes_pre(x) ^ aes_pre(0)
}

pub(crate) const fn lin_inv(y: u8) -> u8 {
    invert_by_search!(y, |v| lin(v), "pre's linear part")
}

// The same maps for GFNI, where `gf2p8affineinvqb` hands over the
// AES-field inverse `v` of the S-box input instead of `aesenclast`'s
// `z`: `Y = gfni_post(v)`.
const fn h0(v: u8) -> u8 {
    let y = gfni_post(v);
    lin(y ^ (y << 2))
}
const fn h1(v: u8) -> u8 {
    let y = gfni_post(v);
    lin((y << 2) ^ (y >> 6))
}
const fn h3(v: u8) -> u8 {
    let y = gfni_post(v);
    lin(y ^ (y >> 6))
}

/// An affine byte map as a `gf2p8affine(inv)qb` matrix and constant.
macro_rules! gfni_affine {
    ($f:ident) => {{
        let c = $f(0);
        let mut cols = [0u8; 8];
        let mut j = 0;
        while j < 8 {
            cols[j] = $f(1 << j) ^ c;
            j += 1;
        }
        (gfni_matrix(cols), c)
    }};
}

pub(crate) const LIN_Q: (u64, u8) = gfni_affine!(lin);
pub(crate) const LIN_INV_Q: (u64, u8) = gfni_affine!(lin_inv);
pub(crate) const H0_Q: (u64, u8) = gfni_affine!(h0);
pub(crate) const H1_Q: (u64, u8) = gfni_affine!(h1);
pub(crate) const H3_Q: (u64, u8) = gfni_affine!(h3);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm4::block::sbox::{ginv, sm4_sbox_formula, SM4_POLY};

    #[test]
    fn phi_is_a_field_isomorphism() {
        for a in 0..=255u8 {
            for b in [1u8, 2, 3, 0x53, 0xA7, 0xFF, a.wrapping_mul(7)] {
                assert_eq!(phi(gmul(a, b, SM4_POLY)), gmul(phi(a), phi(b), AES_POLY));
                assert_eq!(phi(a ^ b), phi(a) ^ phi(b));
            }
        }
    }

    #[test]
    fn aes_sbox_formula_matches_fips197_samples() {
        // FIPS-197 Figure 7 entries.
        assert_eq!(aes_sbox_formula(0x00), 0x63);
        assert_eq!(aes_sbox_formula(0x53), 0xed);
        assert_eq!(aes_sbox_formula(0xff), 0x16);
    }

    #[test]
    fn aes_path_equals_sm4_sbox() {
        let (plo, phi_) = PRE_TABLES;
        let (qlo, qhi) = POST_TABLES;
        for x in 0..=255u8 {
            let u = plo[(x & 15) as usize] ^ phi_[(x >> 4) as usize];
            let z = aes_sbox_formula(u);
            let s = qlo[(z & 15) as usize] ^ qhi[(z >> 4) as usize];
            assert_eq!(s, sm4_sbox_formula(x), "x = {x:#04x}");
        }
    }

    /// `gf2p8affineqb` on one byte, as the Intel SDM defines it.
    fn affine_qb(x: u8, q: u64, b: u8) -> u8 {
        let mut y = 0u8;
        for i in 0..8 {
            let row = (q >> (8 * (7 - i))) as u8;
            y |= (((row & x).count_ones() & 1) as u8) << i;
        }
        y ^ b
    }

    #[test]
    fn gfni_path_equals_sm4_sbox() {
        for x in 0..=255u8 {
            let u = affine_qb(x, GFNI_PRE, GFNI_PRE_C);
            let s = affine_qb(ginv(u, AES_POLY), GFNI_POST, SM4_C);
            assert_eq!(s, sm4_sbox_formula(x), "x = {x:#04x}");
        }
    }
}
