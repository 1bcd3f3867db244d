//! The two SM2-specific DER structures: signatures (`SEQUENCE { r, s }`, as
//! GM/T 0009 and every X.509 SM2 signature) and GM/T 0009 `SM2Cipher`.

use der::asn1::{OctetStringRef, UintRef};
use der::{Decode, Encode, Sequence};

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

#[derive(Sequence)]
struct SignatureDer<'a> {
    r: UintRef<'a>,
    s: UintRef<'a>,
}

/// GM/T 0009-2012 section 7.2 `SM2Cipher`.
#[derive(Sequence)]
struct CipherDer<'a> {
    x: UintRef<'a>,
    y: UintRef<'a>,
    hash: OctetStringRef<'a>,
    ciphertext: OctetStringRef<'a>,
}

/// A DER INTEGER's magnitude as 32 big-endian bytes, if it fits.
fn to_32(u: &UintRef<'_>) -> Option<[u8; 32]> {
    let b = u.as_bytes();
    if b.len() > 32 {
        return None;
    }
    let mut out = [0u8; 32];
    out[32 - b.len()..].copy_from_slice(b);
    Some(out)
}

fn uint(b: &[u8; 32]) -> UintRef<'_> {
    // UintRef::new only fails for inputs longer than der's length limit.
    UintRef::new(b).expect("32-byte integer always encodes")
}

/// Encodes (r, s) as a DER `SEQUENCE { INTEGER r, INTEGER s }` with minimal
/// integers, as OpenSSL and GmSSL write it.
pub fn signature_to_der(r: &[u8; 32], s: &[u8; 32]) -> Vec<u8> {
    SignatureDer { r: uint(r), s: uint(s) }.to_der().expect("a 2-integer sequence always encodes")
}

/// Parses a DER SM2 signature strictly. Anything other than a canonical
/// `SEQUENCE { r, s }` with 1 <= r, s < n and no trailing bytes is
/// [`Error::InvalidSignature`]: a malformed signature is just a signature that
/// does not verify.
pub fn signature_from_der(der: &[u8]) -> Result<([u8; 32], [u8; 32])> {
    let sig = SignatureDer::from_der(der).map_err(|_| Error::InvalidSignature)?;
    let r = to_32(&sig.r).ok_or(Error::InvalidSignature)?;
    let s = to_32(&sig.s).ok_or(Error::InvalidSignature)?;
    for v in [&r, &s] {
        if v.iter().all(|&b| b == 0) || *v >= N {
            return Err(Error::InvalidSignature);
        }
    }
    Ok((r, s))
}

/// Encodes an SM2 ciphertext as GM/T 0009 `SM2Cipher`
/// (`SEQUENCE { x INTEGER, y INTEGER, hash OCTET STRING, ciphertext OCTET STRING }`),
/// which is what OpenSSL's and GmSSL's `pkeyutl -encrypt` write.
/// `c1` is the uncompressed point `04||x||y`.
pub fn cipher_to_der(c1: &[u8; 65], c3: &[u8; 32], c2: &[u8]) -> Result<Vec<u8>> {
    let mut x = [0u8; 32];
    let mut y = [0u8; 32];
    x.copy_from_slice(&c1[1..33]);
    y.copy_from_slice(&c1[33..65]);
    let c = CipherDer {
        x: uint(&x),
        y: uint(&y),
        hash: OctetStringRef::new(c3).map_err(|e| Error::invalid(format!("cannot encode C3: {e}")))?,
        ciphertext: OctetStringRef::new(c2)
            .map_err(|_| Error::invalid(format!("ciphertext too long for DER: {} bytes", c2.len())))?,
    };
    c.to_der().map_err(|e| Error::invalid(format!("cannot encode SM2Cipher: {e}")))
}

/// Parses GM/T 0009 `SM2Cipher` into (C1 = 04||x||y, C3, C2). Checks the
/// structure, that x and y are below p and that the hash is 32 bytes; the
/// curve check of C1 is the decryption's job.
pub fn cipher_from_der(der: &[u8]) -> Result<([u8; 65], [u8; 32], Vec<u8>)> {
    let c = CipherDer::from_der(der)
        .map_err(|e| Error::invalid(format!("invalid SM2Cipher DER ciphertext: {}", super::der_problem(&e))))?;
    let x = to_32(&c.x).filter(|x| *x < P);
    let y = to_32(&c.y).filter(|y| *y < P);
    let (Some(x), Some(y)) = (x, y) else {
        return Err(Error::invalid("invalid SM2Cipher DER ciphertext: C1 coordinate is not below p"));
    };
    let hash = c.hash.as_bytes();
    let c3: [u8; 32] = hash.try_into().map_err(|_| {
        Error::invalid(format!("invalid SM2Cipher DER ciphertext: hash (C3) must be 32 bytes, got {}", hash.len()))
    })?;
    let mut c1 = [0u8; 65];
    c1[0] = 0x04;
    c1[1..33].copy_from_slice(&x);
    c1[33..].copy_from_slice(&y);
    Ok((c1, c3, c.ciphertext.as_bytes().to_vec()))
}
