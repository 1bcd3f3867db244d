//! SM9 (GB/T 38635, GM/T 0044): identity-based signatures, encryption, key
//! encapsulation and key exchange on the BN256 curve with t = 0x600000000058F98A.
//!
//! Layers, bottom up: [`fp`] (Fp, Scalar on `arith`), [`fp2`], [`fp4`], [`fp12`]
//! (the standard's tower, so its byte order needs no conversion), the shared
//! point formulas of [`crate::arith::curve`] (a = 0, over Fp and Fp2), [`g1`], [`g2`], [`pairing`] and
//! [`final_exp`], then the schemes. Their formats (GmSSL's DER, key files, the
//! option names) live in [`crate::encoding::sm9`].

pub mod enc;
pub mod encrypt;
pub mod final_exp;
pub mod fp;
pub mod fp12;
#[cfg(target_arch = "x86_64")]
pub mod fp12_ifma;
pub mod fp2;
pub mod fp4;
mod fp_asm;
#[cfg(target_arch = "x86_64")]
pub mod fp_ifma;
pub mod g1;
pub mod g2;
pub mod glv;
pub mod gt;
pub mod hash;
pub mod kex;
pub mod pairing;
pub mod sign;
pub mod window;

pub use enc::{EncMasterKey, EncMasterPublicKey, EncPrivateKey, HID_ENC, HID_EXCH};
pub use encrypt::{decrypt, encrypt, Cipher, Layout, Mac, Options};
pub use kex::{KeyExchange, KeyExchangeResult, Role};
pub use sign::{sign_many, verify_many, SignMasterKey, SignMasterPublicKey, SignPrivateKey, Signature, HID_SIGN};

use crate::arith::comb::CombTable;
use pairing::G2Prepared;
use std::sync::OnceLock;

/// How SM9's fields provide what the shared point formulas of
/// [`crate::arith::curve`] need: y² = x³ + b (a = 0) over Fp (G1) and
/// over Fp2 (G2, the M-type twist).
macro_rules! curve_field {
    ($t:ty) => {
        impl crate::arith::curve::CurveField for $t {
            const A: crate::arith::curve::Coeff = crate::arith::curve::Coeff::Zero;
            const ZERO: Self = <$t>::ZERO;
            const ONE: Self = <$t>::ONE;
            #[inline(always)]
            fn add(&self, o: &Self) -> Self {
                <$t>::add(self, o)
            }
            #[inline(always)]
            fn sub(&self, o: &Self) -> Self {
                <$t>::sub(self, o)
            }
            #[inline(always)]
            fn mul(&self, o: &Self) -> Self {
                <$t>::mul(self, o)
            }
            #[inline(always)]
            fn square(&self) -> Self {
                <$t>::square(self)
            }
            #[inline(always)]
            fn double(&self) -> Self {
                <$t>::double(self)
            }
            #[inline(always)]
            fn neg(&self) -> Self {
                <$t>::neg(self)
            }
            fn invert(&self) -> Self {
                <$t>::invert(self)
            }
            fn invert_vartime(&self) -> Self {
                <$t>::invert_vartime(self)
            }
            #[inline(always)]
            fn is_zero(&self) -> subtle::Choice {
                <$t>::is_zero(self)
            }
        }
    };
}
curve_field!(fp::Fp);
curve_field!(fp2::Fp2);

/// P2's Miller-loop lines (public constant data, built once).
pub(crate) fn p2_prepared() -> &'static G2Prepared {
    static T: OnceLock<G2Prepared> = OnceLock::new();
    T.get_or_init(|| G2Prepared::new(&g2::P2))
}

/// P1's fixed-base table (public constant data, built once).
pub(crate) fn p1_table() -> &'static CombTable<g1::G1> {
    static T: OnceLock<CombTable<g1::G1>> = OnceLock::new();
    T.get_or_init(|| window::comb(&g1::P1.to_jacobian()))
}

/// P2's fixed-base table (public constant data, built once).
pub(crate) fn p2_table() -> &'static CombTable<g2::G2> {
    static T: OnceLock<CombTable<g2::G2>> = OnceLock::new();
    T.get_or_init(|| window::comb(&g2::P2.to_jacobian()))
}

/// Test-only hooks that inject the random values of the standard's examples.
/// Only compiled for `cargo test` or the `test-hooks` feature, which the
/// Python binding never enables.
#[cfg(any(test, feature = "test-hooks"))]
#[doc(hidden)]
pub mod testing {
    use super::*;
    use crate::{Error, Result};

    fn scalar(r: &[u8]) -> Result<fp::Scalar> {
        let mut b = [0u8; 32];
        if r.len() > 32 {
            return Err(Error::invalid("r longer than 32 bytes"));
        }
        b[32 - r.len()..].copy_from_slice(r);
        hash::scalar_from_bytes(&b, "r")
    }

    pub fn sign_with_r(key: &SignPrivateKey, msg: &[u8], r: &[u8]) -> Result<Signature> {
        key.sign_with_r(msg, &scalar(r)?).ok_or_else(|| Error::invalid("this r gives l = 0"))
    }

    pub fn encrypt_with_r(
        mpk: &EncMasterPublicKey,
        msg: &[u8],
        uid: &[u8],
        hid: u8,
        opts: Options,
        r: &[u8],
        iv: &[u8; 16],
    ) -> Result<Vec<u8>> {
        encrypt::encrypt_injected(mpk, msg, uid, hid, opts, &scalar(r)?, iv)?
            .ok_or_else(|| Error::invalid("this r gives K1 = 0"))
    }

    pub fn encapsulate_with_r(
        mpk: &EncMasterPublicKey,
        uid: &[u8],
        hid: u8,
        length: usize,
        r: &[u8],
    ) -> Result<(Vec<u8>, [u8; 65])> {
        let (k, c) = mpk
            .encapsulate_with_r(uid, hid, length, &scalar(r)?)?
            .ok_or_else(|| Error::invalid("this r gives K = 0"))?;
        Ok((k.to_vec(), c))
    }

    pub fn key_exchange_with_r(
        role: Role,
        own: &EncPrivateKey,
        mpk: &EncMasterPublicKey,
        uid: &[u8],
        peer_uid: &[u8],
        r: &[u8],
    ) -> Result<KeyExchange> {
        KeyExchange::with_r(role, own, mpk, uid, peer_uid, scalar(r)?)
    }

    /// e(P, Q) on encoded points, for differential tests.
    pub fn pairing_bytes(p: &[u8], q: &[u8]) -> Result<[u8; 384]> {
        let p = g1::decode(p, "P")?;
        let q = g2::decode(q, "Q")?;
        Ok(pairing::pairing(&p, &q).to_bytes())
    }

    pub fn h1(id: &[u8], hid: u8) -> [u8; 32] {
        hash::h1(id, hid).to_be_bytes()
    }

    pub fn h2(msg: &[u8], w: &[u8]) -> [u8; 32] {
        hash::h2(msg, w).to_be_bytes()
    }
}

/// A hid given as a wider integer: one byte (0..=255) or [`Error::InvalidInput`].
pub fn hid_from_u32(h: u32) -> crate::Result<u8> {
    u8::try_from(h).map_err(|_| crate::Error::invalid(format!("hid must be one byte (0..255), got {h}")))
}

/// e(P, Q) on encoded points: P in G1 (04‖x‖y, x‖y or compressed) and Q in
/// G2 (04‖x1‖x0‖y1‖y0 or the 128 bytes), both validated (Q also in the
/// subgroup); the result in the 384-byte GT encoding that H2 and the KDF
/// hash (GmSSL's and gmsm's order). Public inputs only (variable time is
/// not a concern for them, but the pairing itself does not branch on them).
pub fn pairing_encoded(p: &[u8], q: &[u8]) -> crate::Result<[u8; 384]> {
    let p = g1::decode(p, "SM9 pairing P")?;
    let q = g2::decode(q, "SM9 pairing Q")?;
    Ok(pairing::pairing(&p, &q).to_bytes())
}

#[cfg(test)]
mod test_rng;
#[cfg(test)]
mod tests;
