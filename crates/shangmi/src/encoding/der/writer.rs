//! Writing: each function returns one complete element, so structures are
//! built inside-out from their parts (the lengths are then known).

use zeroize::Zeroizing;

use super::tags::*;
use super::ObjectIdentifier;

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

/// The DER SET OF `items`, sorted by encoding as DER requires.
pub fn set_of(items: &[Vec<u8>]) -> Vec<u8> {
    let mut sorted: Vec<&Vec<u8>> = items.iter().collect();
    sorted.sort();
    let parts: Vec<&[u8]> = sorted.iter().map(|v| v.as_slice()).collect();
    cons(SET, &parts)
}

/// [`tlv`] into a buffer that is zeroized when dropped, for secret contents
/// (written in place: no copy of `value` is left in freed memory).
pub fn tlv_secret(tag: u8, value: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(value.len() + 6));
    put(&mut out, tag, value);
    out
}

/// [`uint`] of a secret magnitude, in a buffer zeroized when dropped. The
/// encoding's length depends on the value's leading zero bytes, as DER
/// requires; callers encode secrets only for storage, never on a path an
/// attacker can time.
pub fn uint_secret(magnitude: &[u8]) -> Zeroizing<Vec<u8>> {
    let skip = magnitude.iter().take_while(|&&b| b == 0).count().min(magnitude.len().saturating_sub(1));
    let m = &magnitude[skip..];
    let mut body = Zeroizing::new(Vec::with_capacity(m.len() + 1));
    if m.is_empty() || m[0] & 0x80 != 0 {
        body.push(0);
    }
    body.extend_from_slice(m);
    tlv_secret(INTEGER, &body)
}

/// [`seq`] into a buffer that is zeroized when dropped (the contents are
/// gathered in a zeroized buffer too), for structures holding a secret.
pub fn seq_secret(parts: &[&[u8]]) -> Zeroizing<Vec<u8>> {
    let mut body = Zeroizing::new(Vec::with_capacity(parts.iter().map(|p| p.len()).sum()));
    for p in parts {
        body.extend_from_slice(p);
    }
    tlv_secret(SEQUENCE, &body)
}
