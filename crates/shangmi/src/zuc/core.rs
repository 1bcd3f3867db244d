//! One ZUC stream: key/IV loading and initialisation (shared by every
//! kernel), and the portable keystream generator, the reference the SIMD
//! generators are tested against.
//!
//! Keystream is produced in batches: the LFSR in work mode does not depend on
//! F, so a batch first runs the LFSR alone (a short dependency chain of
//! shifts and adds with lazy reduction), and then runs F over the whole batch.

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::kernel::{Generator, Kernel};
use super::spec::{self, BATCH};

/// A ZUC stream on some kernel, after initialisation. Wiped on drop (by
/// its generator).
pub(crate) struct State {
    gen: Box<dyn Generator>,
}

impl State {
    /// ZUC-128 from a 16-byte key and IV.
    pub(crate) fn new_128(key: &[u8; 16], iv: &[u8; 16], kernel: Kernel) -> State {
        let mut lfsr = spec::load_128(key, iv);
        let st = State::start(&lfsr, kernel);
        lfsr.zeroize();
        st
    }

    /// ZUC-256 from a 32-byte key, the 23-byte packed IV and the constants
    /// `d` of the keystream or of a MAC tag length.
    pub(crate) fn new_256(key: &[u8; 32], iv: &[u8; 23], d: &[u8; 16], kernel: Kernel) -> State {
        let mut lfsr = spec::load_256(key, iv, d);
        let st = State::start(&lfsr, kernel);
        lfsr.zeroize();
        st
    }

    /// Initialises the loaded cells and hands the state to the kernel's
    /// generator.
    fn start(loaded: &[u32; 16], kernel: Kernel) -> State {
        let mut p = Portable { lfsr: *loaded, r1: 0, r2: 0 };
        p.initialise(kernel);
        match kernel.generator(&p.lfsr, p.r1, p.r2) {
            Some(gen) => State { gen },
            None => State { gen: Box::new(p) },
        }
    }

    /// `dst = src ^ keystream` with the keystream words written big-endian
    /// (the byte order of EEA3 and of the standards' printouts). `src` and
    /// `dst` have the same length, a multiple of 4 (checked).
    pub(crate) fn xor_be(&mut self, src: &[u8], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(4), "xor_be needs whole words");
        self.gen.xor_be(src, dst);
    }

    /// Fills `out` with the next keystream words.
    pub(crate) fn generate(&mut self, out: &mut [u32]) {
        self.gen.generate(out);
    }
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").finish_non_exhaustive()
    }
}

/// The portable generator: 16 LFSR cells and F's two registers.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Portable {
    lfsr: [u32; 16],
    r1: u32,
    r2: u32,
}

impl Portable {
    /// 32 rounds in initialisation mode, then one round of work mode whose
    /// output is discarded (as the standard says). F's update runs on the
    /// kernel's step (the same function on every kernel).
    fn initialise(&mut self, kernel: Kernel) {
        let steps = kernel.steps();
        // The 33 new cells are appended to a linear buffer (no shifting).
        let mut s = [0u32; 16 + 33];
        s[..16].copy_from_slice(&self.lfsr);
        for t in 0..33 {
            let cells = &s[t..t + 16];
            let x = spec::bit_reorg(cells);
            let w = (x[0] ^ self.r1).wrapping_add(self.r2);
            (self.r1, self.r2) = steps.f_update(self.r1, self.r2, x[1], x[2]);
            // Initialisation mode feeds W >> 1 back; the last round is work mode.
            let extra = if t < 32 { w >> 1 } else { 0 };
            s[16 + t] = spec::lfsr_next(cells, extra);
        }
        self.lfsr.copy_from_slice(&s[33..49]);
        s.zeroize();
    }
}

impl Generator for Portable {
    fn generate(&mut self, out: &mut [u32]) {
        let mut s = [0u32; 16 + BATCH];
        for chunk in out.chunks_mut(BATCH) {
            let n = chunk.len();
            s[..16].copy_from_slice(&self.lfsr);
            spec::lfsr_run(&mut s, n, 2);
            f_batch(&s[..16 + n], &mut self.r1, &mut self.r2, chunk);
            self.lfsr.copy_from_slice(&s[n..n + 16]);
        }
        s.zeroize();
    }

    fn xor_be(&mut self, src: &[u8], dst: &mut [u8]) {
        let mut words = [0u32; BATCH];
        for (s, d) in src.chunks(4 * BATCH).zip(dst.chunks_mut(4 * BATCH)) {
            let n = s.len() / 4;
            self.generate(&mut words[..n]);
            for ((s, d), w) in s.chunks_exact(4).zip(d.chunks_exact_mut(4)).zip(&words) {
                let k = w.to_be_bytes();
                for b in 0..4 {
                    d[b] = s[b] ^ k[b];
                }
            }
        }
        words.zeroize();
    }
}

/// F over a batch: `s` holds 16 + out.len() LFSR cells, already advanced.
fn f_batch(s: &[u32], r1: &mut u32, r2: &mut u32, out: &mut [u32]) {
    let (mut a, mut b) = (*r1, *r2);
    for (i, z) in out.iter_mut().enumerate() {
        let x = spec::bit_reorg(&s[i..i + 16]);
        *z = ((x[0] ^ a).wrapping_add(b)) ^ x[3];
        (a, b) = spec::f_update(a, b, x[1], x[2]);
    }
    (*r1, *r2) = (a, b);
}
