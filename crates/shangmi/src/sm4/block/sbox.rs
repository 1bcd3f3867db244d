//! The algebra of the SM4 S-box, evaluated at compile time.
//!
//! SM4's S-box is affine–inversion–affine over GF(2^8) with the field
//! polynomial x^8+x^7+x^6+x^5+x^4+x^2+1 (0x1F5):
//! `S(x) = A·inv(A·x + 0xD3) + 0xD3`, where row i of the bit matrix `A` is
//! `0xA7` rotated left by i (output bit i = parity(row_i & x)). No S-box table
//! is stored anywhere in the crate: the portable backend evaluates this
//! formula with masks (constant time), and the AES-NI backend maps it onto the
//! AES S-box through a field isomorphism derived here by `const fn`s. The
//! tests compare the result with the standard's block-cipher vectors.

/// Low byte of the SM4 field polynomial 0x1F5.
pub(crate) const SM4_POLY: u8 = 0xF5;
/// The additive constant of both SM4 affine maps.
pub(crate) const SM4_C: u8 = 0xD3;

/// Rows of the SM4 affine matrix: row i = 0xA7 rotated left by i.
pub(crate) const SM4_A_ROWS: [u8; 8] = {
    let mut rows = [0u8; 8];
    let mut i = 0;
    while i < 8 {
        rows[i] = 0xA7u8.rotate_left(i as u32);
        i += 1;
    }
    rows
};

/// Apply an 8x8 bit matrix given by rows (output bit i = parity(rows[i] & x)).
pub(crate) const fn mat_rows(rows: &[u8; 8], x: u8) -> u8 {
    let mut y = 0u8;
    let mut i = 0;
    while i < 8 {
        y |= (((rows[i] & x).count_ones() & 1) as u8) << i;
        i += 1;
    }
    y
}

/// Columns of the SM4 affine matrix: `A·x = XOR_j bit_j(x) * COLS[j]`.
pub(crate) const COLS: [u8; 8] = {
    let mut c = [0u8; 8];
    let mut j = 0;
    while j < 8 {
        c[j] = mat_rows(&SM4_A_ROWS, 1 << j);
        j += 1;
    }
    c
};

/// Multiplication in GF(2^8) modulo x^8 + (low byte `poly`); compile time only.
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) const fn gmul(mut a: u8, b: u8, poly: u8) -> u8 {
    let mut r = 0u8;
    let mut i = 0;
    while i < 8 {
        if (b >> i) & 1 == 1 {
            r ^= a;
        }
        let hi = a & 0x80;
        a <<= 1;
        if hi != 0 {
            a ^= poly;
        }
        i += 1;
    }
    r
}

#[cfg(test)]
/// `a^254` = multiplicative inverse (0 maps to 0); compile time only.
pub(crate) const fn ginv(a: u8, poly: u8) -> u8 {
    let mut r = 1u8;
    let mut i = 0;
    while i < 254 {
        r = gmul(r, a, poly);
        i += 1;
    }
    r
}

#[cfg(test)]
/// The SM4 S-box evaluated from its algebraic description (compile time or tests).
pub(crate) const fn sm4_sbox_formula(x: u8) -> u8 {
    mat_rows(&SM4_A_ROWS, ginv(mat_rows(&SM4_A_ROWS, x) ^ SM4_C, SM4_POLY)) ^ SM4_C
}

/// The preimage of `$y` under a byte bijection, found by trying all 256
/// bytes (for `const` tables and maps: compile-time work, so the search is
/// fine). `|x| body` names the map; a map found not to be a bijection
/// stops the build with `$what`.
macro_rules! invert_by_search {
    ($y:expr, |$x:ident| $body:expr, $what:literal) => {{
        let y: u8 = $y;
        let mut v = 0u16;
        loop {
            if v == 256 {
                panic!(concat!($what, " is not a bijection"))
            }
            let $x = v as u8;
            if $body == y {
                break $x;
            }
            v += 1;
        }
    }};
}
pub(crate) use invert_by_search;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sm4_sbox_first_row_matches_standard() {
        // First row of the S-box table printed in GB/T 32907-2016.
        let row = [0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7, 0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05];
        for (i, &v) in row.iter().enumerate() {
            assert_eq!(sm4_sbox_formula(i as u8), v);
        }
    }
}
