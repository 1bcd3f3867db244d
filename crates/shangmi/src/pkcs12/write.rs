//! Writing PKCS#12 files: the two protection profiles or none.

use zeroize::Zeroizing;

use super::kdf::{bmp_password, derive, Digest, ID_MAC};
use super::{W, WRITE_ITERATIONS};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::encoding::{self as enc, KeyEncryption};
use crate::sm2::PrivateKey;
use crate::x509::Certificate;
use crate::{Error, Result};

/// How [`serialize`] protects a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protection {
    /// PBKDF2-HMAC-SM3 + SM4-CBC for the key and the certificates, an
    /// HMAC-SM3 MAC: what BouncyCastle and gmsm read (OpenSSL 3.0 cannot).
    Sm,
    /// PBKDF2-HMAC-SHA256 + AES-256-CBC and an HMAC-SHA256 MAC: OpenSSL 3's
    /// default, which OpenSSL 3 and every current toolkit read.
    OpenSsl,
}

impl Protection {
    /// The name callers pass: "sm" or "openssl".
    pub fn name(self) -> &'static str {
        match self {
            Protection::Sm => "sm",
            Protection::OpenSsl => "openssl",
        }
    }

    /// The profile called `name`.
    pub fn from_name(name: &str) -> Result<Self> {
        [Protection::Sm, Protection::OpenSsl]
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| Error::invalid(format!("encryption must be one of 'sm', 'openssl', got '{name}'")))
    }
}

fn bmp_string(s: &str) -> Vec<u8> {
    let units: Vec<u8> = s.encode_utf16().flat_map(u16::to_be_bytes).collect();
    der::tlv(der::BMP_STRING, &units)
}

fn attributes(name: Option<&str>, local_key_id: Option<&[u8]>) -> Vec<u8> {
    let mut attrs = Vec::new();
    if let Some(n) = name {
        attrs.push(der::seq(&[&der::oid(&oid::FRIENDLY_NAME), &der::set_of(&[bmp_string(n)])]));
    }
    if let Some(id) = local_key_id {
        attrs.push(der::seq(&[&der::oid(&oid::LOCAL_KEY_ID), &der::set_of(&[der::octets(id)])]));
    }
    if attrs.is_empty() {
        Vec::new()
    } else {
        der::set_of(&attrs)
    }
}

fn safe_bag(kind: &ObjectIdentifier, value: &[u8], attrs: &[u8]) -> Vec<u8> {
    der::seq(&[&der::oid(kind), &der::tlv(der::ctx(0), value), attrs])
}

fn data_content_info(content: &[u8]) -> Vec<u8> {
    der::seq(&[&der::oid(&oid::DATA), &der::tlv(der::ctx(0), &der::octets(content))])
}

/// Writes a PKCS#12 file holding `key` (with `cert`, which must be its
/// certificate), `cert` and `cas`. `name` becomes the friendlyName of the
/// key and its certificate; the two share a localKeyId (the SHA-1 of the
/// certificate, as OpenSSL writes). With `protection`, the key is a shrouded
/// key bag, the certificates are encrypted data and a MAC covers it all,
/// every derivation with [`WRITE_ITERATIONS`] iterations and a fresh salt;
/// without, nothing is encrypted and there is no MAC.
pub fn serialize(
    name: Option<&str>,
    key: Option<&PrivateKey>,
    cert: Option<&Certificate>,
    cas: &[Certificate],
    protection: Option<(Protection, &[u8])>,
) -> Result<Vec<u8>> {
    if let (Some(k), Some(c)) = (key, cert) {
        let matches = c.public_key().map(|p| p.to_bytes(false) == k.public_key().to_bytes(false)).unwrap_or(false);
        if !matches {
            return Err(Error::invalid(
                "the certificate's public key is not the private key's: give the key's own certificate",
            ));
        }
    }
    let local_key_id: Option<Vec<u8>> = match (key, cert) {
        (Some(_), Some(c)) => {
            use sha2::Digest as _;
            Some(sha1::Sha1::digest(c.to_der()).to_vec())
        }
        _ => None,
    };
    let scheme = protection.map(|(p, pw)| {
        (
            match p {
                Protection::Sm => KeyEncryption::Sm3Sm4,
                Protection::OpenSsl => KeyEncryption::Sha256Aes256,
            },
            pw,
        )
    });

    let mut parts = Vec::new();
    let mut cert_bags = Vec::new();
    if let Some(c) = cert {
        let value =
            der::seq(&[&der::oid(&oid::X509_CERTIFICATE_BAG), &der::tlv(der::ctx(0), &der::octets(c.to_der()))]);
        cert_bags.push(safe_bag(&oid::CERT_BAG, &value, &attributes(name, local_key_id.as_deref())));
    }
    for c in cas {
        let value =
            der::seq(&[&der::oid(&oid::X509_CERTIFICATE_BAG), &der::tlv(der::ctx(0), &der::octets(c.to_der()))]);
        cert_bags.push(safe_bag(&oid::CERT_BAG, &value, &[]));
    }
    if !cert_bags.is_empty() {
        let refs: Vec<&[u8]> = cert_bags.iter().map(|v| v.as_slice()).collect();
        let safe = der::seq(&refs);
        match scheme {
            None => parts.push(data_content_info(&safe)),
            Some((s, pw)) => {
                // EncryptedPrivateKeyInfo and EncryptedContentInfo carry the
                // same AlgorithmIdentifier and ciphertext: encrypt once, then
                // move the two into the EncryptedData shape.
                let epki = enc::encrypt_pkcs8_der(&safe, pw, s, None)?;
                let mut r = Reader::new(&epki, W);
                let mut e = r.nested(der::SEQUENCE, "EncryptedPrivateKeyInfo")?;
                let alg = e.expect(der::SEQUENCE, "encryptionAlgorithm")?;
                let ct = e.octets("encryptedData")?;
                let eci = der::seq(&[&der::oid(&oid::DATA), alg.raw, &der::tlv(der::ctx_prim(0), ct)]);
                let ed = der::seq(&[&der::small_int(0), &eci]);
                parts.push(der::seq(&[&der::oid(&oid::ENCRYPTED_DATA), &der::tlv(der::ctx(0), &ed)]));
            }
        }
    }
    if let Some(k) = key {
        let pkcs8 = enc::sm2::private_key_to_der(k, None, KeyEncryption::default())?;
        let attrs = attributes(name, local_key_id.as_deref());
        let bag = match scheme {
            None => Zeroizing::new(safe_bag(&oid::KEY_BAG, &pkcs8, &attrs)),
            Some((s, pw)) => {
                let epki = enc::encrypt_pkcs8_der(&pkcs8, pw, s, None)?;
                Zeroizing::new(safe_bag(&oid::PKCS8_SHROUDED_KEY_BAG, &epki, &attrs))
            }
        };
        parts.push(data_content_info(&der::seq(&[&bag])));
    }
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    let auth_safe = der::seq(&refs);
    let mac_data = match protection {
        None => Vec::new(),
        Some((p, pw)) => {
            let h = match p {
                Protection::Sm => Digest::Sm3,
                Protection::OpenSsl => Digest::Sha256,
            };
            let mut salt = [0u8; 16];
            crate::rand::fill(&mut salt)?;
            let key = derive(h, ID_MAC, &bmp_password(pw), &salt, WRITE_ITERATIONS, h.out_len());
            let mac = h.hmac(&key, &auth_safe)?;
            let alg = der::seq(&[&der::oid(&h.oid()), &der::tlv(der::NULL, &[])]);
            der::seq(&[
                &der::seq(&[&alg, &der::octets(&mac)]),
                &der::octets(&salt),
                &der::small_int(WRITE_ITERATIONS.into()),
            ])
        }
    };
    Ok(der::seq(&[&der::small_int(3), &data_content_info(&auth_safe), &mac_data]))
}

/// [`serialize`] with its options as a caller in another language spells
/// them: `name` as UTF-8 bytes, `encryption` by name ("sm", "openssl") or
/// `None` for an unprotected file, and `password` given exactly when
/// `encryption` is (an empty password is a password).
pub fn serialize_named(
    name: Option<&[u8]>,
    key: Option<&PrivateKey>,
    cert: Option<&Certificate>,
    cas: &[Certificate],
    encryption: Option<&str>,
    password: Option<&[u8]>,
) -> Result<Vec<u8>> {
    let name = name
        .map(|n| std::str::from_utf8(n).map_err(|_| Error::invalid("the friendly name must be UTF-8")))
        .transpose()?;
    let protection = match (encryption.map(Protection::from_name).transpose()?, password) {
        (Some(p), Some(pw)) => Some((p, pw)),
        (None, None) => None,
        (Some(p), None) => {
            return Err(Error::invalid(format!(
                "encryption '{}' needs a password (use no encryption for an unprotected file)",
                p.name()
            )))
        }
        (None, Some(_)) => {
            return Err(Error::invalid("a password was given but no encryption: name the encryption to use it"))
        }
    };
    if key.is_none() && cert.is_none() && cas.is_empty() {
        return Err(Error::invalid("nothing to write: give a key, a certificate or CA certificates"));
    }
    serialize(name, key, cert, cas, protection)
}
