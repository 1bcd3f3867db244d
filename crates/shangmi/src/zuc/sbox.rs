//! The ZUC S-boxes S0 and S1, computed without secret-dependent memory
//! indices.
//!
//! The tables themselves (GB/T 33133.1-2016, GM/T 0001-2012) are kept for the
//! tests and for the constant-time scan of S1; nothing indexes them by a
//! secret byte.
//!
//! * S0 is built from three 4-bit permutations P1, P2, P3 in a Feistel-like
//!   network followed by a 5-bit rotation (the structure given by its
//!   designers). Each 4-bit permutation fits in one `u64` (16 nibbles), so a
//!   lookup is a register shift, not a memory access.
//! * S1 is affine-equivalent to field inversion (S1(x) = A·x⁻¹ + 0x55 in
//!   GF(2⁸) mod x⁸+x⁷+x³+x+1). The SIMD backend computes it with AES-NI; the
//!   portable path inverts in a tower field GF((2⁴)²) with register-held
//!   tables and masked GF(16) products, four bytes at a time.

/// S0 of GB/T 33133.1-2016 (for tests; never indexed by secret data).
#[cfg(test)]
pub(crate) const S0: [u8; 256] = [
    0x3e, 0x72, 0x5b, 0x47, 0xca, 0xe0, 0x00, 0x33, 0x04, 0xd1, 0x54, 0x98, 0x09, 0xb9, 0x6d, 0xcb, 0x7b, 0x1b, 0xf9,
    0x32, 0xaf, 0x9d, 0x6a, 0xa5, 0xb8, 0x2d, 0xfc, 0x1d, 0x08, 0x53, 0x03, 0x90, 0x4d, 0x4e, 0x84, 0x99, 0xe4, 0xce,
    0xd9, 0x91, 0xdd, 0xb6, 0x85, 0x48, 0x8b, 0x29, 0x6e, 0xac, 0xcd, 0xc1, 0xf8, 0x1e, 0x73, 0x43, 0x69, 0xc6, 0xb5,
    0xbd, 0xfd, 0x39, 0x63, 0x20, 0xd4, 0x38, 0x76, 0x7d, 0xb2, 0xa7, 0xcf, 0xed, 0x57, 0xc5, 0xf3, 0x2c, 0xbb, 0x14,
    0x21, 0x06, 0x55, 0x9b, 0xe3, 0xef, 0x5e, 0x31, 0x4f, 0x7f, 0x5a, 0xa4, 0x0d, 0x82, 0x51, 0x49, 0x5f, 0xba, 0x58,
    0x1c, 0x4a, 0x16, 0xd5, 0x17, 0xa8, 0x92, 0x24, 0x1f, 0x8c, 0xff, 0xd8, 0xae, 0x2e, 0x01, 0xd3, 0xad, 0x3b, 0x4b,
    0xda, 0x46, 0xeb, 0xc9, 0xde, 0x9a, 0x8f, 0x87, 0xd7, 0x3a, 0x80, 0x6f, 0x2f, 0xc8, 0xb1, 0xb4, 0x37, 0xf7, 0x0a,
    0x22, 0x13, 0x28, 0x7c, 0xcc, 0x3c, 0x89, 0xc7, 0xc3, 0x96, 0x56, 0x07, 0xbf, 0x7e, 0xf0, 0x0b, 0x2b, 0x97, 0x52,
    0x35, 0x41, 0x79, 0x61, 0xa6, 0x4c, 0x10, 0xfe, 0xbc, 0x26, 0x95, 0x88, 0x8a, 0xb0, 0xa3, 0xfb, 0xc0, 0x18, 0x94,
    0xf2, 0xe1, 0xe5, 0xe9, 0x5d, 0xd0, 0xdc, 0x11, 0x66, 0x64, 0x5c, 0xec, 0x59, 0x42, 0x75, 0x12, 0xf5, 0x74, 0x9c,
    0xaa, 0x23, 0x0e, 0x86, 0xab, 0xbe, 0x2a, 0x02, 0xe7, 0x67, 0xe6, 0x44, 0xa2, 0x6c, 0xc2, 0x93, 0x9f, 0xf1, 0xf6,
    0xfa, 0x36, 0xd2, 0x50, 0x68, 0x9e, 0x62, 0x71, 0x15, 0x3d, 0xd6, 0x40, 0xc4, 0xe2, 0x0f, 0x8e, 0x83, 0x77, 0x6b,
    0x25, 0x05, 0x3f, 0x0c, 0x30, 0xea, 0x70, 0xb7, 0xa1, 0xe8, 0xa9, 0x65, 0x8d, 0x27, 0x1a, 0xdb, 0x81, 0xb3, 0xa0,
    0xf4, 0x45, 0x7a, 0x19, 0xdf, 0xee, 0x78, 0x34, 0x60,
];

/// S1 of GB/T 33133.1-2016 (for tests; never indexed by secret data).
#[cfg(test)]
pub(crate) const S1: [u8; 256] = [
    0x55, 0xc2, 0x63, 0x71, 0x3b, 0xc8, 0x47, 0x86, 0x9f, 0x3c, 0xda, 0x5b, 0x29, 0xaa, 0xfd, 0x77, 0x8c, 0xc5, 0x94,
    0x0c, 0xa6, 0x1a, 0x13, 0x00, 0xe3, 0xa8, 0x16, 0x72, 0x40, 0xf9, 0xf8, 0x42, 0x44, 0x26, 0x68, 0x96, 0x81, 0xd9,
    0x45, 0x3e, 0x10, 0x76, 0xc6, 0xa7, 0x8b, 0x39, 0x43, 0xe1, 0x3a, 0xb5, 0x56, 0x2a, 0xc0, 0x6d, 0xb3, 0x05, 0x22,
    0x66, 0xbf, 0xdc, 0x0b, 0xfa, 0x62, 0x48, 0xdd, 0x20, 0x11, 0x06, 0x36, 0xc9, 0xc1, 0xcf, 0xf6, 0x27, 0x52, 0xbb,
    0x69, 0xf5, 0xd4, 0x87, 0x7f, 0x84, 0x4c, 0xd2, 0x9c, 0x57, 0xa4, 0xbc, 0x4f, 0x9a, 0xdf, 0xfe, 0xd6, 0x8d, 0x7a,
    0xeb, 0x2b, 0x53, 0xd8, 0x5c, 0xa1, 0x14, 0x17, 0xfb, 0x23, 0xd5, 0x7d, 0x30, 0x67, 0x73, 0x08, 0x09, 0xee, 0xb7,
    0x70, 0x3f, 0x61, 0xb2, 0x19, 0x8e, 0x4e, 0xe5, 0x4b, 0x93, 0x8f, 0x5d, 0xdb, 0xa9, 0xad, 0xf1, 0xae, 0x2e, 0xcb,
    0x0d, 0xfc, 0xf4, 0x2d, 0x46, 0x6e, 0x1d, 0x97, 0xe8, 0xd1, 0xe9, 0x4d, 0x37, 0xa5, 0x75, 0x5e, 0x83, 0x9e, 0xab,
    0x82, 0x9d, 0xb9, 0x1c, 0xe0, 0xcd, 0x49, 0x89, 0x01, 0xb6, 0xbd, 0x58, 0x24, 0xa2, 0x5f, 0x38, 0x78, 0x99, 0x15,
    0x90, 0x50, 0xb8, 0x95, 0xe4, 0xd0, 0x91, 0xc7, 0xce, 0xed, 0x0f, 0xb4, 0x6f, 0xa0, 0xcc, 0xf0, 0x02, 0x4a, 0x79,
    0xc3, 0xde, 0xa3, 0xef, 0xea, 0x51, 0xe6, 0x6b, 0x18, 0xec, 0x1b, 0x2c, 0x80, 0xf7, 0x74, 0xe7, 0xff, 0x21, 0x5a,
    0x6a, 0x54, 0x1e, 0x41, 0x31, 0x92, 0x35, 0xc4, 0x33, 0x07, 0x0a, 0xba, 0x7e, 0x0e, 0x34, 0x88, 0xb1, 0x98, 0x7c,
    0xf3, 0x3d, 0x60, 0x6c, 0x7b, 0xca, 0xd3, 0x1f, 0x32, 0x65, 0x04, 0x28, 0x64, 0xbe, 0x85, 0x9b, 0x2f, 0x59, 0x8a,
    0xd7, 0xb0, 0x25, 0xac, 0xaf, 0x12, 0x03, 0xe2, 0xf2,
];

/// The 4-bit permutations behind S0, as 16-entry nibble lists (entry i in
/// list position i). Verified against [`S0`] in the tests below.
pub(crate) const P1: [u8; 16] = [0x9, 0xf, 0x0, 0xe, 0xf, 0xf, 0x2, 0xa, 0x0, 0x4, 0x0, 0xc, 0x7, 0x5, 0x3, 0x9];
pub(crate) const P2: [u8; 16] = [0x8, 0xd, 0x6, 0x5, 0x7, 0x0, 0xc, 0x4, 0xb, 0x1, 0xe, 0xa, 0xf, 0x3, 0x9, 0x2];
pub(crate) const P3: [u8; 16] = [0x2, 0x6, 0xa, 0x6, 0x0, 0xd, 0xa, 0xf, 0x3, 0x3, 0xd, 0x5, 0x0, 0x9, 0xc, 0xd];

const fn pack_nibbles(t: &[u8; 16]) -> u64 {
    let mut v = 0u64;
    let mut i = 0;
    while i < 16 {
        v |= (t[i] as u64) << (4 * i);
        i += 1;
    }
    v
}

/// S0's last two steps in one 16-entry table for the SIMD backend:
/// Q3[n] = rotl5(P3[n] << 4) ^ rotl5(n) on bytes, so that
/// S0(x) = Q3[t1] ^ (t2 << 1) (the rotation of t2 << 4 by 5 is t2 << 1).
#[cfg(any(test, target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) const Q3: [u8; 16] = {
    let mut q = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        q[n] = (P3[n] << 4).rotate_left(5) ^ (n as u8).rotate_left(5);
        n += 1;
    }
    q
};

const P1_PACKED: u64 = pack_nibbles(&P1);
const P2_PACKED: u64 = pack_nibbles(&P2);
const P3_PACKED: u64 = pack_nibbles(&P3);

/// Entry `i & 15` of a packed nibble table: a shift of a register by a secret
/// amount, which is constant-time on every CPU we target (no memory access).
#[inline(always)]
fn nib(table: u64, i: u32) -> u32 {
    ((table >> (4 * (i & 15))) & 15) as u32
}

/// S0(x) for the low byte of `x`, constant time.
#[inline(always)]
pub(crate) fn s0(x: u32) -> u32 {
    let lo = x & 15;
    let hi = (x >> 4) & 15;
    let t2 = nib(P1_PACKED, lo) ^ hi;
    let t1 = nib(P2_PACKED, t2) ^ lo;
    let o = nib(P3_PACKED, t1) ^ t2;
    let y = (o << 4) | t1;
    ((y << 5) | (y >> 3)) & 0xff
}

// S1 through a tower field: GF(2^8) mod 0x18B is mapped onto GF(16)[y]/(y² + y + 8)
// with GF(16) = GF(2)[z]/(z⁴ + z + 1), where an inverse needs only GF(16)
// arithmetic: (a·y + b)⁻¹ = (a·y + (a + b))·Δ⁻¹ with Δ = a²·8 + a·b + b².
// The maps in and out (the latter including S1's matrix A) are linear, so
// each is two 16-entry byte tables; all small tables live in registers
// (`u128`/`u64`) and are read by shifting, never by indexing memory. The
// test `tower_tables_follow_from_the_specification` is their generator: it
// recomputes them from S1's table and the field definitions (the map in
// sends x to the smallest root of x⁸+x⁷+x³+x+1 in the tower field).

/// The isomorphism into the tower field, on the low and the high nibble.
const TOWER_IN_LO: u128 = 0xf1f075743839bcbd4c4dc8c985840100;
const TOWER_IN_HI: u128 = 0xd32ffe0249b564984bb7669ad12dfc00;
/// A · (the isomorphism back), on the low and the high nibble.
const TOWER_OUT_LO: u128 = 0x2dbae1763aadf6614cdb80175bcc9700;
const TOWER_OUT_HI: u128 = 0x98a7a49b2a151629b18e8db2033c3f00;
/// The product in GF(16) = GF(2)[z]/(z⁴ + z + 1) (compile time only).
const fn gf16_mul(mut a: u8, b: u8) -> u8 {
    let mut r = 0;
    let mut i = 0;
    while i < 4 {
        if (b >> i) & 1 == 1 {
            r ^= a;
        }
        a <<= 1;
        if a & 0x10 != 0 {
            a ^= 0x13;
        }
        i += 1;
    }
    r
}

/// A GF(16) function tabulated as 16 nibbles (entry n at bits 4n..4n+4).
const fn gf16_table(f: u8) -> u64 {
    let mut t = [0u8; 16];
    let mut n = 0;
    while n < 16 {
        let sq = gf16_mul(n as u8, n as u8);
        t[n] = match f {
            0 => gf16_mul(sq, 8),
            1 => sq,
            _ => {
                // n⁻¹ = n¹⁴ (0 maps to 0)
                let n4 = gf16_mul(sq, sq);
                let n8 = gf16_mul(n4, n4);
                gf16_mul(gf16_mul(n8, n4), sq)
            }
        };
        n += 1;
    }
    pack_nibbles(&t)
}

/// n²·8 (8 = z³ is the tower's λ), n² and n⁻¹ in GF(16), one nibble per entry.
const GF16_SQ_LAMBDA: u64 = gf16_table(0);
const GF16_SQ: u64 = gf16_table(1);
const GF16_INV: u64 = gf16_table(2);

/// Entry `i & 15` of a 16-byte table held in a register.
#[inline(always)]
fn byte_of(table: u128, i: u32) -> u32 {
    ((table >> (8 * (i & 15))) & 0xff) as u32
}

/// Products in GF(16) of four nibble lanes at once (one nibble per byte of
/// `a` and `b`), by shift-and-add with masks: constant time.
#[inline(always)]
fn gf16_mul_x4(mut a: u32, b: u32) -> u32 {
    let mut r = 0;
    for i in 0..4 {
        r ^= a & (((b >> i) & 0x0101_0101) * 0x0f);
        let carry = (a >> 3) & 0x0101_0101;
        a = ((a << 1) & 0x0e0e_0e0e) ^ (carry * 3);
    }
    r
}

/// Applies a nibble table to the four byte lanes of `x` (each < 16).
#[inline(always)]
fn nib_x4(table: u64, x: u32) -> u32 {
    nib(table, x & 15) | nib(table, (x >> 8) & 15) << 8 | nib(table, (x >> 16) & 15) << 16 | nib(table, x >> 24) << 24
}

/// S1 of four bytes at once (the low byte of each input), constant time.
#[inline(always)]
pub(crate) fn s1x4(x: [u32; 4]) -> [u32; 4] {
    // into the tower field: a (high nibbles) and b (low nibbles), one lane per input
    let mut a = 0u32;
    let mut b = 0u32;
    for (k, &v) in x.iter().enumerate() {
        let t = byte_of(TOWER_IN_LO, v & 15) ^ byte_of(TOWER_IN_HI, (v >> 4) & 15);
        a |= (t >> 4) << (8 * k);
        b |= (t & 15) << (8 * k);
    }
    let delta = nib_x4(GF16_SQ_LAMBDA, a) ^ gf16_mul_x4(a, b) ^ nib_x4(GF16_SQ, b);
    let dinv = nib_x4(GF16_INV, delta);
    let ai = gf16_mul_x4(a, dinv);
    let bi = gf16_mul_x4(a ^ b, dinv);
    let mut out = [0u32; 4];
    for (k, o) in out.iter_mut().enumerate() {
        let (hi, lo) = ((ai >> (8 * k)) & 15, (bi >> (8 * k)) & 15);
        *o = byte_of(TOWER_OUT_LO, lo) ^ byte_of(TOWER_OUT_HI, hi) ^ 0x55;
    }
    out
}

/// The S-box layer of ZUC's F on the two words `u`, `v`:
/// (S0, S1, S0, S1) on the bytes of each, most significant first.
#[inline(always)]
pub(crate) fn sbox_pair(u: u32, v: u32) -> (u32, u32) {
    let t = s1x4([u >> 16, u, v >> 16, v]);
    let su = (s0(u >> 24) << 24) | (t[0] << 16) | (s0(u >> 8) << 8) | t[1];
    let sv = (s0(v >> 24) << 24) | (t[2] << 16) | (s0(v >> 8) << 8) | t[3];
    (su, sv)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s0_structure_matches_table() {
        for x in 0..256u32 {
            assert_eq!(s0(x), S0[x as usize] as u32, "S0({x:#04x})");
        }
    }

    #[test]
    fn derived_tables_match_their_former_literals() {
        // The values printed when these were literals, before they were const fns.
        assert_eq!(GF16_SQ_LAMBDA, 0xf7914c2a5d3be680);
        assert_eq!(GF16_SQ, 0xabef98dc67235410);
        assert_eq!(GF16_INV, 0x834a5c2f67bde910);
        assert_eq!(
            Q3,
            [0x04, 0x2c, 0x54, 0x6c, 0x80, 0xba, 0xd4, 0xfe, 0x07, 0x27, 0x5b, 0x6b, 0x81, 0xb3, 0xd9, 0xfb]
        );
    }

    /// The generator of the TOWER_* tables: the isomorphism from GF(2⁸) mod
    /// x⁸+x⁷+x³+x+1 onto GF(16)[y]/(y² + y + 8) (a·y + b as the byte
    /// a·16 + b) sending x to the smallest root of that polynomial there,
    /// and S1's matrix A after the way back, A taken from S1's table.
    #[test]
    fn tower_tables_follow_from_the_specification() {
        let tmul = |u: u8, v: u8| {
            let (a, b, c, d) = (u >> 4, u & 15, v >> 4, v & 15);
            let ac = gf16_mul(a, c);
            ((gf16_mul(a, d) ^ gf16_mul(b, c) ^ ac) << 4) | (gf16_mul(b, d) ^ gf16_mul(ac, 8))
        };
        let tpow = |x: u8, e: u32| (0..e).fold(1u8, |r, _| tmul(r, x));
        let beta = (2..=255u8).find(|&y| tpow(y, 8) ^ tpow(y, 7) ^ tpow(y, 3) ^ y ^ 1 == 0).expect("a root");
        let lin = |cols: &[u8; 8], x: u32| (0..8).filter(|i| (x >> i) & 1 == 1).fold(0u8, |r, i| r ^ cols[i]);
        let phi_cols: [u8; 8] = core::array::from_fn(|i| tpow(beta, i as u32));
        let mut phi_inv = [0u8; 256];
        (0..256u32).for_each(|x| phi_inv[lin(&phi_cols, x) as usize] = x as u8);
        // GF(2⁸) mod 0x18B: A·v = S1(v⁻¹) + 0x55 (inversion is an involution).
        let mul = |mut a: u32, mut b: u32| {
            let mut r = 0;
            while b != 0 {
                r ^= a * (b & 1);
                b >>= 1;
                a <<= 1;
                a ^= 0x18b * (a >> 8);
            }
            r
        };
        let inv = |a: u32| (1..256).find(|&y| mul(a, y) == 1).unwrap_or(0);
        let a_cols: [u8; 8] = core::array::from_fn(|i| S1[inv(1 << i) as usize] ^ 0x55);
        for n in 0..16u32 {
            assert_eq!(byte_of(TOWER_IN_LO, n), lin(&phi_cols, n) as u32, "TOWER_IN_LO[{n}]");
            assert_eq!(byte_of(TOWER_IN_HI, n), lin(&phi_cols, n << 4) as u32, "TOWER_IN_HI[{n}]");
            let out = |x: u32| lin(&a_cols, phi_inv[x as usize] as u32) as u32;
            assert_eq!(byte_of(TOWER_OUT_LO, n), out(n), "TOWER_OUT_LO[{n}]");
            assert_eq!(byte_of(TOWER_OUT_HI, n), out(n << 4), "TOWER_OUT_HI[{n}]");
        }
    }

    #[test]
    fn s1_tower_matches_table() {
        for x in 0..256u32 {
            let y = s1x4([x, x ^ 0x5a, 255 - x, x.wrapping_mul(7)]);
            assert_eq!(y[0], S1[x as usize] as u32);
            assert_eq!(y[1], S1[(x ^ 0x5a) as usize] as u32);
            assert_eq!(y[2], S1[(255 - x) as usize] as u32);
            assert_eq!(y[3], S1[(x.wrapping_mul(7) & 0xff) as usize] as u32);
        }
    }
}
