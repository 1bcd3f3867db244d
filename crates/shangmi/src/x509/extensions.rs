//! X.509 v3 extensions (RFC 5280 section 4.2): the raw triple every
//! extension has, and typed readers and writers for the ones path validation
//! and users need. Unknown extensions stay available as raw bytes.

use crate::encoding::oid::ObjectIdentifier;

use super::name::Name;
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::{Error, Result};

/// The extensions path validation understands; a critical extension outside
/// this list makes a certificate unusable (RFC 5280 section 4.2).
pub const UNDERSTOOD: &[ObjectIdentifier] = &[
    oid::SUBJECT_KEY_IDENTIFIER,
    oid::KEY_USAGE,
    oid::SUBJECT_ALT_NAME,
    oid::ISSUER_ALT_NAME,
    oid::BASIC_CONSTRAINTS,
    oid::CRL_DISTRIBUTION_POINTS,
    oid::AUTHORITY_KEY_IDENTIFIER,
    oid::EXTENDED_KEY_USAGE,
    oid::CRL_NUMBER,
    oid::CRL_REASON,
];

/// keyUsage bit numbers (RFC 5280: digitalSignature(0) .. decipherOnly(8)).
pub mod key_usage {
    pub const DIGITAL_SIGNATURE: u16 = 1 << 0;
    pub const CONTENT_COMMITMENT: u16 = 1 << 1;
    pub const KEY_ENCIPHERMENT: u16 = 1 << 2;
    pub const DATA_ENCIPHERMENT: u16 = 1 << 3;
    pub const KEY_AGREEMENT: u16 = 1 << 4;
    pub const KEY_CERT_SIGN: u16 = 1 << 5;
    pub const CRL_SIGN: u16 = 1 << 6;
    pub const ENCIPHER_ONLY: u16 = 1 << 7;
    pub const DECIPHER_ONLY: u16 = 1 << 8;
}

const MAX_ITEMS: usize = 1024;

/// One extension: type, criticality and the contents of `extnValue`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Extension {
    pub oid: ObjectIdentifier,
    pub critical: bool,
    pub value: Vec<u8>,
}

impl Extension {
    /// An extension from its parts; `value` is the contents of extnValue (not checked here:
    /// the typed encoders and [`super::ExtValue`] produce valid ones).
    pub fn new(oid: ObjectIdentifier, critical: bool, value: Vec<u8>) -> Self {
        Extension { oid, critical, value }
    }

    pub(crate) fn to_der(&self) -> Vec<u8> {
        let crit = if self.critical { der::boolean(true) } else { Vec::new() };
        der::seq(&[&der::oid(&self.oid), &crit, &der::octets(&self.value)])
    }
}

/// Parses `Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension`, refusing
/// duplicates (RFC 5280: "a certificate MUST NOT include more than one
/// instance of a particular extension").
pub(crate) fn parse_list(der: &[u8], what: &'static str) -> Result<Vec<Extension>> {
    let mut r = Reader::new(der, what);
    let mut out: Vec<Extension> = Vec::new();
    while !r.is_empty() {
        if out.len() >= MAX_ITEMS {
            return Err(r.err("too many extensions"));
        }
        let mut e = r.nested(der::SEQUENCE, "Extension")?;
        let oid = e.oid("extnID")?;
        let critical = if e.peek_tag() == Some(der::BOOLEAN) { e.boolean("critical")? } else { false };
        let value = e.expect(der::OCTET_STRING, "extnValue")?.value.to_vec();
        e.finish("Extension")?;
        if out.iter().any(|x| x.oid == oid) {
            return Err(r.err(format!("extension {oid} appears twice")));
        }
        out.push(Extension { oid, critical, value });
    }
    Ok(out)
}

pub(crate) fn encode_list(exts: &[Extension]) -> Result<Vec<u8>> {
    for (i, e) in exts.iter().enumerate() {
        if exts[..i].iter().any(|x| x.oid == e.oid) {
            return Err(Error::invalid(format!("extension {} added twice", e.oid)));
        }
    }
    let parts: Vec<Vec<u8>> = exts.iter().map(Extension::to_der).collect();
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    Ok(der::seq(&refs))
}

/// One GeneralName (RFC 5280 section 4.2.1.6).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GeneralName {
    Email(String),
    Dns(String),
    Uri(String),
    /// 4 or 16 bytes (or 8/32 with a mask, in name constraints).
    Ip(Vec<u8>),
    Directory(Name),
    RegisteredId(ObjectIdentifier),
    /// Any other form, as its complete DER.
    Other(Vec<u8>),
}

fn ia5(v: &[u8], what: &str) -> Result<String> {
    if v.is_ascii() {
        Ok(String::from_utf8_lossy(v).into_owned())
    } else {
        Err(Error::invalid(format!("invalid {what}: IA5String is not ASCII")))
    }
}

fn read_general_names(r: &mut Reader<'_>) -> Result<Vec<GeneralName>> {
    let mut out = Vec::new();
    while !r.is_empty() {
        if out.len() >= MAX_ITEMS {
            return Err(r.err("too many names"));
        }
        let t = r.any()?;
        out.push(match t.tag {
            0x81 => GeneralName::Email(ia5(t.value, "rfc822Name")?),
            0x82 => GeneralName::Dns(ia5(t.value, "dNSName")?),
            0x86 => GeneralName::Uri(ia5(t.value, "uniformResourceIdentifier")?),
            0x87 => {
                if ![4, 8, 16, 32].contains(&t.value.len()) {
                    return Err(r.err("iPAddress must be 4 or 16 bytes"));
                }
                GeneralName::Ip(t.value.to_vec())
            }
            0xA4 => {
                let mut inner = Reader::new(t.value, "directoryName");
                let n = inner.expect(der::SEQUENCE, "Name")?;
                inner.finish("directoryName")?;
                GeneralName::Directory(Name::from_der(n.raw)?)
            }
            0x88 => GeneralName::RegisteredId(
                ObjectIdentifier::from_bytes(t.value).map_err(|e| r.err(format!("registeredID: {e}")))?,
            ),
            _ => GeneralName::Other(t.raw.to_vec()),
        });
    }
    Ok(out)
}

fn write_general_name(g: &GeneralName) -> Result<Vec<u8>> {
    Ok(match g {
        GeneralName::Email(s) | GeneralName::Dns(s) | GeneralName::Uri(s) => {
            if !s.is_ascii() {
                return Err(Error::invalid(format!(
                    "{s:?}: DNS names, e-mail addresses and URIs must be ASCII (IDNA-encode them)"
                )));
            }
            let tag = match g {
                GeneralName::Email(_) => 0x81,
                GeneralName::Dns(_) => 0x82,
                _ => 0x86,
            };
            der::tlv(tag, s.as_bytes())
        }
        GeneralName::Ip(b) => {
            if ![4, 8, 16, 32].contains(&b.len()) {
                return Err(Error::invalid(format!("an IP address is 4 or 16 bytes, got {}", b.len())));
            }
            der::tlv(0x87, b)
        }
        GeneralName::Directory(n) => der::tlv(0xA4, n.to_der()),
        GeneralName::RegisteredId(o) => der::tlv(0x88, o.as_bytes()),
        GeneralName::Other(raw) => {
            let t = der::single(raw, *raw.first().unwrap_or(&0), "GeneralName")?;
            t.raw.to_vec()
        }
    })
}

fn write_general_names(names: &[GeneralName]) -> Result<Vec<u8>> {
    let parts = names.iter().map(write_general_name).collect::<Result<Vec<_>>>()?;
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    Ok(der::seq(&refs))
}

/// basicConstraints: (cA, pathLenConstraint).
pub fn basic_constraints(value: &[u8]) -> Result<(bool, Option<u64>)> {
    let outer = der::single(value, der::SEQUENCE, "basicConstraints")?;
    let mut r = Reader::new(outer.value, "basicConstraints");
    let ca = if r.peek_tag() == Some(der::BOOLEAN) { r.boolean("cA")? } else { false };
    let path = if r.is_empty() { None } else { Some(r.small_uint("pathLenConstraint")?) };
    r.finish("basicConstraints")?;
    Ok((ca, path))
}

/// basicConstraints DER; a path length without `ca` is an [`Error::InvalidInput`].
pub fn encode_basic_constraints(ca: bool, path_length: Option<u64>) -> Result<Vec<u8>> {
    if path_length.is_some() && !ca {
        return Err(Error::invalid("basicConstraints: a path length needs cA true"));
    }
    let ca_der = if ca { der::boolean(true) } else { Vec::new() };
    let pl = path_length.map(der::small_int).unwrap_or_default();
    Ok(der::seq(&[&ca_der, &pl]))
}

/// keyUsage as a bit mask ([`key_usage`] constants).
pub fn key_usage(value: &[u8]) -> Result<u16> {
    let t = der::single(value, der::BIT_STRING, "keyUsage")?;
    let (&unused, bytes) = t.value.split_first().ok_or_else(|| Error::invalid("invalid keyUsage: empty BIT STRING"))?;
    if unused > 7 || bytes.len() > 2 || (bytes.is_empty() && unused != 0) {
        return Err(Error::invalid("invalid keyUsage: malformed BIT STRING"));
    }
    let mut mask = 0u16;
    for (i, &b) in bytes.iter().enumerate() {
        for bit in 0..8 {
            if b & (0x80 >> bit) != 0 {
                mask |= 1 << (i * 8 + bit);
            }
        }
    }
    Ok(mask)
}

/// keyUsage DER (a minimal BIT STRING) of a [`key_usage`] mask; an empty mask
/// or bits above decipherOnly are an [`Error::InvalidInput`].
pub fn encode_key_usage(mask: u16) -> Result<Vec<u8>> {
    if mask == 0 || mask >> 9 != 0 {
        return Err(Error::invalid("keyUsage: at least one usage is needed (bits 0 to 8)"));
    }
    let highest = 15 - mask.leading_zeros() as usize;
    let nbytes = highest / 8 + 1;
    let mut bytes = vec![0u8; nbytes];
    for bit in 0..=highest {
        if mask & (1 << bit) != 0 {
            bytes[bit / 8] |= 0x80 >> (bit % 8);
        }
    }
    let unused = (nbytes * 8 - 1 - highest) as u8;
    let mut v = vec![unused];
    v.extend_from_slice(&bytes);
    Ok(der::tlv(der::BIT_STRING, &v))
}

/// extKeyUsage: the purpose OIDs, in order (a bounded number of them).
pub fn extended_key_usage(value: &[u8]) -> Result<Vec<ObjectIdentifier>> {
    let outer = der::single(value, der::SEQUENCE, "extendedKeyUsage")?;
    let mut r = Reader::new(outer.value, "extendedKeyUsage");
    let mut out = Vec::new();
    while !r.is_empty() {
        if out.len() >= MAX_ITEMS {
            return Err(r.err("too many purposes"));
        }
        out.push(r.oid("KeyPurposeId")?);
    }
    Ok(out)
}

/// extKeyUsage DER of `oids`.
pub fn encode_extended_key_usage(oids: &[ObjectIdentifier]) -> Vec<u8> {
    let parts: Vec<Vec<u8>> = oids.iter().map(der::oid).collect();
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    der::seq(&refs)
}

/// subjectKeyIdentifier: the key identifier octets.
pub fn subject_key_identifier(value: &[u8]) -> Result<Vec<u8>> {
    Ok(der::single(value, der::OCTET_STRING, "subjectKeyIdentifier")?.value.to_vec())
}

/// subjectKeyIdentifier DER of `id`.
pub fn encode_subject_key_identifier(id: &[u8]) -> Vec<u8> {
    der::octets(id)
}

/// authorityKeyIdentifier: (keyIdentifier, authorityCertIssuer, authorityCertSerialNumber).
pub type AuthorityKeyId = (Option<Vec<u8>>, Option<Vec<GeneralName>>, Option<Vec<u8>>);

/// authorityKeyIdentifier: its three optional fields.
pub fn authority_key_identifier(value: &[u8]) -> Result<AuthorityKeyId> {
    let outer = der::single(value, der::SEQUENCE, "authorityKeyIdentifier")?;
    let mut r = Reader::new(outer.value, "authorityKeyIdentifier");
    let kid = r.optional(der::ctx_prim(0))?.map(|t| t.value.to_vec());
    let issuer = match r.optional(der::ctx(1))? {
        Some(t) => Some(read_general_names(&mut Reader::new(t.value, "authorityCertIssuer"))?),
        None => None,
    };
    let serial = r.optional(der::ctx_prim(2))?.map(|t| t.value.to_vec());
    r.finish("authorityKeyIdentifier")?;
    Ok((kid, issuer, serial))
}

/// authorityKeyIdentifier DER of the fields given; an issuer name that
/// cannot be encoded is an [`Error::InvalidInput`].
pub fn encode_authority_key_identifier(
    key_id: Option<&[u8]>,
    issuer: Option<&[GeneralName]>,
    serial: Option<&[u8]>,
) -> Result<Vec<u8>> {
    let kid = key_id.map(|k| der::tlv(der::ctx_prim(0), k)).unwrap_or_default();
    let iss = match issuer {
        Some(names) => {
            let inner = write_general_names(names)?;
            der::tlv(der::ctx(1), &inner[header_len(&inner)..])
        }
        None => Vec::new(),
    };
    let ser = match serial {
        Some(s) => {
            let int = der::uint(s);
            der::tlv(der::ctx_prim(2), &int[header_len(&int)..])
        }
        None => Vec::new(),
    };
    Ok(der::seq(&[&kid, &iss, &ser]))
}

fn header_len(der: &[u8]) -> usize {
    match der.get(1) {
        Some(&b) if b < 0x80 => 2,
        Some(&b) => 2 + (b & 0x7F) as usize,
        None => der.len(),
    }
}

/// subjectAltName / issuerAltName.
pub fn general_names(value: &[u8], what: &'static str) -> Result<Vec<GeneralName>> {
    let outer = der::single(value, der::SEQUENCE, what)?;
    read_general_names(&mut Reader::new(outer.value, what))
}

/// subjectAltName / issuerAltName DER; an empty list or an unencodable name
/// is an [`Error::InvalidInput`].
pub fn encode_general_names(names: &[GeneralName]) -> Result<Vec<u8>> {
    if names.is_empty() {
        return Err(Error::invalid("an alternative-name extension needs at least one name"));
    }
    write_general_names(names)
}

/// cRLDistributionPoints: the fullName list of each distribution point
/// (points naming only a relative name or a CRL issuer give an empty list).
pub fn crl_distribution_points(value: &[u8]) -> Result<Vec<Vec<GeneralName>>> {
    let outer = der::single(value, der::SEQUENCE, "cRLDistributionPoints")?;
    let mut r = Reader::new(outer.value, "cRLDistributionPoints");
    let mut out = Vec::new();
    while !r.is_empty() {
        if out.len() >= MAX_ITEMS {
            return Err(r.err("too many distribution points"));
        }
        let mut dp = r.nested(der::SEQUENCE, "DistributionPoint")?;
        let mut names = Vec::new();
        if let Some(t) = dp.optional(der::ctx(0))? {
            let mut dpn = Reader::new(t.value, "distributionPoint");
            if let Some(full) = dpn.optional(der::ctx(0))? {
                names = read_general_names(&mut Reader::new(full.value, "fullName"))?;
            } else {
                dpn.any()?;
            }
            dpn.finish("distributionPoint")?;
        }
        // reasons [1] and cRLIssuer [2] are accepted and not interpreted.
        dp.optional(der::ctx_prim(1))?;
        dp.optional(der::ctx(2))?;
        dp.finish("DistributionPoint")?;
        out.push(names);
    }
    Ok(out)
}

/// cRLDistributionPoints DER, one fullName point per list of names; a name
/// that cannot be encoded is an [`Error::InvalidInput`].
pub fn encode_crl_distribution_points(points: &[Vec<GeneralName>]) -> Result<Vec<u8>> {
    let mut parts = Vec::with_capacity(points.len());
    for names in points {
        let gn = write_general_names(names)?;
        let full = der::tlv(der::ctx(0), &gn[header_len(&gn)..]);
        let dpn = der::tlv(der::ctx(0), &full);
        parts.push(der::seq(&[&dpn]));
    }
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    Ok(der::seq(&refs))
}

/// CRL entry reasonCode (an ENUMERATED).
pub fn crl_reason(value: &[u8]) -> Result<u8> {
    let t = der::single(value, der::ENUMERATED, "reasonCode")?;
    match t.value {
        [v] if *v <= 10 && *v != 7 => Ok(*v),
        _ => Err(Error::invalid("invalid reasonCode")),
    }
}

/// reasonCode DER (ENUMERATED); a code RFC 5280 does not define is an
/// [`Error::InvalidInput`].
pub fn encode_crl_reason(code: u8) -> Result<Vec<u8>> {
    if code > 10 || code == 7 {
        return Err(Error::invalid(format!("invalid CRL reason code {code}")));
    }
    Ok(der::tlv(der::ENUMERATED, &[code]))
}

/// cRLNumber (an INTEGER, up to 20 octets).
pub fn crl_number(value: &[u8]) -> Result<Vec<u8>> {
    let mut r = Reader::new(value, "cRLNumber");
    let v = r.integer("cRLNumber")?;
    r.finish("cRLNumber")?;
    if v[0] & 0x80 != 0 {
        return Err(Error::invalid("invalid cRLNumber: negative"));
    }
    Ok(v.to_vec())
}

/// cRLNumber DER from an unsigned big-endian magnitude; over 20 octets is
/// an [`Error::InvalidInput`].
pub fn encode_crl_number(magnitude: &[u8]) -> Result<Vec<u8>> {
    if magnitude.len() > 20 {
        return Err(Error::invalid("cRLNumber: at most 20 octets"));
    }
    Ok(der::uint(magnitude))
}
