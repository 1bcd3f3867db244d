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

/// One TLV of any tag from the front of `b`: (tag, body, rest).
pub fn read_any<'a>(b: &'a [u8], what: &str) -> Result<(u8, &'a [u8], &'a [u8])> {
    let tag = *b.first().ok_or_else(|| Error::invalid(format!("{what}: truncated DER")))?;
    let (body, rest) = read(b, tag, what)?;
    Ok((tag, body, rest))
}

/// A non-negative DER INTEGER of at most 32 magnitude bytes, left-padded to
/// 32 big-endian bytes (range checks are the caller's): (value, rest).
pub fn read_uint256<'a>(b: &'a [u8], what: &str) -> Result<(zeroize::Zeroizing<[u8; 32]>, &'a [u8])> {
    let (body, rest) = read(b, 0x02, what)?;
    let bad = |m: &str| Error::invalid(format!("{what}: {m}"));
    if body.is_empty() {
        return Err(bad("empty INTEGER"));
    }
    if body[0] & 0x80 != 0 {
        return Err(bad("negative INTEGER"));
    }
    if body.len() > 1 && body[0] == 0 && body[1] & 0x80 == 0 {
        return Err(bad("non-minimal INTEGER"));
    }
    let mag = if body[0] == 0 && body.len() > 1 { &body[1..] } else { body };
    if mag.len() > 32 {
        return Err(bad("INTEGER longer than 32 bytes"));
    }
    let mut out = zeroize::Zeroizing::new([0u8; 32]);
    out[32 - mag.len()..].copy_from_slice(mag);
    Ok((out, rest))
}

/// A non-negative INTEGER from 32 big-endian bytes, minimal DER.
pub fn uint256(v: &[u8; 32]) -> zeroize::Zeroizing<Vec<u8>> {
    let skip = v.iter().take_while(|&&b| b == 0).count().min(31);
    let mut body = zeroize::Zeroizing::new(Vec::with_capacity(33));
    if v[skip] & 0x80 != 0 {
        body.push(0);
    }
    body.extend_from_slice(&v[skip..]);
    zeroize::Zeroizing::new(tlv(0x02, &body))
}

/// How a signature is written: GmSSL's DER SEQUENCE { h, S } or raw h ‖ 04‖x‖y.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SignatureEncoding {
    #[default]
    Der,
    Raw,
}

impl SignatureEncoding {
    /// The name callers pass: `"der"` or `"raw"`.
    pub fn name(self) -> &'static str {
        match self {
            SignatureEncoding::Der => "der",
            SignatureEncoding::Raw => "raw",
        }
    }

    /// The encoding called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        pick(name, "encoding", &[SignatureEncoding::Der, SignatureEncoding::Raw], |e| e.name())
    }

    /// The signature's bytes in this encoding.
    pub fn encode(self, sig: &super::Signature) -> Vec<u8> {
        match self {
            SignatureEncoding::Der => sig.to_der(),
            SignatureEncoding::Raw => sig.to_raw().to_vec(),
        }
    }

    /// Parses a signature; any defect is [`Error::InvalidSignature`] (a
    /// malformed signature is simply not a valid one).
    pub fn parse(self, data: &[u8]) -> Result<super::Signature> {
        let s = match self {
            SignatureEncoding::Der => super::Signature::from_der(data),
            SignatureEncoding::Raw => super::Signature::from_raw(data),
        };
        s.map_err(|_| Error::InvalidSignature)
    }

    /// Signs every message with `key` in parallel ([`super::sign_many`]), in this encoding.
    pub fn encode_many(self, key: &super::SignPrivateKey, messages: &[&[u8]]) -> Result<Vec<Vec<u8>>> {
        Ok(super::sign_many(key, messages)?.iter().map(|s| self.encode(s)).collect())
    }

    /// Verifies (message, uid, signature bytes) triples in parallel
    /// ([`super::verify_many`]); a signature that does not parse is invalid.
    pub fn verify_many(self, mpk: &super::SignMasterPublicKey, hid: u8, items: &[(&[u8], &[u8], &[u8])]) -> Vec<bool> {
        let parsed: Vec<(&[u8], &[u8], Option<super::Signature>)> =
            items.iter().map(|(m, u, s)| (*m, *u, self.parse(s).ok())).collect();
        super::verify_many(mpk, hid, &parsed)
    }
}

fn pick<T: Copy>(name: &str, what: &str, all: &[T], name_of: impl Fn(T) -> &'static str) -> Result<T> {
    all.iter().copied().find(|t| name_of(*t) == name).ok_or_else(|| {
        let choices: Vec<String> = all.iter().map(|t| format!("'{}'", name_of(*t))).collect();
        Error::invalid(format!("{what} must be one of {}, got '{name}'", choices.join(", ")))
    })
}

impl super::Layout {
    /// The name callers pass: `"c1c3c2"`, `"c1c2c3"` or `"der"`.
    pub fn name(self) -> &'static str {
        match self {
            super::Layout::C1C3C2 => "c1c3c2",
            super::Layout::C1C2C3 => "c1c2c3",
            super::Layout::Der => "der",
        }
    }

    /// The layout called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        use super::Layout::*;
        pick(name, "mode", &[C1C3C2, C1C2C3, Der], |l| l.name())
    }
}

impl super::Cipher {
    /// The name callers pass: `"xor"`, `"sm4-ecb"` or `"sm4-cbc"`.
    pub fn name(self) -> &'static str {
        match self {
            super::Cipher::Xor => "xor",
            super::Cipher::Sm4Ecb => "sm4-ecb",
            super::Cipher::Sm4Cbc => "sm4-cbc",
        }
    }

    /// The cipher called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        use super::Cipher::*;
        pick(name, "cipher", &[Xor, Sm4Ecb, Sm4Cbc], |c| c.name())
    }
}

impl super::Mac {
    /// The name callers pass: `"sm3"` (the standard) or `"hmac-sm3"` (GmSSL).
    pub fn name(self) -> &'static str {
        match self {
            super::Mac::Sm3 => "sm3",
            super::Mac::HmacSm3 => "hmac-sm3",
        }
    }

    /// The MAC called `name`, or [`Error::InvalidInput`] listing the choices.
    pub fn from_name(name: &str) -> Result<Self> {
        use super::Mac::*;
        pick(name, "mac", &[Sm3, HmacSm3], |m| m.name())
    }
}

impl super::Options {
    /// Options from the three names callers pass (see each enum's `from_name`).
    pub fn from_names(mode: &str, cipher: &str, mac: &str) -> Result<Self> {
        Ok(super::Options {
            layout: super::Layout::from_name(mode)?,
            cipher: super::Cipher::from_name(cipher)?,
            mac: super::Mac::from_name(mac)?,
        })
    }
}

/// A hid given as a wider integer: one byte (0..=255) or [`Error::InvalidInput`].
pub fn hid_from_u32(h: u32) -> Result<u8> {
    u8::try_from(h).map_err(|_| Error::invalid(format!("hid must be one byte (0..255), got {h}")))
}

/// e(P, Q) on encoded points: P in G1 (04‖x‖y, x‖y or compressed) and Q in
/// G2 (04‖x1‖x0‖y1‖y0 or the 128 bytes), both validated (Q also in the
/// subgroup); the result in the 384-byte GT encoding that H2 and the KDF
/// hash (GmSSL's and gmsm's order). Public inputs only (variable time is
/// not a concern for them, but the pairing itself does not branch on them).
pub fn pairing_encoded(p: &[u8], q: &[u8]) -> Result<[u8; 384]> {
    let p = super::g1::decode(p, "SM9 pairing P")?;
    let q = super::g2::decode(q, "SM9 pairing Q")?;
    Ok(super::pairing::pairing(&p, &q).to_bytes())
}
