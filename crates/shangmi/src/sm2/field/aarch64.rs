//! SM2's p in aarch64 assembly: the Montgomery multiplication and squaring
//! (R = 2^256, results fully reduced below p, the same values as the
//! portable `mont_mul_portable`), base instruction set only (`MUL`,
//! `UMULH`, `ADDS`/`ADCS`/`SUBS`/`SBCS`, shifts, `CSEL`), so every aarch64
//! CPU runs them without a run-time check. Each is checked against the
//! portable code in `field::tests`.
//!
//! Why assembly: LLVM compiles the portable CIOS loop into one long
//! dependency chain, interleaving the product's carry chains with the
//! reduction's borrow chain and saving the flags with `MRS`/`MSR NZCV`
//! between them. Here the full 512-bit product is formed first, row by row
//! (each row two carry chains, one after the other), and the four
//! reduction steps run on its low half only, so they overlap the high
//! rows' multiplications. Each reduction step is multiplication-free
//! (−p⁻¹ ≡ 1 mod 2^64, see `Sm2P::reduce`): with k the low word,
//! r ← (r >> 64) + k·(2^192 − 2^160 − 2^32 + 1), the addend computed as
//! one borrow chain [k − lo, −hi, −lo, k − hi] from k·2^32 = hi·2^64 + lo
//! and added as one carry chain; the sum never exceeds 2^256 (r >> 64 <
//! 2^192 and the addend ≤ (2^64 − 1)·2^192 − …), so no carry word is kept.
//! The high half is then added (the sum, below 2p, has a carry bit) and p
//! subtracted once, the result picked by `CSEL`.
//!
//! Estimated cost (LLVM 19 `llvm-mca`, `scripts/llvm_mca.sh`, 2026-12-07 on
//! an AMD EPYC Zen 4 host; cycles per call on the Neoverse V1 / TaiShan
//! v110 (Kunpeng 920) / Neoverse N1 models): product 30 / 36 / 98 against
//! 52 / 62 / 110 for LLVM's code of the portable kernel (and 42 / 50 / 118
//! for OpenSSL's hand-written `ecp_sm2p256_mul`, measured the same way);
//! square 27 / 29 / 72 against 50 / 58 / 100 for the generic square and
//! `reduce`. N1's model issues one multiply every three cycles, so its 32
//! (square: 20) `MUL`/`UMULH` bound it.
//!
//! Constant time: straight-line code, no branch, no loop, no memory access
//! but the fixed loads of the two operands; every instruction used
//! (`MUL`, `UMULH`, the flag-setting add/subtract family, `LSL`/`LSR`/
//! `EXTR`, `CSET`, `CSEL`) has data-independent timing on Arm's cores (the
//! Armv8.4 DIT list names all of them).

use crate::arith::Limbs;

/// p's two words that are not all ones, as logical immediates (each a
/// rotated run of ones, so one `MOV` each).
const P1: u64 = super::P[1];
const P3: u64 = super::P[3];

/// One multiplication-free reduction step on the 4-word accumulator
/// (`$k`, `$r1`, `$r2`, `$r3`): afterwards the accumulator is
/// (`$r1`, `$r2`, `$r3`, `$k`), i.e. `$k` becomes the top word.
/// Temporaries (dead after the product): a0, a1 (k·2^32), a2, a3, b0, b1
/// (the addend).
macro_rules! reduce_step {
    ($k:literal, $r1:literal, $r2:literal, $r3:literal) => {
        concat!(
            // k·2^32 = v·2^64 + u
            "lsl {a0}, {",
            $k,
            "}, #32\n",
            "lsr {a1}, {",
            $k,
            "}, #32\n",
            // w = k·(2^192 − 2^160 − 2^32 + 1) = [k, 0, 0, k] − [u, v, u, v]
            "subs {a2}, {",
            $k,
            "}, {a0}\n",
            "sbcs {a3}, xzr, {a1}\n",
            "sbcs {b0}, xzr, {a0}\n",
            "sbc {b1}, {",
            $k,
            "}, {a1}\n",
            // (r >> 64) + w: below 2^256, no carry out.
            "adds {",
            $r1,
            "}, {",
            $r1,
            "}, {a2}\n",
            "adcs {",
            $r2,
            "}, {",
            $r2,
            "}, {a3}\n",
            "adcs {",
            $r3,
            "}, {",
            $r3,
            "}, {b0}\n",
            "adc {",
            $k,
            "}, {b1}, xzr\n",
        )
    };
}

/// The tail shared by the product and the square: the four reduction steps
/// on t0..t3, the high half t4..t7 added, p subtracted once by `CSEL`
/// (result in t4..t7).
macro_rules! reduce_and_finish {
    () => {
        concat!(
            reduce_step!("t0", "t1", "t2", "t3"),
            reduce_step!("t1", "t2", "t3", "t0"),
            reduce_step!("t2", "t3", "t0", "t1"),
            reduce_step!("t3", "t0", "t1", "t2"),
            // s = r + high half (below 2p); carry bit in u.
            "adds {t4}, {t4}, {t0}\n",
            "adcs {t5}, {t5}, {t1}\n",
            "adcs {t6}, {t6}, {t2}\n",
            "adcs {t7}, {t7}, {t3}\n",
            "cset {a0}, cs\n",
            // d = s − p (p0 and p2 are all ones: s0 − p0 sets the same
            // carry as s0 + 1, and s2 − p2 − borrow = s2 + carry − 2^64).
            "mov {a1}, #{p1}\n",
            "mov {b1}, #{p3}\n",
            "adds {a2}, {t4}, #1\n",
            "sbcs {a3}, {t5}, {a1}\n",
            "adcs {b0}, {t6}, xzr\n",
            "sbcs {b1}, {t7}, {b1}\n",
            "sbcs xzr, {a0}, xzr\n",
            // No borrow (carry set): s ≥ p, take d.
            "csel {t4}, {a2}, {t4}, cs\n",
            "csel {t5}, {a3}, {t5}, cs\n",
            "csel {t6}, {b0}, {t6}, cs\n",
            "csel {t7}, {b1}, {t7}, cs\n",
        )
    };
}

/// Row i ≥ 1 of the product: t[i..i + 5] += a_i·b (a_i in `$a`), with the
/// low product words added in one carry chain and the high words in a
/// second; `$t4` is the row's new top word.
macro_rules! mul_row {
    ($a:literal, $t0:literal, $t1:literal, $t2:literal, $t3:literal, $t4:literal) => {
        concat!(
            "mul {pa}, {",
            $a,
            "}, {b0}\n",
            "mul {pb}, {",
            $a,
            "}, {b1}\n",
            "mul {l2}, {",
            $a,
            "}, {b2}\n",
            "mul {l3}, {",
            $a,
            "}, {b3}\n",
            "umulh {h0}, {",
            $a,
            "}, {b0}\n",
            "umulh {h1}, {",
            $a,
            "}, {b1}\n",
            "umulh {h2}, {",
            $a,
            "}, {b2}\n",
            "umulh {h3}, {",
            $a,
            "}, {b3}\n",
            "adds {",
            $t0,
            "}, {",
            $t0,
            "}, {pa}\n",
            "adcs {",
            $t1,
            "}, {",
            $t1,
            "}, {pb}\n",
            "adcs {",
            $t2,
            "}, {",
            $t2,
            "}, {l2}\n",
            "adcs {",
            $t3,
            "}, {",
            $t3,
            "}, {l3}\n",
            "cset {",
            $t4,
            "}, cs\n",
            // The row's sum fits (i + 5) words: no carry out of the top.
            "adds {",
            $t1,
            "}, {",
            $t1,
            "}, {h0}\n",
            "adcs {",
            $t2,
            "}, {",
            $t2,
            "}, {h1}\n",
            "adcs {",
            $t3,
            "}, {",
            $t3,
            "}, {h2}\n",
            "adc {",
            $t4,
            "}, {",
            $t4,
            "}, {h3}\n",
        )
    };
}

/// a·b·2^−256 mod p for a, b < p, fully reduced: the 512-bit product t
/// (four rows), then (t + K·p)/2^256 with K < 2^256 chosen word by word so
/// the low half cancels, minus p if that is ≥ p (the sum is below 2p as
/// t < p²). The same value as the portable kernel.
#[inline(always)]
pub(crate) fn mont_mul(a: &Limbs, b: &Limbs) -> Limbs {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: `a` and `b` are valid 32-byte reads; every register written
    // is declared as an output; no stack use; the flags are clobbered (no
    // preserves_flags).
    unsafe {
        core::arch::asm!(
            "ldp {a0}, {a1}, [{pa}]",
            "ldp {a2}, {a3}, [{pa}, #16]",
            "ldp {b0}, {b1}, [{pb}]",
            "ldp {b2}, {b3}, [{pb}, #16]",
            // Row 0: t0..t4 = a0·b.
            "mul {t0}, {a0}, {b0}",
            "mul {pb}, {a0}, {b1}",
            "mul {l2}, {a0}, {b2}",
            "mul {l3}, {a0}, {b3}",
            "umulh {t1}, {a0}, {b0}",
            "umulh {t2}, {a0}, {b1}",
            "umulh {t3}, {a0}, {b2}",
            "umulh {t4}, {a0}, {b3}",
            "adds {t1}, {t1}, {pb}",
            "adcs {t2}, {t2}, {l2}",
            "adcs {t3}, {t3}, {l3}",
            "adc {t4}, {t4}, xzr",
            mul_row!("a1", "t1", "t2", "t3", "t4", "t5"),
            mul_row!("a2", "t2", "t3", "t4", "t5", "t6"),
            mul_row!("a3", "t3", "t4", "t5", "t6", "t7"),
            reduce_and_finish!(),
            pa = inout(reg) a.as_ptr() => _,
            pb = inout(reg) b.as_ptr() => _,
            a0 = out(reg) _, a1 = out(reg) _, a2 = out(reg) _, a3 = out(reg) _,
            b0 = out(reg) _, b1 = out(reg) _, b2 = out(reg) _, b3 = out(reg) _,
            l2 = out(reg) _, l3 = out(reg) _,
            h0 = out(reg) _, h1 = out(reg) _, h2 = out(reg) _, h3 = out(reg) _,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _,
            t4 = out(reg) r0, t5 = out(reg) r1, t6 = out(reg) r2, t7 = out(reg) r3,
            p1 = const P1,
            p3 = const P3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// a²·2^−256 mod p for a < p, fully reduced: the off-diagonal products
/// a_i·a_j (i < j) once, doubled by shifts, plus the diagonal squares (10
/// `MUL`/`UMULH` pairs instead of 16), then the same reduction as
/// [`mont_mul`], so the same value as `mont_mul(a, a)`.
#[inline(always)]
pub(crate) fn mont_sqr(a: &Limbs) -> Limbs {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: `a` is a valid 32-byte read; every register written is
    // declared as an output; no stack use; the flags are clobbered (no
    // preserves_flags).
    unsafe {
        core::arch::asm!(
            "ldp {a0}, {a1}, [{pa}]",
            "ldp {a2}, {a3}, [{pa}, #16]",
            // Off-diagonal products at positions 1..6: a0·(a1, a2, a3),
            "mul {t1}, {a0}, {a1}",
            "mul {l2}, {a0}, {a2}",
            "mul {l3}, {a0}, {a3}",
            "umulh {t2}, {a0}, {a1}",
            "umulh {t3}, {a0}, {a2}",
            "umulh {t4}, {a0}, {a3}",
            "adds {t2}, {t2}, {l2}",
            "adcs {t3}, {t3}, {l3}",
            "adc {t4}, {t4}, xzr",
            // a1·(a2, a3) (its middle words summed first, then added),
            "mul {pa}, {a1}, {a2}",
            "mul {pb}, {a1}, {a3}",
            "umulh {h0}, {a1}, {a2}",
            "umulh {t5}, {a1}, {a3}",
            "adds {h0}, {h0}, {pb}",
            "adc {t5}, {t5}, xzr",
            "adds {t3}, {t3}, {pa}",
            "adcs {t4}, {t4}, {h0}",
            "adc {t5}, {t5}, xzr",
            // and a2·a3.
            "mul {l2}, {a2}, {a3}",
            "umulh {t6}, {a2}, {a3}",
            "adds {t5}, {t5}, {l2}",
            "adc {t6}, {t6}, xzr",
            // Doubled by shifts (no carry chain): t1..t7.
            "lsr {t7}, {t6}, #63",
            "extr {t6}, {t6}, {t5}, #63",
            "extr {t5}, {t5}, {t4}, #63",
            "extr {t4}, {t4}, {t3}, #63",
            "extr {t3}, {t3}, {t2}, #63",
            "extr {t2}, {t2}, {t1}, #63",
            "lsl {t1}, {t1}, #1",
            // The diagonal squares a_i² at positions 2i, 2i + 1.
            "mul {t0}, {a0}, {a0}",
            "umulh {h0}, {a0}, {a0}",
            "mul {pa}, {a1}, {a1}",
            "umulh {h1}, {a1}, {a1}",
            "mul {l2}, {a2}, {a2}",
            "umulh {h2}, {a2}, {a2}",
            "mul {l3}, {a3}, {a3}",
            "umulh {h3}, {a3}, {a3}",
            "adds {t1}, {t1}, {h0}",
            "adcs {t2}, {t2}, {pa}",
            "adcs {t3}, {t3}, {h1}",
            "adcs {t4}, {t4}, {l2}",
            "adcs {t5}, {t5}, {h2}",
            "adcs {t6}, {t6}, {l3}",
            "adc {t7}, {t7}, {h3}",
            reduce_and_finish!(),
            pa = inout(reg) a.as_ptr() => _,
            pb = out(reg) _,
            a0 = out(reg) _, a1 = out(reg) _, a2 = out(reg) _, a3 = out(reg) _,
            b0 = out(reg) _, b1 = out(reg) _,
            l2 = out(reg) _, l3 = out(reg) _,
            h0 = out(reg) _, h1 = out(reg) _, h2 = out(reg) _, h3 = out(reg) _,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _,
            t4 = out(reg) r0, t5 = out(reg) r1, t6 = out(reg) r2, t7 = out(reg) r3,
            p1 = const P1,
            p3 = const P3,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}
