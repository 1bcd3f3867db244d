//! Addition and subtraction modulo SM9's p in x86-64 assembly: straight-line
//! carry chains with CMOV selection, so no compiler can turn the reduction
//! into a branch and no optimisation barrier is needed between the limbs.
//! Only base x86-64 instructions (valgrind runs them in the ctime harness).

#![cfg(target_arch = "x86_64")]

use super::fp::Sm9P;
use crate::arith::{Limbs, Modulus};

static P: [u64; 4] = Sm9P::M;

/// (a + b) mod p for a, b < p. The sum may carry out of 256 bits (p's top
/// bit is set): the carry word joins the borrow chain of the subtraction of
/// p, and the unreduced sum is kept exactly when that chain borrows.
#[inline(always)]
pub fn add_mod_p(a: &Limbs, b: &Limbs) -> Limbs {
    let (mut r0, mut r1, mut r2, mut r3) = (a[0], a[1], a[2], a[3]);
    // SAFETY: plain register arithmetic plus reads of `b` (32 bytes) and
    // the static P (32 bytes); no stack use; flags clobbered.
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
            p = in(reg) P.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

/// (a − b) mod p for a, b < p: the borrow of a − b becomes an all-ones
/// mask that selects p to add back.
#[inline(always)]
pub fn sub_mod_p(a: &Limbs, b: &Limbs) -> Limbs {
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
            p = in(reg) P.as_ptr(),
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::{add_mod, sub_mod};

    #[test]
    fn asm_add_sub_match_generic() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let pm1 = crate::arith::sub_limbs(&Sm9P::M, &[1, 0, 0, 0]).0;
        let mut edge = vec![[0u64; 4], [1, 0, 0, 0], pm1, [u64::MAX, 0, 0, 0]];
        for _ in 0..2000 {
            let mut x = [next(), next(), next(), next()];
            x[3] %= Sm9P::M[3];
            edge.push(x);
        }
        for (i, a) in edge.iter().enumerate() {
            let b = &edge[(i * 7 + 3) % edge.len()];
            for (x, y) in [(a, b), (b, a), (a, a)] {
                assert_eq!(add_mod_p(x, y), add_mod(x, y, &Sm9P::M));
                assert_eq!(sub_mod_p(x, y), sub_mod(x, y, &Sm9P::M));
            }
        }
        assert_eq!(add_mod_p(&pm1, &pm1), sub_limbs_p(&pm1));
    }

    /// p − 2 = (p − 1) + (p − 1) mod p.
    fn sub_limbs_p(pm1: &Limbs) -> Limbs {
        crate::arith::sub_limbs(pm1, &[1, 0, 0, 0]).0
    }
}
