//! Eight SM3 compressions side by side on NEON registers, one message per
//! 32-bit lane ("neon-128"), for [`crate::sm3::many`]: two independent sets
//! of four lanes, so that one set's round runs while the other's waits on
//! its dependency chain (one round is ~16 cycles of latency on Neoverse
//! cores; one set alone left the vector pipes half idle). Four blocks'
//! words are put into lanes with `REV32` and a 4×4 transpose
//! (`TRN1`/`TRN2`).
//!
//! Written for the two-pipe Neoverse N1 shape (LLVM's model sends shifts to
//! one pipe and additions, logic and `TBL` to the other): rotations are
//! `SHL` + `SRI`, which keeps the logic pipe for the additions and XORs;
//! FF is `BSL` on the mask B ^ C (ready a round early, so A's path is one
//! instruction), GG one `BSL`; the 64 rounds are unrolled so that the
//! registers rename instead of moving; the message expansion runs four
//! words ahead inside the rounds and the round constants are loaded from a
//! table (loads do not use the vector pipes).
//!
//! Constant time: every load address is a public block position or a
//! constant table entry, every operation a register operation, no branch
//! depends on the data; the same code runs for every message of a batch.

use core::arch::aarch64::*;

use crate::cpu;
use crate::sm3::blocks::Blocks;
use crate::sm3::consts::T;
use crate::sm3::IV;

/// Messages per batch: two sets of four lanes.
pub(crate) const LANES: usize = 8;

/// Fewest messages for which a batch on the lanes beats hashing them one at
/// a time on the NEON single stream: a call costs 8 × 5.98 cycles per byte
/// of each message on LLVM's Neoverse N1 model and 8 × 3.01 on V1, one
/// message 8.36 and 6.80 (scripts/llvm_mca.sh, LLVM 19, 2026-12-07), so
/// six messages are needed on N1 (four on V1); unused lanes are padded
/// with copies of the first message.
pub(crate) const MIN_MESSAGES: usize = 6;

/// Independent sets of four lanes.
const SETS: usize = 2;

/// One SM3 variable of both sets.
type X = [uint32x4_t; SETS];

/// `x <<< r` in every lane.
macro_rules! rol {
    ($x:expr, $r:literal) => {{
        let x = $x;
        vsriq_n_u32::<{ 32 - $r }>(vshlq_n_u32::<$r>(x), x)
    }};
}

/// Each set's value of an expression in `s`.
macro_rules! each {
    (|$s:ident| $e:expr) => {{
        let r: X = core::array::from_fn(|$s| $e);
        r
    }};
}

/// T_j <<< j in every lane (loaded, not built: a load uses no vector pipe).
static TV: [[u32; 4]; 64] = {
    let mut t = [[0u32; 4]; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = [T[j]; 4];
        j += 1;
    }
    t
};

/// Words 4i..4i+4 of four blocks, block l in lane l, as numbers.
#[inline]
#[target_feature(enable = "neon")]
fn words4(blocks: &[&[u8]], i: usize) -> [uint32x4_t; 4] {
    // SAFETY: each block is 64 bytes (Blocks::block), i < 4.
    let r: [uint32x4_t; 4] = core::array::from_fn(|l| {
        debug_assert!(blocks[l].len() >= 16 * i + 16);
        vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(blocks[l].as_ptr().add(16 * i)) }))
    });
    let t0 = vreinterpretq_u64_u32(vtrn1q_u32(r[0], r[1]));
    let t1 = vreinterpretq_u64_u32(vtrn2q_u32(r[0], r[1]));
    let t2 = vreinterpretq_u64_u32(vtrn1q_u32(r[2], r[3]));
    let t3 = vreinterpretq_u64_u32(vtrn2q_u32(r[2], r[3]));
    [
        vreinterpretq_u32_u64(vtrn1q_u64(t0, t2)),
        vreinterpretq_u32_u64(vtrn1q_u64(t1, t3)),
        vreinterpretq_u32_u64(vtrn2q_u64(t0, t2)),
        vreinterpretq_u32_u64(vtrn2q_u64(t1, t3)),
    ]
}

/// One block of each of the eight messages (block l in lane l % 4 of set
/// l / 4) into the states. Not inlined, so that the static-analysis script
/// finds it.
#[inline(never)]
#[target_feature(enable = "neon")]
fn block8_impl(st: &mut [X; 8], blocks: &[&[u8]; LANES]) {
    let mut w = [[vdupq_n_u32(0); SETS]; 68];
    for s in 0..SETS {
        for i in 0..4 {
            for (k, v) in words4(&blocks[4 * s..4 * s + 4], i).into_iter().enumerate() {
                w[4 * i + k][s] = v;
            }
        }
    }
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *st;
    // FF's mask B ^ C of the first round of 16..64, then carried.
    let mut bc: X = [vdupq_n_u32(0); SETS];

    // One round with the roles renamed instead of moved, as the scalar
    // code does: after it, the new A is in `$d`, the new E in `$h`.
    macro_rules! round {
        ($j:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $late:literal) => {{
            const J: usize = $j;
            if J + 4 >= 16 {
                let k = J + 4;
                w[k] = each!(|s| {
                    let x = veorq_u32(veorq_u32(w[k - 16][s], w[k - 9][s]), rol!(w[k - 3][s], 15));
                    let p1 = veorq_u32(veorq_u32(x, rol!(x, 15)), rol!(x, 23));
                    veorq_u32(veorq_u32(p1, rol!(w[k - 13][s], 7)), w[k - 6][s])
                });
            }
            // SAFETY: reads one 16-byte entry of a constant table.
            let t = unsafe { vld1q_u32(TV[J].as_ptr()) };
            let a12 = each!(|s| rol!($a[s], 12));
            let ss1 = each!(|s| rol!(vaddq_u32(vaddq_u32(a12[s], t), $e[s]), 7));
            let ff = if $late {
                // Majority: A where B and C differ, else B.
                each!(|s| vbslq_u32(bc[s], $a[s], $b[s]))
            } else {
                each!(|s| veorq_u32(veorq_u32($a[s], $b[s]), $c[s]))
            };
            let gg = if $late {
                each!(|s| vbslq_u32($e[s], $f[s], $g[s]))
            } else {
                each!(|s| veorq_u32(veorq_u32($e[s], $f[s]), $g[s]))
            };
            let tt1 = each!(|s| {
                let dw = vaddq_u32($d[s], veorq_u32(w[J][s], w[J + 4][s]));
                vaddq_u32(vaddq_u32(dw, ff[s]), veorq_u32(ss1[s], a12[s]))
            });
            let tt2 = each!(|s| vaddq_u32(vaddq_u32(vaddq_u32($h[s], w[J][s]), gg[s]), ss1[s]));
            $b = each!(|s| rol!($b[s], 9));
            $f = each!(|s| rol!($f[s], 19));
            // The next round's B and C are this round's A and B <<< 9.
            bc = each!(|s| veorq_u32($a[s], $b[s]));
            $d = tt1;
            $h = each!(|s| {
                let x = tt2[s];
                veorq_u32(veorq_u32(x, rol!(x, 9)), rol!(x, 17))
            });
        }};
    }
    macro_rules! four_rounds {
        ($j:expr, $late:literal) => {
            round!($j, a, b, c, d, e, f, g, h, $late);
            round!($j + 1, d, a, b, c, h, e, f, g, $late);
            round!($j + 2, c, d, a, b, g, h, e, f, $late);
            round!($j + 3, b, c, d, a, f, g, h, e, $late);
        };
    }
    four_rounds!(0, false);
    four_rounds!(4, false);
    four_rounds!(8, false);
    four_rounds!(12, false);
    four_rounds!(16, true);
    four_rounds!(20, true);
    four_rounds!(24, true);
    four_rounds!(28, true);
    four_rounds!(32, true);
    four_rounds!(36, true);
    four_rounds!(40, true);
    four_rounds!(44, true);
    four_rounds!(48, true);
    four_rounds!(52, true);
    four_rounds!(56, true);
    four_rounds!(60, true);
    let _ = bc;
    for (s, v) in st.iter_mut().zip([a, b, c, d, e, f, g, h]) {
        *s = each!(|k| veorq_u32(s[k], v[k]));
    }
}

#[inline(never)]
#[target_feature(enable = "neon")]
fn multi_impl(msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    let lane = |l: usize| &msgs[if l < msgs.len() { l } else { 0 }];
    let mut st: [X; 8] = core::array::from_fn(|i| {
        each!(|s| {
            let w: [u32; 4] = core::array::from_fn(|l| states.get(4 * s + l).map_or(IV[i], |st| st[i]));
            // SAFETY: reads the 4 words of a local array.
            unsafe { vld1q_u32(w.as_ptr()) }
        })
    });
    for k in 0..common {
        let blocks: [&[u8]; LANES] = core::array::from_fn(|l| lane(l).block(k));
        block8_impl(&mut st, &blocks);
    }
    for (i, v) in st.iter().enumerate() {
        let mut w = [0u32; LANES];
        // SAFETY: each store writes 4 words of the local array.
        unsafe {
            vst1q_u32(w.as_mut_ptr(), v[0]);
            vst1q_u32(w.as_mut_ptr().add(4), v[1]);
        }
        for (l, s) in states.iter_mut().enumerate().take(LANES) {
            s[i] = w[l];
        }
    }
}

/// Compresses the first `common` blocks of each of up to eight messages,
/// message l from `states[l]`, in the lanes of NEON registers. The token
/// proves NEON.
pub(crate) fn x8(_t: cpu::Neon, msgs: &[Blocks<'_>], common: usize, states: &mut [[u32; 8]]) {
    debug_assert!(!msgs.is_empty() && msgs.len() <= LANES && states.len() == msgs.len());
    // SAFETY: the token proves NEON.
    unsafe { multi_impl(msgs, common, states) }
}
