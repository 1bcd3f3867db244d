//! 128-EIA3 and the ZUC-256 MAC: GF(2) inner products of the message bits
//! with sliding windows of the keystream.
//!
//! Both compute, for each 32-bit word k of the tag, the XOR of the keystream
//! windows starting at every message bit that is set (offset by the tag
//! length for ZUC-256), then add one final window after the message. The
//! message is processed in chunks while the keystream is generated alongside,
//! so memory stays small for any message size.

use zeroize::Zeroize;

use super::core::State;
use super::kernel::Kernel;
use super::spec::{last_partial_word, window_at, window_word};

/// Message words per chunk.
const CHUNK_WORDS: usize = 512;
/// Keystream words kept beyond a chunk: windows reach 2·(tag words) + 1 words
/// past the current message word.
const EXTRA: usize = 10;

/// Generates keystream into `buf[*valid..need]` if not there yet.
fn ensure(st: &mut State, buf: &mut [u32], valid: &mut usize, need: usize) {
    if *valid < need {
        st.generate(&mut buf[*valid..need]);
        *valid = need;
    }
}

/// The tag words of a ZUC MAC.
///
/// `offset` is the keystream word where the windows start (0 for EIA3, the
/// tag length in words for ZUC-256); word k of the tag uses windows starting
/// at offset + k words. `length_bits` ≤ 8·data.len() has been checked.
pub(crate) fn mac_words(
    mut st: State,
    kernel: Kernel,
    data: &[u8],
    length_bits: usize,
    tag_words: usize,
    offset: usize,
) -> [u32; 4] {
    let steps = kernel.steps();
    let mut tag = [0u32; 4];
    let full = length_bits / 32;
    let mut buf = [0u32; CHUNK_WORDS + EXTRA];
    let mut valid = 0usize;

    // The first words of the keystream, before they slide away.
    let mut head = [0u32; 4];
    ensure(&mut st, &mut buf, &mut valid, EXTRA);
    head.copy_from_slice(&buf[..4]);

    let mut j0 = 0;
    while j0 < full {
        let n = (full - j0).min(CHUNK_WORDS);
        ensure(&mut st, &mut buf, &mut valid, n + EXTRA);
        let msg = &data[4 * j0..4 * (j0 + n)];
        for (k, t) in tag.iter_mut().enumerate().take(tag_words) {
            *t ^= steps.window_xor(msg, &buf[offset + k..offset + k + n + 1]);
        }
        buf.copy_within(n..valid, 0);
        valid -= n;
        j0 += n;
    }
    ensure(&mut st, &mut buf, &mut valid, EXTRA);
    // The last, partial message word (bits beyond length_bits cleared).
    let rem = length_bits % 32;
    if let Some(m) = last_partial_word(data, length_bits) {
        for (k, t) in tag.iter_mut().enumerate().take(tag_words) {
            *t ^= window_word(m, buf[offset + k], buf[offset + k + 1]);
        }
    }
    // The window right after the message (relative to the current word `full`).
    for (k, t) in tag.iter_mut().enumerate().take(tag_words) {
        *t ^= window_at(&buf, rem + 32 * (offset + k));
    }
    if offset == 0 {
        // 128-EIA3: MAC = T ^ z_{L-1}, L = ceil(LENGTH/32) + 2 words.
        tag[0] ^= buf[length_bits.div_ceil(32) + 1 - full];
    } else {
        // ZUC-256: the tag starts from the first tag_words keystream words.
        for k in 0..tag_words {
            tag[k] ^= head[k];
        }
    }
    buf.zeroize();
    head.zeroize();
    tag
}
