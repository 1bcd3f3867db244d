//! Hedged per-operation secrets for any group, shared by SM2 and SM9.
//!
//! A hedged value is SM3(secret ‖ domain ‖ seed ‖ v ‖ tag ‖ ctr) with a
//! fresh random `seed`: it stays unpredictable if the secret and `v`
//! repeat, and secret to anyone without the secret key even if the seed
//! were known (or the generator weak). secret ‖ domain is exactly one
//! 64-byte SM3 block, absorbed once per key ([`HedgedKey::new`]); the rest
//! (16 + 32 + 2 = 50 bytes) fits with SM3's padding in one more block, so
//! each 32-byte output costs one compression. Each algorithm picks its own
//! 32-byte domain string, so values never collide across algorithms or
//! versions.
//!
//! Range: a 32-byte output is used as is when it lies in [1, M−1]
//! ([`crate::arith::nonzero_below`]) and otherwise the whole draw is
//! repeated with a new seed (rejection sampling: exactly uniform on the
//! range, with no reduction bias; only the accept bit is published).

use super::buffered_seed;
use crate::arith::{nonzero_below, Fe, Modulus};
use crate::ctime::public_bool;
use crate::sm3::Sm3;
use crate::Result;
use zeroize::Zeroizing;

/// The SM3 state after the block secret ‖ domain (secret: zeroized on
/// drop, as `Sm3` always is).
#[derive(Clone)]
pub struct HedgedKey {
    state: Sm3,
}

impl core::fmt::Debug for HedgedKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("HedgedKey(..)")
    }
}

impl HedgedKey {
    /// Absorbs the 32-byte secret key and the algorithm's 32-byte domain.
    pub fn new(secret: &[u8; 32], domain: &[u8; 32]) -> Self {
        let mut state = Sm3::new();
        state.update(secret);
        state.update(domain);
        HedgedKey { state }
    }

    /// SM3(secret ‖ domain ‖ seed ‖ v ‖ tag ‖ ctr): one compression.
    pub fn derive(&self, seed: &[u8; 16], v: &[u8; 32], tag: u8, ctr: u8) -> Zeroizing<[u8; 32]> {
        let mut h = self.state.clone();
        h.update(seed);
        h.update(v);
        h.update(&[tag, ctr]);
        Zeroizing::new(h.finalize())
    }

    /// A secret in [1, M−1] for the public or secret 32-byte value `v`
    /// (a digest) and purpose `tag`: derive(seed, v, tag, 1) for a fresh
    /// 16-byte seed from the per-thread buffer ([`buffered_seed`]),
    /// rejection sampled. Each call's seed is new, so two calls with the
    /// same key, `v` and `tag` still give independent values.
    pub fn below<M: Modulus>(&self, v: &[u8; 32], tag: u8) -> Result<Fe<M>> {
        loop {
            let seed = buffered_seed()?;
            let b = self.derive(&seed, v, tag, 1);
            let (x, ok) = nonzero_below::<M>(&b);
            if public_bool(ok) {
                return Ok(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::{lt, Modulus};
    use crate::sm2::Sm2N;

    /// The derivation is SM3 over the documented concatenation (the
    /// one-shot hash computes it independently), and every input matters.
    #[test]
    fn derive_is_sm3_of_the_documented_input() {
        let domain = b"test domain for hedged values...";
        let k = HedgedKey::new(&[7; 32], domain);
        let want = crate::sm3::hash_parts(&[&[7u8; 32], domain, &[1u8; 16], &[2u8; 32], &[3, 4]]);
        assert_eq!(*k.derive(&[1; 16], &[2; 32], 3, 4), want);
        assert_eq!(*k.clone().derive(&[1; 16], &[2; 32], 3, 4), want);
        assert_ne!(*k.derive(&[0; 16], &[0; 32], 1, 1), *k.derive(&[0; 16], &[0; 32], 1, 2));
    }

    /// Draws lie in [1, M−1] and never repeat for the same key and value.
    #[test]
    fn draws_are_in_range_and_fresh() {
        let k = HedgedKey::new(&[9; 32], b"test domain for hedged values...");
        let mut seen = std::collections::HashSet::new();
        for _ in 0..100 {
            let x = k.below::<Sm2N>(&[5; 32], 1).unwrap().to_canonical();
            assert!(lt(&x, &Sm2N::M) == 1 && x != [0; 4]);
            assert!(seen.insert(x), "repeated draw");
        }
    }
}
