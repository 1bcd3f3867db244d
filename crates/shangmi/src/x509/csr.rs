//! PKCS#10 certification requests (RFC 2986).

use crate::encoding::oid::ObjectIdentifier;

use super::extensions::{self as ext, Extension};
use super::name::Name;
use super::signed::{self, Signed, SignedObject};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::PublicKey;
use crate::{Error, Result};

/// A parsed CSR. Immutable; keeps its exact DER.
#[derive(Clone, Debug)]
pub struct CertificateRequest {
    der: Vec<u8>,
    signed: Signed,
    subject: Name,
    spki: Vec<u8>,
    public_key: std::result::Result<PublicKey, String>,
    /// (type, complete DER of each value) of every attribute.
    attributes: Vec<(ObjectIdentifier, Vec<Vec<u8>>)>,
    extensions: Vec<Extension>,
}

const MAX_ATTRIBUTES: usize = 256;

impl CertificateRequest {
    /// Parses one DER PKCS#10 request (no trailing bytes), validating every
    /// field; its extensionRequest attribute, if any, is parsed too.
    ///
    /// Several extensionRequest attributes (Alibaba Cloud KMS writes two)
    /// are read as OpenSSL reads them (`X509_REQ_get_extensions`): the
    /// first one in the encoding, and its first value, give the extensions;
    /// the others are kept among [`Self::attributes`].
    pub fn from_der(der: &[u8]) -> Result<Self> {
        const W: &str = "certificate request";
        let signed = Signed::parse(der, W)?;
        let mut r = Reader::new(&der[signed.tbs.clone()], W);
        let mut t = r.nested(der::SEQUENCE, "certificationRequestInfo")?;
        let version = t.small_uint("version")?;
        if version != 0 {
            return Err(t.err(format!("version {version} is unknown (PKCS#10 defines only v1, encoded 0)")));
        }
        let subject = Name::from_der(t.expect(der::SEQUENCE, "subject")?.raw)?;
        let spki = t.expect(der::SEQUENCE, "subjectPKInfo")?.raw.to_vec();
        let mut attributes = Vec::new();
        let mut extensions = Vec::new();
        if let Some(a) = t.optional(der::ctx(0))? {
            let mut ar = Reader::new(a.value, W);
            while !ar.is_empty() {
                if attributes.len() >= MAX_ATTRIBUTES {
                    return Err(ar.err("too many attributes"));
                }
                let mut at = ar.nested(der::SEQUENCE, "Attribute")?;
                let typ = at.oid("attribute type")?;
                let mut values = at.nested(der::SET, "attribute values")?;
                at.finish("Attribute")?;
                let mut vals = Vec::new();
                while !values.is_empty() {
                    vals.push(values.any()?.raw.to_vec());
                }
                let first_request = typ == oid::EXTENSION_REQUEST
                    && !attributes.iter().any(|(o, _): &(ObjectIdentifier, _)| *o == oid::EXTENSION_REQUEST);
                if let (true, Some(v)) = (first_request, vals.first()) {
                    let inner = der::single(v, der::SEQUENCE, "certificate request extensionRequest").map_err(|e| {
                        Error::invalid(format!(
                            "invalid certificate request: the extensionRequest attribute's value is not an Extensions SEQUENCE ({e})"
                        ))
                    })?;
                    extensions = ext::parse_list(inner.value, W).map_err(|e| match e {
                        Error::InvalidInput(m) => Error::invalid(format!("{m} (in the extensionRequest attribute)")),
                        other => other,
                    })?;
                }
                attributes.push((typ, vals));
            }
        }
        t.finish("certificationRequestInfo")?;
        let public_key = fmt::public_key_from_der(&spki).map_err(|e| e.to_string());
        Ok(CertificateRequest { der: der.to_vec(), signed, subject, spki, public_key, attributes, extensions })
    }

    /// The request's DER, as parsed or built.
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// The subject name.
    pub fn subject(&self) -> &Name {
        &self.subject
    }

    /// The DER of subjectPKInfo, whatever key type it holds.
    pub fn spki_der(&self) -> &[u8] {
        &self.spki
    }

    /// The SM2 public key; an [`Error::InvalidKey`] if the request holds
    /// another kind of key.
    pub fn public_key(&self) -> Result<&PublicKey> {
        self.public_key.as_ref().map_err(|e| Error::invalid_key(format!("certificate request public key: {e}")))
    }

    /// Every attribute as (type, DER values), in request order.
    pub fn attributes(&self) -> &[(ObjectIdentifier, Vec<Vec<u8>>)] {
        &self.attributes
    }

    /// The extensions of its extensionRequest attribute.
    pub fn extensions(&self) -> &[Extension] {
        &self.extensions
    }

    /// Checks the self-signature (proof of possession) under `uid`, or
    /// either deployed convention when `uid` is `None`.
    pub fn verify(&self, uid: Option<&[u8]>) -> Result<()> {
        signed::verify(self.public_key()?, &self.signed.alg, self.tbs_der(), &self.signed.signature, uid).map(|_| ())
    }
}

impl SignedObject for CertificateRequest {
    const PEM_LABELS: &'static [&'static str] = &["CERTIFICATE REQUEST", "NEW CERTIFICATE REQUEST"];

    fn from_der(der: &[u8]) -> Result<Self> {
        CertificateRequest::from_der(der)
    }

    fn to_der(&self) -> &[u8] {
        CertificateRequest::to_der(self)
    }

    fn envelope(&self) -> &Signed {
        &self.signed
    }
}

/// The DER certificationRequestInfo for `subject`, `key` and extensions
/// (carried in one extensionRequest attribute, omitted when empty).
pub fn encode_request_info(subject: &Name, key: &PublicKey, extensions: &[Extension]) -> Result<Vec<u8>> {
    let spki = fmt::public_key_to_der(key)?;
    let attrs = if extensions.is_empty() {
        der::tlv(der::ctx(0), &[])
    } else {
        let exts = ext::encode_list(extensions)?;
        let attr = der::seq(&[&der::oid(&oid::EXTENSION_REQUEST), &der::set_of(&[exts])]);
        der::tlv(der::ctx(0), &attr)
    };
    Ok(der::seq(&[&der::small_int(0), subject.to_der(), &spki, &attrs]))
}

/// Assembles a CSR from its info and a DER signature.
pub fn assemble(info: &[u8], sig_der: &[u8]) -> Result<CertificateRequest> {
    CertificateRequest::from_der(&signed::assemble(info, sig_der)?)
}
