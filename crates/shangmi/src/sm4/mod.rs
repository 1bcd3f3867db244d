//! SM4 block cipher (GB/T 32907-2016) and its modes of operation.
//!
//! [`Sm4`] holds the expanded key and the backend chosen for this CPU
//! ([`Backend::ALL`], fastest last; [`Backend::selected`] takes the fastest
//! the [`crate::cpu`] tokens allow, so `SHANGMI_CPU_DISABLE` selects lesser
//! ones: `gfni` gives VAES, `avx512f` GFNI on AVX2, `avx512f,gfni` VAES on
//! AVX2, `vaes` on a CPU without AVX-512 or GFNI AES-NI on AVX2,
//! `avx512f,avx2` AES-NI with SSE, `all` portable):
//! - GFNI (`gf2p8affineqb` + `gf2p8affineinvqb`) on 512- or 256-bit
//!   registers, VAES on 512- or 256-bit registers, AES-NI (`aesenclast` between two
//!   `pshufb` affine maps, see [`sbox`]) on AVX-512, AVX2 or SSE registers:
//!   word-sliced kernels written once in `simd.rs` over the engines of
//!   `x86.rs` (the AES-NI/AVX-512 one keeps its own tuned kernel in
//!   `aesni.rs`).
//! - `Backend::Portable`: constant time everywhere; runs of blocks are
//!   bitsliced (`bitsliced.rs`, 64 blocks per call), single blocks and
//!   serial modes use table-free SWAR arithmetic (`portable.rs`).
//!
//! GHASH picks its own implementation (VPCLMULQDQ, PCLMULQDQ or constant-
//! time portable) through the same tokens, whatever the SM4 backend.
//!
//! Modes live in [`modes`] (ECB, CBC, CTR, CFB-128, OFB, XTS and the streaming
//! CBC/CTR contexts), [`gcm`] and [`ccm`]; [`Stream`] is the one streaming
//! context over CBC, CTR and GCM with its finalize-once state machine.

mod block;
#[cfg(test)]
mod diff_tests;
mod ghash;
pub mod modes;

use block::portable;
#[cfg(target_arch = "x86_64")]
use block::x86::{self, aesni};

use std::sync::OnceLock;
use zeroize::Zeroize;

pub use modes::ccm::{self, Ccm};
pub use modes::gcm::{self, Gcm, GcmDecryptor, GcmEncryptor};
pub use modes::many::{cbc_decrypt_many, cbc_encrypt_many};
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

/// An implementation of the SM4 block function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Constant-time table-free arithmetic; works everywhere.
    Portable,
    /// AES-NI with SSSE3/SSE4.1 on 128-bit registers: 8 blocks in flight.
    AesniSse,
    /// AES-NI on the halves of 256-bit AVX2 registers: 16 blocks in flight.
    AesniAvx2,
    /// VAES on whole 256-bit AVX2 registers (no AVX-512): 32 blocks in flight.
    VaesAvx2,
    /// GFNI on 256-bit AVX2 registers: 16 blocks in flight.
    GfniAvx2,
    /// AES-NI `aesenclast` with AVX-512 (F, BW, VL): 64 blocks in flight.
    AesniAvx512,
    /// VAES on 512-bit registers: 64 blocks in flight.
    VaesAvx512,
    /// GFNI on 512-bit registers: 64 blocks in flight.
    GfniAvx512,
}

impl Backend {
    /// Every backend, slowest first.
    pub const ALL: &'static [Backend] = &[
        Backend::Portable,
        Backend::AesniSse,
        Backend::AesniAvx2,
        Backend::VaesAvx2,
        Backend::GfniAvx2,
        Backend::AesniAvx512,
        Backend::VaesAvx512,
        Backend::GfniAvx512,
    ];

    /// Backends this CPU can run (after `SHANGMI_CPU_DISABLE`), slowest first.
    pub fn available() -> Vec<Backend> {
        Backend::ALL.iter().copied().filter(|b| b.supported()).collect()
    }

    /// The backend used by [`Sm4::new`]: the fastest one [`crate::cpu`] allows.
    pub fn selected() -> Backend {
        static SELECTED: OnceLock<Backend> = OnceLock::new();
        *SELECTED.get_or_init(|| *Backend::available().last().unwrap_or(&Backend::Portable))
    }

    /// Short lowercase name ("portable", "gfni-avx512", ...).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::AesniSse => "aesni-sse",
            Backend::AesniAvx2 => "aesni-avx2",
            Backend::VaesAvx2 => "vaes-avx2",
            Backend::GfniAvx2 => "gfni-avx2",
            Backend::AesniAvx512 => "aesni-avx512",
            Backend::VaesAvx512 => "vaes-avx512",
            Backend::GfniAvx512 => "gfni-avx512",
        }
    }

    /// The backend called `name` (as [`Backend::name`] spells it).
    pub fn from_name(name: &str) -> Result<Backend> {
        Backend::ALL.iter().copied().find(|b| b.name() == name).ok_or_else(|| {
            let names: Vec<&str> = Backend::ALL.iter().map(|b| b.name()).collect();
            Error::invalid(format!("unknown SM4 backend '{name}'; expected one of {}", names.join(", ")))
        })
    }

    fn supported(self) -> bool {
        match self {
            Backend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Backend::AesniAvx512 => aesni::supported(),
            #[cfg(target_arch = "x86_64")]
            b => x86::supported(b),
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }
}

/// An SM4 key schedule bound to a backend. Round keys are zeroized on drop.
#[derive(Clone)]
pub struct Sm4 {
    enc: [u32; 32],
    dec: [u32; 32],
    backend: Backend,
}

impl std::fmt::Debug for Sm4 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sm4").field("backend", &self.backend).finish_non_exhaustive()
    }
}

impl Drop for Sm4 {
    fn drop(&mut self) {
        self.enc.zeroize();
        self.dec.zeroize();
    }
}

impl Sm4 {
    /// Expands `key` for the process-wide selected backend.
    pub fn new(key: &[u8; 16]) -> Sm4 {
        Self::build(key, Backend::selected())
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
        if !Backend::available().contains(&backend) {
            return Err(Error::invalid(format!("SM4 backend {} is not available on this CPU", backend.name())));
        }
        Ok(Self::build(key, backend))
    }

    fn build(key: &[u8; 16], backend: Backend) -> Sm4 {
        let enc = portable::expand_key(key);
        let mut dec = enc;
        dec.reverse();
        Sm4 { enc, dec, backend }
    }

    /// The backend this key schedule runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The 32 encryption round keys (for known-answer tests of the schedule).
    pub fn round_keys(&self) -> &[u32; 32] {
        &self.enc
    }

    /// Encrypts one block in place.
    pub fn encrypt_block(&self, block: &mut [u8; 16]) {
        self.one(&self.enc, block)
    }

    /// Decrypts one block in place.
    pub fn decrypt_block(&self, block: &mut [u8; 16]) {
        self.one(&self.dec, block)
    }

    /// Encrypts whole blocks in place, many at once on SIMD backends.
    /// Any trailing partial block (len % 16 bytes) is left untouched.
    pub fn encrypt_blocks(&self, data: &mut [u8]) {
        self.many(&self.enc, data)
    }

    /// Decrypts whole blocks in place (trailing partial block untouched).
    pub fn decrypt_blocks(&self, data: &mut [u8]) {
        self.many(&self.dec, data)
    }

    /// Encrypts the whole blocks of `src` into `dst` (same length, a
    /// multiple of 16 bytes): the SIMD backend reads `src` directly, which
    /// saves the copy-then-encrypt-in-place pass.
    pub(crate) fn encrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) {
        self.many_to(&self.enc, src, dst)
    }

    /// Decrypts the whole blocks of `src` into `dst` (same length, a
    /// multiple of 16 bytes).
    pub(crate) fn decrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) {
        self.many_to(&self.dec, src, dst)
    }

    /// XORs the keystream of the counter blocks `prefix || ctr`, `prefix ||
    /// ctr+1`, ... (32-bit big-endian counter wrapping mod 2^32, as GCM's
    /// inc32) into the whole blocks of `data`; returns the next counter.
    pub(crate) fn ctr32_xor(&self, prefix: &[u8; 12], ctr: u32, data: &mut [u8]) -> u32 {
        self.ctr32_xor_from(prefix, ctr, None, data)
    }

    /// [`Self::ctr32_xor`] onto `src` (whole blocks, as long as `dst`) into
    /// `dst`, or in place in `dst` when `src` is None.
    pub(crate) fn ctr32_xor_from(&self, prefix: &[u8; 12], mut ctr: u32, src: Option<&[u8]>, dst: &mut [u8]) -> u32 {
        let whole = dst.len() - dst.len() % BLOCK_SIZE;
        let done = self.ctr32_simd(prefix, ctr, src, &mut dst[..whole]);
        ctr = ctr.wrapping_add((done / BLOCK_SIZE) as u32);
        let data = &mut dst[done..whole];
        if let Some(src) = src {
            // The rest goes through the in-place path on a copy.
            data.copy_from_slice(&src[done..whole]);
        }
        if data.is_empty() {
            return ctr;
        }
        let mut ks = [0u8; modes::CHUNK];
        for chunk in data.chunks_mut(modes::CHUNK) {
            let ks = &mut ks[..chunk.len()];
            for b in ks.chunks_exact_mut(BLOCK_SIZE) {
                b[..12].copy_from_slice(prefix);
                b[12..].copy_from_slice(&ctr.to_be_bytes());
                ctr = ctr.wrapping_add(1);
            }
            self.encrypt_blocks(ks);
            for (d, k) in chunk.iter_mut().zip(ks.iter()) {
                *d ^= k;
            }
        }
        ks.zeroize();
        ctr
    }

    /// The whole steps of [`Self::ctr32_xor_from`] that a SIMD kernel
    /// handles (none on the portable backend); returns bytes done.
    fn ctr32_simd(&self, prefix: &[u8; 12], ctr: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self.backend == Backend::AesniAvx512 {
            let w =
                |i: usize| u32::from_be_bytes([prefix[4 * i], prefix[4 * i + 1], prefix[4 * i + 2], prefix[4 * i + 3]]);
            // SAFETY: this backend is only chosen when its CPU features exist.
            return unsafe { aesni::ctr32_xor(&self.enc, [w(0), w(1), w(2)], ctr, src, dst) };
        }
        #[cfg(target_arch = "x86_64")]
        {
            let w =
                |i: usize| u32::from_be_bytes([prefix[4 * i], prefix[4 * i + 1], prefix[4 * i + 2], prefix[4 * i + 3]]);
            x86::ctr32(self.backend, &self.enc, [w(0), w(1), w(2)], ctr, src, dst)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (prefix, ctr, src, dst);
            0
        }
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
        let data = &mut data[..whole];
        #[cfg(target_arch = "x86_64")]
        if self.backend == Backend::AesniAvx512 {
            // SAFETY: this backend is only chosen when its CPU features exist.
            return unsafe { aesni::cbc_encrypt(&self.enc, iv, data) };
        }
        #[cfg(target_arch = "x86_64")]
        if x86::cbc_encrypt(self.backend, &self.enc, iv, data) {
            return;
        }
        for block in data.chunks_exact_mut(BLOCK_SIZE) {
            for (a, b) in iv.iter_mut().zip(block.iter()) {
                *a ^= b;
            }
            self.encrypt_block(iv);
            block.copy_from_slice(iv);
        }
    }

    /// Messages per group of [`Self::cbc_encrypt_lanes`] on this backend
    /// (0: it has no such kernel).
    pub(crate) fn cbc_lanes_width(&self) -> usize {
        #[cfg(target_arch = "x86_64")]
        {
            x86::cbc_lanes_width(self.backend)
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            0
        }
    }

    /// CBC encryption of `bufs.len()` messages side by side, `blocks` whole
    /// blocks of each in place, message `l` chained from `chains[l]` (which
    /// becomes its last ciphertext block). `bufs.len()` must be 1, 2 or 4
    /// times [`Self::cbc_lanes_width`] (any count when that is 0).
    pub(crate) fn cbc_encrypt_lanes(&self, chains: &mut [[u8; 16]], bufs: &mut [&mut [u8]], blocks: usize) {
        #[cfg(target_arch = "x86_64")]
        if x86::cbc_lanes(self.backend, &self.enc, chains, bufs, blocks) {
            return;
        }
        // No side-by-side kernel on this backend: one message at a time.
        for (c, b) in chains.iter_mut().zip(bufs.iter_mut()) {
            self.cbc_encrypt_serial(c, &mut b[..16 * blocks]);
        }
    }

    /// CBC decryption of as many whole steps as a fused SIMD kernel
    /// handles (none on the portable backend), in place in `dst` or from
    /// `src` (at least `dst.len()` bytes) into `dst`; returns bytes done.
    pub(crate) fn cbc_decrypt_fused(&self, iv: &mut [u8; 16], src: Option<&[u8]>, dst: &mut [u8]) -> usize {
        #[cfg(target_arch = "x86_64")]
        if self.backend == Backend::AesniAvx512 {
            // SAFETY: this backend is only chosen when its CPU features exist.
            return unsafe { aesni::cbc_decrypt(&self.dec, iv, src, dst) };
        }
        let _ = (iv, src, dst);
        0
    }

    fn one(&self, rk: &[u32; 32], block: &mut [u8; 16]) {
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: a key schedule with this backend is only built when
            // `Backend::available()` confirmed the CPU features.
            Backend::AesniAvx512 => unsafe { aesni::crypt_one(rk, block) },
            #[cfg(target_arch = "x86_64")]
            b if x86::one(b, rk, block) => {}
            _ => portable::crypt_blocks(rk, block),
        }
    }

    fn many(&self, rk: &[u32; 32], data: &mut [u8]) {
        let whole = data.len() - data.len() % BLOCK_SIZE;
        let data = &mut data[..whole];
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `one`, the CPU features were checked at construction.
            Backend::AesniAvx512 => unsafe { aesni::crypt_blocks(rk, None, data) },
            #[cfg(target_arch = "x86_64")]
            b if x86::crypt_blocks(b, rk, None, data) => {}
            _ => portable::crypt_blocks(rk, data),
        }
    }

    fn many_to(&self, rk: &[u32; 32], src: &[u8], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(BLOCK_SIZE), "caller passes equal whole blocks");
        match self.backend {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as in `one`, the CPU features were checked at construction.
            Backend::AesniAvx512 => unsafe { aesni::crypt_blocks(rk, Some(src), dst) },
            #[cfg(target_arch = "x86_64")]
            b if x86::crypt_blocks(b, rk, Some(src), dst) => {}
            _ => {
                dst.copy_from_slice(src);
                portable::crypt_blocks(rk, dst)
            }
        }
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
