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

use super::certificate::{serial_magnitude, Certificate, MAX_SERIAL_READ};
use super::extensions::{self as ext, Extension};
use super::name::{hex, Name};
use super::signed;
use crate::encoding::der::{self, Reader};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::sm2::PublicKey;
use crate::{sm3, Error, Result};

/// Bound on the CertIDs of a request and the answers of a response, so a
/// hostile message costs bounded work per byte.
const MAX_ITEMS: usize = 10_000;
/// Bound on the certificates a response carries.
const MAX_CERTS: usize = 64;

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
fn public_key_bits(c: &Certificate) -> Result<Vec<u8>> {
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
        super::builder::check_serial(serial)?;
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
    fn names_issuer(&self, issuer: &Certificate) -> bool {
        let Ok(h) = self.hash() else { return false };
        h.digest(issuer.subject().to_der()) == self.issuer_name_hash
            && public_key_bits(issuer).map(|b| h.digest(&b) == self.issuer_key_hash).unwrap_or(false)
    }

    /// The DER CertID (parameters NULL, as OpenSSL writes them).
    pub fn to_der(&self) -> Result<Vec<u8>> {
        super::builder::check_serial(&self.serial)?;
        Ok(der::seq(&[
            &der::seq(&[&der::oid(&self.hash_algorithm), &der::tlv(der::NULL, &[])]),
            &der::octets(&self.issuer_name_hash),
            &der::octets(&self.issuer_key_hash),
            &der::uint(&self.serial),
        ]))
    }

    fn parse(r: &mut Reader<'_>, what: &'static str) -> Result<CertId> {
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

fn parse_extensions(t: der::Tlv<'_>, what: &'static str) -> Result<Vec<Extension>> {
    let inner = der::single(t.value, der::SEQUENCE, what)?;
    ext::parse_list(inner.value, what)
}

fn encode_extensions(tag: u8, exts: &[Extension]) -> Result<Vec<u8>> {
    if exts.is_empty() {
        Ok(Vec::new())
    } else {
        Ok(der::tlv(tag, &ext::encode_list(exts)?))
    }
}

/// The nonce of an extension list. RFC 8954 puts an OCTET STRING inside
/// extnValue (OpenSSL, GmSSL); some old clients put the bare octets there,
/// which is read too.
fn nonce_of(exts: &[Extension]) -> Option<Vec<u8>> {
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

// ---------------------------------------------------------------- requests

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

// ---------------------------------------------------------------- responses

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

/// ResponderID: the responder's name, or the SHA-1 of its public key bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResponderId {
    ByName(Name),
    ByKey(Vec<u8>),
}

impl ResponderId {
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

    fn describe(&self) -> String {
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

    fn parse(data: &[u8], what: &'static str) -> Result<ResponseData> {
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
    OcspResponse::assemble(&tbs, &super::builder::sign_tbs(&tbs, key, uid)?, certs)
}
