//! Multi-buffer SM3: 8 (AVX2 or AVX-512VL ymm) or 16 (AVX-512 zmm) messages
//! compressed side by side, one message per 32-bit lane (the kernels are in
//! `x86/lanes.rs`); on aarch64 8 in NEON registers, two sets of four
//! (`aarch64/lanes.rs`).
//!
//! [`hash_many`](super::hash_many) sorts the messages by length and hands
//! batches of similar length to [`hash_batch`]: every message becomes its
//! whole data blocks followed by one or two padded tail blocks; the lanes
//! run in lockstep for as many blocks as the shortest message of the batch
//! has, and each message's remaining blocks go through the one-message
//! compression. The result is the same as hashing each message alone.

pub(super) use super::blocks::Blocks;
use super::compress::Kernel as OneKernel;
use super::{DIGEST_SIZE, IV};
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
use crate::cpu::{self, Token};

pub(super) fn digest(state: &[u32; 8]) -> [u8; DIGEST_SIZE] {
    let mut out = [0u8; DIGEST_SIZE];
    for (o, s) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&s.to_be_bytes());
    }
    out
}

/// The process's multi-buffer engine: each variant holds the
/// [`crate::cpu`] token that proves its features. The lane kernels are
/// x86-64 and aarch64 code; elsewhere there is none and messages are hashed
/// one by one.
#[derive(Clone, Copy, Debug)]
pub(super) enum Lanes {
    /// 8 lanes in ymm or 16 in zmm registers, AVX-512F/VL.
    #[cfg(target_arch = "x86_64")]
    Avx512(cpu::Avx512Vl),
    /// 8 lanes in ymm registers, AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2(cpu::Avx2),
    /// 8 lanes in NEON registers, on aarch64 cores without the SM3
    /// instructions.
    #[cfg(target_arch = "aarch64")]
    Neon(cpu::Neon),
    /// Two messages interleaved on the SM3 instructions (faster there than
    /// the NEON lanes: see docs/platforms/arm.md).
    #[cfg(target_arch = "aarch64")]
    Sm3Ce(cpu::Sm3Neon),
    /// No lane kernel.
    None,
}

impl Lanes {
    /// The engine [`crate::cpu`] allows (mask `avx512f` for AVX2, `avx` or
    /// `avx2` for none; on aarch64 two messages on the SM3 instructions,
    /// or NEON lanes without them: mask `sm3` to get those on a core that
    /// has them), decided once per process.
    pub(super) fn auto() -> Lanes {
        #[cfg(target_arch = "x86_64")]
        {
            use std::sync::OnceLock;
            static CHOSEN: OnceLock<Lanes> = OnceLock::new();
            *CHOSEN.get_or_init(|| {
                if let Some(t) = cpu::Avx512Vl::get() {
                    Lanes::Avx512(t)
                } else if let Some(t) = cpu::Avx2::get() {
                    Lanes::Avx2(t)
                } else {
                    Lanes::None
                }
            })
        }
        #[cfg(target_arch = "aarch64")]
        {
            match (cpu::Sm3Neon::get(), cpu::Neon::get()) {
                (Some(t), _) => Lanes::Sm3Ce(t),
                (None, Some(t)) => Lanes::Neon(t),
                (None, None) => Lanes::None,
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Lanes::None
        }
    }

    /// `<engine>-<register width>` of the widest kernel, or `None`.
    pub(super) fn name(self) -> Option<&'static str> {
        match self {
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512(_) => Some("avx512-512"),
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2(_) => Some("avx2-256"),
            #[cfg(target_arch = "aarch64")]
            Lanes::Neon(_) => Some("neon-128"),
            #[cfg(target_arch = "aarch64")]
            Lanes::Sm3Ce(_) => Some("sm3ce-128"),
            Lanes::None => None,
        }
    }

    /// The kernel for `n` messages spread over `threads` threads: the one
    /// that finishes first when every thread takes whole batches in turn.
    /// On Zen 4 a 16-lane batch takes about 1.9 times as long as an 8-lane
    /// one since the kernels were unrolled (2026-12-07, bench/NOTES.md), so
    /// 16 messages on two threads go as two 8-lane batches, 32 as two
    /// 16-lane ones.
    pub(super) fn choose(self, n: usize, threads: usize) -> Kernel {
        let rounds = |lanes: usize| n.div_ceil(lanes).div_ceil(threads.max(1));
        let _ = rounds;
        match self {
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx512(t) => {
                if 10 * rounds(8) <= 19 * rounds(16) {
                    Kernel::Vlx8(t)
                } else {
                    Kernel::Zmm16(t)
                }
            }
            #[cfg(target_arch = "x86_64")]
            Lanes::Avx2(t) => Kernel::Avx2x8(t),
            #[cfg(target_arch = "aarch64")]
            Lanes::Neon(t) => Kernel::Neon8(t),
            #[cfg(target_arch = "aarch64")]
            Lanes::Sm3Ce(t) => Kernel::Sm3Ce2(t),
            Lanes::None => Kernel::One,
        }
    }
}

/// One batch's multi-buffer kernel (or none: `One` hashes each message
/// alone), holding the token that proves its features.
#[derive(Clone, Copy, Debug)]
pub(super) enum Kernel {
    One,
    /// 8 lanes, AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2x8(cpu::Avx2),
    /// 8 lanes in ymm registers with AVX-512VL instructions.
    #[cfg(target_arch = "x86_64")]
    Vlx8(cpu::Avx512Vl),
    /// 16 lanes in zmm registers.
    #[cfg(target_arch = "x86_64")]
    Zmm16(cpu::Avx512Vl),
    /// 8 lanes in NEON registers (two sets of four).
    #[cfg(target_arch = "aarch64")]
    Neon8(cpu::Neon),
    /// 2 messages interleaved on the SM3 instructions.
    #[cfg(target_arch = "aarch64")]
    Sm3Ce2(cpu::Sm3Neon),
}

impl Kernel {
    pub(super) fn lanes(self) -> usize {
        match self {
            Kernel::One => 1,
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2x8(_) | Kernel::Vlx8(_) => 8,
            #[cfg(target_arch = "x86_64")]
            Kernel::Zmm16(_) => 16,
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon8(_) => super::aarch64::lanes::LANES,
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm3Ce2(_) => super::aarch64::ce2::X2_LANES,
        }
    }

    /// Every kernel this CPU allows (for the tests).
    #[cfg(test)]
    pub(super) fn available() -> Vec<Kernel> {
        #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_mut))]
        let mut k = vec![Kernel::One];
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = cpu::Neon::get() {
            k.push(Kernel::Neon8(t));
        }
        #[cfg(target_arch = "aarch64")]
        if let Some(t) = cpu::Sm3Neon::get() {
            k.push(Kernel::Sm3Ce2(t));
        }
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(t) = cpu::Avx2::get() {
                k.push(Kernel::Avx2x8(t));
            }
            if let Some(t) = cpu::Avx512Vl::get() {
                k.extend([Kernel::Vlx8(t), Kernel::Zmm16(t)]);
            }
        }
        k
    }
}

/// The digests of a batch of at most `kernel.lanes()` messages; what the
/// lanes do not cover runs on the one-message kernel `one`.
pub(super) fn hash_batch(msgs: &[Blocks<'_>], kernel: Kernel, one: OneKernel) -> Vec<[u8; DIGEST_SIZE]> {
    let mut states = vec![IV; msgs.len()];
    compress_batch(msgs, &mut states, kernel, one);
    states.iter().map(digest).collect()
}

/// Compresses a batch of at most `kernel.lanes()` messages, each from its
/// state in `states`, through all their blocks; what the lanes do not
/// cover runs on the one-message kernel `one`.
pub(super) fn compress_batch(msgs: &[Blocks<'_>], states: &mut [[u32; 8]], kernel: Kernel, one: OneKernel) {
    debug_assert!(msgs.len() <= kernel.lanes() && msgs.len() == states.len());
    #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_mut))]
    let mut done = 0;
    // Fewer messages than MIN_MESSAGES go one at a time on the NEON
    // lanes: they would cost more than they save.
    #[cfg(target_arch = "aarch64")]
    {
        let common = msgs.iter().map(Blocks::count).min().unwrap_or(0);
        match kernel {
            Kernel::Neon8(t) if msgs.len() >= super::aarch64::lanes::MIN_MESSAGES => {
                super::aarch64::lanes::x8(t, msgs, common, states);
                done = common;
            }
            Kernel::Sm3Ce2(t) if msgs.len() == super::aarch64::ce2::X2_LANES => {
                super::aarch64::ce2::x2(t, msgs, common, states);
                done = common;
            }
            _ => {}
        }
    }
    #[cfg(target_arch = "x86_64")]
    if msgs.len() >= 2 {
        use super::x86::lanes::{x16, x8, x8vl};
        let common = msgs.iter().map(Blocks::count).min().unwrap_or(0);
        match kernel {
            Kernel::Zmm16(t) => x16(t, msgs, common, states),
            Kernel::Vlx8(t) => x8vl(t, msgs, common, states),
            Kernel::Avx2x8(t) => x8(t, msgs, common, states),
            Kernel::One => {}
        }
        if kernel.lanes() > 1 {
            done = common;
        }
    }
    for (m, s) in msgs.iter().zip(states.iter_mut()) {
        m.finish(one, s, done);
    }
}

/// Runs every message of `msgs` from its state in `states` (same order)
/// through all its blocks on the calling thread: sorted by length (public),
/// in batches of the widest lane kernel, the rest one message at a time.
pub(super) fn run(msgs: Vec<Blocks<'_>>, states: &mut [[u32; 8]]) {
    debug_assert_eq!(msgs.len(), states.len());
    let kernel = Lanes::auto().choose(msgs.len(), 1);
    let one = OneKernel::auto();
    // Already in order (equal lengths, as the KDF's and batched MACs'
    // blocks mostly are): no reordering, no copies of the messages.
    if msgs.windows(2).all(|w| w[0].count() <= w[1].count()) {
        for (group, st) in msgs.chunks(kernel.lanes()).zip(states.chunks_mut(kernel.lanes())) {
            compress_batch(group, st, kernel, one);
        }
        return;
    }
    let mut items: Vec<(usize, Blocks<'_>)> = msgs.into_iter().enumerate().collect();
    items.sort_by_key(|(_, b)| b.count());
    let (idx, sorted): (Vec<usize>, Vec<Blocks<'_>>) = items.into_iter().unzip();
    let mut ordered: Vec<[u32; 8]> = idx.iter().map(|&i| states[i]).collect();
    for (group, st) in sorted.chunks(kernel.lanes()).zip(ordered.chunks_mut(kernel.lanes())) {
        compress_batch(group, st, kernel, one);
    }
    for (&i, s) in idx.iter().zip(ordered.iter_mut()) {
        states[i] = *s;
        zeroize::Zeroize::zeroize(s);
    }
}

/// The digest of each state (big-endian words).
pub(super) fn digests(states: &[[u32; 8]]) -> Vec<[u8; DIGEST_SIZE]> {
    states.iter().map(digest).collect()
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
                let got = hash_batch(&blocks, kernel, OneKernel::auto());
                for (m, d) in msgs.iter().zip(got) {
                    assert_eq!(d, super::super::hash(m), "{kernel:?}, trial {trial}, {} bytes", m.len());
                }
            }
        }
    }

    #[test]
    #[cfg(target_arch = "x86_64")]
    fn choice_keeps_every_thread_busy() {
        let lanes = |n, threads| Lanes::auto().choose(n, threads).lanes();
        if cpu::Avx512Vl::get().is_some() {
            assert_eq!(lanes(16, 2), 8);
            assert_eq!(lanes(8, 1), 8);
            assert_eq!(lanes(32, 2), 16);
            assert_eq!(lanes(16, 1), 16);
        } else if cpu::Avx2::get().is_some() {
            assert_eq!(lanes(16, 2), 8);
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
                    let got = hash_batch(&blocks, kernel, OneKernel::auto());
                    assert_eq!(got, want[k * chunk..k * chunk + group.len()], "{kernel:?} chunk {chunk}");
                }
            }
            let same: Vec<Vec<u8>> = (0..width).map(|l| vec![l as u8; 64 * 20 + l]).collect();
            let blocks: Vec<Blocks<'_>> = same.iter().map(|m| Blocks::new(m)).collect();
            let got = hash_batch(&blocks, kernel, OneKernel::auto());
            for (m, d) in same.iter().zip(got) {
                assert_eq!(d, super::super::hash(m), "{kernel:?}");
            }
        }
    }
}
