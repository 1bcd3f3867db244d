//! One ZUC stream on NEON registers (see f.rs for F's step): F runs over a
//! batch of words with (R1, R2) held in one NEON register, and the same
//! loop advances the batch's LFSR (scalar, one cell per word, ahead of what
//! F reads), so the LFSR's chain overlaps F's instead of adding to it, as
//! on x86-64; the keystream words are formed after the loop from the
//! (R1, R2) each step started from.
//!
//! Why this shape: one stream's keystream is a serial chain through F's
//! registers, so its speed is the latency of one F step (the add, L1/L2,
//! the S-box layer with `AESE`, the merge); everything else is kept off
//! that chain.

use core::arch::aarch64::*;

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::f::{f_core, x2_terms, FConsts};
use crate::cpu::AesNeon;
use crate::zuc::kernel::Generator;
use crate::zuc::spec::{self, BATCH};

/// The state between batches, and the batch's buffers (kept here so that
/// they are wiped with it).
#[derive(Zeroize, ZeroizeOnDrop)]
struct Stream {
    lfsr: [u32; 16],
    r1: u32,
    r2: u32,
    /// The batch's LFSR cells: the 16 of the state, then one per word.
    cells: [u32; 16 + BATCH],
    /// (R1, R2) before each word of the batch.
    rs: [[u32; 2]; BATCH],
    /// The batch's keystream words.
    z: [u32; BATCH],
}

/// F over words 0..n of a batch whose first 16 LFSR cells are in `cells`,
/// computing cells 16..16 + n on the way (work mode, reduced to [1, p]):
/// writes the (R1, R2) each word starts from into `rs` and returns the
/// final (R1, R2). Word i's F reads cells up to i + 11, and the loop
/// writes cell i + 16, so the two chains are independent. Not inlined, so
/// that the static-analysis script finds its loop.
#[inline(never)]
#[target_feature(enable = "neon,aes")]
fn f_batch_impl(cells: &mut [u32; 16 + BATCH], n: usize, r1: u32, r2: u32, rs: &mut [[u32; 2]; BATCH]) -> (u32, u32) {
    let k = FConsts::new();
    // SAFETY: reads the 4 words of a local array.
    let mut r = vreinterpretq_u8_u32(unsafe { vld1q_u32([r1, r2, r1, r2].as_ptr()) });
    // s15 chained in a register, as in `spec::lfsr_run`.
    let mut last = cells[15] as u64;
    for (i, rs_i) in rs.iter_mut().enumerate().take(n.min(BATCH)) {
        last = spec::fold(spec::fold(spec::lfsr_sum(last, cells[i + 13], cells[i + 10], cells[i + 4], cells[i])));
        cells[16 + i] = last as u32;
        let s = &cells[i..i + 16];
        // X1 and X2 of bit reorganisation (X0 and X3 are added after F's loop).
        let x1 = ((s[11] & 0xffff) << 16) | (s[9] >> 15);
        let x2 = ((s[7] & 0xffff) << 16) | (s[5] >> 15);
        let c = x2_terms(x2);
        let c = ((c[1] as u64) << 32) | c[0] as u64;
        // W = (R1 + X1, R2) twice; c twice.
        let w = vaddq_u32(vreinterpretq_u32_u8(r), vreinterpretq_u32_u64(vdupq_n_u64(x1 as u64)));
        let r_lo = vgetq_lane_u64::<0>(vreinterpretq_u64_u8(r));
        *rs_i = [r_lo as u32, (r_lo >> 32) as u32];
        r = f_core(&k, vreinterpretq_u8_u32(w), vreinterpretq_u8_u64(vdupq_n_u64(c)));
    }
    let r = vreinterpretq_u32_u8(r);
    (vgetq_lane_u32::<0>(r), vgetq_lane_u32::<1>(r))
}

impl Stream {
    /// The next `n` ≤ [`BATCH`] keystream words into `self.z[..n]`.
    #[target_feature(enable = "neon,aes")]
    fn batch(&mut self, n: usize) {
        let n = n.min(BATCH);
        self.cells[..16].copy_from_slice(&self.lfsr);
        (self.r1, self.r2) = f_batch_impl(&mut self.cells, n, self.r1, self.r2, &mut self.rs);
        for (i, z) in self.z.iter_mut().enumerate().take(n) {
            let x = spec::bit_reorg(&self.cells[i..i + 16]);
            *z = ((x[0] ^ self.rs[i][0]).wrapping_add(self.rs[i][1])) ^ x[3];
        }
        self.lfsr.copy_from_slice(&self.cells[n..n + 16]);
    }

    #[target_feature(enable = "neon,aes")]
    fn generate(&mut self, out: &mut [u32]) {
        for chunk in out.chunks_mut(BATCH) {
            self.batch(chunk.len());
            chunk.copy_from_slice(&self.z[..chunk.len()]);
        }
    }

    #[target_feature(enable = "neon,aes")]
    fn xor_be(&mut self, src: &[u8], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(4), "xor_be needs whole words");
        for (s, d) in src.chunks(4 * BATCH).zip(dst.chunks_mut(4 * BATCH)) {
            let n = s.len() / 4;
            self.batch(n);
            let mut k = 0;
            while k + 4 <= n {
                // SAFETY: words k..k+4 of z (k + 4 <= n <= BATCH) and bytes
                // 4k..4k+16 <= 4n of s and d.
                unsafe {
                    let z = vrev32q_u8(vreinterpretq_u8_u32(vld1q_u32(self.z.as_ptr().add(k))));
                    let v = veorq_u8(vld1q_u8(s.as_ptr().add(4 * k)), z);
                    vst1q_u8(d.as_mut_ptr().add(4 * k), v);
                }
                k += 4;
            }
            for j in k..n {
                let z = self.z[j].to_be_bytes();
                for b in 0..4 {
                    d[4 * j + b] = s[4 * j + b] ^ z[b];
                }
            }
        }
    }
}

/// A [`Stream`] with the token that proves its features.
struct Checked {
    stream: Box<Stream>,
    _token: AesNeon,
}

impl Generator for Checked {
    fn generate(&mut self, out: &mut [u32]) {
        // SAFETY: `_token` proves NEON and AESE.
        unsafe { self.stream.generate(out) }
    }

    fn xor_be(&mut self, src: &[u8], dst: &mut [u8]) {
        // SAFETY: as above.
        unsafe { self.stream.xor_be(src, dst) }
    }
}

/// A NEON stream taking over an initialised state (16 cells, R1, R2).
pub(crate) fn generator(token: AesNeon, lfsr: &[u32; 16], r1: u32, r2: u32) -> Box<dyn Generator> {
    let stream = Box::new(Stream { lfsr: *lfsr, r1, r2, cells: [0; 16 + BATCH], rs: [[0; 2]; BATCH], z: [0; BATCH] });
    Box::new(Checked { stream, _token: token })
}
