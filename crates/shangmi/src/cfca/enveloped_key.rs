//! GB/T 35276-2017 `SM2EnvelopedKey`: an SM2 private key moved between a
//! KMS, a CA's key management centre and a device, encrypted to the
//! receiver's SM2 key (also the `encryptedPrivateKey` of GM/T 0092
//! certificate-request responses).
//!
//! ```text
//! SM2EnvelopedKey ::= SEQUENCE {
//!   symAlgID                AlgorithmIdentifier,  -- SM4-ECB (1.2.156.10197.1.104.1) or SM4 (.104)
//!   symEncryptedKey         SM2Cipher,            -- the SM4 key, SM2-encrypted (GM/T 0009 DER)
//!   sm2PublicKey            BIT STRING,           -- 04 ‖ X ‖ Y of the enveloped key
//!   sm2EncryptedPrivateKey  BIT STRING }          -- SM4-ECB(d), 32 bytes, no padding
//! ```
//!
//! Strict: the decrypted d must give the public key carried beside it.
//! Writers that PKCS#7-pad d (48 bytes) are read too.

use zeroize::Zeroizing;

use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::{PrivateKey, PublicKey};
use crate::sm4::Sm4;
use crate::{Error, Result};

const W: &str = "SM2EnvelopedKey";

/// Envelopes `key` for the holder of `recipient` (GB/T 35276: SM4-ECB
/// under a fresh key, that key SM2-encrypted to `recipient`).
pub fn wrap_enveloped_key(key: &PrivateKey, recipient: &PublicKey) -> Result<Vec<u8>> {
    let mut k = Zeroizing::new([0u8; 16]);
    crate::rand::fill(k.as_mut())?;
    let sym = fmt::ciphertext_to_der(&recipient.encrypt(k.as_ref())?)?;
    let d = key.to_bytes();
    let enc = crate::sm4::ecb_encrypt(&Sm4::new(&k), d.as_ref(), false)?;
    Ok(der::seq(&[
        &der::seq(&[&der::oid(&oid::SM4_ECB), &der::tlv(der::NULL, &[])]),
        &sym,
        &der::bits(&key.public_key().to_bytes(false)),
        &der::bits(&enc),
    ]))
}

/// Opens an `SM2EnvelopedKey` with the recipient's key. A wrong recipient
/// key or a modified SM2Cipher is the opaque [`Error::DecryptionFailed`];
/// a key that does not match its public key an [`Error::InvalidKey`].
pub fn unwrap_enveloped_key(data: &[u8], recipient: &PrivateKey) -> Result<PrivateKey> {
    let mut r = Reader::new(der::single(data, der::SEQUENCE, W)?.value, W);
    let mut alg = r.nested(der::SEQUENCE, "symAlgID")?;
    let a = alg.oid("symAlgID")?;
    if a != oid::SM4_ECB && a != oid::SM4 {
        return Err(Error::UnsupportedAlgorithm(format!(
            "{W} symmetric algorithm {a} (known: SM4-ECB {}, SM4 {})",
            oid::SM4_ECB,
            oid::SM4
        )));
    }
    if !alg.is_empty() {
        alg.expect(der::NULL, "symAlgID parameters (NULL or absent)")?;
    }
    alg.finish("symAlgID")?;
    let sym = r.expect(der::SEQUENCE, "symEncryptedKey")?.raw;
    let public = r.bits("sm2PublicKey")?;
    let enc = r.bits("sm2EncryptedPrivateKey")?;
    r.finish(W)?;
    let public = PublicKey::from_bytes(public).map_err(|e| Error::invalid_key(format!("{W}: sm2PublicKey: {e}")))?;
    if enc.len() != 32 && enc.len() != 48 {
        return Err(Error::invalid(format!(
            "invalid {W}: sm2EncryptedPrivateKey must be 32 bytes (or 48 with padding), got {}",
            enc.len()
        )));
    }
    let ct = fmt::ciphertext_from_der(sym)?;
    let k = Zeroizing::new(recipient.decrypt(&ct)?);
    let k16: Zeroizing<[u8; 16]> = Zeroizing::new(
        k.as_slice()
            .try_into()
            .map_err(|_| Error::invalid_key(format!("{W}: the symmetric key must be 16 bytes, got {}", k.len())))?,
    );
    let d = Zeroizing::new(crate::sm4::ecb_decrypt(&Sm4::new(&k16), enc, false)?);
    if d.len() == 48 && d[32..] != [16u8; 16] {
        return Err(Error::invalid_key(format!("{W}: a 48-byte encrypted key must end in PKCS#7 padding")));
    }
    let key = PrivateKey::from_bytes(&d[..32]).map_err(|e| Error::invalid_key(format!("{W}: {e}")))?;
    if *key.public_key() != public {
        return Err(Error::invalid_key(format!(
            "{W}: the decrypted private key does not match the sm2PublicKey carried with it"
        )));
    }
    Ok(key)
}
