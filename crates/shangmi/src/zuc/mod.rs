//! ZUC stream cipher (GB/T 33133.1-2016, GM/T 0001-2012): ZUC-128 and
//! ZUC-256 keystream generators, the 3GPP confidentiality algorithm 128-EEA3,
//! the integrity algorithm 128-EIA3 and the ZUC-256 MAC (32/64/128-bit tags).
//!
//! Lengths are in bits where the standards say so: `length_bits` may be any
//! value up to 8·len(data); EEA3 output carries ceil(length_bits/8) bytes with
//! the bits beyond `length_bits` cleared, and the MACs ignore those bits.
//!
//! Constant time: no table is indexed by key-dependent data (see [`sbox`]
//! for how S0 and S1 are computed). Keys and states are wiped on drop.
//!
//! Many messages at once: [`eea3_many`] / [`eia3_many`] take a list of
//! [`Message`]s (the form base stations use for many bearers); on x86-64 the
//! SIMD backends run 16 of them in the lanes of AVX2 registers, several
//! times the throughput of one message (whose speed is bound by the latency
//! of F's serial R1/R2 chain; see x86.rs for the figures).
//!
//! Backends: [`Backend::Avx512`] and [`Backend::Simd`] (x86-64 with AVX2,
//! AES-NI and PCLMULQDQ; the first also uses AVX-512VL rotations and
//! three-way XORs) and [`Backend::Portable`]; [`Backend::auto`] picks the best
//! available one that [`crate::cpu`] allows.

mod core;
mod mac;
mod many;
mod sbox;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
mod x86_many;

pub use many::{
    eea3_many, eea3_many_into, eea3_many_output_lens, eea3_many_with_backend, eia3_many, eia3_many_with_backend,
    Message,
};

use std::sync::OnceLock;

use zeroize::Zeroize;

use self::core::State;
use crate::cpu::Token;
use crate::{Error, Result};

/// How the keystream generator and the MAC inner product are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain Rust for any CPU: S0 from register-held 4-bit tables, S1 by
    /// inversion in a tower field. Constant time; several times slower than
    /// the SIMD backends (tens of MB/s).
    Portable,
    /// x86-64: S-boxes with AES-NI and `pshufb`, MAC with PCLMULQDQ.
    Simd,
    /// [`Backend::Simd`] plus AVX-512VL's VPROLVD and VPTERNLOGD, which shorten
    /// F's dependency chain.
    Avx512,
}

impl Backend {
    /// The fastest backend [`crate::cpu`] allows (mask `avx512f` for
    /// [`Backend::Simd`], `avx2` or `aes` for the portable one). Decided once
    /// per process.
    pub fn auto() -> Backend {
        static CHOSEN: OnceLock<Backend> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            [Backend::Avx512, Backend::Simd].into_iter().find(|b| b.is_available()).unwrap_or(Backend::Portable)
        })
    }

    /// Whether this CPU can run the backend.
    pub fn is_available(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Simd => crate::cpu::AesAvx2::get().is_some(),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => Backend::Simd.is_available() && crate::cpu::Avx512Vl::get().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Simd | Backend::Avx512 => false,
        }
    }

    /// Every backend this CPU can run (for tests and benchmarks).
    pub fn available() -> Vec<Backend> {
        [Backend::Portable, Backend::Simd, Backend::Avx512].into_iter().filter(|b| b.is_available()).collect()
    }

    /// A short name: "portable", "simd" or "avx512".
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Simd => "simd",
            Backend::Avx512 => "avx512",
        }
    }

    /// Whether this backend runs the x86-64 SIMD code.
    pub(crate) fn is_x86_simd(self) -> bool {
        matches!(self, Backend::Simd | Backend::Avx512)
    }

    fn checked(self) -> Result<Backend> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(Error::invalid(format!("ZUC backend {} is not supported by this CPU", self.name())))
        }
    }
}

/// Key size of ZUC-128, 128-EEA3 and 128-EIA3, in bytes.
pub const KEY_SIZE_128: usize = 16;
/// Key size of ZUC-256 and its MAC, in bytes.
pub const KEY_SIZE_256: usize = 32;

fn key16(key: &[u8], what: &str) -> Result<[u8; KEY_SIZE_128]> {
    key.try_into().map_err(|_| Error::invalid_key(format!("{what} key must be 16 bytes, got {}", key.len())))
}

fn key32(key: &[u8]) -> Result<[u8; KEY_SIZE_256]> {
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

/// A ZUC keystream as a byte stream: successive calls continue where the last
/// one stopped, whatever their sizes (a partial 32-bit word is buffered).
/// Keystream words are emitted big-endian, as the standards print them.
pub struct Keystream {
    state: State,
    pending: [u8; 4],
    /// Bytes of `pending` not yet handed out (they are its last ones).
    pending_len: usize,
}

impl std::fmt::Debug for Keystream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keystream").finish_non_exhaustive()
    }
}

impl Drop for Keystream {
    fn drop(&mut self) {
        self.pending.zeroize();
    }
}

impl Keystream {
    /// ZUC-128 with a 16-byte key and 16-byte IV.
    pub fn zuc128(key: &[u8], iv: &[u8]) -> Result<Keystream> {
        Keystream::zuc128_with_backend(key, iv, Backend::auto())
    }

    /// [`Keystream::zuc128`] on a chosen backend.
    pub fn zuc128_with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Keystream> {
        let backend = backend.checked()?;
        let mut k = key16(key, "ZUC-128")?;
        let v: [u8; 16] =
            iv.try_into().map_err(|_| Error::invalid(format!("ZUC-128 IV must be 16 bytes, got {}", iv.len())))?;
        let state = State::new_128(&k, &v, backend);
        k.zeroize();
        Ok(Keystream { state, pending: [0; 4], pending_len: 0 })
    }

    /// ZUC-256 with a 32-byte key and a 23- or 25-byte IV (see [`zuc256_pack_iv`]).
    pub fn zuc256(key: &[u8], iv: &[u8]) -> Result<Keystream> {
        Keystream::zuc256_with_backend(key, iv, Backend::auto())
    }

    /// [`Keystream::zuc256`] on a chosen backend.
    pub fn zuc256_with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Keystream> {
        let backend = backend.checked()?;
        let mut k = key32(key)?;
        let v = zuc256_pack_iv(iv)?;
        let state = State::new_256(&k, &v, &core::D256_KEYSTREAM, backend);
        k.zeroize();
        Ok(Keystream { state, pending: [0; 4], pending_len: 0 })
    }

    /// Writes the next `out.len()` keystream bytes.
    pub fn fill(&mut self, mut out: &mut [u8]) {
        if self.pending_len > 0 {
            let take = self.pending_len.min(out.len());
            let start = 4 - self.pending_len;
            out[..take].copy_from_slice(&self.pending[start..start + take]);
            self.pending_len -= take;
            out = &mut out[take..];
        }
        let mut words = [0u32; 256];
        while out.len() >= 4 {
            let n = (out.len() / 4).min(words.len());
            self.state.generate(&mut words[..n]);
            for (dst, w) in out.chunks_exact_mut(4).zip(&words[..n]) {
                dst.copy_from_slice(&w.to_be_bytes());
            }
            out = &mut out[4 * n..];
        }
        if !out.is_empty() {
            self.state.generate(&mut words[..1]);
            self.pending = words[0].to_be_bytes();
            let r = out.len();
            out.copy_from_slice(&self.pending[..r]);
            self.pending_len = 4 - r;
        }
        words.zeroize();
    }

    /// The next `out.len()` 32-bit words: the next 4·len bytes of [`fill`](Self::fill)
    /// read big-endian (exactly ZUC's words z1, z2, ... when no partial word is
    /// buffered).
    pub fn words(&mut self, out: &mut [u32]) {
        if self.pending_len == 0 {
            self.state.generate(out);
            return;
        }
        for w in out.iter_mut() {
            let mut b = [0u8; 4];
            self.fill(&mut b);
            *w = u32::from_be_bytes(b);
        }
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
fn check_params(count: u64, bearer: u32, direction: u32) -> Result<u32> {
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

fn check_length(data: &[u8], length_bits: Option<u64>) -> Result<usize> {
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
    eea3_with_backend(Backend::auto(), key, count, bearer, direction, data, length_bits)
}

/// [`eea3`] on a chosen backend.
pub fn eea3_with_backend(
    backend: Backend,
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let mut out = vec![0u8; eea3_output_len(data.len(), length_bits)?];
    eea3_into(backend, key, count, bearer, direction, data, length_bits, &mut out)?;
    Ok(out)
}

/// [`eea3`] writing into `out`, which must have [`eea3_output_len`] bytes.
#[allow(clippy::too_many_arguments)]
pub fn eea3_into(
    backend: Backend,
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
    out: &mut [u8],
) -> Result<()> {
    let backend = backend.checked()?;
    let count = check_params(count, bearer, direction)?;
    let length = check_length(data, length_bits)?;
    let nbytes = length.div_ceil(8);
    if out.len() != nbytes {
        return Err(Error::invalid(format!("EEA3 output buffer must be {nbytes} bytes, got {}", out.len())));
    }
    let mut k = key16(key, "128-EEA3")?;
    let mut iv = [0u8; 16];
    iv[..4].copy_from_slice(&count.to_be_bytes());
    iv[4] = ((bearer << 3) | (direction << 2)) as u8;
    iv.copy_within(0..8, 8);
    let mut st = State::new_128(&k, &iv, backend);
    k.zeroize();

    // Whole words straight from the generator, then the last partial word.
    let whole = nbytes / 4 * 4;
    st.xor_be(&data[..whole], &mut out[..whole]);
    if whole < nbytes {
        let mut w = [0u32; 1];
        st.generate(&mut w);
        let mut k = w[0].to_be_bytes();
        for ((d, s), k) in out[whole..].iter_mut().zip(&data[whole..nbytes]).zip(&k) {
            *d = s ^ k;
        }
        w.zeroize();
        k.zeroize();
    }
    if length % 8 != 0 {
        out[nbytes - 1] &= 0xffu8 << (8 - length % 8);
    }
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
    eia3_with_backend(Backend::auto(), key, count, bearer, direction, data, length_bits)
}

/// [`eia3`] on a chosen backend.
pub fn eia3_with_backend(
    backend: Backend,
    key: &[u8],
    count: u64,
    bearer: u32,
    direction: u32,
    data: &[u8],
    length_bits: Option<u64>,
) -> Result<[u8; 4]> {
    let backend = backend.checked()?;
    let count = check_params(count, bearer, direction)?;
    let length = check_length(data, length_bits)?;
    let mut k = key16(key, "128-EIA3")?;
    let c = count.to_be_bytes();
    let b = (bearer << 3) as u8;
    let d = (direction << 7) as u8;
    let iv = [c[0], c[1], c[2], c[3], b, 0, 0, 0, c[0] ^ d, c[1], c[2], c[3], b, 0, d, 0];
    let st = State::new_128(&k, &iv, backend);
    k.zeroize();
    let tag = mac::mac_words(st, backend, data, length, 1, 0);
    Ok(tag[0].to_be_bytes())
}

/// The ZUC-256 MAC with a 32-, 64- or 128-bit tag over the first
/// `length_bits` bits of `data` (all of it by default).
pub fn zuc256_mac(key: &[u8], iv: &[u8], data: &[u8], tag_bits: u32, length_bits: Option<u64>) -> Result<Vec<u8>> {
    zuc256_mac_with_backend(Backend::auto(), key, iv, data, tag_bits, length_bits)
}

/// [`zuc256_mac`] on a chosen backend.
pub fn zuc256_mac_with_backend(
    backend: Backend,
    key: &[u8],
    iv: &[u8],
    data: &[u8],
    tag_bits: u32,
    length_bits: Option<u64>,
) -> Result<Vec<u8>> {
    let backend = backend.checked()?;
    let d = match tag_bits {
        32 => &core::D256_MAC32,
        64 => &core::D256_MAC64,
        128 => &core::D256_MAC128,
        t => return Err(Error::invalid(format!("tag_bits must be 32, 64 or 128, got {t}"))),
    };
    let length = check_length(data, length_bits)?;
    let mut k = key32(key)?;
    let v = zuc256_pack_iv(iv)?;
    let st = State::new_256(&k, &v, d, backend);
    k.zeroize();
    let words = tag_bits as usize / 32;
    let tag = mac::mac_words(st, backend, data, length, words, words);
    Ok(tag[..words].iter().flat_map(|w| w.to_be_bytes()).collect())
}
