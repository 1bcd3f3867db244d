//! Multi-buffer SM3: 8 (AVX2 or AVX-512VL ymm) or 16 (AVX-512 zmm) messages
//! compressed side by side, one message per 32-bit lane (the kernels are in
//! `lanes.rs`).
//!
//! [`hash_many`](super::hash_many) sorts the messages by length and hands
//! batches of similar length to [`hash_batch`]: every message becomes its
//! whole data blocks followed by one or two padded tail blocks; the lanes
//! run in lockstep for as many blocks as the shortest message of the batch
//! has, and each message's remaining blocks go through the one-message
//! compression. The result is the same as hashing each message alone.

pub(super) use super::blocks::Blocks;
use super::{DIGEST_SIZE, IV};
#[cfg(target_arch = "x86_64")]
use crate::cpu::{self, Token};

fn digest(state: &[u32; 8]) -> [u8; DIGEST_SIZE] {
    let mut out = [0u8; DIGEST_SIZE];
    for (o, s) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&s.to_be_bytes());
    }
    out
}

/// A multi-buffer kernel (or none: `One` hashes each message alone). The
/// lane kernels are x86-64 code; elsewhere only `One` is ever chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) enum Kernel {
    One,
    /// 8 lanes, AVX2.
    Avx2x8,
    /// 8 lanes in ymm registers with AVX-512VL instructions.
    Vlx8,
    /// 16 lanes in zmm registers.
    Zmm16,
}

impl Kernel {
    pub(super) fn lanes(self) -> usize {
        match self {
            Kernel::One => 1,
            Kernel::Avx2x8 | Kernel::Vlx8 => 8,
            Kernel::Zmm16 => 16,
        }
    }

    /// Every kernel this CPU allows (for the tests).
    #[cfg(test)]
    pub(super) fn available() -> Vec<Kernel> {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut k = vec![Kernel::One];
        #[cfg(target_arch = "x86_64")]
        {
            if cpu::Avx2::get().is_some() {
                k.push(Kernel::Avx2x8);
            }
            if cpu::Avx512Vl::get().is_some() {
                k.extend([Kernel::Vlx8, Kernel::Zmm16]);
            }
        }
        k
    }

    /// The kernel for `n` messages spread over `threads` threads: the one
    /// that finishes first when every thread takes whole batches in turn.
    /// On Zen 4 a 16-lane batch takes about 5/3 the time of an 8-lane one
    /// (bench/NOTES.md, sm3z4), so 16 messages on two threads go as two
    /// 8-lane batches, 32 as two 16-lane ones.
    pub(super) fn choose(n: usize, threads: usize) -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            let rounds = |lanes: usize| n.div_ceil(lanes).div_ceil(threads.max(1));
            if cpu::Avx512Vl::get().is_some() {
                return if 3 * rounds(8) <= 5 * rounds(16) { Kernel::Vlx8 } else { Kernel::Zmm16 };
            }
            if cpu::Avx2::get().is_some() {
                return Kernel::Avx2x8;
            }
        }
        let _ = (n, threads);
        Kernel::One
    }
}

/// The digests of a batch of at most `kernel.lanes()` messages.
pub(super) fn hash_batch(msgs: &[Blocks<'_>], kernel: Kernel) -> Vec<[u8; DIGEST_SIZE]> {
    debug_assert!(msgs.len() <= kernel.lanes());
    let mut states = vec![IV; msgs.len()];
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if msgs.len() >= 2 {
        use super::lanes::{x16, x8, x8vl};
        let common = msgs.iter().map(Blocks::count).min().unwrap_or(0);
        // The tokens are re-checked: a kernel is only run with proof of its
        // features.
        match kernel {
            Kernel::Zmm16 => {
                if let Some(t) = cpu::Avx512Vl::get() {
                    // SAFETY: the token proves AVX-512F/VL.
                    unsafe { x16(t, msgs, common, &mut states) };
                    done = common;
                }
            }
            Kernel::Vlx8 => {
                if let Some(t) = cpu::Avx512Vl::get() {
                    // SAFETY: the token proves AVX-512F/VL.
                    unsafe { x8vl(t, msgs, common, &mut states) };
                    done = common;
                }
            }
            Kernel::Avx2x8 => {
                if let Some(t) = cpu::Avx2::get() {
                    // SAFETY: the token proves AVX2.
                    unsafe { x8(t, msgs, common, &mut states) };
                    done = common;
                }
            }
            Kernel::One => {}
        }
    }
    msgs.iter()
        .zip(states.iter_mut())
        .map(|(m, s)| {
            m.finish(s, done);
            digest(s)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lane kernels (transposed loads on AVX2, gathers on AVX-512)
    /// against one-message hashing on random data: random lengths, so
    /// lanes share 0 to ~30 blocks and finish alone.
    #[test]
    fn random_batches_equal_hash_of_each() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
        for kernel in Kernel::available().into_iter().skip(1) {
            let width = kernel.lanes();
            for trial in 0..30 {
                let base = (next() % 1500) as usize;
                let msgs: Vec<Vec<u8>> = (0..width)
                    .map(|_| {
                        let len = base + (next() % 200) as usize;
                        (0..len).map(|_| next() as u8).collect()
                    })
                    .collect();
                let blocks: Vec<Blocks<'_>> = msgs.iter().map(|m| Blocks::new(m)).collect();
                let got = hash_batch(&blocks, kernel);
                for (m, d) in msgs.iter().zip(got) {
                    assert_eq!(d, super::super::hash(m), "{kernel:?}, trial {trial}, {} bytes", m.len());
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn choice_keeps_every_thread_busy() {
        if cpu::Avx512Vl::get().is_some() {
            assert_eq!(Kernel::choose(16, 2), Kernel::Vlx8);
            assert_eq!(Kernel::choose(8, 1), Kernel::Vlx8);
            assert_eq!(Kernel::choose(32, 2), Kernel::Zmm16);
            assert_eq!(Kernel::choose(16, 1), Kernel::Zmm16);
        } else if cpu::Avx2::get().is_some() {
            assert_eq!(Kernel::choose(16, 2), Kernel::Avx2x8);
        }
    }

    #[test]
    fn every_width_equals_hash_of_each() {
        // Lengths around the one/two tail-block boundary, equal and mixed.
        let lens = [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 4096, 333, 64 * 9, 7];
        let msgs: Vec<Vec<u8>> = lens.iter().map(|&n| (0..n).map(|i| (i * 131 + n) as u8).collect()).collect();
        let want: Vec<_> = msgs.iter().map(|m| super::super::hash(m)).collect();
        for kernel in Kernel::available() {
            let width = kernel.lanes();
            for chunk in [2, 5, width] {
                let chunk = chunk.min(width);
                for (k, group) in msgs.chunks(chunk).enumerate() {
                    let blocks: Vec<Blocks<'_>> = group.iter().map(|m| Blocks::new(m)).collect();
                    let got = hash_batch(&blocks, kernel);
                    assert_eq!(got, want[k * chunk..k * chunk + group.len()], "{kernel:?} chunk {chunk}");
                }
            }
            let same: Vec<Vec<u8>> = (0..width).map(|l| vec![l as u8; 64 * 20 + l]).collect();
            let blocks: Vec<Blocks<'_>> = same.iter().map(|m| Blocks::new(m)).collect();
            let got = hash_batch(&blocks, kernel);
            for (m, d) in same.iter().zip(got) {
                assert_eq!(d, super::super::hash(m), "{kernel:?}");
            }
        }
    }
}
