//! SM3 compression on AVX2 CPUs: message expansion in 128-bit vectors
//! (intrinsics), rounds in inline assembly, four rounds per `asm!` block with
//! the expansion of the next block between blocks.
//!
//! Why assembly for the rounds: in Rust, LLVM re-associates each round's
//! two four-term sums by its own ranking and schedules the expansion in
//! the integer units (the scalar BMI2 build spends about a third of its
//! ~1950 instructions per block on it). Here the terms known rounds ahead
//! (H + W_j, D + W'_j from memory operands, FF, F ^ G) are summed first and
//! SS1, SS2, GG last; SS1's sum A <<< 12 + E + T_j is one three-component
//! LEA with E as its index (on Zen 3 such a LEA takes 1 cycle from its
//! index and 2 from its base, measured). The rotations of A (by 12), SS1
//! (7), B (9), F (19) are MOV + ROL as in libgcrypt, P0 uses RORX (all-RORX
//! measured the same).
//!
//! Why one block per loop iteration, interleaved: the expansion of block
//! i + 1 runs in the vector units while the integer units run block i's
//! rounds (program order puts them next to each other, in one out-of-order
//! window; double-buffered). The expansion is four words per vector with a
//! correction of lane 3, and P1's rotation by 23 is the rotation by 15
//! followed by a byte shuffle. W_{4k..4k+3} and W'_{4k..4k+3} sit next to
//! each other (32 bytes per group of rounds), so every round reads them
//! with 8-bit displacements from one of two base pointers. The chaining
//! value is XORed in with scalar assembly: left to LLVM, it went through
//! vector registers (`vpinsrd`/`vpextrd`), on the path from one block's
//! last round to the next block's first. Measured on Zen 3 against
//! libgcrypt's AVX/BMI2 assembly (4 KiB, min of 5000 alternating calls):
//! 0.94x, where the previous two-blocks-per-iteration form (256-bit
//! expansion of a pair, one lane per block, 4100-instruction loop body)
//! was 0.88x.
//!
//! Constant time: no branch and no address depends on the message or the
//! state (fixed offsets into a stack buffer; the block count is public).

use core::arch::asm;
use core::arch::x86_64::*;

use crate::cpu::{Avx2, Bmi2Avx2};
use crate::sm3::consts::T;

/// One round as assembly text. `$kind` 0 is rounds 0-15 (XOR functions),
/// 1 is rounds 16-63 (majority, choice); `$i` is the round's index in its
/// group of four (as text); the registers are operand names of the
/// enclosing `asm!`; `$k` names the const operand holding T_j <<< j.
///
/// `$er` is E's register as a 64-bit name, the LEA's index (for the
/// address: the 32-bit destination truncates, so the sum is mod 2^32
/// whatever the upper halves hold; T_j is passed as an i32 so that it fits
/// a displacement). `{w} + {wo}` addresses the group's 32 bytes: W_j at
/// `4*$i`, W'_j at `16 + 4*$i`.
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
            ", dword ptr [{w} + {wo} + 16 + 4*",
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
            ", dword ptr [{w} + {wo} + 16 + 4*",
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
/// One block per iteration: the expansion of the next block (into the other
/// of two buffers) is interleaved with the rounds of this one; in the last
/// iteration the last block is expanded again and the copy ignored.
///
/// The tokens prove AVX, AVX2 and BMI2 (`rorx`).
pub(crate) fn compress_blocks(_t: (Bmi2Avx2, Avx2), state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: the tokens prove every feature `compress` enables.
    unsafe { compress(state, blocks) }
}

/// [`compress_blocks`] with its features enabled.
///
/// # Safety
/// The CPU must support AVX, AVX2 and BMI2 (`rorx`).
#[target_feature(enable = "avx,avx2,bmi2")]
unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    let n = blocks.len() / 64;
    if n == 0 {
        return;
    }
    // Group k (32 bytes): W_{4k..4k+3}, then W'_{4k..4k+3}; k < 16 (W_64..
    // W_67 are only needed for W'_60..W'_63).
    #[repr(align(32))]
    #[derive(Clone, Copy)]
    #[allow(dead_code)] // read and written through `bufp` only
    struct Buf([[u32; 8]; 16]);
    let mut bufs = [Buf([[0u32; 8]; 16]); 2];
    let bufp = bufs.as_mut_ptr() as *mut u32;

    macro_rules! rol {
        ($x:expr, $r:literal) => {{
            let x = $x;
            _mm_or_si128(_mm_slli_epi32::<$r>(x), _mm_srli_epi32::<{ 32 - $r }>(x))
        }};
    }
    macro_rules! xor3 {
        ($a:expr, $b:expr, $c:expr) => {
            _mm_xor_si128(_mm_xor_si128($a, $b), $c)
        };
    }
    let rot8 = _mm_set_epi8(14, 13, 12, 15, 10, 9, 8, 11, 6, 5, 4, 7, 2, 1, 0, 3);
    // P1(x) = x ^ x <<< 15 ^ x <<< 23, the last as (x <<< 15) <<< 8: a byte
    // shuffle instead of two shifts and an OR.
    macro_rules! p1 {
        ($x:expr) => {{
            let x = $x;
            let r15 = rol!(x, 15);
            xor3!(x, r15, _mm_shuffle_epi8(r15, rot8))
        }};
    }
    // W_{j..j+3} from the four groups before it; lane 3 is computed with
    // W_j taken as zero and corrected (P1 is linear over XOR), as in
    // `compress::compress_blocks_avx512`.
    macro_rules! next {
        ($m4:expr, $m3:expr, $m2:expr, $m1:expr) => {{
            let w9 = _mm_alignr_epi8::<12>($m2, $m3);
            let w3 = _mm_srli_si128::<4>($m1);
            let w13 = _mm_alignr_epi8::<12>($m3, $m4);
            let w6 = _mm_alignr_epi8::<8>($m1, $m2);
            let x = xor3!($m4, w9, rol!(w3, 15));
            let partial = xor3!(p1!(x), rol!(w13, 7), w6);
            let wj_in_lane3 = _mm_slli_si128::<12>(partial);
            _mm_xor_si128(partial, p1!(rol!(wj_in_lane3, 15)))
        }};
    }
    let bswap = _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    // Words 4i..4i+3 of block x, big-endian.
    // SAFETY (callers): x < n, so the 16-byte load is inside `blocks`.
    macro_rules! load {
        ($x:expr, $i:literal) => {
            unsafe {
                _mm_shuffle_epi8(_mm_loadu_si128(blocks.as_ptr().add(64 * $x + 16 * $i) as *const __m128i), bswap)
            }
        };
    }
    // SAFETY (both): group k < 16 (W) and k - 1 < 16 (W') of the 32-byte
    // aligned buffer `$dst` points to.
    macro_rules! store_w {
        ($dst:expr, $k:expr, $v:expr) => {
            unsafe { _mm_store_si128(($dst as *mut __m128i).add(2 * $k), $v) }
        };
    }
    macro_rules! store_wp {
        ($dst:expr, $k:expr, $prev:expr, $v:expr) => {
            unsafe { _mm_store_si128(($dst as *mut __m128i).add(2 * ($k - 1) + 1), _mm_xor_si128($prev, $v)) }
        };
    }
    // Expands block x into `$dst`, calling `$then!(kind, k)` after the step
    // that completes W'_{4k-4..4k-1} (so groups 0..13 of rounds on the other
    // buffer can be interleaved; the caller runs 14 and 15).
    macro_rules! expand_one {
        ($dst:expr, $x:expr, $then:ident) => {{
            let (v0, v1, v2, v3) = (load!($x, 0), load!($x, 1), load!($x, 2), load!($x, 3));
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
    // The buffer the rounds read: `bufp` + 128 * (block % 2) (words).
    let mut base: *const u32;
    // Four rounds j = 4 * $grp .. 4 * $grp + 3; the register roles rotate
    // by one each round and are back in place after four.
    macro_rules! group {
        ($kind:tt, $grp:expr) => {
            // SAFETY: reads words 8 * grp .. 8 * grp + 8 past `base` (the
            // base register is `base` + 128 or + 384 bytes, and `wo` brings
            // the displacement back into -128..127), grp < 16: inside one
            // buffer of `bufs`. Writes only its register operands.
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
                    w = in(reg) if $grp < 8 { base.wrapping_add(32) } else { base.wrapping_add(96) },
                    wo = const 32 * ($grp % 8) as i32 - 128,
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
    let sp = state.as_mut_ptr();
    // state ^= registers, the registers keeping the result.
    macro_rules! finish_block {
        () => {
            // SAFETY: reads and writes the 8 words of `state` (`sp`).
            unsafe {
                asm!(
                    "xor {a:e}, dword ptr [{s}]",
                    "xor {b:e}, dword ptr [{s} + 4]",
                    "xor {c:e}, dword ptr [{s} + 8]",
                    "xor {d:e}, dword ptr [{s} + 12]",
                    "xor {e:e}, dword ptr [{s} + 16]",
                    "xor {f:e}, dword ptr [{s} + 20]",
                    "xor {g:e}, dword ptr [{s} + 24]",
                    "xor {h:e}, dword ptr [{s} + 28]",
                    "mov dword ptr [{s}], {a:e}",
                    "mov dword ptr [{s} + 4], {b:e}",
                    "mov dword ptr [{s} + 8], {c:e}",
                    "mov dword ptr [{s} + 12], {d:e}",
                    "mov dword ptr [{s} + 16], {e:e}",
                    "mov dword ptr [{s} + 20], {f:e}",
                    "mov dword ptr [{s} + 24], {g:e}",
                    "mov dword ptr [{s} + 28], {h:e}",
                    a = inout(reg) a,
                    b = inout(reg) b,
                    c = inout(reg) c,
                    d = inout(reg) d,
                    e = inout(reg) e,
                    f = inout(reg) f,
                    g = inout(reg) g,
                    h = inout(reg) h,
                    s = in(reg) sp,
                    options(nostack),
                )
            }
        };
    }

    expand_one!(bufp, 0, nothing);
    for p in 0..n {
        // SAFETY: p % 2 < 2 buffers of 128 words.
        let (cur, nxt) = unsafe { (bufp.add(128 * (p % 2)), bufp.add(128 * ((p + 1) % 2))) };
        // The next block (the current one again, unused, after the last).
        let x = if p + 1 < n { p + 1 } else { p };
        base = cur;
        expand_one!(nxt, x, group);
        group!(1, 14);
        group!(1, 15);
        finish_block!();
    }
}
