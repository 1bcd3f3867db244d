//! Wire-format choices of the SM2 API as enums with their names, and the
//! operations that depend on them: parsing and encoding ciphertexts and
//! signatures, verification with advice on a likely signer-ID mix-up, and
//! batch verification of encoded signatures, signing with or without a
//! nonce pool, and the choice between the private-key containers (PKCS#8 or
//! SEC1). Callers with option names as
//! text (the Python binding) use [`CiphertextMode::from_name`] and
//! [`SignatureEncoding::from_name`], so the names and their messages live
//! here once.
//!
//! It lives in `encoding`, not `crate::sm2`: every choice here is a wire
//! format (the layout enums name bytes, not arithmetic), the signature
//! encoding is shared with SM9 ([`SignatureEncoding`], one enum for both),
//! and `crate::sm2` stays the algorithm on fixed types, so one place holds
//! the formats and their names for every caller.

use super::sm2 as fmt;
use super::KeyEncryption;
pub use super::SignatureEncoding;
use crate::sm2::{self, Ciphertext, PrivateKey, PublicKey, Signature, SignaturePool};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// Ciphertext layouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CiphertextMode {
    /// C1‖C3‖C2, GB/T 32918.4-2016's order (C1 = 04‖x‖y).
    #[default]
    C1C3C2,
    /// C1‖C2‖C3, the 2010 draft's order.
    C1C2C3,
    /// GM/T 0009 `SM2Cipher` DER, what `openssl pkeyutl` writes.
    Der,
}

impl CiphertextMode {
    /// Every mode, default first.
    pub const ALL: [CiphertextMode; 3] = [CiphertextMode::C1C3C2, CiphertextMode::C1C2C3, CiphertextMode::Der];

    /// The name callers pass: "c1c3c2", "c1c2c3" or "der".
    pub fn name(self) -> &'static str {
        match self {
            CiphertextMode::C1C3C2 => "c1c3c2",
            CiphertextMode::C1C2C3 => "c1c2c3",
            CiphertextMode::Der => "der",
        }
    }

    /// The mode called `name`, or an [`Error::InvalidInput`] listing them.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| Error::invalid(format!("mode must be one of 'c1c3c2', 'c1c2c3', 'der', got '{name}'")))
    }

    /// The ciphertext in this layout.
    pub fn encode(self, ct: &Ciphertext) -> Result<Vec<u8>> {
        match self {
            CiphertextMode::C1C3C2 => Ok(ct.to_c1c3c2()),
            CiphertextMode::C1C2C3 => Ok(ct.to_c1c2c3()),
            CiphertextMode::Der => super::sm2::ciphertext_to_der(ct),
        }
    }

    /// Parses a ciphertext in this layout. Errors ([`Error::InvalidInput`])
    /// recognise the common mix-ups, from public bytes only: DER given to a
    /// raw mode, a raw ciphertext given to `der`, and a C1 without its 04
    /// byte (the `gmssl` Python package's format).
    pub fn parse(self, data: &[u8]) -> Result<Ciphertext> {
        let parsed = match self {
            CiphertextMode::C1C3C2 => Ciphertext::from_c1c3c2(data),
            CiphertextMode::C1C2C3 => Ciphertext::from_c1c2c3(data),
            CiphertextMode::Der => super::sm2::ciphertext_from_der(data),
        };
        parsed.map_err(|e| self.hint(data).unwrap_or(e))
    }

    fn hint(self, data: &[u8]) -> Option<Error> {
        let first = *data.first()?;
        match self {
            CiphertextMode::C1C3C2 | CiphertextMode::C1C2C3 => {
                if first == 0x30 && super::sm2::ciphertext_from_der(data).is_ok() {
                    return Some(Error::invalid(format!(
                        "this looks like a DER SM2Cipher (GM/T 0009, what openssl pkeyutl writes), not {}; use the DER mode",
                        self.name().to_uppercase()
                    )));
                }
                // Room for a 64-byte x‖y, a 32-byte C3 and a non-empty C2.
                if first != 0x04 && data.len() > 64 + 32 {
                    return Some(Error::invalid(format!(
                        "SM2 ciphertext C1 must be an uncompressed point starting with 04, got {first:02x}; \
                         this looks like the gmssl package's format (C1C2C3 without the 04 byte): \
                         prepend the 04 byte and use the C1C2C3 mode"
                    )));
                }
                None
            }
            CiphertextMode::Der if first == 0x04 => Some(Error::invalid(
                "this looks like a raw ciphertext (it starts with C1's 04 byte), not DER; \
                 use the C1C3C2 or C1C2C3 mode",
            )),
            CiphertextMode::Der => None,
        }
    }
}

/// The other widely deployed signer ID: the empty ID (OpenSSL 3's default)
/// for the standard default, and the reverse.
fn other_uid(uid: &[u8]) -> Option<&'static [u8]> {
    if uid == sm2::DEFAULT_UID {
        Some(b"")
    } else if uid.is_empty() {
        Some(sm2::DEFAULT_UID)
    } else {
        None
    }
}

fn show_uid(uid: &[u8]) -> String {
    if uid == sm2::DEFAULT_UID {
        "uid \"1234567812345678\" (the default)".into()
    } else if uid.is_empty() {
        "the empty uid (OpenSSL 3's default)".into()
    } else {
        format!("uid of {} bytes", uid.len())
    }
}

/// Verifies an encoded signature of `msg` under `uid`. On failure with one
/// of the two deployed default IDs the other is tried (only then, so a good
/// signature costs one verification) and, if it verifies, the error is
/// [`Error::InvalidSignatureHint`] saying which uid to pass.
pub fn verify(key: &PublicKey, sig: &[u8], msg: &[u8], uid: &[u8], encoding: SignatureEncoding) -> Result<()> {
    let sig = encoding.parse(sig)?;
    let Err(err) = key.verify(msg, uid, &sig) else {
        return Ok(());
    };
    if err == Error::InvalidSignature {
        if let Some(other) = other_uid(uid) {
            if key.verify(msg, other, &sig).is_ok() {
                let pass = if other.is_empty() { "the empty uid" } else { "uid \"1234567812345678\"" };
                return Err(Error::InvalidSignatureHint(format!(
                    "signature does not verify with {}, but it does with {}: pass {pass}",
                    show_uid(uid),
                    show_uid(other)
                )));
            }
        }
    }
    Err(err)
}

/// The first failing item of a batch: its position and its error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemError {
    pub index: usize,
    pub error: Error,
}

impl core::fmt::Display for ItemError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ciphertext {}: {}", self.index, self.error)
    }
}

/// Decrypts every ciphertext (each in `mode`'s layout) with `key`
/// ([`PrivateKey::decrypt_many`]: parallel, eight at a time on IFMA lanes):
/// the plaintexts in order, or the first item that does not parse or
/// decrypt, by index (the plaintexts already recovered are wiped).
pub fn decrypt_many(
    key: &PrivateKey,
    data: &[&[u8]],
    mode: CiphertextMode,
) -> core::result::Result<Vec<Vec<u8>>, ItemError> {
    let cts = data
        .iter()
        .enumerate()
        .map(|(index, d)| mode.parse(d).map_err(|error| ItemError { index, error }))
        .collect::<core::result::Result<Vec<Ciphertext>, ItemError>>()?;
    let mut out = Vec::with_capacity(cts.len());
    let mut first = None;
    for (index, r) in key.decrypt_many(&cts).into_iter().enumerate() {
        match r {
            Ok(m) if first.is_none() => out.push(m),
            Ok(mut m) => zeroize::Zeroize::zeroize(&mut m),
            Err(error) => {
                first.get_or_insert(ItemError { index, error });
            }
        }
    }
    match first {
        None => Ok(out),
        Some(e) => {
            out.iter_mut().for_each(zeroize::Zeroize::zeroize);
            Err(e)
        }
    }
}

/// Verifies `(key, message, encoded signature)` triples under one `uid`, in
/// parallel: one bool per item, a signature that does not parse is `false`.
pub fn verify_many(items: &[(&PublicKey, &[u8], &[u8])], uid: &[u8], encoding: SignatureEncoding) -> Result<Vec<bool>> {
    let parsed: Vec<Option<Signature>> = items.iter().map(|(_, _, s)| encoding.parse(s).ok()).collect();
    let mut batch = Vec::with_capacity(items.len());
    let mut index = Vec::with_capacity(items.len());
    for (i, ((key, msg, _), sig)) in items.iter().zip(&parsed).enumerate() {
        if let Some(sig) = sig {
            batch.push((*key, *msg, sig));
            index.push(i);
        }
    }
    let ok = sm2::verify_many(&batch, uid)?;
    let mut out = vec![false; items.len()];
    for (i, good) in index.into_iter().zip(ok) {
        out[i] = good;
    }
    Ok(out)
}

/// Signs `msg` under `uid` and encodes the signature: with a fresh nonce, or
/// with the next entry of `pool` when one is given (an empty pool falls back
/// to a fresh nonce, as [`PrivateKey::sign_with_pool`] does).
pub fn sign(
    key: &PrivateKey,
    msg: &[u8],
    uid: &[u8],
    pool: Option<&SignaturePool>,
    encoding: SignatureEncoding,
) -> Result<Vec<u8>> {
    let sig = match pool {
        Some(p) => key.sign_with_pool(msg, uid, p)?,
        None => key.sign(msg, uid)?,
    };
    Ok(encoding.encode(&sig))
}

/// The private key as DER: SEC1 `ECPrivateKey` when `sec1` (never
/// encrypted: a password is an [`Error::InvalidInput`]), else PKCS#8,
/// PBES2-encrypted under `scheme` when a password is given.
pub fn private_key_to_der(
    key: &PrivateKey,
    password: Option<&[u8]>,
    sec1: bool,
    scheme: KeyEncryption,
) -> Result<Zeroizing<Vec<u8>>> {
    match (sec1, password) {
        (true, Some(_)) => Err(Error::invalid("SEC1 DER cannot be encrypted; use PKCS#8 with a password instead")),
        (true, None) => fmt::private_key_to_sec1_der(key),
        (false, pw) => fmt::private_key_to_der(key, pw, scheme),
    }
}

/// The private key as PEM: SEC1 under `sec1_label` when one is given (one of
/// [`fmt::SEC1_LABELS`]; never encrypted: a password is an
/// [`Error::InvalidInput`]), else PKCS#8 (`PRIVATE KEY`, or `ENCRYPTED
/// PRIVATE KEY` under `scheme` with a password).
pub fn private_key_to_pem(
    key: &PrivateKey,
    password: Option<&[u8]>,
    sec1_label: Option<&str>,
    scheme: KeyEncryption,
) -> Result<Zeroizing<String>> {
    match (sec1_label, password) {
        (Some(_), Some(_)) => {
            Err(Error::invalid("encrypted SEC1 PEM is not written; use PKCS#8 with a password instead"))
        }
        (Some(label), None) => fmt::private_key_to_sec1_pem(key, label),
        (None, pw) => fmt::private_key_to_pem(key, pw, scheme),
    }
}
