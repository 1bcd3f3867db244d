//! ResponseData (RFC 6960 4.2.1): what a responder signs.

use super::{encode_extensions, parse_extensions, public_key_bits, CertId, HashAlgorithm, MAX_ITEMS};
use crate::encoding::der::{self, Reader};
use crate::x509::name::{hex, Name};
use crate::x509::{Certificate, Extension};
use crate::{Error, Result};

/// OCSPResponseStatus (RFC 6960 4.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResponseStatus {
    Successful = 0,
    MalformedRequest = 1,
    InternalError = 2,
    TryLater = 3,
    SigRequired = 5,
    Unauthorized = 6,
}

impl ResponseStatus {
    pub fn from_code(n: u64) -> Result<ResponseStatus> {
        Ok(match n {
            0 => ResponseStatus::Successful,
            1 => ResponseStatus::MalformedRequest,
            2 => ResponseStatus::InternalError,
            3 => ResponseStatus::TryLater,
            5 => ResponseStatus::SigRequired,
            6 => ResponseStatus::Unauthorized,
            _ => {
                return Err(Error::invalid(format!(
                    "invalid OCSP response: unknown responseStatus {n} (RFC 6960 defines 0-3, 5 and 6)"
                )))
            }
        })
    }

    /// RFC 6960's name (`"successful"`, `"tryLater"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            ResponseStatus::Successful => "successful",
            ResponseStatus::MalformedRequest => "malformedRequest",
            ResponseStatus::InternalError => "internalError",
            ResponseStatus::TryLater => "tryLater",
            ResponseStatus::SigRequired => "sigRequired",
            ResponseStatus::Unauthorized => "unauthorized",
        }
    }
}

/// CertStatus (RFC 6960 4.2.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CertStatus {
    Good,
    /// Revoked at `time` (Unix seconds), with the CRLReason code if given.
    Revoked {
        time: i64,
        reason: Option<u8>,
    },
    Unknown,
}

impl CertStatus {
    /// From its RFC 6960 name (`"good"`, `"revoked"`, `"unknown"`) and, for
    /// revoked, the time and optional reason, as bindings pass it.
    pub fn from_name(name: &str, time: Option<i64>, reason: Option<u8>) -> Result<CertStatus> {
        match (name, time) {
            ("good", _) => Ok(CertStatus::Good),
            ("unknown", _) => Ok(CertStatus::Unknown),
            ("revoked", Some(time)) => Ok(CertStatus::Revoked { time, reason }),
            ("revoked", None) => Err(Error::invalid("a revoked status needs a revocation time")),
            (other, _) => Err(Error::invalid(format!(
                "unknown certificate status '{other}' (expected 'good', 'revoked' or 'unknown')"
            ))),
        }
    }

    /// The name, revocation time and reason: [`CertStatus::from_name`]'s inverse.
    pub fn to_parts(self) -> (&'static str, Option<i64>, Option<u8>) {
        match self {
            CertStatus::Good => ("good", None, None),
            CertStatus::Revoked { time, reason } => ("revoked", Some(time), reason),
            CertStatus::Unknown => ("unknown", None, None),
        }
    }
}

/// ResponderID: the responder's name, or the SHA-1 of its public key bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResponderId {
    ByName(Name),
    ByKey(Vec<u8>),
}

impl ResponderId {
    /// From a kind name, `"name"` (`value` is the Name's DER) or `"key"`
    /// (`value` is the key hash), as bindings pass it.
    pub fn from_kind(kind: &str, value: Vec<u8>) -> Result<ResponderId> {
        match kind {
            "name" => Ok(ResponderId::ByName(Name::from_der(&value)?)),
            "key" => Ok(ResponderId::ByKey(value)),
            other => Err(Error::invalid(format!("unknown responder ID kind '{other}' (expected 'name' or 'key')"))),
        }
    }

    /// `("name", Name DER)` or `("key", key hash)`: [`ResponderId::from_kind`]'s inverse.
    pub fn to_kind(&self) -> (&'static str, Vec<u8>) {
        match self {
            ResponderId::ByName(n) => ("name", n.to_der().to_vec()),
            ResponderId::ByKey(h) => ("key", h.clone()),
        }
    }

    /// Whether `c` is the responder this ID names (by name, or by the
    /// SHA-1 of its key; an SM3 key hash, which some ShangMi responders
    /// write, is recognised too).
    pub fn names(&self, c: &Certificate) -> bool {
        match self {
            ResponderId::ByName(n) => n.matches(c.subject()),
            ResponderId::ByKey(h) => public_key_bits(c)
                .map(|b| HashAlgorithm::Sha1.digest(&b) == *h || HashAlgorithm::Sm3.digest(&b) == *h)
                .unwrap_or(false),
        }
    }

    pub(crate) fn describe(&self) -> String {
        match self {
            ResponderId::ByName(n) => format!("'{n}'"),
            ResponderId::ByKey(h) => format!("the key with hash {}", hex(h)),
        }
    }
}

/// One answer of a response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingleResponse {
    pub cert_id: CertId,
    pub status: CertStatus,
    /// Unix seconds.
    pub this_update: i64,
    pub next_update: Option<i64>,
    pub extensions: Vec<Extension>,
}

/// The to-be-signed part of a BasicOCSPResponse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResponseData {
    pub responder_id: ResponderId,
    /// Unix seconds.
    pub produced_at: i64,
    pub responses: Vec<SingleResponse>,
    pub extensions: Vec<Extension>,
}

fn generalized_time(r: &mut Reader<'_>, field: &str) -> Result<i64> {
    let t = r.expect(der::GENERALIZED_TIME, field)?;
    der::parse_time(&t, field)
}

impl SingleResponse {
    fn parse(r: &mut Reader<'_>, what: &'static str) -> Result<SingleResponse> {
        let mut s = r.nested(der::SEQUENCE, "SingleResponse")?;
        let cert_id = CertId::parse(&mut s, what)?;
        let st = s.any()?;
        let status = match st.tag {
            t if t == der::ctx_prim(0) && st.value.is_empty() => CertStatus::Good,
            t if t == der::ctx_prim(2) && st.value.is_empty() => CertStatus::Unknown,
            t if t == der::ctx(1) => {
                let mut ri = s.inner(st.value)?;
                let time = generalized_time(&mut ri, "revocationTime")?;
                let reason = match ri.optional(der::ctx(0))? {
                    Some(rc) => {
                        let mut rr = ri.inner(rc.value)?;
                        let e = rr.expect(der::ENUMERATED, "revocationReason")?;
                        rr.finish("revocationReason")?;
                        match e.value {
                            [c] if *c <= 10 && *c != 7 => Some(*c),
                            _ => return Err(ri.err("revocationReason: not a CRLReason code (0-6, 8-10)")),
                        }
                    }
                    None => None,
                };
                ri.finish("RevokedInfo")?;
                CertStatus::Revoked { time, reason }
            }
            t => {
                return Err(
                    s.err(format!("certStatus: expected good [0], revoked [1] or unknown [2], got tag 0x{t:02X}"))
                )
            }
        };
        let this_update = generalized_time(&mut s, "thisUpdate")?;
        let next_update = match s.optional(der::ctx(0))? {
            Some(n) => {
                let mut nr = s.inner(n.value)?;
                let v = generalized_time(&mut nr, "nextUpdate")?;
                nr.finish("nextUpdate")?;
                Some(v)
            }
            None => None,
        };
        let extensions = match s.optional(der::ctx(1))? {
            Some(e) => parse_extensions(e, what)?,
            None => Vec::new(),
        };
        s.finish("SingleResponse")?;
        if let Some(n) = next_update {
            if n < this_update {
                return Err(Error::invalid(format!("invalid {what}: nextUpdate is before thisUpdate")));
            }
        }
        Ok(SingleResponse { cert_id, status, this_update, next_update, extensions })
    }

    fn to_der(&self) -> Result<Vec<u8>> {
        let status = match self.status {
            CertStatus::Good => der::tlv(der::ctx_prim(0), &[]),
            CertStatus::Unknown => der::tlv(der::ctx_prim(2), &[]),
            CertStatus::Revoked { time, reason } => {
                let reason = match reason {
                    Some(c) if c > 10 || c == 7 => {
                        return Err(Error::invalid(format!(
                            "revocation reason {c} is not a CRLReason code (0-6, 8-10)"
                        )))
                    }
                    Some(c) => der::tlv(der::ctx(0), &der::tlv(der::ENUMERATED, &[c])),
                    None => Vec::new(),
                };
                der::cons(der::ctx(1), &[&der::encode_generalized_time(time)?, &reason])
            }
        };
        if let Some(n) = self.next_update {
            if n < self.this_update {
                return Err(Error::invalid("next_update is earlier than this_update"));
            }
        }
        let next = match self.next_update {
            Some(n) => der::tlv(der::ctx(0), &der::encode_generalized_time(n)?),
            None => Vec::new(),
        };
        Ok(der::seq(&[
            &self.cert_id.to_der()?,
            &status,
            &der::encode_generalized_time(self.this_update)?,
            &next,
            &encode_extensions(der::ctx(1), &self.extensions)?,
        ]))
    }
}

impl ResponseData {
    /// The DER ResponseData (v1): what the responder signs.
    pub fn to_der(&self) -> Result<Vec<u8>> {
        if self.responses.is_empty() {
            return Err(Error::invalid("an OCSP response needs at least one certificate status"));
        }
        let rid = match &self.responder_id {
            ResponderId::ByName(n) => der::tlv(der::ctx(1), n.to_der()),
            ResponderId::ByKey(h) => der::tlv(der::ctx(2), &der::octets(h)),
        };
        let mut items = Vec::with_capacity(self.responses.len());
        for s in &self.responses {
            items.push(s.to_der()?);
        }
        let refs: Vec<&[u8]> = items.iter().map(|v| v.as_slice()).collect();
        Ok(der::seq(&[
            &rid,
            &der::encode_generalized_time(self.produced_at)?,
            &der::seq(&refs),
            &encode_extensions(der::ctx(1), &self.extensions)?,
        ]))
    }

    pub(crate) fn parse(data: &[u8], what: &'static str) -> Result<ResponseData> {
        let outer = der::single(data, der::SEQUENCE, what)?;
        let mut t = Reader::new(outer.value, what);
        if let Some(v) = t.optional(der::ctx(0))? {
            let mut vr = t.inner(v.value)?;
            let n = vr.small_uint("version")?;
            vr.finish("version")?;
            return Err(t.err(if n == 0 {
                "version v1 must be omitted in DER (DEFAULT)".to_string()
            } else {
                format!("unknown ResponseData version {}", n + 1)
            }));
        }
        let rid = t.any()?;
        let responder_id = if rid.tag == der::ctx(1) {
            ResponderId::ByName(Name::from_der(der::single(rid.value, der::SEQUENCE, what)?.raw)?)
        } else if rid.tag == der::ctx(2) {
            let h = der::single(rid.value, der::OCTET_STRING, what)?;
            ResponderId::ByKey(h.value.to_vec())
        } else if rid.tag == der::ctx_prim(2) {
            // GmSSL 3.3 writes byKey IMPLICIT ([2] primitive around the
            // hash), which OpenSSL refuses; read it, never write it.
            ResponderId::ByKey(rid.value.to_vec())
        } else {
            return Err(t.err(format!("responderID: expected byName [1] or byKey [2], got tag 0x{:02X}", rid.tag)));
        };
        let produced_at = generalized_time(&mut t, "producedAt")?;
        let mut list = t.nested(der::SEQUENCE, "responses")?;
        let mut responses = Vec::new();
        while !list.is_empty() {
            if responses.len() >= MAX_ITEMS {
                return Err(list.err(format!("more than {MAX_ITEMS} responses")));
            }
            responses.push(SingleResponse::parse(&mut list, what)?);
        }
        if responses.is_empty() {
            return Err(list.err("responses is empty"));
        }
        let extensions = match t.optional(der::ctx(1))? {
            Some(e) => parse_extensions(e, what)?,
            None => Vec::new(),
        };
        t.finish("ResponseData")?;
        Ok(ResponseData { responder_id, produced_at, responses, extensions })
    }
}
