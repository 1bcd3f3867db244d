//! CFCA's own key formats (China Financial Certification Authority, its
//! SADK toolkit): the `.sm2` key container and the escrowed encryption key
//! CFCA returns for a dual-certificate request.
//!
//! `.sm2` container (SADK `cfca.sadk.asn1.pkcs`; DER, or base64 of it):
//!
//! ```text
//! SEQUENCE {
//!   INTEGER 1,
//!   SEQUENCE { OID data (1.2.156.10197.6.1.4.2.1),
//!              OID SM4 (1.2.156.10197.1.104, or .104.2 SM4-CBC),   -- a bare OID, no AlgorithmIdentifier
//!              OCTET STRING  SM4-CBC(d, PKCS#7 padding) },
//!   SEQUENCE { OID data, OCTET STRING certificate DER } }
//! ```
//!
//! The SM4 key and IV come from the password alone: KDF(password, 32) with
//! the SM3-based KDF of GB/T 32918.4 (5.4.3), IV = the first 16 bytes, key =
//! the last 16 (no salt, no iteration count: a `.sm2` file is only as strong
//! as its password). The scalar must belong to the certificate's key.
//!
//! Escrowed encryption key (the response to a dual-certificate request whose
//! CSR carried a temporary public key): optionally the ASCII prefix
//! `0000000000000001000000000000000100000000000000000000000000000000` and a
//! 16-digit decimal length of what follows, then base64 (possibly broken by
//! commas) of `SEQUENCE { INTEGER 1 DEFAULT, OCTET STRING c }`, where c is
//! SM2 encryption to the temporary key in C1‖C3‖C2 order without C1's 04
//! octet, of X‖Y‖d (96 bytes).
//!
//! The GB/T 35276 `SM2EnvelopedKey` that KMSs and key management centres
//! use to move SM2 keys lives here too ([`unwrap_enveloped_key`],
//! [`wrap_enveloped_key`]).

mod enveloped_key;

pub use enveloped_key::{unwrap_enveloped_key, wrap_enveloped_key};

use base64ct::{Base64, Encoding};
use zeroize::Zeroizing;

use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::sm2::{Ciphertext, PrivateKey, PublicKey};
use crate::x509::Certificate;
use crate::{Error, Result};

const W: &str = "CFCA .sm2 key container";
const WRONG_PASSWORD: &str = "could not decrypt the CFCA .sm2 key: wrong password or corrupted file";
/// The fixed prefix SADK puts before an escrowed key's length and base64.
const ESCROW_PREFIX: &[u8] = b"0000000000000001000000000000000100000000000000000000000000000000";
/// Larger inputs are not CFCA key files (a container is ~1 KiB).
const MAX_INPUT: usize = 1 << 20;

/// DER from DER, PEM (any label, e.g. `CFCA KEY`) or bare base64 text:
/// line breaks and spaces ignored, or, for `escrow`, SADK's comma
/// separators ignored and only surrounding whitespace allowed (as SADK
/// and gmsm read it).
fn der_from_text(data: &[u8], what: &str, escrow: bool) -> Result<Zeroizing<Vec<u8>>> {
    if data.len() > MAX_INPUT {
        return Err(Error::invalid(format!("{what}: input of {} bytes is too large", data.len())));
    }
    if data.first() == Some(&0x30) {
        return Ok(Zeroizing::new(data.to_vec()));
    }
    if crate::encoding::pem::is_pem(data) {
        let block = crate::encoding::pem::decode(data)?;
        return Ok(Zeroizing::new(block.der.to_vec()));
    }
    let text: Zeroizing<Vec<u8>> = Zeroizing::new(if escrow {
        data.trim_ascii().iter().copied().filter(|&b| b != b',').collect()
    } else {
        data.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect()
    });
    if text.is_empty() {
        return Err(Error::invalid(format!("{what}: the input is empty")));
    }
    Base64::decode_vec(std::str::from_utf8(&text).unwrap_or("\u{0}"))
        .map(Zeroizing::new)
        .map_err(|_| Error::invalid(format!("{what}: neither DER (a SEQUENCE) nor valid base64")))
}

/// The SM4 key and IV of a `.sm2` container: KDF(password, 32) = IV ‖ key.
fn password_key(password: &[u8]) -> Result<Zeroizing<[u8; 32]>> {
    if password.is_empty() {
        return Err(Error::invalid_key("a CFCA .sm2 container needs a non-empty password"));
    }
    let mut ivkey = Zeroizing::new([0u8; 32]);
    crate::sm3::kdf_into(&[password], ivkey.as_mut());
    Ok(ivkey)
}

/// Reads a `.sm2` container (DER, PEM or base64) with `password`: the
/// private key and its certificate. A wrong password is one
/// [`Error::InvalidKey`]; a key that does not belong to the certificate
/// another.
pub fn load_sm2(data: &[u8], password: &[u8]) -> Result<(PrivateKey, Certificate)> {
    let der = der_from_text(data, W, false)?;
    let mut top = Reader::new(der::single(&der, der::SEQUENCE, W)?.value, W);
    let version = top.small_uint("version")?;
    if version != 1 {
        return Err(top.err(format!("version {version} (expected 1)")));
    }
    let mut k = top.nested(der::SEQUENCE, "encrypted key")?;
    let mut c = top.nested(der::SEQUENCE, "certificate")?;
    top.finish(W)?;
    let t = k.oid("encrypted key content type")?;
    if t != oid::GM_DATA {
        return Err(k.err(format!("encrypted key content type {t} (expected data, {})", oid::GM_DATA)));
    }
    let alg = k.oid("key encryption algorithm")?;
    if alg != oid::SM4 && alg != oid::SM4_CBC {
        return Err(Error::UnsupportedAlgorithm(format!(
            "CFCA .sm2 key encryption algorithm {alg} (known: SM4 {}, SM4-CBC {})",
            oid::SM4,
            oid::SM4_CBC
        )));
    }
    let enc = k.octets("encrypted key")?;
    k.finish("encrypted key")?;
    let t = c.oid("certificate content type")?;
    if t != oid::GM_DATA {
        return Err(c.err(format!("certificate content type {t} (expected data, {})", oid::GM_DATA)));
    }
    let cert = Certificate::from_der(c.octets("certificate")?)?;
    c.finish("certificate")?;
    let public = cert.public_key()?.clone();
    let ivkey = password_key(password)?;
    let (iv, key): (&[u8; 16], &[u8; 16]) = (
        ivkey[..16].try_into().map_err(|_| Error::invalid_key(WRONG_PASSWORD))?,
        ivkey[16..].try_into().map_err(|_| Error::invalid_key(WRONG_PASSWORD))?,
    );
    let d =
        Zeroizing::new(crate::sm4::cbc_decrypt(key, iv, enc, true).map_err(|_| Error::invalid_key(WRONG_PASSWORD))?);
    // SADK writes d's minimal big-endian bytes (a leading zero dropped).
    if d.is_empty() || d.len() > 32 {
        return Err(Error::invalid_key(WRONG_PASSWORD));
    }
    let mut d32 = Zeroizing::new([0u8; 32]);
    d32[32 - d.len()..].copy_from_slice(&d);
    let key = PrivateKey::from_bytes(d32.as_ref()).map_err(|_| Error::invalid_key(WRONG_PASSWORD))?;
    if *key.public_key() != public {
        return Err(Error::invalid_key(
            "the CFCA .sm2 private key does not belong to its certificate (wrong password, or a tampered file)",
        ));
    }
    Ok((key, cert))
}

/// Writes a `.sm2` container (DER) as CFCA SADK's `CombineSM2Data` does
/// (the bare SM4 OID, d's 32 bytes). `cert` must hold `key`'s public key.
pub fn save_sm2(key: &PrivateKey, cert: &Certificate, password: &[u8]) -> Result<Vec<u8>> {
    if cert.public_key()? != key.public_key() {
        return Err(Error::invalid_key("the private key does not belong to the certificate"));
    }
    let ivkey = password_key(password)?;
    let (iv, k): (&[u8; 16], &[u8; 16]) = (
        ivkey[..16].try_into().map_err(|_| Error::invalid("KDF output"))?,
        ivkey[16..].try_into().map_err(|_| Error::invalid("KDF output"))?,
    );
    let d = key.to_bytes();
    let enc = crate::sm4::cbc_encrypt(k, iv, d.as_ref(), true)?;
    Ok(der::seq(&[
        &der::small_int(1),
        &der::seq(&[&der::oid(&oid::GM_DATA), &der::oid(&oid::SM4), &der::octets(&enc)]),
        &der::seq(&[&der::oid(&oid::GM_DATA), &der::octets(cert.to_der())]),
    ]))
}

/// Decrypts the escrowed encryption key CFCA returns for a dual-certificate
/// request with the temporary key whose public half the request carried.
/// Strict: the decrypted d must give the public key sent with it.
pub fn decrypt_escrowed_key(data: &[u8], temporary_key: &PrivateKey) -> Result<PrivateKey> {
    const E: &str = "CFCA escrowed key";
    let body = match data.strip_prefix(ESCROW_PREFIX) {
        Some(rest) => {
            let (len, tail) = (rest.get(..16), rest.get(16..).unwrap_or_default());
            let declared = len
                .and_then(|l| std::str::from_utf8(l).ok())
                .filter(|l| l.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|l| l.parse::<usize>().ok())
                .ok_or_else(|| {
                    Error::invalid(format!("{E}: the prefix must be followed by a 16-digit decimal length"))
                })?;
            if declared != tail.len() {
                return Err(Error::invalid(format!(
                    "{E}: the declared length {declared} differs from the {} bytes that follow",
                    tail.len()
                )));
            }
            tail
        }
        None => data,
    };
    let der = der_from_text(body, E, true)?;
    let mut r = Reader::new(der::single(&der, der::SEQUENCE, E)?.value, E);
    if r.peek_tag() == Some(der::INTEGER) {
        let v = r.small_uint("version")?;
        if v != 1 {
            return Err(r.err(format!("version {v} (expected 1)")));
        }
    }
    let c = r.octets("encrypted key")?;
    r.finish(E)?;
    // C1 without its 04 octet (64), C3 (32), C2 (96: X ‖ Y ‖ d).
    if c.len() != 64 + 32 + 96 {
        return Err(Error::invalid(format!(
            "{E}: the SM2 ciphertext must be 192 bytes (C1 x‖y, C3, 96-byte C2), got {}",
            c.len()
        )));
    }
    let mut full = Vec::with_capacity(c.len() + 1);
    full.push(4);
    full.extend_from_slice(c);
    let ct = Ciphertext::from_c1c3c2(&full)?;
    let plain = Zeroizing::new(temporary_key.decrypt(&ct)?);
    let public = PublicKey::from_bytes(&[&[4u8][..], &plain[..64]].concat())
        .map_err(|e| Error::invalid_key(format!("{E}: the delivered public key is invalid: {e}")))?;
    let key = PrivateKey::from_bytes(&plain[64..])
        .map_err(|e| Error::invalid_key(format!("{E}: the delivered private key is invalid: {e}")))?;
    if *key.public_key() != public {
        return Err(Error::invalid_key(format!(
            "{E}: the delivered private key does not match the public key delivered with it"
        )));
    }
    Ok(key)
}
