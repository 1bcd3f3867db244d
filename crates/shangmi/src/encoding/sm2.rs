//! Adapters between the byte-level formats of this module and the types of
//! [`crate::sm2`]: what the Python binding and other callers use.

use zeroize::Zeroizing;

use super::{keys, pbe, pem, KeyEncryption};
use crate::sm2::{Ciphertext, PrivateKey, PublicKey, Signature};
use crate::{Error, Result};

impl super::SignatureFormat for Signature {
    fn to_der(&self) -> Vec<u8> {
        signature_to_der(self)
    }
    fn to_raw(&self) -> Vec<u8> {
        self.to_bytes().to_vec()
    }
    fn from_der(data: &[u8]) -> Result<Self> {
        signature_from_der(data)
    }
    fn from_raw(data: &[u8]) -> Result<Self> {
        Signature::from_bytes(data)
    }
}

/// DER `SEQUENCE { r, s }` of a signature.
pub fn signature_to_der(sig: &Signature) -> Vec<u8> {
    super::signature_to_der(&sig.r, &sig.s)
}

/// Strict DER parse of a signature; any defect is [`Error::InvalidSignature`].
pub fn signature_from_der(der: &[u8]) -> Result<Signature> {
    let (r, s) = super::signature_from_der(der)?;
    Ok(Signature { r, s })
}

/// GM/T 0009 `SM2Cipher` DER of a ciphertext.
pub fn ciphertext_to_der(ct: &Ciphertext) -> Result<Vec<u8>> {
    super::cipher_to_der(&ct.c1, &ct.c3, &ct.c2)
}

/// Parses GM/T 0009 `SM2Cipher` DER.
pub fn ciphertext_from_der(der: &[u8]) -> Result<Ciphertext> {
    let (c1, c3, c2) = super::cipher_from_der(der)?;
    Ok(Ciphertext { c1, c3, c2 })
}

/// SPKI DER of a public key (uncompressed point, id-ecPublicKey + SM2 curve).
pub fn public_key_to_der(key: &PublicKey) -> Result<Vec<u8>> {
    keys::public_key_to_spki_der(&key.to_bytes(false))
}

/// `PUBLIC KEY` PEM of a public key.
pub fn public_key_to_pem(key: &PublicKey) -> Result<String> {
    Ok(pem::encode("PUBLIC KEY", &[], &public_key_to_der(key)?).to_string())
}

/// A public key from SPKI DER (point validated by [`PublicKey::from_bytes`]).
pub fn public_key_from_der(der: &[u8]) -> Result<PublicKey> {
    PublicKey::from_bytes(&keys::public_key_from_der(der)?)
}

/// A public key from a `PUBLIC KEY` PEM block.
pub fn public_key_from_pem(data: &[u8]) -> Result<PublicKey> {
    PublicKey::from_bytes(&keys::public_key_from_pem(data)?)
}

fn build_private(decoded: keys::DecodedPrivateKey) -> Result<PrivateKey> {
    let key = PrivateKey::from_bytes(decoded.secret.as_ref())?;
    if let Some(p) = decoded.public {
        // A file whose public key does not belong to its private key is
        // corrupt (or forged); refuse it rather than guess which half is right.
        let stated = PublicKey::from_bytes(&p)
            .map_err(|e| Error::invalid_key(format!("invalid public key inside the private key file: {e}")))?;
        if stated.to_bytes(false) != key.public_key().to_bytes(false) {
            return Err(Error::invalid_key("the public key in the file does not match its private key"));
        }
    }
    Ok(key)
}

/// A private key from DER: PKCS#8, encrypted PKCS#8 (with `password`) or SEC1.
pub fn private_key_from_der(der: &[u8], password: Option<&[u8]>) -> Result<PrivateKey> {
    private_key_from_der_capped(der, password, super::DEFAULT_MAX_ITERATIONS)
}

/// [`private_key_from_der`] accepting up to `max_iterations` PBKDF2 iterations.
pub fn private_key_from_der_capped(der: &[u8], password: Option<&[u8]>, max_iterations: u32) -> Result<PrivateKey> {
    build_private(keys::private_key_from_der_capped(der, password, max_iterations)?)
}

/// A private key from PEM: `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`,
/// `EC PRIVATE KEY` or `SM2 PRIVATE KEY` (legacy-encrypted too).
pub fn private_key_from_pem(data: &[u8], password: Option<&[u8]>) -> Result<PrivateKey> {
    private_key_from_pem_capped(data, password, super::DEFAULT_MAX_ITERATIONS)
}

/// [`private_key_from_pem`] accepting up to `max_iterations` PBKDF2 iterations.
pub fn private_key_from_pem_capped(data: &[u8], password: Option<&[u8]>, max_iterations: u32) -> Result<PrivateKey> {
    build_private(keys::private_key_from_pem_capped(data, password, max_iterations)?)
}

/// Every public key of a PEM bundle of `PUBLIC KEY` blocks (only whitespace
/// around and between them).
pub fn public_keys_from_pem_all(data: &[u8]) -> Result<Vec<PublicKey>> {
    keys::public_keys_from_pem_all(data)?.iter().map(|p| PublicKey::from_bytes(p)).collect()
}

/// PKCS#8 DER of a private key; with a password, PBES2 `EncryptedPrivateKeyInfo`
/// (by default PBKDF2-HMAC-SM3 + SM4-CBC; fresh salt and IV).
pub fn private_key_to_der(
    key: &PrivateKey,
    password: Option<&[u8]>,
    scheme: KeyEncryption,
) -> Result<Zeroizing<Vec<u8>>> {
    let d = key.to_bytes();
    let plain = keys::private_key_to_pkcs8_der(&d, &key.public_key().to_bytes(false))?;
    match password {
        None => Ok(plain),
        Some(pw) => pbe::encrypt_pkcs8_der(&plain, pw, scheme, None).map(Zeroizing::new),
    }
}

/// PEM of [`private_key_to_der`]: `PRIVATE KEY` or `ENCRYPTED PRIVATE KEY`.
pub fn private_key_to_pem(
    key: &PrivateKey,
    password: Option<&[u8]>,
    scheme: KeyEncryption,
) -> Result<Zeroizing<String>> {
    let der = private_key_to_der(key, password, scheme)?;
    let label = if password.is_some() { "ENCRYPTED PRIVATE KEY" } else { "PRIVATE KEY" };
    Ok(pem::encode(label, &[], &der))
}

/// SEC1 DER (`ECPrivateKey` with curve and public key), as `openssl ec` writes.
pub fn private_key_to_sec1_der(key: &PrivateKey) -> Result<Zeroizing<Vec<u8>>> {
    keys::private_key_to_sec1_der(&key.to_bytes(), &key.public_key().to_bytes(false))
}

/// The PEM labels a SEC1 private key may be written under.
pub const SEC1_LABELS: [&str; 2] = ["SM2 PRIVATE KEY", "EC PRIVATE KEY"];

/// SEC1 PEM under `label`, one of [`SEC1_LABELS`] (`EC PRIVATE KEY`, or
/// `SM2 PRIVATE KEY` as OpenSSL 3 writes).
pub fn private_key_to_sec1_pem(key: &PrivateKey, label: &str) -> Result<Zeroizing<String>> {
    if !SEC1_LABELS.contains(&label) {
        return Err(Error::invalid(format!(
            "sec1_label must be one of 'SM2 PRIVATE KEY', 'EC PRIVATE KEY', got '{label}'"
        )));
    }
    Ok(pem::encode(label, &[], &private_key_to_sec1_der(key)?))
}
