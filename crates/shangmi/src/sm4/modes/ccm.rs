//! SM4-CCM (NIST SP 800-38C / RFC 3610; RFC 8998 for SM4): nonces of 7 to 13
//! bytes, tags of 4 to 16 bytes (even).

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::ctr::CtrStream;
use crate::sm4::{Sm4, BLOCK_SIZE};
use crate::{Error, Result};

/// SM4-CCM under one key with a fixed tag length.
#[derive(Clone, Debug)]
pub struct Ccm {
    cipher: Sm4,
    tag_len: usize,
}

impl Ccm {
    /// Builds CCM from a 16-byte key and a tag length (4, 6, ..., 16).
    pub fn new(key: &[u8], tag_len: usize) -> Result<Ccm> {
        if !(4..=16).contains(&tag_len) || !tag_len.is_multiple_of(2) {
            return Err(Error::invalid(format!(
                "CCM tag length must be an even number from 4 to 16 bytes, got {tag_len}"
            )));
        }
        Ok(Ccm { cipher: Sm4::from_slice(key)?, tag_len })
    }

    /// Builds CCM from an expanded key (tests of explicit backends).
    pub fn with_cipher(cipher: Sm4, tag_len: usize) -> Result<Ccm> {
        let mut c = Ccm::new(&[0u8; 16], tag_len)?;
        c.cipher = cipher;
        Ok(c)
    }

    /// Tag length in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    fn check(&self, nonce: &[u8], len: usize) -> Result<usize> {
        if !(7..=13).contains(&nonce.len()) {
            return Err(Error::invalid(format!("CCM nonce must be 7 to 13 bytes, got {}", nonce.len())));
        }
        let q = 15 - nonce.len();
        if q < 8 && (len as u64) >> (8 * q) != 0 {
            return Err(Error::invalid(format!(
                "CCM data too long for a {}-byte nonce: {len} bytes, at most {}",
                nonce.len(),
                (1u64 << (8 * q)) - 1
            )));
        }
        Ok(q)
    }

    fn mac(&self, nonce: &[u8], q: usize, aad: &[u8], data: &[u8]) -> [u8; 16] {
        let mut x = [0u8; 16];
        x[0] = (u8::from(!aad.is_empty()) << 6) | ((((self.tag_len - 2) / 2) as u8) << 3) | (q as u8 - 1);
        x[1..1 + nonce.len()].copy_from_slice(nonce);
        x[16 - q..].copy_from_slice(&(data.len() as u64).to_be_bytes()[8 - q..]);
        self.cipher.encrypt_block(&mut x);
        let absorb = |bytes: &[u8], x: &mut [u8; 16]| {
            for block in bytes.chunks(BLOCK_SIZE) {
                for (a, b) in x.iter_mut().zip(block) {
                    *a ^= b;
                }
                self.cipher.encrypt_block(x);
            }
        };
        if !aad.is_empty() {
            // Length prefix of the associated data, then the data, zero-padded.
            let a = aad.len() as u64;
            let mut enc = Vec::with_capacity(aad.len() + 10);
            if a < 0xff00 {
                enc.extend_from_slice(&(a as u16).to_be_bytes());
            } else if a <= u32::MAX as u64 {
                enc.extend_from_slice(&[0xff, 0xfe]);
                enc.extend_from_slice(&(a as u32).to_be_bytes());
            } else {
                enc.extend_from_slice(&[0xff, 0xff]);
                enc.extend_from_slice(&a.to_be_bytes());
            }
            enc.extend_from_slice(aad);
            absorb(&enc, &mut x);
        }
        absorb(data, &mut x);
        x
    }

    fn counter(&self, nonce: &[u8], q: usize, i: u8) -> [u8; 16] {
        let mut a = [0u8; 16];
        a[0] = q as u8 - 1;
        a[1..1 + nonce.len()].copy_from_slice(nonce);
        a[15] = i;
        a
    }

    /// One-shot encryption: ciphertext || tag.
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let q = self.check(nonce, data.len())?;
        let mut t = self.mac(nonce, q, aad, data);
        let mut s0 = self.counter(nonce, q, 0);
        self.cipher.encrypt_block(&mut s0);
        let mut out = Vec::with_capacity(data.len() + self.tag_len);
        out.extend_from_slice(data);
        CtrStream::new(self.cipher.clone(), &self.counter(nonce, q, 1)).apply(&mut out);
        for (a, b) in t.iter_mut().zip(s0.iter()) {
            *a ^= b;
        }
        out.extend_from_slice(&t[..self.tag_len]);
        t.zeroize();
        s0.zeroize();
        Ok(out)
    }

    /// One-shot decryption of ciphertext || tag; [`Error::InvalidTag`] on mismatch.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        if ct_and_tag.len() < self.tag_len {
            // Still validate the nonce so that size errors are reported as such.
            self.check(nonce, 0)?;
            return Err(Error::InvalidTag);
        }
        let (ct, tag) = ct_and_tag.split_at(ct_and_tag.len() - self.tag_len);
        let q = self.check(nonce, ct.len())?;
        let mut out = ct.to_vec();
        CtrStream::new(self.cipher.clone(), &self.counter(nonce, q, 1)).apply(&mut out);
        let mut t = self.mac(nonce, q, aad, &out);
        let mut s0 = self.counter(nonce, q, 0);
        self.cipher.encrypt_block(&mut s0);
        for (a, b) in t.iter_mut().zip(s0.iter()) {
            *a ^= b;
        }
        let ok = crate::ctime::public_bool(t[..self.tag_len].ct_eq(tag));
        t.zeroize();
        s0.zeroize();
        if ok {
            Ok(out)
        } else {
            out.zeroize();
            Err(Error::InvalidTag)
        }
    }
}
