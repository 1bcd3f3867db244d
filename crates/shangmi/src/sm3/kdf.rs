//! The KDF of GB/T 32918.4 §5.4.3 (SM2 and SM9 encryption, key exchange):
//! SM3(Z ‖ ct) for ct = 1, 2, ... (32-bit big-endian), concatenated.
//!
//! Z is absorbed once; every output block is then one independent
//! finalization of that prefix with its counter, so the blocks of a long
//! output — and of many outputs, as batched decryption asks for — are
//! compressed side by side on the lane kernel of [`super::hash_many`]
//! (8 or 16 lanes on x86-64; on aarch64 eight NEON lanes, or two messages
//! interleaved on the SM3 instructions), in groups of [`GROUP`] finalizations. With fewer than
//! [`MIN_LANES`] blocks in all, or no lane kernel, they go one at a time.
//!
//! Constant time: Z and the output are secret; lengths are public. The
//! lane kernels, like the one-message kernel, are straight-line in the data.

use super::blocks::Blocks;
use super::many::{self, Lanes};
use super::{Sm3, BLOCK_SIZE, DIGEST_SIZE};
use zeroize::{Zeroize, Zeroizing};

/// Most bytes one KDF call produces (1 GiB): far below the standard's
/// 32·(2³²−1), and below what an allocation would refuse.
pub const MAX_KDF_LEN: usize = 1 << 30;

/// Output blocks per lane call: enough to fill 16 lanes several times
/// over, few enough that their tails (128 bytes each) stay in L1.
const GROUP: usize = 64;

/// Fewest output blocks worth the lane kernel (below, one at a time is as
/// fast: the lanes' transposition costs about one compression).
const MIN_LANES: usize = 4;

/// `Ok` if `length` is a KDF output length one call may ask for
/// (at most [`MAX_KDF_LEN`]).
pub fn check_kdf_len(length: usize) -> crate::Result<()> {
    if length > MAX_KDF_LEN {
        return Err(crate::Error::invalid(format!(
            "SM3 KDF length must be at most {MAX_KDF_LEN} bytes (1 GiB) per call, got {length}"
        )));
    }
    Ok(())
}

/// The KDF of Z = the concatenation of `z`'s parts, cut to `out.len()` bytes.
pub fn kdf_into(z: &[&[u8]], out: &mut [u8]) {
    kdf_many_into(&[z], &mut [out]);
}

/// [`kdf_into`] returning a new vector of `length` bytes.
pub fn kdf(z: &[u8], length: usize) -> Vec<u8> {
    let mut out = vec![0u8; length];
    kdf_into(&[z], &mut out);
    out
}

/// The KDF of each Z (`zs[i]`, given as parts) into `outs[i]`: the same
/// bytes as [`kdf_into`] on each pair, with the output blocks of all of
/// them compressed side by side.
///
/// # Panics
/// If the two lists differ in length (a caller's bug).
pub fn kdf_many_into(zs: &[&[&[u8]]], outs: &mut [&mut [u8]]) {
    assert_eq!(zs.len(), outs.len(), "sm3::kdf_many_into: one output per Z");
    let prefixes: Vec<Sm3> = zs
        .iter()
        .map(|z| {
            let mut h = Sm3::new();
            for part in *z {
                h.update(part);
            }
            h
        })
        .collect();
    // Every output block: (which output, its index).
    let jobs: Vec<(usize, usize)> =
        outs.iter().enumerate().flat_map(|(i, o)| (0..o.len().div_ceil(DIGEST_SIZE)).map(move |b| (i, b))).collect();
    if jobs.len() < MIN_LANES || matches!(Lanes::auto(), Lanes::None) {
        for &(i, b) in &jobs {
            let mut block = prefixes[i].clone().chain(&counter(b)).finalize();
            copy_block(&mut outs[i][..], b, &block);
            block.zeroize();
        }
        return;
    }
    // Each job's last block(s) — Z's pending bytes, the counter, padding —
    // written side by side (128 bytes each: one block, or two when the
    // pending bytes leave no room for the length) and compressed from the
    // prefix's state.
    let mut tails = Zeroizing::new(vec![0u8; GROUP * 2 * BLOCK_SIZE]);
    for group in jobs.chunks(GROUP) {
        let mut states: Vec<[u32; 8]> = Vec::with_capacity(group.len());
        let mut lens = Vec::with_capacity(group.len());
        for (&(i, b), t) in group.iter().zip(tails.chunks_exact_mut(2 * BLOCK_SIZE)) {
            let h = &prefixes[i];
            let p = h.buffered;
            t.fill(0);
            t[..p].copy_from_slice(&h.buffer[..p]);
            t[p..p + 4].copy_from_slice(&counter(b));
            t[p + 4] = 0x80;
            let len = if p + 4 + 9 <= BLOCK_SIZE { BLOCK_SIZE } else { 2 * BLOCK_SIZE };
            let total = h.blocks.wrapping_mul(BLOCK_SIZE as u64) + (p + 4) as u64;
            t[len - 8..len].copy_from_slice(&total.wrapping_mul(8).to_be_bytes());
            states.push(h.state);
            lens.push(len);
        }
        let blocks: Vec<Blocks<'_>> =
            tails.chunks_exact(2 * BLOCK_SIZE).zip(&lens).map(|(t, &len)| Blocks::raw(&t[..len])).collect();
        many::run(blocks, &mut states);
        for (&(i, b), st) in group.iter().zip(&states) {
            let mut block = many::digest(st);
            copy_block(&mut outs[i][..], b, &block);
            block.zeroize();
        }
        states.zeroize();
    }
}

/// The counter of output block `b` (counting from 1, 32-bit big-endian;
/// [`MAX_KDF_LEN`] keeps it far from wrapping).
fn counter(b: usize) -> [u8; 4] {
    (b as u32 + 1).to_be_bytes()
}

/// Block `b` of an output: 32 bytes, fewer for the last.
fn copy_block(out: &mut [u8], b: usize, block: &[u8; DIGEST_SIZE]) {
    let start = b * DIGEST_SIZE;
    let end = (start + DIGEST_SIZE).min(out.len());
    out[start..end].copy_from_slice(&block[..end - start]);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The definition, one block at a time, straight from the standard.
    fn reference(z: &[u8], len: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut ct = 1u32;
        while out.len() < len {
            out.extend_from_slice(&super::super::hash(&[z, &ct.to_be_bytes()].concat()));
            ct += 1;
        }
        out.truncate(len);
        out
    }

    /// One Z and many at once, against the definition on random Z (empty,
    /// shorter and longer than a block, 55/56 bytes where the counter
    /// crosses into a second padding block) and lengths (0, partial last
    /// blocks, below and above the lane threshold, several groups).
    #[test]
    fn lanes_equal_the_definition() {
        let mut next = crate::test_rng(0x5eed_0f4b_df00);
        for &zl in &[0usize, 1, 32, 55, 56, 63, 64, 65, 100, 200] {
            for &len in &[0usize, 1, 31, 32, 33, 96, 127, 128, 129, 1000, 32 * GROUP + 5, 3 * 32 * GROUP] {
                let z: Vec<u8> = (0..zl).map(|_| next() as u8).collect();
                assert_eq!(kdf(&z, len), reference(&z, len), "Z {zl} bytes, {len} out");
            }
        }
        for n in [1usize, 2, 3, 8, 9, 17] {
            let zs: Vec<Vec<u8>> = (0..n).map(|_| (0..64 + next() % 40).map(|_| next() as u8).collect()).collect();
            let lens: Vec<usize> = (0..n).map(|_| (next() % 300) as usize).collect();
            let mut outs: Vec<Vec<u8>> = lens.iter().map(|&l| vec![0u8; l]).collect();
            let parts: Vec<[&[u8]; 2]> = zs.iter().map(|z| [&z[..10], &z[10..]]).collect();
            let zrefs: Vec<&[&[u8]]> = parts.iter().map(|p| &p[..]).collect();
            let mut orefs: Vec<&mut [u8]> = outs.iter_mut().map(|o| &mut o[..]).collect();
            kdf_many_into(&zrefs, &mut orefs);
            for ((z, o), &l) in zs.iter().zip(&outs).zip(&lens) {
                assert_eq!(o, &reference(z, l));
            }
        }
    }
}
