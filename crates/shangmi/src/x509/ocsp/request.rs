//! OCSPRequest (RFC 6960 4.1): built unsigned, parsed whether signed or not.

use super::{encode_extensions, nonce_of, parse_extensions, CertId, MAX_ITEMS};
use crate::encoding::der::{self, Reader};
use crate::x509::Extension;
use crate::{Error, Result};

/// A parsed OCSP request. Immutable; keeps its exact DER.
#[derive(Clone, Debug)]
pub struct OcspRequest {
    der: Vec<u8>,
    cert_ids: Vec<CertId>,
    single_extensions: Vec<Vec<Extension>>,
    extensions: Vec<Extension>,
    signed: bool,
}

impl OcspRequest {
    /// Parses one DER OCSPRequest (no trailing bytes). A signed request's
    /// signature is kept but not checked (RFC 6960 makes it optional and
    /// nothing here needs it).
    pub fn from_der(data: &[u8]) -> Result<OcspRequest> {
        const W: &str = "OCSP request";
        let outer = der::single(data, der::SEQUENCE, W)?;
        let mut r = Reader::new(outer.value, W);
        let mut t = r.nested(der::SEQUENCE, "tbsRequest")?;
        if let Some(v) = t.optional(der::ctx(0))? {
            let mut vr = t.inner(v.value)?;
            let n = vr.small_uint("version")?;
            vr.finish("version")?;
            return Err(t.err(if n == 0 {
                "version v1 must be omitted in DER (DEFAULT)".to_string()
            } else {
                format!("unknown version {}", n + 1)
            }));
        }
        t.optional(der::ctx(1))?; // requestorName: informational
        let mut list = t.nested(der::SEQUENCE, "requestList")?;
        let mut cert_ids = Vec::new();
        let mut single_extensions = Vec::new();
        while !list.is_empty() {
            if cert_ids.len() >= MAX_ITEMS {
                return Err(list.err(format!("more than {MAX_ITEMS} requests")));
            }
            let mut one = list.nested(der::SEQUENCE, "Request")?;
            cert_ids.push(CertId::parse(&mut one, W)?);
            let exts = match one.optional(der::ctx(0))? {
                Some(e) => parse_extensions(e, W)?,
                None => Vec::new(),
            };
            one.finish("Request")?;
            single_extensions.push(exts);
        }
        if cert_ids.is_empty() {
            return Err(list.err("requestList is empty: the request asks about no certificate"));
        }
        let extensions = match t.optional(der::ctx(2))? {
            Some(e) => parse_extensions(e, W)?,
            None => Vec::new(),
        };
        t.finish("tbsRequest")?;
        let signed = r.optional(der::ctx(0))?.is_some();
        r.finish("OCSPRequest")?;
        Ok(OcspRequest { der: data.to_vec(), cert_ids, single_extensions, extensions, signed })
    }

    /// An unsigned request for `ids` with `extensions` (the nonce among them).
    pub fn build(ids: &[CertId], extensions: &[Extension]) -> Result<OcspRequest> {
        if ids.is_empty() {
            return Err(Error::invalid("an OCSP request needs at least one certificate"));
        }
        let mut items = Vec::with_capacity(ids.len());
        for id in ids {
            items.push(der::seq(&[&id.to_der()?]));
        }
        let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
        let tbs = der::seq(&[&der::seq(&refs), &encode_extensions(der::ctx(2), extensions)?]);
        OcspRequest::from_der(&der::seq(&[&tbs]))
    }

    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// The certificates asked about, in order.
    pub fn cert_ids(&self) -> &[CertId] {
        &self.cert_ids
    }

    /// The singleRequestExtensions of each request, in order.
    pub fn single_extensions(&self) -> &[Vec<Extension>] {
        &self.single_extensions
    }

    /// requestExtensions.
    pub fn extensions(&self) -> &[Extension] {
        &self.extensions
    }

    /// The nonce, if the request carries one.
    pub fn nonce(&self) -> Option<Vec<u8>> {
        nonce_of(&self.extensions)
    }

    /// Whether the request carries an optionalSignature.
    pub fn is_signed(&self) -> bool {
        self.signed
    }
}
