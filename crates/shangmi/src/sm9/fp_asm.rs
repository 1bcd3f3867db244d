//! Addition and subtraction modulo a 256-bit p (SM9's; its top bit is set,
//! so sums carry out of 256 bits) in x86-64 assembly: straight-line
//! carry chains with CMOV selection, so no compiler can turn the reduction
//! into a branch and no optimisation barrier is needed between the limbs.
//! Only base x86-64 instructions (valgrind runs them in the ctime harness).

#![cfg(target_arch = "x86_64")]

use crate::arith::Limbs;

/// (a + b) mod p for a, b < p (`p` odd, any 256-bit value). The sum may carry out of 256 bits (p's top
/// bit is set): the carry word joins the borrow chain of the subtraction of
/// p, and the unreduced sum is kept exactly when that chain borrows.
#[inline(always)]
pub fn add_mod_p(a: &Limbs, b: &Limbs, p: &Limbs) -> Limbs {
    let (mut r0, mut r1, mut r2, mut r3) = (a[0], a[1], a[2], a[3]);
    // SAFETY: plain register arithmetic plus reads of `b` (32 bytes) and
    // `p` (32 bytes); no stack use; flags clobbered.
    unsafe {
        core::arch::asm!(
            "xor {c:e}, {c:e}",
            "add {r0}, [{b}]", "adc {r1}, [{b} + 8]", "adc {r2}, [{b} + 16]", "adc {r3}, [{b} + 24]",
            "adc {c}, 0",
            "mov {t0}, {r0}", "mov {t1}, {r1}", "mov {t2}, {r2}", "mov {t3}, {r3}",
            "sub {t0}, [{p}]", "sbb {t1}, [{p} + 8]", "sbb {t2}, [{p} + 16]", "sbb {t3}, [{p} + 24]",
            "sbb {c}, 0",
            "cmovnc {r0}, {t0}", "cmovnc {r1}, {t1}", "cmovnc {r2}, {t2}", "cmovnc {r3}, {t3}",
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _,
            c = out(reg) _,
            b = in(reg) b.as_ptr(),
            p = in(reg) p.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// (a − b) mod p for a, b < p: the borrow of a − b becomes an all-ones
/// mask that selects p to add back.
#[inline(always)]
pub fn sub_mod_p(a: &Limbs, b: &Limbs, p: &Limbs) -> Limbs {
    let (mut r0, mut r1, mut r2, mut r3) = (a[0], a[1], a[2], a[3]);
    // SAFETY: as in add_mod_p.
    unsafe {
        core::arch::asm!(
            "sub {r0}, [{b}]", "sbb {r1}, [{b} + 8]", "sbb {r2}, [{b} + 16]", "sbb {r3}, [{b} + 24]",
            "sbb {m}, {m}",
            "mov {t0}, [{p}]", "mov {t1}, [{p} + 8]", "mov {t2}, [{p} + 16]", "mov {t3}, [{p} + 24]",
            "and {t0}, {m}", "and {t1}, {m}", "and {t2}, {m}", "and {t3}, {m}",
            "add {r0}, {t0}", "adc {r1}, {t1}", "adc {r2}, {t2}", "adc {r3}, {t3}",
            r0 = inout(reg) r0, r1 = inout(reg) r1, r2 = inout(reg) r2, r3 = inout(reg) r3,
            t0 = out(reg) _, t1 = out(reg) _, t2 = out(reg) _, t3 = out(reg) _,
            m = out(reg) _,
            b = in(reg) b.as_ptr(),
            p = in(reg) p.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}
