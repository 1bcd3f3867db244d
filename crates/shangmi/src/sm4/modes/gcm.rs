//! SM4-GCM (NIST SP 800-38D; RFC 8998 for SM4): any nonce of at least one
//! byte, tags of 4, 8 or 12..=16 bytes, one-shot and streaming.

use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use crate::sm4::ghash::Ghash;
use crate::sm4::{Sm4, BLOCK_SIZE};
use crate::{Error, Result};

/// Bytes encrypted and then hashed per step: half of a 32 KiB L1d, so the
/// chunk stays in L1 between the CTR and GHASH passes while each pass's
/// per-call setup is spread over many blocks; a multiple of the AES-NI
/// kernel's 64-block step (1024 bytes) and of GHASH's 16-block step.
const CHUNK: usize = 16 * 1024;

/// Longest plaintext GCM allows: 2^39 - 256 bits.
const MAX_DATA: u64 = (1 << 36) - 32;

fn check_tag_len(n: usize) -> Result<()> {
    if matches!(n, 4 | 8 | 12..=16) {
        Ok(())
    } else {
        Err(Error::invalid(format!("GCM tag length must be 4, 8 or 12 to 16 bytes, got {n}")))
    }
}

/// SM4-GCM under one key with a fixed tag length.
#[derive(Clone)]
pub struct Gcm {
    cipher: Sm4,
    /// GHASH keyed with H (and its powers), cloned for each message.
    ghash: Ghash,
    tag_len: usize,
}

impl std::fmt::Debug for Gcm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gcm").field("cipher", &self.cipher).field("tag_len", &self.tag_len).finish_non_exhaustive()
    }
}

impl Gcm {
    /// Builds GCM from a 16-byte key and a tag length (4, 8, 12..=16).
    pub fn new(key: &[u8], tag_len: usize) -> Result<Gcm> {
        check_tag_len(tag_len)?;
        Ok(Self::with_cipher(Sm4::from_slice(key)?, tag_len))
    }

    /// Builds GCM from an expanded key (any backend); tag length unchecked
    /// beyond clamping to 16.
    pub fn with_cipher(cipher: Sm4, tag_len: usize) -> Gcm {
        let mut h = [0u8; 16];
        cipher.encrypt_block(&mut h);
        let ghash = Ghash::new(&h);
        h.zeroize();
        Gcm { cipher, ghash, tag_len: tag_len.min(16) }
    }

    /// Tag length in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// The plaintext length of a `ct_and_tag_len`-byte ciphertext-and-tag
    /// under `nonce`: [`Error::InvalidInput`] for an empty nonce (checked
    /// first, so that error is reported whatever the data), then
    /// [`Error::InvalidTag`] when the input is shorter than a tag.
    pub fn plaintext_len(&self, nonce: &[u8], ct_and_tag_len: usize) -> Result<usize> {
        check_nonce(nonce)?;
        ct_and_tag_len.checked_sub(self.tag_len).ok_or(Error::InvalidTag)
    }

    fn start(&self, nonce: &[u8], aad: &[u8]) -> Result<GcmState> {
        check_nonce(nonce)?;
        let mut j0 = [0u8; 16];
        if nonce.len() == 12 {
            j0[..12].copy_from_slice(nonce);
            j0[15] = 1;
        } else {
            let mut g = self.ghash.clone();
            g.update_padded(nonce);
            let mut lens = [0u8; 16];
            lens[8..].copy_from_slice(&((nonce.len() as u64) * 8).to_be_bytes());
            g.update_blocks(&lens);
            j0 = g.value();
        }
        let mut ek0 = j0;
        self.cipher.encrypt_block(&mut ek0);
        let mut ghash = self.ghash.clone();
        ghash.update_padded(aad);
        let ctr = u32::from_be_bytes([j0[12], j0[13], j0[14], j0[15]]).wrapping_add(1);
        Ok(GcmState {
            cipher: self.cipher.clone(),
            ghash,
            prefix: [j0[0], j0[1], j0[2], j0[3], j0[4], j0[5], j0[6], j0[7], j0[8], j0[9], j0[10], j0[11]],
            ctr,
            ks: [0; 16],
            used: BLOCK_SIZE,
            pending: [0; 16],
            npending: 0,
            aad_len: aad.len() as u64,
            data_len: 0,
            ek0,
            tag_len: self.tag_len,
        })
    }

    /// Encrypts `buf` in place and returns the full 16-byte tag (truncate to `tag_len`).
    pub fn encrypt_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16]> {
        let mut st = self.start(nonce, aad)?;
        st.encrypt_in_place(buf)?;
        Ok(st.tag())
    }

    /// Encrypts `data` into `out` (same length) and returns the full 16-byte
    /// tag. The input is copied one L1-sized chunk at a time, right before
    /// that chunk is encrypted and hashed, instead of in a separate pass over
    /// the whole buffer first.
    pub fn encrypt_into_detached(&self, nonce: &[u8], aad: &[u8], data: &[u8], out: &mut [u8]) -> Result<[u8; 16]> {
        if out.len() != data.len() {
            return Err(Error::invalid("output buffer has the wrong length"));
        }
        let mut st = self.start(nonce, aad)?;
        st.count(data.len())?;
        for (src, chunk) in data.chunks(CHUNK).zip(out.chunks_mut(CHUNK)) {
            chunk.copy_from_slice(src);
            st.keystream(chunk);
            st.absorb(chunk);
        }
        Ok(st.tag())
    }

    /// Checks `tag` (constant time) and, only if it matches, decrypts `buf` in place.
    pub fn decrypt_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTag);
        }
        let mut st = self.start(nonce, aad)?;
        // Authenticate first, then decrypt: no plaintext exists unless the tag is right.
        st.absorb_ciphertext(buf)?;
        let full = st.tag();
        if !crate::ctime::public_bool(full[..self.tag_len].ct_eq(tag)) {
            return Err(Error::InvalidTag);
        }
        st.keystream(buf);
        Ok(())
    }

    /// One-shot encryption: ciphertext || tag.
    pub fn encrypt(&self, nonce: &[u8], aad: &[u8], data: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(data.len() + self.tag_len);
        out.extend_from_slice(data);
        let tag = self.encrypt_in_place_detached(nonce, aad, &mut out)?;
        out.extend_from_slice(&tag[..self.tag_len]);
        Ok(out)
    }

    /// One-shot decryption of ciphertext || tag; [`Error::InvalidTag`] on mismatch.
    pub fn decrypt(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        if ct_and_tag.len() < self.tag_len {
            return Err(Error::InvalidTag);
        }
        let (ct, tag) = ct_and_tag.split_at(ct_and_tag.len() - self.tag_len);
        let mut out = ct.to_vec();
        self.decrypt_in_place_detached(nonce, aad, &mut out, tag)?;
        Ok(out)
    }

    /// Streaming encryption context.
    pub fn encryptor(&self, nonce: &[u8], aad: &[u8]) -> Result<GcmEncryptor> {
        Ok(GcmEncryptor(self.start(nonce, aad)?))
    }

    /// Streaming decryption context. `update` returns plaintext before the tag
    /// is checked (as pyca's streaming GCM does): callers must discard it if
    /// `finalize` fails.
    pub fn decryptor(&self, nonce: &[u8], aad: &[u8]) -> Result<GcmDecryptor> {
        Ok(GcmDecryptor(self.start(nonce, aad)?))
    }
}

fn check_nonce(nonce: &[u8]) -> Result<()> {
    if nonce.is_empty() {
        return Err(Error::invalid("GCM nonce must be at least 1 byte, got 0"));
    }
    Ok(())
}

#[derive(Clone)]
struct GcmState {
    cipher: Sm4,
    ghash: Ghash,
    prefix: [u8; 12],
    ctr: u32,
    ks: [u8; 16],
    used: usize,
    /// Ciphertext bytes not yet absorbed by GHASH (less than a block).
    pending: [u8; 16],
    npending: usize,
    aad_len: u64,
    data_len: u64,
    ek0: [u8; 16],
    tag_len: usize,
}

impl Drop for GcmState {
    fn drop(&mut self) {
        self.ks.zeroize();
        self.pending.zeroize();
        self.ek0.zeroize();
    }
}

impl GcmState {
    fn count(&mut self, n: usize) -> Result<()> {
        let total = self.data_len.saturating_add(n as u64);
        if total > MAX_DATA {
            return Err(Error::invalid("GCM data too long: at most 2^36 - 32 bytes per nonce"));
        }
        self.data_len = total;
        Ok(())
    }

    /// XORs the counter-mode keystream (32-bit counter, as GCM specifies).
    fn keystream(&mut self, mut data: &mut [u8]) {
        while self.used < BLOCK_SIZE && !data.is_empty() {
            data[0] ^= self.ks[self.used];
            self.used += 1;
            data = &mut data[1..];
        }
        let whole = data.len() - data.len() % BLOCK_SIZE;
        let (body, tail) = data.split_at_mut(whole);
        self.ctr = self.cipher.ctr32_xor(&self.prefix, self.ctr, body);
        if !tail.is_empty() {
            self.ks[..12].copy_from_slice(&self.prefix);
            self.ks[12..].copy_from_slice(&self.ctr.to_be_bytes());
            self.ctr = self.ctr.wrapping_add(1);
            self.cipher.encrypt_block(&mut self.ks);
            for (d, k) in tail.iter_mut().zip(self.ks.iter()) {
                *d ^= k;
            }
            self.used = tail.len();
        }
    }

    /// Feeds ciphertext to GHASH, buffering a partial block between calls.
    fn absorb(&mut self, mut ct: &[u8]) {
        if self.npending > 0 {
            let take = (BLOCK_SIZE - self.npending).min(ct.len());
            self.pending[self.npending..self.npending + take].copy_from_slice(&ct[..take]);
            self.npending += take;
            ct = &ct[take..];
            if self.npending < BLOCK_SIZE {
                return;
            }
            let p = self.pending;
            self.ghash.update_blocks(&p);
            self.npending = 0;
        }
        let whole = ct.len() - ct.len() % BLOCK_SIZE;
        self.ghash.update_blocks(&ct[..whole]);
        let rest = &ct[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.npending = rest.len();
    }

    fn absorb_ciphertext(&mut self, ct: &[u8]) -> Result<()> {
        self.count(ct.len())?;
        self.absorb(ct);
        Ok(())
    }

    fn encrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.count(buf.len())?;
        for chunk in buf.chunks_mut(CHUNK) {
            self.keystream(chunk);
            self.absorb(chunk);
        }
        Ok(())
    }

    fn decrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.count(buf.len())?;
        for chunk in buf.chunks_mut(CHUNK) {
            self.absorb(chunk);
            self.keystream(chunk);
        }
        Ok(())
    }

    /// Finishes GHASH with the lengths block and returns the full tag.
    fn tag(&mut self) -> [u8; 16] {
        if self.npending > 0 {
            let n = self.npending;
            let mut p = self.pending;
            p[n..].fill(0);
            self.ghash.update_blocks(&p);
            self.npending = 0;
        }
        let mut lens = [0u8; 16];
        lens[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        lens[8..].copy_from_slice(&(self.data_len * 8).to_be_bytes());
        self.ghash.update_blocks(&lens);
        let mut t = self.ghash.value();
        for (a, b) in t.iter_mut().zip(self.ek0.iter()) {
            *a ^= b;
        }
        t
    }
}

/// Streaming SM4-GCM encryption.
#[derive(Clone)]
pub struct GcmEncryptor(GcmState);

impl std::fmt::Debug for GcmEncryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GcmEncryptor").finish_non_exhaustive()
    }
}

impl GcmEncryptor {
    /// Encrypts the next piece in place.
    pub fn update_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.0.encrypt_in_place(buf)
    }

    /// Returns the tag (`tag_len` bytes).
    pub fn finalize(mut self) -> Vec<u8> {
        let n = self.0.tag_len;
        self.0.tag()[..n].to_vec()
    }
}

/// Streaming SM4-GCM decryption; `finalize` checks the tag in constant time.
#[derive(Clone)]
pub struct GcmDecryptor(GcmState);

impl std::fmt::Debug for GcmDecryptor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GcmDecryptor").finish_non_exhaustive()
    }
}

impl GcmDecryptor {
    /// Decrypts the next piece in place (the plaintext is unauthenticated until `finalize`).
    pub fn update_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.0.decrypt_in_place(buf)
    }

    /// Checks the tag; [`Error::InvalidTag`] if it does not match.
    pub fn finalize(mut self, tag: &[u8]) -> Result<()> {
        let n = self.0.tag_len;
        let full = self.0.tag();
        if tag.len() == n && crate::ctime::public_bool(full[..n].ct_eq(tag)) {
            Ok(())
        } else {
            Err(Error::InvalidTag)
        }
    }
}
