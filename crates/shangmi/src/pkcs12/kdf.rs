//! The PKCS#12 key derivation (RFC 7292 appendix B.2) and the digests and
//! HMACs PKCS#12 MACs name: SHA-1 (almost every real file), SHA-256
//! (OpenSSL 3's default) and SM3 (BouncyCastle's all-ShangMi files,
//! `openssl pkcs12 -macalg SM3`).

use zeroize::Zeroizing;

use crate::encoding::oid::{self, ObjectIdentifier};
use crate::{Error, Result};

/// A digest usable by the PKCS#12 KDF and the MAC. All three have 64-byte
/// blocks (the KDF's `v`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Digest {
    Sha1,
    Sha256,
    Sm3,
}

/// The KDF's block size `v` for every supported digest.
const V: usize = 64;

/// Purpose bytes of RFC 7292 B.3.
pub(crate) const ID_KEY: u8 = 1;
pub(crate) const ID_IV: u8 = 2;
pub(crate) const ID_MAC: u8 = 3;

impl Digest {
    /// The digest an OID names, if supported.
    pub(crate) fn from_oid(o: &ObjectIdentifier) -> Option<Digest> {
        if *o == oid::SHA1 {
            Some(Digest::Sha1)
        } else if *o == oid::SHA256 {
            Some(Digest::Sha256)
        } else if *o == oid::SM3 {
            Some(Digest::Sm3)
        } else {
            None
        }
    }

    pub(crate) fn oid(self) -> ObjectIdentifier {
        match self {
            Digest::Sha1 => oid::SHA1,
            Digest::Sha256 => oid::SHA256,
            Digest::Sm3 => oid::SM3,
        }
    }

    pub(crate) fn out_len(self) -> usize {
        match self {
            Digest::Sha1 => 20,
            Digest::Sha256 | Digest::Sm3 => 32,
        }
    }

    fn hash(self, parts: &[&[u8]]) -> Zeroizing<Vec<u8>> {
        use sha2::Digest as _;
        Zeroizing::new(match self {
            Digest::Sha1 => {
                let mut h = sha1::Sha1::new();
                parts.iter().for_each(|p| h.update(p));
                h.finalize().to_vec()
            }
            Digest::Sha256 => {
                let mut h = sha2::Sha256::new();
                parts.iter().for_each(|p| h.update(p));
                h.finalize().to_vec()
            }
            Digest::Sm3 => crate::sm3::hash_parts(parts).to_vec(),
        })
    }

    /// HMAC with this digest.
    pub(crate) fn hmac(self, key: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        use hmac::Mac;
        let bad = |_| Error::invalid("HMAC key");
        Ok(match self {
            Digest::Sha1 => {
                let mut m = hmac::Hmac::<sha1::Sha1>::new_from_slice(key).map_err(bad)?;
                m.update(data);
                m.finalize().into_bytes().to_vec()
            }
            Digest::Sha256 => {
                let mut m = hmac::Hmac::<sha2::Sha256>::new_from_slice(key).map_err(bad)?;
                m.update(data);
                m.finalize().into_bytes().to_vec()
            }
            Digest::Sm3 => crate::sm3::hmac(key, data).to_vec(),
        })
    }
}

/// The password as the PKCS#12 KDF takes it (RFC 7292 B.1): a BMPString
/// (UTF-16BE) with two trailing zero bytes. `utf8` that is not UTF-8 is
/// taken byte by byte (each byte one code unit), as OpenSSL's ASCII variant
/// does. The conversion's timing follows the password's UTF-8 structure
/// (how many multi-byte characters it has), as in every PKCS#12
/// implementation: the format fixes this encoding. The derivation below
/// runs over lengths only.
pub(crate) fn bmp_password(utf8: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut out = Zeroizing::new(Vec::with_capacity(utf8.len() * 2 + 2));
    match std::str::from_utf8(utf8) {
        Ok(s) => s.encode_utf16().for_each(|u| out.extend_from_slice(&u.to_be_bytes())),
        Err(_) => utf8.iter().for_each(|&b| out.extend_from_slice(&[0, b])),
    }
    out.extend_from_slice(&[0, 0]);
    out
}

/// `v` bytes' worth of copies of `x` (rounded up to a multiple of `v`), or
/// nothing when `x` is empty.
fn stretch(x: &[u8]) -> Zeroizing<Vec<u8>> {
    if x.is_empty() {
        return Zeroizing::new(Vec::new());
    }
    let len = V * x.len().div_ceil(V);
    Zeroizing::new((0..len).map(|i| x[i % x.len()]).collect())
}

/// RFC 7292 B.2: `n` bytes for purpose `id` from the BMP password, the salt
/// and `iterations` (>= 1). The loops run over the public lengths only.
pub(crate) fn derive(
    h: Digest,
    id: u8,
    bmp_password: &[u8],
    salt: &[u8],
    iterations: u32,
    n: usize,
) -> Zeroizing<Vec<u8>> {
    let u = h.out_len();
    let d = [id; V];
    let mut i_buf = stretch(salt);
    i_buf.extend_from_slice(&stretch(bmp_password));
    let mut out = Zeroizing::new(Vec::with_capacity(n));
    loop {
        let mut a = h.hash(&[&d, &i_buf]);
        for _ in 1..iterations {
            a = h.hash(&[&a]);
        }
        let take = (n - out.len()).min(u);
        out.extend_from_slice(&a[..take]);
        if out.len() >= n {
            return out;
        }
        let b: Zeroizing<Vec<u8>> = Zeroizing::new((0..V).map(|k| a[k % u]).collect());
        for block in i_buf.chunks_mut(V) {
            // block = (block + B + 1) mod 2^(8v), big-endian.
            let mut carry = 1u16;
            for k in (0..V).rev() {
                let s = u16::from(block[k]) + u16::from(b[k]) + carry;
                block[k] = s as u8;
                carry = s >> 8;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// Known answers of the PKCS#12 KDF from BouncyCastle's PKCS12Test /
    /// pyca's test_pkcs12 KDF vectors (password "smeg", SHA-1).
    #[test]
    fn sha1_known_answers() {
        let pw = bmp_password(b"smeg");
        let salt = unhex("0A58CF64530D823F");
        assert_eq!(
            derive(Digest::Sha1, ID_KEY, &pw, &salt, 1, 24).as_slice(),
            unhex("8AAAE6297B6CB04642AB5B077851284EB7128F1A2A7FBCA3").as_slice()
        );
        assert_eq!(derive(Digest::Sha1, ID_IV, &pw, &salt, 1, 8).as_slice(), unhex("79993DFE048D3B76").as_slice());
    }

    #[test]
    fn bmp_encoding() {
        assert_eq!(bmp_password(b"").as_slice(), &[0, 0]);
        assert_eq!(bmp_password("密".as_bytes()).as_slice(), &[0x5b, 0xc6, 0, 0]);
    }
}
