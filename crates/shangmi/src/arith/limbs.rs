//! Four-limb integer helpers: carries, products, conversions, constant
//! parsing. Constant time except where a name ends in `_vartime`.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use subtle::{Choice, ConstantTimeEq};

/// Four little-endian 64-bit limbs.
pub type Limbs = [u64; 4];

/// All-ones if `bit` is 1, zero if 0, hidden from the optimiser: without the
/// barrier LLVM proves the mask is 0 or −1 and may turn the masked select
/// into a conditional branch on secret data (the valgrind check caught exactly
/// that in final_sub/add_mod).
#[inline(always)]
pub fn mask_from_bit(bit: u64) -> u64 {
    core::hint::black_box(bit).wrapping_neg()
}

/// a + b + carry → (sum, carry out); carry in {0, 1}.
#[inline(always)]
pub const fn adc(a: u64, b: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + b as u128 + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// a − b − borrow → (difference, borrow out); borrow in {0, 1}.
#[inline(always)]
pub const fn sbb(a: u64, b: u64, borrow: u64) -> (u64, u64) {
    let t = (a as u128).wrapping_sub(b as u128 + borrow as u128);
    (t as u64, ((t >> 64) as u64) & 1)
}

/// a + b·c + carry → (low, high).
#[inline(always)]
pub const fn mac(a: u64, b: u64, c: u64, carry: u64) -> (u64, u64) {
    let t = a as u128 + (b as u128) * (c as u128) + carry as u128;
    (t as u64, (t >> 64) as u64)
}

/// Big-endian 32 bytes → limbs (no reduction).
#[inline]
pub fn limbs_from_be(b: &[u8; 32]) -> Limbs {
    let mut out = [0u64; 4];
    for (i, limb) in out.iter_mut().enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[32 - 8 * (i + 1)..32 - 8 * i]);
        *limb = u64::from_be_bytes(w);
    }
    out
}

/// Limbs → big-endian 32 bytes.
#[inline]
pub fn limbs_to_be(a: &Limbs) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, limb) in a.iter().enumerate() {
        out[32 - 8 * (i + 1)..32 - 8 * i].copy_from_slice(&limb.to_be_bytes());
    }
    out
}

/// a − b over 256 bits → (difference, borrow in {0,1}).
#[inline(always)]
pub const fn sub_limbs(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    let (d0, br) = sbb(a[0], b[0], 0);
    let (d1, br) = sbb(a[1], b[1], br);
    let (d2, br) = sbb(a[2], b[2], br);
    let (d3, br) = sbb(a[3], b[3], br);
    ([d0, d1, d2, d3], br)
}

/// a + b over 256 bits → (sum, carry in {0,1}).
#[inline(always)]
pub const fn add_limbs(a: &Limbs, b: &Limbs) -> (Limbs, u64) {
    let (s0, c) = adc(a[0], b[0], 0);
    let (s1, c) = adc(a[1], b[1], c);
    let (s2, c) = adc(a[2], b[2], c);
    let (s3, c) = adc(a[3], b[3], c);
    ([s0, s1, s2, s3], c)
}

/// (a + b) mod m for a, b < m (compile-time version: no optimisation barrier).
pub const fn add_mod_const(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (s, carry) = add_limbs(a, b);
    let (d, borrow) = sub_limbs(&s, m);
    let (_, keep) = sbb(carry, 0, borrow);
    if keep == 1 {
        s
    } else {
        d
    }
}

/// (a + b) mod m for a, b < m.
#[inline(always)]
pub fn add_mod(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (s, carry) = add_limbs(a, b);
    final_sub(s, carry, m)
}

/// (a − b) mod m for a, b < m.
#[inline(always)]
pub fn sub_mod(a: &Limbs, b: &Limbs, m: &Limbs) -> Limbs {
    let (d, borrow) = sub_limbs(a, b);
    let mask = mask_from_bit(borrow);
    let (s0, c) = adc(d[0], m[0] & mask, 0);
    let (s1, c) = adc(d[1], m[1] & mask, c);
    let (s2, c) = adc(d[2], m[2] & mask, c);
    let (s3, _) = adc(d[3], m[3] & mask, c);
    [s0, s1, s2, s3]
}

/// a mod m for a < 2m (one conditional subtraction), constant time.
#[inline(always)]
pub fn reduce_once(a: &Limbs, m: &Limbs) -> Limbs {
    final_sub(*a, 0, m)
}

/// 1 if a < b else 0, constant time.
#[inline(always)]
pub const fn lt(a: &Limbs, b: &Limbs) -> u64 {
    sub_limbs(a, b).1
}

/// a == 0 as a Choice.
#[inline(always)]
pub fn is_zero_limbs(a: &Limbs) -> Choice {
    (a[0] | a[1] | a[2] | a[3]).ct_eq(&0)
}

/// −m⁻¹ mod 2^64 by Newton iteration (each step doubles the correct bits).
pub const fn neg_inv64(m0: u64) -> u64 {
    let mut inv: u64 = 1;
    let mut i = 0;
    while i < 6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(m0.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
}

/// 2^e mod m by repeated modular doubling (compile-time helper).
pub const fn pow2_mod(e: u32, m: &Limbs) -> Limbs {
    let mut x: Limbs = [1, 0, 0, 0];
    let mut i = 0;
    while i < e {
        x = add_mod_const(&x, &x, m);
        i += 1;
    }
    x
}

/// Full 256×256 → 512-bit product.
#[inline(always)]
pub fn mul_wide(a: &Limbs, b: &Limbs) -> [u64; 8] {
    let mut t = [0u64; 8];
    for i in 0..4 {
        let mut carry = 0;
        for j in 0..4 {
            let (lo, hi) = mac(t[i + j], a[i], b[j], carry);
            t[i + j] = lo;
            carry = hi;
        }
        t[i + 4] = carry;
    }
    t
}

/// 256-bit square → 512 bits (cross products once, doubled).
#[inline(always)]
pub fn sqr_wide(a: &Limbs) -> [u64; 8] {
    let mut t = [0u64; 8];
    // Off-diagonal products a[i]·a[j], i < j.
    for i in 0..3 {
        let mut carry = 0;
        for j in (i + 1)..4 {
            let (lo, hi) = mac(t[i + j], a[i], a[j], carry);
            t[i + j] = lo;
            carry = hi;
        }
        t[i + 4] = carry;
    }
    // Double them.
    let mut c = 0;
    for x in t.iter_mut().skip(1) {
        let nc = *x >> 63;
        *x = (*x << 1) | c;
        c = nc;
    }
    // Add the squares on the diagonal.
    let mut carry = 0;
    for i in 0..4 {
        let sq = (a[i] as u128) * (a[i] as u128);
        let (lo, c1) = adc(t[2 * i], sq as u64, carry);
        let (hi, c2) = adc(t[2 * i + 1], (sq >> 64) as u64, c1);
        t[2 * i] = lo;
        t[2 * i + 1] = hi;
        carry = c2;
    }
    t
}

/// Word-by-word Montgomery reduction for any odd modulus.
#[inline(always)]
pub fn mont_reduce_generic(t: &[u64; 8], m: &Limbs, m_inv: u64) -> Limbs {
    let mut t = *t;
    let mut carry2 = 0;
    for i in 0..4 {
        let k = t[i].wrapping_mul(m_inv);
        let mut carry = 0;
        for j in 0..4 {
            let (lo, hi) = mac(t[i + j], k, m[j], carry);
            t[i + j] = lo;
            carry = hi;
        }
        let (s, c) = adc(t[i + 4], carry, carry2);
        t[i + 4] = s;
        carry2 = c;
    }
    final_sub([t[4], t[5], t[6], t[7]], carry2, m)
}

/// Subtract m from (carry:r) if the 257-bit value is ≥ m, constant time.
#[inline(always)]
pub fn final_sub(r: Limbs, carry: u64, m: &Limbs) -> Limbs {
    let (d, borrow) = sub_limbs(&r, m);
    let (_, keep) = sbb(carry, 0, borrow);
    let mask = mask_from_bit(keep);
    [
        (r[0] & mask) | (d[0] & !mask),
        (r[1] & mask) | (d[1] & !mask),
        (r[2] & mask) | (d[2] & !mask),
        (r[3] & mask) | (d[3] & !mask),
    ]
}

/// Compile-time hex (exactly 64 digits, either case) → 32 big-endian bytes;
/// anything else fails the build.
pub const fn hex32(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    assert!(b.len() == 64, "hex32 needs 64 hex digits");
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nib(b[2 * i]) << 4) | nib(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nib(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        b'A'..=b'F' => c - b'A' + 10,
        _ => panic!("bad hex digit"),
    }
}

/// Compile-time hex (64 digits, big-endian) → little-endian limbs.
pub const fn limbs_from_hex(s: &str) -> Limbs {
    let b = hex32(s);
    let mut out = [0u64; 4];
    let mut i = 0;
    while i < 32 {
        out[3 - i / 8] |= (b[i] as u64) << (8 * (7 - i % 8));
        i += 1;
    }
    out
}
