//! EnvelopedData (RFC 5652 section 6, GM/T 0010 section 9): SM2 key
//! transport of a fresh SM4 key, SM4-CBC content encryption.

use zeroize::Zeroizing;

use super::signed::{read_sid, SignerIdKind};
use super::{content_info, is_data, is_sm2_encryption, names_certificate, normalized, unsupported, wrap, Flavor};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::PrivateKey;
use crate::x509::Certificate;
use crate::{Error, Result};

const MAX_RECIPIENTS: usize = 1024;

/// How each recipient is named in its RecipientInfo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipientId {
    /// The certificate's issuer name and serial number.
    IssuerAndSerial,
    /// The certificate's subjectKeyIdentifier, or the SHA-1 of its public
    /// key (RFC 5280 method 1) when it has none.
    SubjectKeyIdentifier,
}

impl RecipientId {
    /// Both choices, the default first.
    pub const ALL: [RecipientId; 2] = [RecipientId::IssuerAndSerial, RecipientId::SubjectKeyIdentifier];

    /// The name callers pass: "issuer_and_serial" or "key_identifier".
    pub fn name(self) -> &'static str {
        match self {
            RecipientId::IssuerAndSerial => "issuer_and_serial",
            RecipientId::SubjectKeyIdentifier => "key_identifier",
        }
    }

    /// The choice called `name`, or an [`Error::InvalidInput`] listing both.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL.into_iter().find(|r| r.name() == name).ok_or_else(|| {
            Error::invalid(format!("recipient_id must be 'issuer_and_serial' or 'key_identifier', got '{name}'"))
        })
    }
}

/// Encrypts `data` for every recipient certificate.
pub fn encrypt(data: &[u8], recipients: &[Certificate], flavor: Flavor, rid: RecipientId) -> Result<Vec<u8>> {
    if recipients.is_empty() {
        return Err(Error::invalid("at least one recipient certificate is needed"));
    }
    let mut key = Zeroizing::new([0u8; 16]);
    crate::rand::fill(key.as_mut())?;
    let mut iv = [0u8; 16];
    crate::rand::fill(&mut iv)?;
    let kt_oid = if flavor == Flavor::Gmssl { oid::SM2_EXCHANGE } else { oid::SM2_ENCRYPT };
    let mut infos = Vec::with_capacity(recipients.len());
    for cert in recipients {
        let ct = cert.public_key()?.encrypt(key.as_ref())?;
        let enc = fmt::ciphertext_to_der(&ct)?;
        let (version, id) = match rid {
            RecipientId::IssuerAndSerial => (
                if flavor == Flavor::Rfc5652 { 0 } else { 1 },
                der::seq(&[cert.issuer().to_der(), &der::uint(cert.serial())]),
            ),
            RecipientId::SubjectKeyIdentifier => {
                // The subjectKeyIdentifier, or RFC 5280 method 1 without one.
                (2, der::tlv(der::ctx_prim(0), &super::key_identifier(cert)?))
            }
        };
        infos.push(der::seq(&[&der::small_int(version), &id, &der::seq(&[&der::oid(&kt_oid)]), &der::octets(&enc)]));
    }
    let body = crate::sm4::cbc_encrypt(&key, &iv, data, true)?;
    let eci = der::seq(&[
        &der::oid(&flavor.data()),
        &der::seq(&[&der::oid(&oid::SM4_CBC), &der::octets(&iv)]),
        &der::tlv(der::ctx_prim(0), &body),
    ]);
    let refs: Vec<&[u8]> = infos.iter().map(|v| v.as_slice()).collect();
    let version = if flavor == Flavor::Rfc5652 && rid == RecipientId::IssuerAndSerial { 0 } else { 2 };
    let version = if flavor == Flavor::Rfc5652 { version } else { 1 };
    let ed = der::seq(&[&der::small_int(version), &der::cons(der::SET, &refs), &eci]);
    let t = if flavor == Flavor::Rfc5652 { oid::ENVELOPED_DATA } else { oid::GM_ENVELOPED_DATA };
    Ok(wrap(&t, &ed))
}

/// (identifier kind, issuer DER or key id, serial, encryptedKey).
pub(crate) type Recipient = (SignerIdKind, Vec<u8>, Vec<u8>, Vec<u8>);

/// How the content is encrypted, as its AlgorithmIdentifier says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ContentCipher {
    /// SM4-CBC (1.2.156.10197.1.104.2, or the bare SM4 OID with an IV).
    Cbc([u8; 16]),
    /// SM4-ECB (1.2.156.10197.1.104.1, or the bare SM4 OID without
    /// parameters or with NULL), as KMC key envelopes use.
    Ecb,
}

impl ContentCipher {
    /// Decrypts with the 16-byte content-encryption key.
    ///
    /// CBC content has PKCS#7 padding. ECB writers differ: gmsm pads, while
    /// key management centres deliver a GM/T 0016 ECC private-key blob (64
    /// bytes, the 32-byte key left-padded with zeros) unpadded, as
    /// gmcert.org's does. So ECB padding is removed when it is valid PKCS#7
    /// padding, except from a plaintext of exactly that blob's shape, which
    /// is returned whole (stripping a key whose last byte happens to be 01
    /// would give a wrong key).
    pub(crate) fn decrypt(self, cek: &[u8], content: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        let k16 = Zeroizing::new(<[u8; 16]>::try_from(cek).map_err(|_| Error::DecryptionFailed)?);
        let out = match self {
            ContentCipher::Cbc(iv) => crate::sm4::cbc_decrypt(&k16, &iv, content, true),
            ContentCipher::Ecb => {
                let raw = Zeroizing::new(
                    crate::sm4::ecb_decrypt(&crate::sm4::Sm4::new(&k16), content, false)
                        .map_err(|_| Error::DecryptionFailed)?,
                );
                let blob = raw.len() == 64 && raw[..32].iter().all(|&b| b == 0);
                match (blob, unpadded_len(&raw)) {
                    (false, Some(n)) => Ok(raw[..n].to_vec()),
                    _ => Ok(raw.to_vec()),
                }
            }
        };
        out.map(Zeroizing::new).map_err(|_| Error::DecryptionFailed)
    }
}

/// The length without valid PKCS#7 padding, if the padding is valid. The
/// content is a delivered secret, but whether it is padded is public
/// (the length of what is returned shows it), so plain comparisons do.
fn unpadded_len(raw: &[u8]) -> Option<usize> {
    let n = *raw.last()? as usize;
    if n == 0 || n > 16 || n > raw.len() {
        return None;
    }
    raw[raw.len() - n..].iter().all(|&b| b as usize == n).then(|| raw.len() - n)
}

pub(crate) struct Parsed {
    pub(crate) cipher: ContentCipher,
    pub(crate) content: Vec<u8>,
    /// (identifier kind, issuer DER or key id, serial, encryptedKey) of each SM2 recipient.
    pub(crate) recipients: Vec<Recipient>,
}

/// Reads `EncryptedContentInfo` (RFC 5652 6.1, GM/T 0010 9.1): the
/// cipher and the ciphertext, joined when BER split it into segments.
pub(crate) fn encrypted_content_info(eci: &mut Reader<'_>) -> Result<(ContentCipher, Vec<u8>)> {
    const W: &str = "EncryptedContentInfo";
    let ect = eci.oid("contentType")?;
    if !is_data(&ect) {
        return Err(unsupported("encrypted content type (only data is supported)", &ect));
    }
    let mut alg = eci.nested(der::SEQUENCE, "contentEncryptionAlgorithm")?;
    let a = alg.oid("contentEncryptionAlgorithm")?;
    let params = if alg.is_empty() { None } else { Some(alg.any()?) };
    alg.finish("contentEncryptionAlgorithm")?;
    let cipher = match (&a, params) {
        (a, Some(p)) if (*a == oid::SM4_CBC || *a == oid::SM4) && p.tag == der::OCTET_STRING => {
            ContentCipher::Cbc(p.value.try_into().map_err(|_| {
                Error::invalid(format!("invalid {W}: SM4-CBC IV must be 16 bytes, got {}", p.value.len()))
            })?)
        }
        (a, None) if *a == oid::SM4 || *a == oid::SM4_ECB => ContentCipher::Ecb,
        (a, Some(p)) if (*a == oid::SM4 || *a == oid::SM4_ECB) && p.tag == der::NULL && p.value.is_empty() => {
            ContentCipher::Ecb
        }
        (a, _) if *a == oid::SM4_CBC || *a == oid::SM4 || *a == oid::SM4_ECB => {
            return Err(Error::invalid(format!(
                "invalid {W}: {a} needs a 16-byte IV as an OCTET STRING (CBC) or no parameters (ECB)"
            )))
        }
        (a, _) => {
            return Err(Error::UnsupportedAlgorithm(format!(
            "content encryption algorithm {a} (supported: SM4-CBC {}, SM4 {} with an IV or without one, SM4-ECB {})",
            oid::SM4_CBC,
            oid::SM4,
            oid::SM4_ECB
        )))
        }
    };
    let content = match eci.any()? {
        t if t.tag == der::ctx_prim(0) => t.value.to_vec(),
        // constructed [0] holding OCTET STRING segments (BER)
        t if t.tag == der::ctx(0) => {
            let mut parts = eci.inner(t.value)?;
            let mut out = Vec::new();
            while !parts.is_empty() {
                out.extend_from_slice(parts.expect(der::OCTET_STRING, "encryptedContent")?.value);
            }
            out
        }
        _ => return Err(Error::invalid(format!("invalid {W}: encryptedContent is missing"))),
    };
    Ok((cipher, content))
}

/// Reads the SM2 KeyTransRecipientInfos of a RecipientInfos SET; other
/// kinds (kari, kekri, ...) and other algorithms are skipped.
pub(crate) fn recipient_infos(ris: &mut Reader<'_>) -> Result<Vec<Recipient>> {
    let mut recipients = Vec::new();
    while !ris.is_empty() {
        if recipients.len() >= MAX_RECIPIENTS {
            return Err(ris.err("too many recipients"));
        }
        let t = ris.any()?;
        if t.tag != der::SEQUENCE {
            continue;
        }
        let mut r = ris.inner(t.value)?;
        r.small_uint("version")?;
        let (kind, a, b) = read_sid(&mut r)?;
        let mut ka = r.nested(der::SEQUENCE, "keyEncryptionAlgorithm")?;
        let o = ka.oid("keyEncryptionAlgorithm")?;
        if !is_sm2_encryption(&o) {
            continue;
        }
        let enc = r.expect(der::OCTET_STRING, "encryptedKey")?.value.to_vec();
        r.finish("KeyTransRecipientInfo")?;
        recipients.push((kind, a, b, enc));
    }
    Ok(recipients)
}

fn parse(der: &[u8]) -> Result<Parsed> {
    const W: &str = "EnvelopedData";
    let der = normalized(der, W)?;
    let (ct, body) = content_info(&der, W)?;
    if ct != oid::ENVELOPED_DATA && ct != oid::GM_ENVELOPED_DATA {
        if ct == oid::GM_SIGNED_AND_ENVELOPED_DATA || ct == oid::SIGNED_AND_ENVELOPED_DATA {
            return Err(Error::invalid(
                "this is a signed-and-enveloped message: read it with decrypt_and_verify (it is signed as well)",
            ));
        }
        return Err(unsupported("content type (expected envelopedData)", &ct));
    }
    let mut ed = Reader::new(der::single(body, der::SEQUENCE, W)?.value, W);
    ed.small_uint("version")?;
    ed.optional(der::ctx(0))?; // originatorInfo
    let mut ris = ed.nested(der::SET, "recipientInfos")?;
    let mut eci = ed.nested(der::SEQUENCE, "encryptedContentInfo")?;
    ed.optional(der::ctx(1))?; // unprotectedAttrs
    ed.finish("EnvelopedData")?;
    // GmSSL's sharedInfo1/2 ([1], [2]) after the content are accepted and ignored.
    let (cipher, content) = encrypted_content_info(&mut eci)?;
    let recipients = recipient_infos(&mut ris)?;
    Ok(Parsed { cipher, content, recipients })
}

/// The encryptedKeys of the recipients naming `cert` (every one when `None`).
pub(crate) fn select(recipients: Vec<Recipient>, cert: Option<&Certificate>) -> Result<Vec<Vec<u8>>> {
    let mut out = Vec::new();
    for (kind, a, b, enc) in recipients {
        if cert.is_none_or(|c| names_certificate(c, kind, &a, &b)) {
            out.push(enc);
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(match cert {
            Some(c) => format!(
                "the message has no SM2 recipient info for certificate '{}' (looked for its issuer and serial and its key identifier)",
                c.subject()
            ),
            None => "the message has no SM2 recipient info".to_string(),
        }));
    }
    Ok(out)
}

/// Unwraps the content-encryption key with `key` from the first of
/// `encrypted_keys` that decrypts to 16 bytes.
pub(crate) fn unwrap_cek(encrypted_keys: &[Vec<u8>], key: &PrivateKey) -> Result<Zeroizing<Vec<u8>>> {
    for enc in encrypted_keys {
        let Ok(ct) = fmt::ciphertext_from_der(enc) else { continue };
        let Ok(k) = key.decrypt(&ct).map(Zeroizing::new) else { continue };
        if k.len() == 16 {
            return Ok(k);
        }
    }
    Err(Error::DecryptionFailed)
}

/// The encryptedKey (GM/T 0009 SM2Cipher DER) of every SM2 RecipientInfo
/// naming `cert` (every one when `cert` is `None`), for a key holder to
/// decrypt (a hardware module, say) before [`decrypt_content`].
pub fn recipient_keys(der: &[u8], cert: Option<&Certificate>) -> Result<Vec<Vec<u8>>> {
    select(parse(der)?.recipients, cert)
}

/// Decrypts the content with the content-encryption key (16 bytes).
pub fn decrypt_content(der: &[u8], cek: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let p = parse(der)?;
    p.cipher.decrypt(cek, &p.content)
}

/// Decrypts an EnvelopedData with `key`. With `cert`, only the RecipientInfo
/// naming that certificate is used (an error if there is none); without, each
/// one is tried. Every failure after the structure was parsed is the same
/// opaque [`Error::DecryptionFailed`].
pub fn decrypt(der: &[u8], key: &PrivateKey, cert: Option<&Certificate>) -> Result<Zeroizing<Vec<u8>>> {
    if let Some(c) = cert {
        if c.public_key()? != key.public_key() {
            return Err(Error::invalid_key("the private key does not belong to the recipient certificate"));
        }
    }
    let p = parse(der)?;
    let cek = unwrap_cek(&select(p.recipients, cert)?, key)?;
    p.cipher.decrypt(&cek, &p.content)
}
