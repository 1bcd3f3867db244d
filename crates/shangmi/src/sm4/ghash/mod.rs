//! GHASH (the universal hash of GCM, NIST SP 800-38D).
//!
//! Three implementations, chosen by [`Kind::best`] through [`crate::cpu`]
//! independently of the SM4 backend:
//! - portable, constant time: 64x64 carry-less products from integer
//!   multiplications of bit-sparse operands (one bit in four, so carries
//!   never reach a bit that is kept), Karatsuba, and the high halves from
//!   the bit-reversed operands (BearSSL's `ghash_ctmul64` construction);
//!   four blocks times H^4..H^1 per reduction. No branch or table depends
//!   on H or the data.
//! - PCLMULQDQ: eight blocks times H^8..H^1, one reduction per eight.
//! - VPCLMULQDQ on 256-bit registers (AVX2, no AVX-512): sixteen blocks
//!   times H^16..H^1 (two per register), one reduction per sixteen.
//! - VPCLMULQDQ on 512-bit registers: sixteen blocks times H^16..H^1 (four
//!   per register), one reduction per sixteen.
//!
//! The carry-less paths are constant time too: `pclmulqdq`/`vpclmulqdq`
//! have data-independent latency, and memory is indexed only by public
//! lengths.

use crate::cpu::{self, Token};

/// A GHASH implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Integer multiplications only (constant time).
    Portable,
    /// PCLMULQDQ on 128-bit registers.
    Clmul,
    /// VPCLMULQDQ on 256-bit registers.
    VclmulY,
    /// VPCLMULQDQ on 512-bit registers.
    Vclmul,
}

impl Kind {
    /// The fastest kind the CPU allows.
    pub(crate) fn best() -> Kind {
        *Kind::available().last().unwrap_or(&Kind::Portable)
    }

    /// Every kind the CPU allows, slowest first.
    pub(crate) fn available() -> Vec<Kind> {
        let mut v = vec![Kind::Portable];
        if cpu::Clmul::get().is_some() {
            v.push(Kind::Clmul);
        }
        if cpu::ClmulAvx2::get().is_some() {
            v.push(Kind::VclmulY);
        }
        if cpu::VaesAvx512::get().is_some() {
            v.push(Kind::Vclmul);
        }
        v
    }
}

mod portable;
#[cfg(target_arch = "x86_64")]
mod x86;

use portable::{gf_mul, update_portable, Multiplier, PORTABLE_AGG};

/// Hash key and running state.
#[derive(Clone)]
pub(crate) struct Ghash {
    acc: u128,
    /// Only the x86-64 carry-less paths branch on it; elsewhere every kind
    /// is the portable one.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    kind: Kind,
    /// H^1..H^4 prepared for the portable path.
    pows: [Multiplier; PORTABLE_AGG],
    /// H^1..H^16 in the byte-reversed layout of the carry-less code.
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
    /// GHASH with key `h` on the fastest implementation this CPU allows.
    pub(crate) fn new(h: &[u8; 16]) -> Ghash {
        Ghash::with_kind(h, Kind::best())
    }

    /// GHASH on an explicit implementation (tests compare them); `kind`
    /// must be in [`Kind::available`], else the portable one is used.
    pub(crate) fn with_kind(h: &[u8; 16], kind: Kind) -> Ghash {
        let kind = if Kind::available().contains(&kind) { kind } else { Kind::Portable };
        let hv = u128::from_be_bytes(*h);
        let mut powers = [[0u8; 16]; 16];
        let mut pows = [Multiplier::default(); PORTABLE_AGG];
        let mut acc = hv;
        if kind == Kind::Portable {
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
        Ghash { acc: 0, kind, pows, powers }
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
        #[cfg(target_arch = "x86_64")]
        let data = self.update_clmul(data);
        self.acc = update_portable(self.acc, &self.pows, data);
    }

    /// Absorbs what the carry-less kinds take of `data` (all of it, unless
    /// this is the portable kind or a VPCLMULQDQ kind leaves a tail shorter
    /// than 16 blocks and PCLMULQDQ is masked) and returns the rest.
    #[cfg(target_arch = "x86_64")]
    fn update_clmul<'a>(&mut self, mut data: &'a [u8]) -> &'a [u8] {
        if self.kind == Kind::Vclmul {
            if let Some(t) = cpu::VaesAvx512::get() {
                let n = data.len() - data.len() % 256;
                // SAFETY: the token proves VPCLMULQDQ and AVX-512F/BW.
                self.acc = unsafe { x86::update16(t, self.acc, &self.powers, &data[..n]) };
                data = &data[n..];
            }
        }
        if self.kind == Kind::VclmulY {
            if let Some(t) = cpu::ClmulAvx2::get() {
                let n = data.len() - data.len() % 256;
                // SAFETY: the token proves VPCLMULQDQ and AVX2.
                self.acc = unsafe { x86::update16y(t, self.acc, &self.powers, &data[..n]) };
                data = &data[n..];
            }
        }
        if self.kind != Kind::Portable {
            if let Some(t) = cpu::Clmul::get() {
                // SAFETY: the token proves PCLMULQDQ and SSSE3.
                self.acc = unsafe { x86::update(t, self.acc, &self.powers, data) };
                return &[];
            }
        }
        data
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
            let mut g = Ghash::with_kind(&h, Kind::Portable);
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
    fn every_kind_matches_portable() {
        let mut next = rng(0x9e37_79b9_7f4a_7c15);
        let h: [u8; 16] = core::array::from_fn(|_| next());
        let data: Vec<u8> = (0..16 * 75).map(|_| next()).collect();
        let mut p = Ghash::with_kind(&h, Kind::Portable);
        p.update_blocks(&data);
        for k in Kind::available() {
            for split in [0, 16, 48, 64, 80, 128, 144, 176, 256, 272, 432, 528, 1200] {
                let mut g = Ghash::with_kind(&h, k);
                g.update_blocks(&data[..split]);
                g.update_blocks(&data[split..]);
                assert_eq!(g.value(), p.value(), "{k:?} split {split}");
            }
        }
    }
}
