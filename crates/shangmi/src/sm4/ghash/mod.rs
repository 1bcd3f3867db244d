//! GHASH (the universal hash of GCM, NIST SP 800-38D).
//!
//! [`Kernel`] is chosen once, through [`crate::cpu`] and independently of
//! the SM4 backend, and stored in the [`Ghash`] state (so in the `Gcm`
//! key); each variant holds the tokens that prove its features:
//! - `portable-64` ([`portable`]), constant time: 64x64 carry-less products
//!   from integer multiplications of bit-sparse operands, Karatsuba, four
//!   blocks times H^4..H^1 per reduction. No branch or table depends on H
//!   or the data.
//! - `pclmul-128`: PCLMULQDQ, eight blocks times H^8..H^1 per reduction.
//! - `vpclmul-256`: VPCLMULQDQ on 256-bit registers (AVX2), sixteen blocks
//!   times H^16..H^1 (two per register) per reduction.
//! - `vpclmul-512`: VPCLMULQDQ on 512-bit registers, sixteen blocks (four
//!   per register) per reduction.
//! - `pmull-128` (aarch64): `PMULL`/`PMULL2`, eight blocks times H^8..H^1
//!   per reduction.
//!
//! The carry-less paths are constant time too: `pclmulqdq`/`vpclmulqdq`
//! have data-independent latency, and memory is indexed only by public
//! lengths.

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod portable;
#[cfg(target_arch = "x86_64")]
mod x86;

use std::sync::OnceLock;

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu::{self, Token};
use portable::{gf_mul, update_portable, Multiplier, PORTABLE_AGG};

/// A GHASH kernel with the proof that this CPU runs it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// VPCLMULQDQ on 512-bit registers (whole 16-block steps), PCLMULQDQ
    /// for the rest.
    #[cfg(target_arch = "x86_64")]
    Vpclmul512(cpu::VaesAvx512, cpu::Clmul),
    /// VPCLMULQDQ on 256-bit registers (whole 16-block steps), PCLMULQDQ
    /// for the rest.
    #[cfg(target_arch = "x86_64")]
    Vpclmul256(cpu::ClmulAvx2, cpu::Clmul),
    /// PCLMULQDQ on 128-bit registers.
    #[cfg(target_arch = "x86_64")]
    Pclmul128(cpu::Clmul),
    /// aarch64: `PMULL`/`PMULL2` on 128-bit registers.
    #[cfg(target_arch = "aarch64")]
    Pmull128(cpu::PmullNeon),
    /// Integer multiplications only (constant time).
    Portable,
}

impl Kernel {
    /// The fastest kernel the CPU allows, chosen once per process.
    pub(crate) fn best() -> Kernel {
        static BEST: OnceLock<Kernel> = OnceLock::new();
        *BEST.get_or_init(|| *Kernel::available().last().unwrap_or(&Kernel::Portable))
    }

    /// Every kernel the CPU allows, slowest first.
    pub(crate) fn available() -> Vec<Kernel> {
        #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_mut))]
        let mut v = vec![Kernel::Portable];
        #[cfg(target_arch = "aarch64")]
        v.extend(cpu::PmullNeon::get().map(Kernel::Pmull128));
        #[cfg(target_arch = "x86_64")]
        {
            // The wider kernels' tokens prove PCLMULQDQ too, so the
            // `Clmul` token exists whenever they do.
            let clmul = cpu::Clmul::get();
            v.extend(clmul.map(Kernel::Pclmul128));
            v.extend(cpu::ClmulAvx2::get().zip(clmul).map(|(t, c)| Kernel::Vpclmul256(t, c)));
            v.extend(cpu::VaesAvx512::get().zip(clmul).map(|(t, c)| Kernel::Vpclmul512(t, c)));
        }
        v
    }

    /// The name, `<engine>-<width>`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vpclmul512(..) => "vpclmul-512",
            #[cfg(target_arch = "x86_64")]
            Kernel::Vpclmul256(..) => "vpclmul-256",
            #[cfg(target_arch = "x86_64")]
            Kernel::Pclmul128(_) => "pclmul-128",
            #[cfg(target_arch = "aarch64")]
            Kernel::Pmull128(_) => "pmull-128",
            Kernel::Portable => "portable-64",
        }
    }

    fn is_portable(self) -> bool {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vpclmul512(..) | Kernel::Vpclmul256(..) | Kernel::Pclmul128(_) => false,
            #[cfg(target_arch = "aarch64")]
            Kernel::Pmull128(_) => false,
            Kernel::Portable => true,
        }
    }
}

/// Hash key and running state.
#[derive(Clone)]
pub(crate) struct Ghash {
    acc: u128,
    kernel: Kernel,
    /// H^1..H^4 prepared for the portable kernel.
    pows: [Multiplier; PORTABLE_AGG],
    /// H^1..H^16 in the byte-reversed layout of the carry-less kernels.
    powers: [[u8; 16]; 16],
}

impl Drop for Ghash {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.acc);
        for p in self.pows.iter_mut() {
            zeroize::Zeroize::zeroize(&mut p.0);
        }
        zeroize::Zeroize::zeroize(&mut self.powers);
    }
}

impl Ghash {
    /// GHASH with key `h` on the fastest kernel this CPU allows.
    pub(crate) fn new(h: &[u8; 16]) -> Ghash {
        Ghash::with_kernel(h, Kernel::best())
    }

    /// GHASH on an explicit kernel (tests compare them).
    pub(crate) fn with_kernel(h: &[u8; 16], kernel: Kernel) -> Ghash {
        let hv = u128::from_be_bytes(*h);
        let mut powers = [[0u8; 16]; 16];
        let mut pows = [Multiplier::default(); PORTABLE_AGG];
        let mut acc = hv;
        if kernel.is_portable() {
            for p in pows.iter_mut() {
                *p = Multiplier::new(acc);
                acc = gf_mul(acc, hv);
            }
        } else {
            for slot in powers.iter_mut() {
                *slot = acc.to_le_bytes();
                acc = gf_mul(acc, hv);
            }
        }
        zeroize::Zeroize::zeroize(&mut acc);
        Ghash { acc: 0, kernel, pows, powers }
    }

    /// Absorbs `data`, zero-padding a final partial block.
    pub(crate) fn update_padded(&mut self, data: &[u8]) {
        let whole = data.len() - data.len() % 16;
        self.update_blocks(&data[..whole]);
        if whole < data.len() {
            let mut b = [0u8; 16];
            b[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(&b);
        }
    }

    /// Absorbs whole 16-byte blocks.
    pub(crate) fn update_blocks(&mut self, data: &[u8]) {
        debug_assert!(data.len().is_multiple_of(16));
        let acc = self.acc;
        #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
        let powers = &self.powers;
        self.acc = match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vpclmul512(t, c) => {
                let n = data.len() - data.len() % 256;
                x86::update(c, x86::update16(t, acc, powers, &data[..n]), powers, &data[n..])
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Vpclmul256(t, c) => {
                let n = data.len() - data.len() % 256;
                x86::update(c, x86::update16y(t, acc, powers, &data[..n]), powers, &data[n..])
            }
            #[cfg(target_arch = "x86_64")]
            Kernel::Pclmul128(c) => x86::update(c, acc, powers, data),
            #[cfg(target_arch = "aarch64")]
            Kernel::Pmull128(t) => aarch64::update(t, acc, powers, data),
            Kernel::Portable => update_portable(acc, &self.pows, data),
        };
    }

    /// The hash so far.
    pub(crate) fn value(&self) -> [u8; 16] {
        self.acc.to_be_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SP 800-38D's bit-serial multiplication, the reference.
    fn gf_mul_serial(x: u128, y: u128) -> u128 {
        let mut z = 0u128;
        let mut v = y;
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            v = if v & 1 == 1 { (v >> 1) ^ (0xE1u128 << 120) } else { v >> 1 };
        }
        z
    }

    fn rng(seed: u64) -> impl FnMut() -> u8 {
        let mut next = crate::test_rng(seed);
        move || next() as u8
    }

    /// The portable path (four blocks per reduction, a remainder one at a
    /// time) equals Horner's rule with the bit-serial multiplication.
    #[test]
    fn portable_update_matches_bit_serial_horner() {
        let mut next = rng(0xddb1_a5e5);
        for blocks in [0usize, 1, 3, 4, 5, 8, 11, 33] {
            let h: [u8; 16] = core::array::from_fn(|_| next());
            let data: Vec<u8> = (0..16 * blocks).map(|_| next()).collect();
            let hv = u128::from_be_bytes(h);
            let want = data
                .chunks_exact(16)
                .fold(0u128, |acc, b| gf_mul_serial(acc ^ u128::from_be_bytes(b.try_into().unwrap()), hv));
            let mut g = Ghash::with_kernel(&h, Kernel::Portable);
            g.update_blocks(&data);
            assert_eq!(g.value(), want.to_be_bytes(), "{blocks} blocks");
        }
    }

    #[test]
    fn ct_multiplication_matches_bit_serial() {
        let mut next = rng(0x1234_5678_9abc_def1);
        let mut val = || u128::from_le_bytes(core::array::from_fn(|_| next()));
        for _ in 0..2000 {
            let (a, b) = (val(), val());
            assert_eq!(gf_mul(a, b), gf_mul_serial(a, b), "{a:#x} {b:#x}");
        }
        for (a, b) in [(0, 0), (u128::MAX, u128::MAX), (1, u128::MAX), (1 << 127, 1 << 127), (u128::MAX, 1)] {
            assert_eq!(gf_mul(a, b), gf_mul_serial(a, b), "{a:#x} {b:#x}");
        }
    }

    #[test]
    fn every_kernel_matches_portable() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        let h: [u8; 16] = core::array::from_fn(|_| next());
        let data: Vec<u8> = (0..16 * 75).map(|_| next()).collect();
        let mut p = Ghash::with_kernel(&h, Kernel::Portable);
        p.update_blocks(&data);
        for k in Kernel::available() {
            for split in [0, 16, 48, 64, 80, 128, 144, 176, 256, 272, 432, 528, 1200] {
                let mut g = Ghash::with_kernel(&h, k);
                g.update_blocks(&data[..split]);
                g.update_blocks(&data[split..]);
                assert_eq!(g.value(), p.value(), "{k:?} split {split}");
            }
        }
    }
}
