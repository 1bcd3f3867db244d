//! CFB-128 and OFB.

use zeroize::Zeroize;

use super::consts::CHUNK;
use super::xor_in;
use crate::sm4::{Sm4, BLOCK_SIZE};

/// CFB-128 encryption in place (the last segment may be partial). Serial.
pub fn cfb_encrypt_in_place(c: &Sm4, iv: &[u8; 16], data: &mut [u8]) {
    let mut reg = *iv;
    for seg in data.chunks_mut(BLOCK_SIZE) {
        c.encrypt_block(&mut reg);
        xor_in(seg, &reg);
        reg[..seg.len()].copy_from_slice(seg);
    }
}

/// CFB-128 decryption in place. Parallel: the keystream is E(previous ciphertext).
pub fn cfb_decrypt_in_place(c: &Sm4, iv: &[u8; 16], data: &mut [u8]) {
    let mut prev = *iv;
    let mut ks = [0u8; CHUNK];
    for chunk in data.chunks_mut(CHUNK) {
        let n = chunk.len();
        let nb = n.div_ceil(BLOCK_SIZE);
        ks[..BLOCK_SIZE].copy_from_slice(&prev);
        ks[BLOCK_SIZE..nb * BLOCK_SIZE].copy_from_slice(&chunk[..(nb - 1) * BLOCK_SIZE]);
        if n % BLOCK_SIZE == 0 {
            prev.copy_from_slice(&chunk[n - BLOCK_SIZE..]);
        }
        c.encrypt_blocks(&mut ks[..nb * BLOCK_SIZE]);
        xor_in(chunk, &ks[..n]);
    }
    ks.zeroize();
}

/// OFB encryption/decryption in place (serial keystream).
pub fn ofb_apply_in_place(c: &Sm4, iv: &[u8; 16], data: &mut [u8]) {
    let mut reg = *iv;
    for seg in data.chunks_mut(BLOCK_SIZE) {
        c.encrypt_block(&mut reg);
        xor_in(seg, &reg);
    }
    reg.zeroize();
}
