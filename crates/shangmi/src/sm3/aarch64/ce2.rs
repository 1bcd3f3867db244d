//! Two messages' SM3 blocks interleaved on the SM3 instructions
//! ("sm3ce-128" for [`crate::sm3::many`]): the one-message schedule of
//! the parent module twice, with its own registers, in one `asm!` block.
//!
//! Constant time: as the parent module's kernel (registers only, loads
//! from the blocks' public positions and the constant table, no branch on
//! the data).

use core::arch::aarch64::*;
use core::arch::asm;

use super::TL3;
use crate::cpu;
use crate::sm3::blocks::Blocks;

/// One round of two messages: A's state in v8/v9 (SS1 in v5, W' in v10),
/// B's in v24/v25 (SS1 in v22, W' in v29), one constant for both.
macro_rules! round2 {
    ($ab:literal, $a0:literal, $b0:literal, $t0:literal, $t1:literal, $i:literal) => {
        concat!(
            "sm3ss1 v5.4s, v8.4s, ",
            $t0,
            ".4s, v9.4s\n",
            "sm3ss1 v22.4s, v24.4s, ",
            $t0,
            ".4s, v25.4s\n",
            "ld1 {{",
            $t1,
            ".4s}}, [{t}], #16\n",
            "sm3tt1",
            $ab,
            " v8.4s, v5.4s, v10.s[",
            $i,
            "]\n",
            "sm3tt1",
            $ab,
            " v24.4s, v22.4s, v29.s[",
            $i,
            "]\n",
            "sm3tt2",
            $ab,
            " v9.4s, v5.4s, ",
            $a0,
            ".s[",
            $i,
            "]\n",
            "sm3tt2",
            $ab,
            " v25.4s, v22.4s, ",
            $b0,
            ".s[",
            $i,
            "]\n",
        )
    };
}

/// The parent module's `qround!` for two messages: A's words in `$a*` (temporaries v6, v7),
/// B's in `$b*` (temporaries v23, v28).
macro_rules! qround2 {
    ($ab:literal, $a0:literal, $a1:literal, $b0:literal, $b1:literal) => {
        concat!(
            "eor v10.16b, ",
            $a0,
            ".16b, ",
            $a1,
            ".16b\n",
            "eor v29.16b, ",
            $b0,
            ".16b, ",
            $b1,
            ".16b\n",
            round2!($ab, $a0, $b0, "v11", "v12", "0"),
            round2!($ab, $a0, $b0, "v12", "v11", "1"),
            round2!($ab, $a0, $b0, "v11", "v12", "2"),
            round2!($ab, $a0, $b0, "v12", "v11", "3"),
        )
    };
    ($ab:literal, $a0:literal, $a1:literal, $a2:literal, $a3:literal, $a4:literal,
     $b0:literal, $b1:literal, $b2:literal, $b3:literal, $b4:literal) => {
        concat!(
            "ext ",
            $a4,
            ".16b, ",
            $a1,
            ".16b, ",
            $a2,
            ".16b, #12\n",
            "ext v6.16b, ",
            $a0,
            ".16b, ",
            $a1,
            ".16b, #12\n",
            "ext v7.16b, ",
            $a2,
            ".16b, ",
            $a3,
            ".16b, #8\n",
            "sm3partw1 ",
            $a4,
            ".4s, ",
            $a0,
            ".4s, ",
            $a3,
            ".4s\n",
            "ext ",
            $b4,
            ".16b, ",
            $b1,
            ".16b, ",
            $b2,
            ".16b, #12\n",
            "ext v23.16b, ",
            $b0,
            ".16b, ",
            $b1,
            ".16b, #12\n",
            "ext v28.16b, ",
            $b2,
            ".16b, ",
            $b3,
            ".16b, #8\n",
            "sm3partw1 ",
            $b4,
            ".4s, ",
            $b0,
            ".4s, ",
            $b3,
            ".4s\n",
            qround2!($ab, $a0, $a1, $b0, $b1),
            "sm3partw2 ",
            $a4,
            ".4s, v7.4s, v6.4s\n",
            "sm3partw2 ",
            $b4,
            ".4s, v28.4s, v23.4s\n",
        )
    };
}

/// The state as the instructions hold it: (ABCD, EFGH), A and E in lane 3.
#[inline]
#[target_feature(enable = "neon")]
fn load_state(s: &[u32; 8]) -> (uint32x4_t, uint32x4_t) {
    // SAFETY: each load reads four u32 of a local array.
    unsafe { (vld1q_u32([s[3], s[2], s[1], s[0]].as_ptr()), vld1q_u32([s[7], s[6], s[5], s[4]].as_ptr())) }
}

/// [`load_state`] undone.
#[inline]
#[target_feature(enable = "neon")]
fn store_state(s: &mut [u32; 8], abcd: uint32x4_t, efgh: uint32x4_t) {
    let mut l = [0u32; 8];
    // SAFETY: each store writes four u32 of the local array.
    unsafe {
        vst1q_u32(l.as_mut_ptr(), abcd);
        vst1q_u32(l.as_mut_ptr().add(4), efgh);
    }
    *s = [l[3], l[2], l[1], l[0], l[7], l[6], l[5], l[4]];
}

/// Two messages' blocks compressed in one instruction stream (for
/// `hash_many`): one message's rounds are a chain, `SM3SS1` then
/// `SM3TT1`/`SM3TT2` into the next round's `SM3SS1`, which leaves the
/// vector pipes idle most of the time; a second, independent message fills
/// them. Not inlined, so that the static-analysis script finds it.
#[inline(never)]
#[target_feature(enable = "neon,sm4")]
fn compress2_impl(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    let (Some(ma), Some(mb)) = (msgs.first(), msgs.get(1)) else { return };
    let (Some(sa), Some(sb)) = (states.first(), states.get(1)) else { return };
    let (mut abcd, mut efgh) = load_state(sa);
    let (mut abcd2, mut efgh2) = load_state(sb);
    for k in 0..common {
        let (pa, pb) = (ma.block(k), mb.block(k));
        debug_assert!(pa.len() == 64 && pb.len() == 64);
        // SAFETY: reads the 64 bytes of each block and the constant table;
        // the SM3 instructions are valid under this function's `sm4`
        // target feature; every register written is an operand or
        // declared clobbered.
        unsafe {
            asm!(
                "ld1 {{v0.16b-v3.16b}}, [{pa}]",
                "ld1 {{v17.16b-v20.16b}}, [{pb}]",
                "mov v15.16b, v8.16b",
                "mov v16.16b, v9.16b",
                "mov v26.16b, v24.16b",
                "mov v27.16b, v25.16b",
                "rev32 v0.16b, v0.16b",
                "rev32 v1.16b, v1.16b",
                "rev32 v2.16b, v2.16b",
                "rev32 v3.16b, v3.16b",
                "rev32 v17.16b, v17.16b",
                "rev32 v18.16b, v18.16b",
                "rev32 v19.16b, v19.16b",
                "rev32 v20.16b, v20.16b",
                "ld1 {{v11.4s}}, [{t}], #16",
                qround2!("a", "v0", "v1", "v2", "v3", "v4", "v17", "v18", "v19", "v20", "v21"),
                qround2!("a", "v1", "v2", "v3", "v4", "v0", "v18", "v19", "v20", "v21", "v17"),
                qround2!("a", "v2", "v3", "v4", "v0", "v1", "v19", "v20", "v21", "v17", "v18"),
                qround2!("a", "v3", "v4", "v0", "v1", "v2", "v20", "v21", "v17", "v18", "v19"),
                qround2!("b", "v4", "v0", "v1", "v2", "v3", "v21", "v17", "v18", "v19", "v20"),
                qround2!("b", "v0", "v1", "v2", "v3", "v4", "v17", "v18", "v19", "v20", "v21"),
                qround2!("b", "v1", "v2", "v3", "v4", "v0", "v18", "v19", "v20", "v21", "v17"),
                qround2!("b", "v2", "v3", "v4", "v0", "v1", "v19", "v20", "v21", "v17", "v18"),
                qround2!("b", "v3", "v4", "v0", "v1", "v2", "v20", "v21", "v17", "v18", "v19"),
                qround2!("b", "v4", "v0", "v1", "v2", "v3", "v21", "v17", "v18", "v19", "v20"),
                qround2!("b", "v0", "v1", "v2", "v3", "v4", "v17", "v18", "v19", "v20", "v21"),
                qround2!("b", "v1", "v2", "v3", "v4", "v0", "v18", "v19", "v20", "v21", "v17"),
                qround2!("b", "v2", "v3", "v4", "v0", "v1", "v19", "v20", "v21", "v17", "v18"),
                qround2!("b", "v3", "v4", "v20", "v21"),
                qround2!("b", "v4", "v0", "v21", "v17"),
                qround2!("b", "v0", "v1", "v17", "v18"),
                "eor v8.16b, v8.16b, v15.16b",
                "eor v9.16b, v9.16b, v16.16b",
                "eor v24.16b, v24.16b, v26.16b",
                "eor v25.16b, v25.16b, v27.16b",
                pa = in(reg) pa.as_ptr(),
                pb = in(reg) pb.as_ptr(),
                t = inout(reg) TL3.as_ptr() => _,
                inout("v8") abcd,
                inout("v9") efgh,
                inout("v24") abcd2,
                inout("v25") efgh2,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _,
                out("v5") _, out("v6") _, out("v7") _, out("v10") _, out("v11") _,
                out("v12") _, out("v15") _, out("v16") _, out("v17") _, out("v18") _,
                out("v19") _, out("v20") _, out("v21") _, out("v22") _, out("v23") _,
                out("v26") _, out("v27") _, out("v28") _, out("v29") _,
                options(nostack, readonly, preserves_flags),
            );
        }
    }
    if let [sa, sb, ..] = states {
        store_state(sa, abcd, efgh);
        store_state(sb, abcd2, efgh2);
    }
}

/// Messages per call of [`x2`].
pub(crate) const X2_LANES: usize = 2;

/// Compresses the first `common` blocks of two messages, message l from
/// `states[l]`, interleaved on the SM3 instructions. The token proves NEON
/// and the SM3 instructions.
pub(crate) fn x2(_t: cpu::Sm3Neon, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    debug_assert!(msgs.len() == X2_LANES && states.len() == X2_LANES);
    // SAFETY: the token proves NEON and the SM3 instructions.
    unsafe { compress2_impl(msgs, common, states) }
}
