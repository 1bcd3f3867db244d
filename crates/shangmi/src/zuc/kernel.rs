//! The ZUC kernels and the interface a one-stream generator implements.
//!
//! [`Kernel`] is the one-stream kernel, built once per process from the
//! [`crate::cpu`] tokens (each variant holds the tokens proving its
//! features) and stored in every ZUC state; [`Lanes`] is the kernel of the
//! many-message functions, derived from it. [`Generator`] is what a SIMD
//! kernel provides for one stream (the portable generator in `core.rs` is
//! the reference). Tests reach every kernel through [`Kernel::available`];
//! programs outside the crate through `SHANGMI_CPU_DISABLE`.

use std::sync::OnceLock;

#[cfg(target_arch = "aarch64")]
use super::aarch64;
use super::spec;
#[cfg(target_arch = "x86_64")]
use super::x86::{self, Form, Sbox};
#[cfg(target_arch = "x86_64")]
use crate::cpu::{AesAvx2, Avx512Vl, GfniAvx2, GfniAvx512, Token};
#[cfg(target_arch = "aarch64")]
use crate::cpu::{AesNeon, PmullNeon, Token};

/// How one stream's keystream, F's initialisation steps and the MAC inner
/// product are computed. Every x86-64 kernel computes S0 by `pshufb`
/// nibble lookups and the MAC with PCLMULQDQ, and precomputes the LFSR and
/// bit reorganisation 8 words at a time with AVX2; F's step itself runs in
/// 128-bit registers. The aarch64 kernels compute F on NEON registers, S1
/// by `AESE` and S0 by `TBL` nibble lookups (see aarch64/f.rs), the MAC
/// with `PMULL` when it is there.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// S1 by GFNI (`gf2p8affineqb` + `gf2p8affineinvqb`), AVX-512VL's
    /// VPROLVD and VPTERNLOGD in F: "gfni-avx512-128".
    #[cfg(target_arch = "x86_64")]
    GfniAvx512((AesAvx2, GfniAvx2, GfniAvx512)),
    /// S1 by AES-NI, AVX-512VL in F: "aesni-avx512-128".
    #[cfg(target_arch = "x86_64")]
    AesniAvx512((AesAvx2, Avx512Vl)),
    /// S1 by GFNI, AVX2 only: "gfni-avx2-128".
    #[cfg(target_arch = "x86_64")]
    GfniAvx2((AesAvx2, GfniAvx2)),
    /// S1 by AES-NI, AVX2 only: "aesni-avx2-128".
    #[cfg(target_arch = "x86_64")]
    AesniAvx2(AesAvx2),
    /// aarch64: F on NEON with S1 by `AESE`, the MAC with `PMULL`:
    /// "aese-pmull-128".
    #[cfg(target_arch = "aarch64")]
    AesePmull((AesNeon, PmullNeon)),
    /// aarch64: F on NEON with S1 by `AESE`, the MAC portable: "aese-128".
    #[cfg(target_arch = "aarch64")]
    Aese(AesNeon),
    /// Plain Rust for any CPU: S0 from register-held 4-bit tables, S1 by
    /// inversion in a tower field, on 32-bit words: "portable-32".
    /// Constant time; several times slower than the SIMD kernels.
    Portable,
}

impl Kernel {
    /// The fastest kernel [`crate::cpu`] allows (mask `gfni` for
    /// aesni-avx512-128, `avx512f` for gfni-avx2-128, `avx512f,gfni` for
    /// aesni-avx2-128, `avx2` or `aes` for portable-32; on aarch64 `pmull`
    /// for aese-128, `aes` or `neon` for portable-32). Decided once per
    /// process.
    pub(crate) fn auto() -> Kernel {
        static CHOSEN: OnceLock<Kernel> = OnceLock::new();
        *CHOSEN.get_or_init(|| Kernel::available().pop().unwrap_or(Kernel::Portable))
    }

    /// Every kernel this CPU allows, slowest (portable) first.
    pub(crate) fn available() -> Vec<Kernel> {
        #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_mut))]
        let mut k = vec![Kernel::Portable];
        #[cfg(target_arch = "x86_64")]
        if let Some(a) = AesAvx2::get() {
            k.push(Kernel::AesniAvx2(a));
            if let Some(g) = GfniAvx2::get() {
                k.push(Kernel::GfniAvx2((a, g)));
            }
            if let Some(v) = Avx512Vl::get() {
                k.push(Kernel::AesniAvx512((a, v)));
            }
            if let (Some(g), Some(z)) = (GfniAvx2::get(), GfniAvx512::get()) {
                k.push(Kernel::GfniAvx512((a, g, z)));
            }
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(a) = AesNeon::get() {
            k.push(Kernel::Aese(a));
            if let Some(p) = PmullNeon::get() {
                k.push(Kernel::AesePmull((a, p)));
            }
        }
        k
    }

    /// `<engine>-<register width>` (see the variants).
    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniAvx512(_) => "gfni-avx512-128",
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniAvx512(_) => "aesni-avx512-128",
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniAvx2(_) => "gfni-avx2-128",
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniAvx2(_) => "aesni-avx2-128",
            #[cfg(target_arch = "aarch64")]
            Kernel::AesePmull(_) => "aese-pmull-128",
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(_) => "aese-128",
            Kernel::Portable => "portable-32",
        }
    }

    /// The per-step operations of this kernel (F's update during
    /// initialisation, the MAC inner product).
    pub(crate) fn steps(self) -> Steps {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniAvx512((a, _, _))
            | Kernel::AesniAvx512((a, _))
            | Kernel::GfniAvx2((a, _))
            | Kernel::AesniAvx2(a) => Steps::Simd(a),
            #[cfg(target_arch = "aarch64")]
            Kernel::AesePmull((a, p)) => Steps::Neon(a, Some(p)),
            #[cfg(target_arch = "aarch64")]
            Kernel::Aese(a) => Steps::Neon(a, None),
            Kernel::Portable => Steps::Portable,
        }
    }

    /// The SIMD generator taking over an initialised state, or `None` for
    /// the portable kernel.
    pub(crate) fn generator(self, lfsr: &[u32; 16], r1: u32, r2: u32) -> Option<Box<dyn Generator>> {
        #[cfg(target_arch = "x86_64")]
        let (a, form) = match self {
            Kernel::GfniAvx512((a, _, z)) => (a, Form::GfniAvx512(z)),
            Kernel::AesniAvx512((a, v)) => (a, Form::Avx512(v)),
            Kernel::GfniAvx2((a, g)) => (a, Form::GfniAvx2(g)),
            Kernel::AesniAvx2(a) => (a, Form::Avx2),
            Kernel::Portable => return None,
        };
        #[cfg(target_arch = "x86_64")]
        return Some(x86::generator(a, form, lfsr, r1, r2));
        #[cfg(target_arch = "aarch64")]
        return match self {
            Kernel::AesePmull((a, _)) | Kernel::Aese(a) => Some(aarch64::generator(a, lfsr, r1, r2)),
            Kernel::Portable => None,
        };
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            let _ = (lfsr, r1, r2);
            None
        }
    }

    /// The many-message kernel that goes with this one: sixteen lanes in
    /// zmm registers for EEA3 with AVX-512 and GFNI, else eight (two sets
    /// interleaved for EEA3) in ymm registers.
    pub(crate) fn lanes(self) -> Lanes {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniAvx512((a, g, z)) => Lanes::Gfni512(z, Sbox::Gfni(a, g)),
            #[cfg(target_arch = "x86_64")]
            Kernel::GfniAvx2((a, g)) => Lanes::Avx2(Sbox::Gfni(a, g)),
            #[cfg(target_arch = "x86_64")]
            Kernel::AesniAvx512((a, _)) | Kernel::AesniAvx2(a) => Lanes::Avx2(Sbox::Aesni(a)),
            #[cfg(target_arch = "aarch64")]
            Kernel::AesePmull(_) | Kernel::Aese(_) => Lanes::One(self),
            Kernel::Portable => Lanes::One(self),
        }
    }
}

/// The many-message kernel: each variant holds the tokens its code needs.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Lanes {
    /// EEA3 in the sixteen 32-bit lanes of zmm registers with GFNI
    /// ("gfni-512"); EIA3 in eight ymm lanes with GFNI.
    #[cfg(target_arch = "x86_64")]
    Gfni512(GfniAvx512, Sbox),
    /// Eight lanes of ymm registers, S1 by GFNI ("gfni-256") or AES-NI
    /// ("aesni-256").
    #[cfg(target_arch = "x86_64")]
    Avx2(Sbox),
    /// One message after the other on a one-stream kernel.
    One(Kernel),
}

impl Lanes {
    /// `<engine>-<register width>`, or the one-stream kernel's name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Lanes::Gfni512(..) => "gfni-512",
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2(Sbox::Gfni(..)) => "gfni-256",
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2(Sbox::Aesni(_)) => "aesni-256",
            Lanes::One(k) => k.name(),
        }
    }
}

/// F's update and the MAC inner product, by kernel.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Steps {
    /// AES-NI/PCLMULQDQ with AVX2.
    #[cfg(target_arch = "x86_64")]
    Simd(AesAvx2),
    /// aarch64: F's step on NEON with `AESE`; the MAC with `PMULL` if given.
    #[cfg(target_arch = "aarch64")]
    Neon(AesNeon, Option<PmullNeon>),
    /// Straight from [`spec`].
    Portable,
}

impl Steps {
    /// F's register update: new (R1, R2) (see [`spec::f_update`]).
    #[inline]
    pub(crate) fn f_update(self, r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Steps::Simd(t) => x86::f_update(t, r1, r2, x1, x2),
            #[cfg(target_arch = "aarch64")]
            Steps::Neon(t, _) => aarch64::f_update(t, r1, r2, x1, x2),
            Steps::Portable => spec::f_update(r1, r2, x1, x2),
        }
    }

    /// The MAC inner product: XOR over the set bits of the big-endian
    /// message words of `msg` (a multiple of 4 bytes) of the keystream window
    /// starting at that bit; `ks` holds `msg.len() / 4 + 1` words.
    #[inline]
    pub(crate) fn window_xor(self, msg: &[u8], ks: &[u32]) -> u32 {
        match self {
            #[cfg(target_arch = "x86_64")]
            Steps::Simd(t) => x86::window_xor(t, msg, ks),
            #[cfg(target_arch = "aarch64")]
            Steps::Neon(_, Some(t)) => aarch64::window_xor(t, msg, ks),
            #[cfg(target_arch = "aarch64")]
            Steps::Neon(_, None) => spec_window_xor(msg, ks),
            Steps::Portable => spec_window_xor(msg, ks),
        }
    }
}

/// [`Steps::window_xor`] straight from [`spec`].
fn spec_window_xor(msg: &[u8], ks: &[u32]) -> u32 {
    let mut t = 0u32;
    for (j, m) in msg.chunks_exact(4).enumerate() {
        let m = u32::from_be_bytes([m[0], m[1], m[2], m[3]]);
        t ^= spec::window_word(m, ks[j], ks[j + 1]);
    }
    t
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
