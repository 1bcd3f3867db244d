//! One message cut into 64-byte blocks for the multi-buffer code: its
//! whole data blocks, then one or two padded tail blocks.

use super::compress::Kernel;
use super::BLOCK_SIZE;

/// One message as blocks: its whole data blocks, then the padded tail.
pub(super) struct Blocks<'a> {
    data: &'a [u8],
    tail: [u8; 2 * BLOCK_SIZE],
    tail_len: usize,
}

impl<'a> Blocks<'a> {
    pub(super) fn new(m: &'a [u8]) -> Blocks<'a> {
        Blocks::resume(&[], m, m.len() as u64)
    }

    /// The end of a computation that has absorbed whole blocks and then
    /// `pending` bytes (fewer than a block, still to be compressed), and
    /// now absorbs `m` and pads: `total` is the length of everything, the
    /// compressed blocks, `pending` and `m`, in bytes. At most one of
    /// `pending` and `m` may be non-empty (the caller first completes a
    /// pending block from `m`).
    pub(super) fn resume(pending: &[u8], m: &'a [u8], total: u64) -> Blocks<'a> {
        debug_assert!(pending.is_empty() || m.is_empty());
        debug_assert!(pending.len() < BLOCK_SIZE);
        let whole = m.len() - m.len() % BLOCK_SIZE;
        let rest = if m.is_empty() { pending } else { &m[whole..] };
        let mut tail = [0u8; 2 * BLOCK_SIZE];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let tail_len = if rest.len() + 9 <= BLOCK_SIZE { BLOCK_SIZE } else { 2 * BLOCK_SIZE };
        tail[tail_len - 8..tail_len].copy_from_slice(&total.wrapping_mul(8).to_be_bytes());
        Blocks { data: &m[..whole], tail, tail_len }
    }

    /// Whole blocks of `m` with no padding (`m.len()` a multiple of 64):
    /// compression alone, for callers that finish the hash themselves.
    pub(super) fn raw(m: &'a [u8]) -> Blocks<'a> {
        debug_assert!(m.len().is_multiple_of(BLOCK_SIZE));
        Blocks { data: m, tail: [0; 2 * BLOCK_SIZE], tail_len: 0 }
    }

    /// Whole blocks, padding included (the lane kernels run the common count).
    pub(super) fn count(&self) -> usize {
        (self.data.len() + self.tail_len) / BLOCK_SIZE
    }

    /// Block k (the lane kernels' loads).
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    pub(super) fn block(&self, k: usize) -> &[u8] {
        let o = k * BLOCK_SIZE;
        if o < self.data.len() {
            &self.data[o..o + BLOCK_SIZE]
        } else {
            let t = o - self.data.len();
            &self.tail[t..t + BLOCK_SIZE]
        }
    }

    /// Compresses blocks `from..` into `state` one message at a time, on
    /// `kernel`.
    pub(super) fn finish(&self, kernel: Kernel, state: &mut [u32; 8], from: usize) {
        let o = from * BLOCK_SIZE;
        if o < self.data.len() {
            kernel.compress(state, &self.data[o..]);
        }
        let t = o.saturating_sub(self.data.len());
        if t < self.tail_len {
            kernel.compress(state, &self.tail[t..self.tail_len]);
        }
    }
}

impl Drop for Blocks<'_> {
    /// The tail holds message bytes (HMAC inputs may be secret); past
    /// `tail_len` it is never written.
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.tail[..self.tail_len]);
    }
}
