//! The SM4 block function: the portable kernels (table-free SWAR for single
//! blocks, bitsliced runs of 64 blocks, both over the tower-field S-box
//! circuit) and the x86-64 SIMD kernels, with the S-box algebra they share.
//!
//! [`Kernel`] is the one backend choice: a value built once from the
//! [`crate::cpu`] tokens, each variant holding the token that proves its
//! features, stored in the key schedule; every entry point below is one
//! `match` on it, and every kernel it calls is safe given the token.

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod bitsliced;
pub(crate) mod portable;
pub(crate) mod sbox;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod simd;
mod tower;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

use zeroize::Zeroize;

use super::{Backend, BLOCK_SIZE};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu::{self, Token};
#[cfg(target_arch = "x86_64")]
use x86::aesni;

/// Bytes of keystream or ciphertext a portable step handles at once (the
/// bitsliced kernel's 64 blocks).
const CHUNK: usize = 64 * BLOCK_SIZE;

/// An SM4 kernel with the proof that this CPU runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// GFNI on 512-bit registers.
    #[cfg(target_arch = "x86_64")]
    GfniZmm(cpu::GfniAvx512),
    /// VAES on 512-bit registers.
    #[cfg(target_arch = "x86_64")]
    VaesZmm(cpu::VaesAvx512),
    /// AES-NI `aesenclast` lane by lane with AVX-512 (its own tuned kernel).
    #[cfg(target_arch = "x86_64")]
    AesniZmm(cpu::AesAvx512),
    /// GFNI on 256-bit registers.
    #[cfg(target_arch = "x86_64")]
    GfniYmm(cpu::GfniAvx2),
    /// VAES on 256-bit registers.
    #[cfg(target_arch = "x86_64")]
    VaesYmm(cpu::VaesAvx2),
    /// AES-NI on the two halves of 256-bit registers.
    #[cfg(target_arch = "x86_64")]
    AesniYmm(cpu::AesAvx2),
    /// AES-NI on 128-bit registers.
    #[cfg(target_arch = "x86_64")]
    AesniXmm(cpu::AesSse),
    /// aarch64: the SM4 instructions on 128-bit registers.
    #[cfg(target_arch = "aarch64")]
    Sm4e(cpu::Sm4Neon),
    /// aarch64: `AESE` between `TBL` affine maps on 128-bit registers.
    #[cfg(target_arch = "aarch64")]
    Aese(cpu::AesNeon),
    /// Bitsliced runs and SWAR single blocks.
    Portable,
}

/// The big-endian words of a CTR prefix.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn prefix_words(prefix: &[u8; 12]) -> [u32; 3] {
    core::array::from_fn(|i| {
        u32::from_be_bytes([prefix[4 * i], prefix[4 * i + 1], prefix[4 * i + 2], prefix[4 * i + 3]])
    })
}

impl Kernel {
    /// The kernel for `b`, if this CPU (after `SHANGMI_CPU_DISABLE`) runs it.
    pub(crate) fn for_backend(b: Backend) -> Option<Kernel> {
        match b {
            Backend::Portable => Some(Kernel::Portable),
            #[cfg(target_arch = "x86_64")]
            Backend::Gfni512 => cpu::GfniAvx512::get().map(Kernel::GfniZmm),
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes512 => cpu::VaesAvx512::get().map(Kernel::VaesZmm),
            #[cfg(target_arch = "x86_64")]
            Backend::Aesni512 => cpu::AesAvx512::get().map(Kernel::AesniZmm),
            #[cfg(target_arch = "x86_64")]
            Backend::Gfni256 => cpu::GfniAvx2::get().map(Kernel::GfniYmm),
            #[cfg(target_arch = "x86_64")]
            Backend::Vaes256 => cpu::VaesAvx2::get().map(Kernel::VaesYmm),
            #[cfg(target_arch = "x86_64")]
            Backend::Aesni256 => cpu::AesAvx2::get().map(Kernel::AesniYmm),
            #[cfg(target_arch = "x86_64")]
            Backend::Aesni128 => cpu::AesSse::get().map(Kernel::AesniXmm),
            #[cfg(target_arch = "aarch64")]
            Backend::Sm4ce128 => cpu::Sm4Neon::get().map(Kernel::Sm4e),
            #[cfg(target_arch = "aarch64")]
            Backend::Aese128 => cpu::AesNeon::get().map(Kernel::Aese),
            #[allow(unreachable_patterns)]
            _ => None,
        }
    }

    /// The backend this kernel implements.
    pub(crate) fn backend(self) -> Backend {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(_) => Backend::Gfni512,
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(_) => Backend::Vaes512,
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(_) => Backend::Aesni512,
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(_) => Backend::Gfni256,
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(_) => Backend::Vaes256,
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(_) => Backend::Aesni256,
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(_) => Backend::Aesni128,
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(_) => Backend::Sm4ce128,
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(_) => Backend::Aese128,
            Kernel::Portable => Backend::Portable,
        }
    }

    /// The 32 encryption round keys of `key`: `SM4EKEY` on the SM4
    /// instructions, the portable (constant-time) schedule elsewhere.
    #[inline]
    pub(crate) fn expand_key(self, key: &[u8; 16]) -> [u32; 32] {
        #[cfg(target_arch = "aarch64")]
        if let Kernel::Sm4e(t) = self {
            return aarch64::sm4e::expand_key(t, key);
        }
        portable::expand_key(key)
    }

    /// One block in place through the latency path (`rk` in encryption or
    /// decryption order).
    #[inline]
    pub(crate) fn crypt_one(self, rk: &[u32; 32], block: &mut [u8; 16]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(t) => x86::one_gfni512(t, rk, block),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(t) => x86::one_aes(t, rk, block),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(t) => aesni::crypt_one(t, rk, block),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(t) => x86::one_gfni256(t, rk, block),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(t) => x86::one_aes(t, rk, block),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(t) => x86::one_aes(t, rk, block),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(t) => x86::one_aes(t, rk, block),
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(t) => aarch64::sm4e::crypt_one(t, rk, block),
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(t) => aarch64::aese::crypt_one(t, rk, block),
            Kernel::Portable => portable::crypt_blocks(rk, block),
        }
    }

    /// Whole blocks from `src` (or in place when None) into `dst`; `src`,
    /// when given, is as long as `dst`, and both are whole blocks.
    #[inline]
    pub(crate) fn crypt_blocks(self, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(t) => x86::gfni512::crypt(t, rk, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(t) => x86::vaes512::crypt(t, rk, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(t) => aesni::crypt_blocks(t, rk, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(t) => x86::gfni256::crypt(t, rk, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(t) => x86::vaes256::crypt(t, rk, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(t) => x86::aes256::crypt(t, rk, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(t) => x86::aes128::crypt(t, rk, src, dst),
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(t) => aarch64::sm4e::crypt(t, rk, src, dst),
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(t) => aarch64::aese::crypt(t, rk, src, dst),
            Kernel::Portable => {
                if let Some(src) = src {
                    dst.copy_from_slice(src);
                }
                portable::crypt_blocks(rk, dst)
            }
        }
    }

    /// XORs the keystream of `prefix || ctr`, `prefix || ctr+1`, ... (the
    /// last word wrapping mod 2^32) onto `src` (whole blocks, as long as
    /// `dst`) into `dst`, or in place in `dst` when `src` is None; `dst` is
    /// whole blocks. Returns the next counter.
    #[inline]
    pub(crate) fn ctr32_xor(
        self,
        rk: &[u32; 32],
        prefix: &[u8; 12],
        ctr: u32,
        src: Option<&[u8]>,
        dst: &mut [u8],
    ) -> u32 {
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        let p = prefix_words(prefix);
        let done = match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(t) => x86::gfni512::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(t) => x86::vaes512::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(t) => aesni::ctr32_xor(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(t) => x86::gfni256::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(t) => x86::vaes256::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(t) => x86::aes256::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(t) => x86::aes128::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(t) => aarch64::sm4e::ctr32(t, rk, p, ctr, src, dst),
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(t) => aarch64::aese::ctr32(t, rk, p, ctr, src, dst),
            // Everything through the counter blocks below.
            Kernel::Portable => 0,
        };
        // The SIMD kernels take whole multi-group steps; the rest (and all
        // of it on the portable kernel) is counter blocks through
        // `crypt_blocks`.
        let mut ctr = ctr.wrapping_add((done / BLOCK_SIZE) as u32);
        let data = &mut dst[done..];
        if let Some(src) = src {
            data.copy_from_slice(&src[done..]);
        }
        if data.is_empty() {
            return ctr;
        }
        let mut ks = [0u8; CHUNK];
        for chunk in data.chunks_mut(CHUNK) {
            let ks = &mut ks[..chunk.len()];
            for b in ks.chunks_exact_mut(BLOCK_SIZE) {
                b[..12].copy_from_slice(prefix);
                b[12..].copy_from_slice(&ctr.to_be_bytes());
                ctr = ctr.wrapping_add(1);
            }
            self.crypt_blocks(rk, None, ks);
            for (d, k) in chunk.iter_mut().zip(ks.iter()) {
                *d ^= k;
            }
        }
        ks.zeroize();
        ctr
    }

    /// CBC encryption of whole blocks in place on the latency path; `iv`
    /// becomes the last ciphertext block.
    #[inline]
    pub(crate) fn cbc_encrypt(self, rk: &[u32; 32], iv: &mut [u8; 16], data: &mut [u8]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(t) => x86::cbc_encrypt_gfni512(t, rk, iv, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(t) => x86::cbc_encrypt_aes_avx(t, rk, iv, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(t) => aesni::cbc_encrypt(t, rk, iv, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(t) => x86::cbc_encrypt_gfni256(t, rk, iv, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(t) => x86::cbc_encrypt_aes_avx(t, rk, iv, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(t) => x86::cbc_encrypt_aes_avx(t, rk, iv, data),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(t) => x86::cbc_encrypt_aes_sse(t, rk, iv, data),
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(t) => aarch64::sm4e::cbc_encrypt(t, rk, iv, data),
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(t) => aarch64::aese::cbc_encrypt(t, rk, iv, data),
            Kernel::Portable => {
                for block in data.chunks_exact_mut(BLOCK_SIZE) {
                    for (a, b) in iv.iter_mut().zip(block.iter()) {
                        *a ^= b;
                    }
                    portable::crypt_blocks(rk, iv);
                    block.copy_from_slice(iv);
                }
            }
        }
    }

    /// Messages per group of [`Self::cbc_lanes`]; None for the kernels
    /// without a side-by-side CBC kernel (many messages then go through
    /// the parallel path one block of each at a time instead).
    pub(crate) fn cbc_lanes_width(self) -> Option<usize> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(_) => Some(x86::gfni512::LANES),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(_) => Some(x86::vaes512::LANES),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(_) => Some(x86::gfni256::LANES),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(_) => Some(x86::vaes256::LANES),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(_) => Some(x86::aes256::LANES),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(_) => Some(x86::aes128::LANES),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(_) => None,
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(_) => None,
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(_) => Some(aarch64::aese::LANES),
            Kernel::Portable => None,
        }
    }

    /// CBC encryption of `bufs.len()` messages side by side, `blocks` whole
    /// blocks of each in place, message `l` chained from `chains[l]` (which
    /// becomes its last ciphertext block). `bufs.len()` is 1, 2 or 4 times
    /// [`Self::cbc_lanes_width`].
    pub(crate) fn cbc_lanes(self, rk: &[u32; 32], chains: &mut [[u8; 16]], bufs: &mut [&mut [u8]], blocks: usize) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniZmm(t) => x86::gfni512::cbc_lanes(t, rk, chains, bufs, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesZmm(t) => x86::vaes512::cbc_lanes(t, rk, chains, bufs, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniYmm(t) => x86::gfni256::cbc_lanes(t, rk, chains, bufs, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::VaesYmm(t) => x86::vaes256::cbc_lanes(t, rk, chains, bufs, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniYmm(t) => x86::aes256::cbc_lanes(t, rk, chains, bufs, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniXmm(t) => x86::aes128::cbc_lanes(t, rk, chains, bufs, blocks),
            // No side-by-side kernel: one message at a time.
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(_) => {
                for (c, b) in chains.iter_mut().zip(bufs.iter_mut()) {
                    self.cbc_encrypt(rk, c, &mut b[..16 * blocks]);
                }
            }
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(t) => aarch64::aese::cbc_lanes(t, rk, chains, bufs, blocks),
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm4e(_) => {
                for (c, b) in chains.iter_mut().zip(bufs.iter_mut()) {
                    self.cbc_encrypt(rk, c, &mut b[..16 * blocks]);
                }
            }
            Kernel::Portable => {
                for (c, b) in chains.iter_mut().zip(bufs.iter_mut()) {
                    self.cbc_encrypt(rk, c, &mut b[..16 * blocks]);
                }
            }
        }
    }

    /// CBC decryption (`rk` in decryption order) of whole blocks, in place
    /// in `dst` or from `src` (as long as `dst`) into `dst`; `iv` becomes
    /// the last ciphertext block.
    pub(crate) fn cbc_decrypt(self, rk: &[u32; 32], iv: &mut [u8; 16], src: Option<&[u8]>, dst: &mut [u8]) {
        let done = match self {
            // The XOR with the previous ciphertext fused into the kernel,
            // over whole 1024-byte steps.
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniZmm(t) => aesni::cbc_decrypt(t, rk, iv, src, dst),
            // Decrypt a batch, then XOR the previous blocks (below).
            _ => 0,
        };
        let data = &mut dst[done..];
        if let Some(src) = src {
            data.copy_from_slice(&src[done..]);
        }
        if data.is_empty() {
            return;
        }
        let mut saved = [0u8; CHUNK];
        for chunk in data.chunks_mut(CHUNK) {
            let n = chunk.len();
            saved[..n].copy_from_slice(chunk);
            self.crypt_blocks(rk, None, chunk);
            xor_in(&mut chunk[..BLOCK_SIZE], iv);
            xor_in(&mut chunk[BLOCK_SIZE..], &saved[..n - BLOCK_SIZE]);
            iv.copy_from_slice(&saved[n - BLOCK_SIZE..n]);
        }
        saved.zeroize();
    }
}

fn xor_in(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}
