//! Multi-buffer SM3: 8 (AVX2) or 16 (AVX-512) messages compressed side by
//! side, one message per 32-bit lane.
//!
//! [`hash_many`](super::hash_many) sorts the messages by length and hands
//! batches of similar length to [`hash_batch`]: every message becomes its
//! whole data blocks followed by one or two padded tail blocks; the lanes
//! run in lockstep for as many blocks as the shortest message of the batch
//! has, and each message's remaining blocks go through the one-message
//! compression. The result is the same as hashing each message alone.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

use super::{compress_blocks, BLOCK_SIZE, DIGEST_SIZE, IV};
#[cfg(target_arch = "x86_64")]
use crate::cpu::{self, Token};

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

    pub(super) fn count(&self) -> usize {
        (self.data.len() + self.tail_len) / BLOCK_SIZE
    }

    fn block(&self, k: usize) -> &[u8] {
        let o = k * BLOCK_SIZE;
        if o < self.data.len() {
            &self.data[o..o + BLOCK_SIZE]
        } else {
            let t = o - self.data.len();
            &self.tail[t..t + BLOCK_SIZE]
        }
    }

    /// Compresses blocks `from..` into `state` one message at a time.
    fn finish(&self, state: &mut [u32; 8], from: usize) {
        let o = from * BLOCK_SIZE;
        if o < self.data.len() {
            compress_blocks(state, &self.data[o..]);
        }
        let t = o.saturating_sub(self.data.len());
        compress_blocks(state, &self.tail[t..self.tail_len]);
    }
}

fn digest(state: &[u32; 8]) -> [u8; DIGEST_SIZE] {
    let mut out = [0u8; DIGEST_SIZE];
    for (o, s) in out.chunks_exact_mut(4).zip(state) {
        o.copy_from_slice(&s.to_be_bytes());
    }
    out
}

/// Lanes available to [`hash_batch`] on this CPU (1: no multi-buffer code).
pub(super) fn lanes() -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        if cpu::Avx512Vl::get().is_some() {
            return 16;
        }
        if cpu::Avx2::get().is_some() {
            return 8;
        }
    }
    1
}

/// The digests of a batch of at most `width` messages, `width` being
/// [`lanes`] or a narrower width this CPU also has (16, 8 or 1).
pub(super) fn hash_batch(msgs: &[Blocks<'_>], width: usize) -> Vec<[u8; DIGEST_SIZE]> {
    debug_assert!(msgs.len() <= width.max(1));
    let mut states = vec![IV; msgs.len()];
    let common = msgs.iter().map(Blocks::count).min().unwrap_or(0);
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
    let mut done = 0;
    #[cfg(target_arch = "x86_64")]
    if msgs.len() >= 2 {
        if let (16, Some(t)) = (width, cpu::Avx512Vl::get()) {
            // SAFETY: the token proves AVX-512F/VL.
            unsafe { x16(t, msgs, common, &mut states) };
            done = common;
        } else if let (8 | 16, Some(t)) = (width, cpu::Avx2::get()) {
            // SAFETY: the token proves AVX2.
            unsafe { x8(t, msgs, common, &mut states) };
            done = common;
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
        for width in [8, 16].into_iter().filter(|&w| w <= lanes()) {
            for trial in 0..30 {
                let base = (next() % 1500) as usize;
                let msgs: Vec<Vec<u8>> = (0..width)
                    .map(|_| {
                        let len = base + (next() % 200) as usize;
                        (0..len).map(|_| next() as u8).collect()
                    })
                    .collect();
                let blocks: Vec<Blocks<'_>> = msgs.iter().map(|m| Blocks::new(m)).collect();
                let got = hash_batch(&blocks, width);
                for (m, d) in msgs.iter().zip(got) {
                    assert_eq!(d, super::super::hash(m), "width {width}, trial {trial}, {} bytes", m.len());
                }
            }
        }
    }

    #[test]
    fn every_width_equals_hash_of_each() {
        // Lengths around the one/two tail-block boundary, equal and mixed.
        let lens = [0usize, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 1000, 4096, 333, 64 * 9, 7];
        let msgs: Vec<Vec<u8>> = lens.iter().map(|&n| (0..n).map(|i| (i * 131 + n) as u8).collect()).collect();
        let want: Vec<_> = msgs.iter().map(|m| super::super::hash(m)).collect();
        for width in [1, 8, 16].into_iter().filter(|&w| w <= lanes()) {
            for chunk in [2, 5, width.max(1)] {
                let chunk = chunk.min(width.max(1));
                for (k, group) in msgs.chunks(chunk).enumerate() {
                    let blocks: Vec<Blocks<'_>> = group.iter().map(|m| Blocks::new(m)).collect();
                    let got = hash_batch(&blocks, width);
                    assert_eq!(got, want[k * chunk..k * chunk + group.len()], "width {width} chunk {chunk}");
                }
            }
            let same: Vec<Vec<u8>> = (0..width).map(|l| vec![l as u8; 64 * 20 + l]).collect();
            let blocks: Vec<Blocks<'_>> = same.iter().map(|m| Blocks::new(m)).collect();
            let got = hash_batch(&blocks, width);
            for (m, d) in same.iter().zip(got) {
                assert_eq!(d, super::super::hash(m), "width {width}");
            }
        }
    }
}

/// Vector operations on lanes of 32-bit words.
#[cfg(target_arch = "x86_64")]
trait Lanes: Copy {
    const N: usize;
    fn add(self, b: Self) -> Self;
    fn xor(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn rol<const R: i32>(self) -> Self;
    fn splat(w: u32) -> Self;
    fn from_words(w: &[u32; 16]) -> Self;
    fn to_words(self) -> [u32; 16];
    /// Lane l = the 32-bit word at byte offset `idx[l]` of `base`.
    fn gather(base: &[u8], idx: Self) -> Self;
    /// `self <<< 8` in every lane.
    fn rol8(self) -> Self;
    /// Each lane's bytes reversed (big-endian words to numbers).
    fn bswap(self) -> Self;
    /// Words 0..16 of block `blocks[l]` in lane l (l < N; each block is 64
    /// bytes), already byte-swapped. `buf` is scratch space of 64 bytes per
    /// lane. By default: the blocks copied into `buf`, one gather per word.
    #[inline(always)]
    fn block_words(blocks: [&[u8]; 16], buf: &mut [u8; 16 * BLOCK_SIZE]) -> [Self; 16] {
        for (l, b) in blocks.iter().enumerate().take(Self::N) {
            buf[BLOCK_SIZE * l..BLOCK_SIZE * (l + 1)].copy_from_slice(b);
        }
        let idx = Self::from_words(&core::array::from_fn(|l| (BLOCK_SIZE * l) as u32));
        core::array::from_fn(|j| Self::gather(buf, idx.add(Self::splat(4 * j as u32))).bswap())
    }
}

#[cfg(target_arch = "x86_64")]
macro_rules! lanes_impl {
    ($t:ty, $n:expr, $add:ident, $xor:ident, $and:ident, $or:ident, $set1:ident, $load:ident, $store:ident, $rol:ident, $gather:expr, $rol8:expr, $bswap:expr $(, $block_words:path)?) => {
        impl Lanes for $t {
            const N: usize = $n;
            // SAFETY (every method): the trait is private and its methods
            // are only called from `multi`, an unsafe fn whose callers are
            // the token-gated entry points that enable the features.
            #[inline(always)]
            fn add(self, b: Self) -> Self {
                unsafe { $add(self, b) }
            }
            #[inline(always)]
            fn xor(self, b: Self) -> Self {
                unsafe { $xor(self, b) }
            }
            #[inline(always)]
            fn and(self, b: Self) -> Self {
                unsafe { $and(self, b) }
            }
            #[inline(always)]
            fn or(self, b: Self) -> Self {
                unsafe { $or(self, b) }
            }
            #[inline(always)]
            fn rol<const R: i32>(self) -> Self {
                unsafe { $rol::<R>(self) }
            }
            #[inline(always)]
            fn splat(w: u32) -> Self {
                unsafe { $set1(w as i32) }
            }
            #[inline(always)]
            fn from_words(w: &[u32; 16]) -> Self {
                unsafe { $load(w.as_ptr().cast()) }
            }
            #[inline(always)]
            fn gather(base: &[u8], idx: Self) -> Self {
                // Callers pass offsets below base.len() - 3 (debug-checked).
                debug_assert!(idx.to_words()[..$n].iter().all(|&o| (o as usize) + 4 <= base.len()));
                unsafe { $gather(base.as_ptr(), idx) }
            }
            $(
                #[inline(always)]
                fn block_words(blocks: [&[u8]; 16], _buf: &mut [u8; 16 * BLOCK_SIZE]) -> [Self; 16] {
                    unsafe { $block_words(blocks) }
                }
            )?
            #[inline(always)]
            fn rol8(self) -> Self {
                unsafe { $rol8(self) }
            }
            #[inline(always)]
            fn bswap(self) -> Self {
                unsafe { $bswap(self) }
            }
            #[inline(always)]
            fn to_words(self) -> [u32; 16] {
                let mut w = [0u32; 16];
                unsafe { $store(w.as_mut_ptr().cast(), self) };
                w
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
lanes_impl!(
    __m256i,
    8,
    _mm256_add_epi32,
    _mm256_xor_si256,
    _mm256_and_si256,
    _mm256_or_si256,
    _mm256_set1_epi32,
    _mm256_loadu_si256,
    _mm256_storeu_si256,
    rol256,
    |p: *const u8, i| _mm256_i32gather_epi32::<1>(p.cast(), i),
    |x| _mm256_shuffle_epi8(
        x,
        _mm256_set_epi8(
            14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3, 14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3
        )
    ),
    |x| _mm256_shuffle_epi8(
        x,
        _mm256_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3
        )
    ),
    block_words256
);

/// Words 0..16 of blocks 0..8, block l in lane l, byte-swapped: two 8 x 8
/// transposes of 32-bit words (unpack 32, unpack 64, 128-bit lane permute:
/// 24 shuffles for 8 words) from 32-byte loads, instead of 16 gathers from
/// a copy of the blocks. Every address is public (the blocks' positions).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn block_words256(blocks: [&[u8]; 16]) -> [__m256i; 16] {
    // SAFETY: the caller has AVX2; each load reads 32 bytes of a 64-byte
    // block (the slicing is bounds-checked).
    unsafe {
        let mut out = [_mm256_setzero_si256(); 16];
        for half in 0..2 {
            let r: [__m256i; 8] =
                core::array::from_fn(|l| _mm256_loadu_si256(blocks[l][32 * half..32 * half + 32].as_ptr().cast()));
            // t: pairs of blocks interleaved by words; u: quadruples; in
            // each 128-bit half, u_k holds word k (low half) and k + 4
            // (high half) of four blocks.
            let t: [__m256i; 8] = core::array::from_fn(|i| {
                let (x, y) = (r[2 * (i / 2)], r[2 * (i / 2) + 1]);
                if i % 2 == 0 {
                    _mm256_unpacklo_epi32(x, y)
                } else {
                    _mm256_unpackhi_epi32(x, y)
                }
            });
            let u: [__m256i; 8] = core::array::from_fn(|i| {
                // i = 4 * (blocks 4..8) + word k: from t[4q + k/2], t[4q + k/2 + 2].
                let (q, k) = (i / 4, i % 4);
                let (x, y) = (t[4 * q + k / 2], t[4 * q + k / 2 + 2]);
                if k % 2 == 0 {
                    _mm256_unpacklo_epi64(x, y)
                } else {
                    _mm256_unpackhi_epi64(x, y)
                }
            });
            for k in 0..4 {
                out[8 * half + k] = _mm256_permute2x128_si256::<0x20>(u[k], u[4 + k]);
                out[8 * half + 4 + k] = _mm256_permute2x128_si256::<0x31>(u[k], u[4 + k]);
            }
        }
        let bswap = _mm256_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
        );
        out.map(|v| _mm256_shuffle_epi8(v, bswap))
    }
}
#[cfg(target_arch = "x86_64")]
lanes_impl!(
    __m512i,
    16,
    _mm512_add_epi32,
    _mm512_xor_si512,
    _mm512_and_si512,
    _mm512_or_si512,
    _mm512_set1_epi32,
    _mm512_loadu_si512,
    _mm512_storeu_si512,
    _mm512_rol_epi32,
    |p: *const u8, i| _mm512_i32gather_epi32::<1>(i, p.cast()),
    _mm512_rol_epi32::<8>,
    // No byte shuffle without AVX-512BW: two rotations and masks.
    |x| {
        let (m08, m24) = (_mm512_set1_epi32(0x00ff_00ff), _mm512_set1_epi32(0xff00_ff00u32 as i32));
        _mm512_or_si512(
            _mm512_and_si512(_mm512_rol_epi32::<8>(x), m08),
            _mm512_and_si512(_mm512_rol_epi32::<24>(x), m24),
        )
    }
);

/// Rotation on AVX2 (no `vprold`): shifts by a count register, since the
/// right shift `32 - R` cannot be a const generic argument.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn rol256<const R: i32>(x: __m256i) -> __m256i {
    // SAFETY: the caller has AVX2.
    unsafe {
        _mm256_or_si256(_mm256_sll_epi32(x, _mm_cvtsi32_si128(R)), _mm256_srl_epi32(x, _mm_cvtsi32_si128(32 - R)))
    }
}

/// Compresses blocks `0..common` of every message (lane l = message l;
/// lanes past `msgs.len()` repeat message 0 and are discarded).
///
/// # Safety
/// The CPU must have the features of `V`'s operations (AVX2 for
/// `__m256i`, AVX-512F for `__m512i`): callers are the token-gated entry
/// points below.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn multi<V: Lanes>(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    let lane = |l: usize| &msgs[if l < msgs.len() { l } else { 0 }];
    let mut st: [V; 8] = core::array::from_fn(|i| {
        let mut w = [0u32; 16];
        for (l, v) in w.iter_mut().enumerate().take(V::N) {
            *v = if l < states.len() { states[l][i] } else { IV[i] };
        }
        V::from_words(&w)
    });
    // x <<< 17 = (x <<< 9) <<< 8 and x <<< 23 = (x <<< 15) <<< 8: on AVX2
    // the rotation by 8 is one byte shuffle instead of two shifts and an OR.
    let p0 = |x: V| {
        let r9 = x.rol::<9>();
        x.xor(r9).xor(r9.rol8())
    };
    let p1 = |x: V| {
        let r15 = x.rol::<15>();
        x.xor(r15).xor(r15.rol8())
    };
    let mut buf = [0u8; 16 * BLOCK_SIZE];
    for k in 0..common {
        let blocks: [&[u8]; 16] = core::array::from_fn(|l| lane(l).block(k));
        let mut w = [V::splat(0); 68];
        w[..16].copy_from_slice(&V::block_words(blocks, &mut buf));
        for j in 16..68 {
            w[j] = p1(w[j - 16].xor(w[j - 9]).xor(w[j - 3].rol::<15>())).xor(w[j - 13].rol::<7>()).xor(w[j - 6]);
        }
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        for j in 0..64 {
            let a12 = a.rol::<12>();
            let ss1 = a12.add(V::splat(super::consts::T[j])).add(e).rol::<7>();
            let ss2 = ss1.xor(a12);
            let (ff, gg) = if j < 16 {
                (a.xor(b).xor(c), e.xor(f).xor(g))
            } else {
                (a.and(b).or(c.and(a.or(b))), f.xor(g).and(e).xor(g))
            };
            let tt1 = ff.add(d).add(ss2).add(w[j].xor(w[j + 4]));
            let tt2 = gg.add(h).add(ss1).add(w[j]);
            d = c;
            c = b.rol::<9>();
            b = a;
            a = tt1;
            h = g;
            g = f.rol::<19>();
            f = e;
            e = p0(tt2);
        }
        for (s, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
            *s = s.xor(v);
        }
    }
    zeroize::Zeroize::zeroize(&mut buf);
    for (i, v) in st.iter().enumerate() {
        let w = v.to_words();
        for (l, s) in states.iter_mut().enumerate() {
            s[i] = w[l];
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2")]
fn x8(_t: cpu::Avx2, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    // SAFETY: the token proves AVX2, enabled here.
    unsafe { multi::<__m256i>(msgs, common, states) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx,avx2,avx512f,avx512vl")]
fn x16(_t: cpu::Avx512Vl, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    // SAFETY: the token proves AVX-512F/VL, enabled here.
    unsafe { multi::<__m512i>(msgs, common, states) }
}
