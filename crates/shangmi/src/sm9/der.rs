//! The two DER shapes GmSSL writes for SM9 data (`sm9.h`):
//! signature SEQUENCE { h OCTET STRING, S BIT STRING } and ciphertext
//! SEQUENCE { EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, C2 OCTET STRING }.
//! A strict minimal TLV reader/writer: definite minimal lengths, no trailing bytes.

use crate::{Error, Result};

fn push_len(out: &mut Vec<u8>, n: usize) {
    if n < 0x80 {
        out.push(n as u8);
    } else {
        let bytes = n.to_be_bytes();
        let skip = bytes.iter().take_while(|&&b| b == 0).count();
        out.push(0x80 | (8 - skip) as u8);
        out.extend_from_slice(&bytes[skip..]);
    }
}

/// One TLV.
pub fn tlv(tag: u8, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 6);
    out.push(tag);
    push_len(&mut out, body.len());
    out.extend_from_slice(body);
    out
}

/// A BIT STRING with no unused bits.
pub fn bit_string(body: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(body.len() + 1);
    b.push(0);
    b.extend_from_slice(body);
    tlv(0x03, &b)
}

/// A non-negative INTEGER below 128.
pub fn small_int(v: u8) -> Vec<u8> {
    assert!(v < 0x80);
    tlv(0x02, &[v])
}

/// Reads one TLV of tag `tag` from the front of `b`: (body, rest).
pub fn read<'a>(b: &'a [u8], tag: u8, what: &str) -> Result<(&'a [u8], &'a [u8])> {
    let bad = |m: &str| Error::invalid(format!("{what}: {m}"));
    if b.len() < 2 {
        return Err(bad("truncated DER"));
    }
    if b[0] != tag {
        return Err(bad(&format!("expected DER tag 0x{tag:02x}, got 0x{:02x}", b[0])));
    }
    let (len, hdr) = if b[1] < 0x80 {
        (b[1] as usize, 2)
    } else {
        let k = (b[1] & 0x7f) as usize;
        if k == 0 || k > 4 || b.len() < 2 + k {
            return Err(bad("bad DER length"));
        }
        let mut n = 0usize;
        for &x in &b[2..2 + k] {
            n = (n << 8) | x as usize;
        }
        if b[2] == 0 || n < 0x80 {
            return Err(bad("non-minimal DER length"));
        }
        (n, 2 + k)
    };
    if b.len() - hdr < len {
        return Err(bad("truncated DER"));
    }
    Ok((&b[hdr..hdr + len], &b[hdr + len..]))
}

/// The body of a whole SEQUENCE with nothing after it.
pub fn read_sequence<'a>(b: &'a [u8], what: &str) -> Result<&'a [u8]> {
    let (body, rest) = read(b, 0x30, what)?;
    if !rest.is_empty() {
        return Err(Error::invalid(format!("{what}: trailing bytes after the DER SEQUENCE")));
    }
    Ok(body)
}

/// A BIT STRING with no unused bits: (contents, rest).
pub fn read_bit_string<'a>(b: &'a [u8], what: &str) -> Result<(&'a [u8], &'a [u8])> {
    let (body, rest) = read(b, 0x03, what)?;
    if body.first() != Some(&0) {
        return Err(Error::invalid(format!("{what}: BIT STRING with unused bits")));
    }
    Ok((&body[1..], rest))
}

/// A small non-negative INTEGER (one content byte).
pub fn read_small_int<'a>(b: &'a [u8], what: &str) -> Result<(u8, &'a [u8])> {
    let (body, rest) = read(b, 0x02, what)?;
    if body.len() != 1 || body[0] >= 0x80 {
        return Err(Error::invalid(format!("{what}: INTEGER out of range")));
    }
    Ok((body[0], rest))
}
