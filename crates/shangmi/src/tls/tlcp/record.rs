//! The TLCP record layer (GB/T 38636-2020 section 6.3): SM4-CBC with
//! HMAC-SM3 (MAC-then-encrypt, explicit IV) and SM4-GCM (explicit nonce).
//!
//! CBC record: `IV(16) ‖ SM4-CBC(IV, plaintext ‖ MAC(32) ‖ padding)`, where
//! MAC = HMAC-SM3(mac_key, seq(8) ‖ type ‖ version(2) ‖ length(2) ‖ plaintext)
//! and padding is `p+1` bytes of value `p` up to the block boundary.
//!
//! GCM record: `explicit(8) ‖ ciphertext ‖ tag(16)`, nonce = salt(4) ‖
//! explicit(8), AAD = seq(8) ‖ type ‖ version(2) ‖ plaintext length(2); we
//! send the sequence number as the explicit part (unique per key), and use
//! whatever 8 bytes the peer sent when opening.
//!
//! # The CBC contract (no padding oracle; Lucky13 is the model attack)
//!
//! [`RecordCipher::open`] of a CBC record reports exactly one error,
//! "bad record MAC", for a bad MAC, bad padding, or both, and its running
//! time and memory accesses depend only on the record's length (public),
//! never on the decrypted padding length or contents:
//! - the padding byte `p` is read, and every one of the last `min(256, L)`
//!   bytes is checked against it under a mask (`subtle`), so the check
//!   takes the same steps for every `p`; an invalid padding continues as
//!   `p = 0` with the failure recorded in a mask;
//! - the MAC is computed with SM3's compression function directly over the
//!   same number of blocks for every `p`: blocks that lie before the
//!   shortest possible message are hashed as they are; each later block up
//!   to the one the longest possible message ends in is built under masks
//!   (data, the 0x80 terminator, the bit length) and hashed, and the state
//!   after the block where the actual message ends is selected by mask;
//! - the received MAC is gathered from every candidate position under
//!   masks, and compared in constant time;
//! - only the one final bit (record accepted or not) is branched on.

use crate::sm3;
use crate::sm4::{Gcm, Sm4};
use crate::{Error, Result};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeLess};
use zeroize::{Zeroize, Zeroizing};

/// Largest plaintext fragment (2^14).
pub const MAX_PLAINTEXT: usize = 1 << 14;
/// Largest record fragment accepted (2^14 + 2048); beyond is record_overflow.
pub const MAX_CIPHERTEXT: usize = MAX_PLAINTEXT + 2048;
/// Record header: type, version, length.
pub(crate) const HEADER: usize = 5;

const MAC_LEN: usize = 32;
const VERSION: [u8; 2] = [0x01, 0x01];

/// SM3's initial value (GB/T 32905-2016 section 4.1), for the
/// constant-time MAC that drives the compression function itself.
const SM3_IV: [u32; 8] =
    [0x7380166f, 0x4914b2b9, 0x172442d7, 0xda8a0600, 0xa96f30bc, 0x163138aa, 0xe38dee4d, 0xb0fb0e4e];

/// The single error of every refused record.
pub(crate) fn bad_record_mac() -> Error {
    Error::Tls("bad record MAC".into())
}

/// One direction's record protection.
pub enum RecordCipher {
    /// SM4-CBC + HMAC-SM3.
    Cbc { mac_key: Zeroizing<[u8; 32]>, cipher: Box<Sm4> },
    /// SM4-GCM with a 4-byte implicit salt.
    Gcm { gcm: Box<Gcm>, salt: [u8; 4] },
}

impl std::fmt::Debug for RecordCipher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RecordCipher::Cbc { .. } => "RecordCipher::Cbc",
            RecordCipher::Gcm { .. } => "RecordCipher::Gcm",
        })
    }
}

fn header13(seq: u64, typ: u8, len: usize) -> [u8; 13] {
    let mut h = [0u8; 13];
    h[..8].copy_from_slice(&seq.to_be_bytes());
    h[8] = typ;
    h[9..11].copy_from_slice(&VERSION);
    h[11..13].copy_from_slice(&(len as u16).to_be_bytes());
    h
}

impl RecordCipher {
    /// CBC protection with a 32-byte MAC key and a 16-byte SM4 key.
    pub fn cbc(mac_key: &[u8], enc_key: &[u8]) -> Result<Self> {
        let mut mk = Zeroizing::new([0u8; 32]);
        if mac_key.len() != 32 {
            return Err(Error::invalid("TLCP CBC MAC key must be 32 bytes"));
        }
        mk.copy_from_slice(mac_key);
        Ok(RecordCipher::Cbc { mac_key: mk, cipher: Box::new(Sm4::from_slice(enc_key)?) })
    }

    /// GCM protection with a 16-byte SM4 key and 4-byte salt.
    pub fn gcm(key: &[u8], salt: &[u8]) -> Result<Self> {
        let salt: [u8; 4] = salt.try_into().map_err(|_| Error::invalid("TLCP GCM salt must be 4 bytes"))?;
        Ok(RecordCipher::Gcm { gcm: Box::new(Gcm::new(key, 16)?), salt })
    }

    /// Protects one record's plaintext (at most [`MAX_PLAINTEXT`] bytes);
    /// `iv` is the fresh random explicit IV of a CBC record (unused by GCM,
    /// whose explicit nonce is `seq`).
    pub fn seal(&self, seq: u64, typ: u8, plaintext: &[u8], iv: &[u8; 16]) -> Result<Vec<u8>> {
        if plaintext.len() > MAX_PLAINTEXT {
            return Err(Error::invalid("record plaintext longer than 2^14 bytes"));
        }
        let h = header13(seq, typ, plaintext.len());
        match self {
            RecordCipher::Cbc { mac_key, cipher } => {
                let mut mac = sm3::HmacSm3::new(&mac_key[..]);
                mac.update(&h);
                mac.update(plaintext);
                let tag = mac.finalize();
                let body = plaintext.len() + MAC_LEN;
                let pad = 15 - body % 16;
                let mut out = Vec::with_capacity(16 + body + pad + 1);
                out.extend_from_slice(iv);
                out.extend_from_slice(plaintext);
                out.extend_from_slice(&tag);
                out.resize(16 + body + pad + 1, pad as u8);
                let mut chain = *iv;
                cipher.cbc_encrypt_serial(&mut chain, &mut out[16..]);
                Ok(out)
            }
            RecordCipher::Gcm { gcm, salt } => {
                let explicit = seq.to_be_bytes();
                let mut nonce = [0u8; 12];
                nonce[..4].copy_from_slice(salt);
                nonce[4..].copy_from_slice(&explicit);
                let mut out = Vec::with_capacity(8 + plaintext.len() + 16);
                out.extend_from_slice(&explicit);
                out.extend_from_slice(plaintext);
                let tag = gcm.encrypt_in_place_detached(&nonce, &h, &mut out[8..])?;
                out.extend_from_slice(&tag);
                Ok(out)
            }
        }
    }

    /// Opens one record's fragment; every refusal is "bad record MAC".
    pub fn open(&self, seq: u64, typ: u8, fragment: &[u8]) -> Result<Vec<u8>> {
        match self {
            RecordCipher::Cbc { mac_key, cipher } => open_cbc(mac_key, cipher, seq, typ, fragment),
            RecordCipher::Gcm { gcm, salt } => {
                if fragment.len() < 8 + 16 {
                    return Err(bad_record_mac());
                }
                let n = fragment.len() - 24;
                let mut nonce = [0u8; 12];
                nonce[..4].copy_from_slice(salt);
                nonce[4..].copy_from_slice(&fragment[..8]);
                let h = header13(seq, typ, n);
                let mut buf = fragment[8..8 + n].to_vec();
                gcm.decrypt_in_place_detached(&nonce, &h, &mut buf, &fragment[8 + n..])
                    .map_err(|_| bad_record_mac())?;
                Ok(buf)
            }
        }
    }
}

/// A mask of all ones when `c`, else zero.
fn mask(c: Choice) -> u8 {
    0u8.wrapping_sub(c.unwrap_u8())
}

fn open_cbc(mac_key: &[u8; 32], cipher: &Sm4, seq: u64, typ: u8, fragment: &[u8]) -> Result<Vec<u8>> {
    // Public length checks: IV plus at least MAC + one padding byte, whole blocks.
    if fragment.len() < 16 + 48 || !(fragment.len() - 16).is_multiple_of(16) {
        return Err(bad_record_mac());
    }
    let l = fragment.len() - 16;
    let mut iv = [0u8; 16];
    iv.copy_from_slice(&fragment[..16]);
    let mut buf = Zeroizing::new(vec![0u8; l]);
    cipher.cbc_decrypt(&mut iv, Some(&fragment[16..]), &mut buf);

    // Padding: p = last byte; valid iff p + 1 + 32 <= l and the last p + 1
    // bytes all equal p. Checked over a fixed window.
    let p = buf[l - 1] as u32;
    let mut good = !(l as u32).ct_lt(&(p + 1 + MAC_LEN as u32));
    let window = l.min(256);
    for i in 0..window {
        let b = buf[l - 1 - i];
        let in_pad = !p.ct_lt(&(i as u32)); // i <= p
        good &= !in_pad | b.ct_eq(&(p as u8));
    }
    // On bad padding continue as p = 0 (the failure is in `good`).
    let p = u32::conditional_select(&0, &p, good) as usize;
    let content_len = l - MAC_LEN - 1 - p; // secret
    let max_len = l - MAC_LEN - 1; // public
    let min_len = max_len.saturating_sub(255); // public

    let computed = ct_hmac(mac_key, &header13(seq, typ, content_len), &buf[..max_len], content_len, min_len);

    // Gather the received MAC at offset content_len from every candidate position.
    let mut received = [0u8; MAC_LEN];
    for start in min_len..=max_len {
        let m = mask((start as u32).ct_eq(&(content_len as u32)));
        for (j, r) in received.iter_mut().enumerate() {
            *r |= buf[start + j] & m;
        }
    }
    let ok = good & computed.ct_eq(&received);
    // The accept/refuse bit is published; an accepted record's length is
    // the plaintext's, which the caller receives (`ctime` builds only).
    if crate::ctime::public_bool(ok) {
        crate::ctime::declassify(&content_len);
        // Read back through memory, whose shadow is now defined.
        let content_len = *core::hint::black_box(&content_len);
        let mut out = buf[..content_len].to_vec();
        buf.zeroize();
        out.shrink_to_fit();
        Ok(out)
    } else {
        Err(bad_record_mac())
    }
}

/// HMAC-SM3(key, header ‖ data[..len]) with work independent of `len`
/// (secret, in `min_len..=data.len()`): see the module notes.
fn ct_hmac(key: &[u8; 32], header: &[u8; 13], data: &[u8], len: usize, min_len: usize) -> [u8; 32] {
    let mut kb = Zeroizing::new([0u8; 64]);
    kb[..32].copy_from_slice(key);
    let mut pad = Zeroizing::new([0u8; 64]);
    for (p, k) in pad.iter_mut().zip(kb.iter()) {
        *p = k ^ 0x36;
    }
    let mut state = SM3_IV;
    sm3::compress_blocks(&mut state, &pad[..]);
    // The message after the key block: header ‖ data[..len], n bytes.
    let n = 13 + len;
    let n_min = 13 + min_len;
    let n_max = 13 + data.len();
    let byte_at = |i: usize| -> u8 {
        if i < 13 {
            header[i]
        } else {
            data[i - 13]
        }
    };
    // Whole blocks before the shortest message's end: public, hashed as is.
    let public_blocks = n_min / 64;
    let mut block = [0u8; 64];
    for b in 0..public_blocks {
        for (j, x) in block.iter_mut().enumerate() {
            *x = byte_at(b * 64 + j);
        }
        sm3::compress_blocks(&mut state, &block);
    }
    // The block holding the bit length: (n + 8) / 64, secret; the last
    // candidate is (n_max + 8) / 64.
    let final_block = ((n + 8) / 64) as u32;
    let last_block = (n_max + 8) / 64;
    let bits = ((64 + n) as u64) * 8;
    let bit_bytes = bits.to_be_bytes();
    let mut result = [0u32; 8];
    for b in public_blocks..=last_block {
        let is_final = (b as u32).ct_eq(&final_block);
        for (j, x) in block.iter_mut().enumerate() {
            let i = b * 64 + j;
            let d = if i < n_max { byte_at(i) } else { 0 };
            let before_end = (i as u32).ct_lt(&(n as u32));
            let at_end = (i as u32).ct_eq(&(n as u32));
            let mut v = (d & mask(before_end)) | (0x80 & mask(at_end));
            if j >= 56 {
                v |= bit_bytes[j - 56] & mask(is_final);
            }
            *x = v;
        }
        sm3::compress_blocks(&mut state, &block);
        for (r, s) in result.iter_mut().zip(state.iter()) {
            r.conditional_assign(s, is_final);
        }
    }
    block.zeroize();
    let mut inner = [0u8; 32];
    for (c, w) in inner.chunks_mut(4).zip(result.iter()) {
        c.copy_from_slice(&w.to_be_bytes());
    }
    for (p, k) in pad.iter_mut().zip(kb.iter()) {
        *p = k ^ 0x5c;
    }
    let tag = sm3::Sm3::new().chain(&pad[..]).chain(&inner).finalize();
    inner.zeroize();
    state.zeroize();
    result.zeroize();
    tag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_hmac_matches_hmac_sm3_for_every_length() {
        let key = [0x42u8; 32];
        let header = [7u8; 13];
        let data: Vec<u8> = (0..400u32).map(|i| (i * 31 + 5) as u8).collect();
        for max in [0usize, 1, 40, 50, 51, 55, 64, 119, 120, 300, 400] {
            let min = max.saturating_sub(255);
            for len in min..=max {
                let want = sm3::hmac(&key, &[&header[..], &data[..len]].concat());
                assert_eq!(ct_hmac(&key, &header, &data[..max], len, min), want, "max {max} len {len}");
            }
        }
    }
}
