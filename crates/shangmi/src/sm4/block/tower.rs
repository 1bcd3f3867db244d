//! The SM4 S-box as a Boolean circuit over a tower field, for bit planes.
//!
//! `S(x) = A·inv(A·x + C) + C` ([`super::sbox`]). Inversion is cheap as a
//! circuit in the tower GF(((2^2)^2)^2) (Canright's construction): an
//! element of GF(2^8) is a1·y + a0 over GF(16), and
//! `(a1·y + a0)^-1 = d^-1·a1·y + d^-1·(a1 + a0)` with the GF(16) norm
//! `d = M·a1^2 + a1·a0 + a0^2`; GF(16) inverts the same way over GF(4),
//! where inversion is squaring. A field isomorphism `T` from SM4's
//! polynomial basis to the tower (derived below by `const fn`s) folds into
//! the affine maps: the input map is `T·A·x + T·C`, the output map
//! `A·T^-1·v + C`. About 210 AND/XOR/NOT operations per S-box, on as many
//! bytes as a plane has bits; no branch or index depends on the data (the
//! branches on the constant matrices fold at compile time).
//!
//! Tower: GF(4) = GF(2)[w]/(w^2 + w + 1), GF(16) = GF(4)[z]/(z^2 + z + w),
//! GF(256) = GF(16)[y]/(y^2 + y + M), polynomial bases throughout; a byte
//! holds a0 in bits 0..3 and a1 in bits 4..7, a GF(16) element its low
//! GF(4) coefficient in bits 0..1, a GF(4) element b1·w + b0 as bits b0, b1.

use core::ops::{BitAnd, BitXor, Not};

use super::sbox::{invert_by_search, mat_rows, COLS, SM4_A_ROWS, SM4_C, SM4_POLY};

// ------------------------------------------------- compile-time algebra

const fn g4_mul(a: u8, b: u8) -> u8 {
    let (a0, a1, b0, b1) = (a & 1, a >> 1, b & 1, b >> 1);
    let p = a0 & b0;
    let q = a1 & b1;
    let r = (a0 ^ a1) & (b0 ^ b1);
    ((r ^ p) << 1) | (p ^ q)
}

/// z^2 = z + N in GF(16), N = w.
const N: u8 = 2;

const fn g16_mul(a: u8, b: u8) -> u8 {
    let (a0, a1, b0, b1) = (a & 3, a >> 2, b & 3, b >> 2);
    let p = g4_mul(a0, b0);
    let q = g4_mul(a1, b1);
    let r = g4_mul(a0 ^ a1, b0 ^ b1);
    ((r ^ p) << 2) | (p ^ g4_mul(N, q))
}

/// y^2 = y + M in GF(256): the least M for which y^2 + y + M has no root
/// in GF(16) (so the quadratic is irreducible).
const M: u8 = {
    let mut m = 1u8;
    loop {
        let mut has_root = false;
        let mut r = 0u8;
        while r < 16 {
            if g16_mul(r, r) ^ r == m {
                has_root = true;
            }
            r += 1;
        }
        if !has_root {
            break m;
        }
        m += 1;
        assert!(m < 16, "no irreducible y^2 + y + M over GF(16)");
    }
};

const fn g256_mul(a: u8, b: u8) -> u8 {
    let (a0, a1, b0, b1) = (a & 15, a >> 4, b & 15, b >> 4);
    let p = g16_mul(a0, b0);
    let q = g16_mul(a1, b1);
    let r = g16_mul(a0 ^ a1, b0 ^ b1);
    ((r ^ p) << 4) | (p ^ g16_mul(M, q))
}

/// A root of SM4's field polynomial 0x1F5 in the tower: `T` maps bit i of
/// SM4's polynomial basis to `BETA^i`.
const BETA: u8 = {
    let mut beta = 2u16;
    loop {
        let b = beta as u8;
        let (mut acc, mut p, mut k) = (0u8, 1u8, 0);
        while k < 9 {
            if ((0x100 | SM4_POLY as u16) >> k) & 1 == 1 {
                acc ^= p;
            }
            p = g256_mul(p, b);
            k += 1;
        }
        if acc == 0 {
            break b;
        }
        beta += 1;
        assert!(beta < 256, "0x1F5 has no root in the tower field");
    }
};

/// Columns of `T`: `T(1 << j) = BETA^j`.
const T_COLS: [u8; 8] = {
    let (mut c, mut p, mut j) = ([0u8; 8], 1u8, 0);
    while j < 8 {
        c[j] = p;
        p = g256_mul(p, BETA);
        j += 1;
    }
    c
};

/// A linear map given by its columns, on one byte (compile time).
const fn apply_cols(cols: &[u8; 8], x: u8) -> u8 {
    let (mut y, mut j) = (0u8, 0);
    while j < 8 {
        if (x >> j) & 1 == 1 {
            y ^= cols[j];
        }
        j += 1;
    }
    y
}

/// `T^-1(v)` by search (T is a bijection).
const fn t_inv(v: u8) -> u8 {
    invert_by_search!(v, |x| apply_cols(&T_COLS, x), "T")
}

/// Input map `T·A` (columns) and its constant `T·C`.
const IN_COLS: [u8; 8] = {
    let (mut c, mut j) = ([0u8; 8], 0);
    while j < 8 {
        c[j] = apply_cols(&T_COLS, COLS[j]);
        j += 1;
    }
    c
};
const IN_C: u8 = apply_cols(&T_COLS, SM4_C);

/// Output map `A·T^-1` (columns); its constant is `C`.
const OUT_COLS: [u8; 8] = {
    let (mut c, mut j) = ([0u8; 8], 0);
    while j < 8 {
        c[j] = mat_rows(&SM4_A_ROWS, t_inv(1 << j));
        j += 1;
    }
    c
};

/// Columns of the GF(16)-linear parts of the norm: `a -> a^2`, times M
/// if `times_m` (squaring is linear in characteristic 2).
const fn square_cols(times_m: bool) -> [u8; 4] {
    let (mut c, mut j) = ([0u8; 4], 0);
    while j < 4 {
        let e = 1u8 << j;
        let sq = g16_mul(e, e);
        c[j] = if times_m { g16_mul(M, sq) } else { sq };
        j += 1;
    }
    c
}

const M_SQ_COLS: [u8; 4] = square_cols(true);
const SQ16_COLS: [u8; 4] = square_cols(false);

// ---------------------------------------------------- the circuit

/// A bit plane: one bit of as many bytes as it is wide.
pub(super) trait Plane: Copy + BitAnd<Output = Self> + BitXor<Output = Self> + Not<Output = Self> {}
impl Plane for u64 {}
impl Plane for u32 {}

type G4<P> = [P; 2];
type G16<P> = [P; 4];

#[inline(always)]
fn g4_mul_p<P: Plane>(a: G4<P>, b: G4<P>) -> G4<P> {
    let p = a[0] & b[0];
    let q = a[1] & b[1];
    let r = (a[0] ^ a[1]) & (b[0] ^ b[1]);
    [p ^ q, r ^ p]
}

/// x^2 = x^-1 in GF(4) (0 to 0): (b1·w + b0)^2 = b1·w + (b1 + b0).
#[inline(always)]
fn g4_sq_p<P: Plane>(a: G4<P>) -> G4<P> {
    [a[0] ^ a[1], a[1]]
}

/// Multiplication by N = w: (b1·w + b0)·w = (b1 + b0)·w + b1.
#[inline(always)]
fn g4_mul_n_p<P: Plane>(a: G4<P>) -> G4<P> {
    [a[1], a[0] ^ a[1]]
}

#[inline(always)]
fn g4_add<P: Plane>(a: G4<P>, b: G4<P>) -> G4<P> {
    [a[0] ^ b[0], a[1] ^ b[1]]
}

#[inline(always)]
fn lo4<P: Plane>(a: G16<P>) -> G4<P> {
    [a[0], a[1]]
}

#[inline(always)]
fn hi4<P: Plane>(a: G16<P>) -> G4<P> {
    [a[2], a[3]]
}

#[inline(always)]
fn join4<P: Plane>(lo: G4<P>, hi: G4<P>) -> G16<P> {
    [lo[0], lo[1], hi[0], hi[1]]
}

#[inline(always)]
fn g16_mul_p<P: Plane>(a: G16<P>, b: G16<P>) -> G16<P> {
    let (a0, a1, b0, b1) = (lo4(a), hi4(a), lo4(b), hi4(b));
    let p = g4_mul_p(a0, b0);
    let q = g4_mul_p(a1, b1);
    let r = g4_mul_p(g4_add(a0, a1), g4_add(b0, b1));
    join4(g4_add(p, g4_mul_n_p(q)), g4_add(r, p))
}

#[inline(always)]
fn g16_add<P: Plane>(a: G16<P>, b: G16<P>) -> G16<P> {
    [a[0] ^ b[0], a[1] ^ b[1], a[2] ^ b[2], a[3] ^ b[3]]
}

/// GF(16) inversion (0 to 0): norm d = N·a1^2 + a1·a0 + a0^2 in GF(4).
#[inline(always)]
fn g16_inv_p<P: Plane>(a: G16<P>) -> G16<P> {
    let (a0, a1) = (lo4(a), hi4(a));
    let d = g4_add(g4_add(g4_mul_n_p(g4_sq_p(a1)), g4_sq_p(a0)), g4_mul_p(a1, a0));
    let di = g4_sq_p(d);
    join4(g4_mul_p(di, g4_add(a1, a0)), g4_mul_p(di, a1))
}

/// A GF(16)-linear map given by its columns, on planes.
#[inline(always)]
fn linear4<P: Plane>(cols: &[u8; 4], x: G16<P>) -> G16<P> {
    let mut y: [Option<P>; 4] = [None; 4];
    for (i, out) in y.iter_mut().enumerate() {
        for (j, &xj) in x.iter().enumerate() {
            // Constant matrix: this branch folds at compile time.
            if (cols[j] >> i) & 1 == 1 {
                *out = Some(match *out {
                    Some(v) => v ^ xj,
                    None => xj,
                });
            }
        }
    }
    y.map(|v| v.expect("invertible maps have no zero row"))
}

/// An affine byte map (columns and constant), on planes.
#[inline(always)]
fn affine8<P: Plane>(cols: &[u8; 8], c: u8, x: &[P; 8]) -> [P; 8] {
    let mut y: [Option<P>; 8] = [None; 8];
    for (i, out) in y.iter_mut().enumerate() {
        for (j, &xj) in x.iter().enumerate() {
            // Constant matrix and constant: these branches fold at compile time.
            if (cols[j] >> i) & 1 == 1 {
                *out = Some(match *out {
                    Some(v) => v ^ xj,
                    None => xj,
                });
            }
        }
    }
    core::array::from_fn(|i| {
        let v = y[i].expect("invertible maps have no zero row");
        if (c >> i) & 1 == 1 {
            !v
        } else {
            v
        }
    })
}

/// The SM4 S-box on bit planes: `x[b]` holds bit b of every byte.
#[inline(always)]
pub(super) fn sbox<P: Plane>(x: &[P; 8]) -> [P; 8] {
    let u = affine8(&IN_COLS, IN_C, x);
    let (a0, a1): (G16<P>, G16<P>) = ([u[0], u[1], u[2], u[3]], [u[4], u[5], u[6], u[7]]);
    let d = g16_add(g16_add(linear4(&M_SQ_COLS, a1), linear4(&SQ16_COLS, a0)), g16_mul_p(a1, a0));
    let di = g16_inv_p(d);
    let v0 = g16_mul_p(di, g16_add(a1, a0));
    let v1 = g16_mul_p(di, a1);
    affine8(&OUT_COLS, SM4_C, &[v0[0], v0[1], v0[2], v0[3], v1[0], v1[1], v1[2], v1[3]])
}

#[cfg(test)]
mod tests {
    use super::super::sbox::sm4_sbox_formula;
    use super::*;

    /// The scalar tower field is a field: every nonzero element has an
    /// inverse, found by search (independent of the circuit's formula).
    #[test]
    fn tower_is_a_field_and_t_is_an_isomorphism() {
        for a in 1..=255u8 {
            assert_eq!((1..=255u8).filter(|&b| g256_mul(a, b) == 1).count(), 1, "a = {a}");
        }
        // T(x·y) = T(x)·T(y) for SM4's multiplication (schoolbook, mod 0x1F5).
        let sm4_mul = |mut a: u8, b: u8| {
            let mut r = 0u8;
            for i in 0..8 {
                if (b >> i) & 1 == 1 {
                    r ^= a;
                }
                a = (a << 1) ^ if a & 0x80 != 0 { SM4_POLY } else { 0 };
            }
            r
        };
        for a in 0..=255u8 {
            for b in [1u8, 2, 3, 0x53, 0xCA, 0xFF, a] {
                let t = |x| apply_cols(&T_COLS, x);
                assert_eq!(t(sm4_mul(a, b)), g256_mul(t(a), t(b)), "{a} {b}");
            }
        }
    }

    #[test]
    fn circuit_matches_formula_on_every_byte() {
        // u32 planes: 32 bytes per call; u64: 64.
        for base in (0u16..256).step_by(32) {
            let x: [u32; 8] =
                core::array::from_fn(|bit| (0..32).fold(0u32, |acc, i| acc | ((((base + i) as u32) >> bit) & 1) << i));
            let y = sbox(&x);
            for i in 0..32u16 {
                let got = (0..8).fold(0u8, |acc, bit| acc | (((y[bit] >> i) & 1) as u8) << bit);
                assert_eq!(got, sm4_sbox_formula((base + i) as u8), "x = {}", base + i);
            }
        }
    }
}
