//! A small strict DER reader and writer for the PKI structures.
//!
//! Certificates need things the generic `der` types do not give: UTCTime
//! years 1950–1969 (der's `DateTime` starts at 1970), lenient views of
//! real-world fields (21-octet serials), and byte-exact slices of what was
//! signed. The reader is iterative (one TLV at a time, no recursion), checks
//! definite minimal lengths, and every slice it returns lies inside its input,
//! so malformed input gives an error, never a panic or unbounded work.

use der::asn1::ObjectIdentifier;

use crate::{Error, Result};

pub const BOOLEAN: u8 = 0x01;
pub const INTEGER: u8 = 0x02;
pub const BIT_STRING: u8 = 0x03;
pub const OCTET_STRING: u8 = 0x04;
pub const NULL: u8 = 0x05;
pub const OID: u8 = 0x06;
pub const ENUMERATED: u8 = 0x0A;
pub const UTF8_STRING: u8 = 0x0C;
pub const PRINTABLE_STRING: u8 = 0x13;
pub const TELETEX_STRING: u8 = 0x14;
pub const IA5_STRING: u8 = 0x16;
pub const UTC_TIME: u8 = 0x17;
pub const GENERALIZED_TIME: u8 = 0x18;
pub const UNIVERSAL_STRING: u8 = 0x1C;
pub const BMP_STRING: u8 = 0x1E;
pub const SEQUENCE: u8 = 0x30;
pub const SET: u8 = 0x31;

/// Context-specific constructed tag `[n]`.
pub const fn ctx(n: u8) -> u8 {
    0xA0 | n
}

/// Context-specific primitive tag `[n]` (IMPLICIT on a primitive type).
pub const fn ctx_prim(n: u8) -> u8 {
    0x80 | n
}

/// One decoded TLV: its tag, its contents and the whole encoding.
#[derive(Clone, Copy, Debug)]
pub struct Tlv<'a> {
    pub tag: u8,
    pub value: &'a [u8],
    pub raw: &'a [u8],
}

/// Reads consecutive TLVs from a byte slice.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    what: &'static str,
}

fn bad(what: &str, problem: &str) -> Error {
    Error::invalid(format!("invalid {what}: {problem}"))
}

impl<'a> Reader<'a> {
    /// A reader over `data`; `what` names the structure in error messages.
    pub fn new(data: &'a [u8], what: &'static str) -> Self {
        Reader { data, pos: 0, what }
    }

    /// The structure this reader reads, as named in its errors.
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// An [`Error::InvalidInput`] "invalid {what}: {problem}" for this structure.
    pub fn err(&self, problem: impl AsRef<str>) -> Error {
        bad(self.what, problem.as_ref())
    }

    /// The tag of the next TLV, if any.
    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// The next TLV, whatever its tag.
    pub fn any(&mut self) -> Result<Tlv<'a>> {
        let start = self.pos;
        let d = self.data;
        let tag = *d.get(start).ok_or_else(|| self.err("truncated DER (expected another element)"))?;
        if tag & 0x1F == 0x1F {
            return Err(self.err("multi-byte tags are not supported"));
        }
        let first = *d.get(start + 1).ok_or_else(|| self.err("truncated DER (missing length)"))?;
        let (len, header) = if first < 0x80 {
            (first as usize, 2)
        } else if first == 0x80 {
            return Err(self.err("indefinite length (BER) is not DER"));
        } else {
            let n = (first & 0x7F) as usize;
            if n > 4 {
                return Err(self.err("length too large"));
            }
            let bytes = d.get(start + 2..start + 2 + n).ok_or_else(|| self.err("truncated DER (length)"))?;
            if bytes[0] == 0 {
                return Err(self.err("non-canonical DER length"));
            }
            let len = bytes.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize);
            if len < 0x80 {
                return Err(self.err("non-canonical DER length"));
            }
            (len, 2 + n)
        };
        let end = start
            .checked_add(header)
            .and_then(|h| h.checked_add(len))
            .filter(|&e| e <= d.len())
            .ok_or_else(|| self.err("truncated DER"))?;
        self.pos = end;
        Ok(Tlv { tag, value: &d[start + header..end], raw: &d[start..end] })
    }

    /// The next TLV, which must have tag `tag`.
    pub fn expect(&mut self, tag: u8, field: &str) -> Result<Tlv<'a>> {
        match self.peek_tag() {
            Some(t) if t == tag => self.any(),
            Some(t) => Err(self.err(format!("{field}: expected tag 0x{tag:02X}, got 0x{t:02X}"))),
            None => Err(self.err(format!("truncated DER: {field} is missing"))),
        }
    }

    /// The next TLV if it has tag `tag`.
    pub fn optional(&mut self, tag: u8) -> Result<Option<Tlv<'a>>> {
        if self.peek_tag() == Some(tag) {
            self.any().map(Some)
        } else {
            Ok(None)
        }
    }

    /// A reader over the contents of the next TLV, which must have tag `tag`.
    pub fn nested(&mut self, tag: u8, field: &str) -> Result<Reader<'a>> {
        let t = self.expect(tag, field)?;
        Ok(Reader { data: t.value, pos: 0, what: self.what })
    }

    /// Fails if anything is left.
    pub fn finish(&self, field: &str) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.err(format!("trailing data after {field}")))
        }
    }

    /// Reads an OBJECT IDENTIFIER named `field` in errors.
    pub fn oid(&mut self, field: &str) -> Result<ObjectIdentifier> {
        let t = self.expect(OID, field)?;
        parse_oid(t.value).map_err(|_| self.err(format!("{field}: malformed OBJECT IDENTIFIER")))
    }

    /// Reads a DER BOOLEAN (only 00 or FF) named `field` in errors.
    pub fn boolean(&mut self, field: &str) -> Result<bool> {
        let t = self.expect(BOOLEAN, field)?;
        match t.value {
            [0x00] => Ok(false),
            [0xFF] => Ok(true),
            _ => Err(self.err(format!("{field}: BOOLEAN must be 00 or FF in DER"))),
        }
    }

    /// An INTEGER's two's-complement content bytes, checked minimal.
    pub fn integer(&mut self, field: &str) -> Result<&'a [u8]> {
        let t = self.expect(INTEGER, field)?;
        check_integer(t.value).map_err(|p| self.err(format!("{field}: {p}")))?;
        Ok(t.value)
    }

    /// A small non-negative INTEGER.
    pub fn small_uint(&mut self, field: &str) -> Result<u64> {
        let v = self.integer(field)?;
        if v[0] & 0x80 != 0 {
            return Err(self.err(format!("{field}: negative")));
        }
        let v = if v[0] == 0 { &v[1..] } else { v };
        if v.len() > 8 {
            return Err(self.err(format!("{field}: too large")));
        }
        Ok(v.iter().fold(0u64, |a, &b| (a << 8) | b as u64))
    }
}

fn check_integer(v: &[u8]) -> std::result::Result<(), &'static str> {
    match v {
        [] => Err("empty INTEGER"),
        [0x00, b, ..] if b & 0x80 == 0 => Err("non-minimal INTEGER"),
        [0xFF, b, ..] if b & 0x80 != 0 => Err("non-minimal INTEGER"),
        _ => Ok(()),
    }
}

/// An OID from the contents octets of an OBJECT IDENTIFIER.
pub fn parse_oid(content: &[u8]) -> std::result::Result<ObjectIdentifier, der::oid::Error> {
    ObjectIdentifier::from_bytes(content)
}

/// Parses a dotted OID string ("1.2.156.10197.1.501").
pub fn oid_from_str(s: &str) -> Result<ObjectIdentifier> {
    ObjectIdentifier::new(s).map_err(|_| Error::invalid(format!("malformed object identifier {s:?}")))
}

/// Parses a single complete DER element with tag `tag` (no trailing bytes).
pub fn single<'a>(data: &'a [u8], tag: u8, what: &'static str) -> Result<Tlv<'a>> {
    let mut r = Reader::new(data, what);
    let t = r.expect(tag, "outer structure")?;
    r.finish("the structure")?;
    Ok(t)
}

// ---------------------------------------------------------------- writing

/// Appends tag, DER length and contents to `out`.
pub fn put(out: &mut Vec<u8>, tag: u8, value: &[u8]) {
    out.push(tag);
    let n = value.len();
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (bytes.len() - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
    out.extend_from_slice(value);
}

/// Tag, DER length and `value`, as a new vector.
pub fn tlv(tag: u8, value: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len() + 6);
    put(&mut out, tag, value);
    out
}

/// A constructed element whose contents are the concatenation of `parts`.
pub fn cons(tag: u8, parts: &[&[u8]]) -> Vec<u8> {
    let body: Vec<u8> = parts.concat();
    tlv(tag, &body)
}

/// A SEQUENCE of the concatenated `parts`.
pub fn seq(parts: &[&[u8]]) -> Vec<u8> {
    cons(SEQUENCE, parts)
}

/// An OBJECT IDENTIFIER element.
pub fn oid(o: &ObjectIdentifier) -> Vec<u8> {
    tlv(OID, o.as_bytes())
}

/// An INTEGER from an unsigned big-endian magnitude (minimal encoding).
pub fn uint(magnitude: &[u8]) -> Vec<u8> {
    let skip = magnitude.iter().take_while(|&&b| b == 0).count();
    let m = &magnitude[skip..];
    let mut v = Vec::with_capacity(m.len() + 1);
    if m.is_empty() || m[0] & 0x80 != 0 {
        v.push(0);
    }
    v.extend_from_slice(m);
    tlv(INTEGER, &v)
}

/// An INTEGER element of `n` (minimal encoding).
pub fn small_int(n: u64) -> Vec<u8> {
    uint(&n.to_be_bytes())
}

/// A DER BOOLEAN element (FF for true).
pub fn boolean(b: bool) -> Vec<u8> {
    tlv(BOOLEAN, &[if b { 0xFF } else { 0x00 }])
}

/// An OCTET STRING element holding `b`.
pub fn octets(b: &[u8]) -> Vec<u8> {
    tlv(OCTET_STRING, b)
}

/// A BIT STRING with no unused bits.
pub fn bits(b: &[u8]) -> Vec<u8> {
    let mut v = Vec::with_capacity(b.len() + 1);
    v.push(0);
    v.extend_from_slice(b);
    tlv(BIT_STRING, &v)
}

/// The contents of a BIT STRING with no unused bits.
pub fn bit_string_bytes<'a>(t: &Tlv<'a>, what: &str) -> Result<&'a [u8]> {
    match t.value.split_first() {
        Some((0, rest)) => Ok(rest),
        Some(_) => Err(Error::invalid(format!("invalid {what}: BIT STRING has unused bits"))),
        None => Err(Error::invalid(format!("invalid {what}: empty BIT STRING"))),
    }
}

/// The DER SET OF `items`, sorted by encoding as DER requires.
pub fn set_of(items: &[Vec<u8>]) -> Vec<u8> {
    let mut sorted: Vec<&Vec<u8>> = items.iter().collect();
    sorted.sort();
    let parts: Vec<&[u8]> = sorted.iter().map(|v| v.as_slice()).collect();
    cons(SET, &parts)
}

// ---------------------------------------------------------------- time

/// Seconds since the Unix epoch (may be negative) of a civil UTC date.
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146097 + doe - 719468
}

/// (year, month, day) of a day count since the epoch.
pub fn civil_from_days(z: i64) -> (i64, i64, i64) {
    let z = z + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}

fn digits(b: &[u8]) -> Option<i64> {
    if b.iter().all(u8::is_ascii_digit) {
        Some(b.iter().fold(0i64, |a, &c| a * 10 + (c - b'0') as i64))
    } else {
        None
    }
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        _ => 28,
    }
}

/// The earliest and latest times accepted: years 0001 to 9999.
pub const MIN_TIME: i64 = -62_135_596_800;
pub const MAX_TIME: i64 = 253_402_300_799;

/// Parses a DER UTCTime ("YYMMDDHHMMSSZ", RFC 5280: 50–99 are 19xx) or
/// GeneralizedTime ("YYYYMMDDHHMMSSZ") into Unix seconds.
pub fn parse_time(t: &Tlv<'_>, field: &str) -> Result<i64> {
    let v = t.value;
    let (year, rest) = match t.tag {
        UTC_TIME if v.len() == 13 => {
            let yy = digits(&v[..2]);
            (yy.map(|y| if y >= 50 { 1900 + y } else { 2000 + y }), &v[2..])
        }
        GENERALIZED_TIME if v.len() == 15 => (digits(&v[..4]), &v[4..]),
        UTC_TIME | GENERALIZED_TIME => {
            return Err(Error::invalid(format!(
                "invalid {field}: time must be YYMMDDHHMMSSZ (UTCTime) or YYYYMMDDHHMMSSZ (GeneralizedTime)"
            )))
        }
        other => return Err(Error::invalid(format!("invalid {field}: expected a time, got tag 0x{other:02X}"))),
    };
    let parsed = (|| {
        let y = year?;
        if rest[10] != b'Z' {
            return None;
        }
        let (mo, d, h, mi, s) = (
            digits(&rest[0..2])?,
            digits(&rest[2..4])?,
            digits(&rest[4..6])?,
            digits(&rest[6..8])?,
            digits(&rest[8..10])?,
        );
        if y < 1 || !(1..=12).contains(&mo) || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 || s > 59 {
            return None;
        }
        Some(days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s)
    })();
    parsed.ok_or_else(|| Error::invalid(format!("invalid {field}: not a valid UTC date and time")))
}

/// RFC 5280's choice: UTCTime for 1950–2049, GeneralizedTime otherwise.
pub fn encode_time(secs: i64) -> Result<Vec<u8>> {
    if !(MIN_TIME..=MAX_TIME).contains(&secs) {
        return Err(Error::invalid(format!("time {secs} is outside years 1 to 9999")));
    }
    let (y, mo, d) = civil_from_days(secs.div_euclid(86400));
    let sod = secs.rem_euclid(86400);
    let (h, mi, s) = (sod / 3600, sod / 60 % 60, sod % 60);
    if (1950..2050).contains(&y) {
        let text = format!("{:02}{mo:02}{d:02}{h:02}{mi:02}{s:02}Z", y % 100);
        Ok(tlv(UTC_TIME, text.as_bytes()))
    } else {
        let text = format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}Z");
        Ok(tlv(GENERALIZED_TIME, text.as_bytes()))
    }
}

/// "2026-12-01 19:49:01 UTC" for messages.
pub fn format_time(secs: i64) -> String {
    let (y, mo, d) = civil_from_days(secs.div_euclid(86400));
    let sod = secs.rem_euclid(86400);
    format!("{y:04}-{mo:02}-{d:02} {:02}:{:02}:{:02} UTC", sod / 3600, sod / 60 % 60, sod % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for days in [-719_162i64, -25_567, -1, 0, 1, 18_000, 29_220, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn times() {
        let t = encode_time(-631_152_000).unwrap(); // 1950-01-01
        assert_eq!(&t[2..], b"500101000000Z");
        let t = encode_time(-631_152_001).unwrap();
        assert_eq!(&t[2..], b"19491231235959Z");
        let t = encode_time(2_524_608_000).unwrap(); // 2050-01-01
        assert_eq!(&t[2..], b"20500101000000Z");
        let mut r = Reader::new(&t, "t");
        assert_eq!(parse_time(&r.any().unwrap(), "t").unwrap(), 2_524_608_000);
        for bad in [&b"\x17\x0d500132000000Z"[..], b"\x17\x0d5001010000000", b"\x18\x0d500101000000Z"] {
            let mut r = Reader::new(bad, "t");
            assert!(parse_time(&r.any().unwrap(), "t").is_err());
        }
    }

    #[test]
    fn lengths() {
        for bad in
            [&[0x30u8, 0x81, 0x05, 0, 0, 0, 0, 0][..], &[0x30, 0x80], &[0x30, 0x03, 0], &[0x30, 0x82, 0x00, 0x80]]
        {
            assert!(Reader::new(bad, "x").any().is_err(), "{bad:?}");
        }
        let long = tlv(OCTET_STRING, &[7u8; 300]);
        let mut r = Reader::new(&long, "x");
        assert_eq!(r.any().unwrap().value.len(), 300);
    }
}
