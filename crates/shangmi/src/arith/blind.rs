//! Hedged per-operation secrets for any group, and the blinded inversion.
//!
//! A hedged value is SM3(secret ‖ domain ‖ seed ‖ v ‖ tag ‖ ctr) with a
//! fresh random `seed`: it stays unpredictable if the secret and `v`
//! repeat, and secret to anyone without the secret key even if the seed
//! were known. secret ‖ domain is exactly one 64-byte SM3 block, absorbed
//! once per key ([`HedgedKey::new`]); the rest (16 + 32 + 2 = 50 bytes)
//! fits with SM3's padding in one more block, so each 32-byte output costs
//! one compression. Each algorithm picks its own 32-byte domain string, so
//! values never collide across algorithms or versions.
//!
//! Range: a 32-byte output is used as is when it lies in [1, M−1]
//! ([`nonzero_below`]) and otherwise the caller draws again with a new seed
//! (rejection sampling: exactly uniform on the range, with no reduction
//! bias; only the accept bit may be published).

use super::{Fe, Modulus};
use crate::ctime::declassify;
use crate::sm3::Sm3;
use subtle::Choice;
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
}

/// The big-endian value of `b` as an element, and whether it lies in
/// [1, M−1] (constant time; the element is 0 when it does not).
pub fn nonzero_below<M: Modulus>(b: &[u8; 32]) -> (Fe<M>, Choice) {
    let x = Fe::<M>::from_be_bytes(b);
    let ok = x.is_some();
    let x = x.unwrap_or(Fe::ZERO);
    (x, ok & !x.is_zero())
}

/// z⁻¹ through a variable-time inversion of the blinded value z·β, for a
/// SECRET z and a β drawn uniformly from [1, M−1] for this call only (and
/// never used again); M prime. Why that leaks nothing: for z ≠ 0 the map
/// β ↦ z·β is a bijection of [1, M−1], so z·β is uniform and independent
/// of z; its inversion may then take a data-dependent time (and is
/// declassified for the valgrind check), and multiplying by β again, in
/// constant time, gives (z·β)⁻¹·β = z⁻¹. (z = 0 gives 0, like the
/// constant-time inversion; z·β then reveals only that z = 0, which callers
/// exclude.) It exists because the variable-time safegcd is faster than the
/// constant-time one. Never call this with a β that is fixed, reused or
/// known to anyone.
#[inline]
pub fn invert_blinded<M: Modulus>(z: &Fe<M>, beta: &Fe<M>) -> Fe<M> {
    let t = z.mul(beta);
    declassify(&t);
    t.invert_vartime().mul(beta)
}
