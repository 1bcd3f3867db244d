//! The SM3 compression function, fully unrolled.
//!
//! Each round's constant T_j <<< j is precomputed, and the message expansion
//! is computed four words ahead inside the round loop so that the working set
//! stays in registers (what libgcrypt's and GmSSL's fast C code does).

#[inline(always)]
fn p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

#[inline(always)]
fn p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

use super::consts::T;

/// An SM3 compression kernel: each variant holds the [`crate::cpu`] tokens
/// that prove its features, so a value exists only where it can run. Built
/// once per process ([`Kernel::auto`]) and stored in each hasher.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kernel {
    /// Message expansion in AVX-512VL ymm registers (`vprold`,
    /// `vpternlogd`), the next block's interleaved with the rounds in
    /// inline assembly (`sm3/x86/avx512.rs`).
    #[cfg(target_arch = "x86_64")]
    Avx512((Bmi2Avx2, Avx512Vl)),
    /// Message expansion in AVX2 registers and the rounds in inline
    /// assembly (`sm3/x86/avx2.rs`).
    #[cfg(target_arch = "x86_64")]
    Avx2((Bmi2Avx2, Avx2)),
    /// Everything scalar, compiled with BMI2's `rorx`.
    #[cfg(target_arch = "x86_64")]
    Bmi2(Bmi2Avx2),
    /// aarch64: the SM3 instructions (`sm3/aarch64/mod.rs`).
    #[cfg(target_arch = "aarch64")]
    Sm3Ce(crate::cpu::Sm3Neon),
    /// aarch64 without them: the message expansion in NEON registers, the
    /// rounds scalar (`sm3/aarch64/neon.rs`).
    #[cfg(target_arch = "aarch64")]
    Neon(crate::cpu::Neon),
    /// Everything scalar, baseline instruction set.
    Portable,
}

#[cfg(target_arch = "x86_64")]
use crate::cpu::{Avx2, Avx512Vl, Bmi2Avx2, Token};

impl Kernel {
    /// The kernel [`crate::cpu`] allows, decided once per process.
    ///
    /// Mask `avx512f` for the AVX2 kernel, `avx` for the scalar BMI2 one,
    /// `bmi2` or `avx2` for the portable one. The same choice on every
    /// vendor: measured on Sapphire Rapids, avx512-256 runs at 1.12-1.15x
    /// libgcrypt and avx2-256 at 1.0x. Not measured on Zen 4 since the
    /// AVX-512 kernel became assembly; it runs the AVX2 kernel's rounds
    /// plus two operations per round that shorten E's recurrence by a
    /// cycle, with half the vector work per block. Zen 4's vector pipes do
    /// not share the integer ALUs, so if its four ALUs are the limit the
    /// extra two operations could cost up to ~1 cycle per round against the
    /// shorter chain's gain: re-run `sm3::ab::one_stream_kernels` there
    /// before trusting this choice.
    pub(crate) fn auto() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            use std::sync::OnceLock;
            static CHOSEN: OnceLock<Kernel> = OnceLock::new();
            *CHOSEN.get_or_init(|| {
                let Some(bmi2) = Bmi2Avx2::get() else { return Kernel::Portable };
                match (Avx2::get(), Avx512Vl::get()) {
                    (Some(_), Some(v)) => Kernel::Avx512((bmi2, v)),
                    (Some(a), None) => Kernel::Avx2((bmi2, a)),
                    (None, _) => Kernel::Bmi2(bmi2),
                }
            })
        }
        #[cfg(target_arch = "aarch64")]
        {
            use crate::cpu::Token;
            match (crate::cpu::Sm3Neon::get(), crate::cpu::Neon::get()) {
                (Some(t), _) => Kernel::Sm3Ce(t),
                (None, Some(t)) => Kernel::Neon(t),
                (None, None) => Kernel::Portable,
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Kernel::Portable
        }
    }

    /// Every kernel this CPU allows, portable first (for the tests).
    #[cfg(test)]
    pub(crate) fn available() -> Vec<Kernel> {
        #[cfg_attr(not(any(target_arch = "x86_64", target_arch = "aarch64")), allow(unused_mut))]
        let mut k = vec![Kernel::Portable];
        #[cfg(target_arch = "aarch64")]
        {
            use crate::cpu::Token;
            k.extend(crate::cpu::Neon::get().map(Kernel::Neon));
            k.extend(crate::cpu::Sm3Neon::get().map(Kernel::Sm3Ce));
        }
        #[cfg(target_arch = "x86_64")]
        if let Some(bmi2) = Bmi2Avx2::get() {
            k.push(Kernel::Bmi2(bmi2));
            if let Some(a) = Avx2::get() {
                k.push(Kernel::Avx2((bmi2, a)));
            }
            if let Some(v) = Avx512Vl::get() {
                k.push(Kernel::Avx512((bmi2, v)));
            }
        }
        k
    }

    /// `<engine>-<register width>`: "avx512-256", "avx2-256", "bmi2-32"
    /// (32-bit general registers, `rorx`) or "portable-32".
    pub(crate) fn name(self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512(_) => "avx512-256",
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(_) => "avx2-256",
            #[cfg(target_arch = "x86_64")]
            Kernel::Bmi2(_) => "bmi2-32",
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm3Ce(_) => "sm3ce-128",
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon(_) => "neon-128",
            Kernel::Portable => "portable-32",
        }
    }

    /// Compresses every whole 64-byte block of `blocks` into `state`.
    ///
    /// `blocks.len()` must be a multiple of 64 (checked in debug builds).
    #[inline]
    pub(crate) fn compress(self, state: &mut [u32; 8], blocks: &[u8]) {
        debug_assert!(blocks.len().is_multiple_of(64));
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512(t) => super::x86::avx512::compress_blocks(t, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx2(t) => super::x86::avx2::compress_blocks(t, state, blocks),
            #[cfg(target_arch = "x86_64")]
            Kernel::Bmi2(t) => compress_blocks_bmi2(t, state, blocks),
            #[cfg(target_arch = "aarch64")]
            Kernel::Sm3Ce(t) => super::aarch64::compress_blocks(t, state, blocks),
            #[cfg(target_arch = "aarch64")]
            Kernel::Neon(t) => super::aarch64::neon::compress_blocks(t, state, blocks, rounds::<false>),
            Kernel::Portable => compress_blocks_portable(state, blocks),
        }
    }
}

/// Compresses every whole 64-byte block of `blocks` into `state` on the
/// process's kernel ([`Kernel::auto`]).
///
/// `blocks.len()` must be a multiple of 64 (checked in debug builds).
pub fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    Kernel::auto().compress(state, blocks);
}

/// The scalar code compiled for the baseline target.
pub(crate) fn compress_blocks_portable(state: &mut [u32; 8], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        compress_scalar(state, block.try_into().expect("64-byte chunk"));
    }
}

/// The scalar code compiled with BMI2 and AVX2 enabled: `rorx` rotates
/// without clobbering its source, which saves a move per rotation.
///
/// The token proves BMI2 and AVX2.
#[cfg(target_arch = "x86_64")]
pub(crate) fn compress_blocks_bmi2(_t: Bmi2Avx2, state: &mut [u32; 8], blocks: &[u8]) {
    #[target_feature(enable = "bmi2,avx2")]
    unsafe fn run(state: &mut [u32; 8], blocks: &[u8]) {
        for block in blocks.chunks_exact(64) {
            compress_scalar(state, block.try_into().expect("64-byte chunk"));
        }
    }
    // SAFETY: the token proves BMI2 and AVX2.
    unsafe { run(state, blocks) }
}

/// Message expansion four words at a time in AVX-512VL registers, rounds in
/// scalar BMI2 code: the AVX-512 kernel before `sm3/x86/avx512.rs`, kept for the
/// alternating race in `sm3/ab.rs` (on Sapphire Rapids it runs at 0.86x
/// libgcrypt, `sm3/x86/avx512.rs` at 1.12-1.15x). The scalar version spends
/// about a third of its instructions on the expansion; here it costs ~5
/// vector instructions per word (`vprold` rotates in one instruction,
/// `vpternlogd` XORs three inputs), and the rounds read W_j and
/// W'_j = W_j ^ W_{j+4} from memory.
///
/// W_{j+3} depends on W_j, so each group of four is computed with W_j taken
/// as zero and lane 3 is then corrected: P1 is linear over XOR, so the
/// missing term is P1(W_j <<< 15) added into lane 3.
///
/// The tokens prove AVX-512F, AVX-512VL, BMI2 and AVX2.
#[cfg(all(test, target_arch = "x86_64"))]
pub(crate) fn compress_blocks_avx512(_t: (Bmi2Avx2, Avx512Vl), state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: the tokens prove every feature `expand_avx512` enables.
    unsafe { expand_avx512(state, blocks) }
}

/// [`compress_blocks_avx512`] with its features enabled.
///
/// # Safety
/// The CPU must support AVX-512F, AVX-512VL, BMI2 and AVX2.
#[cfg(all(test, target_arch = "x86_64"))]
#[target_feature(enable = "avx512f,avx512vl,bmi2,avx2")]
unsafe fn expand_avx512(state: &mut [u32; 8], blocks: &[u8]) {
    use std::arch::x86_64::*;

    #[repr(align(64))]
    struct Words<const N: usize>([u32; N]);
    let mut w = Words([0u32; 68]);
    let mut wp = Words([0u32; 64]);

    // XOR of three inputs: truth table 0x96.
    macro_rules! xor3 {
        ($a:expr, $b:expr, $c:expr) => {
            _mm_ternarylogic_epi32::<0x96>($a, $b, $c)
        };
    }
    macro_rules! p1 {
        ($x:expr) => {{
            let x = $x;
            xor3!(x, _mm_rol_epi32::<15>(x), _mm_rol_epi32::<23>(x))
        }};
    }
    // Words [lo[k..4], hi[..k]]: the unaligned window starting k words into lo.
    macro_rules! window {
        ($hi:expr, $lo:expr, $k:literal) => {
            _mm_alignr_epi8::<{ 4 * $k }>($hi, $lo)
        };
    }

    let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    for block in blocks.chunks_exact(64) {
        // SAFETY: the loads read block[0..64]; the stores write w.0[4k..4k+4]
        // for k < 17 and wp.0[4k..4k+4] for k < 16, all in bounds and aligned.
        unsafe {
            let src = block.as_ptr() as *const __m128i;
            let v0 = _mm_shuffle_epi8(_mm_loadu_si128(src), bswap);
            let v1 = _mm_shuffle_epi8(_mm_loadu_si128(src.add(1)), bswap);
            let v2 = _mm_shuffle_epi8(_mm_loadu_si128(src.add(2)), bswap);
            let v3 = _mm_shuffle_epi8(_mm_loadu_si128(src.add(3)), bswap);
            // next(W_{j-16..j-13}, W_{j-12..j-9}, W_{j-8..j-5}, W_{j-4..j-1}) = W_{j..j+3}
            // (a macro rather than a loop over an array, so that all 17
            // vectors stay in registers).
            macro_rules! next {
                ($m4:expr, $m3:expr, $m2:expr, $m1:expr) => {{
                    let w9 = window!($m2, $m3, 3); // W_{j-9..j-6}
                    let w3 = _mm_srli_si128::<4>($m1); // W_{j-3..j-1}, 0
                    let w13 = window!($m3, $m4, 3); // W_{j-13..j-10}
                    let w6 = window!($m1, $m2, 2); // W_{j-6..j-3}
                    let x = xor3!($m4, w9, _mm_rol_epi32::<15>(w3));
                    let partial = xor3!(p1!(x), _mm_rol_epi32::<7>(w13), w6);
                    // Lane 3 lacks P1(W_j <<< 15); W_j is lane 0 of `partial`.
                    let wj_in_lane3 = _mm_slli_si128::<12>(partial);
                    _mm_xor_si128(partial, p1!(_mm_rol_epi32::<15>(wj_in_lane3)))
                }};
            }
            let v4 = next!(v0, v1, v2, v3);
            let v5 = next!(v1, v2, v3, v4);
            let v6 = next!(v2, v3, v4, v5);
            let v7 = next!(v3, v4, v5, v6);
            let v8 = next!(v4, v5, v6, v7);
            let v9 = next!(v5, v6, v7, v8);
            let v10 = next!(v6, v7, v8, v9);
            let v11 = next!(v7, v8, v9, v10);
            let v12 = next!(v8, v9, v10, v11);
            let v13 = next!(v9, v10, v11, v12);
            let v14 = next!(v10, v11, v12, v13);
            let v15 = next!(v11, v12, v13, v14);
            let v16 = next!(v12, v13, v14, v15);
            let v = [v0, v1, v2, v3, v4, v5, v6, v7, v8, v9, v10, v11, v12, v13, v14, v15, v16];
            let wv = w.0.as_mut_ptr() as *mut __m128i;
            let wpv = wp.0.as_mut_ptr() as *mut __m128i;
            for (k, vk) in v.iter().enumerate() {
                _mm_store_si128(wv.add(k), *vk);
            }
            for (k, pair) in v.windows(2).enumerate() {
                _mm_store_si128(wpv.add(k), _mm_xor_si128(pair[0], pair[1]));
            }
        }
        rounds::<false>(state, &mut w.0, &wp.0);
    }
}

#[inline(always)]
fn compress_scalar(state: &mut [u32; 8], block: &[u8; 64]) {
    let mut w = [0u32; 68];
    for (i, word) in block.chunks_exact(4).enumerate() {
        w[i] = u32::from_be_bytes(word.try_into().expect("4 bytes"));
    }
    rounds::<true>(state, &mut w, &[0; 64]);
}

/// The 64 rounds.
///
/// With `EXPAND`, `w` holds W0..W15 and the expansion W16..W67 is computed
/// inside the rounds, four words ahead of use: it does not depend on the
/// state, so the out-of-order core runs it in the slack of the rounds' long
/// dependency chain instead of before them; W'_j is formed on the fly and
/// `wp` is ignored. Without `EXPAND`, `w` and `wp` are complete.
#[inline(always)]
fn rounds<const EXPAND: bool>(state: &mut [u32; 8], w: &mut [u32; 68], wp: &[u32; 64]) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;

    // Rounds are written so that the variables rotate by renaming instead of
    // moving: two rounds per macro call would still move; one round with
    // explicit renaming lets the compiler keep everything in registers.
    macro_rules! round {
        ($j:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $ff:expr, $gg:expr) => {{
            // Additions are grouped so that the terms known early (d, h,
            // the message words, the constant) are summed off the critical
            // path, and the late ones (a, e from the previous round) last.
            let w_prime = if EXPAND {
                let k = $j + 4;
                if k >= 16 {
                    w[k] = p1(w[k - 16] ^ w[k - 9] ^ w[k - 3].rotate_left(15)) ^ w[k - 13].rotate_left(7) ^ w[k - 6];
                }
                w[$j] ^ w[k]
            } else {
                wp[$j]
            };
            let a12 = $a.rotate_left(12);
            let ss1 = a12.wrapping_add(T[$j]).wrapping_add($e).rotate_left(7);
            let ss2 = ss1 ^ a12;
            let tt1 = $d.wrapping_add(w_prime).wrapping_add($ff($a, $b, $c)).wrapping_add(ss2);
            let tt2 = $h.wrapping_add(w[$j]).wrapping_add($gg($e, $f, $g)).wrapping_add(ss1);
            $b = $b.rotate_left(9);
            $f = $f.rotate_left(19);
            $d = tt1;
            $h = p0(tt2);
        }};
    }
    let ff0 = |x: u32, y: u32, z: u32| x ^ y ^ z;
    let gg0 = ff0;
    // Majority and choice in their cheapest forms (3-4 operations instead of 5).
    let ff1 = |x: u32, y: u32, z: u32| (x & y) | (z & (x | y));
    let gg1 = |x: u32, y: u32, z: u32| ((y ^ z) & x) ^ z;

    // After a round, the new A is what was computed into D, and so on: the
    // register roles rotate by one position each round.
    macro_rules! four_rounds {
        ($j:expr, $ff:expr, $gg:expr) => {
            round!($j, a, b, c, d, e, f, g, h, $ff, $gg);
            round!($j + 1, d, a, b, c, h, e, f, g, $ff, $gg);
            round!($j + 2, c, d, a, b, g, h, e, f, $ff, $gg);
            round!($j + 3, b, c, d, a, f, g, h, e, $ff, $gg);
        };
    }
    four_rounds!(0, ff0, gg0);
    four_rounds!(4, ff0, gg0);
    four_rounds!(8, ff0, gg0);
    four_rounds!(12, ff0, gg0);
    four_rounds!(16, ff1, gg1);
    four_rounds!(20, ff1, gg1);
    four_rounds!(24, ff1, gg1);
    four_rounds!(28, ff1, gg1);
    four_rounds!(32, ff1, gg1);
    four_rounds!(36, ff1, gg1);
    four_rounds!(40, ff1, gg1);
    four_rounds!(44, ff1, gg1);
    four_rounds!(48, ff1, gg1);
    four_rounds!(52, ff1, gg1);
    four_rounds!(56, ff1, gg1);
    four_rounds!(60, ff1, gg1);

    state[0] ^= a;
    state[1] ^= b;
    state[2] ^= c;
    state[3] ^= d;
    state[4] ^= e;
    state[5] ^= f;
    state[6] ^= g;
    state[7] ^= h;
}
