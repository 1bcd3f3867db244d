//! The rejection-sampling range check and the blinded inversion, for any
//! prime modulus. (Hedged secrets themselves, which hash, live in
//! [`crate::rand::hedged`]: this module depends on no hash.)
//!
//! Range: a 32-byte random string is used as is when it lies in [1, M−1]
//! ([`nonzero_below`]) and otherwise the caller draws again (rejection
//! sampling: exactly uniform on the range, with no reduction bias; only the
//! accept bit may be published).

use super::{Fe, Modulus};
use crate::ctime::declassify;
use subtle::Choice;

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
