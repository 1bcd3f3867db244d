//! SM3 compression on AVX-512VL CPUs: the message expansion in 256-bit
//! vectors with `vprold` and `vpternlogd`, two blocks at a time (one
//! 128-bit lane each), the rounds in inline assembly, four rounds per
//! `asm!` block, with the expansion of the next pair of blocks between the
//! rounds of this pair (double-buffered, as in `sm3/x86/avx2.rs`).
//!
//! What differs from `sm3/x86/avx2.rs`, each measured on Sapphire Rapids
//! against libgcrypt's AVX/BMI2 assembly in one process (`bench/NOTES.md`):
//! - The expansion costs ~5 vector instructions per word per block
//!   instead of ~8.5 (one-instruction rotations, three-input XORs), and
//!   half that again with two blocks per 256-bit register. Vector
//!   instructions share the ALU ports with the scalar rounds; when the
//!   other hyperthread of the core is busy, SM3 is bound by the number of
//!   operations, and the expansion alone was ~15% of the time.
//! - GG_{j+1} is computed in round j from TT2 and P0's rotations, so that
//!   round j + 1 adds it to H + W_{j+1} before SS1 arrives: E's recurrence
//!   (E -> SS1 -> TT2 -> P0 -> E) is 6 cycles instead of 7 in rounds
//!   16-63, for two more operations per round. With M = F_{j+1} ^ G_{j+1}
//!   (known early) and R = TT2 <<< 9 ^ TT2 <<< 17, E_{j+1} = TT2 ^ R and
//!   GG1_{j+1} = (E_{j+1} & M) ^ G_{j+1} = ((TT2 & M) ^ G_{j+1}) ^ (R & M),
//!   one operation after E_{j+1}; GG0_{j+1} = E_{j+1} ^ M.
//! - A <<< 12 is one `rorx`.
//!
//! Constant time: no branch and no address depends on the message or the
//! state (fixed offsets into a stack buffer; the block count is public).

use core::arch::asm;
use core::arch::x86_64::*;

use crate::cpu::{Avx512Vl, Bmi2Avx2};
use crate::sm3::consts::T;

/// One round as assembly text. `$ff` is 0 for rounds 0-15 (XOR), 1 for
/// 16-63 (majority); `$next` is the kind of the next round's GG that this
/// round leaves in `{gg}` (0: XOR, 1: choice, 2: none, last round);
/// `{gg}` holds this round's GG on entry. `$i` is the round's index in its
/// group of four; `$er` is E's register as a 64-bit name (LEA index);
/// `$k` names the const operand holding T_j <<< j. `{w} + {wo}` addresses
/// the group's W_j (at `4*$i`) and W'_j (at `32 + 4*$i`).
///
/// Temporaries: t0 = A <<< 12, then SS2; t1 = SS1, then R; t2 for FF and M.
#[rustfmt::skip]
macro_rules! round_text {
    ($ff:tt, $next:tt, $i:literal, $a:literal, $b:literal, $c:literal, $d:literal, $e:literal, $f:literal, $g:literal, $h:literal, $er:literal, $k:literal) => {
        concat!(
            "rorx {t0:e}, ", $a, ", 20\n",
            "add ", $h, ", dword ptr [{w} + {wo} + 4*", $i, "]\n",
            "lea {t1:e}, [{t0:r} + ", $er, " + ", $k, "]\n",
            "add ", $d, ", dword ptr [{w} + {wo} + 32 + 4*", $i, "]\n",
            "add ", $h, ", {gg:e}\n",
            "rol {t1:e}, 7\n",
            "xor {t0:e}, {t1:e}\n",
            "add ", $h, ", {t1:e}\n",
            ff_text!($ff, $a, $b, $c, $d),
            "add ", $d, ", {t0:e}\n",
            "rol ", $b, ", 9\n",
            "rol ", $f, ", 19\n",
            // P0: R = H <<< 9 ^ H <<< 17 in t1, H ^= R; the next GG.
            "rorx {t1:e}, ", $h, ", 23\n",
            "rorx {t0:e}, ", $h, ", 15\n",
            "xor {t1:e}, {t0:e}\n",
            next_gg_text!($next, $e, $f, $h),
        )
    };
}

/// FF into D (clobbers t2 and gg).
#[rustfmt::skip]
macro_rules! ff_text {
    (0, $a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "mov {t2:e}, ", $a, "\n",
            "xor {t2:e}, ", $b, "\n",
            "xor {t2:e}, ", $c, "\n",
            "add ", $d, ", {t2:e}\n",
        )
    };
    // Majority = ((A ^ B) & C) + (A & B), the two terms disjoint.
    (1, $a:literal, $b:literal, $c:literal, $d:literal) => {
        concat!(
            "mov {t2:e}, ", $a, "\n",
            "xor {t2:e}, ", $b, "\n",
            "mov {gg:e}, ", $a, "\n",
            "and {gg:e}, ", $b, "\n",
            "and {t2:e}, ", $c, "\n",
            "add ", $d, ", {gg:e}\n",
            "add ", $d, ", {t2:e}\n",
        )
    };
}

/// Finishes P0 (H ^= R, R in t1) and leaves the next round's GG in gg.
/// F_{j+1} is this round's E register, G_{j+1} the F register (already
/// rotated by 19).
#[rustfmt::skip]
macro_rules! next_gg_text {
    (0, $e:literal, $f:literal, $h:literal) => {
        concat!(
            "mov {gg:e}, ", $e, "\n",
            "xor {gg:e}, ", $f, "\n",
            "xor ", $h, ", {t1:e}\n",
            "xor {gg:e}, ", $h, "\n",
        )
    };
    (1, $e:literal, $f:literal, $h:literal) => {
        concat!(
            "mov {t2:e}, ", $e, "\n",
            "xor {t2:e}, ", $f, "\n",
            "mov {gg:e}, ", $h, "\n",
            "and {gg:e}, {t2:e}\n",
            "xor {gg:e}, ", $f, "\n",
            "and {t2:e}, {t1:e}\n",
            "xor ", $h, ", {t1:e}\n",
            "xor {gg:e}, {t2:e}\n",
        )
    };
    (2, $e:literal, $f:literal, $h:literal) => {
        concat!("xor ", $h, ", {t1:e}\n")
    };
}

/// Compresses every whole 64-byte block of `blocks` into `state`, two
/// blocks per loop iteration: the expansion of the next pair runs in
/// 256-bit registers (one 128-bit lane per block) between the rounds of
/// this pair.
///
/// The tokens prove AVX2, BMI2 (`rorx`), AVX-512F and AVX-512VL.
pub(crate) fn compress_blocks(_t: (Bmi2Avx2, Avx512Vl), state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: the tokens prove every feature `compress` enables.
    unsafe { compress(state, blocks) }
}

/// [`compress_blocks`] with its features enabled.
///
/// # Safety
/// The CPU must support AVX2, BMI2 (`rorx`), AVX-512F and AVX-512VL.
#[target_feature(enable = "avx,avx2,bmi2,avx512f,avx512vl")]
unsafe fn compress(state: &mut [u32; 8], blocks: &[u8]) {
    let n = blocks.len() / 64;
    if n == 0 {
        return;
    }
    // Group k (64 bytes): W_{4k..4k+3} of the pair's first block, of its
    // second, then W'_{4k..4k+3} of the first, of the second; k < 16.
    #[repr(align(64))]
    #[derive(Clone, Copy)]
    #[allow(dead_code)] // read and written through `bufp` only
    struct Buf([[u32; 16]; 16]);
    let mut bufs = [Buf([[0u32; 16]; 16]); 2];
    let bufp = bufs.as_mut_ptr() as *mut u32;

    macro_rules! xor3 {
        ($a:expr, $b:expr, $c:expr) => {
            _mm256_ternarylogic_epi32::<0x96>($a, $b, $c)
        };
    }
    macro_rules! p1 {
        ($x:expr) => {{
            let x = $x;
            xor3!(x, _mm256_rol_epi32::<15>(x), _mm256_rol_epi32::<23>(x))
        }};
    }
    macro_rules! next {
        ($m4:expr, $m3:expr, $m2:expr, $m1:expr) => {{
            let w9 = _mm256_alignr_epi8::<12>($m2, $m3);
            let w3 = _mm256_srli_si256::<4>($m1);
            let w13 = _mm256_alignr_epi8::<12>($m3, $m4);
            let w6 = _mm256_alignr_epi8::<8>($m1, $m2);
            let x = xor3!($m4, w9, _mm256_rol_epi32::<15>(w3));
            let partial = xor3!(p1!(x), _mm256_rol_epi32::<7>(w13), w6);
            let wj_in_lane3 = _mm256_slli_si256::<12>(partial);
            _mm256_xor_si256(partial, p1!(_mm256_rol_epi32::<15>(wj_in_lane3)))
        }};
    }
    let bswap = _mm256_set_epi8(
        12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3,
    );
    // Words 4i..4i+3 of blocks x (low lane) and y (high lane), big-endian.
    // SAFETY (callers): x, y < n.
    macro_rules! load {
        ($x:expr, $y:expr, $i:literal) => {
            unsafe {
                let lo = _mm_loadu_si128(blocks.as_ptr().add(64 * $x + 16 * $i) as *const __m128i);
                let hi = _mm_loadu_si128(blocks.as_ptr().add(64 * $y + 16 * $i) as *const __m128i);
                _mm256_shuffle_epi8(_mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi), bswap)
            }
        };
    }
    // SAFETY (both): group k < 16 (W) and k - 1 < 16 (W') of the 64-byte
    // aligned buffer `$dst` points to.
    macro_rules! store_w {
        ($dst:expr, $k:expr, $v:expr) => {
            unsafe { _mm256_store_si256(($dst as *mut __m256i).add(2 * $k), $v) }
        };
    }
    macro_rules! store_wp {
        ($dst:expr, $k:expr, $prev:expr, $v:expr) => {
            unsafe { _mm256_store_si256(($dst as *mut __m256i).add(2 * ($k - 1) + 1), _mm256_xor_si256($prev, $v)) }
        };
    }
    // Expands blocks x and y into `$dst`, calling `$then!(lane, grp, ff,
    // n3)` (rounds 4 grp .. 4 grp + 3 of the block in `lane` of the other
    // buffer) twice after each step and `$fin!()` after a block's last
    // group: 28 of the pair's 32 groups; the caller runs the last four.
    macro_rules! expand_pair {
        ($dst:expr, $x:expr, $y:expr, $then:ident, $fin:ident) => {{
            let (v0, v1, v2, v3) = (load!($x, $y, 0), load!($x, $y, 1), load!($x, $y, 2), load!($x, $y, 3));
            store_w!($dst, 0, v0);
            store_w!($dst, 1, v1);
            store_w!($dst, 2, v2);
            store_w!($dst, 3, v3);
            store_wp!($dst, 1, v0, v1);
            store_wp!($dst, 2, v1, v2);
            store_wp!($dst, 3, v2, v3);
            $then!(0, 0, 0, 0);
            $then!(0, 1, 0, 0);
            let v4 = next!(v0, v1, v2, v3);
            store_w!($dst, 4, v4);
            store_wp!($dst, 4, v3, v4);
            $then!(0, 2, 0, 0);
            $then!(0, 3, 0, 1);
            let v5 = next!(v1, v2, v3, v4);
            store_w!($dst, 5, v5);
            store_wp!($dst, 5, v4, v5);
            $then!(0, 4, 1, 1);
            $then!(0, 5, 1, 1);
            let v6 = next!(v2, v3, v4, v5);
            store_w!($dst, 6, v6);
            store_wp!($dst, 6, v5, v6);
            $then!(0, 6, 1, 1);
            $then!(0, 7, 1, 1);
            let v7 = next!(v3, v4, v5, v6);
            store_w!($dst, 7, v7);
            store_wp!($dst, 7, v6, v7);
            $then!(0, 8, 1, 1);
            $then!(0, 9, 1, 1);
            let v8 = next!(v4, v5, v6, v7);
            store_w!($dst, 8, v8);
            store_wp!($dst, 8, v7, v8);
            $then!(0, 10, 1, 1);
            $then!(0, 11, 1, 1);
            let v9 = next!(v5, v6, v7, v8);
            store_w!($dst, 9, v9);
            store_wp!($dst, 9, v8, v9);
            $then!(0, 12, 1, 1);
            $then!(0, 13, 1, 1);
            let v10 = next!(v6, v7, v8, v9);
            store_w!($dst, 10, v10);
            store_wp!($dst, 10, v9, v10);
            $then!(0, 14, 1, 1);
            $then!(0, 15, 1, 2);
            $fin!();
            let v11 = next!(v7, v8, v9, v10);
            store_w!($dst, 11, v11);
            store_wp!($dst, 11, v10, v11);
            $then!(1, 0, 0, 0);
            $then!(1, 1, 0, 0);
            let v12 = next!(v8, v9, v10, v11);
            store_w!($dst, 12, v12);
            store_wp!($dst, 12, v11, v12);
            $then!(1, 2, 0, 0);
            $then!(1, 3, 0, 1);
            let v13 = next!(v9, v10, v11, v12);
            store_w!($dst, 13, v13);
            store_wp!($dst, 13, v12, v13);
            $then!(1, 4, 1, 1);
            $then!(1, 5, 1, 1);
            let v14 = next!(v10, v11, v12, v13);
            store_w!($dst, 14, v14);
            store_wp!($dst, 14, v13, v14);
            $then!(1, 6, 1, 1);
            $then!(1, 7, 1, 1);
            let v15 = next!(v11, v12, v13, v14);
            store_w!($dst, 15, v15);
            store_wp!($dst, 15, v14, v15);
            $then!(1, 8, 1, 1);
            $then!(1, 9, 1, 1);
            let v16 = next!(v12, v13, v14, v15);
            store_wp!($dst, 16, v15, v16);
            $then!(1, 10, 1, 1);
            $then!(1, 11, 1, 1);
        }};
    }

    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;
    // GG0 of round 0.
    let mut gg = e ^ f ^ g;
    // The buffer the rounds read.
    let mut base: *const u32;
    // Four rounds j = 4 * $grp .. 4 * $grp + 3 of the block in `$lane`; the
    // register roles rotate by one each round and are back in place after
    // four. `$ff` is the group's FF kind, `$n3` the kind of GG the group's
    // last round prepares (the first three prepare `$ff`'s).
    macro_rules! group {
        ($lane:tt, $grp:tt, $ff:tt, $n3:tt) => {
            // SAFETY: reads words 16 * grp + 4 * lane + (0..4 and 8..12)
            // past `base`, grp < 16: inside one buffer of `bufs`. Writes
            // only its register operands.
            unsafe {
                asm!(
                    round_text!($ff, $ff, "0", "{a:e}", "{b:e}", "{c:e}", "{d:e}", "{e:e}", "{f:e}", "{g:e}", "{h:e}", "{e:r}", "{k0}"),
                    round_text!($ff, $ff, "1", "{d:e}", "{a:e}", "{b:e}", "{c:e}", "{h:e}", "{e:e}", "{f:e}", "{g:e}", "{h:r}", "{k1}"),
                    round_text!($ff, $ff, "2", "{c:e}", "{d:e}", "{a:e}", "{b:e}", "{g:e}", "{h:e}", "{e:e}", "{f:e}", "{g:r}", "{k2}"),
                    round_text!($ff, $n3, "3", "{b:e}", "{c:e}", "{d:e}", "{a:e}", "{f:e}", "{g:e}", "{h:e}", "{e:e}", "{f:r}", "{k3}"),
                    a = inout(reg) a,
                    b = inout(reg) b,
                    c = inout(reg) c,
                    d = inout(reg) d,
                    e = inout(reg) e,
                    f = inout(reg) f,
                    g = inout(reg) g,
                    h = inout(reg) h,
                    gg = inout(reg) gg,
                    w = in(reg) base.wrapping_add(16 * $grp + 4 * $lane + 32),
                    wo = const -128,
                    k0 = const T[4 * $grp] as i32,
                    k1 = const T[4 * $grp + 1] as i32,
                    k2 = const T[4 * $grp + 2] as i32,
                    k3 = const T[4 * $grp + 3] as i32,
                    t0 = out(reg) _,
                    t1 = out(reg) _,
                    t2 = out(reg) _,
                    options(nostack, readonly),
                )
            }
        };
    }
    macro_rules! nothing {
        ($lane:tt, $grp:tt, $ff:tt, $n3:tt) => {};
        () => {};
    }
    let sp = state.as_mut_ptr();
    // state ^= registers, the registers keeping the result; gg = GG0 of
    // the next block's round 0.
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
                    "mov {gg:e}, {e:e}",
                    "xor {gg:e}, {f:e}",
                    "xor {gg:e}, {g:e}",
                    a = inout(reg) a,
                    b = inout(reg) b,
                    c = inout(reg) c,
                    d = inout(reg) d,
                    e = inout(reg) e,
                    f = inout(reg) f,
                    g = inout(reg) g,
                    h = inout(reg) h,
                    gg = out(reg) gg,
                    s = in(reg) sp,
                    options(nostack),
                )
            }
        };
    }

    // The first pair (the only block twice if n = 1).
    let pairs = n / 2;
    expand_pair!(bufp, 0, 1.min(n - 1), nothing, nothing);
    let mut cur = bufp;
    // SAFETY: the second of the two 256-word buffers.
    let mut nxt = unsafe { bufp.add(256) };
    for q in 0..pairs {
        // The next pair, clamped to the last block (expanded and unused).
        let x = (2 * q + 2).min(n - 1);
        let y = (2 * q + 3).min(n - 1);
        base = cur;
        expand_pair!(nxt, x, y, group, finish_block);
        group!(1, 12, 1, 1);
        group!(1, 13, 1, 1);
        group!(1, 14, 1, 1);
        group!(1, 15, 1, 2);
        finish_block!();
        core::mem::swap(&mut cur, &mut nxt);
    }
    if n % 2 == 1 {
        base = cur;
        group!(0, 0, 0, 0);
        group!(0, 1, 0, 0);
        group!(0, 2, 0, 0);
        group!(0, 3, 0, 1);
        group!(0, 4, 1, 1);
        group!(0, 5, 1, 1);
        group!(0, 6, 1, 1);
        group!(0, 7, 1, 1);
        group!(0, 8, 1, 1);
        group!(0, 9, 1, 1);
        group!(0, 10, 1, 1);
        group!(0, 11, 1, 1);
        group!(0, 12, 1, 1);
        group!(0, 13, 1, 1);
        group!(0, 14, 1, 1);
        group!(0, 15, 1, 2);
        finish_block!();
    }
    // The registers after the last block (already stored).
    let _ = (a, b, c, d, e, f, g, h, gg);
}
