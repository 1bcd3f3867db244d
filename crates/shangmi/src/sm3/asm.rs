//! SM3 compression on AVX2 CPUs: message expansion in 256-bit vectors (two
//! blocks at a time, intrinsics), rounds in inline assembly, four rounds per
//! `asm!` block with the expansion of the next pair of blocks between
//! blocks.
//!
//! Why assembly for the rounds: in Rust, LLVM re-associates each round's
//! two four-term sums by its own ranking and schedules the expansion in
//! the integer units (the scalar BMI2 build spends about a third of its
//! ~1950 instructions per block on it). Here the terms known rounds ahead
//! (H + W_j, D + W'_j from memory operands, FF, F ^ G) are summed first and
//! SS1, SS2, GG last; SS1's sum A <<< 12 + E + T_j is one three-component
//! LEA (measured 0.90x libgcrypt against 0.85x with a LEA and an ADD: on
//! Zen 3 it is not slower). The rotations of A (by 12), SS1 (7), B (9), F
//! (19) are MOV + ROL as in libgcrypt (whose comment says RORX there costs
//! 6% on Zen 3; no difference measured here), P0 uses RORX.
//!
//! Why interleaved and in pairs: the expansion of the next pair runs in the
//! vector units while the integer units run the first block's rounds
//! (program order puts them next to each other, in one out-of-order
//! window), and every operation of the four-words-at-a-time expansion
//! works within 128-bit lanes, so one 256-bit instruction expands two
//! blocks. Expanding each pair just before its rounds instead (no double
//! buffer) measured 0.72-0.75x libgcrypt; the 128-bit single-block form
//! with a LEA + ADD 0.85x.
//!
//! Constant time: no branch and no address depends on the message or the
//! state (fixed offsets into a stack buffer; the block count is public).

use core::arch::asm;
use core::arch::x86_64::*;

use super::consts::T;

/// Byte offset of the W' rows in a buffer (after 17 rows of W).
const WP: usize = 17 * 32;

/// One round as assembly text. `$kind` 0 is rounds 0-15 (XOR functions),
/// 1 is rounds 16-63 (majority, choice); `$i` is the round's index in its
/// group of four (as text); the registers are operand names of the
/// enclosing `asm!`; `$k` names the const operand holding T_j <<< j.
///
/// `$er` is E's register as a 64-bit name (for the LEA's address: the
/// 32-bit destination truncates, so the sum is mod 2^32 whatever the upper
/// halves hold; T_j is passed as an i32 so that it fits a displacement).
///
/// Temporaries: t0 = A <<< 12, then SS2; t1 = SS1; t2, t3 for FF, GG and
/// P0. Flags are clobbered.
macro_rules! round_text {
    (0, $i:literal, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $f:literal, $g:literal, $h:literal, $er:literal, $k:literal) => {
        concat!(
            "mov {t0:e}, ",
            $a,
            "\n",
            "rol {t0:e}, 12\n",
            "add ",
            $h,
            ", dword ptr [{w} + {wo} + 4*",
            $i,
            "]\n",
            "add ",
            $d,
            ", dword ptr [{w} + {wo} + {wp} + 4*",
            $i,
            "]\n",
            "lea {t1:e}, [{t0:r} + ",
            $er,
            " + ",
            $k,
            "]\n",
            // FF0 = A ^ B ^ C into D.
            "mov {t2:e}, ",
            $a,
            "\n",
            "xor {t2:e}, ",
            $b,
            "\n",
            "xor {t2:e}, ",
            $c,
            "\n",
            "add ",
            $d,
            ", {t2:e}\n",
            // GG0 = (F ^ G) ^ E into H.
            "mov {t3:e}, ",
            $f,
            "\n",
            "xor {t3:e}, ",
            $g,
            "\n",
            "rol {t1:e}, 7\n",
            "xor {t3:e}, ",
            $e,
            "\n",
            "add ",
            $h,
            ", {t3:e}\n",
            "xor {t0:e}, {t1:e}\n",
            "add ",
            $h,
            ", {t1:e}\n",
            "add ",
            $d,
            ", {t0:e}\n",
            "rol ",
            $b,
            ", 9\n",
            "rol ",
            $f,
            ", 19\n",
            // P0(H) = H ^ H <<< 9 ^ H <<< 17.
            "rorx {t2:e}, ",
            $h,
            ", 23\n",
            "rorx {t3:e}, ",
            $h,
            ", 15\n",
            "xor {t2:e}, {t3:e}\n",
            "xor ",
            $h,
            ", {t2:e}\n",
        )
    };
    (1, $i:literal, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $f:literal, $g:literal, $h:literal, $er:literal, $k:literal) => {
        concat!(
            "mov {t0:e}, ",
            $a,
            "\n",
            "rol {t0:e}, 12\n",
            "add ",
            $h,
            ", dword ptr [{w} + {wo} + 4*",
            $i,
            "]\n",
            "add ",
            $d,
            ", dword ptr [{w} + {wo} + {wp} + 4*",
            $i,
            "]\n",
            "lea {t1:e}, [{t0:r} + ",
            $er,
            " + ",
            $k,
            "]\n",
            // FF1 = majority = ((A ^ B) & C) | (A & B) into D.
            "mov {t2:e}, ",
            $a,
            "\n",
            "xor {t2:e}, ",
            $b,
            "\n",
            "and {t2:e}, ",
            $c,
            "\n",
            "mov {t3:e}, ",
            $a,
            "\n",
            "and {t3:e}, ",
            $b,
            "\n",
            "or {t2:e}, {t3:e}\n",
            "add ",
            $d,
            ", {t2:e}\n",
            // GG1 = choice = G ^ (E & (F ^ G)) into H.
            "mov {t3:e}, ",
            $f,
            "\n",
            "xor {t3:e}, ",
            $g,
            "\n",
            "rol {t1:e}, 7\n",
            "and {t3:e}, ",
            $e,
            "\n",
            "xor {t3:e}, ",
            $g,
            "\n",
            "add ",
            $h,
            ", {t1:e}\n",
            "xor {t0:e}, {t1:e}\n",
            "add ",
            $h,
            ", {t3:e}\n",
            "add ",
            $d,
            ", {t0:e}\n",
            "rol ",
            $b,
            ", 9\n",
            "rol ",
            $f,
            ", 19\n",
            "rorx {t2:e}, ",
            $h,
            ", 23\n",
            "rorx {t3:e}, ",
            $h,
            ", 15\n",
            "xor {t2:e}, {t3:e}\n",
            "xor ",
            $h,
            ", {t2:e}\n",
        )
    };
}

/// Compresses every whole 64-byte block of `blocks` into `state`.
///
/// Blocks go in pairs: the expansion of a pair runs in 256-bit registers
/// (one block per 128-bit lane: every operation it uses works within
/// lanes), which halves its vector instructions per block, and is
/// interleaved with the rounds of the first block of the pair before it
/// (double-buffered); the second block's rounds run alone. An odd last
/// block is expanded in both lanes and its second copy ignored.
///
/// # Safety
/// The CPU must support AVX, AVX2 and BMI2 (`rorx`).
#[target_feature(enable = "avx,avx2,bmi2")]
pub(crate) unsafe fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    let n = blocks.len() / 64;
    if n == 0 {
        return;
    }
    // Rows 0..17: W_{4k..4k+3} of the pair's two blocks (lane 0, lane 1);
    // rows 17..33: W'_{4k..4k+3}. Row k is 32 bytes, lane l at 16 l.
    #[repr(align(32))]
    #[derive(Clone, Copy)]
    #[allow(dead_code)] // read and written through `bufp` only
    struct Buf([[u32; 8]; 33]);
    let mut bufs = [Buf([[0u32; 8]; 33]); 2];
    let bufp = bufs.as_mut_ptr() as *mut u32;

    macro_rules! rol {
        ($x:expr, $r:literal) => {{
            let x = $x;
            _mm256_or_si256(_mm256_slli_epi32::<$r>(x), _mm256_srli_epi32::<{ 32 - $r }>(x))
        }};
    }
    macro_rules! xor3 {
        ($a:expr, $b:expr, $c:expr) => {
            _mm256_xor_si256(_mm256_xor_si256($a, $b), $c)
        };
    }
    macro_rules! p1 {
        ($x:expr) => {{
            let x = $x;
            xor3!(x, rol!(x, 15), rol!(x, 23))
        }};
    }
    // W_{j..j+3} from the four groups before it; lane 3 (of each block) is
    // computed with W_j taken as zero and corrected (P1 is linear over
    // XOR), as in `compress::expand_block`.
    macro_rules! next {
        ($m4:expr, $m3:expr, $m2:expr, $m1:expr) => {{
            let w9 = _mm256_alignr_epi8::<12>($m2, $m3);
            let w3 = _mm256_srli_si256::<4>($m1);
            let w13 = _mm256_alignr_epi8::<12>($m3, $m4);
            let w6 = _mm256_alignr_epi8::<8>($m1, $m2);
            let x = xor3!($m4, w9, rol!(w3, 15));
            let partial = xor3!(p1!(x), rol!(w13, 7), w6);
            let wj_in_lane3 = _mm256_slli_si256::<12>(partial);
            _mm256_xor_si256(partial, p1!(rol!(wj_in_lane3, 15)))
        }};
    }
    let bswap = _mm256_set_epi8(
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
    );
    // Words 4i..4i+3 of blocks x (lane 0) and y (lane 1), big-endian.
    // SAFETY (callers): x, y < n, so both 16-byte loads are inside `blocks`.
    macro_rules! load {
        ($x:expr, $y:expr, $i:literal) => {
            unsafe {
                let lo = _mm_loadu_si128(blocks.as_ptr().add(64 * $x + 16 * $i) as *const __m128i);
                let hi = _mm_loadu_si128(blocks.as_ptr().add(64 * $y + 16 * $i) as *const __m128i);
                _mm256_shuffle_epi8(_mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi), bswap)
            }
        };
    }
    // SAFETY (both): rows k < 17 and 17 + k - 1 < 33 of the buffer `$dst`
    // points to, 32-byte aligned.
    macro_rules! store_w {
        ($dst:expr, $k:expr, $v:expr) => {
            unsafe { _mm256_store_si256(($dst as *mut __m256i).add($k), $v) }
        };
    }
    macro_rules! store_wp {
        ($dst:expr, $k:expr, $prev:expr, $v:expr) => {
            unsafe { _mm256_store_si256(($dst as *mut __m256i).add(17 + $k - 1), _mm256_xor_si256($prev, $v)) }
        };
    }
    // Expands blocks x and y into `$dst`, calling `$then!(kind, k)` after
    // the step that completes W'_{4k-4..4k-1} (so groups 0..13 of rounds on
    // an older buffer can be interleaved; the caller runs 14 and 15).
    macro_rules! expand_pair {
        ($dst:expr, $x:expr, $y:expr, $then:ident) => {{
            let (v0, v1, v2, v3) = (load!($x, $y, 0), load!($x, $y, 1), load!($x, $y, 2), load!($x, $y, 3));
            store_w!($dst, 0, v0);
            store_w!($dst, 1, v1);
            store_w!($dst, 2, v2);
            store_w!($dst, 3, v3);
            store_wp!($dst, 1, v0, v1);
            store_wp!($dst, 2, v1, v2);
            store_wp!($dst, 3, v2, v3);
            $then!(0, 0);
            let v4 = next!(v0, v1, v2, v3);
            store_w!($dst, 4, v4);
            store_wp!($dst, 4, v3, v4);
            $then!(0, 1);
            let v5 = next!(v1, v2, v3, v4);
            store_w!($dst, 5, v5);
            store_wp!($dst, 5, v4, v5);
            $then!(0, 2);
            let v6 = next!(v2, v3, v4, v5);
            store_w!($dst, 6, v6);
            store_wp!($dst, 6, v5, v6);
            $then!(0, 3);
            let v7 = next!(v3, v4, v5, v6);
            store_w!($dst, 7, v7);
            store_wp!($dst, 7, v6, v7);
            $then!(1, 4);
            let v8 = next!(v4, v5, v6, v7);
            store_w!($dst, 8, v8);
            store_wp!($dst, 8, v7, v8);
            $then!(1, 5);
            let v9 = next!(v5, v6, v7, v8);
            store_w!($dst, 9, v9);
            store_wp!($dst, 9, v8, v9);
            $then!(1, 6);
            let v10 = next!(v6, v7, v8, v9);
            store_w!($dst, 10, v10);
            store_wp!($dst, 10, v9, v10);
            $then!(1, 7);
            let v11 = next!(v7, v8, v9, v10);
            store_w!($dst, 11, v11);
            store_wp!($dst, 11, v10, v11);
            $then!(1, 8);
            let v12 = next!(v8, v9, v10, v11);
            store_w!($dst, 12, v12);
            store_wp!($dst, 12, v11, v12);
            $then!(1, 9);
            let v13 = next!(v9, v10, v11, v12);
            store_w!($dst, 13, v13);
            store_wp!($dst, 13, v12, v13);
            $then!(1, 10);
            let v14 = next!(v10, v11, v12, v13);
            store_w!($dst, 14, v14);
            store_wp!($dst, 14, v13, v14);
            $then!(1, 11);
            let v15 = next!(v11, v12, v13, v14);
            store_w!($dst, 15, v15);
            store_wp!($dst, 15, v14, v15);
            $then!(1, 12);
            let v16 = next!(v12, v13, v14, v15);
            store_wp!($dst, 16, v15, v16);
            $then!(1, 13);
        }};
    }

    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // The lane the rounds read: `bufp` + 264 * buffer + 4 * lane (words).
    let mut base: *const u32;
    // Four rounds j = 4 * $grp .. 4 * $grp + 3; the register roles rotate
    // by one each round and are back in place after four.
    macro_rules! group {
        ($kind:tt, $grp:expr) => {
            // SAFETY: reads words 8 * grp .. 8 * grp + 4 and 8 * (17 + grp)
            // .. 8 * (17 + grp) + 4 past `base`, a lane of one buffer
            // (grp < 16): inside `bufs`. Writes only its register operands.
            unsafe {
                asm!(
                    round_text!($kind, "0", "{a:e}", "{b:e}", "{c:e}", "{d:e}", "{e:e}", "{f:e}", "{g:e}", "{h:e}", "{e:r}", "{k0}"),
                    round_text!($kind, "1", "{d:e}", "{a:e}", "{b:e}", "{c:e}", "{h:e}", "{e:e}", "{f:e}", "{g:e}", "{h:r}", "{k1}"),
                    round_text!($kind, "2", "{c:e}", "{d:e}", "{a:e}", "{b:e}", "{g:e}", "{h:e}", "{e:e}", "{f:e}", "{g:r}", "{k2}"),
                    round_text!($kind, "3", "{b:e}", "{c:e}", "{d:e}", "{a:e}", "{f:e}", "{g:e}", "{h:e}", "{e:e}", "{f:r}", "{k3}"),
                    a = inout(reg) a,
                    b = inout(reg) b,
                    c = inout(reg) c,
                    d = inout(reg) d,
                    e = inout(reg) e,
                    f = inout(reg) f,
                    g = inout(reg) g,
                    h = inout(reg) h,
                    w = in(reg) base,
                    wo = const 32 * $grp,
                    wp = const WP,
                    k0 = const T[4 * $grp] as i32,
                    k1 = const T[4 * $grp + 1] as i32,
                    k2 = const T[4 * $grp + 2] as i32,
                    k3 = const T[4 * $grp + 3] as i32,
                    t0 = out(reg) _,
                    t1 = out(reg) _,
                    t2 = out(reg) _,
                    t3 = out(reg) _,
                    options(nostack, readonly),
                )
            }
        };
    }
    macro_rules! nothing {
        ($kind:tt, $grp:tt) => {};
    }
    macro_rules! finish_block {
        () => {
            for (s, v) in state.iter_mut().zip([a, b, c, d, e, f, g, h]) {
                *s ^= v;
            }
            [a, b, c, d, e, f, g, h] = *state;
        };
    }

    expand_pair!(bufp, 0, 1.min(n - 1), nothing);
    let pairs = n.div_ceil(2);
    for p in 0..pairs {
        // SAFETY: p % 2 < 2 buffers of 264 words.
        let (cur, nxt) = unsafe { (bufp.add(264 * (p % 2)), bufp.add(264 * ((p + 1) % 2))) };
        // The next pair (the current one again, unused, after the last).
        let (x, y) = if p + 1 < pairs { (2 * p + 2, (2 * p + 3).min(n - 1)) } else { (2 * p, 2 * p) };
        base = cur;
        expand_pair!(nxt, x, y, group);
        group!(1, 14);
        group!(1, 15);
        finish_block!();
        if 2 * p + 1 < n {
            // SAFETY: lane 1 of the same buffer.
            base = unsafe { cur.add(4) };
            group!(0, 0);
            group!(0, 1);
            group!(0, 2);
            group!(0, 3);
            group!(1, 4);
            group!(1, 5);
            group!(1, 6);
            group!(1, 7);
            group!(1, 8);
            group!(1, 9);
            group!(1, 10);
            group!(1, 11);
            group!(1, 12);
            group!(1, 13);
            group!(1, 14);
            group!(1, 15);
            finish_block!();
        }
    }
}
