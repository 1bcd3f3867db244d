//! Argument checks of the ZUC API, each rule and message once: key and IV
//! sizes, the 3GPP parameters, bit lengths and output-size caps.

use zeroize::Zeroize;

use super::spec;
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

/// One 3GPP message for [`super::eea3_many`] / [`super::eia3_many`]: the
/// arguments of [`super::eea3`] (and of [`super::eia3`]). Its `Debug` leaves
/// out the key.
#[derive(Clone, Copy)]
pub struct Message<'a> {
    /// 16-byte key (CK for EEA3, IK for EIA3).
    pub key: &'a [u8],
    /// COUNT (< 2^32).
    pub count: u64,
    /// BEARER (< 32).
    pub bearer: u32,
    /// DIRECTION (0 or 1).
    pub direction: u32,
    /// The message.
    pub data: &'a [u8],
    /// Bits of `data` to process (all of it when `None`).
    pub length_bits: Option<u64>,
}

impl std::fmt::Debug for Message<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Message")
            .field("count", &self.count)
            .field("bearer", &self.bearer)
            .field("direction", &self.direction)
            .field("data_len", &self.data.len())
            .field("length_bits", &self.length_bits)
            .finish_non_exhaustive()
    }
}

/// Which 3GPP algorithm a message is for: its name in errors and its IV.
#[derive(Clone, Copy)]
pub(crate) enum Alg {
    Eea3,
    Eia3,
}

impl Alg {
    fn name(self) -> &'static str {
        match self {
            Alg::Eea3 => "128-EEA3",
            Alg::Eia3 => "128-EIA3",
        }
    }

    fn iv(self, count: u32, bearer: u32, direction: u32) -> [u8; 16] {
        match self {
            Alg::Eea3 => spec::eea3_iv(count, bearer, direction),
            Alg::Eia3 => spec::eia3_iv(count, bearer, direction),
        }
    }
}

/// The checked parameters of one 3GPP call: the key, the ZUC-128 IV built
/// from COUNT, BEARER and DIRECTION, and the bit length. Wiped on drop.
pub(crate) struct Checked {
    pub(crate) key: [u8; 16],
    pub(crate) iv: [u8; 16],
    pub(crate) length_bits: usize,
}

impl Drop for Checked {
    fn drop(&mut self) {
        self.key.zeroize();
    }
}

impl Checked {
    /// Every rule of a 3GPP call, each with its one message: COUNT, BEARER,
    /// DIRECTION, the bit length and the key size.
    pub(crate) fn new(m: &Message<'_>, alg: Alg) -> Result<Checked> {
        let (count, bearer, direction) = check_params(m.count, m.bearer, m.direction)?;
        let length_bits = check_length(m.data.len(), m.length_bits)?;
        let key = key16(m.key, alg.name())?;
        Ok(Checked { key, iv: alg.iv(count, bearer, direction), length_bits })
    }

    /// The EEA3 output size in bytes: ceil(length_bits / 8).
    pub(crate) fn out_len(&self) -> usize {
        self.length_bits.div_ceil(8)
    }
}

/// COUNT, BEARER and DIRECTION of EEA3 and EIA3, checked; COUNT as a u32.
pub(crate) fn check_params(count: u64, bearer: u32, direction: u32) -> Result<(u32, u32, u32)> {
    if count >= 1 << 32 {
        return Err(Error::invalid(format!("count must be in [0, 2^32), got {count}")));
    }
    if bearer >= 32 {
        return Err(Error::invalid(format!("bearer must be < 32, got {bearer}")));
    }
    if direction > 1 {
        return Err(Error::invalid(format!("direction must be 0 or 1, got {direction}")));
    }
    Ok((count as u32, bearer, direction))
}

/// The bit length to process of `data_len` bytes (all of them by default),
/// checked against 8·data_len.
pub(crate) fn check_length(data_len: usize, length_bits: Option<u64>) -> Result<usize> {
    let max = 8 * data_len as u64;
    match length_bits {
        None => Ok(8 * data_len),
        Some(l) if l <= max => Ok(l as usize),
        Some(l) => Err(Error::invalid(format!("length_bits must be in [0, 8 * len(data)] = [0, {max}], got {l}"))),
    }
}

/// That an output buffer has the `want` bytes its EEA3 output needs.
pub(crate) fn check_out_len(want: usize, got: usize) -> Result<()> {
    if want != got {
        return Err(Error::invalid(format!("EEA3 output buffer must be {want} bytes, got {got}")));
    }
    Ok(())
}

/// Output size of [`super::eea3`] in bytes: ceil(length_bits / 8), after
/// checking `length_bits` against 8·data_len.
pub fn eea3_output_len(data_len: usize, length_bits: Option<u64>) -> Result<usize> {
    Ok(check_length(data_len, length_bits)?.div_ceil(8))
}
