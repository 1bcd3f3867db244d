//! EnvelopedData (RFC 5652 section 6, GM/T 0010 section 9): SM2 key
//! transport of a fresh SM4 key, SM4-CBC content encryption.

use zeroize::Zeroizing;

use super::signed::{read_sid, SignerIdKind};
use super::{content_info, is_data, is_sm2_encryption, unsupported, wrap, Flavor};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::PrivateKey;
use crate::x509::{Certificate, Name};
use crate::{Error, Result};

const MAX_RECIPIENTS: usize = 1024;

/// How each recipient is named in its RecipientInfo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecipientId {
    /// The certificate's issuer name and serial number.
    IssuerAndSerial,
    /// The certificate's subjectKeyIdentifier (which it must have).
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
                let ski = cert.subject_key_id()?.ok_or_else(|| {
                    Error::invalid(format!("recipient '{}' has no subjectKeyIdentifier", cert.subject()))
                })?;
                (2, der::tlv(der::ctx_prim(0), &ski))
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
type Recipient = (SignerIdKind, Vec<u8>, Vec<u8>, Vec<u8>);

struct Parsed {
    iv: [u8; 16],
    content: Vec<u8>,
    /// (identifier kind, issuer DER or key id, serial, encryptedKey) of each SM2 recipient.
    recipients: Vec<Recipient>,
}

fn parse(der: &[u8]) -> Result<Parsed> {
    const W: &str = "EnvelopedData";
    let (ct, body) = content_info(der, W)?;
    if ct != oid::ENVELOPED_DATA && ct != oid::GM_ENVELOPED_DATA {
        return Err(unsupported("content type (expected envelopedData)", &ct));
    }
    let mut ed = Reader::new(der::single(body, der::SEQUENCE, W)?.value, W);
    ed.small_uint("version")?;
    ed.optional(der::ctx(0))?; // originatorInfo
    let mut ris = ed.nested(der::SET, "recipientInfos")?;
    let mut eci = ed.nested(der::SEQUENCE, "encryptedContentInfo")?;
    ed.optional(der::ctx(1))?; // unprotectedAttrs
    ed.finish("EnvelopedData")?;
    let ect = eci.oid("contentType")?;
    if !is_data(&ect) {
        return Err(unsupported("encrypted content type (only data is supported)", &ect));
    }
    let mut alg = eci.nested(der::SEQUENCE, "contentEncryptionAlgorithm")?;
    let a = alg.oid("contentEncryptionAlgorithm")?;
    if a != oid::SM4_CBC {
        return Err(unsupported("content encryption algorithm (only SM4-CBC is supported)", &a));
    }
    let iv_t = alg.expect(der::OCTET_STRING, "IV")?;
    alg.finish("contentEncryptionAlgorithm")?;
    let iv: [u8; 16] = iv_t.value.try_into().map_err(|_| Error::invalid("SM4-CBC IV must be 16 bytes"))?;
    let content = match eci.any()? {
        t if t.tag == der::ctx_prim(0) => t.value.to_vec(),
        // constructed [0] holding OCTET STRING pieces (a BER habit, still definite length)
        t if t.tag == der::ctx(0) => {
            let mut parts = Reader::new(t.value, W);
            let mut out = Vec::new();
            while !parts.is_empty() {
                out.extend_from_slice(parts.expect(der::OCTET_STRING, "encryptedContent")?.value);
            }
            out
        }
        _ => return Err(Error::invalid("invalid EnvelopedData: encryptedContent is missing")),
    };
    // GmSSL's sharedInfo1/2 ([1], [2]) are accepted and ignored.
    let mut recipients = Vec::new();
    while !ris.is_empty() {
        if recipients.len() >= MAX_RECIPIENTS {
            return Err(ris.err("too many recipients"));
        }
        let t = ris.any()?;
        if t.tag != der::SEQUENCE {
            continue; // other RecipientInfo kinds (kari, kekri, ...) are not SM2 key transport
        }
        let mut r = Reader::new(t.value, W);
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
    Ok(Parsed { iv, content, recipients })
}

/// The encryptedKey (GM/T 0009 SM2Cipher DER) of every SM2 RecipientInfo
/// naming `cert` (every one when `cert` is `None`), for a key holder to
/// decrypt (a hardware module, say) before [`decrypt_content`].
pub fn recipient_keys(der: &[u8], cert: Option<&Certificate>) -> Result<Vec<Vec<u8>>> {
    let p = parse(der)?;
    let mut out = Vec::new();
    for (kind, a, b, enc) in p.recipients {
        let matches = match cert {
            None => true,
            Some(c) => match kind {
                SignerIdKind::IssuerSerial => c.issuer().matches(&Name::from_der(&a)?) && c.serial() == b.as_slice(),
                SignerIdKind::KeyId => matches!(c.subject_key_id(), Ok(Some(ref k)) if *k == a),
            },
        };
        if matches {
            out.push(enc);
        }
    }
    if out.is_empty() {
        return Err(Error::invalid(match cert {
            Some(c) => format!("the message has no SM2 recipient info for certificate '{}'", c.subject()),
            None => "the message has no SM2 recipient info".to_string(),
        }));
    }
    Ok(out)
}

/// Decrypts the content with the content-encryption key (16 bytes).
pub fn decrypt_content(der: &[u8], cek: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let p = parse(der)?;
    let k16 = Zeroizing::new(<[u8; 16]>::try_from(cek).map_err(|_| Error::DecryptionFailed)?);
    crate::sm4::cbc_decrypt(&k16, &p.iv, &p.content, true).map(Zeroizing::new).map_err(|_| Error::DecryptionFailed)
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
    for enc in recipient_keys(der, cert)? {
        let Ok(ct) = fmt::ciphertext_from_der(&enc) else { continue };
        let Ok(k) = key.decrypt(&ct).map(Zeroizing::new) else { continue };
        if k.len() == 16 {
            return decrypt_content(der, &k);
        }
    }
    Err(Error::DecryptionFailed)
}
