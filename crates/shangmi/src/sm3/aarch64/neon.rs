//! SM3 compression on aarch64 cores without the SM3 instructions
//! ("neon-128"): the message expansion W16..W67 and W'_j = W_j ^ W_j+4 in
//! NEON registers, four words at a time (what the x86 SSE/AVX SM3 code of
//! libgcrypt and GmSSL does), and the 64 rounds in general registers (the
//! portable code's rounds, reading W and W' from a stack buffer).
//!
//! Why: the scalar code spends about a third of its instructions on the
//! expansion, and on Neoverse N1 its rotate-and-XOR operations compete
//! with the rounds for the integer pipes; on NEON they run on the vector
//! pipes, which the rounds leave idle.
//!
//! W_j+3 depends on W_j, so each group of four is computed with W_j taken
//! as zero in lane 3 and then corrected: P1 is linear over XOR, so the
//! missing term is P1(W_j <<< 15) XORed into lane 3. Rotations are `SHL` +
//! `SRI`; the windows of earlier words are `EXT`s of the last four groups.
//!
//! Constant time: loads and stores at public positions (the block, the
//! stack buffer), every operation on registers, no branch on the data; the
//! rounds are the portable constant-time code.

use core::arch::aarch64::*;

use crate::cpu;

/// `x <<< r` in every lane.
macro_rules! rol {
    ($x:expr, $r:literal) => {{
        let x = $x;
        vsriq_n_u32::<{ 32 - $r }>(vshlq_n_u32::<$r>(x), x)
    }};
}

/// P1 in every lane.
macro_rules! p1 {
    ($x:expr) => {{
        let x = $x;
        veorq_u32(veorq_u32(x, rol!(x, 15)), rol!(x, 23))
    }};
}

/// Expands each 64-byte block and runs `rounds` on it (W0..W67, W'0..W'63).
/// Not inlined, so that the static-analysis script finds it.
#[inline(never)]
#[target_feature(enable = "neon")]
fn compress_impl<R: Fn(&mut [u32; 8], &mut [u32; 68], &[u32; 64])>(state: &mut [u32; 8], blocks: &[u8], rounds: R) {
    let mut w = [0u32; 68];
    let mut wp = [0u32; 64];
    let zero = vdupq_n_u32(0);
    for block in blocks.chunks_exact(64) {
        // SAFETY: the loads read block[0..64].
        let m: [uint32x4_t; 4] =
            core::array::from_fn(|i| unsafe { vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block.as_ptr().add(16 * i)))) });
        // next(W_j-16..j-13, W_j-12..j-9, W_j-8..j-5, W_j-4..j-1) = W_j..j+3
        // (a macro rather than a loop over an array, so that all 17
        // vectors stay in registers).
        macro_rules! next {
            ($m4:expr, $m3:expr, $m2:expr, $m1:expr) => {{
                let w9 = vextq_u32::<3>($m3, $m2); // W_j-9..j-6
                let w3 = vextq_u32::<1>($m1, zero); // W_j-3..j-1, 0
                let w13 = vextq_u32::<3>($m4, $m3); // W_j-13..j-10
                let w6 = vextq_u32::<2>($m2, $m1); // W_j-6..j-3
                let x = veorq_u32(veorq_u32($m4, w9), rol!(w3, 15));
                let partial = veorq_u32(veorq_u32(p1!(x), rol!(w13, 7)), w6);
                // Lane 3 lacks P1(W_j <<< 15); W_j is lane 0 of `partial`.
                let wj_in_lane3 = vextq_u32::<1>(zero, partial);
                veorq_u32(partial, p1!(rol!(wj_in_lane3, 15)))
            }};
        }
        let [v0, v1, v2, v3] = m;
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
        // SAFETY: the stores write w[4k..4k+4] for k < 17 and wp[4k..4k+4]
        // for k < 16, all in bounds.
        unsafe {
            for (k, vk) in v.iter().enumerate() {
                vst1q_u32(w.as_mut_ptr().add(4 * k), *vk);
            }
            for (k, pair) in v.windows(2).enumerate() {
                vst1q_u32(wp.as_mut_ptr().add(4 * k), veorq_u32(pair[0], pair[1]));
            }
        }
        rounds(state, &mut w, &wp);
    }
}

/// Compresses every whole 64-byte block of `blocks` into `state`, the
/// rounds by `rounds` (the portable code's, passed in by its module so
/// that this one does not name it: no import cycle). The token proves
/// NEON.
pub(crate) fn compress_blocks<R>(_t: cpu::Neon, state: &mut [u32; 8], blocks: &[u8], rounds: R)
where
    R: Fn(&mut [u32; 8], &mut [u32; 68], &[u32; 64]),
{
    // SAFETY: the token proves NEON.
    unsafe { compress_impl(state, blocks, rounds) }
}
