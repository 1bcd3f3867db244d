//! The lane kernels behind [`many`](crate::sm3::many): one SM3 compression per
//! 32-bit lane, generic over the vector type. Three instantiations: 8 lanes
//! in ymm registers with AVX2 only, 8 lanes in ymm registers with AVX-512VL
//! (`vprold` rotates in one instruction, `vpternlogd` merges the three-input
//! XORs and the FF/GG selections), and 16 lanes in zmm registers.
//!
//! Every load address is a public block position and no branch depends on
//! the data. Valgrind cannot execute AVX-512, so `tests/ctgrind.rs`
//! checks only the AVX2 instantiation; the other two run the same generic
//! code with other instructions.

use core::arch::x86_64::*;

use crate::cpu;
use crate::sm3::blocks::Blocks;
use crate::sm3::{BLOCK_SIZE, IV};

/// Vector operations on lanes of 32-bit words.
trait Lanes: Copy {
    const N: usize;
    /// Whether a rotation is one instruction (`vprold`): then P0 and P1
    /// rotate twice in parallel rather than by 8 after the first rotation.
    const FAST_ROL: bool;
    fn add(self, b: Self) -> Self;
    fn xor(self, b: Self) -> Self;
    fn and(self, b: Self) -> Self;
    fn or(self, b: Self) -> Self;
    fn rol<const R: i32>(self) -> Self;
    /// `a ^ b ^ c`.
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        self.xor(b).xor(c)
    }
    /// SM3's FF for rounds 16..64: the bitwise majority of `self`, `b`, `c`.
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        self.and(b).or(c.and(self.or(b)))
    }
    /// SM3's GG for rounds 16..64: bits of `f` where `self` is set, of `g`
    /// elsewhere.
    #[inline(always)]
    fn choose(self, f: Self, g: Self) -> Self {
        f.xor(g).and(self).xor(g)
    }
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
        let mut out = [idx; 16];
        for (j, o) in out.iter_mut().enumerate() {
            *o = Self::gather(buf, idx.add(Self::splat(4 * j as u32))).bswap();
        }
        out
    }
}

macro_rules! lanes_impl {
    ($t:ty, $n:expr, $fast:expr, $add:ident, $xor:ident, $and:ident, $or:ident, $set1:ident, $load:ident, $store:ident, $rol:ident, $gather:expr, $rol8:expr, $bswap:expr $(, $block_words:path)? $(; $tern:ident)?) => {
        impl Lanes for $t {
            const N: usize = $n;
            const FAST_ROL: bool = $fast;
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
                fn xor3(self, b: Self, c: Self) -> Self {
                    unsafe { $tern::<0x96>(self, b, c) }
                }
                #[inline(always)]
                fn maj(self, b: Self, c: Self) -> Self {
                    unsafe { $tern::<0xe8>(self, b, c) }
                }
                #[inline(always)]
                fn choose(self, f: Self, g: Self) -> Self {
                    unsafe { $tern::<0xca>(self, f, g) }
                }
            )?
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

lanes_impl!(
    __m256i,
    8,
    false,
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
#[inline(always)]
unsafe fn block_words256(blocks: [&[u8]; 16]) -> [__m256i; 16] {
    // SAFETY: the caller has AVX2; each load reads 32 bytes of a 64-byte
    // block (the slicing is bounds-checked).
    unsafe {
        // Plain loops, not `array::from_fn`/`map`: those closures are not
        // always inlined into the target-feature function, and a call per
        // block passing vectors through memory costs more than the work.
        let bswap = _mm256_set_epi8(
            12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
        );
        let zero = _mm256_setzero_si256();
        let mut out = [zero; 16];
        for half in 0..2 {
            let mut r = [zero; 8];
            for (l, v) in r.iter_mut().enumerate() {
                *v = _mm256_loadu_si256(blocks[l][32 * half..32 * half + 32].as_ptr().cast());
            }
            // t: pairs of blocks interleaved by words; u: quadruples; in
            // each 128-bit half, u_k holds word k (low half) and k + 4
            // (high half) of four blocks.
            let mut t = [zero; 8];
            for p in 0..4 {
                t[2 * p] = _mm256_unpacklo_epi32(r[2 * p], r[2 * p + 1]);
                t[2 * p + 1] = _mm256_unpackhi_epi32(r[2 * p], r[2 * p + 1]);
            }
            let mut u = [zero; 8];
            for q in 0..2 {
                // u[4q + k] = word k of blocks 4q..4q+4: from t[4q + k/2], t[4q + k/2 + 2].
                for h in 0..2 {
                    let (x, y) = (t[4 * q + h], t[4 * q + h + 2]);
                    u[4 * q + 2 * h] = _mm256_unpacklo_epi64(x, y);
                    u[4 * q + 2 * h + 1] = _mm256_unpackhi_epi64(x, y);
                }
            }
            for k in 0..4 {
                out[8 * half + k] = _mm256_shuffle_epi8(_mm256_permute2x128_si256::<0x20>(u[k], u[4 + k]), bswap);
                out[8 * half + 4 + k] = _mm256_shuffle_epi8(_mm256_permute2x128_si256::<0x31>(u[k], u[4 + k]), bswap);
            }
        }
        out
    }
}
lanes_impl!(
    __m512i,
    16,
    true,
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
    },
    block_words512;
    _mm512_ternarylogic_epi32
);

/// Words 0..16 of blocks 0..16, block l in lane l, byte-swapped: the AVX2
/// transposes of blocks 0..8 and 8..16 joined, instead of gathers.
#[inline(always)]
unsafe fn block_words512(blocks: [&[u8]; 16]) -> [__m512i; 16] {
    // SAFETY: the caller has AVX-512F (and so AVX2).
    unsafe {
        let mut upper: [&[u8]; 16] = [&[]; 16];
        upper[..8].copy_from_slice(&blocks[8..]);
        let (lo, hi) = (block_words256(blocks), block_words256(upper));
        let mut out = [_mm512_setzero_si512(); 16];
        for j in 0..16 {
            out[j] = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo[j]), hi[j]);
        }
        out
    }
}

/// 8 lanes in ymm registers with AVX-512VL: the AVX2 operations, except
/// that rotations are one `vprold` and the three-input functions one
/// `vpternlogd` each. Two threads of this kernel beat one thread of the
/// 16-lane one (see `Kernel::choose`).
#[derive(Clone, Copy)]
struct Vl256(__m256i);

impl Lanes for Vl256 {
    const N: usize = 8;
    const FAST_ROL: bool = true;
    // SAFETY (every method): as for the macro-made impls; the callers
    // enable AVX-512F/VL, which include AVX2.
    #[inline(always)]
    fn add(self, b: Self) -> Self {
        Vl256(self.0.add(b.0))
    }
    #[inline(always)]
    fn xor(self, b: Self) -> Self {
        Vl256(self.0.xor(b.0))
    }
    #[inline(always)]
    fn and(self, b: Self) -> Self {
        Vl256(self.0.and(b.0))
    }
    #[inline(always)]
    fn or(self, b: Self) -> Self {
        Vl256(self.0.or(b.0))
    }
    #[inline(always)]
    fn rol<const R: i32>(self) -> Self {
        Vl256(unsafe { _mm256_rol_epi32::<R>(self.0) })
    }
    #[inline(always)]
    fn xor3(self, b: Self, c: Self) -> Self {
        Vl256(unsafe { _mm256_ternarylogic_epi32::<0x96>(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn maj(self, b: Self, c: Self) -> Self {
        Vl256(unsafe { _mm256_ternarylogic_epi32::<0xe8>(self.0, b.0, c.0) })
    }
    #[inline(always)]
    fn choose(self, f: Self, g: Self) -> Self {
        Vl256(unsafe { _mm256_ternarylogic_epi32::<0xca>(self.0, f.0, g.0) })
    }
    #[inline(always)]
    fn splat(w: u32) -> Self {
        Vl256(__m256i::splat(w))
    }
    #[inline(always)]
    fn from_words(w: &[u32; 16]) -> Self {
        Vl256(__m256i::from_words(w))
    }
    #[inline(always)]
    fn to_words(self) -> [u32; 16] {
        self.0.to_words()
    }
    #[inline(always)]
    fn gather(base: &[u8], idx: Self) -> Self {
        Vl256(__m256i::gather(base, idx.0))
    }
    #[inline(always)]
    fn rol8(self) -> Self {
        self.rol::<8>()
    }
    #[inline(always)]
    fn bswap(self) -> Self {
        Vl256(self.0.bswap())
    }
    #[inline(always)]
    fn block_words(blocks: [&[u8]; 16], _buf: &mut [u8; 16 * BLOCK_SIZE]) -> [Self; 16] {
        let words = unsafe { block_words256(blocks) };
        let mut out = [Vl256(words[0]); 16];
        for (o, w) in out.iter_mut().zip(words) {
            *o = Vl256(w);
        }
        out
    }
}

/// Rotation on AVX2 (no `vprold`): shifts by a count register, since the
/// right shift `32 - R` cannot be a const generic argument.
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
    // On AVX2, x <<< 17 = (x <<< 9) <<< 8 and x <<< 23 = (x <<< 15) <<< 8:
    // the rotation by 8 is one byte shuffle instead of two shifts and an
    // OR. With `vprold` both rotations are one instruction each and
    // independent, one rotation shorter on the path to the next E.
    let p0 = |x: V| {
        let r9 = x.rol::<9>();
        if V::FAST_ROL {
            x.xor3(r9, x.rol::<17>())
        } else {
            x.xor3(r9, r9.rol8())
        }
    };
    let p1 = |x: V| {
        let r15 = x.rol::<15>();
        if V::FAST_ROL {
            x.xor3(r15, x.rol::<23>())
        } else {
            x.xor3(r15, r15.rol8())
        }
    };
    let mut buf = [0u8; 16 * BLOCK_SIZE];
    for k in 0..common {
        let mut blocks: [&[u8]; 16] = [&[]; 16];
        for (l, b) in blocks.iter_mut().enumerate().take(V::N) {
            *b = lane(l).block(k);
        }
        // The message schedule is a ring of 16 words: slot m % 16 holds
        // W[m] from the round that computes it (j = m - 4, so that round j
        // has W[j] and W[j + 4]) until round m + 12 overwrites it with
        // W[m + 16]. All 64 rounds are unrolled by the macros below, so every
        // index is a constant and the ring and the state stay in registers.
        let mut w = V::block_words(blocks, &mut buf);
        let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = st;
        // One round on the named state: instead of moving every word down
        // a place, the round writes its new A into `d` and its new E into
        // `h`, and the caller rotates the names (d, a, b, c, h, e, f, g).
        // The sums are grouped so that the terms ready early (T_j, h, d,
        // the message words, then A <<< 12) are added first: E, the last
        // input a round gets, goes through two additions and a rotation
        // before the next round's E, not four.
        macro_rules! round {
            ($j:expr, $ff:ident, $gg:ident, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident) => {{
                const J: usize = $j;
                if J >= 12 {
                    // W[J + 4] over W[J - 12] in slot (J + 4) % 16.
                    let m = J + 4;
                    // (m + 16 - i) % 16 for W[m - i]: no subtraction to
                    // overflow in the rounds (J < 12) that skip this.
                    w[m % 16] = p1(w[m % 16].xor3(w[(m + 7) % 16], w[(m + 13) % 16].rol::<15>()))
                        .xor3(w[(m + 3) % 16].rol::<7>(), w[(m + 10) % 16]);
                }
                let a12 = $a.rol::<12>();
                let ss1 = a12.add(V::splat(crate::sm3::consts::T[J])).add($e).rol::<7>();
                let ss2 = ss1.xor(a12);
                let tt1 = $a.$ff($b, $c).add($d.add(w[J % 16].xor(w[(J + 4) % 16]))).add(ss2);
                let tt2 = $e.$gg($f, $g).add($h.add(w[J % 16])).add(ss1);
                $b = $b.rol::<9>();
                $f = $f.rol::<19>();
                $d = tt1;
                $h = p0(tt2);
            }};
        }
        macro_rules! rounds4 {
            ($j:expr, $ff:ident, $gg:ident) => {{
                round!($j, $ff, $gg, a, b, c, d, e, f, g, h);
                round!($j + 1, $ff, $gg, d, a, b, c, h, e, f, g);
                round!($j + 2, $ff, $gg, c, d, a, b, g, h, e, f);
                round!($j + 3, $ff, $gg, b, c, d, a, f, g, h, e);
            }};
        }
        rounds4!(0, xor3, xor3);
        rounds4!(4, xor3, xor3);
        rounds4!(8, xor3, xor3);
        rounds4!(12, xor3, xor3);
        rounds4!(16, maj, choose);
        rounds4!(20, maj, choose);
        rounds4!(24, maj, choose);
        rounds4!(28, maj, choose);
        rounds4!(32, maj, choose);
        rounds4!(36, maj, choose);
        rounds4!(40, maj, choose);
        rounds4!(44, maj, choose);
        rounds4!(48, maj, choose);
        rounds4!(52, maj, choose);
        rounds4!(56, maj, choose);
        rounds4!(60, maj, choose);
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

/// 8 lanes in ymm registers, AVX2: the token proves AVX2.
pub(crate) fn x8(_t: cpu::Avx2, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    #[target_feature(enable = "avx,avx2")]
    unsafe fn run(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
        // SAFETY: AVX2 is enabled here.
        unsafe { multi::<__m256i>(msgs, common, states) }
    }
    // SAFETY: the token proves AVX2.
    unsafe { run(msgs, common, states) }
}

/// 16 lanes in zmm registers: the token proves AVX-512F/VL.
pub(crate) fn x16(_t: cpu::Avx512Vl, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    #[target_feature(enable = "avx,avx2,avx512f,avx512vl")]
    unsafe fn run(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
        // SAFETY: AVX-512F/VL are enabled here.
        unsafe { multi::<__m512i>(msgs, common, states) }
    }
    // SAFETY: the token proves AVX-512F/VL.
    unsafe { run(msgs, common, states) }
}

/// 8 lanes in ymm registers with AVX-512VL instructions: the token proves
/// AVX-512F/VL.
pub(crate) fn x8vl(_t: cpu::Avx512Vl, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    #[target_feature(enable = "avx,avx2,avx512f,avx512vl")]
    unsafe fn run(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
        // SAFETY: AVX-512F/VL are enabled here.
        unsafe { multi::<Vl256>(msgs, common, states) }
    }
    // SAFETY: the token proves AVX-512F/VL.
    unsafe { run(msgs, common, states) }
}
