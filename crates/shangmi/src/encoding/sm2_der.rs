//! The two SM2-specific DER structures: signatures (`SEQUENCE { r, s }`, as
//! GM/T 0009 and every X.509 SM2 signature) and GM/T 0009 `SM2Cipher`.

use super::der;

use crate::{Error, Result};

/// The SM2 group order n, big-endian (public constant, used for range checks
/// of public values only).
const N: [u8; 32] = hex32("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123");
/// The SM2 field prime p, big-endian.
const P: [u8; 32] = hex32("FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF");

const fn hex32(s: &str) -> [u8; 32] {
    let b = s.as_bytes();
    let mut out = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        out[i] = (nibble(b[2 * i]) << 4) | nibble(b[2 * i + 1]);
        i += 1;
    }
    out
}

const fn nibble(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => c - b'0',
        b'A'..=b'F' => c - b'A' + 10,
        _ => panic!("bad hex constant"),
    }
}

/// Encodes (r, s) as a DER `SEQUENCE { INTEGER r, INTEGER s }` with minimal
/// integers, as OpenSSL and GmSSL write it.
pub fn signature_to_der(r: &[u8; 32], s: &[u8; 32]) -> Vec<u8> {
    der::seq(&[&der::uint(r), &der::uint(s)])
}

/// Parses a DER SM2 signature strictly. Anything other than a canonical
/// `SEQUENCE { r, s }` with 1 <= r, s < n and no trailing bytes is
/// [`Error::InvalidSignature`]: a malformed signature is just a signature that
/// does not verify.
pub fn signature_from_der(data: &[u8]) -> Result<([u8; 32], [u8; 32])> {
    let parse = || -> Result<([u8; 32], [u8; 32])> {
        let mut seq = der::Reader::new(der::single(data, der::SEQUENCE, "SM2 signature")?.value, "SM2 signature");
        let (mut r, mut s) = ([0u8; 32], [0u8; 32]);
        seq.unsigned_into("r", &mut r)?;
        seq.unsigned_into("s", &mut s)?;
        seq.finish("s")?;
        Ok((r, s))
    };
    let (r, s) = parse().map_err(|_| Error::InvalidSignature)?;
    for v in [&r, &s] {
        if v.iter().all(|&b| b == 0) || *v >= N {
            return Err(Error::InvalidSignature);
        }
    }
    Ok((r, s))
}

/// Encodes a ciphertext as GM/T 0009 `SM2Cipher` (`SEQUENCE { x INTEGER,
/// y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`),
/// which is what OpenSSL's and GmSSL's `pkeyutl -encrypt` write.
/// `c1` is the uncompressed point `04||x||y`.
pub fn cipher_to_der(c1: &[u8; 65], c3: &[u8; 32], c2: &[u8]) -> Result<Vec<u8>> {
    Ok(der::seq(&[&der::uint(&c1[1..33]), &der::uint(&c1[33..65]), &der::octets(c3), &der::octets(c2)]))
}

/// Parses GM/T 0009 `SM2Cipher` into (C1 = 04||x||y, C3, C2). Checks the
/// structure, that x and y are below p and that the hash is 32 bytes; the
/// curve check of C1 is the decryption's job.
pub fn cipher_from_der(data: &[u8]) -> Result<([u8; 65], [u8; 32], Vec<u8>)> {
    const W: &str = "SM2Cipher DER ciphertext";
    let mut c = der::Reader::new(der::single(data, der::SEQUENCE, W)?.value, W);
    // A magnitude over 32 bytes is above p as well.
    let below_p = |m: &[u8]| {
        let mut v = [0u8; 32];
        v[32usize.saturating_sub(m.len())..].copy_from_slice(&m[m.len().saturating_sub(32)..]);
        (m.len() <= 32 && v < P).then_some(v)
    };
    let (x, y) = (below_p(c.unsigned("x")?), below_p(c.unsigned("y")?));
    let (Some(x), Some(y)) = (x, y) else {
        return Err(Error::invalid(format!("invalid {W}: C1 coordinate is not below p")));
    };
    let hash = c.octets("hash (C3)")?;
    let ciphertext = c.octets("ciphertext (C2)")?;
    c.finish("ciphertext (C2)")?;
    let c3: [u8; 32] = hash
        .try_into()
        .map_err(|_| Error::invalid(format!("invalid {W}: hash (C3) must be 32 bytes, got {}", hash.len())))?;
    let mut c1 = [0u8; 65];
    c1[0] = 0x04;
    c1[1..33].copy_from_slice(&x);
    c1[33..].copy_from_slice(&y);
    Ok((c1, c3, ciphertext.to_vec()))
}
