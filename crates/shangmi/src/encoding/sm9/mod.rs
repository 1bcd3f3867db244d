//! SM9 formats: GmSSL's DER for signatures and ciphertexts (`sm9.h`), the
//! names callers give the encryption options, and the batch forms of the
//! signature encodings; the key files in [`keys`].
//!
//! signature `SEQUENCE { h OCTET STRING, S BIT STRING }`;
//! ciphertext `SEQUENCE { EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, C2 OCTET STRING }`.

pub mod keys;
pub mod wire;

pub use wire::{cipher_from_der, cipher_to_der, signature_from_der, signature_to_der, CipherParts};

use super::signature::{SignatureEncoding, SignatureFormat};
use crate::sm9::{self, Signature};
use crate::{Error, Result};

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
