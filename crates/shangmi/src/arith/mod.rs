//! 256-bit limb arithmetic shared by SM2 and SM9: Montgomery fields, inversion.
//!
//! Elements are four little-endian 64-bit limbs. [`Fe<M>`] is an element of
//! Z/MZ in Montgomery form (a·R mod M with R = 2^256) for any odd 256-bit
//! modulus `M` described by a [`Modulus`]; every derived constant (−M⁻¹ mod
//! 2^64, R mod M, R² mod M) is computed at compile time from `M` alone, so
//! SM9's BN256 p and n reuse this module by declaring their modulus.
//!
//! Products go through a [`MulBackend`] ([`Portable`], or [`Adx`] with
//! MULX/ADCX/ADOX for any odd modulus, full carry); `mont.rs` documents how
//! an algorithm selects the backend once per operation with `with_mul!`,
//! and how a modulus of special form overrides the kernels. Also shared:
//! the constant-time table scan for entries of any size ([`scan`]), the one
//! fixed-base comb ([`comb::CombTable`]: SM2's k·G, SM9's G1, G2 and GT), the
//! scalar recodings ([`recode_odd`], [`wnaf_vartime`]), the wide reduction
//! ([`Fe::from_be_wide`]), safegcd inversion, the blinded inversion and the rejection-sampling
//! range check ([`invert_blinded`], [`nonzero_below`]; hedged secrets, which
//! hash, are in [`crate::rand::hedged`]), and the compile-time hex parser
//! ([`limbs_from_hex`], [`hex32`]).
//!
//! Everything here is constant time (no branch or index depends on a value)
//! except functions whose name ends in `_vartime`.

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

mod blind;
pub mod comb;
pub mod curve;
mod limbs;
mod mont;
mod recode;
pub mod safegcd;
mod scan;

pub use blind::{invert_blinded, nonzero_below};
pub use limbs::*;
pub use recode::{bits, naf_const, odd_scalar, recode_odd, wipe_digits, wnaf_vartime};
pub use scan::{scan, scan_name, scan_part, ScanEntry, MAX_ENTRY_BYTES, MAX_SCAN};

pub(crate) use mont::with_mul;
pub use mont::{backend_name, MulBackend, Portable};
#[cfg(target_arch = "x86_64")]
pub use mont::{mont_mul_adx, Adx};

use core::marker::PhantomData;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

use zeroize::Zeroize;

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

    /// x⁻¹ (0 ↦ 0) in constant time by safegcd divsteps (faster than a
    /// Fermat chain, see bench/NOTES.md). x holds a·R, its plain inverse is a⁻¹·R⁻¹, and one
    /// Montgomery multiplication by R³ gives a⁻¹·R.
    #[inline]
    fn invert(x: &Fe<Self>) -> Fe<Self> {
        let i = safegcd::invert(&x.0, &Self::M, &Self::INV_INFO);
        Fe(Self::mont_mul(&i, &Self::R3), PhantomData)
    }

    /// The modulus words followed by −M⁻¹ mod 2^64, in memory for the
    /// assembly kernels.
    const WORDS: &'static [u64; 5] = &[Self::M[0], Self::M[1], Self::M[2], Self::M[3], Self::M_INV];

    /// a·b·R⁻¹ mod M for a, b < M: the portable kernel (the generic product
    /// and [`Modulus::reduce`] unless overridden).
    #[inline(always)]
    fn mont_mul_portable(a: &Limbs, b: &Limbs) -> Limbs {
        Self::reduce(&mul_wide(a, b))
    }

    /// a²·R⁻¹ mod M for a < M, portable.
    #[inline(always)]
    fn mont_sqr_portable(a: &Limbs) -> Limbs {
        Self::reduce(&sqr_wide(a))
    }

    /// a·b·R⁻¹ mod M for a, b < M with MULX/ADCX/ADOX (the generic
    /// full-carry kernel [`mont_mul_adx`] unless overridden); the token
    /// proves the instructions exist.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mont_mul_adx(t: crate::cpu::Adx, a: &Limbs, b: &Limbs) -> Limbs {
        mont::mont_mul_adx(t, a, b, Self::WORDS)
    }

    /// a²·R⁻¹ mod M for a < M with MULX/ADCX/ADOX.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mont_sqr_adx(t: crate::cpu::Adx, a: &Limbs) -> Limbs {
        Self::mont_mul_adx(t, a, a)
    }

    /// a·b·R⁻¹ mod M for a, b < M on the best backend (one cached CPU check
    /// per call; see [`MulBackend`] to check once per operation instead).
    #[inline(always)]
    fn mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = Adx::get() {
            return Self::mont_mul_adx(t.0, a, b);
        }
        Self::mont_mul_portable(a, b)
    }

    /// a²·R⁻¹ mod M for a < M on the best backend.
    #[inline(always)]
    fn mont_sqr(a: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = Adx::get() {
            return Self::mont_sqr_adx(t.0, a);
        }
        Self::mont_sqr_portable(a)
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

    /// A 64-byte big-endian integer mod M (for uniform scalars: the bias is
    /// below 2^−250 for a 256-bit M), constant time. hi·2^256 + lo as
    /// hi·R + lo: each half converted by one Montgomery multiplication by
    /// R² (exact for any 256-bit half, as half·R² < R·M), then hi times the
    /// element whose value is R.
    pub fn from_be_wide(b: &[u8; 64]) -> Self {
        let mut half = [0u8; 32];
        half.copy_from_slice(&b[..32]);
        let mut hi_l = limbs_from_be(&half);
        half.copy_from_slice(&b[32..]);
        let mut lo_l = limbs_from_be(&half);
        half.zeroize();
        let (hi, lo) = (Self::from_canonical(&hi_l), Self::from_canonical(&lo_l));
        hi_l.zeroize();
        lo_l.zeroize();
        hi.mul(&Self::from_mont_limbs(M::R2)).add(&lo)
    }

    /// Big-endian bytes of the canonical value.
    pub fn to_be_bytes(&self) -> [u8; 32] {
        limbs_to_be(&self.to_canonical())
    }

    /// (self + o) mod M; both below M.
    #[inline(always)]
    pub fn add(&self, o: &Self) -> Self {
        Self(M::mod_add(&self.0, &o.0), PhantomData)
    }

    /// (self − o) mod M; both below M.
    #[inline(always)]
    pub fn sub(&self, o: &Self) -> Self {
        Self(M::mod_sub(&self.0, &o.0), PhantomData)
    }

    /// 2·self mod M.
    #[inline(always)]
    pub fn double(&self) -> Self {
        self.add(self)
    }

    /// −self mod M (0 ↦ 0).
    #[inline(always)]
    pub fn neg(&self) -> Self {
        Self::ZERO.sub(self)
    }

    /// self·o mod M on the best backend (one cached CPU check per call; see
    /// [`MulBackend`] for checking once per operation).
    #[inline(always)]
    pub fn mul(&self, o: &Self) -> Self {
        Self(M::mont_mul(&self.0, &o.0), PhantomData)
    }

    /// self² mod M on the best backend.
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

    /// Whether self = 0, as a Choice (constant time).
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
mod mont_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug)]
    pub(super) struct P25519;
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
