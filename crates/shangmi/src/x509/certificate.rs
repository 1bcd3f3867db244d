//! X.509 v1/v3 certificates (RFC 5280 section 4.1): strict parsing,
//! accessors, and the signature check against an issuer.

use crate::encoding::oid::ObjectIdentifier;

use super::extensions::{self as ext, Extension};
use super::name::Name;
use super::signed::{self, Signed, SignedObject};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::PublicKey;
use crate::{sm3, Error, Result};

/// The longest serial number read, in content octets: RFC 5280 allows 20,
/// and GmSSL writes 20 random octets that may need a 21st for the sign.
pub const MAX_SERIAL_READ: usize = 21;

/// A parsed certificate. Immutable; keeps its exact DER.
#[derive(Clone, Debug)]
pub struct Certificate {
    der: Vec<u8>,
    signed: Signed,
    version: u8,
    serial: Vec<u8>,
    tbs_alg: ObjectIdentifier,
    tbs_alg_der: Vec<u8>,
    issuer: Name,
    subject: Name,
    not_before: i64,
    not_after: i64,
    spki: Vec<u8>,
    public_key: std::result::Result<PublicKey, String>,
    extensions: Vec<Extension>,
}

/// A serial number's magnitude (big-endian, no leading zeros) from INTEGER
/// content; negative serials are refused.
pub(crate) fn serial_magnitude(v: &[u8], max: usize, what: &str) -> Result<Vec<u8>> {
    if v[0] & 0x80 != 0 {
        return Err(Error::invalid(format!("invalid {what}: negative serial number")));
    }
    if v.len() > max {
        return Err(Error::invalid(format!("invalid {what}: serial number of {} octets (at most {max})", v.len())));
    }
    let skip = v.iter().take_while(|&&b| b == 0).count();
    Ok(v[skip..].to_vec())
}

impl Certificate {
    /// Parses one DER certificate (no trailing bytes).
    pub fn from_der(der: &[u8]) -> Result<Certificate> {
        const W: &str = "certificate";
        let signed = Signed::parse(der, W)?;
        let mut r = Reader::new(&der[signed.tbs.clone()], W);
        let mut t = r.nested(der::SEQUENCE, "tbsCertificate")?;
        let version = match t.optional(der::ctx(0))? {
            Some(v) => {
                let mut vr = Reader::new(v.value, W);
                let n = vr.small_uint("version")?;
                vr.finish("version")?;
                match n {
                    0 => return Err(t.err("version v1 must be omitted in DER (DEFAULT)")),
                    1 | 2 => n as u8 + 1,
                    _ => return Err(t.err(format!("unknown version {}", n + 1))),
                }
            }
            None => 1,
        };
        let serial = serial_magnitude(t.integer("serialNumber")?, MAX_SERIAL_READ, W)?;
        let (tbs_alg, _, tbs_alg_der) = signed::algorithm(&mut t, "signature")?;
        let issuer = Name::from_der(t.expect(der::SEQUENCE, "issuer")?.raw)?;
        let mut validity = t.nested(der::SEQUENCE, "validity")?;
        let nb = validity.any()?;
        let not_before = der::parse_time(&nb, "notBefore")?;
        let na = validity.any()?;
        let not_after = der::parse_time(&na, "notAfter")?;
        validity.finish("validity")?;
        let subject = Name::from_der(t.expect(der::SEQUENCE, "subject")?.raw)?;
        let spki = t.expect(der::SEQUENCE, "subjectPublicKeyInfo")?.raw.to_vec();
        t.optional(der::ctx_prim(1))?;
        t.optional(der::ctx_prim(2))?;
        let extensions = match t.optional(der::ctx(3))? {
            Some(e) => {
                if version != 3 {
                    return Err(t.err("extensions in a certificate that is not v3"));
                }
                let inner = der::single(e.value, der::SEQUENCE, W)?;
                if inner.value.is_empty() {
                    return Err(t.err("empty extensions"));
                }
                ext::parse_list(inner.value, W)?
            }
            None => Vec::new(),
        };
        t.finish("tbsCertificate")?;
        let public_key = fmt::public_key_from_der(&spki).map_err(|e| e.to_string());
        let cert = Certificate {
            der: der.to_vec(),
            signed,
            version,
            serial,
            tbs_alg,
            tbs_alg_der,
            issuer,
            subject,
            not_before,
            not_after,
            spki,
            public_key,
            extensions,
        };
        cert.check_known_extensions()?;
        Ok(cert)
    }

    /// Parses the extensions this module interprets, so a malformed one is
    /// reported when the certificate is loaded rather than mid-validation.
    fn check_known_extensions(&self) -> Result<()> {
        self.basic_constraints()?;
        self.key_usage()?;
        self.subject_key_id()?;
        self.authority_key_id()?;
        Ok(())
    }

    /// Every `CERTIFICATE` block of a PEM bundle, in order.
    pub fn from_pem_bundle(data: &[u8]) -> Result<Vec<Certificate>> {
        signed::pem_blocks(data, "CERTIFICATE")?.iter().map(|d| Certificate::from_der(d)).collect()
    }

    /// The certificate's DER, as parsed or built.
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// 1 or 3 (2 for the rare v2).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// The serial number's magnitude, big-endian without leading zeros.
    pub fn serial(&self) -> &[u8] {
        &self.serial
    }

    /// The issuer name.
    pub fn issuer(&self) -> &Name {
        &self.issuer
    }

    /// The subject name.
    pub fn subject(&self) -> &Name {
        &self.subject
    }

    /// notBefore / notAfter in Unix seconds.
    pub fn not_before(&self) -> i64 {
        self.not_before
    }

    /// notAfter in Unix seconds.
    pub fn not_after(&self) -> i64 {
        self.not_after
    }

    /// The DER of subjectPublicKeyInfo, whatever key type it holds.
    pub fn spki_der(&self) -> &[u8] {
        &self.spki
    }

    /// The SM2 public key; an error if the certificate holds another kind of key.
    pub fn public_key(&self) -> Result<&PublicKey> {
        self.public_key.as_ref().map_err(|e| Error::invalid_key(format!("certificate public key: {e}")))
    }

    /// Every extension, in certificate order.
    pub fn extensions(&self) -> &[Extension] {
        &self.extensions
    }

    /// The extension with `oid`, if present (a certificate holds each at most once).
    pub fn extension(&self, oid: &ObjectIdentifier) -> Option<&Extension> {
        self.extensions.iter().find(|e| e.oid == *oid)
    }

    /// SM3 over the DER.
    pub fn fingerprint(&self) -> [u8; 32] {
        sm3::hash(&self.der)
    }

    /// (cA, pathLenConstraint), if the extension is present.
    pub fn basic_constraints(&self) -> Result<Option<(bool, Option<u64>)>> {
        self.extension(&oid::BASIC_CONSTRAINTS).map(|e| ext::basic_constraints(&e.value)).transpose()
    }

    /// The keyUsage mask ([`ext::key_usage`] bits), if the extension is present;
    /// an error if it is malformed.
    pub fn key_usage(&self) -> Result<Option<u16>> {
        self.extension(&oid::KEY_USAGE).map(|e| ext::key_usage(&e.value)).transpose()
    }

    /// The subjectKeyIdentifier octets, if the extension is present; an error
    /// if it is malformed.
    pub fn subject_key_id(&self) -> Result<Option<Vec<u8>>> {
        self.extension(&oid::SUBJECT_KEY_IDENTIFIER).map(|e| ext::subject_key_identifier(&e.value)).transpose()
    }

    /// The keyIdentifier of authorityKeyIdentifier, if present.
    pub fn authority_key_id(&self) -> Result<Option<Vec<u8>>> {
        Ok(self
            .extension(&oid::AUTHORITY_KEY_IDENTIFIER)
            .map(|e| ext::authority_key_identifier(&e.value))
            .transpose()?
            .and_then(|a| a.0))
    }

    /// Whether the subject equals the issuer (a self-issued certificate).
    pub fn is_self_issued(&self) -> bool {
        self.subject.matches(&self.issuer)
    }

    /// Checks this certificate's signature with `issuer`'s key. With
    /// `uid = None` either deployed user-ID convention is accepted
    /// ([`signed::UID_CONVENTIONS`]); a `Some` pins one.
    pub fn verify_signature(&self, issuer_key: &PublicKey, uid: Option<&[u8]>) -> Result<()> {
        if self.tbs_alg_der != self.signed.alg_der {
            return Err(Error::invalid(format!(
                "certificate '{}': the signature algorithm inside and outside the signed part differ ({} vs {})",
                self.subject, self.tbs_alg, self.signed.alg
            )));
        }
        signed::verify(issuer_key, &self.signed.alg, self.tbs_der(), &self.signed.signature, uid).map(|_| ())
    }

    /// `issuer` issued this certificate directly: names chain and the
    /// signature verifies. A name mismatch is [`Error::InvalidCertificate`];
    /// a bad signature is [`Error::InvalidSignature`].
    pub fn verify_directly_issued_by(&self, issuer: &Certificate, uid: Option<&[u8]>) -> Result<()> {
        if !self.issuer.matches(&issuer.subject) {
            return Err(Error::InvalidCertificate(format!(
                "certificate '{}' was issued by '{}', not by '{}'",
                self.subject, self.issuer, issuer.subject
            )));
        }
        self.verify_signature(issuer.public_key()?, uid)
    }
}

impl SignedObject for Certificate {
    const PEM_LABELS: &'static [&'static str] = &["CERTIFICATE", "X509 CERTIFICATE"];

    fn from_der(der: &[u8]) -> Result<Self> {
        Certificate::from_der(der)
    }

    fn to_der(&self) -> &[u8] {
        Certificate::to_der(self)
    }

    fn envelope(&self) -> &Signed {
        &self.signed
    }
}

impl PartialEq for Certificate {
    fn eq(&self, other: &Self) -> bool {
        self.der == other.der
    }
}

impl Eq for Certificate {}
