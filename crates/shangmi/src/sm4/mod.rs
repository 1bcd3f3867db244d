//! SM4 block cipher (GB/T 32907-2016) and its modes of operation.
//!
//! [`Sm4`] holds the expanded key and the kernel chosen for this CPU
//! ([`block::Kernel`], a value holding the [`crate::cpu`] token that proves
//! its features, built once). Backends are named `<engine>-<width>`
//! ([`Backend::ALL`], slowest first; [`Backend::selected`] takes the fastest
//! the tokens allow, so `SHANGMI_CPU_DISABLE` selects lesser ones: `gfni`
//! gives `vaes-512`, `avx512f` `gfni-256`, `avx512f,gfni` `vaes-256`,
//! `avx512f,avx2` `aesni-128`, `all` `portable-64`):
//! - `gfni-512`/`gfni-256`: `gf2p8affineqb` + `gf2p8affineinvqb` on 512- or
//!   256-bit registers; `vaes-512`/`vaes-256`: VAES `aesenclast` between two
//!   `pshufb` affine maps (see `block/sbox.rs`); `aesni-256`/`aesni-128`:
//!   the same with AES-NI on 128-bit lanes. Word-sliced kernels written once
//!   in `block/simd.rs` over the engines of `block/x86/`.
//! - `aesni-512`: AES-NI with AVX-512, its own tuned kernel
//!   (`block/x86/aesni.rs`).
//! - `sm4ce-128` (aarch64): the SM4 instructions (`SM4E`), 8 blocks in
//!   flight; `aese-128` (aarch64 without them): `AESE` between `TBL`
//!   affine maps, 16 blocks in flight (`block/aarch64/`). Masks: `sm4`
//!   gives `aese-128`, `sm4,aes` `portable-64`.
//! - `portable-64`: constant time on every CPU, 64-bit integer code: runs of
//!   blocks bitsliced (`block/bitsliced.rs`, 64 blocks per call), single
//!   blocks and serial modes in table-free SWAR arithmetic
//!   (`block/portable.rs`).
//!
//! GHASH picks its own kernel (`vpclmul-512`, `vpclmul-256`, `pclmul-128`,
//! `pmull-128` on aarch64, `portable-64`, see [`ghash_backend_name`]) through the same tokens,
//! whatever the SM4 backend; a [`Gcm`] stores both kernels at construction.
//!
//! Modes live in [`modes`] (ECB, CBC, CTR, CFB-128, OFB, XTS, GCM, CCM, the
//! streaming CBC/CTR contexts, CBC over many messages); [`Stream`] is the
//! one streaming context over CBC, CTR and GCM with its finalize-once state
//! machine.

mod block;
#[cfg(test)]
mod diff_tests;
mod ghash;
pub mod modes;

use std::sync::OnceLock;
use zeroize::Zeroize;

use block::Kernel;

pub use modes::ccm::{self, Ccm};
pub use modes::gcm::{self, Gcm, GcmDecryptor, GcmEncryptor};
pub use modes::many::{cbc_decrypt_many, cbc_encrypt_many, cbc_encrypt_many_in_place};
pub use modes::stream::{block16, Stream};
pub use modes::{
    cbc_decrypt_expanded, cbc_decrypt_into, cbc_encrypt_expanded, cbc_encrypt_into, cfb_decrypt_in_place,
    cfb_encrypt_in_place, ctr_apply_in_place, ctr_apply_into, decrypted_len, ecb_decrypt, ecb_decrypt_into,
    ecb_encrypt, ecb_encrypt_into, encrypted_len, ofb_apply_in_place, CbcDecryptor, CbcEncryptor, CtrStream, Xts,
    XtsStandard,
};

use crate::{Error, Result};

/// Bytes in an SM4 block.
pub const BLOCK_SIZE: usize = 16;
/// Bytes in an SM4 key.
pub const KEY_SIZE: usize = 16;

/// The name of an SM4 implementation (`<engine>-<width>`); the kernel a key
/// runs on is chosen from it once, at construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// `portable-64`: constant-time 64-bit integer code, works everywhere
    /// (bitsliced runs of 64 blocks, table-free SWAR single blocks).
    Portable,
    /// `aesni-128`: AES-NI with SSSE3/SSE4.1 on 128-bit registers, 8 blocks in flight.
    Aesni128,
    /// `aesni-256`: AES-NI on the halves of 256-bit AVX2 registers, 16 blocks in flight.
    Aesni256,
    /// `vaes-256`: VAES on whole 256-bit AVX2 registers, 32 blocks in flight.
    Vaes256,
    /// `gfni-256`: GFNI on 256-bit AVX2 registers, 16 blocks in flight.
    Gfni256,
    /// `aesni-512`: AES-NI `aesenclast` with AVX-512 (F, BW, VL), 64 blocks in flight.
    Aesni512,
    /// `vaes-512`: VAES on 512-bit registers, 64 blocks in flight.
    Vaes512,
    /// `gfni-512`: GFNI on 512-bit registers, 64 blocks in flight.
    Gfni512,
    /// `aese-128` (aarch64): `AESE` between `TBL` affine maps on NEON
    /// registers, 16 blocks in flight.
    Aese128,
    /// `sm4ce-128` (aarch64): the SM4 instructions, 8 blocks in flight.
    Sm4ce128,
}

impl Backend {
    /// Every backend, slowest first.
    pub const ALL: &'static [Backend] = &[
        Backend::Portable,
        Backend::Aesni128,
        Backend::Aesni256,
        Backend::Vaes256,
        Backend::Gfni256,
        Backend::Aesni512,
        Backend::Vaes512,
        Backend::Gfni512,
        Backend::Aese128,
        Backend::Sm4ce128,
    ];

    /// Backends this CPU can run (after `SHANGMI_CPU_DISABLE`), slowest first.
    pub fn available() -> Vec<Backend> {
        Backend::ALL.iter().copied().filter(|&b| Kernel::for_backend(b).is_some()).collect()
    }

    /// The backend used by [`Sm4::new`]: the fastest one [`crate::cpu`] allows.
    pub fn selected() -> Backend {
        selected_kernel().backend()
    }

    /// The name, `<engine>-<width>` ("gfni-512", ..., "portable-64").
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable-64",
            Backend::Aesni128 => "aesni-128",
            Backend::Aesni256 => "aesni-256",
            Backend::Vaes256 => "vaes-256",
            Backend::Gfni256 => "gfni-256",
            Backend::Aesni512 => "aesni-512",
            Backend::Vaes512 => "vaes-512",
            Backend::Gfni512 => "gfni-512",
            Backend::Aese128 => "aese-128",
            Backend::Sm4ce128 => "sm4ce-128",
        }
    }

    /// The backend called `name` (as [`Backend::name`] spells it).
    pub fn from_name(name: &str) -> Result<Backend> {
        Backend::ALL.iter().copied().find(|b| b.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
            Error::invalid(format!("unknown SM4 backend '{name}'; expected one of {}", names.join(", ")))
        })
    }
}

/// The fastest kernel the CPU allows, chosen once per process.
fn selected_kernel() -> Kernel {
    static SELECTED: OnceLock<Kernel> = OnceLock::new();
    *SELECTED
        .get_or_init(|| Backend::ALL.iter().rev().find_map(|&b| Kernel::for_backend(b)).unwrap_or(Kernel::Portable))
}

/// The name of the GHASH kernel [`Gcm`] uses on this CPU: `vpclmul-512`,
/// `vpclmul-256`, `pclmul-128` or `portable-64` (constant-time 64-bit
/// integer multiplications).
pub fn ghash_backend_name() -> &'static str {
    ghash::Kernel::best().name()
}

/// An SM4 key schedule bound to a kernel. Round keys are zeroized on drop.
#[derive(Clone)]
pub struct Sm4 {
    enc: [u32; 32],
    dec: [u32; 32],
    kernel: Kernel,
}

impl std::fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm4").field("backend", &self.kernel.backend()).finish_non_exhaustive()
    }
}

impl Drop for Sm4 {
    fn drop(&mut self) {
        self.enc.zeroize();
        self.dec.zeroize();
    }
}

impl Sm4 {
    /// Expands `key` for the process-wide selected kernel.
    pub fn new(key: &[u8; 16]) -> Sm4 {
        Self::build(key, selected_kernel())
    }

    /// Expands a key given as a slice, checking its length.
    pub fn from_slice(key: &[u8]) -> Result<Sm4> {
        let key: &[u8; 16] =
            key.try_into().map_err(|_| Error::invalid_key(format!("SM4 key must be 16 bytes, got {}", key.len())))?;
        Ok(Sm4::new(key))
    }

    /// Expands `key` for an explicit backend (tests and benchmarks compare
    /// backends this way); fails if the CPU cannot run it.
    pub fn with_backend(key: &[u8; 16], backend: Backend) -> Result<Sm4> {
        match Kernel::for_backend(backend) {
            Some(k) => Ok(Self::build(key, k)),
            None => Err(Error::invalid(format!("SM4 backend {} is not available on this CPU", backend.name()))),
        }
    }

    fn build(key: &[u8; 16], kernel: Kernel) -> Sm4 {
        let enc = kernel.expand_key(key);
        let mut dec = enc;
        dec.reverse();
        Sm4 { enc, dec, kernel }
    }

    /// The backend this key schedule runs on.
    pub fn backend(&self) -> Backend {
        self.kernel.backend()
    }

    /// The 32 encryption round keys (for known-answer tests of the schedule).
    pub fn round_keys(&self) -> &[u32; 32] {
        &self.enc
    }

    /// Encrypts one block in place.
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        self.kernel.crypt_one(&self.enc, block)
    }

    /// Decrypts one block in place.
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        self.kernel.crypt_one(&self.dec, block)
    }

    /// Encrypts whole blocks in place, many at once on SIMD backends.
    /// Any trailing partial block (len % 16 bytes) is left untouched.
    pub fn encrypt_blocks(&self, data: &mut [u8]) {
        let whole = data.len() - data.len() % BLOCK_SIZE;
        self.kernel.crypt_blocks(&self.enc, None, &mut data[..whole])
    }

    /// Decrypts whole blocks in place (trailing partial block untouched).
    pub fn decrypt_blocks(&self, data: &mut [u8]) {
        let whole = data.len() - data.len() % BLOCK_SIZE;
        self.kernel.crypt_blocks(&self.dec, None, &mut data[..whole])
    }

    /// Encrypts the whole blocks of `src` into `dst` (same length, a
    /// multiple of 16 bytes): the SIMD kernels read `src` directly, which
    /// saves the copy-then-encrypt-in-place pass.
    pub(crate) fn encrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(BLOCK_SIZE), "caller passes equal whole blocks");
        self.kernel.crypt_blocks(&self.enc, Some(src), dst)
    }

    /// Decrypts the whole blocks of `src` into `dst` (same length, a
    /// multiple of 16 bytes).
    pub(crate) fn decrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(BLOCK_SIZE), "caller passes equal whole blocks");
        self.kernel.crypt_blocks(&self.dec, Some(src), dst)
    }

    /// XORs the keystream of the counter blocks `prefix || ctr`, `prefix ||
    /// ctr+1`, ... (32-bit big-endian counter wrapping mod 2^32, as GCM's
    /// inc32) into the whole blocks of `data`; returns the next counter.
    pub(crate) fn ctr32_xor(&self, prefix: &[u8; 12], ctr: u32, data: &mut [u8]) -> u32 {
        self.ctr32_xor_from(prefix, ctr, None, data)
    }

    /// [`Self::ctr32_xor`] onto `src` (whole blocks, as long as `dst`) into
    /// `dst`, or in place in `dst` when `src` is None.
    pub(crate) fn ctr32_xor_from(&self, prefix: &[u8; 12], ctr: u32, src: Option<&[u8]>, dst: &mut [u8]) -> u32 {
        let whole = dst.len() - dst.len() % BLOCK_SIZE;
        self.kernel.ctr32_xor(&self.enc, prefix, ctr, src.map(|s| &s[..whole]), &mut dst[..whole])
    }

    /// XORs the keystream of a full 128-bit big-endian counter into the whole
    /// blocks of `data` (in place, or onto `src` when given: whole blocks as
    /// long as `data`); returns the next counter.
    pub(crate) fn ctr128_xor(&self, mut ctr: u128, mut src: Option<&[u8]>, data: &mut [u8]) -> u128 {
        let whole = data.len() - data.len() % BLOCK_SIZE;
        let mut data = &mut data[..whole];
        while !data.is_empty() {
            // Run the 32-bit counter path up to the next carry out of the low word.
            let lo = ctr as u32;
            let before_carry = (u32::MAX - lo) as u64 + 1;
            let n = ((data.len() / BLOCK_SIZE) as u64).min(before_carry) as usize;
            let mut prefix = [0u8; 12];
            prefix.copy_from_slice(&ctr.to_be_bytes()[..12]);
            let (now, rest) = data.split_at_mut(n * BLOCK_SIZE);
            let (src_now, src_rest) = match src {
                Some(s) => (Some(&s[..n * BLOCK_SIZE]), Some(&s[n * BLOCK_SIZE..])),
                None => (None, None),
            };
            self.ctr32_xor_from(&prefix, lo, src_now, now);
            src = src_rest;
            ctr = ctr.wrapping_add(n as u128);
            data = rest;
        }
        ctr
    }

    /// CBC encryption of whole blocks in place; `iv` becomes the last block.
    pub(crate) fn cbc_encrypt_serial(&self, iv: &mut [u8; 16], data: &mut [u8]) {
        let whole = data.len() - data.len() % BLOCK_SIZE;
        self.kernel.cbc_encrypt(&self.enc, iv, &mut data[..whole])
    }

    /// Messages per group of [`Self::cbc_encrypt_lanes`] on this kernel;
    /// None when it has no side-by-side kernel.
    pub(crate) fn cbc_lanes_width(&self) -> Option<usize> {
        self.kernel.cbc_lanes_width()
    }

    /// CBC encryption of `bufs.len()` messages side by side, `blocks` whole
    /// blocks of each in place, message `l` chained from `chains[l]` (which
    /// becomes its last ciphertext block). `bufs.len()` must be 1, 2 or 4
    /// times [`Self::cbc_lanes_width`].
    pub(crate) fn cbc_encrypt_lanes(&self, chains: &mut [[u8; 16]], bufs: &mut [&mut [u8]], blocks: usize) {
        self.kernel.cbc_lanes(&self.enc, chains, bufs, blocks)
    }

    /// CBC decryption of whole blocks, in place in `dst` or from `src` (at
    /// least `dst.len()` bytes) into `dst`; `iv` becomes the last
    /// ciphertext block.
    pub(crate) fn cbc_decrypt(&self, iv: &mut [u8; 16], src: Option<&[u8]>, dst: &mut [u8]) {
        let whole = dst.len() - dst.len() % BLOCK_SIZE;
        self.kernel.cbc_decrypt(&self.dec, iv, src.map(|s| &s[..whole]), &mut dst[..whole])
    }
}

/// SM4-CBC encryption with an explicit key; `padding` selects PKCS#7.
/// Without padding the data must be whole blocks.
pub fn cbc_encrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8], padding: bool) -> Result<Vec<u8>> {
    cbc_encrypt_expanded(&Sm4::new(key), iv, data, padding)
}

/// SM4-CBC decryption with an explicit key; with `padding`, bad PKCS#7
/// padding is reported as [`Error::InvalidInput`].
pub fn cbc_decrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8], padding: bool) -> Result<Vec<u8>> {
    cbc_decrypt_expanded(&Sm4::new(key), iv, data, padding)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ctr32_wraps_the_low_word_only() {
        // GCM's inc32: the prefix never changes, the last word wraps mod 2^32.
        let prefix = [0xabu8; 12];
        for b in Backend::available() {
            let c = Sm4::with_backend(&[5u8; 16], b).unwrap();
            for start in [0u32, u32::MAX - 40, u32::MAX] {
                let n = 70;
                let mut want = vec![0u8; 16 * n];
                for (i, blk) in want.chunks_exact_mut(16).enumerate() {
                    blk[..12].copy_from_slice(&prefix);
                    blk[12..].copy_from_slice(&start.wrapping_add(i as u32).to_be_bytes());
                }
                c.encrypt_blocks(&mut want);
                let mut got = vec![0u8; 16 * n];
                let next = c.ctr32_xor(&prefix, start, &mut got);
                assert_eq!(got, want, "{b:?} start {start:#x}");
                assert_eq!(next, start.wrapping_add(n as u32));
            }
        }
    }
}
