//! Per-operation secrets of SM2 outside the scalar multiplication: signing
//! nonces, the blinding factors of the affine conversions, and the OS
//! randomness they come from.
//!
//! # Signing nonces
//!
//! k = SM3(d ‖ DOMAIN ‖ seed ‖ e ‖ tag ‖ 1) and a blinding factor
//! β = SM3(d ‖ DOMAIN ‖ seed ‖ e ‖ tag ‖ 2), with `seed` 16 fresh bytes of
//! OS randomness ("hedged": k stays unpredictable if the key and digest
//! repeat, and stays secret to anyone without d even if the seed were
//! known). d ‖ DOMAIN is exactly one 64-byte SM3 block, absorbed once per
//! key ([`NonceKey`]); the rest (16 + 32 + 2 = 50 bytes) fits with SM3's
//! padding in one more block, so each 32-byte output costs one compression
//! (the previous SM3-KDF(seed ‖ d ‖ e) over 64 bytes cost three, plus the
//! wide reduction). Sixteen seed bytes are plenty: k's secrecy rests on d
//! (256 bits) as much as on the seed, and a seed repeated for the same key
//! and digest would only repeat the same signature.
//!
//! Range: k must lie in [1, n−1] and β in [1, p−1]. A 32-byte output is
//! used as is when it lies in range and otherwise the whole draw is
//! repeated with a new seed (rejection sampling): the accepted value is
//! then exactly uniform on the range (for SM3 modelled as a random
//! function), with no reduction bias at all. A redraw happens with
//! probability about 2·2^-32 (2^256 − n and 2^256 − p are both about
//! 2^224); only the redraw bit is published (declassified), and it says
//! nothing about the accepted values, which are independent of the
//! rejected ones.
//!
//! # Seeds
//!
//! A `getrandom` system call is a noticeable share of a signature (figures
//! in bench/NOTES.md), where OpenSSL draws from a user-space DRBG. Seeds
//! for signing and decryption blinding therefore come from a per-thread buffer of 512 bytes of OS randomness (one system
//! call per 32 seeds); each seed is wiped from the buffer as it is taken
//! and the buffer is wiped when the thread exits. The buffer records the
//! [`crate::rand::fork_generation`] of its fill, and a forked child's copy
//! is discarded and refilled before use, so parent and child never share a
//! seed. (Even shared, a seed would be nearly harmless because the values
//! are hedged: a repeated seed repeats k only for the same key *and*
//! digest, which gives the same signature again.) Fresh private keys
//! (`PrivateKey::generate`) take their 32 bytes from the same buffer but
//! only from a fill made under the current process id as well
//! ([`crate::rand::buffered_key_bytes`]: a getpid per key instead of a
//! getrandom), so no child process, however made, repeats a parent's key.
//! Encryption ephemerals (no secret to hedge with) are taken the same way.
//! Key-exchange ephemerals and the signature pool do not use the buffer:
//! they call the OS every time, and check the fork generation themselves.
//!
//! # Blinded inversion
//!
//! See [`crate::arith::invert_blinded`].

use super::field::{Fp, Scalar};
use crate::arith::nonzero_below;
use crate::ctime::public_bool;
use crate::rand::buffered_seed;
use crate::rand::hedged::HedgedKey;
use crate::Result;
use zeroize::Zeroizing;

/// Second half of the first SM3 block, after d (32 bytes, zero padded):
/// separates these hashes from every other SM3 use with d.
const DOMAIN: &[u8; 32] = b"shangmi SM2 hedged nonce v1\0\0\0\0\0";

/// Purpose bytes (the `tag` above).
pub(crate) const TAG_SIGN: u8 = 1;
pub(crate) const TAG_DECRYPT: u8 = 2;

/// The hedged-value key of one SM2 private key (see [`HedgedKey`]).
#[derive(Clone)]
pub(crate) struct NonceKey(HedgedKey);

impl NonceKey {
    pub(crate) fn new(d: &[u8; 32]) -> Self {
        NonceKey(HedgedKey::new(d, DOMAIN))
    }

    fn derive(&self, seed: &[u8; 16], v: &[u8; 32], tag: u8, ctr: u8) -> Zeroizing<[u8; 32]> {
        self.0.derive(seed, v, tag, ctr)
    }

    /// A signing nonce k ∈ [1, n−1] and blinding factor β ∈ [1, p−1] for
    /// digest `e` (see the module notes).
    /// [`Self::sign_pair_seeded`] with seeds from the OS buffer.
    #[cfg(test)]
    pub(crate) fn sign_pair(&self, e: &[u8; 32]) -> Result<(Scalar, Fp)> {
        self.sign_pair_seeded(e, &mut |s| {
            s.copy_from_slice(&buffered_seed()?[..]);
            Ok(())
        })
    }

    /// A signing nonce k ∈ [1, n−1] and blinding factor β ∈ [1, p−1] for
    /// digest `e` (see the module notes), the 16-byte seeds drawn from
    /// `seed_source` (the OS buffer, or a protocol engine's one generator).
    pub(crate) fn sign_pair_seeded(
        &self,
        e: &[u8; 32],
        seed_source: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<(Scalar, Fp)> {
        loop {
            let mut seed = Zeroizing::new([0u8; 16]);
            seed_source(&mut seed[..])?;
            let kb = self.derive(&seed, e, TAG_SIGN, 1);
            let bb = self.derive(&seed, e, TAG_SIGN, 2);
            if let Some(pair) = pair_in_range(&kb, &bb) {
                return Ok(pair);
            }
        }
    }

    /// A signing nonce alone (for batches, whose one shared inversion stays
    /// constant time and needs no β): the k of [`Self::sign_pair_seeded`]'s
    /// construction, one compression.
    pub(crate) fn sign_k(&self, e: &[u8; 32]) -> Result<Scalar> {
        self.0.below(e, TAG_SIGN)
    }

    /// A blinding factor β ∈ [1, p−1] for decrypting with C1 = (x, y): a
    /// fresh seed, d and C1 all hashed in.
    pub(crate) fn decrypt_blind(&self, x: &[u8; 32], y_odd: bool) -> Result<Fp> {
        loop {
            let seed = buffered_seed()?;
            // The counter byte carries y's parity, so (x, parity) = C1.
            let bb = self.derive(&seed, x, TAG_DECRYPT, 1 + y_odd as u8);
            let (b, ok) = nonzero_below(&bb);
            if public_bool(ok) {
                return Ok(b);
            }
        }
    }
}

/// (k, β) from two 32-byte strings if k ∈ [1, n−1] and β ∈ [1, p−1];
/// only the in-range bit is published.
fn pair_in_range(kb: &[u8; 32], bb: &[u8; 32]) -> Option<(Scalar, Fp)> {
    let (k, k_ok) = nonzero_below(kb);
    let (b, b_ok) = nonzero_below(bb);
    if public_bool(k_ok & b_ok) {
        Some((k, b))
    } else {
        None
    }
}

/// A fresh encryption ephemeral k ∈ [1, n−1] and blinding factor
/// β ∈ [1, p−1] from 64 bytes of OS randomness (rejection sampling as
/// above). Encryption has no secret to hedge with, so a buffer
/// duplicated by `fork` could repeat k for different plaintexts: the bytes
/// come from [`crate::rand::buffered_key_bytes`], which never hands out
/// bytes filled in another process.
#[cfg(any(test, feature = "test-hooks", feature = "ctime"))]
pub(crate) fn os_pair() -> Result<(Scalar, Fp)> {
    pair_from(&mut |b| crate::rand::buffered_key_bytes(b))
}

/// [`os_pair`] with the 64-byte draws taken from `source`.
pub(crate) fn pair_from(source: &mut dyn FnMut(&mut [u8]) -> Result<()>) -> Result<(Scalar, Fp)> {
    loop {
        let mut buf = Zeroizing::new([0u8; 64]);
        source(&mut buf[..])?;
        let mut kb = Zeroizing::new([0u8; 32]);
        let mut bb = Zeroizing::new([0u8; 32]);
        kb.copy_from_slice(&buf[..32]);
        bb.copy_from_slice(&buf[32..]);
        if let Some(pair) = pair_in_range(&kb, &bb) {
            return Ok(pair);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::invert_blinded;
    use subtle::ConstantTimeEq;

    fn same(a: &Fp, b: &Fp) -> bool {
        bool::from(a.ct_eq(b))
    }
    use crate::arith::{limbs_from_be, lt};
    use crate::sm2::field::{N, P};

    fn fp_of(seed: u64) -> Fp {
        let mut b = [0u8; 32];
        for (i, c) in b.chunks_mut(8).enumerate() {
            c.copy_from_slice(
                &(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(i as u32 * 17) ^ i as u64).to_be_bytes(),
            );
        }
        Fp::from_limbs_reduce(&limbs_from_be(&b))
    }

    #[test]
    fn blinded_inversion_matches_constant_time_inversion() {
        for i in 0..200u64 {
            let z = fp_of(i + 1);
            let beta = fp_of(1000 + i);
            let got = invert_blinded(&z, &beta);
            assert!(same(&got, &z.invert()), "case {i}");
            assert!(same(&got.mul(&z), &Fp::ONE), "case {i}");
        }
        // Also with real random β, and the degenerate Z = 0 ↦ 0.
        for i in 0..50u64 {
            let (_, beta) = os_pair().unwrap();
            let z = fp_of(5000 + i);
            assert!(same(&invert_blinded(&z, &beta), &z.invert()));
        }
        assert!(bool::from(invert_blinded(&Fp::ZERO, &fp_of(3)).is_zero()));
    }

    /// The derivation is SM3 over the documented concatenation (computed
    /// here independently with the one-shot hash).
    #[test]
    fn derive_is_sm3_of_the_documented_input() {
        let d = [0x11u8; 32];
        let seed = [0x22u8; 16];
        let e = [0x33u8; 32];
        let nk = NonceKey::new(&d);
        let want = crate::sm3::hash_parts(&[&d, DOMAIN, &seed, &e, &[TAG_SIGN, 2]]);
        assert_eq!(*nk.derive(&seed, &e, TAG_SIGN, 2), want);
        // Every input matters.
        let base = *nk.derive(&seed, &e, TAG_SIGN, 1);
        assert_ne!(base, *NonceKey::new(&[0x12; 32]).derive(&seed, &e, TAG_SIGN, 1));
        assert_ne!(base, *nk.derive(&[0x23; 16], &e, TAG_SIGN, 1));
        assert_ne!(base, *nk.derive(&seed, &[0x34; 32], TAG_SIGN, 1));
        assert_ne!(base, *nk.derive(&seed, &e, TAG_DECRYPT, 1));
        assert_ne!(base, *nk.derive(&seed, &e, TAG_SIGN, 2));
    }

    #[test]
    fn sign_pairs_are_in_range_and_fresh() {
        let nk = NonceKey::new(&[0x5a; 32]);
        let e = [7u8; 32];
        let mut seen = std::collections::HashSet::new();
        // More draws than one buffer holds (32 seeds), so refills are exercised.
        for _ in 0..100 {
            let (k, b) = nk.sign_pair(&e).unwrap();
            let kl = k.to_canonical();
            let bl = b.to_canonical();
            assert!(lt(&kl, &N) == 1 && kl != [0; 4]);
            assert!(lt(&bl, &P) == 1 && bl != [0; 4]);
            assert_ne!(kl, bl);
            assert!(seen.insert(kl), "k repeated");
            assert!(seen.insert(bl), "beta repeated");
        }
        for _ in 0..40 {
            let k = nk.sign_k(&e).unwrap().to_canonical();
            assert!(lt(&k, &N) == 1 && k != [0; 4]);
            assert!(seen.insert(k), "k repeated");
        }
        for _ in 0..20 {
            let (k, b) = os_pair().unwrap();
            assert!(!bool::from(k.is_zero()) && !bool::from(b.is_zero()));
            assert!(seen.insert(k.to_canonical()) && seen.insert(b.to_canonical()));
        }
    }

    #[test]
    fn range_checks_reject_out_of_range_values() {
        let ones = [0xffu8; 32];
        let zero = [0u8; 32];
        let one = {
            let mut b = [0u8; 32];
            b[31] = 1;
            b
        };
        let n_bytes = crate::arith::limbs_to_be(&N);
        let p_bytes = crate::arith::limbs_to_be(&P);
        let n_minus_1 = crate::arith::limbs_to_be(&crate::arith::sub_limbs(&N, &[1, 0, 0, 0]).0);
        assert!(pair_in_range(&one, &one).is_some());
        assert!(pair_in_range(&n_minus_1, &one).is_some());
        for bad_k in [zero, n_bytes, ones] {
            assert!(pair_in_range(&bad_k, &one).is_none());
        }
        for bad_b in [zero, p_bytes, ones] {
            assert!(pair_in_range(&one, &bad_b).is_none());
        }
        // p − 1 > n − 1: a β in [n, p−1] is fine, a k there is not.
        let p_minus_1 = crate::arith::limbs_to_be(&crate::arith::sub_limbs(&P, &[1, 0, 0, 0]).0);
        assert!(pair_in_range(&one, &p_minus_1).is_some());
        assert!(pair_in_range(&p_minus_1, &one).is_none());
    }

    #[test]
    fn seeds_differ_and_survive_many_refills() {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..200 {
            assert!(seen.insert(*buffered_seed().unwrap()));
        }
        // Other threads get their own buffers.
        let other: Vec<[u8; 16]> =
            std::thread::spawn(|| (0..40).map(|_| *buffered_seed().unwrap()).collect()).join().unwrap();
        for s in other {
            assert!(seen.insert(s));
        }
    }
}
