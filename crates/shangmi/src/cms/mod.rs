//! Cryptographic Message Syntax with SM2/SM3/SM4: SignedData and
//! EnvelopedData in the RFC 5652 and GM/T 0010 (GB/T 35275) shapes, and
//! GmSSL's own variant of them.
//!
//! | flavour | content-type OIDs | SignedData signature | key transport OID |
//! |---|---|---|---|
//! | [`Flavor::Rfc5652`] | 1.2.840.113549.1.7.x | over signed attributes, SM3 with Z(uid) | 1.2.156.10197.1.301.3 |
//! | [`Flavor::GmT0010`] | 1.2.156.10197.6.1.4.2.x | same | 1.2.156.10197.1.301.3 |
//! | [`Flavor::Gmssl`] | 1.2.156.10197.6.1.4.2.x | no signed attributes; SM3 of the encapsulated ContentInfo DER, no Z | 1.2.156.10197.1.301.2 |
//!
//! Reading accepts all three (and GmSSL's sloppiness: a signature OID where
//! the digest OID belongs), and what CAs write in the wild: BER (indefinite
//! lengths, constructed OCTET STRINGs, as RFC 5652 allows and BouncyCastle
//! writes), SM4-CBC named by the bare SM4 OID 1.2.156.10197.1.104 with an
//! IV (CFCA, gmsm), SM4-ECB (the bare OID without parameters, or
//! 1.2.156.10197.1.104.1, as KMC key envelopes use), recipients and signers
//! named by issuer and serial or by key identifier (the certificate's
//! subjectKeyIdentifier, or RFC 5280 method 1 when it has none), and GM/T
//! 0010 SignedAndEnvelopedData ([`signed_enveloped`]). Content encryption
//! written is SM4-CBC with PKCS#7 padding and the IV as parameters; CBC
//! (and ECB) have no integrity of their own, so a modified ciphertext is
//! only caught when its padding breaks — sign the content too when
//! integrity matters.

pub mod enveloped;
pub mod signed;
pub mod signed_enveloped;

pub use enveloped::{decrypt, decrypt_content, encrypt, recipient_keys, RecipientId};
pub use signed::{SignRequest, Verified};

use crate::encoding::der::{self, Reader};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::x509::{Certificate, Name};
use crate::{Error, Result};

/// Which OIDs and which SignedData form to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// RFC 5652 content-type OIDs (1.2.840.113549.1.7.x), signed attributes.
    Rfc5652,
    /// GM/T 0010 content-type OIDs (1.2.156.10197.6.1.4.2.x), signed attributes.
    GmT0010,
    /// GmSSL's form: GM/T 0010 OIDs, no signed attributes, no Z.
    Gmssl,
}

impl Flavor {
    /// The name callers see: "rfc5652", "gmt0010" or "gmssl".
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Rfc5652 => "rfc5652",
            Flavor::GmT0010 => "gmt0010",
            Flavor::Gmssl => "gmssl",
        }
    }

    /// The flavour the two public options select: `compat` ("gmssl" or
    /// none) wins over `oids` ("gmt0010" or "rfc5652"). Any other name is
    /// an [`Error::InvalidInput`] listing the valid ones.
    pub fn from_options(oids: &str, compat: Option<&str>) -> Result<Self> {
        match (compat, oids) {
            (Some("gmssl"), _) => Ok(Flavor::Gmssl),
            (Some(other), _) => Err(Error::invalid(format!("compat must be None or 'gmssl', got '{other}'"))),
            (None, "gmt0010") => Ok(Flavor::GmT0010),
            (None, "rfc5652") => Ok(Flavor::Rfc5652),
            (None, other) => Err(Error::invalid(format!("oids must be one of 'gmt0010', 'rfc5652', got '{other}'"))),
        }
    }

    pub(crate) fn data(self) -> ObjectIdentifier {
        match self {
            Flavor::Rfc5652 => oid::DATA,
            _ => oid::GM_DATA,
        }
    }
}

/// `der` with any BER framing turned into DER (the crate's one normaliser),
/// so the readers below stay strict; DER input is borrowed unchanged.
pub(crate) fn normalized<'a>(der: &'a [u8], what: &'static str) -> Result<std::borrow::Cow<'a, [u8]>> {
    der::normalize_ber(der, what)
}

/// The key identifiers that name `cert` as a signer or recipient: its
/// subjectKeyIdentifier extension, or, when it has none, RFC 5280 section
/// 4.2.1.2 method 1 (SHA-1 of the subjectPublicKey BIT STRING's value,
/// without tag, length and unused-bits octet), which toolkits compute for
/// such certificates.
pub fn key_identifier(cert: &Certificate) -> Result<Vec<u8>> {
    if let Some(ski) = cert.subject_key_id()? {
        return Ok(ski);
    }
    Ok(key_identifier_method1(cert.spki_der())?.to_vec())
}

/// RFC 5280 method 1 over a DER SubjectPublicKeyInfo.
pub fn key_identifier_method1(spki: &[u8]) -> Result<[u8; 20]> {
    use sha1::{Digest, Sha1};
    let mut r = Reader::new(der::single(spki, der::SEQUENCE, "SubjectPublicKeyInfo")?.value, "SubjectPublicKeyInfo");
    r.expect(der::SEQUENCE, "algorithm")?;
    let key = r.bits("subjectPublicKey")?;
    r.finish("SubjectPublicKeyInfo")?;
    Ok(Sha1::digest(key).into())
}

/// Whether the identifier read from a SignerIdentifier / RecipientIdentifier
/// names `cert`.
pub(crate) fn names_certificate(cert: &Certificate, kind: signed::SignerIdKind, a: &[u8], serial: &[u8]) -> bool {
    match kind {
        signed::SignerIdKind::IssuerSerial => {
            cert.serial() == serial && Name::from_der(a).map(|n| cert.issuer().matches(&n)).unwrap_or(false)
        }
        signed::SignerIdKind::KeyId => matches!(key_identifier(cert), Ok(ref k) if k == a),
    }
}

/// Parses `ContentInfo ::= SEQUENCE { contentType, [0] EXPLICIT content }`:
/// (contentType, content DER).
pub(crate) fn content_info<'a>(der: &'a [u8], what: &'static str) -> Result<(ObjectIdentifier, &'a [u8])> {
    let outer = der::single(der, der::SEQUENCE, what)?;
    let mut r = Reader::new(outer.value, what);
    let t = r.oid("contentType")?;
    let mut c = r.nested(der::ctx(0), "content")?;
    r.finish("ContentInfo")?;
    let inner = c.any()?;
    c.finish("content")?;
    Ok((t, inner.raw))
}

pub(crate) fn wrap(content_type: &ObjectIdentifier, content: &[u8]) -> Vec<u8> {
    der::seq(&[&der::oid(content_type), &der::tlv(der::ctx(0), content)])
}

/// DER from PEM (`CMS` or `PKCS7`) or DER input.
pub fn from_pem_or_der(data: &[u8]) -> Result<Vec<u8>> {
    if crate::encoding::pem::is_pem(data) {
        crate::x509::pem_one(data, &["CMS", "PKCS7"])
    } else {
        Ok(data.to_vec())
    }
}

/// PEM with the `CMS` label (what OpenSSL's and GmSSL's cms tools write).
pub fn to_pem(der: &[u8]) -> String {
    crate::encoding::pem::encode("CMS", &[], der).to_string()
}

pub(crate) fn unsupported(what: &str, o: &ObjectIdentifier) -> Error {
    Error::invalid(format!("unsupported {what} {o}"))
}

/// Whether `o` is the data content type under either OID family.
pub(crate) fn is_data(o: &ObjectIdentifier) -> bool {
    *o == oid::DATA || *o == oid::GM_DATA
}

/// Whether `o` names an SM2 signature in any form seen in SignerInfo.
pub(crate) fn is_sm2_signature(o: &ObjectIdentifier) -> bool {
    *o == oid::SM2_WITH_SM3 || *o == oid::SM2_SIGN || *o == oid::SM2
}

/// Whether `o` names SM2 key transport in any form seen in KeyTransRecipientInfo.
pub(crate) fn is_sm2_encryption(o: &ObjectIdentifier) -> bool {
    *o == oid::SM2_ENCRYPT || *o == oid::SM2_EXCHANGE || *o == oid::SM2
}
