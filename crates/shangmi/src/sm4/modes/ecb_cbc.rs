//! ECB and CBC (PKCS#7 padding or none): one-shot, into caller buffers, and
//! the streaming CBC contexts.

use zeroize::Zeroize;

use super::padding::{check_ciphertext, not_whole_blocks, pad, padding_len, unpad};
use super::xor_in;
use crate::sm4::{Sm4, BLOCK_SIZE};
use crate::{Error, Result};

/// ECB encryption (PKCS#7 when `padding`).
pub fn ecb_encrypt(c: &Sm4, data: &[u8], padding: bool) -> Result<Vec<u8>> {
    let mut v = if padding {
        pad(data)
    } else if !data.len().is_multiple_of(BLOCK_SIZE) {
        return Err(not_whole_blocks(data.len()));
    } else {
        data.to_vec()
    };
    c.encrypt_blocks(&mut v);
    Ok(v)
}

/// ECB decryption (PKCS#7 checked when `padding`).
pub fn ecb_decrypt(c: &Sm4, data: &[u8], padding: bool) -> Result<Vec<u8>> {
    check_ciphertext(data.len(), padding)?;
    let mut v = data.to_vec();
    c.decrypt_blocks(&mut v);
    if padding {
        unpad(v)
    } else {
        Ok(v)
    }
}

/// CBC encryption in place over whole blocks; `iv` becomes the last block.
/// Serial by nature: one block at a time.
pub(crate) fn cbc_encrypt_blocks(c: &Sm4, iv: &mut [u8; 16], data: &mut [u8]) {
    c.cbc_encrypt_serial(iv, data);
}

/// CBC decryption in place over whole blocks; `iv` becomes the last
/// ciphertext block. Parallel: decrypt a batch, then xor the previous blocks.
pub(crate) fn cbc_decrypt_blocks(c: &Sm4, iv: &mut [u8; 16], data: &mut [u8]) {
    c.cbc_decrypt(iv, None, data);
}

/// CBC encryption with an expanded key.
pub fn cbc_encrypt_expanded(c: &Sm4, iv: &[u8; 16], data: &[u8], padding: bool) -> Result<Vec<u8>> {
    let mut v = if padding {
        pad(data)
    } else if !data.len().is_multiple_of(BLOCK_SIZE) {
        return Err(not_whole_blocks(data.len()));
    } else {
        data.to_vec()
    };
    let mut chain = *iv;
    cbc_encrypt_blocks(c, &mut chain, &mut v);
    Ok(v)
}

/// CBC decryption with an expanded key.
pub fn cbc_decrypt_expanded(c: &Sm4, iv: &[u8; 16], data: &[u8], padding: bool) -> Result<Vec<u8>> {
    check_ciphertext(data.len(), padding)?;
    let mut v = data.to_vec();
    let mut chain = *iv;
    cbc_decrypt_blocks(c, &mut chain, &mut v);
    if padding {
        unpad(v)
    } else {
        Ok(v)
    }
}

/// Output length of ECB/CBC encryption: whole blocks, plus PKCS#7 padding
/// (always 1..=16 bytes) when `padding`.
pub fn encrypted_len(len: usize, padding: bool) -> Result<usize> {
    if padding {
        Ok(len - len % BLOCK_SIZE + BLOCK_SIZE)
    } else if !len.is_multiple_of(BLOCK_SIZE) {
        Err(not_whole_blocks(len))
    } else {
        Ok(len)
    }
}

fn pad_into(data: &[u8], out: &mut [u8]) {
    out[..data.len()].copy_from_slice(data);
    let n = (out.len() - data.len()) as u8;
    out[data.len()..].fill(n);
}

/// ECB encryption into `out`, which must be `encrypted_len(data.len(), padding)` bytes.
pub fn ecb_encrypt_into(c: &Sm4, data: &[u8], padding: bool, out: &mut [u8]) -> Result<()> {
    if out.len() != encrypted_len(data.len(), padding)? {
        return Err(Error::invalid("output buffer has the wrong length"));
    }
    let whole = data.len() - data.len() % BLOCK_SIZE;
    let (body, last) = out.split_at_mut(whole);
    c.encrypt_blocks_to(&data[..whole], body);
    pad_into(&data[whole..], last);
    c.encrypt_blocks(last);
    Ok(())
}

/// CBC encryption into `out`, which must be `encrypted_len(data.len(), padding)` bytes.
pub fn cbc_encrypt_into(c: &Sm4, iv: &[u8; 16], data: &[u8], padding: bool, out: &mut [u8]) -> Result<()> {
    if out.len() != encrypted_len(data.len(), padding)? {
        return Err(Error::invalid("output buffer has the wrong length"));
    }
    pad_into(data, out);
    let mut chain = *iv;
    cbc_encrypt_blocks(c, &mut chain, out);
    Ok(())
}

/// Plaintext length of an ECB (`iv = None`) or CBC ciphertext: with
/// `padding`, decrypts the last block alone and checks its PKCS#7 padding in
/// constant time. Pair with [`ecb_decrypt_into`] / [`cbc_decrypt_into`].
pub fn decrypted_len(c: &Sm4, iv: Option<&[u8; 16]>, data: &[u8], padding: bool) -> Result<usize> {
    check_ciphertext(data.len(), padding)?;
    if !padding {
        return Ok(data.len());
    }
    let n = data.len();
    let mut last = [0u8; 16];
    last.copy_from_slice(&data[n - BLOCK_SIZE..]);
    c.decrypt_block(&mut last);
    if let Some(iv) = iv {
        let prev = if n >= 2 * BLOCK_SIZE { &data[n - 2 * BLOCK_SIZE..n - BLOCK_SIZE] } else { &iv[..] };
        xor_in(&mut last, prev);
    }
    let r = padding_len(&last);
    last.zeroize();
    Ok(n - r?)
}

/// ECB decryption into `out` (its length from [`decrypted_len`]): the
/// padding, already checked there, is dropped.
pub fn ecb_decrypt_into(c: &Sm4, data: &[u8], out: &mut [u8]) -> Result<()> {
    if out.len() > data.len() || data.len() - out.len() > BLOCK_SIZE || !data.len().is_multiple_of(BLOCK_SIZE) {
        return Err(Error::invalid("output buffer has the wrong length"));
    }
    let whole = out.len() - out.len() % BLOCK_SIZE;
    c.decrypt_blocks_to(&data[..whole], &mut out[..whole]);
    if whole < out.len() {
        let mut last = [0u8; 16];
        last.copy_from_slice(&data[whole..whole + BLOCK_SIZE]);
        c.decrypt_block(&mut last);
        let k = out.len() - whole;
        out[whole..].copy_from_slice(&last[..k]);
        last.zeroize();
    }
    Ok(())
}

/// CBC decryption into `out` (its length from [`decrypted_len`]).
pub fn cbc_decrypt_into(c: &Sm4, iv: &[u8; 16], data: &[u8], out: &mut [u8]) -> Result<()> {
    if out.len() > data.len() || data.len() - out.len() > BLOCK_SIZE || !data.len().is_multiple_of(BLOCK_SIZE) {
        return Err(Error::invalid("output buffer has the wrong length"));
    }
    let whole = out.len() - out.len() % BLOCK_SIZE;
    let mut chain = *iv;
    // A fused kernel reads the ciphertext directly.
    c.cbc_decrypt(&mut chain, Some(&data[..whole]), &mut out[..whole]);
    if whole < out.len() {
        let mut last = [0u8; 16];
        last.copy_from_slice(&data[whole..whole + BLOCK_SIZE]);
        c.decrypt_block(&mut last);
        xor_in(&mut last, &chain);
        let k = out.len() - whole;
        out[whole..].copy_from_slice(&last[..k]);
        last.zeroize();
    }
    Ok(())
}

/// Incremental CBC encryption. `update` returns the whole blocks completed so
/// far; `finalize` pads (or checks that nothing is left over).
#[derive(Debug, Clone)]
pub struct CbcEncryptor {
    cipher: Sm4,
    chain: [u8; 16],
    buf: Vec<u8>,
    padding: bool,
}

impl CbcEncryptor {
    /// Starts CBC encryption under `iv`.
    pub fn new(cipher: Sm4, iv: &[u8; 16], padding: bool) -> Self {
        CbcEncryptor { cipher, chain: *iv, buf: Vec::with_capacity(BLOCK_SIZE), padding }
    }

    /// Encrypts as many whole blocks as are available.
    pub fn update(&mut self, data: &[u8]) -> Vec<u8> {
        self.buf.extend_from_slice(data);
        let n = self.buf.len() - self.buf.len() % BLOCK_SIZE;
        let mut out: Vec<u8> = self.buf.drain(..n).collect();
        cbc_encrypt_blocks(&self.cipher, &mut self.chain, &mut out);
        out
    }

    /// Emits the last (padded) block.
    pub fn finalize(mut self) -> Result<Vec<u8>> {
        if self.padding {
            let mut last = pad(&self.buf);
            cbc_encrypt_blocks(&self.cipher, &mut self.chain, &mut last);
            Ok(last)
        } else if !self.buf.is_empty() {
            Err(Error::invalid(format!(
                "data must be a multiple of 16 bytes when padding is disabled, {} bytes left over",
                self.buf.len()
            )))
        } else {
            Ok(Vec::new())
        }
    }
}

impl Drop for CbcEncryptor {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

/// Incremental CBC decryption. With padding, the last whole block is held
/// back until `finalize`, which strips and checks the padding.
#[derive(Debug, Clone)]
pub struct CbcDecryptor {
    cipher: Sm4,
    chain: [u8; 16],
    buf: Vec<u8>,
    padding: bool,
}

impl CbcDecryptor {
    /// Starts CBC decryption under `iv`.
    pub fn new(cipher: Sm4, iv: &[u8; 16], padding: bool) -> Self {
        CbcDecryptor { cipher, chain: *iv, buf: Vec::with_capacity(2 * BLOCK_SIZE), padding }
    }

    /// Decrypts the whole blocks available (keeping one back with padding).
    pub fn update(&mut self, data: &[u8]) -> Vec<u8> {
        self.buf.extend_from_slice(data);
        let mut n = self.buf.len() - self.buf.len() % BLOCK_SIZE;
        if self.padding && n == self.buf.len() && n > 0 {
            n -= BLOCK_SIZE;
        }
        let mut out: Vec<u8> = self.buf.drain(..n).collect();
        cbc_decrypt_blocks(&self.cipher, &mut self.chain, &mut out);
        out
    }

    /// Decrypts the held-back block and removes the padding.
    pub fn finalize(mut self) -> Result<Vec<u8>> {
        let buf = std::mem::take(&mut self.buf);
        if self.padding {
            if buf.len() != BLOCK_SIZE {
                return Err(Error::invalid(format!(
                    "ciphertext must be a non-empty multiple of 16 bytes when padding is enabled ({} bytes left over)",
                    buf.len()
                )));
            }
            let mut v = buf;
            cbc_decrypt_blocks(&self.cipher, &mut self.chain, &mut v);
            unpad(v)
        } else if !buf.is_empty() {
            Err(not_whole_blocks(buf.len()))
        } else {
            Ok(Vec::new())
        }
    }
}

impl Drop for CbcDecryptor {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}
