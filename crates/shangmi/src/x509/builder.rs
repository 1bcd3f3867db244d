//! Building certificates: the DER tbsCertificate, then (after a signer
//! produced a DER SM2 signature over [`super::signing_digest`]) the
//! certificate. Two steps, so a key that lives in a hardware module can sign.

use super::certificate::Certificate;
use super::extensions::{self as ext, Extension};
use super::name::Name;
use super::signed;
use crate::encoding::der;
use crate::encoding::sm2 as fmt;
use crate::sm2::{PrivateKey, PublicKey};
use crate::{Error, Result};

/// The longest serial number written (RFC 5280 section 4.1.2.2).
pub const MAX_SERIAL_WRITE: usize = 20;

/// What a certificate says, before it is signed.
#[derive(Clone, Debug)]
pub struct TbsCertificate {
    /// Serial magnitude, big-endian; 1 to 20 octets once encoded, not zero.
    pub serial: Vec<u8>,
    pub issuer: Name,
    pub subject: Name,
    /// Unix seconds.
    pub not_before: i64,
    pub not_after: i64,
    pub public_key: PublicKey,
    pub extensions: Vec<Extension>,
}

/// Serial numbers are positive and fit in 20 octets of DER INTEGER content.
pub(crate) fn check_serial(magnitude: &[u8]) -> Result<()> {
    let skip = magnitude.iter().take_while(|&&b| b == 0).count();
    let m = &magnitude[skip..];
    if m.is_empty() {
        return Err(Error::invalid("serial number must be positive"));
    }
    let content = m.len() + usize::from(m[0] & 0x80 != 0);
    if content > MAX_SERIAL_WRITE {
        return Err(Error::invalid(format!(
            "serial number too large: {content} octets encoded, at most {MAX_SERIAL_WRITE} (RFC 5280); below 2^159 always fits"
        )));
    }
    Ok(())
}

impl TbsCertificate {
    /// The DER tbsCertificate (v3 when there are extensions, else v1 as
    /// RFC 5280 recommends; SM2-with-SM3; times per RFC 5280's UTCTime rule).
    pub fn to_der(&self) -> Result<Vec<u8>> {
        check_serial(&self.serial)?;
        if self.not_after < self.not_before {
            return Err(Error::invalid("not_valid_after is earlier than not_valid_before"));
        }
        let version = if self.extensions.is_empty() { Vec::new() } else { der::tlv(der::ctx(0), &der::small_int(2)) };
        let validity = der::seq(&[&der::encode_time(self.not_before)?, &der::encode_time(self.not_after)?]);
        let spki = fmt::public_key_to_der(&self.public_key)?;
        let exts = if self.extensions.is_empty() {
            Vec::new()
        } else {
            der::tlv(der::ctx(3), &ext::encode_list(&self.extensions)?)
        };
        Ok(der::seq(&[
            &version,
            &der::uint(&self.serial),
            &signed::sm2_sm3_algorithm(),
            self.issuer.to_der(),
            &validity,
            self.subject.to_der(),
            &spki,
            &exts,
        ]))
    }
}

/// The certificate made of `tbs` and the signer's DER SM2 signature.
pub fn assemble_certificate(tbs: &[u8], sig_der: &[u8]) -> Result<Certificate> {
    Certificate::from_der(&signed::assemble(tbs, sig_der)?)
}

/// Signs any to-be-signed DER with `key` under `uid` (the one-step path
/// for keys held in this process).
pub fn sign_tbs(tbs: &[u8], key: &PrivateKey, uid: &[u8]) -> Result<Vec<u8>> {
    let e = signed::signing_digest(key.public_key(), uid, tbs)?;
    let sig = key.sign_digest(&e)?;
    Ok(fmt::signature_to_der(&sig))
}

/// Builds and signs a certificate in one step.
pub fn sign_certificate(tbs: &TbsCertificate, key: &PrivateKey, uid: &[u8]) -> Result<Certificate> {
    let der = tbs.to_der()?;
    assemble_certificate(&der, &sign_tbs(&der, key, uid)?)
}

/// The key identifier of RFC 5280 section 4.2.1.2 method 1, which is what
/// OpenSSL's `subjectKeyIdentifier=hash` writes: SHA-1 of the public key's
/// BIT STRING contents (an identifier, not a security function).
pub fn key_identifier(key: &PublicKey) -> Vec<u8> {
    use sha1::Digest;
    sha1::Sha1::digest(key.to_bytes(false)).to_vec()
}
