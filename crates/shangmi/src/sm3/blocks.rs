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
        let whole = m.len() - m.len() % BLOCK_SIZE;
        let rest = &m[whole..];
        let mut tail = [0u8; 2 * BLOCK_SIZE];
        tail[..rest.len()].copy_from_slice(rest);
        tail[rest.len()] = 0x80;
        let tail_len = if rest.len() + 9 <= BLOCK_SIZE { BLOCK_SIZE } else { 2 * BLOCK_SIZE };
        tail[tail_len - 8..tail_len].copy_from_slice(&((m.len() as u64) * 8).to_be_bytes());
        Blocks { data: &m[..whole], tail, tail_len }
    }

    /// Whole blocks, padding included (the lane kernels run the common count).
    #[cfg(target_arch = "x86_64")]
    pub(super) fn count(&self) -> usize {
        (self.data.len() + self.tail_len) / BLOCK_SIZE
    }

    /// Block k (the lane kernels' loads).
    #[cfg(target_arch = "x86_64")]
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
        kernel.compress(state, &self.tail[t..self.tail_len]);
    }
}
