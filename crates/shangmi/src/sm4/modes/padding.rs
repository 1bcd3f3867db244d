//! PKCS#7 padding and the length checks shared by ECB and CBC.

use subtle::{ConstantTimeEq, ConstantTimeLess};
use zeroize::Zeroize;

use crate::sm4::BLOCK_SIZE;
use crate::{Error, Result};

pub(super) fn not_whole_blocks(len: usize) -> Error {
    Error::invalid(format!("data must be a multiple of 16 bytes when padding is disabled, got {len}"))
}

pub(super) fn check_ciphertext(len: usize, padding: bool) -> Result<()> {
    if padding && (len == 0 || !len.is_multiple_of(BLOCK_SIZE)) {
        return Err(Error::invalid(format!(
            "ciphertext must be a non-empty multiple of 16 bytes when padding is enabled, got {len}"
        )));
    }
    if !padding && !len.is_multiple_of(BLOCK_SIZE) {
        return Err(not_whole_blocks(len));
    }
    Ok(())
}

/// Appends PKCS#7 padding (1..=16 bytes) to a copy of `data`.
pub(crate) fn pad(data: &[u8]) -> Vec<u8> {
    let n = BLOCK_SIZE - data.len() % BLOCK_SIZE;
    let mut v = Vec::with_capacity(data.len() + n);
    v.extend_from_slice(data);
    v.resize(data.len() + n, n as u8);
    v
}

/// Length of the PKCS#7 padding at the end of the last block, checked in
/// constant time (all 16 bytes are examined whatever the padding says).
pub(crate) fn padding_len(last: &[u8; 16]) -> Result<usize> {
    let n = last[15];
    let mut ok = !n.ct_eq(&0) & !(16u8).ct_lt(&n);
    for (i, &b) in last.iter().enumerate() {
        // Byte i is a padding byte iff 16 - i <= n.
        let in_pad = !n.ct_lt(&(16 - i as u8));
        ok &= !in_pad | b.ct_eq(&n);
    }
    if bool::from(ok) {
        Ok(n as usize)
    } else {
        Err(Error::invalid("invalid PKCS#7 padding"))
    }
}

pub(super) fn unpad(mut v: Vec<u8>) -> Result<Vec<u8>> {
    let mut last = [0u8; 16];
    last.copy_from_slice(&v[v.len() - 16..]);
    let r = padding_len(&last);
    last.zeroize();
    match r {
        Ok(n) => {
            v.truncate(v.len() - n);
            Ok(v)
        }
        Err(e) => {
            v.zeroize();
            Err(e)
        }
    }
}
