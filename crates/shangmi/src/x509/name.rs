//! X.501 Names: `SEQUENCE OF SET OF AttributeTypeAndValue`.
//!
//! A parsed [`Name`] keeps its exact DER (what signatures and issuer/subject
//! matching see) beside the decoded attributes. Strings are decoded from
//! UTF8String, PrintableString, IA5String, TeletexString (as Latin-1),
//! BMPString and UniversalString; other value types are kept as raw DER.

use crate::encoding::oid::{self, ObjectIdentifier};

use crate::encoding::der::{self, Reader};
use crate::{Error, Result};

/// Upper bounds that keep a hostile Name from costing unbounded work.
const MAX_RDNS: usize = 64;
const MAX_ATTRIBUTES: usize = 64;

/// One attribute of a relative distinguished name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub oid: ObjectIdentifier,
    /// The ASN.1 tag of the value (0x0C UTF8String, 0x13 PrintableString, ...).
    pub tag: u8,
    /// The value as text, or `None` when it is not a string type.
    pub text: Option<String>,
    /// The value's complete DER.
    pub value_der: Vec<u8>,
}

/// A distinguished name, in DER order (most significant RDN first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    der: Vec<u8>,
    rdns: Vec<Vec<Attribute>>,
}

/// Well-known attribute short names (RFC 4514 and what OpenSSL prints).
const SHORT_NAMES: &[(ObjectIdentifier, &str)] = &[
    (oid::COMMON_NAME, "CN"),
    (oid::COUNTRY_NAME, "C"),
    (oid::LOCALITY_NAME, "L"),
    (oid::STATE_OR_PROVINCE_NAME, "ST"),
    (oid::STREET_ADDRESS, "STREET"),
    (oid::ORGANIZATION_NAME, "O"),
    (oid::ORGANIZATIONAL_UNIT_NAME, "OU"),
    (oid::DOMAIN_COMPONENT, "DC"),
    (oid::USER_ID, "UID"),
];

/// Attributes whose value DER requires as PrintableString or IA5String.
fn default_tag(o: &ObjectIdentifier) -> u8 {
    match *o {
        oid::COUNTRY_NAME | oid::SERIAL_NUMBER | oid::DN_QUALIFIER => der::PRINTABLE_STRING,
        oid::EMAIL_ADDRESS | oid::DOMAIN_COMPONENT => der::IA5_STRING,
        _ => der::UTF8_STRING,
    }
}

fn decode_text(tag: u8, v: &[u8]) -> Option<String> {
    match tag {
        der::UTF8_STRING => std::str::from_utf8(v).ok().map(str::to_owned),
        der::PRINTABLE_STRING | der::IA5_STRING => {
            if v.is_ascii() {
                std::str::from_utf8(v).ok().map(str::to_owned)
            } else {
                None
            }
        }
        der::TELETEX_STRING => Some(v.iter().map(|&b| b as char).collect()),
        der::BMP_STRING if v.len().is_multiple_of(2) => {
            let units: Vec<u16> = v.chunks(2).map(|c| u16::from_be_bytes([c[0], c[1]])).collect();
            String::from_utf16(&units).ok()
        }
        der::UNIVERSAL_STRING if v.len().is_multiple_of(4) => {
            v.chunks(4).map(|c| char::from_u32(u32::from_be_bytes([c[0], c[1], c[2], c[3]]))).collect()
        }
        _ => None,
    }
}

fn printable_ok(s: &str) -> bool {
    s.bytes().all(|c| c.is_ascii_alphanumeric() || b" '()+,-./:=?".contains(&c))
}

impl Name {
    /// Parses a complete Name DER (a SEQUENCE, nothing after it).
    pub fn from_der(der: &[u8]) -> Result<Name> {
        let outer = der::single(der, der::SEQUENCE, "Name")?;
        let mut rdns = Vec::new();
        let mut r = Reader::new(outer.value, "Name");
        while !r.is_empty() {
            if rdns.len() >= MAX_RDNS {
                return Err(r.err(format!("more than {MAX_RDNS} RDNs")));
            }
            let mut set = r.nested(der::SET, "RelativeDistinguishedName")?;
            let mut rdn = Vec::new();
            while !set.is_empty() {
                if rdn.len() >= MAX_ATTRIBUTES {
                    return Err(r.err(format!("more than {MAX_ATTRIBUTES} attributes in one RDN")));
                }
                let mut atv = set.nested(der::SEQUENCE, "AttributeTypeAndValue")?;
                let oid = atv.oid("attribute type")?;
                let value = atv.any()?;
                atv.finish("AttributeTypeAndValue")?;
                rdn.push(Attribute {
                    oid,
                    tag: value.tag,
                    text: decode_text(value.tag, value.value),
                    value_der: value.raw.to_vec(),
                });
            }
            if rdn.is_empty() {
                return Err(r.err("empty RelativeDistinguishedName"));
            }
            rdns.push(rdn);
        }
        Ok(Name { der: der.to_vec(), rdns })
    }

    /// Builds a Name from RDNs of (type, text, tag); a tag of 0 picks the
    /// usual one (PrintableString for countryName and serialNumber,
    /// IA5String for emailAddress and domainComponent, UTF8String otherwise).
    pub fn from_rdns(rdns: &[Vec<(ObjectIdentifier, String, u8)>]) -> Result<Name> {
        let mut encoded = Vec::with_capacity(rdns.len());
        for rdn in rdns {
            if rdn.is_empty() {
                return Err(Error::invalid("a RelativeDistinguishedName needs at least one attribute"));
            }
            let mut atvs = Vec::with_capacity(rdn.len());
            for (oid, text, tag) in rdn {
                if *oid == oid::COUNTRY_NAME && (text.len() != 2 || !text.is_ascii()) {
                    return Err(Error::invalid(format!("countryName must be 2 letters, got {text:?}")));
                }
                let tag = if *tag == 0 { default_tag(oid) } else { *tag };
                let value = match tag {
                    der::UTF8_STRING => text.as_bytes().to_vec(),
                    der::PRINTABLE_STRING if printable_ok(text) => text.as_bytes().to_vec(),
                    der::IA5_STRING if text.is_ascii() => text.as_bytes().to_vec(),
                    der::BMP_STRING => text.encode_utf16().flat_map(u16::to_be_bytes).collect(),
                    der::PRINTABLE_STRING | der::IA5_STRING => {
                        return Err(Error::invalid(format!(
                            "attribute {oid}: {text:?} cannot be a {}",
                            if tag == der::IA5_STRING { "IA5String (ASCII only)" } else { "PrintableString" }
                        )))
                    }
                    other => return Err(Error::invalid(format!("unsupported string tag 0x{other:02X} for {oid}"))),
                };
                atvs.push(der::seq(&[&der::oid(oid), &der::tlv(tag, &value)]));
            }
            encoded.push(der::set_of(&atvs));
        }
        let parts: Vec<&[u8]> = encoded.iter().map(|v| v.as_slice()).collect();
        Name::from_der(&der::seq(&parts))
    }

    /// The name's DER, as parsed or built (compared byte for byte by issuer checks
    /// only through [`Name::matches`]).
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// The relative distinguished names, in order, each with its attributes.
    pub fn rdns(&self) -> &[Vec<Attribute>] {
        &self.rdns
    }

    /// Whether the name has no RDN at all (an empty SEQUENCE).
    pub fn is_empty(&self) -> bool {
        self.rdns.is_empty()
    }

    /// RFC 4514 string: RDNs in reverse order, short names where known,
    /// `+` between the attributes of a multi-valued RDN, UTF-8 kept as is.
    pub fn rfc4514(&self) -> String {
        let mut parts = Vec::with_capacity(self.rdns.len());
        for rdn in self.rdns.iter().rev() {
            let attrs: Vec<String> = rdn
                .iter()
                .map(|a| {
                    let o = a.oid.to_string();
                    let key = SHORT_NAMES.iter().find(|(k, _)| *k == a.oid).map(|(_, v)| v.to_string());
                    match (&a.text, key) {
                        (Some(t), Some(k)) => format!("{k}={}", escape(t)),
                        (Some(t), None) => format!("{o}={}", escape(t)),
                        (None, k) => format!("{}=#{}", k.unwrap_or(o), hex(&a.value_der)),
                    }
                })
                .collect();
            parts.push(attrs.join("+"));
        }
        parts.join(",")
    }

    /// RFC 5280 name matching: identical DER, or the same attributes with
    /// string values equal after trimming, collapsing spaces and case folding.
    pub fn matches(&self, other: &Name) -> bool {
        if self.der == other.der {
            return true;
        }
        if self.rdns.len() != other.rdns.len() {
            return false;
        }
        self.rdns.iter().zip(&other.rdns).all(|(a, b)| {
            let mut x: Vec<(String, String)> = a.iter().map(normal).collect();
            let mut y: Vec<(String, String)> = b.iter().map(normal).collect();
            x.sort();
            y.sort();
            x == y
        })
    }
}

fn normal(a: &Attribute) -> (String, String) {
    let v = match &a.text {
        Some(t) => t.split_whitespace().collect::<Vec<_>>().join(" ").to_lowercase(),
        None => hex(&a.value_der),
    };
    (a.oid.to_string(), v)
}

pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let n = s.chars().count();
    for (i, c) in s.chars().enumerate() {
        let special = matches!(c, ',' | '+' | '"' | '\\' | '<' | '>' | ';')
            || (i == 0 && (c == '#' || c == ' '))
            || (i + 1 == n && c == ' ');
        if c == '\0' {
            out.push_str("\\00");
            continue;
        }
        if special {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.rfc4514())
    }
}
