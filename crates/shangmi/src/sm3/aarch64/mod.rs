//! SM3 compression with the Armv8.2 SM3 instructions (`SM3SS1`,
//! `SM3TT1A/B`, `SM3TT2A/B`, `SM3PARTW1/2`), one block per `asm!` block.
//!
//! The schedule is the Linux kernel's `sm3-ce-core.S`: ABCD in one register
//! and EFGH in another, A and E in lane 3 (the instructions' layout); four
//! rounds per group of four message words, the next four words expanded by
//! `SM3PARTW1`/`SM3PARTW2` while the rounds run. One change: Linux carries
//! the round constant T_j <<< j in lane 3 of a register and rotates it by
//! one per round (`SHL` + `SRI`), a second chain of two dependent shifts
//! per round (8 cycles on LLVM's TaiShan v110 model, as long as its
//! `SM3SS1` -> `SM3TT1A` chain); here each round's constant is loaded
//! from a table (lane 3 of a 16-byte entry, `LD1` with post-increment),
//! off any chain and off the vector pipes. The estimate is unchanged (4.05,
//! 5.03 and 8.06 cycles per byte on Neoverse N1, V1 and TaiShan v110,
//! llvm-mca 19, 2026-12-07): the limit is the rounds' own chain, `SM3SS1`
//! then `SM3TT1A`/`SM3TT2A` into the next `SM3SS1`, which no schedule of
//! one message can shorten (the models guess those instructions'
//! latencies); the table only matters on a core whose SM3 instructions
//! are faster than two shifts. For many messages (`hash_many`), `ce2.rs`
//! runs two messages' blocks interleaved in one `asm!` block, so that one
//! message's rounds fill the other's stalls: 2.54, 3.02 and 4.57 cycles
//! per byte on the same models. Rust's `vsm3*` intrinsics are unstable
//! (`stdarch_neon_sm4`), hence `asm!` compiled under the `sm4` target
//! feature (which is FEAT_SM3 and FEAT_SM4 together in Rust).
//!
//! Constant time: registers only, no branch or address depending on data
//! (the SM3 instructions are on Arm's data-independent-timing list); loads
//! from the blocks' public positions and the constant table.

use core::arch::aarch64::*;
use core::arch::asm;

pub(crate) mod ce2;
pub(crate) mod lanes;
pub(crate) mod neon;
#[cfg(test)]
mod tests;

use crate::cpu;

/// One round: `SS1` into v5, the next constant loaded into `$t1`, then
/// TT1/TT2.
macro_rules! round {
    ($ab:literal, $s0:literal, $t0:literal, $t1:literal, $i:literal) => {
        concat!(
            "sm3ss1 v5.4s, v8.4s, ",
            $t0,
            ".4s, v9.4s\n",
            "ld1 {{",
            $t1,
            ".4s}}, [{t}], #16\n",
            "sm3tt1",
            $ab,
            " v8.4s, v5.4s, v10.s[",
            $i,
            "]\n",
            "sm3tt2",
            $ab,
            " v9.4s, v5.4s, ",
            $s0,
            ".s[",
            $i,
            "]\n",
        )
    };
}

/// Four rounds on words `$s0` (W_j..W_j+3, W'_j = W_j ^ W_j+4 in v10),
/// expanding W_j+16..W_j+19 into `$s4` when given.
macro_rules! qround {
    ($ab:literal, $s0:literal, $s1:literal) => {
        concat!(
            "eor v10.16b, ",
            $s0,
            ".16b, ",
            $s1,
            ".16b\n",
            round!($ab, $s0, "v11", "v12", "0"),
            round!($ab, $s0, "v12", "v11", "1"),
            round!($ab, $s0, "v11", "v12", "2"),
            round!($ab, $s0, "v12", "v11", "3"),
        )
    };
    ($ab:literal, $s0:literal, $s1:literal, $s2:literal, $s3:literal, $s4:literal) => {
        concat!(
            "ext ",
            $s4,
            ".16b, ",
            $s1,
            ".16b, ",
            $s2,
            ".16b, #12\n",
            "ext v6.16b, ",
            $s0,
            ".16b, ",
            $s1,
            ".16b, #12\n",
            "ext v7.16b, ",
            $s2,
            ".16b, ",
            $s3,
            ".16b, #8\n",
            "sm3partw1 ",
            $s4,
            ".4s, ",
            $s0,
            ".4s, ",
            $s3,
            ".4s\n",
            qround!($ab, $s0, $s1),
            "sm3partw2 ",
            $s4,
            ".4s, v7.4s, v6.4s\n",
        )
    };
}

/// T_j <<< j in lane 3 (where `SM3SS1` reads it), for j = 0..64, and a
/// 65th entry the last round's look-ahead load reads and leaves unused.
static TL3: [[u32; 4]; 65] = {
    let mut t = [[0u32; 4]; 65];
    let mut j = 0;
    while j < 64 {
        t[j][3] = super::consts::T[j];
        j += 1;
    }
    t
};

#[target_feature(enable = "neon,sm4")]
fn compress_impl(state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY (loads): each reads four u32 of a local array.
    let mut abcd = unsafe { vld1q_u32([state[3], state[2], state[1], state[0]].as_ptr()) };
    let mut efgh = unsafe { vld1q_u32([state[7], state[6], state[5], state[4]].as_ptr()) };
    for block in blocks.chunks_exact(64) {
        // SAFETY: reads the 64 bytes of `block`; the SM3 instructions are
        // valid under this function's `sm4` target feature; every register
        // written is an operand or declared clobbered.
        unsafe {
            asm!(
                "ld1 {{v0.16b-v3.16b}}, [{p}]",
                "mov v15.16b, v8.16b",
                "mov v16.16b, v9.16b",
                "rev32 v0.16b, v0.16b",
                "rev32 v1.16b, v1.16b",
                "rev32 v2.16b, v2.16b",
                "rev32 v3.16b, v3.16b",
                "ld1 {{v11.4s}}, [{t}], #16",
                qround!("a", "v0", "v1", "v2", "v3", "v4"),
                qround!("a", "v1", "v2", "v3", "v4", "v0"),
                qround!("a", "v2", "v3", "v4", "v0", "v1"),
                qround!("a", "v3", "v4", "v0", "v1", "v2"),
                qround!("b", "v4", "v0", "v1", "v2", "v3"),
                qround!("b", "v0", "v1", "v2", "v3", "v4"),
                qround!("b", "v1", "v2", "v3", "v4", "v0"),
                qround!("b", "v2", "v3", "v4", "v0", "v1"),
                qround!("b", "v3", "v4", "v0", "v1", "v2"),
                qround!("b", "v4", "v0", "v1", "v2", "v3"),
                qround!("b", "v0", "v1", "v2", "v3", "v4"),
                qround!("b", "v1", "v2", "v3", "v4", "v0"),
                qround!("b", "v2", "v3", "v4", "v0", "v1"),
                qround!("b", "v3", "v4"),
                qround!("b", "v4", "v0"),
                qround!("b", "v0", "v1"),
                "eor v8.16b, v8.16b, v15.16b",
                "eor v9.16b, v9.16b, v16.16b",
                p = in(reg) block.as_ptr(),
                t = inout(reg) TL3.as_ptr() => _,
                inout("v8") abcd,
                inout("v9") efgh,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _,
                out("v5") _, out("v6") _, out("v7") _, out("v10") _, out("v11") _,
                out("v12") _, out("v15") _, out("v16") _,
                options(nostack, readonly, preserves_flags),
            );
        }
    }
    let mut lanes = [0u32; 8];
    // SAFETY: each store writes four u32 of the local array.
    unsafe {
        vst1q_u32(lanes.as_mut_ptr(), abcd);
        vst1q_u32(lanes.as_mut_ptr().add(4), efgh);
    }
    *state = [lanes[3], lanes[2], lanes[1], lanes[0], lanes[7], lanes[6], lanes[5], lanes[4]];
}

/// Compresses every whole 64-byte block of `blocks` into `state`.
pub(crate) fn compress_blocks(_t: cpu::Sm3Neon, state: &mut [u32; 8], blocks: &[u8]) {
    // SAFETY: the token proves NEON and the SM3 instructions.
    unsafe { compress_impl(state, blocks) }
}
