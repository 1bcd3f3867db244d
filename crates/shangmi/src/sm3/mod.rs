//! SM3 hash (GB/T 32905-2016), HMAC-SM3 (RFC 2104 with SM3) and the key
//! derivation function of GB/T 32918.4 used by SM2 and SM9.

// The kernel races compare x86-64 kernels.
#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(all(test, target_arch = "x86_64"))]
mod ab;
mod blocks;
mod compress;
mod consts;
mod kdf;
mod many;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use compress::compress_blocks;
use compress::Kernel;
pub use kdf::{check_kdf_len, kdf, kdf_into, kdf_many_into, MAX_KDF_LEN};

/// The one-message compression kernel in use, `<engine>-<register width>`:
/// "avx512-256" (AVX-512VL message expansion, assembly rounds), "avx2-256"
/// (AVX2 message expansion, assembly rounds), "bmi2-32" (scalar with
/// `rorx`) or "portable-32". `SHANGMI_CPU_DISABLE` selects the slower ones.
pub fn backend_name() -> &'static str {
    Kernel::auto().name()
}

/// The lane kernel [`hash_many`] uses for large batches: "avx512-512"
/// (16 lanes in zmm registers; 8 in ymm when that finishes sooner),
/// "avx2-256" (8 lanes), or, without one, the one-message kernel of
/// [`backend_name`].
pub fn lanes_backend_name() -> &'static str {
    many::Lanes::auto().name().unwrap_or_else(backend_name)
}
use zeroize::Zeroize;

/// Bytes in a digest.
pub const DIGEST_SIZE: usize = 32;
/// Bytes in a message block.
pub const BLOCK_SIZE: usize = 64;

const IV: [u32; 8] = [0x7380166f, 0x4914b2b9, 0x172442d7, 0xda8a0600, 0xa96f30bc, 0x163138aa, 0xe38dee4d, 0xb0fb0e4e];

/// An incremental SM3 computation. Cloning it forks the computation (the
/// `copy()` of Python's hashlib objects).
#[derive(Clone, Zeroize)]
pub struct Sm3 {
    /// The compression kernel, chosen once per process.
    #[zeroize(skip)]
    kernel: Kernel,
    state: [u32; 8],
    buffer: [u8; BLOCK_SIZE],
    buffered: usize,
    /// Whole blocks already compressed.
    blocks: u64,
}

impl std::fmt::Debug for Sm3 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The buffer may hold secret data (an HMAC key block): never print it.
        f.debug_struct("Sm3").finish_non_exhaustive()
    }
}

impl Default for Sm3 {
    fn default() -> Self {
        Self::new()
    }
}

impl Sm3 {
    /// A fresh computation.
    pub fn new() -> Self {
        Sm3::with_kernel(Kernel::auto())
    }

    /// A fresh computation on `kernel` (the tests reach every kernel so).
    pub(crate) fn with_kernel(kernel: Kernel) -> Self {
        Sm3 { kernel, state: IV, buffer: [0; BLOCK_SIZE], buffered: 0, blocks: 0 }
    }

    /// Absorbs `data`.
    pub fn update(&mut self, mut data: &[u8]) {
        if self.buffered > 0 {
            let take = (BLOCK_SIZE - self.buffered).min(data.len());
            self.buffer[self.buffered..self.buffered + take].copy_from_slice(&data[..take]);
            self.buffered += take;
            data = &data[take..];
            if self.buffered < BLOCK_SIZE {
                return;
            }
            self.kernel.compress(&mut self.state, &self.buffer);
            self.blocks += 1;
            self.buffered = 0;
        }
        let whole = data.len() / BLOCK_SIZE * BLOCK_SIZE;
        if whole > 0 {
            self.kernel.compress(&mut self.state, &data[..whole]);
            self.blocks += (whole / BLOCK_SIZE) as u64;
        }
        let rest = &data[whole..];
        self.buffer[..rest.len()].copy_from_slice(rest);
        self.buffered = rest.len();
    }

    /// Chainable [`update`](Self::update).
    pub fn chain(mut self, data: &[u8]) -> Self {
        self.update(data);
        self
    }

    /// The digest of everything absorbed so far; leaves `self` unchanged.
    pub fn digest(&self) -> [u8; DIGEST_SIZE] {
        self.clone().finalize()
    }

    /// Pads, finishes and returns the digest, consuming the computation.
    pub fn finalize(mut self) -> [u8; DIGEST_SIZE] {
        let bit_len = (self.blocks.wrapping_mul(BLOCK_SIZE as u64) + self.buffered as u64).wrapping_mul(8);
        let mut tail = [0u8; 2 * BLOCK_SIZE];
        tail[..self.buffered].copy_from_slice(&self.buffer[..self.buffered]);
        tail[self.buffered] = 0x80;
        let tail_len = if self.buffered < BLOCK_SIZE - 8 { BLOCK_SIZE } else { 2 * BLOCK_SIZE };
        tail[tail_len - 8..tail_len].copy_from_slice(&bit_len.to_be_bytes());
        self.kernel.compress(&mut self.state, &tail[..tail_len]);
        tail.zeroize();
        let mut out = [0u8; DIGEST_SIZE];
        for (chunk, word) in out.chunks_exact_mut(4).zip(self.state.iter()) {
            chunk.copy_from_slice(&word.to_be_bytes());
        }
        out
    }
}

impl Sm3 {
    /// Finishes many computations at once: each of `hashers` absorbs the
    /// matching one of `tails` and is finalized, with the tails' blocks
    /// compressed side by side on the lane kernel ([`hash_many`]'s), on the
    /// calling thread. Equal to `h.chain(t).finalize()` for each pair.
    ///
    /// # Panics
    /// If the two lists differ in length (a caller's bug).
    pub fn finalize_many(hashers: Vec<Sm3>, tails: &[&[u8]]) -> Vec<[u8; DIGEST_SIZE]> {
        assert_eq!(hashers.len(), tails.len(), "Sm3::finalize_many: one tail per computation");
        let mut states = Vec::with_capacity(hashers.len());
        let mut blocks = Vec::with_capacity(hashers.len());
        // Kept alive while `blocks` borrows their pending bytes.
        let mut held = Vec::with_capacity(hashers.len());
        for (mut h, &t) in hashers.into_iter().zip(tails) {
            let total = h.blocks.wrapping_mul(BLOCK_SIZE as u64) + (h.buffered + t.len()) as u64;
            // Complete a pending block from the tail first, so that the
            // rest of the tail starts on a block boundary.
            let mut rest = t;
            if h.buffered > 0 && h.buffered + t.len() >= BLOCK_SIZE {
                let take = BLOCK_SIZE - h.buffered;
                h.update(&t[..take]);
                rest = &t[take..];
            } else if h.buffered > 0 {
                h.update(t);
                rest = &[];
            }
            states.push(h.state);
            held.push((h, rest, total));
        }
        for (h, rest, total) in &held {
            blocks.push(many::Blocks::resume(&h.buffer[..h.buffered], rest, *total));
        }
        many::run(blocks, &mut states);
        let out = many::digests(&states);
        states.zeroize();
        out
    }
}

impl Drop for Sm3 {
    fn drop(&mut self) {
        self.zeroize();
    }
}

/// SM3 of `data` in one call.
pub fn hash(data: &[u8]) -> [u8; DIGEST_SIZE] {
    Sm3::new().chain(data).finalize()
}

/// SM3 of the concatenation of `parts`, without copying them together.
pub fn hash_parts(parts: &[&[u8]]) -> [u8; DIGEST_SIZE] {
    let mut h = Sm3::new();
    for p in parts {
        h.update(p);
    }
    h.finalize()
}

/// SM3 of each message (in order). Messages of similar length are hashed
/// side by side, 8 or 16 at a time (multi-buffer compression), and batches
/// are spread over all cores (rayon) when there is enough work to be worth
/// it.
pub fn hash_many(messages: &[&[u8]]) -> Vec<[u8; DIGEST_SIZE]> {
    use rayon::prelude::*;
    // Below ~64 KiB in total, thread hand-off costs more than it saves.
    let total: usize = messages.iter().map(|m| m.len() + BLOCK_SIZE).sum();
    // One thread allowed: run on the calling thread (a hand-off to the
    // pool's one thread would only add a wake-up and a wait).
    let parallel = total >= 1 << 16 && messages.len() >= 2 && crate::par::num_threads() > 1;
    let threads = if parallel { crate::par::num_threads() } else { 1 };
    let one = Kernel::auto();
    let kernel = many::Lanes::auto().choose(messages.len(), threads);
    if matches!(kernel, many::Kernel::One) || messages.len() < 2 {
        if !parallel {
            return messages.iter().map(|m| hash(m)).collect();
        }
        return crate::par::install(|| messages.par_iter().map(|m| hash(m)).collect());
    }
    let mut order: Vec<usize> = (0..messages.len()).collect();
    order.sort_by_key(|&i| messages[i].len());
    let batch = |idx: &[usize]| {
        let blocks: Vec<many::Blocks<'_>> = idx.iter().map(|&i| many::Blocks::new(messages[i])).collect();
        many::hash_batch(&blocks, kernel, one)
    };
    let lanes = kernel.lanes();
    let digests: Vec<Vec<[u8; DIGEST_SIZE]>> = if parallel {
        crate::par::install(|| order.par_chunks(lanes).map(batch).collect())
    } else {
        order.chunks(lanes).map(batch).collect()
    };
    let mut out = vec![[0u8; DIGEST_SIZE]; messages.len()];
    for (&i, d) in order.iter().zip(digests.iter().flatten()) {
        out[i] = *d;
    }
    out
}

/// Incremental HMAC-SM3. The padded key blocks are absorbed at construction,
/// so only the two hash states are kept (and zeroized on drop).
#[derive(Clone, Debug)]
pub struct HmacSm3 {
    inner: Sm3,
    outer: Sm3,
}

impl HmacSm3 {
    /// Starts an HMAC with `key` of any length (keys longer than a block are
    /// hashed first, as RFC 2104 says).
    pub fn new(key: &[u8]) -> Self {
        let mut block = [0u8; BLOCK_SIZE];
        if key.len() > BLOCK_SIZE {
            let mut k = hash(key);
            block[..DIGEST_SIZE].copy_from_slice(&k);
            k.zeroize();
        } else {
            block[..key.len()].copy_from_slice(key);
        }
        let mut pad = [0u8; BLOCK_SIZE];
        for (p, b) in pad.iter_mut().zip(block.iter()) {
            *p = b ^ 0x36;
        }
        let inner = Sm3::new().chain(&pad);
        for (p, b) in pad.iter_mut().zip(block.iter()) {
            *p = b ^ 0x5c;
        }
        let outer = Sm3::new().chain(&pad);
        pad.zeroize();
        block.zeroize();
        HmacSm3 { inner, outer }
    }

    /// Absorbs message data.
    pub fn update(&mut self, data: &[u8]) {
        self.inner.update(data);
    }

    /// The tag.
    pub fn finalize(self) -> [u8; DIGEST_SIZE] {
        let HmacSm3 { inner, outer } = self;
        let mut inner_digest = inner.finalize();
        let tag = outer.chain(&inner_digest).finalize();
        inner_digest.zeroize();
        tag
    }
}

impl HmacSm3 {
    /// Finishes many MACs at once: each of `macs` absorbs the matching one
    /// of `tails` and is finalized, inner and outer hashes side by side on
    /// SM3's lane kernel, on the calling thread. Equal to `update(t)` then
    /// `finalize()` for each pair.
    ///
    /// # Panics
    /// If the two lists differ in length (a caller's bug).
    pub fn finalize_many(macs: Vec<HmacSm3>, tails: &[&[u8]]) -> Vec<[u8; DIGEST_SIZE]> {
        let (inners, outers): (Vec<Sm3>, Vec<Sm3>) = macs.into_iter().map(|m| (m.inner, m.outer)).unzip();
        let mut inner = Sm3::finalize_many(inners, tails);
        let refs: Vec<&[u8]> = inner.iter().map(|d| &d[..]).collect();
        let tags = Sm3::finalize_many(outers, &refs);
        inner.zeroize();
        tags
    }
}

/// HMAC-SM3 of each message under one `key` (in order): the inner and
/// outer hashes of messages of similar length run side by side, 8 or 16 at
/// a time (multi-buffer compression), spread over all cores when there is
/// enough work, as [`hash_many`].
pub fn hmac_many(key: &[u8], messages: &[&[u8]]) -> Vec<[u8; DIGEST_SIZE]> {
    use rayon::prelude::*;
    let mac = HmacSm3::new(key);
    let total: usize = messages.iter().map(|m| m.len() + 2 * BLOCK_SIZE).sum();
    let threads = if total >= 1 << 16 && messages.len() >= 2 { crate::par::num_threads() } else { 1 };
    // Whole lane groups per thread: messages of similar length stay together.
    let per = messages.len().div_ceil(threads).next_multiple_of(16).max(1);
    let part = |ms: &[&[u8]]| HmacSm3::finalize_many(vec![mac.clone(); ms.len()], ms);
    if threads == 1 {
        return part(messages);
    }
    let mut order: Vec<usize> = (0..messages.len()).collect();
    order.sort_by_key(|&i| messages[i].len());
    let sorted: Vec<&[u8]> = order.iter().map(|&i| messages[i]).collect();
    let tags: Vec<Vec<[u8; DIGEST_SIZE]>> = crate::par::install(|| sorted.par_chunks(per).map(part).collect());
    let mut out = vec![[0u8; DIGEST_SIZE]; messages.len()];
    for (&i, t) in order.iter().zip(tags.iter().flatten()) {
        out[i] = *t;
    }
    out
}

/// Compresses each of `data` (whole 64-byte blocks) into the matching one of
/// `states`, side by side on the lane kernel, on the calling thread: the
/// multi-buffer form of [`compress_blocks`], for callers that pad
/// themselves (the constant-time TLCP record MAC).
///
/// # Panics
/// If the lists differ in length or a message is not whole blocks.
pub fn compress_many(states: &mut [[u32; 8]], data: &[&[u8]]) {
    assert_eq!(states.len(), data.len(), "sm3::compress_many: one state per message");
    assert!(data.iter().all(|d| d.len().is_multiple_of(BLOCK_SIZE)), "sm3::compress_many: whole blocks only");
    many::run(data.iter().map(|d| many::Blocks::raw(d)).collect(), states);
}

/// HMAC-SM3 of `data` under `key` in one call.
pub fn hmac(key: &[u8], data: &[u8]) -> [u8; DIGEST_SIZE] {
    let mut mac = HmacSm3::new(key);
    mac.update(data);
    mac.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The batched finishes against one computation at a time (itself
    /// checked against the standard's examples below) on random prefixes
    /// and tails: pending bytes before, block boundaries, empty tails.
    #[test]
    fn finalize_many_equals_each() {
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        for n in [0usize, 1, 2, 7, 8, 9, 16, 17, 40] {
            let data: Vec<(Vec<u8>, Vec<u8>)> = (0..n)
                .map(|_| {
                    let pre = (next() % 200) as usize;
                    let tail =
                        if next().is_multiple_of(4) { (next() % 70) as usize } else { 1000 + (next() % 3000) as usize };
                    ((0..pre).map(|_| next() as u8).collect(), (0..tail).map(|_| next() as u8).collect())
                })
                .collect();
            let hashers: Vec<Sm3> = data.iter().map(|(p, _)| Sm3::new().chain(p)).collect();
            let tails: Vec<&[u8]> = data.iter().map(|(_, t)| &t[..]).collect();
            let got = Sm3::finalize_many(hashers, &tails);
            for ((p, t), d) in data.iter().zip(&got) {
                assert_eq!(*d, hash(&[&p[..], &t[..]].concat()), "n {n}, prefix {} tail {}", p.len(), t.len());
            }
        }
    }

    #[test]
    fn hmac_many_equals_hmac_of_each() {
        let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
        for key_len in [0usize, 16, 32, 64, 65, 100] {
            let key: Vec<u8> = (0..key_len).map(|_| next() as u8).collect();
            // Enough bytes to take the threaded path, and a small batch.
            for (n, max) in [(3usize, 300usize), (33, 16 * 1024), (70, 2000)] {
                let msgs: Vec<Vec<u8>> =
                    (0..n).map(|_| (0..(next() as usize % max)).map(|_| next() as u8).collect()).collect();
                let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
                let got = hmac_many(&key, &refs);
                for (m, t) in msgs.iter().zip(&got) {
                    assert_eq!(*t, hmac(&key, m), "key {key_len}, {} bytes", m.len());
                }
            }
        }
    }

    #[test]
    fn compress_many_equals_compress_blocks() {
        let mut next = crate::test_rng(7);
        let msgs: Vec<Vec<u8>> = (0..21).map(|i| (0..64 * (i * 7 % 23)).map(|_| next() as u8).collect()).collect();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        let mut states: Vec<[u32; 8]> = (0..21).map(|i| [i as u32 * 0x0101_0101; 8]).collect();
        let mut want = states.clone();
        compress_many(&mut states, &refs);
        for (w, m) in want.iter_mut().zip(&msgs) {
            compress_blocks(w, m);
        }
        assert_eq!(states, want);
    }

    // GB/T 32905-2016 Appendix A, examples 1 and 2.
    #[test]
    fn standard_examples() {
        assert_eq!(hash(b"abc").to_vec(), hex_lit("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"));
        assert_eq!(
            hash(&b"abcd".repeat(16)).to_vec(),
            hex_lit("debe9ff92275b8a138604889c18e5a4d6fdb70e5387e5765293dcba39c0c5732")
        );
    }

    #[test]
    fn incremental_equals_one_shot_at_every_split() {
        let data: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        let whole = hash(&data);
        for split in 0..data.len() {
            let mut h = Sm3::new();
            h.update(&data[..split]);
            let forked = h.clone();
            h.update(&data[split..]);
            assert_eq!(h.finalize(), whole, "split at {split}");
            assert_eq!(forked.chain(&data[split..]).finalize(), whole);
        }
    }

    /// Every kernel this CPU allows agrees with the portable one (and so
    /// with the standard, which the portable one is checked against below)
    /// on many blocks of varied data, and through the hasher.
    #[test]
    fn backends_agree() {
        let data: Vec<u8> = (0..64 * 200u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
        let mut reference = IV;
        compress::compress_blocks_portable(&mut reference, &data);
        let want = hash(&data[..1000]);
        for k in Kernel::available() {
            let mut st = IV;
            k.compress(&mut st, &data);
            assert_eq!(st, reference, "{}", k.name());
            assert_eq!(Sm3::with_kernel(k).chain(&data[..1000]).finalize(), want, "{}", k.name());
        }
        #[cfg(target_arch = "x86_64")]
        if let (Some(b), Some(v)) =
            (<crate::cpu::Bmi2Avx2 as crate::cpu::Token>::get(), <crate::cpu::Avx512Vl as crate::cpu::Token>::get())
        {
            let mut st = IV;
            compress::compress_blocks_avx512((b, v), &mut st, &data);
            assert_eq!(st, reference, "AVX-512 expansion, Rust rounds");
        }
        println!("SM3 kernel on this CPU: {}", backend_name());
        let mut st = IV;
        compress_blocks(&mut st, &data);
        assert_eq!(st, reference, "dispatched");
    }

    /// Every kernel against the portable compression on random data,
    /// random chaining values and every block count from 0 to 9 (one
    /// block: no double-buffer swap; the last block is expanded twice),
    /// called on unaligned slices. (The AVX-512 kernel also carries GG from
    /// one round to the next, and across blocks.)
    #[test]
    fn kernels_agree_with_portable_on_random_blocks() {
        let mut next = crate::test_rng(0x9e37_79b9_7f4a_7c15);
        for kernel in Kernel::available() {
            for trial in 0..40 {
                for nblocks in 0..10 {
                    let data: Vec<u8> = (0..64 * nblocks + 1).map(|_| next() as u8).collect();
                    let mut st = [0u32; 8];
                    st.iter_mut().for_each(|w| *w = next() as u32);
                    let mut reference = st;
                    compress::compress_blocks_portable(&mut reference, &data[1..]);
                    kernel.compress(&mut st, &data[1..]);
                    assert_eq!(st, reference, "{}, trial {trial}, {nblocks} blocks", kernel.name());
                }
            }
        }
    }

    /// The portable compression function alone reproduces the standard's
    /// example, so `backends_agree` compares against a known-good reference.
    #[test]
    fn portable_backend_matches_standard() {
        let mut block = [0u8; 64];
        block[..3].copy_from_slice(b"abc");
        block[3] = 0x80;
        block[63] = 24;
        let mut st = IV;
        compress::compress_blocks_portable(&mut st, &block);
        let digest: Vec<u8> = st.iter().flat_map(|w| w.to_be_bytes()).collect();
        assert_eq!(digest, hex_lit("66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"));
    }

    #[test]
    fn hash_many_equals_hash_of_each() {
        let msgs: Vec<Vec<u8>> = (0..300usize).map(|i| vec![(i % 251) as u8; i * 37]).collect();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
        let many = hash_many(&refs);
        assert_eq!(many.len(), msgs.len());
        for (m, d) in msgs.iter().zip(many.iter()) {
            assert_eq!(*d, hash(m));
        }
        assert!(hash_many(&[]).is_empty());
    }

    fn hex_lit(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }
}
