//! 256-bit limb arithmetic shared by SM2 and SM9: Montgomery fields, inversion.
//!
//! Elements are four little-endian 64-bit limbs. [`Fe<M>`] is an element of
//! Z/MZ in Montgomery form (a·R mod M with R = 2^256) for any odd 256-bit
//! modulus `M` described by a [`Modulus`]; every derived constant (−M⁻¹ mod
//! 2^64, R mod M, R² mod M) is computed at compile time from `M` alone, so
//! SM9's BN256 p and n reuse this module by declaring their modulus.
//!
//! Everything here is constant time (no branch or index depends on a value)
//! except functions whose name ends in `_vartime`.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

pub mod safegcd;

use core::marker::PhantomData;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};
use zeroize::Zeroize;

/// Four little-endian 64-bit limbs.
pub type Limbs = [u64; 4];

/// All-ones if `bit` is 1, zero if 0, hidden from the optimiser: without the
/// barrier LLVM proves the mask is 0 or −1 and may turn the masked select
/// into a conditional branch on secret data (scripts/ctime.sh caught exactly
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

/// An odd 256-bit modulus with its Montgomery constants. Implementors give
/// `M` (and may override `reduce` with a faster modulus-specific reduction).
pub trait Modulus: Copy + Clone + core::fmt::Debug + Send + Sync + 'static {
    /// The modulus, little-endian limbs.
    const M: Limbs;
    /// −M⁻¹ mod 2^64.
    const M_INV: u64 = neg_inv64(Self::M[0]);
    /// R mod M (the Montgomery form of 1).
    const R1: Limbs = pow2_mod(256, &Self::M);
    /// R² mod M (converts into Montgomery form).
    const R2: Limbs = pow2_mod(512, &Self::M);
    /// M − 2, the Fermat inversion exponent.
    const M_MINUS_2: Limbs = sub_limbs(&Self::M, &[2, 0, 0, 0]).0;

    /// Montgomery reduction t·R⁻¹ mod M of a 512-bit t < M·R.
    #[inline(always)]
    fn reduce(t: &[u64; 8]) -> Limbs {
        mont_reduce_generic(t, &Self::M, Self::M_INV)
    }

    /// R³ mod M (turns a safegcd inverse of a Montgomery form back into
    /// Montgomery form).
    const R3: Limbs = pow2_mod(768, &Self::M);
    /// M prepared for [`safegcd::invert`].
    const INV_INFO: safegcd::ModInfo = safegcd::ModInfo::new(&Self::M);

    /// x⁻¹ (0 ↦ 0) in constant time by safegcd divsteps (about twice as
    /// fast as a Fermat chain for SM2's p, more for moduli without a fast
    /// multiplication). x holds a·R, its plain inverse is a⁻¹·R⁻¹, and one
    /// Montgomery multiplication by R³ gives a⁻¹·R.
    #[inline]
    fn invert(x: &Fe<Self>) -> Fe<Self> {
        let i = safegcd::invert(&x.0, &Self::M, &Self::INV_INFO);
        Fe(Self::mont_mul(&i, &Self::R3), PhantomData)
    }

    /// a·b·R⁻¹ mod M (product then reduction unless overridden).
    #[inline(always)]
    fn mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
        Self::reduce(&mul_wide(a, b))
    }

    /// a²·R⁻¹ mod M.
    #[inline(always)]
    fn mont_sqr(a: &Limbs) -> Limbs {
        Self::reduce(&sqr_wide(a))
    }

    /// (a + b) mod M for a, b < M (a modulus may supply a faster one).
    #[inline(always)]
    fn mod_add(a: &Limbs, b: &Limbs) -> Limbs {
        add_mod(a, b, &Self::M)
    }

    /// (a − b) mod M for a, b < M (a modulus may supply a faster one).
    #[inline(always)]
    fn mod_sub(a: &Limbs, b: &Limbs) -> Limbs {
        sub_mod(a, b, &Self::M)
    }
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

/// An element of Z/MZ in Montgomery form.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub struct Fe<M: Modulus>(pub(crate) Limbs, PhantomData<M>);

impl<M: Modulus> core::fmt::Debug for Fe<M> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Elements may be secret: never print the value.
        f.write_str("Fe(..)")
    }
}

impl<M: Modulus> Default for Fe<M> {
    fn default() -> Self {
        Self::ZERO
    }
}

impl<M: Modulus> Zeroize for Fe<M> {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl<M: Modulus> ConditionallySelectable for Fe<M> {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mask = mask_from_bit(choice.unwrap_u8() as u64);
        Self::from_mont_limbs([
            a.0[0] ^ (mask & (a.0[0] ^ b.0[0])),
            a.0[1] ^ (mask & (a.0[1] ^ b.0[1])),
            a.0[2] ^ (mask & (a.0[2] ^ b.0[2])),
            a.0[3] ^ (mask & (a.0[3] ^ b.0[3])),
        ])
    }
}

impl<M: Modulus> ConstantTimeEq for Fe<M> {
    #[inline(always)]
    fn ct_eq(&self, other: &Self) -> Choice {
        let d =
            (self.0[0] ^ other.0[0]) | (self.0[1] ^ other.0[1]) | (self.0[2] ^ other.0[2]) | (self.0[3] ^ other.0[3]);
        d.ct_eq(&0)
    }
}

impl<M: Modulus> Fe<M> {
    /// 0.
    pub const ZERO: Self = Self([0; 4], PhantomData);
    /// 1 (Montgomery form R mod M).
    pub const ONE: Self = Self(M::R1, PhantomData);

    /// Wraps limbs already in Montgomery form.
    #[inline(always)]
    pub const fn from_mont_limbs(l: Limbs) -> Self {
        Self(l, PhantomData)
    }

    /// The Montgomery-form limbs.
    #[inline(always)]
    pub const fn mont_limbs(&self) -> &Limbs {
        &self.0
    }

    /// Converts a canonical value a < M into Montgomery form.
    #[inline(always)]
    pub fn from_canonical(a: &Limbs) -> Self {
        Self(M::reduce(&mul_wide(a, &M::R2)), PhantomData)
    }

    /// Converts a value a < 2^256 (reduced once, so any 256-bit value of a
    /// modulus above 2^255) into Montgomery form.
    #[inline(always)]
    pub fn from_limbs_reduce(a: &Limbs) -> Self {
        Self::from_canonical(&reduce_once(a, &M::M))
    }

    /// The canonical value in [0, M).
    #[inline(always)]
    pub fn to_canonical(&self) -> Limbs {
        let mut t = [0u64; 8];
        t[..4].copy_from_slice(&self.0);
        M::reduce(&t)
    }

    /// Big-endian bytes; `None`-like Choice false if the value is ≥ M.
    pub fn from_be_bytes(b: &[u8; 32]) -> CtOption<Self> {
        let l = limbs_from_be(b);
        let ok = Choice::from(lt(&l, &M::M) as u8);
        CtOption::new(Self::from_canonical(&l), ok)
    }

    /// Big-endian bytes of the canonical value.
    pub fn to_be_bytes(&self) -> [u8; 32] {
        limbs_to_be(&self.to_canonical())
    }

    #[inline(always)]
    pub fn add(&self, o: &Self) -> Self {
        Self(M::mod_add(&self.0, &o.0), PhantomData)
    }

    #[inline(always)]
    pub fn sub(&self, o: &Self) -> Self {
        Self(M::mod_sub(&self.0, &o.0), PhantomData)
    }

    #[inline(always)]
    pub fn double(&self) -> Self {
        self.add(self)
    }

    #[inline(always)]
    pub fn neg(&self) -> Self {
        Self::ZERO.sub(self)
    }

    #[inline(always)]
    pub fn mul(&self, o: &Self) -> Self {
        Self(M::mont_mul(&self.0, &o.0), PhantomData)
    }

    #[inline(always)]
    pub fn square(&self) -> Self {
        Self(M::mont_sqr(&self.0), PhantomData)
    }

    /// self^(2^n).
    #[inline(always)]
    pub fn square_n(&self, n: usize) -> Self {
        let mut x = *self;
        for _ in 0..n {
            x = x.square();
        }
        x
    }

    #[inline(always)]
    pub fn is_zero(&self) -> Choice {
        is_zero_limbs(&self.0)
    }

    /// self^e for a public exponent `e` (the base may be secret: the
    /// sequence of operations depends only on `e`). 4-bit fixed window.
    pub fn pow_public_exp(&self, e: &Limbs) -> Self {
        let mut table = [Self::ONE; 16];
        for i in 1..16 {
            table[i] = table[i - 1].mul(self);
        }
        let mut acc = Self::ONE;
        let mut started = false;
        for i in (0..64).rev() {
            let nib = ((e[i / 16] >> ((i % 16) * 4)) & 15) as usize;
            if started {
                acc = acc.square_n(4);
            }
            if nib != 0 {
                acc = if started { acc.mul(&table[nib]) } else { table[nib] };
                started = true;
            }
        }
        acc
    }

    /// Multiplicative inverse (safegcd, or the modulus's own `invert`); constant time; 0 ↦ 0.
    pub fn invert(&self) -> Self {
        M::invert(self)
    }

    /// Inverse by variable-time safegcd: only for public data; 0 ↦ 0.
    pub fn invert_vartime(&self) -> Self {
        let i = safegcd::invert_vartime(&self.0, &M::M, &M::INV_INFO);
        Self(M::mont_mul(&i, &M::R3), PhantomData)
    }
}

/// Inverts every element of `xs` in place with one inversion (Montgomery's
/// trick); zeros stay zero. Constant time in the values.
pub fn batch_invert<M: Modulus>(xs: &mut [Fe<M>]) {
    batch_invert_impl(xs, false)
}

/// [`batch_invert`] with a variable-time inversion: public values only.
pub fn batch_invert_vartime<M: Modulus>(xs: &mut [Fe<M>]) {
    batch_invert_impl(xs, true)
}

#[inline(always)]
fn batch_invert_impl<M: Modulus>(xs: &mut [Fe<M>], vartime: bool) {
    if xs.is_empty() {
        return;
    }
    let mut prefix = Vec::with_capacity(xs.len());
    let mut acc = Fe::<M>::ONE;
    for x in xs.iter() {
        prefix.push(acc);
        // Skip zeros by multiplying with 1 instead (constant time).
        let factor = Fe::conditional_select(x, &Fe::ONE, x.is_zero());
        acc = acc.mul(&factor);
    }
    let mut inv = if vartime { acc.invert_vartime() } else { acc.invert() };
    for (x, p) in xs.iter_mut().zip(prefix.iter()).rev() {
        let z = x.is_zero();
        let factor = Fe::conditional_select(x, &Fe::ONE, z);
        let xi = inv.mul(p);
        inv = inv.mul(&factor);
        *x = Fe::conditional_select(&xi, &Fe::ZERO, z);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug)]
    struct P25519;
    impl Modulus for P25519 {
        // 2^255 − 19: an independent odd modulus to exercise the generic code.
        const M: Limbs = [0xffff_ffff_ffff_ffed, 0xffff_ffff_ffff_ffff, 0xffff_ffff_ffff_ffff, 0x7fff_ffff_ffff_ffff];
    }

    #[test]
    fn generic_montgomery_small_values() {
        let a = Fe::<P25519>::from_canonical(&[7, 0, 0, 0]);
        let b = Fe::<P25519>::from_canonical(&[6, 0, 0, 0]);
        assert_eq!(a.mul(&b).to_canonical(), [42, 0, 0, 0]);
        assert_eq!(a.square().to_canonical(), [49, 0, 0, 0]);
        assert_eq!(a.invert().mul(&a).to_canonical(), [1, 0, 0, 0]);
        assert_eq!(a.invert_vartime().mul(&a).to_canonical(), [1, 0, 0, 0]);
        // 2^255 ≡ 19.
        let two = Fe::<P25519>::from_canonical(&[2, 0, 0, 0]);
        assert_eq!(two.pow_public_exp(&[255, 0, 0, 0]).to_canonical(), [19, 0, 0, 0]);
        assert_eq!(b.sub(&a).to_canonical(), sub_limbs(&P25519::M, &[1, 0, 0, 0]).0);
    }

    #[test]
    fn neg_inv() {
        let m0 = P25519::M[0];
        assert_eq!(m0.wrapping_mul(P25519::M_INV), u64::MAX);
    }

    #[test]
    fn batch_inversion_matches_single() {
        let mut xs: Vec<Fe<P25519>> = (0..5u64).map(|i| Fe::from_canonical(&[i * 3, 1, 0, 0])).collect();
        xs[2] = Fe::ZERO;
        let expect: Vec<_> = xs.iter().map(|x| x.invert().to_canonical()).collect();
        batch_invert(&mut xs);
        let got: Vec<_> = xs.iter().map(|x| x.to_canonical()).collect();
        assert_eq!(got, expect);
    }
}
