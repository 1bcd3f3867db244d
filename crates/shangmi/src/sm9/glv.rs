//! GLV for G1 (public scalars only): BN256's G1 has the endomorphism
//! φ(x, y) = (βx, y) with β a cube root of unity in Fp, acting on the
//! order-n group as multiplication by λ, λ² + λ + 1 ≡ 0 (mod n). A scalar
//! k splits as k ≡ k1 + k2·λ with |k1|, |k2| < 2^130, so [k]P =
//! [k1]P + [k2]φ(P) takes about 130 doublings instead of 256. Everything
//! here is variable time (`_vartime`): verification's [h1]S, where S and h1
//! are public. `tests::glv_*` recompute β, λ, the lattice basis and the
//! rounding constants, and check the products against plain double-and-add.

use super::fp::{fp, Fp, Scalar};
use super::g1::{G1Affine, G1};

/// β with φ(P) = [λ]P on G1 (the cube root of unity in Fp that pairs with λ).
pub const BETA: Fp = fp([0xd5fc11967be65333, 0x780272354f8b78f4, 0xf300000002a3a6f2, 0]);

/// λ = the cube root of unity mod n with [λ]P = φ(P).
pub const LAMBDA: [u64; 4] = [0x2bf5f68bcd8990e5, 0x6804e46a9a65c91e, 0xe600000005474de2, 1];

/// The reduced lattice basis of {(a, b): a + bλ ≡ 0 mod n}, in terms of t:
/// v1 = (2t + 1, −(6t² + 2t)), v2 = (6t² + 4t + 1, 2t + 1).
pub const A1: u64 = 0xc000000000b1f315; // 2t + 1 (= b2)
pub const A2: [u64; 2] = [0x8000b98b0e165c81, 0xd8000000019062ee]; // 6t² + 4t + 1
pub const B1_ABS: [u64; 2] = [0xc000b98b0d64696c, 0xd8000000019062ed]; // 6t² + 2t

/// ⌊b2·2^256/n⌋ and ⌊|b1|·2^256/n⌋: c1 = ⌊k·G1/2^256⌋ and c2 = ⌊k·G2/2^256⌋
/// are the Babai coefficients up to 0 or −1 each (floors, not roundings),
/// which keeps |k1|, |k2| < 2(|v1| + |v2|) < 2^130.
pub const G1_ROUND: [u64; 2] = [0x0db20a88f17b78d1, 1];
pub const G2_ROUND: [u64; 3] = [0x7600f27c8b6e04a8, 0x2f684bda10c41c30, 1];

/// Little-endian product of two limb strings, truncated to N limbs.
fn mul_trunc<const N: usize>(a: &[u64], b: &[u64]) -> [u64; N] {
    let mut r = [0u64; N];
    for (i, &x) in a.iter().enumerate() {
        let mut carry = 0u128;
        for (j, &y) in b.iter().enumerate() {
            if i + j >= N {
                break;
            }
            let v = r[i + j] as u128 + x as u128 * y as u128 + carry;
            r[i + j] = v as u64;
            carry = v >> 64;
        }
        if i + b.len() < N {
            r[i + b.len()] = carry as u64;
        }
    }
    r
}

/// ⌊a·b/2^256⌋ for a 4-limb a (result at most 3 limbs here).
fn mul_shift256(a: &[u64; 4], b: &[u64]) -> [u64; 3] {
    let full: [u64; 8] = mul_trunc(a, b);
    [full[4], full[5], full[6]]
}

fn sub3(a: &[u64; 3], b: &[u64; 3]) -> [u64; 3] {
    let (r0, c0) = a[0].overflowing_sub(b[0]);
    let (r1, c1a) = a[1].overflowing_sub(b[1]);
    let (r1, c1b) = r1.overflowing_sub(c0 as u64);
    let r2 = a[2].wrapping_sub(b[2]).wrapping_sub((c1a | c1b) as u64);
    [r0, r1, r2]
}

/// A 192-bit two's-complement value as (negative, magnitude).
fn sign_mag(x: [u64; 3]) -> (bool, [u64; 3]) {
    if x[2] >> 63 == 1 {
        (true, sub3(&[0, 0, 0], &x))
    } else {
        (false, x)
    }
}

/// k ≡ k1 + k2·λ (mod n) for a canonical k < n: (sign, magnitude) of each,
/// magnitudes below 2^130.
pub fn decompose_vartime(k: &[u64; 4]) -> ((bool, [u64; 3]), (bool, [u64; 3])) {
    let c1 = mul_shift256(k, &G1_ROUND);
    let c2 = mul_shift256(k, &G2_ROUND);
    // k1 = k − c1·a1 − c2·a2 and k2 = c1·|b1| − c2·b2, exact mod 2^192
    // (their true values are far below 2^191 in magnitude).
    let k_lo = [k[0], k[1], k[2]];
    let k1 = sub3(&sub3(&k_lo, &mul_trunc(&c1, &[A1])), &mul_trunc(&c2, &A2));
    let k2 = sub3(&mul_trunc(&c1, &B1_ABS), &mul_trunc(&c2, &[A1]));
    (sign_mag(k1), sign_mag(k2))
}

/// Width-5 NAF digits of a magnitude below 2^130, least significant first.
fn wnaf(k: &[u64; 3]) -> [i8; 132] {
    let mut out = [0i8; 132];
    let mut k = *k;
    let mut i = 0;
    while k != [0, 0, 0] && i < out.len() {
        if k[0] & 1 == 1 {
            let mut d = (k[0] & 31) as i64;
            if d >= 16 {
                d -= 32;
            }
            out[i] = d as i8;
            // k −= d (d odd, |d| < 16; −d as a 192-bit two's complement).
            k = sub3(&k, &[d as u64, (d >> 63) as u64, (d >> 63) as u64]);
        }
        k = [(k[0] >> 1) | (k[1] << 63), (k[1] >> 1) | (k[2] << 63), k[2] >> 1];
        i += 1;
    }
    out
}

/// [k]P for a public P and a public scalar k (variable time): GLV split,
/// interleaved width-5 NAFs over P's odd multiples and their images under φ.
pub fn mul_glv_vartime(p: &G1Affine, k: &Scalar) -> G1 {
    let ((n1, m1), (n2, m2)) = decompose_vartime(&k.to_canonical());
    let base = p.to_jacobian();
    let twice = base.double();
    let mut t1 = [base; 8];
    for i in 1..8 {
        t1[i] = t1[i - 1].add(&twice);
    }
    if n1 {
        t1 = t1.map(|q| q.neg());
    }
    // φ on Jacobian coordinates: x = X/Z², so βx = (βX)/Z².
    let mut t2 = t1.map(|q| G1 { x: q.x.mul(&BETA), y: q.y, z: q.z });
    if n1 != n2 {
        t2 = t2.map(|q| q.neg());
    }
    let (d1, d2) = (wnaf(&m1), wnaf(&m2));
    let top = (0..132).rev().find(|&i| d1[i] != 0 || d2[i] != 0);
    let mut acc = G1::IDENTITY;
    for i in (0..top.map_or(0, |t| t + 1)).rev() {
        acc = acc.double();
        for (d, t) in [(d1[i], &t1), (d2[i], &t2)] {
            if d > 0 {
                acc = acc.add(&t[(d as usize) / 2]);
            } else if d < 0 {
                acc = acc.add(&t[(-d as usize) / 2].neg());
            }
        }
    }
    acc
}
