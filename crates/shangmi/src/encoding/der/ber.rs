//! BER to DER: the one normaliser for the structures whose standards allow
//! BER on the wire (RFC 5652 CMS, PKCS#7, PKCS#12), so their parsers can
//! stay strict DER readers afterwards.
//!
//! What it changes: indefinite lengths become definite, non-minimal length
//! octets minimal, and constructed OCTET STRINGs (universal tag 0x24) one
//! primitive OCTET STRING. It does not know implicitly tagged types, so a
//! constructed `[n] IMPLICIT OCTET STRING` stays constructed (with its
//! segments normalised); the CMS reader joins those itself. DER input comes
//! out byte for byte unchanged, so a certificate embedded in a BER message
//! keeps the exact DER its signature covers.

use std::borrow::Cow;

use super::reader::Reader;
use super::tags::{CONSTRUCTED, OCTET_STRING};
use super::writer::put;
use crate::Result;

/// The first element of `data` as DER, followed by whatever comes after it
/// unchanged (so the caller's strict reader still reports trailing bytes).
/// Borrowed when that element already is DER. Nesting is bounded by
/// [`super::MAX_DEPTH`]; a truncated or malformed element is an
/// [`crate::Error::InvalidInput`] naming `what`.
pub fn normalize<'a>(data: &'a [u8], what: &'static str) -> Result<Cow<'a, [u8]>> {
    // Already DER (the common case): a strict walk of the element succeeds.
    let mut strict = Reader::new(data, what);
    if let Ok(t) = strict.any() {
        let inner_ok = t.tag & CONSTRUCTED == 0 || strict.inner(t.value).and_then(|mut r| walk_strict(&mut r)).is_ok();
        if t.tag != OCTET_STRING | CONSTRUCTED && inner_ok {
            return Ok(Cow::Borrowed(data));
        }
    }
    let mut r = Reader::ber(data, what);
    let first = r.any()?;
    let mut out = Vec::with_capacity(data.len());
    normalize_into(&mut Reader::ber(first.raw, what), &mut out)?;
    out.extend_from_slice(r.rest());
    Ok(Cow::Owned(out))
}

/// Whether every element, at every level, is DER-framed and has no
/// constructed OCTET STRING (contents octets are not checked).
fn walk_strict(r: &mut Reader<'_>) -> Result<()> {
    while !r.is_empty() {
        let t = r.any()?;
        if t.tag == OCTET_STRING | CONSTRUCTED {
            return Err(r.err("constructed OCTET STRING"));
        }
        if t.tag & CONSTRUCTED != 0 {
            walk_strict(&mut r.inner(t.value)?)?;
        }
    }
    Ok(())
}

fn normalize_into(r: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<()> {
    while !r.is_empty() {
        let t = r.any()?;
        if t.tag & CONSTRUCTED == 0 {
            put(out, t.tag, t.value);
        } else if t.tag == OCTET_STRING | CONSTRUCTED {
            let mut joined = Vec::new();
            join_segments(&mut r.inner(t.value)?, &mut joined)?;
            put(out, OCTET_STRING, &joined);
        } else {
            let mut body = Vec::with_capacity(t.value.len());
            normalize_into(&mut r.inner(t.value)?, &mut body)?;
            put(out, t.tag, &body);
        }
    }
    Ok(())
}

/// The contents of a constructed OCTET STRING's segments (X.690 8.7.3:
/// each segment is itself an OCTET STRING, primitive or constructed).
fn join_segments(r: &mut Reader<'_>, out: &mut Vec<u8>) -> Result<()> {
    while !r.is_empty() {
        let s = r.any()?;
        match s.tag {
            OCTET_STRING => out.extend_from_slice(s.value),
            t if t == OCTET_STRING | CONSTRUCTED => join_segments(&mut r.inner(s.value)?, out)?,
            t => return Err(r.err(format!("constructed OCTET STRING segment with tag 0x{t:02X}"))),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn der_is_unchanged_and_borrowed() {
        let der = [0x30, 0x06, 0x04, 0x01, 0xAA, 0x02, 0x01, 0x05];
        assert!(matches!(normalize(&der, "x").unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn indefinite_lengths_and_segments() {
        // X.690 8.1.3.6 and 8.7.3.2: SEQUENCE (indefinite) { OCTET STRING
        // (constructed, indefinite) { "ab", (constructed) { "c" } },
        // INTEGER with a non-minimal long-form length }.
        let ber = [
            0x30, 0x80, 0x24, 0x80, 0x04, 0x02, b'a', b'b', 0x24, 0x03, 0x04, 0x01, b'c', 0, 0, 0x02, 0x81, 0x01, 0x05,
            0, 0,
        ];
        let der = [0x30, 0x08, 0x04, 0x03, b'a', b'b', b'c', 0x02, 0x01, 0x05];
        assert_eq!(normalize(&ber, "x").unwrap().as_ref(), &der);
    }

    #[test]
    fn trailing_bytes_are_kept() {
        let ber = [0x30, 0x80, 0x05, 0x00, 0, 0, 0xFF];
        assert_eq!(normalize(&ber, "x").unwrap().as_ref(), &[0x30, 0x02, 0x05, 0x00, 0xFF]);
        let der = [0x30, 0x02, 0x05, 0x00, 0x00];
        assert!(matches!(normalize(&der, "x").unwrap(), Cow::Borrowed(_)));
    }

    #[test]
    fn malformed_is_refused() {
        for bad in [&[0x30u8, 0x80, 0x04, 0x01, 1][..], &[0x24, 0x03, 0x02, 0x01, 0x05], &[0x30, 0x05, 0x04]] {
            assert!(normalize(bad, "x").is_err(), "{bad:?}");
        }
    }
}
