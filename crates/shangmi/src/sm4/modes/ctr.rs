//! CTR with a full 128-bit big-endian counter: one-shot and streaming.

use zeroize::Zeroize;

use super::xor_in;
use crate::sm4::{Sm4, BLOCK_SIZE};
use crate::{Error, Result};

/// CTR keystream generator with a full 128-bit big-endian counter; usable
/// as a streaming context (any chunk sizes) or one-shot.
#[derive(Debug, Clone)]
pub struct CtrStream {
    cipher: Sm4,
    counter: u128,
    ks: [u8; 16],
    /// Used bytes of `ks` (16 = none left).
    used: usize,
}

impl CtrStream {
    /// Starts the keystream at the initial counter block `iv`.
    pub fn new(cipher: Sm4, iv: &[u8; 16]) -> Self {
        CtrStream { cipher, counter: u128::from_be_bytes(*iv), ks: [0; 16], used: BLOCK_SIZE }
    }

    /// XORs the keystream into `data`.
    pub fn apply(&mut self, mut data: &mut [u8]) {
        // Use up the leftover keystream from the previous call first.
        while self.used < BLOCK_SIZE && !data.is_empty() {
            data[0] ^= self.ks[self.used];
            self.used += 1;
            data = &mut data[1..];
        }
        let whole = data.len() - data.len() % BLOCK_SIZE;
        let (body, tail) = data.split_at_mut(whole);
        self.counter = self.cipher.ctr128_xor(self.counter, None, body);
        if !tail.is_empty() {
            self.ks = self.counter.to_be_bytes();
            self.counter = self.counter.wrapping_add(1);
            self.cipher.encrypt_block(&mut self.ks);
            xor_in(tail, &self.ks);
            self.used = tail.len();
        }
    }
}

impl Drop for CtrStream {
    fn drop(&mut self) {
        self.ks.zeroize();
    }
}

/// CTR encryption/decryption in place (128-bit big-endian counter from `iv`).
pub fn ctr_apply_in_place(c: &Sm4, iv: &[u8; 16], data: &mut [u8]) {
    CtrStream::new(c.clone(), iv).apply(data)
}

/// CTR encryption/decryption of `data` into `out` (same length): the SIMD
/// kernel reads `data` directly, which saves a copy-then-in-place pass.
pub fn ctr_apply_into(c: &Sm4, iv: &[u8; 16], data: &[u8], out: &mut [u8]) -> Result<()> {
    if out.len() != data.len() {
        return Err(Error::invalid("output buffer has the wrong length"));
    }
    let whole = data.len() - data.len() % BLOCK_SIZE;
    let (body, tail) = out.split_at_mut(whole);
    let next = c.ctr128_xor(u128::from_be_bytes(*iv), Some(&data[..whole]), body);
    tail.copy_from_slice(&data[whole..]);
    CtrStream::new(c.clone(), &next.to_be_bytes()).apply(tail);
    Ok(())
}
