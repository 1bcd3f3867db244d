//! X.509 v3 extensions (RFC 5280 section 4.2): the raw triple every
//! extension has, and typed readers and writers for the ones path validation
//! and users need. Unknown extensions stay available as raw bytes.

use der::asn1::ObjectIdentifier;

use super::asn1::{self, Reader};
use super::name::Name;
use crate::{Error, Result};

pub mod oids {
    use der::asn1::ObjectIdentifier as O;
    pub const SUBJECT_KEY_IDENTIFIER: O = O::new_unwrap("2.5.29.14");
    pub const KEY_USAGE: O = O::new_unwrap("2.5.29.15");
    pub const SUBJECT_ALT_NAME: O = O::new_unwrap("2.5.29.17");
    pub const ISSUER_ALT_NAME: O = O::new_unwrap("2.5.29.18");
    pub const BASIC_CONSTRAINTS: O = O::new_unwrap("2.5.29.19");
    pub const CRL_NUMBER: O = O::new_unwrap("2.5.29.20");
    pub const CRL_REASON: O = O::new_unwrap("2.5.29.21");
    pub const CRL_DISTRIBUTION_POINTS: O = O::new_unwrap("2.5.29.31");
    pub const AUTHORITY_KEY_IDENTIFIER: O = O::new_unwrap("2.5.29.35");
    pub const EXTENDED_KEY_USAGE: O = O::new_unwrap("2.5.29.37");
    /// PKCS#9 extensionRequest, the CSR attribute carrying extensions.
    pub const EXTENSION_REQUEST: O = O::new_unwrap("1.2.840.113549.1.9.14");
}

/// The extensions path validation understands; a critical extension outside
/// this list makes a certificate unusable (RFC 5280 section 4.2).
pub const UNDERSTOOD: &[ObjectIdentifier] = &[
    oids::SUBJECT_KEY_IDENTIFIER,
    oids::KEY_USAGE,
    oids::SUBJECT_ALT_NAME,
    oids::ISSUER_ALT_NAME,
    oids::BASIC_CONSTRAINTS,
    oids::CRL_DISTRIBUTION_POINTS,
    oids::AUTHORITY_KEY_IDENTIFIER,
    oids::EXTENDED_KEY_USAGE,
    oids::CRL_NUMBER,
    oids::CRL_REASON,
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
        let crit = if self.critical { asn1::boolean(true) } else { Vec::new() };
        asn1::seq(&[&asn1::oid(&self.oid), &crit, &asn1::octets(&self.value)])
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
        let mut e = r.nested(asn1::SEQUENCE, "Extension")?;
        let oid = e.oid("extnID")?;
        let critical = if e.peek_tag() == Some(asn1::BOOLEAN) { e.boolean("critical")? } else { false };
        let value = e.expect(asn1::OCTET_STRING, "extnValue")?.value.to_vec();
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
    Ok(asn1::seq(&refs))
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
                let n = inner.expect(asn1::SEQUENCE, "Name")?;
                inner.finish("directoryName")?;
                GeneralName::Directory(Name::from_der(n.raw)?)
            }
            0x88 => GeneralName::RegisteredId(
                asn1::parse_oid(t.value).map_err(|_| r.err("registeredID: malformed OBJECT IDENTIFIER"))?,
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
            asn1::tlv(tag, s.as_bytes())
        }
        GeneralName::Ip(b) => {
            if ![4, 8, 16, 32].contains(&b.len()) {
                return Err(Error::invalid(format!("an IP address is 4 or 16 bytes, got {}", b.len())));
            }
            asn1::tlv(0x87, b)
        }
        GeneralName::Directory(n) => asn1::tlv(0xA4, n.to_der()),
        GeneralName::RegisteredId(o) => asn1::tlv(0x88, o.as_bytes()),
        GeneralName::Other(raw) => {
            let t = asn1::single(raw, *raw.first().unwrap_or(&0), "GeneralName")?;
            t.raw.to_vec()
        }
    })
}

fn write_general_names(names: &[GeneralName]) -> Result<Vec<u8>> {
    let parts = names.iter().map(write_general_name).collect::<Result<Vec<_>>>()?;
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    Ok(asn1::seq(&refs))
}

/// basicConstraints: (cA, pathLenConstraint).
pub fn basic_constraints(value: &[u8]) -> Result<(bool, Option<u64>)> {
    let outer = asn1::single(value, asn1::SEQUENCE, "basicConstraints")?;
    let mut r = Reader::new(outer.value, "basicConstraints");
    let ca = if r.peek_tag() == Some(asn1::BOOLEAN) { r.boolean("cA")? } else { false };
    let path = if r.is_empty() { None } else { Some(r.small_uint("pathLenConstraint")?) };
    r.finish("basicConstraints")?;
    Ok((ca, path))
}

/// basicConstraints DER; a path length without `ca` is an [`Error::InvalidInput`].
pub fn encode_basic_constraints(ca: bool, path_length: Option<u64>) -> Result<Vec<u8>> {
    if path_length.is_some() && !ca {
        return Err(Error::invalid("basicConstraints: a path length needs cA true"));
    }
    let ca_der = if ca { asn1::boolean(true) } else { Vec::new() };
    let pl = path_length.map(asn1::small_int).unwrap_or_default();
    Ok(asn1::seq(&[&ca_der, &pl]))
}

/// keyUsage as a bit mask ([`key_usage`] constants).
pub fn key_usage(value: &[u8]) -> Result<u16> {
    let t = asn1::single(value, asn1::BIT_STRING, "keyUsage")?;
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
    Ok(asn1::tlv(asn1::BIT_STRING, &v))
}

/// extKeyUsage: the purpose OIDs, in order (a bounded number of them).
pub fn extended_key_usage(value: &[u8]) -> Result<Vec<ObjectIdentifier>> {
    let outer = asn1::single(value, asn1::SEQUENCE, "extendedKeyUsage")?;
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
    let parts: Vec<Vec<u8>> = oids.iter().map(asn1::oid).collect();
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    asn1::seq(&refs)
}

/// subjectKeyIdentifier: the key identifier octets.
pub fn subject_key_identifier(value: &[u8]) -> Result<Vec<u8>> {
    Ok(asn1::single(value, asn1::OCTET_STRING, "subjectKeyIdentifier")?.value.to_vec())
}

/// subjectKeyIdentifier DER of `id`.
pub fn encode_subject_key_identifier(id: &[u8]) -> Vec<u8> {
    asn1::octets(id)
}

/// authorityKeyIdentifier: (keyIdentifier, authorityCertIssuer, authorityCertSerialNumber).
pub type AuthorityKeyId = (Option<Vec<u8>>, Option<Vec<GeneralName>>, Option<Vec<u8>>);

/// authorityKeyIdentifier: its three optional fields.
pub fn authority_key_identifier(value: &[u8]) -> Result<AuthorityKeyId> {
    let outer = asn1::single(value, asn1::SEQUENCE, "authorityKeyIdentifier")?;
    let mut r = Reader::new(outer.value, "authorityKeyIdentifier");
    let kid = r.optional(asn1::ctx_prim(0))?.map(|t| t.value.to_vec());
    let issuer = match r.optional(asn1::ctx(1))? {
        Some(t) => Some(read_general_names(&mut Reader::new(t.value, "authorityCertIssuer"))?),
        None => None,
    };
    let serial = r.optional(asn1::ctx_prim(2))?.map(|t| t.value.to_vec());
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
    let kid = key_id.map(|k| asn1::tlv(asn1::ctx_prim(0), k)).unwrap_or_default();
    let iss = match issuer {
        Some(names) => {
            let inner = write_general_names(names)?;
            asn1::tlv(asn1::ctx(1), &inner[header_len(&inner)..])
        }
        None => Vec::new(),
    };
    let ser = match serial {
        Some(s) => {
            let int = asn1::uint(s);
            asn1::tlv(asn1::ctx_prim(2), &int[header_len(&int)..])
        }
        None => Vec::new(),
    };
    Ok(asn1::seq(&[&kid, &iss, &ser]))
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
    let outer = asn1::single(value, asn1::SEQUENCE, what)?;
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
    let outer = asn1::single(value, asn1::SEQUENCE, "cRLDistributionPoints")?;
    let mut r = Reader::new(outer.value, "cRLDistributionPoints");
    let mut out = Vec::new();
    while !r.is_empty() {
        if out.len() >= MAX_ITEMS {
            return Err(r.err("too many distribution points"));
        }
        let mut dp = r.nested(asn1::SEQUENCE, "DistributionPoint")?;
        let mut names = Vec::new();
        if let Some(t) = dp.optional(asn1::ctx(0))? {
            let mut dpn = Reader::new(t.value, "distributionPoint");
            if let Some(full) = dpn.optional(asn1::ctx(0))? {
                names = read_general_names(&mut Reader::new(full.value, "fullName"))?;
            } else {
                dpn.any()?;
            }
            dpn.finish("distributionPoint")?;
        }
        // reasons [1] and cRLIssuer [2] are accepted and not interpreted.
        dp.optional(asn1::ctx_prim(1))?;
        dp.optional(asn1::ctx(2))?;
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
        let full = asn1::tlv(asn1::ctx(0), &gn[header_len(&gn)..]);
        let dpn = asn1::tlv(asn1::ctx(0), &full);
        parts.push(asn1::seq(&[&dpn]));
    }
    let refs: Vec<&[u8]> = parts.iter().map(|v| v.as_slice()).collect();
    Ok(asn1::seq(&refs))
}

/// CRL entry reasonCode (an ENUMERATED).
pub fn crl_reason(value: &[u8]) -> Result<u8> {
    let t = asn1::single(value, asn1::ENUMERATED, "reasonCode")?;
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
    Ok(asn1::tlv(asn1::ENUMERATED, &[code]))
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
    Ok(asn1::uint(magnitude))
}
