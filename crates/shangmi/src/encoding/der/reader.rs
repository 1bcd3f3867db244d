//! Reading: one TLV at a time, no recursion, every slice inside the input.

use super::tags::*;
use super::ObjectIdentifier;
use crate::{Error, Result};

/// The deepest nesting a reader follows: nested readers made by
/// [`Reader::nested`]/[`Reader::inner`] and the levels of indefinite-length
/// BER. Real certificates, PKCS#12 and CMS nest at most ~12 deep.
pub const MAX_DEPTH: u8 = 64;

/// One decoded TLV: its tag, its contents and the whole encoding.
///
/// For an indefinite-length BER element, `value` is the contents without
/// the end-of-contents octets and `raw` the whole element with them.
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
    depth: u8,
    ber: bool,
}

/// A length header: the contents length (`None` for indefinite) and the
/// header's size.
struct Header {
    tag: u8,
    len: Option<usize>,
    header: usize,
}

impl<'a> Reader<'a> {
    /// A strict DER reader over `data` (definite minimal lengths only);
    /// `what` names the structure in error messages.
    pub fn new(data: &'a [u8], what: &'static str) -> Self {
        Reader { data, pos: 0, what, depth: 0, ber: false }
    }

    /// A BER reader over `data`: also accepts indefinite lengths (on
    /// constructed elements, X.690 8.1.3.6) and non-minimal length octets,
    /// as PKCS#12 files and CMS from other toolkits carry. Nested readers
    /// inherit the mode.
    pub fn ber(data: &'a [u8], what: &'static str) -> Self {
        Reader { data, pos: 0, what, depth: 0, ber: true }
    }

    /// The structure this reader reads, as named in its errors.
    pub fn what(&self) -> &'static str {
        self.what
    }

    /// Whether every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The bytes not yet read.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos.min(self.data.len())..]
    }

    /// An [`Error::InvalidInput`] "invalid {what}: {problem}" for this structure.
    pub fn err(&self, problem: impl AsRef<str>) -> Error {
        Error::invalid(format!("invalid {}: {}", self.what, problem.as_ref()))
    }

    /// The tag of the next TLV, if any.
    pub fn peek_tag(&self) -> Option<u8> {
        self.data.get(self.pos).copied()
    }

    /// Reads the tag and length at `start`, checking the length octets.
    fn header(&self, start: usize) -> Result<Header> {
        let d = self.data;
        let tag = *d.get(start).ok_or_else(|| self.err("truncated DER (expected another element)"))?;
        if tag & 0x1F == 0x1F {
            return Err(self.err(format!("multi-byte tags are not supported (tag octet 0x{tag:02X})")));
        }
        let first = *d.get(start + 1).ok_or_else(|| self.err("truncated DER (missing length)"))?;
        if first < 0x80 {
            return Ok(Header { tag, len: Some(first as usize), header: 2 });
        }
        if first == 0x80 {
            if !self.ber {
                return Err(self.err("indefinite length (BER) is not DER"));
            }
            if tag & CONSTRUCTED == 0 {
                return Err(self.err(format!("indefinite length on primitive tag 0x{tag:02X}")));
            }
            return Ok(Header { tag, len: None, header: 2 });
        }
        let n = (first & 0x7F) as usize;
        if n > 4 {
            return Err(self.err(format!("length field of {n} octets is too large (at most 4)")));
        }
        let left = d.len() - (start + 2).min(d.len());
        let bytes = d
            .get(start + 2..start + 2 + n)
            .ok_or_else(|| self.err(format!("truncated DER: {n} length octets but {left} bytes left")))?;
        let len = bytes.iter().fold(0usize, |acc, &b| (acc << 8) | b as usize);
        if !self.ber && (bytes[0] == 0 || len < 0x80) {
            return Err(self.err(format!("non-canonical DER length (length {len} in {n} octets)")));
        }
        Ok(Header { tag, len: Some(len), header: 2 + n })
    }

    /// The end of the contents (where its end-of-contents octets start) of
    /// an indefinite-length element whose contents start at `from`.
    /// Iterative: definite elements are skipped whole, each nested
    /// indefinite one adds a level, bounded by [`MAX_DEPTH`].
    fn indefinite_end(&self, from: usize) -> Result<usize> {
        let d = self.data;
        let mut pos = from;
        let mut open = 1u32;
        loop {
            if d.get(pos..pos + 2) == Some(&[0, 0]) {
                open -= 1;
                if open == 0 {
                    return Ok(pos);
                }
                pos += 2;
                continue;
            }
            if pos >= d.len() {
                return Err(self.err("truncated BER: indefinite length without end-of-contents"));
            }
            let h = self.header(pos)?;
            match h.len {
                None => {
                    open += 1;
                    if open + u32::from(self.depth) > u32::from(MAX_DEPTH) {
                        return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
                    }
                    pos += h.header;
                }
                Some(len) => {
                    let left = d.len() - pos - h.header.min(d.len() - pos);
                    if len > left {
                        return Err(self.err(format!("truncated DER: length {len} exceeds the {left} bytes left")));
                    }
                    pos += h.header + len;
                }
            }
        }
    }

    /// The next TLV, whatever its tag.
    pub fn any(&mut self) -> Result<Tlv<'a>> {
        let start = self.pos;
        let d = self.data;
        let h = self.header(start)?;
        let body = start + h.header;
        let (value_end, end) = match h.len {
            Some(len) => {
                let left = d.len().saturating_sub(body);
                if len > left {
                    return Err(self.err(format!("truncated DER: length {len} exceeds the {left} bytes left")));
                }
                (body + len, body + len)
            }
            None => {
                let e = self.indefinite_end(body)?;
                (e, e + 2)
            }
        };
        self.pos = end;
        Ok(Tlv { tag: h.tag, value: &d[body..value_end], raw: &d[start..end] })
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

    /// A reader over `data` one level deeper than this one, same mode and name.
    pub fn inner(&self, data: &'a [u8]) -> Result<Reader<'a>> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(format!("nesting deeper than {MAX_DEPTH} levels")));
        }
        Ok(Reader { data, pos: 0, what: self.what, depth: self.depth + 1, ber: self.ber })
    }

    /// A reader over the contents of the next TLV, which must have tag `tag`.
    pub fn nested(&mut self, tag: u8, field: &str) -> Result<Reader<'a>> {
        let t = self.expect(tag, field)?;
        self.inner(t.value)
    }

    /// Fails if anything is left.
    pub fn finish(&self, field: &str) -> Result<()> {
        if self.is_empty() {
            Ok(())
        } else {
            let n = self.data.len() - self.pos;
            Err(self.err(format!("trailing data after {field} ({n} bytes)")))
        }
    }

    /// Reads an OBJECT IDENTIFIER named `field` in errors.
    pub fn oid(&mut self, field: &str) -> Result<ObjectIdentifier> {
        let t = self.expect(OID, field)?;
        ObjectIdentifier::from_bytes(t.value).map_err(|e| self.err(format!("{field}: {e}")))
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

    /// A non-negative INTEGER's magnitude (no sign octet), checked minimal.
    pub fn unsigned(&mut self, field: &str) -> Result<&'a [u8]> {
        let v = self.integer(field)?;
        if v[0] & 0x80 != 0 {
            return Err(self.err(format!("{field}: negative INTEGER")));
        }
        Ok(if v[0] == 0 && v.len() > 1 { &v[1..] } else { v })
    }

    /// A non-negative INTEGER left-padded into `out` (big-endian); one whose
    /// magnitude is longer than `out` is an error.
    pub fn unsigned_into(&mut self, field: &str, out: &mut [u8]) -> Result<()> {
        let m = self.unsigned(field)?;
        if m.len() > out.len() {
            return Err(self.err(format!("{field}: INTEGER longer than {} bytes", out.len())));
        }
        let pad = out.len() - m.len();
        out[..pad].fill(0);
        out[pad..].copy_from_slice(m);
        Ok(())
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

    /// The contents of an OCTET STRING named `field`.
    pub fn octets(&mut self, field: &str) -> Result<&'a [u8]> {
        Ok(self.expect(OCTET_STRING, field)?.value)
    }

    /// The contents of a BIT STRING with no unused bits named `field`.
    pub fn bits(&mut self, field: &str) -> Result<&'a [u8]> {
        let t = self.expect(BIT_STRING, field)?;
        match t.value.split_first() {
            Some((0, rest)) => Ok(rest),
            Some(_) => Err(self.err(format!("{field}: BIT STRING has unused bits"))),
            None => Err(self.err(format!("{field}: empty BIT STRING"))),
        }
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

/// The contents of a BIT STRING with no unused bits.
pub fn bit_string_bytes<'a>(t: &Tlv<'a>, what: &str) -> Result<&'a [u8]> {
    match t.value.split_first() {
        Some((0, rest)) => Ok(rest),
        Some(_) => Err(Error::invalid(format!("invalid {what}: BIT STRING has unused bits"))),
        None => Err(Error::invalid(format!("invalid {what}: empty BIT STRING"))),
    }
}

/// Parses a single complete element with tag `tag` (no trailing bytes).
pub fn single<'a>(data: &'a [u8], tag: u8, what: &'static str) -> Result<Tlv<'a>> {
    let mut r = Reader::new(data, what);
    let t = r.expect(tag, "outer structure")?;
    r.finish("the structure")?;
    Ok(t)
}

#[cfg(test)]
mod tests {
    use super::super::writer::tlv;
    use super::*;

    fn message(e: Error) -> String {
        e.to_string()
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
        let m = message(Reader::new(&long[..16], "x").any().unwrap_err());
        assert_eq!(m, "invalid x: truncated DER: length 300 exceeds the 12 bytes left");
        let m = message(Reader::new(&[0x04, 0x85, 1, 0, 0, 0, 0], "x").any().unwrap_err());
        assert!(m.contains("length field of 5 octets"), "{m}");
        let m = message(Reader::new(&[0x04, 0x81, 0x05, 1, 2, 3, 4, 5], "x").any().unwrap_err());
        assert!(m.contains("non-canonical"), "{m}");
    }

    #[test]
    fn ber_indefinite_lengths() {
        // SEQUENCE (indefinite) { [0] (indefinite) { OCTET STRING "ab" } INTEGER 5 } then NULL.
        let data = [0x30, 0x80, 0xA0, 0x80, 0x04, 0x02, b'a', b'b', 0, 0, 0x02, 0x01, 0x05, 0, 0, 0x05, 0x00];
        assert!(Reader::new(&data, "x").any().unwrap_err().to_string().contains("indefinite length (BER)"));
        let mut r = Reader::ber(&data, "x");
        let t = r.any().unwrap();
        assert_eq!(t.tag, SEQUENCE);
        assert_eq!(t.raw.len(), 15);
        assert_eq!(t.value, &data[2..13]);
        let mut inner = r.inner(t.value).unwrap();
        let mut ctx0 = inner.nested(ctx(0), "[0]").unwrap();
        assert_eq!(ctx0.octets("o").unwrap(), b"ab");
        ctx0.finish("[0]").unwrap();
        assert_eq!(inner.small_uint("i").unwrap(), 5);
        inner.finish("seq").unwrap();
        assert_eq!(r.any().unwrap().tag, NULL);
        assert!(r.is_empty());
        // Missing end-of-contents, a primitive with indefinite length, and too deep.
        assert!(Reader::ber(&data[..12], "x").any().is_err());
        assert!(Reader::ber(&[0x04, 0x80, 0, 0], "x").any().is_err());
        let mut deep = Vec::new();
        for _ in 0..100 {
            deep.extend_from_slice(&[0x30, 0x80]);
        }
        deep.extend_from_slice(&[0u8; 200]);
        let m = message(Reader::ber(&deep, "x").any().unwrap_err());
        assert!(m.contains("nesting deeper than 64"), "{m}");
    }

    #[test]
    fn nested_depth_is_bounded() {
        let mut data = vec![0x05, 0x00];
        for _ in 0..70 {
            data = tlv(SEQUENCE, &data);
        }
        let mut r = Reader::new(&data, "x");
        let mut err = None;
        for _ in 0..70 {
            match r.nested(SEQUENCE, "s") {
                Ok(n) => r = n,
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        assert!(message(err.unwrap()).contains("nesting deeper than 64"));
    }

    #[test]
    fn integers() {
        let mut out = [0u8; 4];
        Reader::new(&[0x02, 0x02, 0x00, 0x80], "x").unsigned_into("i", &mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 0x80]);
        for bad in [&[0x02u8, 0x02, 0x00, 0x01][..], &[0x02, 0x01, 0x80], &[0x02, 0x00], &[0x02, 0x05, 1, 2, 3, 4, 5]] {
            assert!(Reader::new(bad, "x").unsigned_into("i", &mut out).is_err(), "{bad:?}");
        }
    }
}
