//! The SM4 rounds written once over a word-sliced SIMD [`Engine`].
//!
//! A *group* is four vectors: vector j holds word j of `E::LANES` blocks
//! (one block per 32-bit lane), so a round is one S-box-and-L pass over a
//! vector and three XORs. The bulk kernels keep `G` groups in flight,
//! interleaved round by round, so the S-box latency of one group hides
//! behind the others. Every function here is `#[inline(always)]`: it is
//! instantiated inside an engine's `#[target_feature]` entry point (in
//! `x86/mod.rs`), so that the engine's intrinsics inline into it.
//!
//! Constant time: engines provide only register operations (the S-box is
//! `gf2p8affine*` or `pshufb`-on-register plus `aesenclast`), and the
//! kernels below index memory only by public lengths and offsets.

use zeroize::Zeroize;

/// A SIMD implementation of the pieces of an SM4 round. A value of an
/// engine exists only once its CPU features were proven (it is built from a
/// [`crate::cpu`] token), which is what makes its safe methods sound.
pub(super) trait Engine: Copy {
    /// A vector of `LANES` 32-bit words.
    type V: Copy;
    /// Blocks in a group (32-bit lanes per vector).
    const LANES: usize;
    /// Bytes in a group.
    const GROUP: usize = 16 * Self::LANES;

    /// Every lane set to `w`.
    fn splat(self, w: u32) -> Self::V;
    /// `a ^ b`.
    fn xor(self, a: Self::V, b: Self::V) -> Self::V;
    /// `a ^ b ^ c`.
    fn xor3(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    // aarch64 runs CTR byte-sliced (`aarch64/aese.rs`), not through these.
    #[cfg_attr(target_arch = "aarch64", allow(dead_code))]
    /// Lane-wise wrapping addition.
    fn add(self, a: Self::V, b: Self::V) -> Self::V;
    /// `L(S(x))` on every lane: the S-box on each byte, then
    /// `L(b) = b ^ b<<<2 ^ b<<<10 ^ b<<<18 ^ b<<<24`.
    fn t(self, x: Self::V) -> Self::V;
    /// `acc ^ L(S(x))`; engines with three-way XORs override it to take one
    /// step off the round's critical path.
    #[inline(always)]
    fn t_xor(self, x: Self::V, acc: Self::V) -> Self::V {
        self.xor(acc, self.t(x))
    }
    /// The round key as XORed into a round's input. Engines that keep the
    /// state in a round domain of their own (a byte-wise linear bijection
    /// `D` of every word, with the S-box's input constant folded into the
    /// key) return `D(k) ^ c` here, compute `D(L(S(D^-1(u ^ c))))` in
    /// [`Engine::t`], and map words in and out with [`Engine::enter`] and
    /// [`Engine::leave`]; the others use the identity.
    #[inline(always)]
    fn key(self, k: u32) -> Self::V {
        self.splat(k)
    }
    /// A state word into the round domain.
    #[inline(always)]
    fn enter(self, v: Self::V) -> Self::V {
        v
    }
    /// A state word out of the round domain.
    #[inline(always)]
    fn leave(self, v: Self::V) -> Self::V {
        v
    }
    /// The lane-0 word of `v`.
    fn first(self, v: Self::V) -> u32;
    // aarch64 runs CTR byte-sliced (`aarch64/aese.rs`), not through these.
    #[cfg_attr(target_arch = "aarch64", allow(dead_code))]
    /// For each lane, the index (within the group) of the block it holds
    /// after [`Engine::load`].
    fn lane_blocks(self) -> Self::V;
    /// Loads the `LANES` blocks of `src[..GROUP]` into word-sliced form.
    fn load(self, src: &[u8]) -> [Self::V; 4];
    /// Stores the output words (x3, x2, x1, x0) of a group into
    /// `dst[..GROUP]`, as they are or XORed as `with` says.
    fn store(self, x: [Self::V; 4], with: With<'_>, dst: &mut [u8]);
}

/// What [`Engine::store`] XORs its output with.
#[derive(Clone, Copy)]
#[cfg_attr(target_arch = "aarch64", allow(dead_code))]
pub(super) enum With<'a> {
    /// Nothing: the output is stored as it is.
    Nothing,
    /// The bytes `dst` already holds.
    Dst,
    /// These bytes (at least a group).
    Src(&'a [u8]),
}

/// The 32 rounds on `G` groups, interleaved round by round (plain words in
/// and out).
#[inline(always)]
pub(super) fn rounds<E: Engine, const G: usize>(e: E, rk: &[u32; 32], s: &mut [[E::V; 4]; G]) {
    for x in s.iter_mut() {
        *x = enter(e, *x);
    }
    rounds_in_domain(e, rk, s);
    for x in s.iter_mut() {
        *x = leave(e, *x);
    }
}

#[inline(always)]
fn enter<E: Engine>(e: E, x: [E::V; 4]) -> [E::V; 4] {
    [e.enter(x[0]), e.enter(x[1]), e.enter(x[2]), e.enter(x[3])]
}

#[inline(always)]
fn leave<E: Engine>(e: E, x: [E::V; 4]) -> [E::V; 4] {
    [e.leave(x[0]), e.leave(x[1]), e.leave(x[2]), e.leave(x[3])]
}

/// [`rounds`] on a state already in the engine's round domain (see
/// [`Engine::key`]), leaving it there.
#[inline(always)]
fn rounds_in_domain<E: Engine, const G: usize>(e: E, rk: &[u32; 32], s: &mut [[E::V; 4]; G]) {
    let mut st = *s;
    // The word indices are constants in each of the four statements (a
    // loop over i made LLVM keep the state in memory).
    macro_rules! round {
        ($i:expr, $k:expr) => {{
            let k = e.key($k);
            for x in st.iter_mut() {
                let t = e.xor(e.xor3(x[($i + 1) % 4], x[($i + 2) % 4], k), x[($i + 3) % 4]);
                x[$i] = e.t_xor(t, x[$i]);
            }
        }};
    }
    for r in rk.chunks_exact(4) {
        round!(0, r[0]);
        round!(1, r[1]);
        round!(2, r[2]);
        round!(3, r[3]);
    }
    *s = st;
}

/// Encrypts (or, with reversed round keys, decrypts) `G` groups from `src`
/// (or `dst` itself) into `dst[..G * GROUP]`.
#[inline(always)]
fn groups<E: Engine, const G: usize>(e: E, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    // A loop, not `array::from_fn`: a closure that is not inlined would be
    // compiled without the engine's target features.
    let zero = e.splat(0);
    let mut s = [[zero; 4]; G];
    {
        let inp: &[u8] = src.unwrap_or(dst);
        for (g, x) in s.iter_mut().enumerate() {
            *x = e.load(&inp[E::GROUP * g..]);
        }
    }
    rounds(e, rk, &mut s);
    for (g, x) in s.into_iter().enumerate() {
        e.store(x, With::Nothing, &mut dst[E::GROUP * g..]);
    }
}

/// Encrypts whole blocks from `src` (at least `dst.len()` bytes; `None`:
/// in place) into `dst`, `G` groups at a time, then single groups, then
/// a final partial group through a wiped stack buffer.
#[inline(always)]
pub(super) fn crypt_blocks<E: Engine, const G: usize>(e: E, rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) {
    let n = dst.len() - dst.len() % 16;
    let at = |o: usize| src.map(|s| &s[o..]);
    let mut o = 0;
    while n - o >= G * E::GROUP {
        groups::<E, G>(e, rk, at(o), &mut dst[o..]);
        o += G * E::GROUP;
    }
    while n - o >= E::GROUP {
        groups::<E, 1>(e, rk, at(o), &mut dst[o..]);
        o += E::GROUP;
    }
    if o < n {
        let m = n - o;
        let mut buf = [0u8; 256];
        buf[..m].copy_from_slice(src.map_or(&dst[o..n], |s| &s[o..n]));
        groups::<E, 1>(e, rk, None, &mut buf);
        dst[o..n].copy_from_slice(&buf[..m]);
        buf.zeroize();
    }
}

/// CTR with a 32-bit counter over the whole `G`-group steps of `dst`: XORs
/// the keystream of `prefix || ctr`, `prefix || ctr+1`, ... (the last word
/// wrapping mod 2^32) onto `src` (or `dst` itself) into `dst`. Returns the
/// bytes done.
#[inline(always)]
#[cfg_attr(target_arch = "aarch64", allow(dead_code))]
pub(super) fn ctr32<E: Engine, const G: usize>(
    e: E,
    rk: &[u32; 32],
    prefix: [u32; 3],
    ctr: u32,
    src: Option<&[u8]>,
    dst: &mut [u8],
) -> usize {
    let step = G * E::GROUP;
    let steps = dst.len() / step;
    let fixed = [e.splat(prefix[0]), e.splat(prefix[1]), e.splat(prefix[2])];
    let mut c = e.add(e.splat(ctr), e.lane_blocks());
    let next = e.splat(E::LANES as u32);
    for o in (0..steps).map(|n| n * step) {
        let mut s: [[E::V; 4]; G] = [[fixed[0]; 4]; G];
        for x in s.iter_mut() {
            *x = [fixed[0], fixed[1], fixed[2], c];
            c = e.add(c, next);
        }
        rounds(e, rk, &mut s);
        for (g, x) in s.into_iter().enumerate() {
            let at = o + E::GROUP * g;
            let with = src.map_or(With::Dst, |s| With::Src(&s[at..]));
            e.store(x, with, &mut dst[at..]);
        }
    }
    steps * step
}

/// One block (as four big-endian words) through the 32 rounds with every
/// lane holding the same word: the latency path of serial modes.
#[inline(always)]
pub(super) fn one<E: Engine>(e: E, rk: &[u32; 32], w: [u32; 4]) -> [u32; 4] {
    let mut x = enter(e, [e.splat(w[0]), e.splat(w[1]), e.splat(w[2]), e.splat(w[3])]);
    // Constant word indices keep the state in registers (see `rounds`); the
    // word written by the previous round joins last, so the other XORs are
    // off the critical path.
    macro_rules! round {
        ($i:expr, $k:expr) => {{
            let t = e.xor(e.xor3(x[($i + 1) % 4], x[($i + 2) % 4], e.key($k)), x[($i + 3) % 4]);
            x[$i] = e.t_xor(t, x[$i]);
        }};
    }
    for r in rk.chunks_exact(4) {
        round!(0, r[0]);
        round!(1, r[1]);
        round!(2, r[2]);
        round!(3, r[3]);
    }
    let x = leave(e, x);
    [e.first(x[3]), e.first(x[2]), e.first(x[1]), e.first(x[0])]
}

/// Loads a block as four big-endian words.
#[inline(always)]
pub(super) fn words(b: &[u8]) -> [u32; 4] {
    let w = |i: usize| u32::from_be_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
    [w(0), w(1), w(2), w(3)]
}

/// Stores four big-endian words.
#[inline(always)]
pub(super) fn put_words(w: [u32; 4], b: &mut [u8]) {
    for (i, v) in w.iter().enumerate() {
        b[4 * i..4 * i + 4].copy_from_slice(&v.to_be_bytes());
    }
}

/// CBC encryption of `G · LANES` independent messages side by side, one
/// block of each per step: message `l` is `bufs[l][..16 · blocks]`,
/// encrypted in place, chained from `chains[l]`, which becomes its last
/// ciphertext block. The chains stay word-sliced in registers between
/// steps, so a step costs the rounds of `G` groups plus one gather and one
/// scatter of 16-byte blocks through a stack buffer.
///
/// Panics if `chains` or `bufs` does not hold exactly `G · LANES` entries or
/// a buffer is shorter than `16 · blocks` (public lengths, checked once).
#[inline(always)]
pub(super) fn cbc_lanes<E: Engine, const G: usize>(
    e: E,
    rk: &[u32; 32],
    chains: &mut [[u8; 16]],
    bufs: &mut [&mut [u8]],
    blocks: usize,
) {
    let n = G * E::LANES;
    assert!(chains.len() == n && bufs.len() == n && n * 16 <= 1024, "one chain and one buffer per lane");
    assert!(bufs.iter().all(|b| b.len() >= 16 * blocks), "every buffer holds `blocks` blocks");
    let mut tmp = [0u8; 1024];
    for (t, c) in tmp.chunks_exact_mut(16).zip(chains.iter()) {
        t.copy_from_slice(c);
    }
    let zero = e.splat(0);
    let mut ch = [[zero; 4]; G];
    // The chains stay in the round domain between steps (the domain map is
    // linear, so chain ^ enter(p) = enter(chain' ^ p)).
    for (g, c) in ch.iter_mut().enumerate() {
        *c = enter(e, e.load(&tmp[E::GROUP * g..]));
    }
    for k in 0..blocks {
        let o = 16 * k;
        for (t, b) in tmp.chunks_exact_mut(16).zip(bufs.iter()) {
            t.copy_from_slice(&b[o..o + 16]);
        }
        let mut s = ch;
        for (g, x) in s.iter_mut().enumerate() {
            let p = enter(e, e.load(&tmp[E::GROUP * g..]));
            *x = [e.xor(x[0], p[0]), e.xor(x[1], p[1]), e.xor(x[2], p[2]), e.xor(x[3], p[3])];
        }
        rounds_in_domain(e, rk, &mut s);
        for (g, (x, c)) in s.iter().zip(ch.iter_mut()).enumerate() {
            e.store(leave(e, *x), With::Nothing, &mut tmp[E::GROUP * g..]);
            // The ciphertext in load order, as the next step's chain.
            *c = [x[3], x[2], x[1], x[0]];
        }
        for (t, b) in tmp.chunks_exact(16).zip(bufs.iter_mut()) {
            b[o..o + 16].copy_from_slice(t);
        }
    }
    // `tmp` holds the last ciphertext blocks (or the chains, if no step ran).
    for (t, c) in tmp.chunks_exact(16).zip(chains.iter_mut()) {
        c.copy_from_slice(t);
    }
    tmp.zeroize();
}
