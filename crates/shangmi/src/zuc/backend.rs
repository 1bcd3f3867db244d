//! Backend choice and the interface a backend implements.
//!
//! [`Backend`] names the implementations and picks one through
//! [`crate::cpu`]; [`Generator`] is what a SIMD backend provides for one
//! stream (the portable generator in `core.rs` is the reference), and
//! [`Kernels`] the per-step operations the shared code calls (F's register
//! update during initialisation, the MAC's inner product). This file
//! depends on no backend; `core.rs` maps a [`Backend`] to its implementation.

use std::sync::OnceLock;

use super::spec;
#[cfg(target_arch = "x86_64")]
use crate::cpu::Token;
use crate::{Error, Result};

/// How the keystream generator and the MAC inner product are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain Rust for any CPU: S0 from register-held 4-bit tables, S1 by
    /// inversion in a tower field. Constant time; several times slower than
    /// the SIMD backends.
    Portable,
    /// x86-64: S-boxes with AES-NI and `pshufb`, MAC with PCLMULQDQ.
    Simd,
    /// [`Backend::Simd`] plus AVX-512VL's VPROLVD and VPTERNLOGD, which shorten
    /// F's dependency chain.
    Avx512,
    /// [`Backend::Simd`] with S1 by GFNI (`gf2p8affineqb` +
    /// `gf2p8affineinvqb`), for CPUs with GFNI and AVX2 but no AVX-512.
    GfniAvx2,
    /// [`Backend::Avx512`] with S1 by GFNI (`gf2p8affineqb` +
    /// `gf2p8affineinvqb`) in one stream, and 128-EEA3 over many messages in
    /// the sixteen 32-bit lanes of 512-bit registers.
    Gfni,
}

impl Backend {
    /// The fastest backend [`crate::cpu`] allows (mask `gfni` for
    /// [`Backend::Avx512`], `avx512f` for [`Backend::GfniAvx2`],
    /// `avx512f,gfni` for [`Backend::Simd`], `avx2` or `aes` for the portable
    /// one). Decided once per process.
    pub fn auto() -> Backend {
        static CHOSEN: OnceLock<Backend> = OnceLock::new();
        *CHOSEN.get_or_init(|| {
            [Backend::Gfni, Backend::Avx512, Backend::GfniAvx2, Backend::Simd]
                .into_iter()
                .find(|b| b.is_available())
                .unwrap_or(Backend::Portable)
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
            #[cfg(target_arch = "x86_64")]
            Backend::GfniAvx2 => Backend::Simd.is_available() && crate::cpu::GfniAvx2::get().is_some(),
            #[cfg(target_arch = "x86_64")]
            Backend::Gfni => Backend::Avx512.is_available() && crate::cpu::GfniAvx512::get().is_some(),
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Simd | Backend::GfniAvx2 | Backend::Avx512 | Backend::Gfni => false,
        }
    }

    /// Every backend this CPU can run (for tests and benchmarks).
    pub fn available() -> Vec<Backend> {
        [Backend::Portable, Backend::Simd, Backend::GfniAvx2, Backend::Avx512, Backend::Gfni]
            .into_iter()
            .filter(|b| b.is_available())
            .collect()
    }

    /// A short name: "portable", "simd", "gfni-avx2", "avx512" or "gfni".
    pub fn name(self) -> &'static str {
        match self {
            Backend::Portable => "portable",
            Backend::Simd => "simd",
            Backend::GfniAvx2 => "gfni-avx2",
            Backend::Avx512 => "avx512",
            Backend::Gfni => "gfni",
        }
    }

    /// Whether this backend runs the x86-64 SIMD code.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn is_x86_simd(self) -> bool {
        matches!(self, Backend::Simd | Backend::GfniAvx2 | Backend::Avx512 | Backend::Gfni)
    }

    /// Whether this backend computes S1 with GFNI.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn has_gfni(self) -> bool {
        matches!(self, Backend::GfniAvx2 | Backend::Gfni)
    }

    /// `self` if this CPU can run it, else an [`Error::InvalidInput`].
    pub(crate) fn checked(self) -> Result<Backend> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(Error::invalid(format!("ZUC backend {} is not supported by this CPU", self.name())))
        }
    }
}

/// One stream's keystream generator, taking over an initialised state.
/// Implementations wipe their state on drop.
pub(crate) trait Generator: Send + Sync {
    /// Fills `out` with the next keystream words.
    fn generate(&mut self, out: &mut [u32]);

    /// `dst = src ^ keystream`, the words written big-endian; `src` and
    /// `dst` have the same length, a multiple of 4.
    fn xor_be(&mut self, src: &[u8], dst: &mut [u8]);
}

/// The operations shared code calls per step, by backend.
pub(crate) trait Kernels: Sync {
    /// F's register update: new (R1, R2) (see [`spec::f_update`]).
    fn f_update(&self, r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32);

    /// The MAC inner product: XOR over the set bits of the big-endian
    /// message words of `msg` (a multiple of 4 bytes) of the keystream window
    /// starting at that bit; `ks` holds `msg.len() / 4 + 1` words.
    fn window_xor(&self, msg: &[u8], ks: &[u32]) -> u32;
}

/// The reference kernels, straight from [`spec`].
pub(crate) struct PortableKernels;

impl Kernels for PortableKernels {
    fn f_update(&self, r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        spec::f_update(r1, r2, x1, x2)
    }

    fn window_xor(&self, msg: &[u8], ks: &[u32]) -> u32 {
        let mut t = 0u32;
        for (j, m) in msg.chunks_exact(4).enumerate() {
            let m = u32::from_be_bytes([m[0], m[1], m[2], m[3]]);
            t ^= spec::window_word(m, ks[j], ks[j + 1]);
        }
        t
    }
}
