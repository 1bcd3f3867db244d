//! SM9 formats: GmSSL's DER for signatures and ciphertexts (`sm9.h`), the
//! names callers give the encryption options, and the batch forms of the
//! signature encodings; the key files in [`keys`].
//!
//! signature `SEQUENCE { h OCTET STRING, S BIT STRING }`;
//! ciphertext `SEQUENCE { EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, C2 OCTET STRING }`.

pub mod keys;

use super::der::{self, Reader};
use super::signature::{SignatureEncoding, SignatureFormat};
use crate::sm9::{self, Signature};
use crate::{Error, Result};

/// GmSSL's signature DER of h and the encoded S (04‖x‖y).
pub fn signature_to_der(h: &[u8; 32], s: &[u8]) -> Vec<u8> {
    der::seq(&[&der::octets(h), &der::bits(s)])
}

/// (h, encoded S) of GmSSL's signature DER; S is the caller's to decode.
pub fn signature_from_der(data: &[u8]) -> Result<([u8; 32], &[u8])> {
    const W: &str = "SM9 DER signature";
    let mut r = Reader::new(der::single(data, der::SEQUENCE, W)?.value, W);
    let h = r.octets("h")?;
    let s = r.bits("S")?;
    r.finish("S")?;
    let h: [u8; 32] = h.try_into().map_err(|_| r.err(format!("h must be 32 bytes, got {}", h.len())))?;
    Ok((h, s))
}

/// GmSSL's ciphertext DER: `EnType` (the cipher's number), C1 (04‖x‖y), C3, C2.
pub fn cipher_to_der(en_type: u8, c1: &[u8], c3: &[u8], c2: &[u8]) -> Vec<u8> {
    der::seq(&[&der::small_int(en_type.into()), &der::bits(c1), &der::octets(c3), &der::octets(c2)])
}

/// The parts of GmSSL's ciphertext DER, borrowed from it.
#[derive(Clone, Copy, Debug)]
pub struct CipherParts<'a> {
    /// EnType: the cipher's number (GmSSL's: 0 XOR, 1 SM4-ECB, 2 SM4-CBC).
    pub en_type: u64,
    /// C1, 04‖x‖y (decoding and validation are the decryption's).
    pub c1: &'a [u8],
    /// C3, 32 bytes.
    pub c3: &'a [u8],
    /// C2.
    pub c2: &'a [u8],
}

/// The parts of GmSSL's ciphertext DER, C3 checked to be 32 bytes; `None`
/// for any defect (decryption reports one opaque failure).
pub fn cipher_from_der(data: &[u8]) -> Option<CipherParts<'_>> {
    const W: &str = "SM9 ciphertext";
    let mut r = Reader::new(der::single(data, der::SEQUENCE, W).ok()?.value, W);
    let t = r.small_uint("EnType").ok()?;
    let c1 = r.bits("C1").ok()?;
    let c3 = r.octets("C3").ok()?;
    let c2 = r.octets("C2").ok()?;
    r.finish("C2").ok()?;
    (c3.len() == 32).then_some(CipherParts { en_type: t, c1, c3, c2 })
}

impl SignatureFormat for Signature {
    fn to_der(&self) -> Vec<u8> {
        Signature::to_der(self)
    }
    fn to_raw(&self) -> Vec<u8> {
        Signature::to_raw(self).to_vec()
    }
    fn from_der(data: &[u8]) -> Result<Self> {
        Signature::from_der(data)
    }
    fn from_raw(data: &[u8]) -> Result<Self> {
        Signature::from_raw(data)
    }
}

impl SignatureEncoding {
    /// Signs every message with the SM9 `key` in parallel ([`sm9::sign_many`]), in this encoding.
    pub fn encode_many(self, key: &sm9::SignPrivateKey, messages: &[&[u8]]) -> Result<Vec<Vec<u8>>> {
        Ok(sm9::sign_many(key, messages)?.iter().map(|s| self.encode(s)).collect())
    }

    /// Verifies SM9 (message, uid, signature bytes) triples in parallel
    /// ([`sm9::verify_many`]); a signature that does not parse is invalid.
    pub fn verify_many(self, mpk: &sm9::SignMasterPublicKey, hid: u8, items: &[(&[u8], &[u8], &[u8])]) -> Vec<bool> {
        let parsed: Vec<(&[u8], &[u8], Option<Signature>)> =
            items.iter().map(|(m, u, s)| (*m, *u, self.parse(s).ok())).collect();
        sm9::verify_many(mpk, hid, &parsed)
    }
}

fn pick<T: Copy>(name: &str, what: &str, all: &[T], name_of: impl Fn(T) -> &'static str) -> Result<T> {
    all.iter().copied().find(|t| name_of(*t) == name).ok_or_else(|| {
        let choices: Vec<String> = all.iter().map(|t| format!("'{}'", name_of(*t))).collect();
        Error::invalid(format!("{what} must be one of {}, got '{name}'", choices.join(", ")))
    })
}

impl sm9::Layout {
    /// The name callers pass: `"c1c3c2"`, `"c1c2c3"` or `"der"`.
    pub fn name(self) -> &'static str {
        match self {
            sm9::Layout::C1C3C2 => "c1c3c2",
            sm9::Layout::C1C2C3 => "c1c2c3",
            sm9::Layout::Der => "der",
        }
    }

    /// The layout called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        use sm9::Layout::*;
        pick(name, "mode", &[C1C3C2, C1C2C3, Der], |l| l.name())
    }
}

impl sm9::Cipher {
    /// The name callers pass: `"xor"`, `"sm4-ecb"` or `"sm4-cbc"`.
    pub fn name(self) -> &'static str {
        match self {
            sm9::Cipher::Xor => "xor",
            sm9::Cipher::Sm4Ecb => "sm4-ecb",
            sm9::Cipher::Sm4Cbc => "sm4-cbc",
        }
    }

    /// The cipher called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        use sm9::Cipher::*;
        pick(name, "cipher", &[Xor, Sm4Ecb, Sm4Cbc], |c| c.name())
    }
}

impl sm9::Mac {
    /// The name callers pass: `"sm3"` (the standard) or `"hmac-sm3"` (GmSSL).
    pub fn name(self) -> &'static str {
        match self {
            sm9::Mac::Sm3 => "sm3",
            sm9::Mac::HmacSm3 => "hmac-sm3",
        }
    }

    /// The MAC called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        use sm9::Mac::*;
        pick(name, "mac", &[Sm3, HmacSm3], |m| m.name())
    }
}

impl sm9::Options {
    /// Options from the three names callers pass (see each enum's `from_name`).
    pub fn from_names(mode: &str, cipher: &str, mac: &str) -> Result<Self> {
        Ok(sm9::Options {
            layout: sm9::Layout::from_name(mode)?,
            cipher: sm9::Cipher::from_name(cipher)?,
            mac: sm9::Mac::from_name(mac)?,
        })
    }
}

/// A hid given as a wider integer: one byte (0..=255) or [`Error::InvalidInput`].
pub fn hid_from_u32(h: u32) -> Result<u8> {
    u8::try_from(h).map_err(|_| Error::invalid(format!("hid must be one byte (0..255), got {h}")))
}

/// e(P, Q) on encoded points: P in G1 (04‖x‖y, x‖y or compressed) and Q in
/// G2 (04‖x1‖x0‖y1‖y0 or the 128 bytes), both validated (Q also in the
/// subgroup); the result in the 384-byte GT encoding that H2 and the KDF
/// hash (GmSSL's and gmsm's order). Public inputs only (variable time is
/// not a concern for them, but the pairing itself does not branch on them).
pub fn pairing_encoded(p: &[u8], q: &[u8]) -> Result<[u8; 384]> {
    let p = sm9::g1::decode(p, "SM9 pairing P")?;
    let q = sm9::g2::decode(q, "SM9 pairing Q")?;
    Ok(sm9::pairing::pairing(&p, &q).to_bytes())
}
