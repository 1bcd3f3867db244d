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
    /// SM4-CBC + HMAC-SM3 (`mac` has absorbed the key blocks).
    Cbc { mac_key: Zeroizing<[u8; 32]>, mac: Box<sm3::HmacSm3>, cipher: Box<Sm4> },
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
        let mac = Box::new(sm3::HmacSm3::new(&mk[..]));
        Ok(RecordCipher::Cbc { mac_key: mk, mac, cipher: Box::new(Sm4::from_slice(enc_key)?) })
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
        match self {
            RecordCipher::Cbc { mac, cipher, .. } => {
                if plaintext.len() > MAX_PLAINTEXT {
                    return Err(Error::invalid("record plaintext longer than 2^14 bytes"));
                }
                let mut m = (**mac).clone();
                m.update(&header13(seq, typ, plaintext.len()));
                m.update(plaintext);
                let mut out = cbc_layout(plaintext, &m.finalize(), iv);
                let mut chain = *iv;
                cipher.cbc_encrypt_serial(&mut chain, &mut out[16..]);
                Ok(out)
            }
            RecordCipher::Gcm { .. } => Ok(self.seal_many(seq, typ, &[plaintext], &[*iv])?.pop().unwrap_or_default()),
        }
    }

    /// Protects consecutive records of one type, with sequence numbers
    /// `seq`, `seq + 1`, ... and `ivs` as in [`Self::seal`]; the same bytes
    /// as sealing each in turn. CBC records, whose MAC and encryption are
    /// serial within a record, are sealed side by side: their MACs on
    /// SM3's lanes ([`sm3::HmacSm3::finalize_many`]) and their encryptions
    /// on SM4's many-message CBC path (the one `cbc_encrypt_many` uses).
    pub fn seal_many(&self, seq: u64, typ: u8, plaintexts: &[&[u8]], ivs: &[[u8; 16]]) -> Result<Vec<Vec<u8>>> {
        if let ([p], [iv], RecordCipher::Cbc { .. }) = (plaintexts, ivs, self) {
            return Ok(vec![self.seal(seq, typ, p, iv)?]);
        }
        if plaintexts.len() != ivs.len() {
            return Err(Error::invalid("one explicit IV per record"));
        }
        if plaintexts.iter().any(|p| p.len() > MAX_PLAINTEXT) {
            return Err(Error::invalid("record plaintext longer than 2^14 bytes"));
        }
        let seqs = (0..plaintexts.len() as u64).map(|i| seq.wrapping_add(i));
        match self {
            RecordCipher::Cbc { mac, cipher, .. } => {
                let macs = seqs
                    .zip(plaintexts)
                    .map(|(s, p)| {
                        let mut m = (**mac).clone();
                        m.update(&header13(s, typ, p.len()));
                        m
                    })
                    .collect();
                let tags = sm3::HmacSm3::finalize_many(macs, plaintexts);
                let mut outs: Vec<Vec<u8>> =
                    plaintexts.iter().zip(&tags).zip(ivs).map(|((p, tag), iv)| cbc_layout(p, tag, iv)).collect();
                let mut chains: Vec<[u8; 16]> = ivs.to_vec();
                let mut bodies: Vec<&mut [u8]> = outs.iter_mut().map(|o| &mut o[16..]).collect();
                crate::sm4::cbc_encrypt_many_in_place(cipher, &mut chains, &mut bodies);
                chains.zeroize();
                Ok(outs)
            }
            RecordCipher::Gcm { gcm, salt } => seqs
                .zip(plaintexts)
                .map(|(s, p)| {
                    let explicit = s.to_be_bytes();
                    let mut nonce = [0u8; 12];
                    nonce[..4].copy_from_slice(salt);
                    nonce[4..].copy_from_slice(&explicit);
                    let mut out = Vec::with_capacity(8 + p.len() + 16);
                    out.extend_from_slice(&explicit);
                    out.extend_from_slice(p);
                    let tag = gcm.encrypt_in_place_detached(&nonce, &header13(s, typ, p.len()), &mut out[8..])?;
                    out.extend_from_slice(&tag);
                    Ok(out)
                })
                .collect(),
        }
    }

    /// Opens one record's fragment; every refusal is "bad record MAC".
    pub fn open(&self, seq: u64, typ: u8, fragment: &[u8]) -> Result<Vec<u8>> {
        self.open_many(seq, typ, &[fragment]).pop().unwrap_or_else(|| Err(bad_record_mac()))
    }

    /// Opens consecutive records of one type, with sequence numbers `seq`,
    /// `seq + 1`, ...: one result per fragment, each what [`Self::open`]
    /// gives. The whole blocks of CBC records' MACs that lie before any
    /// possible end of the message (public lengths) run side by side on
    /// SM3's lanes; the rest of each check is the constant-time one of the
    /// module notes, record by record.
    pub fn open_many(&self, seq: u64, typ: u8, fragments: &[&[u8]]) -> Vec<Result<Vec<u8>>> {
        let seqs = (0..fragments.len() as u64).map(|i| seq.wrapping_add(i));
        match self {
            RecordCipher::Cbc { mac_key, cipher, .. } => open_cbc_many(mac_key, cipher, seq, typ, fragments),
            RecordCipher::Gcm { gcm, salt } => seqs
                .zip(fragments)
                .map(|(s, fragment)| {
                    if fragment.len() < 8 + 16 {
                        return Err(bad_record_mac());
                    }
                    let n = fragment.len() - 24;
                    let mut nonce = [0u8; 12];
                    nonce[..4].copy_from_slice(salt);
                    nonce[4..].copy_from_slice(&fragment[..8]);
                    let h = header13(s, typ, n);
                    let mut buf = fragment[8..8 + n].to_vec();
                    gcm.decrypt_in_place_detached(&nonce, &h, &mut buf, &fragment[8 + n..])
                        .map_err(|_| bad_record_mac())?;
                    Ok(buf)
                })
                .collect(),
        }
    }
}

/// A CBC record before encryption: `iv ‖ plaintext ‖ tag ‖ padding`.
fn cbc_layout(plaintext: &[u8], tag: &[u8; MAC_LEN], iv: &[u8; 16]) -> Vec<u8> {
    let body = plaintext.len() + MAC_LEN;
    let pad = 15 - body % 16;
    let mut out = Vec::with_capacity(16 + body + pad + 1);
    out.extend_from_slice(iv);
    out.extend_from_slice(plaintext);
    out.extend_from_slice(tag);
    out.resize(16 + body + pad + 1, pad as u8);
    out
}

/// A mask of all ones when `c`, else zero.
fn mask(c: Choice) -> u8 {
    0u8.wrapping_sub(c.unwrap_u8())
}

/// One CBC record decrypted and its padding checked, waiting for its MAC.
struct Opened {
    buf: Zeroizing<Vec<u8>>,
    /// Padding valid (secret until the final bit).
    good: Choice,
    /// Plaintext length (secret): `max_len - p`.
    content_len: usize,
    /// Longest and shortest possible plaintext (public).
    max_len: usize,
    min_len: usize,
}

/// Decrypts one CBC record and checks its padding in constant time (module
/// notes); `None` for a fragment whose public length cannot be a record.
fn decrypt_cbc(cipher: &Sm4, fragment: &[u8]) -> Option<Opened> {
    // Public length checks: IV plus at least MAC + one padding byte, whole blocks.
    if fragment.len() < 16 + 48 || !(fragment.len() - 16).is_multiple_of(16) {
        return None;
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
    let max_len = l - MAC_LEN - 1; // public
    Some(Opened { buf, good, content_len: max_len - p, max_len, min_len: max_len.saturating_sub(255) })
}

fn open_cbc_many(mac_key: &[u8; 32], cipher: &Sm4, seq: u64, typ: u8, fragments: &[&[u8]]) -> Vec<Result<Vec<u8>>> {
    let opened: Vec<Option<Opened>> = fragments.iter().map(|f| decrypt_cbc(cipher, f)).collect();
    let headers: Vec<[u8; 13]> = opened
        .iter()
        .enumerate()
        .map(|(i, o)| header13(seq.wrapping_add(i as u64), typ, o.as_ref().map_or(0, |o| o.content_len)))
        .collect();
    let inputs: Vec<MacInput<'_>> = opened
        .iter()
        .zip(&headers)
        .filter_map(|(o, header)| {
            let o = o.as_ref()?;
            Some(MacInput { header, data: &o.buf[..o.max_len], len: o.content_len, min_len: o.min_len })
        })
        .collect();
    let mut computed = ct_hmac_many(mac_key, &inputs).into_iter();
    opened
        .into_iter()
        .map(|o| {
            let mut o = o.ok_or_else(bad_record_mac)?;
            let computed = computed.next().ok_or_else(bad_record_mac)?;
            check_mac(&mut o, &computed)
        })
        .collect()
}

/// Compares the received MAC (gathered from every candidate position under
/// masks) with `computed` in constant time, and returns the plaintext.
fn check_mac(o: &mut Opened, computed: &[u8; MAC_LEN]) -> Result<Vec<u8>> {
    let mut received = [0u8; MAC_LEN];
    for start in o.min_len..=o.max_len {
        let m = mask((start as u32).ct_eq(&(o.content_len as u32)));
        for (j, r) in received.iter_mut().enumerate() {
            *r |= o.buf[start + j] & m;
        }
    }
    let ok = o.good & computed.ct_eq(&received);
    // The accept/refuse bit is published; an accepted record's length is
    // the plaintext's, which the caller receives (`ctime` builds only).
    if crate::ctime::public_bool(ok) {
        crate::ctime::declassify(&o.content_len);
        // Read back through memory, whose shadow is now defined.
        let content_len = *core::hint::black_box(&o.content_len);
        let mut out = o.buf[..content_len].to_vec();
        o.buf.zeroize();
        out.shrink_to_fit();
        Ok(out)
    } else {
        Err(bad_record_mac())
    }
}

/// One record's MAC input: `header ‖ data[..len]`, with `len` secret in
/// `min_len..=data.len()`.
struct MacInput<'a> {
    header: &'a [u8; 13],
    data: &'a [u8],
    len: usize,
    min_len: usize,
}

impl MacInput<'_> {
    fn byte_at(&self, i: usize) -> u8 {
        if i < 13 {
            self.header[i]
        } else {
            self.data[i - 13]
        }
    }

    /// Whole blocks (after the key block) before the shortest message's
    /// end: public, hashed as they are.
    fn public_blocks(&self) -> usize {
        (13 + self.min_len) / 64
    }
}

/// HMAC-SM3(key, header ‖ data[..len]) of each input with work independent
/// of its `len`: see the module notes. The public blocks of all inputs but
/// the first (which holds the header) go through `sm3::compress_many`.
fn ct_hmac_many(key: &[u8; 32], inputs: &[MacInput<'_>]) -> Vec<[u8; 32]> {
    let mut kb = Zeroizing::new([0u8; 64]);
    kb[..32].copy_from_slice(key);
    let mut pad = Zeroizing::new([0u8; 64]);
    for (p, k) in pad.iter_mut().zip(kb.iter()) {
        *p = k ^ 0x36;
    }
    let mut keyed = SM3_IV;
    sm3::compress_blocks(&mut keyed, &pad[..]);
    let mut block = [0u8; 64];
    // Not `vec![keyed; n]`: it branches on whether the (secret) value is zero.
    let mut states: Vec<[u32; 8]> = inputs.iter().map(|_| keyed).collect();
    for (input, state) in inputs.iter().zip(states.iter_mut()) {
        if input.public_blocks() > 0 {
            for (j, x) in block.iter_mut().enumerate() {
                *x = input.byte_at(j);
            }
            sm3::compress_blocks(state, &block);
        }
    }
    // Blocks 1.. of the public part lie in data from offset 51 on.
    let rest: Vec<&[u8]> =
        inputs.iter().map(|m| &m.data[51.min(m.data.len())..][..64 * m.public_blocks().saturating_sub(1)]).collect();
    sm3::compress_many(&mut states, &rest);
    for p in pad.iter_mut().zip(kb.iter()) {
        *p.0 = p.1 ^ 0x5c;
    }
    let tags = inputs
        .iter()
        .zip(states.iter_mut())
        .map(|(input, state)| {
            let mut inner = ct_tail(input, state, &mut block);
            let tag = sm3::Sm3::new().chain(&pad[..]).chain(&inner).finalize();
            inner.zeroize();
            tag
        })
        .collect();
    block.zeroize();
    states.zeroize();
    keyed.zeroize();
    tags
}

/// The blocks of one MAC input from its first non-public block to the last
/// one the longest message can end in, each built under masks (data, the
/// 0x80 terminator, the bit length) and hashed; the state after the block
/// where the actual message ends is selected by mask. Returns the inner hash.
fn ct_tail(input: &MacInput<'_>, state: &mut [u32; 8], block: &mut [u8; 64]) -> [u8; 32] {
    // The message after the key block: header ‖ data[..len], n bytes.
    let n = 13 + input.len;
    let n_max = 13 + input.data.len();
    // The block holding the bit length: (n + 8) / 64, secret; the last
    // candidate is (n_max + 8) / 64.
    let final_block = ((n + 8) / 64) as u32;
    let last_block = (n_max + 8) / 64;
    let bits = ((64 + n) as u64) * 8;
    let bit_bytes = bits.to_be_bytes();
    let mut result = [0u32; 8];
    for b in input.public_blocks()..=last_block {
        let is_final = (b as u32).ct_eq(&final_block);
        for (j, x) in block.iter_mut().enumerate() {
            let i = b * 64 + j;
            let d = if i < n_max { input.byte_at(i) } else { 0 };
            let before_end = (i as u32).ct_lt(&(n as u32));
            let at_end = (i as u32).ct_eq(&(n as u32));
            let mut v = (d & mask(before_end)) | (0x80 & mask(at_end));
            if j >= 56 {
                v |= bit_bytes[j - 56] & mask(is_final);
            }
            *x = v;
        }
        sm3::compress_blocks(state, &block[..]);
        for (r, s) in result.iter_mut().zip(state.iter()) {
            r.conditional_assign(s, is_final);
        }
    }
    let mut inner = [0u8; 32];
    for (c, w) in inner.chunks_mut(4).zip(result.iter()) {
        c.copy_from_slice(&w.to_be_bytes());
    }
    result.zeroize();
    inner
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
                let input = MacInput { header: &header, data: &data[..max], len, min_len: min };
                assert_eq!(ct_hmac_many(&key, &[input]), [want], "max {max} len {len}");
            }
        }
    }

    /// Runs of records against one record at a time, both ways, with
    /// random lengths (empty, tiny, around the padding window, full), and
    /// a refused record inside a run refused alone while its neighbours
    /// open.
    #[test]
    fn runs_equal_one_record_at_a_time() {
        let mut next = crate::test_rng(0x5eed_0f7c_1c00);
        let cbc = RecordCipher::cbc(&[3u8; 32], &[4u8; 16]).unwrap();
        let gcm = RecordCipher::gcm(&[5u8; 16], &[6u8; 4]).unwrap();
        for rc in [&cbc, &gcm] {
            for n in [2usize, 3, 16, 17, 33] {
                let lens: Vec<usize> = (0..n)
                    .map(|i| match i % 4 {
                        0 => MAX_PLAINTEXT,
                        1 => (next() % 300) as usize,
                        _ => (next() % MAX_PLAINTEXT as u64) as usize,
                    })
                    .collect();
                let pts: Vec<Vec<u8>> = lens.iter().map(|&l| (0..l).map(|_| next() as u8).collect()).collect();
                let refs: Vec<&[u8]> = pts.iter().map(|p| &p[..]).collect();
                let ivs: Vec<[u8; 16]> = (0..n).map(|_| [next() as u8; 16]).collect();
                let seq = 1000 + n as u64;
                let many = rc.seal_many(seq, 23, &refs, &ivs).unwrap();
                for (i, f) in many.iter().enumerate() {
                    assert_eq!(*f, rc.seal(seq + i as u64, 23, &pts[i], &ivs[i]).unwrap(), "{rc:?} record {i} of {n}");
                }
                let mut frags = many.clone();
                let bad = (next() as usize) % n;
                let at = (next() as usize) % frags[bad].len();
                frags[bad][at] ^= 1;
                let frefs: Vec<&[u8]> = frags.iter().map(|f| &f[..]).collect();
                for (i, r) in rc.open_many(seq, 23, &frefs).into_iter().enumerate() {
                    if i == bad {
                        assert!(r.is_err(), "{rc:?} tampered record {i} opened");
                    } else {
                        assert_eq!(r.unwrap(), pts[i], "{rc:?} record {i} of {n}");
                    }
                }
            }
        }
    }
}
