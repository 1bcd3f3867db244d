//! Argument checks of the ZUC API, each rule and message once: key and IV
//! sizes, the 3GPP parameters, bit lengths and output-size caps.

use crate::{Error, Result};

/// Key size of ZUC-128, 128-EEA3 and 128-EIA3, in bytes.
pub const KEY_SIZE_128: usize = 16;
/// Key size of ZUC-256 and its MAC, in bytes.
pub const KEY_SIZE_256: usize = 32;

pub(crate) fn key16(key: &[u8], what: &str) -> Result<[u8; KEY_SIZE_128]> {
    key.try_into().map_err(|_| Error::invalid_key(format!("{what} key must be 16 bytes, got {}", key.len())))
}

pub(crate) fn key32(key: &[u8]) -> Result<[u8; KEY_SIZE_256]> {
    key.try_into().map_err(|_| Error::invalid_key(format!("ZUC-256 key must be 32 bytes, got {}", key.len())))
}

/// The 23-byte packed ZUC-256 IV from either accepted form: 23 bytes (IV17..IV24
/// packed as 6-bit values) or 25 bytes (one byte per IV17..IV24, each < 64).
pub fn zuc256_pack_iv(iv: &[u8]) -> Result<[u8; 23]> {
    match iv.len() {
        23 => Ok(iv.try_into().expect("length checked")),
        25 => {
            let mut out = [0u8; 23];
            out[..17].copy_from_slice(&iv[..17]);
            let mut bits: u64 = 0;
            for (i, &b) in iv[17..].iter().enumerate() {
                if b >= 64 {
                    return Err(Error::invalid(format!(
                        "ZUC-256 IV byte {} must be a 6-bit value (< 64), got {b}",
                        17 + i
                    )));
                }
                bits = (bits << 6) | b as u64;
            }
            out[17..].copy_from_slice(&bits.to_be_bytes()[2..]);
            Ok(out)
        }
        n => Err(Error::invalid(format!("ZUC-256 IV must be 23 bytes (packed) or 25 bytes, got {n}"))),
    }
}

/// The most keystream bytes one request may ask for (2 GiB): a larger one is
/// refused with a clear error before anything is allocated. Ask repeatedly
/// for more; the stream continues.
pub const MAX_KEYSTREAM_BYTES: u64 = 1 << 31;

/// The most keystream words one [`Keystream::words`] request may ask for
/// when the caller materialises them one object each (a Python list).
pub const MAX_KEYSTREAM_WORDS: u64 = 1 << 26;

/// `n` as a buffer size after checking it against [`MAX_KEYSTREAM_BYTES`].
pub fn keystream_request(n: u64) -> Result<usize> {
    if n > MAX_KEYSTREAM_BYTES {
        return Err(Error::invalid(format!(
            "nbytes must be at most {MAX_KEYSTREAM_BYTES} (2 GiB) per call, got {n}; ask repeatedly for more"
        )));
    }
    Ok(n as usize)
}

/// `n` words after checking it against [`MAX_KEYSTREAM_WORDS`].
pub fn keystream_words_request(n: u64) -> Result<usize> {
    if n > MAX_KEYSTREAM_WORDS {
        return Err(Error::invalid(format!(
            "n must be at most {MAX_KEYSTREAM_WORDS} words, got {n}; use keystream() for bulk output"
        )));
    }
    Ok(n as usize)
}

/// Checks the 3GPP parameters shared by EEA3 and EIA3.
pub(crate) fn check_params(count: u64, bearer: u32, direction: u32) -> Result<u32> {
    if count >= 1 << 32 {
        return Err(Error::invalid(format!("count must be in [0, 2^32), got {count}")));
    }
    if bearer >= 32 {
        return Err(Error::invalid(format!("bearer must be < 32, got {bearer}")));
    }
    if direction > 1 {
        return Err(Error::invalid(format!("direction must be 0 or 1, got {direction}")));
    }
    Ok(count as u32)
}

fn length_error(max: u64, got: u64) -> Error {
    Error::invalid(format!("length_bits must be in [0, 8 * len(data)] = [0, {max}], got {got}"))
}

pub(crate) fn check_length(data: &[u8], length_bits: Option<u64>) -> Result<usize> {
    let max = 8 * data.len() as u64;
    match length_bits {
        None => Ok(8 * data.len()),
        Some(l) if l <= max => Ok(l as usize),
        Some(l) => Err(length_error(max, l)),
    }
}

/// Output size of [`eea3`] in bytes: ceil(length_bits / 8) (after checking it).
pub fn eea3_output_len(data_len: usize, length_bits: Option<u64>) -> Result<usize> {
    let max = 8 * data_len as u64;
    match length_bits {
        None => Ok(data_len),
        Some(l) if l <= max => Ok((l as usize).div_ceil(8)),
        Some(l) => Err(length_error(max, l)),
    }
}
