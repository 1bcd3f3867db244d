//! GmSSL's DER for SM9 signatures and ciphertexts, on bytes alone: the
//! schemes in `crate::sm9` call these, and this module names none of their
//! types, so the dependency runs one way (sm9 -> wire, encoding::sm9 -> sm9).
//!
//! signature `SEQUENCE { h OCTET STRING, S BIT STRING }`;
//! ciphertext `SEQUENCE { EnType INTEGER, C1 BIT STRING, C3 OCTET STRING, C2 OCTET STRING }`.

use crate::encoding::der::{self, Reader};
use crate::Result;

/// GmSSL's signature DER of h and the encoded S (04‖x‖y).
pub fn signature_to_der(h: &[u8; 32], s: &[u8]) -> Vec<u8> {
    der::seq(&[&der::octets(h), &der::bits(s)])
}

/// (h, encoded S) of GmSSL's signature DER; S is the caller's to decode.
pub fn signature_from_der(data: &[u8]) -> Result<([u8; 32], &[u8])> {
    const W: &str = "SM9 DER signature";
    let mut r = Reader::new(der::single(data, der::SEQUENCE, W)?.value, W);
    let h = r.octets("h")?;
    let s = r.bits("S")?;
    r.finish("S")?;
    let h: [u8; 32] = h.try_into().map_err(|_| r.err(format!("h must be 32 bytes, got {}", h.len())))?;
    Ok((h, s))
}

/// GmSSL's ciphertext DER: `EnType` (the cipher's number), C1 (04‖x‖y), C3, C2.
pub fn cipher_to_der(en_type: u8, c1: &[u8], c3: &[u8], c2: &[u8]) -> Vec<u8> {
    der::seq(&[&der::small_int(en_type.into()), &der::bits(c1), &der::octets(c3), &der::octets(c2)])
}

/// The parts of GmSSL's ciphertext DER, borrowed from it.
#[derive(Clone, Copy, Debug)]
pub struct CipherParts<'a> {
    /// EnType: the cipher's number (GmSSL's: 0 XOR, 1 SM4-ECB, 2 SM4-CBC).
    pub en_type: u64,
    /// C1, 04‖x‖y (decoding and validation are the decryption's).
    pub c1: &'a [u8],
    /// C3, 32 bytes.
    pub c3: &'a [u8],
    /// C2.
    pub c2: &'a [u8],
}

/// The parts of GmSSL's ciphertext DER, C3 checked to be 32 bytes; `None`
/// for any defect (decryption reports one opaque failure).
pub fn cipher_from_der(data: &[u8]) -> Option<CipherParts<'_>> {
    const W: &str = "SM9 ciphertext";
    let mut r = Reader::new(der::single(data, der::SEQUENCE, W).ok()?.value, W);
    let t = r.small_uint("EnType").ok()?;
    let c1 = r.bits("C1").ok()?;
    let c3 = r.octets("C3").ok()?;
    let c2 = r.octets("C2").ok()?;
    r.finish("C2").ok()?;
    (c3.len() == 32).then_some(CipherParts { en_type: t, c1, c3, c2 })
}
