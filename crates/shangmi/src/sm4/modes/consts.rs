//! Constants the modes share.

use crate::sm4::BLOCK_SIZE;

/// Bytes handed to the block function at once by the parallel modes, so a
/// SIMD backend can keep 64 blocks in flight.
pub(crate) const CHUNK: usize = 64 * BLOCK_SIZE;
