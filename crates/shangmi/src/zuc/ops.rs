//! 128-EEA3, 128-EIA3 and the ZUC-256 MAC on one message.
//!
//! The public functions run on the process's kernel ([`Kernel::auto`]);
//! the `_on` forms take a kernel, so the crate's tests can compare every
//! kernel this CPU has with the portable one.

use zeroize::Zeroize;

use super::core::State;
use super::kernel::Kernel;
use super::params::{check_length, check_out_len, eea3_output_len, key32, zuc256_pack_iv, Alg, Checked, Message};
use super::stream::Keystream;
use super::{mac, spec};
use crate::{Error, Result};

/// 128-EEA3 (confidentiality): encrypts or decrypts the first `length_bits`
/// bits of `data` (all of it by default). The output has ceil(length_bits/8)
/// bytes; bits beyond `length_bits` are zero.
pub fn eea3(
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    eea3_on(Kernel::auto(), key, count, bearer, direction, data, length_bits)
}

/// [`eea3`] on `kernel`.
pub(crate) fn eea3_on(
    kernel: Kernel,
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let mut out = vec![0u8; eea3_output_len(data.len(), length_bits)?];
    eea3_into_on(kernel, key, count, bearer, direction, data, length_bits, &mut out)?;
    Ok(out)
}

/// [`eea3`] writing into `out`, which must have [`eea3_output_len`] bytes.
pub fn eea3_into(
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
    out: &mut [u8],
) -> Result<()> {
    eea3_into_on(Kernel::auto(), key, count, bearer, direction, data, length_bits, out)
}

/// [`eea3_into`] on `kernel`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn eea3_into_on(
    kernel: Kernel,
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
    out: &mut [u8],
) -> Result<()> {
    let c = Checked::new(&Message { key, count, bearer, direction, data, length_bits }, Alg::Eea3)?;
    check_out_len(c.out_len(), out.len())?;
    let mut ks = Keystream::from_state(State::new_128(&c.key, &c.iv, kernel));
    ks.xor(&data[..out.len()], out)?;
    spec::clear_tail_bits(out, c.length_bits);
    Ok(())
}

/// 128-EIA3 (integrity): the 32-bit MAC of the first `length_bits` bits of
/// `data` (all of it by default).
pub fn eia3(
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<[u8; 4]> {
    eia3_on(Kernel::auto(), key, count, bearer, direction, data, length_bits)
}

/// [`eia3`] on `kernel`.
pub(crate) fn eia3_on(
    kernel: Kernel,
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<[u8; 4]> {
    let c = Checked::new(&Message { key, count, bearer, direction, data, length_bits }, Alg::Eia3)?;
    let st = State::new_128(&c.key, &c.iv, kernel);
    let tag = mac::mac_words(st, kernel, data, c.length_bits, 1, 0);
    Ok(tag[0].to_be_bytes())
}

/// The ZUC-256 MAC with a 32-, 64- or 128-bit tag over the first
/// `length_bits` bits of `data` (all of it by default).
pub fn zuc256_mac(key: &[u8], iv: &[u8], data: &[u8], tag_bits: u32, length_bits: Option<u64>) -> Result<Vec<u8>> {
    zuc256_mac_on(Kernel::auto(), key, iv, data, tag_bits, length_bits)
}

/// [`zuc256_mac`] on `kernel`.
pub(crate) fn zuc256_mac_on(
    kernel: Kernel,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let d = match tag_bits {
        32 => &spec::D256_MAC32,
        64 => &spec::D256_MAC64,
        128 => &spec::D256_MAC128,
        t => return Err(Error::invalid(format!("tag_bits must be 32, 64 or 128, got {t}"))),
    };
    let length = check_length(data.len(), length_bits)?;
    let mut k = key32(key)?;
    let v = zuc256_pack_iv(iv)?;
    let st = State::new_256(&k, &v, d, kernel);
    k.zeroize();
    let words = tag_bits as usize / 32;
    let tag = mac::mac_words(st, kernel, data, length, words, words);
    Ok(tag[..words].iter().flat_map(|w| w.to_be_bytes()).collect())
}
