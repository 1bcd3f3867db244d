//! X.509 for SM2: certificates, certification requests and CRLs (parse and
//! build), and certification path validation.
//!
//! Signatures are SM2-with-SM3 (1.2.156.10197.1.501) with DER `SEQUENCE { r, s }`
//! values. The SM2 user ID is a parameter everywhere: GM/T 0015 and GmSSL sign
//! certificates with `1234567812345678`, OpenSSL 3.0 with the empty ID unless
//! told otherwise; `uid = None` when verifying accepts either
//! ([`UID_CONVENTIONS`]), a `Some` pins one. Building is two steps
//! (to-be-signed DER, then [`assemble_certificate`] with a signature over
//! [`signing_digest`]) so keys outside this process can sign.
//!
//! | module | job |
//! |---|---|
//! | [`name`] | Names, RFC 4514 strings, matching |
//! | [`extensions`] | v3 extensions, typed readers and writers |
//! | [`ext_value`] | the typed content of known extensions, chosen by OID once |
//! | [`certificate`] / [`csr`] / [`crl`] | the three signed structures ([`SignedObject`]) |
//! | [`builder`] | tbsCertificate, signing |
//! | [`path`] | chain building and validation |
//! | [`hostname`] | RFC 6125 host name checks |
//! | [`pkcs7`] | certs-only PKCS#7 (`.p7b`) read and written |
//! | [`ocsp`] | OCSP requests and responses (RFC 6960), built, parsed, verified |

pub(crate) use signed::pem_one;
pub mod builder;
pub mod certificate;
pub mod crl;
pub mod csr;
pub mod ext_value;
pub mod extensions;
pub mod hostname;
pub mod name;
pub mod ocsp;
pub mod path;
pub mod pkcs7;
mod signed;

pub use crate::encoding::der::{format_time, MAX_TIME, MIN_TIME};
pub use crate::encoding::oid::ObjectIdentifier;
pub use builder::{assemble_certificate, key_identifier, sign_certificate, sign_tbs, TbsCertificate};
pub use certificate::Certificate;
pub use crl::{Crl, RevokedCertificate};
pub use csr::CertificateRequest;
pub use ext_value::{ExtKind, ExtValue};
pub use extensions::{Extension, GeneralName};
pub use hostname::verify_hostname;
pub use name::{Attribute, Name};
pub use path::{verify_chain, verify_chain_with_ocsp, Options};
pub use signed::{signing_digest, SignedObject, UID_CONVENTIONS};

/// Parses a dotted object identifier.
pub fn parse_oid(s: &str) -> crate::Result<ObjectIdentifier> {
    ObjectIdentifier::new(s)
}
