//! H1 and H2 (GM/T 0044 5.3.2.2 / 5.4.2.3): hash to [1, n−1], and the
//! scalar helpers built on the same reduction.

use super::fp::{Scalar, Sm9N};
use crate::arith::{final_sub, limbs_from_be, Limbs, Modulus};
use crate::rand::hedged::HedgedKey;
use crate::sm3::Sm3;
use crate::{Error, Result};
use subtle::Choice;
use zeroize::{Zeroize, Zeroizing};

/// n − 1.
const N_MINUS_1: Limbs = [Sm9N::M[0] - 1, Sm9N::M[1], Sm9N::M[2], Sm9N::M[3]];

/// hlen = 8·⌈5·log2(n)/32⌉ bits = 320 bits = 40 bytes.
const HLEN: usize = 40;

/// (v mod (n − 1)) + 1 for a big-endian byte string v, constant time in v
/// (bit-serial: r ← 2r + bit, minus n − 1 when that overflows it; n − 1 is
/// even, so Montgomery reduction does not apply).
pub fn reduce_to_range(v: &[u8]) -> Scalar {
    let m = N_MINUS_1;
    let mut r: Limbs = [0; 4];
    for byte in v {
        for i in (0..8).rev() {
            let bit = ((byte >> i) & 1) as u64;
            let carry = r[3] >> 63;
            r = [r[0] << 1 | bit, r[1] << 1 | r[0] >> 63, r[2] << 1 | r[1] >> 63, r[3] << 1 | r[2] >> 63];
            r = final_sub(r, carry, &m);
        }
    }
    let (s, _) = crate::arith::add_limbs(&r, &[1, 0, 0, 0]);
    let out = Scalar::from_canonical(&s);
    r.zeroize();
    out
}

/// Hn(Z) for prefix 0x01 (H1) or 0x02 (H2), Z given in parts.
fn hash_to_range(prefix: u8, parts: &[&[u8]]) -> Scalar {
    let mut base = Sm3::new();
    base.update(&[prefix]);
    for p in parts {
        base.update(p);
    }
    let mut ha = Zeroizing::new([0u8; 64]);
    ha[..32].copy_from_slice(&base.clone().chain(&1u32.to_be_bytes()).finalize());
    ha[32..].copy_from_slice(&base.chain(&2u32.to_be_bytes()).finalize());
    reduce_to_range(&ha[..HLEN])
}

/// H1(ID ‖ hid, n).
pub fn h1(id: &[u8], hid: u8) -> Scalar {
    hash_to_range(1, &[id, &[hid]])
}

/// H2(M ‖ w, n) with w the 384-byte GT encoding.
pub fn h2(msg: &[u8], w: &[u8]) -> Scalar {
    hash_to_range(2, &[msg, w])
}

/// A uniformly random scalar in [1, n − 1] from 40 OS-random bytes (bias
/// below 2⁻⁶⁴): for secrets with no private key to hedge with (master
/// keys, encryption and encapsulation ephemerals).
pub fn random_scalar() -> Result<Scalar> {
    let mut b = Zeroizing::new([0u8; HLEN]);
    crate::rand::fill(&mut b[..])?;
    crate::ctime::classify(&b[..]);
    Ok(reduce_to_range(&b[..]))
}

/// Second half of the hedged key's first SM3 block (after SM3 of the
/// private key): separates these hashes from every other SM3 use.
const HEDGE_DOMAIN: &[u8; 32] = b"shangmi SM9 hedged scalar v1\0\0\0\0";

/// Purpose bytes of [`Hedge::scalar`].
pub(crate) const TAG_SIGN: u8 = 1;
pub(crate) const TAG_EXCHANGE: u8 = 2;

/// Per-operation scalars hedged with a private key, as SM2's signing
/// nonces are ([`crate::rand::hedged`]): the key is SM3 of the private
/// key's encoding (SM9's private keys are points, not 32-byte scalars), so
/// r stays unpredictable to anyone without the key even if the OS
/// generator were weak, and still random if the key and message repeat.
pub(crate) struct Hedge {
    key: HedgedKey,
    v: Zeroizing<[u8; 32]>,
}

impl Hedge {
    /// The hedge of private-key encoding `secret` for the message `parts`
    /// (hashed to 32 bytes with SM3).
    pub(crate) fn new(secret: &[u8], parts: &[&[u8]]) -> Self {
        let sk = Zeroizing::new(crate::sm3::hash(secret));
        let key = HedgedKey::new(&sk, HEDGE_DOMAIN);
        Hedge { key, v: Zeroizing::new(crate::sm3::hash_parts(parts)) }
    }

    /// A fresh r in [1, n − 1] for purpose `tag` (a new OS seed each call,
    /// rejection sampled).
    pub(crate) fn scalar(&self, tag: u8) -> Result<Scalar> {
        self.key.below::<Sm9N>(&self.v, tag)
    }
}

/// A big-endian 32-byte scalar in [1, n − 1]; `what` names it in the error.
pub fn scalar_from_bytes(b: &[u8], what: &str) -> Result<Scalar> {
    if b.len() != 32 {
        return Err(Error::invalid_key(format!("{what} must be 32 bytes, got {}", b.len())));
    }
    let mut a = [0u8; 32];
    a.copy_from_slice(b);
    let mut l = Zeroizing::new(limbs_from_be(&a));
    a.zeroize();
    let ok = Choice::from(crate::arith::lt(&l, &Sm9N::M) as u8) & !crate::arith::is_zero_limbs(&l);
    if !crate::ctime::public_bool(ok) {
        return Err(Error::invalid_key(format!("{what} must be in [1, n-1]")));
    }
    let out = Scalar::from_canonical(&l);
    l.zeroize();
    Ok(out)
}

/// A signature's h: 32 bytes in [1, n − 1] (public; reported as an invalid signature).
pub fn h_from_bytes(b: &[u8]) -> Option<Scalar> {
    scalar_from_bytes(b, "h").ok()
}
