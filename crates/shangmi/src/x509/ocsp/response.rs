//! OCSPResponse and BasicOCSPResponse (RFC 6960 4.2.1): assembled from a
//! signed ResponseData, parsed, and checked for who signed.

use super::data::{ResponseData, ResponseStatus};
use super::{nonce_of, MAX_CERTS};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::sm2::PublicKey;
use crate::x509::extensions as ext;
use crate::x509::name::hex;
use crate::x509::{signed, Certificate};
use crate::{Error, Result};

/// The signed part of a successful response.
#[derive(Clone, Debug)]
struct Basic {
    /// The BasicOCSPResponse DER.
    der: Vec<u8>,
    tbs: std::ops::Range<usize>,
    data: ResponseData,
    alg: ObjectIdentifier,
    signature: Vec<u8>,
    certs: Vec<Certificate>,
}

/// A parsed OCSP response. Immutable; keeps its exact DER.
#[derive(Clone, Debug)]
pub struct OcspResponse {
    der: Vec<u8>,
    status: ResponseStatus,
    basic: Option<Basic>,
}

fn no_data(status: ResponseStatus) -> Error {
    Error::invalid(format!("the OCSP response status is {}: it carries no signed certificate status", status.name()))
}

impl OcspResponse {
    /// Parses one DER OCSPResponse (no trailing bytes), validating every
    /// field; a successful one must be a BasicOCSPResponse, an unsuccessful
    /// one must carry nothing.
    pub fn from_der(data: &[u8]) -> Result<OcspResponse> {
        const W: &str = "OCSP response";
        let outer = der::single(data, der::SEQUENCE, W)?;
        let mut r = Reader::new(outer.value, W);
        let st = r.expect(der::ENUMERATED, "responseStatus")?;
        let code = match st.value {
            [c] if *c < 0x80 => *c as u64,
            _ => return Err(r.err("responseStatus: not a one-octet ENUMERATED")),
        };
        let status = ResponseStatus::from_code(code)?;
        let bytes = r.optional(der::ctx(0))?;
        r.finish("OCSPResponse")?;
        let basic = match (status, bytes) {
            (ResponseStatus::Successful, Some(b)) => {
                let mut br = r.inner(b.value)?;
                let mut rb = br.nested(der::SEQUENCE, "responseBytes")?;
                br.finish("responseBytes")?;
                let ty = rb.oid("responseType")?;
                if ty != oid::OCSP_BASIC {
                    return Err(rb.err(format!(
                        "responseType {ty} is not id-pkix-ocsp-basic ({}), the only type RFC 6960 requires",
                        oid::OCSP_BASIC
                    )));
                }
                let inner = rb.octets("response")?;
                rb.finish("responseBytes")?;
                Some(Basic::parse(inner)?)
            }
            (ResponseStatus::Successful, None) => {
                return Err(r.err("a successful response must carry responseBytes"));
            }
            (_, Some(_)) => return Err(r.err("an unsuccessful response must not carry responseBytes")),
            (_, None) => None,
        };
        Ok(OcspResponse { der: data.to_vec(), status, basic })
    }

    /// An unsuccessful response (nothing signed) with `status`.
    pub fn unsuccessful(status: ResponseStatus) -> Result<OcspResponse> {
        if status == ResponseStatus::Successful {
            return Err(Error::invalid("a successful response needs signed data: build and sign a ResponseData"));
        }
        OcspResponse::from_der(&der::seq(&[&der::tlv(der::ENUMERATED, &[status as u8])]))
    }

    /// The successful response made of `tbs` (a DER ResponseData), the
    /// responder's DER SM2 signature over it and the certificates to carry
    /// (the delegated responder's certificate, usually). Shapes are
    /// checked, not the signature.
    pub fn assemble(tbs: &[u8], sig_der: &[u8], certs: &[Certificate]) -> Result<OcspResponse> {
        crate::encoding::sm2::signature_from_der(sig_der).map_err(|_| {
            Error::invalid("the signer returned something that is not a DER SM2 signature (SEQUENCE { r, s })")
        })?;
        let certs_der = if certs.is_empty() {
            Vec::new()
        } else {
            let refs: Vec<&[u8]> = certs.iter().map(|c| c.to_der()).collect();
            der::tlv(der::ctx(0), &der::seq(&refs))
        };
        let basic = der::seq(&[tbs, &signed::sm2_sm3_algorithm(), &der::bits(sig_der), &certs_der]);
        let bytes = der::seq(&[&der::oid(&oid::OCSP_BASIC), &der::octets(&basic)]);
        OcspResponse::from_der(&der::seq(&[&der::tlv(der::ENUMERATED, &[0]), &der::tlv(der::ctx(0), &bytes)]))
    }

    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    pub fn status(&self) -> ResponseStatus {
        self.status
    }

    fn basic(&self) -> Result<&Basic> {
        self.basic.as_ref().ok_or_else(|| no_data(self.status))
    }

    /// The signed data (an error for an unsuccessful response).
    pub fn data(&self) -> Result<&ResponseData> {
        Ok(&self.basic()?.data)
    }

    /// The DER of ResponseData: what the signature covers.
    pub fn tbs_der(&self) -> Result<&[u8]> {
        let b = self.basic()?;
        Ok(&b.der[b.tbs.clone()])
    }

    /// signatureAlgorithm's OID.
    pub fn signature_algorithm(&self) -> Result<&ObjectIdentifier> {
        Ok(&self.basic()?.alg)
    }

    /// The signature BIT STRING's contents (a DER SM2 signature).
    pub fn signature(&self) -> Result<&[u8]> {
        Ok(&self.basic()?.signature)
    }

    /// The certificates the response carries.
    pub fn certificates(&self) -> Result<&[Certificate]> {
        Ok(&self.basic()?.certs)
    }

    /// The response nonce, if any.
    pub fn nonce(&self) -> Option<Vec<u8>> {
        self.basic.as_ref().and_then(|b| nonce_of(&b.data.extensions))
    }

    /// Checks the signature with a given key (no authorization check: that
    /// is [`OcspResponse::verify`]).
    pub fn verify_signature(&self, key: &PublicKey, uid: Option<&[u8]>) -> Result<()> {
        let b = self.basic()?;
        signed::verify(key, &b.alg, &b.der[b.tbs.clone()], &b.signature, uid).map(|_| ())
    }

    /// Checks that the response was signed by `issuer` (the CA whose
    /// certificates it answers for) or by a responder `issuer` delegated to
    /// (a certificate among the response's own or `responders`, issued by
    /// `issuer`, valid at `at`, with id-kp-OCSPSigning), and that every
    /// answer names `issuer`. Returns the delegated responder's certificate,
    /// or `None` when the CA signed itself.
    pub fn verify(
        &self,
        issuer: &Certificate,
        responders: &[Certificate],
        at: i64,
        uid: Option<&[u8]>,
    ) -> Result<Option<Certificate>> {
        let b = self.basic()?;
        let rid = &b.data.responder_id;
        for s in &b.data.responses {
            if !s.cert_id.names_issuer(issuer) {
                return Err(Error::InvalidCertificate(format!(
                    "OCSP response: an answer (serial {}) is not about a certificate of '{}' (its CertID names another issuer{})",
                    hex(&s.cert_id.serial),
                    issuer.subject(),
                    if s.cert_id.hash().is_err() { ", or uses an unsupported hash" } else { "" }
                )));
            }
        }
        let signer_fail = |who: &str| {
            Error::InvalidSignatureHint(format!(
                "OCSP response signature does not verify with the key of {who} (the response was altered, or signed with another key or SM2 user ID)"
            ))
        };
        if rid.names(issuer) {
            return match self.verify_signature(issuer.public_key()?, uid) {
                Ok(()) => Ok(None),
                Err(_) => Err(signer_fail(&format!("the issuer '{}'", issuer.subject()))),
            };
        }
        let cand = b
            .certs
            .iter()
            .chain(responders.iter())
            .find(|c| rid.names(c))
            .ok_or_else(|| {
                Error::InvalidCertificate(format!(
                    "OCSP response signed by {}, which is neither the issuer '{}' nor a responder certificate in the response or given",
                    rid.describe(),
                    issuer.subject()
                ))
            })?;
        let who = format!("responder '{}'", cand.subject());
        cand.verify_directly_issued_by(issuer, uid).map_err(|_| {
            Error::InvalidCertificate(format!(
                "OCSP {who} was not issued by '{}', the CA the response answers for (RFC 6960 4.2.2.2)",
                issuer.subject()
            ))
        })?;
        let purposes = match cand.extension(&oid::EXTENDED_KEY_USAGE) {
            Some(e) => ext::extended_key_usage(&e.value)?,
            None => Vec::new(),
        };
        if !purposes.contains(&oid::KP_OCSP_SIGNING) {
            return Err(Error::InvalidCertificate(format!(
                "OCSP {who} is not authorized to sign responses: its extKeyUsage lacks id-kp-OCSPSigning ({})",
                oid::KP_OCSP_SIGNING
            )));
        }
        if at < cand.not_before() || at > cand.not_after() {
            return Err(Error::InvalidCertificate(format!(
                "OCSP {who} certificate is outside its validity ({} to {}, checked at {})",
                der::format_time(cand.not_before()),
                der::format_time(cand.not_after()),
                der::format_time(at)
            )));
        }
        self.verify_signature(cand.public_key()?, uid).map_err(|_| signer_fail(&who))?;
        Ok(Some(cand.clone()))
    }
}

impl Basic {
    fn parse(data: &[u8]) -> Result<Basic> {
        const W: &str = "BasicOCSPResponse";
        let outer = der::single(data, der::SEQUENCE, W)?;
        let mut r = Reader::new(outer.value, W);
        let tbs = r.expect(der::SEQUENCE, "tbsResponseData")?;
        let (alg, _, _) = signed::algorithm(&mut r, "signatureAlgorithm")?;
        let sig = r.expect(der::BIT_STRING, "signature")?;
        let signature = der::bit_string_bytes(&sig, W)?.to_vec();
        let mut certs = Vec::new();
        if let Some(c) = r.optional(der::ctx(0))? {
            let mut cr = r.inner(c.value)?;
            let mut list = cr.nested(der::SEQUENCE, "certs")?;
            cr.finish("certs")?;
            while !list.is_empty() {
                if certs.len() >= MAX_CERTS {
                    return Err(list.err(format!("more than {MAX_CERTS} certificates")));
                }
                certs.push(Certificate::from_der(list.expect(der::SEQUENCE, "certificate")?.raw)?);
            }
        }
        r.finish("BasicOCSPResponse")?;
        let start = tbs.raw.as_ptr() as usize - data.as_ptr() as usize;
        let range = start..start + tbs.raw.len();
        let data_parsed = ResponseData::parse(tbs.raw, W)?;
        Ok(Basic { der: data.to_vec(), tbs: range, data: data_parsed, alg, signature, certs })
    }
}

/// Signs `data` with `key` under `uid` and assembles the response (the
/// one-step path for keys held in this process).
pub fn sign_response(
    data: &ResponseData,
    key: &crate::sm2::PrivateKey,
    uid: &[u8],
    certs: &[Certificate],
) -> Result<OcspResponse> {
    let tbs = data.to_der()?;
    OcspResponse::assemble(&tbs, &crate::x509::builder::sign_tbs(&tbs, key, uid)?, certs)
}
