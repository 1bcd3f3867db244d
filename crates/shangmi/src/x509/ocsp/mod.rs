//! OCSP (RFC 6960): requests built and parsed, responses built (two steps,
//! like certificates: the DER ResponseData, then the response from a DER
//! SM2 signature over it) and parsed, and a response's signature checked
//! against the CA or a responder the CA delegated to.
//!
//! Who may sign (RFC 6960 section 4.2.2.2): the CA that issued the
//! certificate in question, or a responder certificate issued directly by
//! that CA and carrying id-kp-OCSPSigning in extKeyUsage. Anything else is
//! refused, whatever the signature says, with a message naming the signer.
//!
//! CertID hashes: SHA-1 (what OpenSSL and most clients send), SHA-256 and
//! SM3 (GmSSL). A CertID is matched by recomputing it with its own hash
//! algorithm, so a response answers a request whichever algorithm it used.
//! Times: producedAt, thisUpdate and nextUpdate are GeneralizedTime, as
//! RFC 6960 requires; freshness is judged by [`super::path`] like a CRL's.
//!
//! | module | job |
//! |---|---|
//! | this one | CertIDs and their hashes, the nonce, extension helpers |
//! | [`request`] | OCSPRequest |
//! | [`data`] | ResponseData: statuses, responder IDs, answers |
//! | [`response`] | OCSPResponse and BasicOCSPResponse, signing and verification |

mod data;
mod request;
mod response;

pub use data::{CertStatus, ResponderId, ResponseData, ResponseStatus, SingleResponse};
pub use request::OcspRequest;
pub use response::{sign_response, OcspResponse};

use super::certificate::{serial_magnitude, Certificate, MAX_SERIAL_READ};
use super::extensions::{self as ext, Extension};
use super::signed;
use crate::encoding::der::{self, Reader};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::{sm3, Error, Result};

/// Bound on the CertIDs of a request and the answers of a response, so a
/// hostile message costs bounded work per byte.
pub(crate) const MAX_ITEMS: usize = 10_000;
/// Bound on the certificates a response carries.
pub(crate) const MAX_CERTS: usize = 64;

/// The hash algorithms a CertID may use here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HashAlgorithm {
    Sha1,
    Sha256,
    Sm3,
}

impl HashAlgorithm {
    /// `"sha1"`, `"sha256"` or `"sm3"` (case-insensitive).
    pub fn from_name(name: &str) -> Result<HashAlgorithm> {
        match name.to_ascii_lowercase().as_str() {
            "sha1" | "sha-1" => Ok(HashAlgorithm::Sha1),
            "sha256" | "sha-256" => Ok(HashAlgorithm::Sha256),
            "sm3" => Ok(HashAlgorithm::Sm3),
            _ => Err(Error::invalid(format!(
                "unknown OCSP CertID hash algorithm '{name}' (expected 'sha1', 'sha256' or 'sm3')"
            ))),
        }
    }

    /// The algorithm an OID names.
    pub fn from_oid(o: &ObjectIdentifier) -> Result<HashAlgorithm> {
        if *o == oid::SHA1 {
            Ok(HashAlgorithm::Sha1)
        } else if *o == oid::SHA256 {
            Ok(HashAlgorithm::Sha256)
        } else if *o == oid::SM3 {
            Ok(HashAlgorithm::Sm3)
        } else {
            Err(Error::invalid(format!(
                "unsupported OCSP CertID hash algorithm {o} (SHA-1, SHA-256 and SM3 are supported)"
            )))
        }
    }

    /// The OID of a name ([`HashAlgorithm::from_name`]) or of a dotted OID
    /// (any hash, as a CertID read elsewhere may name one).
    pub fn oid_of(text: &str) -> Result<ObjectIdentifier> {
        match HashAlgorithm::from_name(text) {
            Ok(a) => Ok(a.oid()),
            Err(_) => ObjectIdentifier::new(text).map_err(|_| {
                Error::invalid(format!(
                    "'{text}' is neither a CertID hash name ('sha1', 'sha256', 'sm3') nor a dotted OID"
                ))
            }),
        }
    }

    /// The name when supported, else the dotted OID: [`HashAlgorithm::oid_of`]'s inverse.
    pub fn text_of(o: &ObjectIdentifier) -> String {
        HashAlgorithm::from_oid(o).map(|h| h.name().to_string()).unwrap_or_else(|_| o.to_string())
    }

    /// The lower-case name ([`HashAlgorithm::from_name`] reads it back).
    pub fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Sha1 => "sha1",
            HashAlgorithm::Sha256 => "sha256",
            HashAlgorithm::Sm3 => "sm3",
        }
    }

    pub fn oid(self) -> ObjectIdentifier {
        match self {
            HashAlgorithm::Sha1 => oid::SHA1,
            HashAlgorithm::Sha256 => oid::SHA256,
            HashAlgorithm::Sm3 => oid::SM3,
        }
    }

    /// The digest of `data`.
    pub fn digest(self, data: &[u8]) -> Vec<u8> {
        use sha1::Digest as _;
        match self {
            HashAlgorithm::Sha1 => sha1::Sha1::digest(data).to_vec(),
            HashAlgorithm::Sha256 => sha2::Sha256::digest(data).to_vec(),
            HashAlgorithm::Sm3 => sm3::hash(data).to_vec(),
        }
    }
}

/// The contents of the subjectPublicKey BIT STRING of a certificate: what
/// issuerKeyHash and the byKey responder ID hash (RFC 6960 4.1.1, 4.2.1).
pub(crate) fn public_key_bits(c: &Certificate) -> Result<Vec<u8>> {
    let spki = der::single(c.spki_der(), der::SEQUENCE, "subjectPublicKeyInfo")?;
    let mut r = Reader::new(spki.value, "subjectPublicKeyInfo");
    r.expect(der::SEQUENCE, "algorithm")?;
    let bits = r.bits("subjectPublicKey")?;
    r.finish("subjectPublicKeyInfo")?;
    Ok(bits.to_vec())
}

/// SHA-1 of a certificate's public key bits: the byKey responder ID.
pub fn responder_key_hash(c: &Certificate) -> Result<Vec<u8>> {
    Ok(HashAlgorithm::Sha1.digest(&public_key_bits(c)?))
}

/// An OCSP CertID: which certificate a request asks about or a response answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CertId {
    /// The hash algorithm's OID (kept as read, even if not supported here).
    pub hash_algorithm: ObjectIdentifier,
    pub issuer_name_hash: Vec<u8>,
    pub issuer_key_hash: Vec<u8>,
    /// Serial magnitude, big-endian without leading zeros.
    pub serial: Vec<u8>,
}

impl CertId {
    /// The CertID of `cert`, issued by `issuer`, under `hash`.
    pub fn new(cert: &Certificate, issuer: &Certificate, hash: HashAlgorithm) -> Result<CertId> {
        if !cert.issuer().matches(issuer.subject()) {
            return Err(Error::invalid(format!(
                "certificate '{}' names '{}' as its issuer, not '{}'",
                cert.subject(),
                cert.issuer(),
                issuer.subject()
            )));
        }
        CertId::from_issuer(issuer, cert.serial(), hash)
    }

    /// The CertID of serial `serial` under `issuer` (a responder answering
    /// from its database has serials, not certificates).
    pub fn from_issuer(issuer: &Certificate, serial: &[u8], hash: HashAlgorithm) -> Result<CertId> {
        crate::x509::builder::check_serial(serial)?;
        let skip = serial.iter().take_while(|&&b| b == 0).count();
        Ok(CertId {
            hash_algorithm: hash.oid(),
            issuer_name_hash: hash.digest(issuer.subject().to_der()),
            issuer_key_hash: hash.digest(&public_key_bits(issuer)?),
            serial: serial[skip..].to_vec(),
        })
    }

    /// The hash algorithm, if it is one supported here.
    pub fn hash(&self) -> Result<HashAlgorithm> {
        HashAlgorithm::from_oid(&self.hash_algorithm)
    }

    /// Whether this CertID names `cert` issued by `issuer` (recomputed with
    /// this CertID's own hash algorithm; false if that is not supported).
    pub fn matches(&self, cert: &Certificate, issuer: &Certificate) -> bool {
        let Ok(h) = self.hash() else { return false };
        cert.serial() == self.serial.as_slice()
            && cert.issuer().matches(issuer.subject())
            && h.digest(issuer.subject().to_der()) == self.issuer_name_hash
            && public_key_bits(issuer).map(|b| h.digest(&b) == self.issuer_key_hash).unwrap_or(false)
    }

    /// Whether the issuer hashes name `issuer` (any serial).
    pub(crate) fn names_issuer(&self, issuer: &Certificate) -> bool {
        let Ok(h) = self.hash() else { return false };
        h.digest(issuer.subject().to_der()) == self.issuer_name_hash
            && public_key_bits(issuer).map(|b| h.digest(&b) == self.issuer_key_hash).unwrap_or(false)
    }

    /// The DER CertID (parameters NULL, as OpenSSL writes them).
    pub fn to_der(&self) -> Result<Vec<u8>> {
        crate::x509::builder::check_serial(&self.serial)?;
        Ok(der::seq(&[
            &der::seq(&[&der::oid(&self.hash_algorithm), &der::tlv(der::NULL, &[])]),
            &der::octets(&self.issuer_name_hash),
            &der::octets(&self.issuer_key_hash),
            &der::uint(&self.serial),
        ]))
    }

    pub(crate) fn parse(r: &mut Reader<'_>, what: &'static str) -> Result<CertId> {
        let mut c = r.nested(der::SEQUENCE, "CertID")?;
        let (hash_algorithm, plain, _) = signed::algorithm(&mut c, "CertID hashAlgorithm")?;
        if !plain {
            return Err(c.err("CertID hashAlgorithm: parameters must be absent or NULL"));
        }
        let issuer_name_hash = c.octets("issuerNameHash")?.to_vec();
        let issuer_key_hash = c.octets("issuerKeyHash")?.to_vec();
        let serial = serial_magnitude(c.integer("serialNumber")?, MAX_SERIAL_READ, what)?;
        c.finish("CertID")?;
        Ok(CertId { hash_algorithm, issuer_name_hash, issuer_key_hash, serial })
    }
}

pub(crate) fn parse_extensions(t: der::Tlv<'_>, what: &'static str) -> Result<Vec<Extension>> {
    let inner = der::single(t.value, der::SEQUENCE, what)?;
    ext::parse_list(inner.value, what)
}

pub(crate) fn encode_extensions(tag: u8, exts: &[Extension]) -> Result<Vec<u8>> {
    if exts.is_empty() {
        Ok(Vec::new())
    } else {
        Ok(der::tlv(tag, &ext::encode_list(exts)?))
    }
}

/// The nonce of an extension list. RFC 8954 puts an OCTET STRING inside
/// extnValue (OpenSSL, GmSSL); some old clients put the bare octets there,
/// which is read too.
pub(crate) fn nonce_of(exts: &[Extension]) -> Option<Vec<u8>> {
    let e = exts.iter().find(|e| e.oid == oid::OCSP_NONCE)?;
    match der::single(&e.value, der::OCTET_STRING, "nonce") {
        Ok(t) => Some(t.value.to_vec()),
        Err(_) => Some(e.value.clone()),
    }
}

/// The nonce extension (RFC 8954: 1 to 32 octets) for `nonce`.
pub fn nonce_extension(nonce: &[u8]) -> Result<Extension> {
    if nonce.is_empty() || nonce.len() > 32 {
        return Err(Error::invalid(format!(
            "OCSP nonce of {} octets (RFC 8954 allows 1 to 32; 16 random octets are usual)",
            nonce.len()
        )));
    }
    Ok(Extension::new(oid::OCSP_NONCE, false, der::octets(nonce)))
}
