//! The one signature-encoding choice, for SM2 and SM9 alike: DER (what
//! OpenSSL, GmSSL and X.509/CMS carry) or the raw fixed-width bytes.
//!
//! The enum lives here, with the formats, rather than in `crate::sm2` or
//! `crate::sm9`: it is a wire-format choice, not part of either algorithm,
//! and one enum means one set of names ("der", "raw") and one message for a
//! wrong name, whichever algorithm a caller uses. Each signature type says
//! how it is written by implementing [`SignatureFormat`].

use crate::{Error, Result};

/// How a signature is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignatureEncoding {
    /// DER: SM2 `SEQUENCE { r INTEGER, s INTEGER }`; SM9 GmSSL's
    /// `SEQUENCE { h OCTET STRING, S BIT STRING }`.
    #[default]
    Der,
    /// Fixed width: SM2 64 bytes r‖s (what the `gmssl` package uses, as
    /// hex); SM9 h ‖ 04‖x‖y.
    Raw,
}

/// A signature type's two encodings.
pub trait SignatureFormat: Sized {
    /// The DER encoding.
    fn to_der(&self) -> Vec<u8>;
    /// The raw fixed-width encoding.
    fn to_raw(&self) -> Vec<u8>;
    /// Parses the DER encoding.
    fn from_der(data: &[u8]) -> Result<Self>;
    /// Parses the raw encoding.
    fn from_raw(data: &[u8]) -> Result<Self>;
}

impl SignatureEncoding {
    /// Every encoding, default first.
    pub const ALL: [SignatureEncoding; 2] = [SignatureEncoding::Der, SignatureEncoding::Raw];

    /// The name callers pass: "der" or "raw".
    pub fn name(self) -> &'static str {
        match self {
            SignatureEncoding::Der => "der",
            SignatureEncoding::Raw => "raw",
        }
    }

    /// The encoding called `name`, or an [`Error::InvalidInput`] listing them.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|e| e.name() == name)
            .ok_or_else(|| Error::invalid(format!("encoding must be one of 'der', 'raw', got '{name}'")))
    }

    /// The signature in this encoding.
    pub fn encode<S: SignatureFormat>(self, sig: &S) -> Vec<u8> {
        match self {
            SignatureEncoding::Der => sig.to_der(),
            SignatureEncoding::Raw => sig.to_raw(),
        }
    }

    /// Parses a signature; any defect is [`Error::InvalidSignature`] (a
    /// malformed signature is just one that does not verify).
    pub fn parse<S: SignatureFormat>(self, data: &[u8]) -> Result<S> {
        let s = match self {
            SignatureEncoding::Der => S::from_der(data),
            SignatureEncoding::Raw => S::from_raw(data),
        };
        s.map_err(|_| Error::InvalidSignature)
    }
}
