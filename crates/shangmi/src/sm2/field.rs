//! The SM2 prime field Fp and the scalar field mod n (sm2p256v1).

// Limb code indexes several arrays in lockstep; index loops read clearest.
#![allow(clippy::needless_range_loop)]

use crate::arith::{adc, final_sub, hex32, mac, sbb, Fe, Limbs, Modulus};

/// p = 2^256 − 2^224 − 2^96 + 2^64 − 1.
#[derive(Clone, Copy, Debug)]
pub struct Sm2P;

impl Modulus for Sm2P {
    const M: Limbs = [0xffff_ffff_ffff_ffff, 0xffff_ffff_0000_0000, 0xffff_ffff_ffff_ffff, 0xffff_fffe_ffff_ffff];

    /// p's lowest limb is all ones, so −p⁻¹ ≡ 1 (mod 2^64): the per-word
    /// Montgomery factor is the word itself, and k·p = k·2^256 − k·2^224 −
    /// k·2^96 + k·2^64 − k needs no multiplication at all.
    #[inline(always)]
    fn reduce(t: &[u64; 8]) -> Limbs {
        // Each step: with k = t[0] (−p⁻¹ ≡ 1), (t + k·p)/2^64 = (t >> 64) +
        // k·(p + 1)/2^64 because the low word cancels exactly, and
        // (p + 1)/2^64 = 2^192 − 2^160 − 2^32 + 1. With k·2^32 = hi·2^64 + lo:
        // k·(2^192 − 2^160 − 2^32 + 1) = (k − lo) + (−hi)·2^64 + (−lo)·2^128
        // + (k − hi)·2^192, a non-negative 256-bit value (one borrow chain).
        let mut r = [t[0], t[1], t[2], t[3]];
        let mut carry = 0u64;
        for _ in 0..4 {
            let k = r[0];
            let lo = k << 32;
            let hi = k >> 32;
            let (a0, b) = sbb(k, lo, 0);
            let (a1, b) = sbb(0, hi, b);
            let (a2, b) = sbb(0, lo, b);
            let (a3, _) = sbb(k, hi, b);
            // r = (r >> 64) + a; the shifted-in top word is 0 here (the
            // running carry is folded in when the high half is added).
            let (s0, c) = adc(r[1], a0, 0);
            let (s1, c) = adc(r[2], a1, c);
            let (s2, c) = adc(r[3], a2, c);
            let (s3, c) = adc(carry, a3, c);
            r = [s0, s1, s2, s3];
            carry = c;
        }
        // r + carry·2^256 < 2p; add the high half of t.
        let (s0, c) = adc(r[0], t[4], 0);
        let (s1, c) = adc(r[1], t[5], c);
        let (s2, c) = adc(r[2], t[6], c);
        let (s3, c) = adc(r[3], t[7], c);
        final_sub([s0, s1, s2, s3], c + carry, &Self::M)
    }

    /// Assembly on x86-64 (base instruction set: ADD/ADC/SBB/CMOV, so no
    /// run-time detection), the generic Rust code elsewhere.
    #[inline(always)]
    fn mod_add(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        return addsub::add(a, b);
        #[cfg(not(target_arch = "x86_64"))]
        return crate::arith::add_mod(a, b, &P);
    }

    #[inline(always)]
    fn mod_sub(a: &Limbs, b: &Limbs) -> Limbs {
        #[cfg(target_arch = "x86_64")]
        return addsub::sub(a, b);
        #[cfg(not(target_arch = "x86_64"))]
        return crate::arith::sub_mod(a, b, &P);
    }

    /// The interleaved multiplication-free-reduction kernel (below).
    #[inline(always)]
    fn mont_mul_portable(a: &Limbs, b: &Limbs) -> Limbs {
        mont_mul_portable(a, b)
    }

    /// SM2's own MULX/ADX kernels (shift-and-add reduction steps).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mont_mul_adx(t: crate::cpu::Adx, a: &Limbs, b: &Limbs) -> Limbs {
        adx::mont_mul(t, a, b)
    }

    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    fn mont_sqr_adx(t: crate::cpu::Adx, a: &Limbs) -> Limbs {
        adx::mont_sqr(t, a)
    }
}

/// x^(p−2) by an addition chain: 256 squarings and 16 multiplications
/// (the inversion used before safegcd, kept as its reference and for A/B
/// measurements)
/// (the generic 4-bit window needs 256 + 64). p − 2 in binary is
/// 1^31 0 1^128 0^32 1^62 0 1, built from x_k = x^(2^k − 1). Constant time
/// (a fixed sequence of operations); 0 ↦ 0.
#[inline]
pub fn invert_with<B: FpMul>(b: B, x: &Fp) -> Fp {
    let x1 = *x;
    let x2 = b.mul(&b.sqr(&x1), &x1);
    let x3 = b.mul(&b.sqr(&x2), &x1);
    let x6 = b.mul(&b.sqr_n(&x3, 3), &x3);
    let x12 = b.mul(&b.sqr_n(&x6, 6), &x6);
    let x24 = b.mul(&b.sqr_n(&x12, 12), &x12);
    let x30 = b.mul(&b.sqr_n(&x24, 6), &x6);
    let x31 = b.mul(&b.sqr(&x30), &x1);
    let x32 = b.mul(&b.sqr(&x31), &x1);
    // 1^31 0
    let mut t = b.sqr(&x31);
    // 1^128
    for _ in 0..4 {
        t = b.mul(&b.sqr_n(&t, 32), &x32);
    }
    // 0^32
    t = b.sqr_n(&t, 32);
    // 1^62 = 1^32 1^30
    t = b.mul(&b.sqr_n(&t, 32), &x32);
    t = b.mul(&b.sqr_n(&t, 30), &x30);
    // 0 1
    b.mul(&b.sqr_n(&t, 2), &x1)
}

/// The MULX/ADCX/ADOX multiplication.
#[cfg(target_arch = "x86_64")]
pub use crate::arith::Adx as AdxMul;
/// How Fp products and squares are computed (the shared
/// [`crate::arith::MulBackend`]; point formulas and the inversion are
/// written once over it and instantiated per path).
pub use crate::arith::MulBackend as FpMul;
/// The portable multiplication.
pub use crate::arith::Portable as PortableMul;

/// The name of the Fp multiplication in use: "adx" or "portable".
pub fn backend_name() -> &'static str {
    crate::arith::backend_name()
}

/// Evaluates `$body` with `$b` bound to the fastest [`FpMul`] this CPU has.
macro_rules! with_fp_mul {
    (|$b:ident| $body:expr) => {
        $crate::arith::with_mul!(|$b| $body)
    };
}
pub(crate) use with_fp_mul;

/// a/2 mod p (a < p): a + p if a is odd (then even), shifted right by one.
/// Constant time.
#[inline(always)]
pub fn fp_half(a: &Fp) -> Fp {
    #[cfg(target_arch = "x86_64")]
    return Fp::from_mont_limbs(addsub::half(a.mont_limbs()));
    #[cfg(not(target_arch = "x86_64"))]
    return Fp::from_mont_limbs(half_portable(a.mont_limbs()));
}

/// The portable a/2 mod p (reference for the assembly, and non-x86 path).
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline(always)]
pub(crate) fn half_portable(a: &Limbs) -> Limbs {
    let m = crate::arith::mask_from_bit(a[0] & 1);
    let (s0, c) = adc(a[0], P[0] & m, 0);
    let (s1, c) = adc(a[1], P[1] & m, c);
    let (s2, c) = adc(a[2], P[2] & m, c);
    let (s3, c) = adc(a[3], P[3] & m, c);
    [(s0 >> 1) | (s1 << 63), (s1 >> 1) | (s2 << 63), (s2 >> 1) | (s3 << 63), (s3 >> 1) | (c << 63)]
}

/// Addition, subtraction and halving mod p in x86-64 assembly (base
/// instruction set only). Every selection is a CMOV or a mask from SBB/NEG,
/// so there is no branch and no value-dependent address: constant time by
/// construction (and checked by scripts/ctime.sh). The first operand and
/// the result stay in registers; the second operand is read from memory.
#[cfg(target_arch = "x86_64")]
pub(crate) mod addsub {
    use super::P_WORDS;
    use crate::arith::Limbs;

    /// (a + b) mod p for a, b < p: the 257-bit sum, minus p unless that
    /// borrows.
    #[inline(always)]
    pub(crate) fn add(a: &Limbs, b: &Limbs) -> Limbs {
        let [mut r0, mut r1, mut r2, mut r3] = *a;
        // SAFETY: reads the 32 bytes of `b`; every register written is an
        // operand; no stack use; flags clobbered (no preserves_flags).
        unsafe {
            core::arch::asm!(
                "xor {c:e}, {c:e}",
                "add {r0}, [{b}]",
                "adc {r1}, [{b} + 8]",
                "adc {r2}, [{b} + 16]",
                "adc {r3}, [{b} + 24]",
                "adc {c}, 0",
                "mov {t0}, {r0}",
                "mov {t1}, {r1}",
                "mov {t2}, {r2}",
                "mov {t3}, {r3}",
                "sub {t0}, -1",
                "sbb {t1}, [rip + {p} + 8]",
                "sbb {t2}, -1",
                "sbb {t3}, [rip + {p} + 24]",
                "sbb {c}, 0",
                // No borrow: the sum was ≥ p, take the difference.
                "cmovnc {r0}, {t0}",
                "cmovnc {r1}, {t1}",
                "cmovnc {r2}, {t2}",
                "cmovnc {r3}, {t3}",
                r0 = inout(reg) r0,
                r1 = inout(reg) r1,
                r2 = inout(reg) r2,
                r3 = inout(reg) r3,
                b = in(reg) b.as_ptr(),
                p = sym P_WORDS,
                c = out(reg) _,
                t0 = out(reg) _,
                t1 = out(reg) _,
                t2 = out(reg) _,
                t3 = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }

    /// (a − b) mod p for a, b < p: the difference, plus p masked by the
    /// borrow (the mask m itself for the all-ones words, AND with p's other
    /// two words: ports 0/1/5/6, where shifts would take ports 0/6 from the
    /// carry chains).
    #[inline(always)]
    pub(crate) fn sub(a: &Limbs, b: &Limbs) -> Limbs {
        let [mut r0, mut r1, mut r2, mut r3] = *a;
        // SAFETY: as in `add`.
        unsafe {
            core::arch::asm!(
                "xor {m:e}, {m:e}",
                "sub {r0}, [{b}]",
                "sbb {r1}, [{b} + 8]",
                "sbb {r2}, [{b} + 16]",
                "sbb {r3}, [{b} + 24]",
                "sbb {m}, 0",
                "mov {t1}, {m}",
                "and {t1}, [rip + {p} + 8]",
                "mov {t3}, {m}",
                "and {t3}, [rip + {p} + 24]",
                "add {r0}, {m}",
                "adc {r1}, {t1}",
                "adc {r2}, {m}",
                "adc {r3}, {t3}",
                r0 = inout(reg) r0,
                r1 = inout(reg) r1,
                r2 = inout(reg) r2,
                r3 = inout(reg) r3,
                b = in(reg) b.as_ptr(),
                p = sym P_WORDS,
                m = out(reg) _,
                t1 = out(reg) _,
                t3 = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }

    /// a/2 mod p for a < p: a + (p masked by a's low bit), 257 bits,
    /// shifted right by one.
    #[inline(always)]
    pub(crate) fn half(a: &Limbs) -> Limbs {
        let [mut r0, mut r1, mut r2, mut r3] = *a;
        // SAFETY: reads only the static P_WORDS; every register written is
        // an operand; no stack use; flags clobbered.
        unsafe {
            core::arch::asm!(
                "xor {c:e}, {c:e}",
                "mov {m}, {r0}",
                "and {m}, 1",
                "neg {m}",
                "mov {t1}, {m}",
                "and {t1}, [rip + {p} + 8]",
                "mov {t3}, {m}",
                "and {t3}, [rip + {p} + 24]",
                "add {r0}, {m}",
                "adc {r1}, {t1}",
                "adc {r2}, {m}",
                "adc {r3}, {t3}",
                "adc {c}, 0",
                "shrd {r0}, {r1}, 1",
                "shrd {r1}, {r2}, 1",
                "shrd {r2}, {r3}, 1",
                "shrd {r3}, {c}, 1",
                r0 = inout(reg) r0,
                r1 = inout(reg) r1,
                r2 = inout(reg) r2,
                r3 = inout(reg) r3,
                p = sym P_WORDS,
                c = out(reg) _,
                m = out(reg) _,
                t1 = out(reg) _,
                t3 = out(reg) _,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }
}

/// Interleaved (CIOS) multiplication with the same multiplication-free
/// reduction step after each row: a 6-word accumulator instead of an
/// 8-word product keeps everything in registers.
#[inline(always)]
pub(crate) fn mont_mul_portable(a: &Limbs, b: &Limbs) -> Limbs {
    let mut t = [0u64; 5];
    for i in 0..4 {
        let (t0, c) = mac(t[0], a[i], b[0], 0);
        let (t1, c) = mac(t[1], a[i], b[1], c);
        let (t2, c) = mac(t[2], a[i], b[2], c);
        let (t3, c) = mac(t[3], a[i], b[3], c);
        let (t4, t5) = adc(t[4], c, 0);
        // (t + k·p) / 2^64 with k = t0 (see `reduce`).
        let k = t0;
        let lo = k << 32;
        let hi = k >> 32;
        let (a0, br) = sbb(k, lo, 0);
        let (a1, br) = sbb(0, hi, br);
        let (a2, br) = sbb(0, lo, br);
        let (a3, _) = sbb(k, hi, br);
        let (s0, c) = adc(t1, a0, 0);
        let (s1, c) = adc(t2, a1, c);
        let (s2, c) = adc(t3, a2, c);
        let (s3, c) = adc(t4, a3, c);
        t = [s0, s1, s2, s3, t5 + c];
    }
    final_sub([t[0], t[1], t[2], t[3]], t[4], &P)
}

/// p's words in memory, for assembly that reads the two irregular ones
/// as operands (`sbb r, [rip + P_WORDS + 8]`: one fused µop, where a
/// 64-bit immediate would take a MOVABS and a register).
#[cfg(target_arch = "x86_64")]
static P_WORDS: Limbs = P;

/// BMI2 + ADX (MULX/ADCX/ADOX) Montgomery multiplication for SM2's p,
/// selected at run time; the portable Rust code above is the fallback.
#[cfg(target_arch = "x86_64")]
pub(crate) mod adx {
    use super::P_WORDS;
    use crate::arith::Limbs;

    /// a·b·2^−256 mod p for a, b < p: the same interleaved (CIOS) algorithm
    /// as the portable `mont_mul`, bit-for-bit. Each row adds a·b[i] with
    /// two independent carry chains (ADOX for the low product words, ADCX for
    /// the high ones); each reduction step adds k·(p + 1)/2^64 with k = the
    /// low word (−p⁻¹ ≡ 1 mod 2^64) as t += k + k·2^192 − k·2^32 − k·2^160,
    /// i.e. shifts and add/sub chains only; the final subtraction of p is a
    /// borrow chain and CMOVs. No branches, no memory access depending on
    /// the values (only loads of a and b).
    ///
    /// The token proves BMI2 and ADX.
    #[inline(always)]
    pub(crate) fn mont_mul(_: crate::cpu::Adx, a: &Limbs, b: &Limbs) -> Limbs {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // SAFETY: the token proves MULX/ADCX/ADOX exist; `a` and `b`
        // are valid 32-byte reads; every register written is declared as an
        // output or clobber; no stack use; flags are clobbered (no
        // preserves_flags).
        unsafe {
            core::arch::asm!(
                // Row 0: t = a·b[0] (r8..r12), r13 = 0, r15 = 0.
                "mov rdx, [rdi]",
                "mulx r9, r8, [rsi]",
                "mulx r10, rax, [rsi + 8]",
                "add r9, rax",
                "mulx r11, rax, [rsi + 16]",
                "adc r10, rax",
                "mulx r12, rax, [rsi + 24]",
                "adc r11, rax",
                "adc r12, 0",
                "xor r13, r13",
                "xor r15, r15",
                // Shift count for SHLX/SHRX (k·2^32 split into two words).
                "mov r14d, 32",
                // Reduce (k = r8): acc r9..r13.
                "shlx rax, r8, r14", "shrx rcx, r8, r14",
                "add r9, r8", "adc r10, 0", "adc r11, 0", "adc r12, r8", "adc r13, 0",
                "sub r9, rax", "sbb r10, rcx", "sbb r11, rax", "sbb r12, rcx", "sbb r13, 0",
                // Row 1: acc r9..r13, new top r8.
                "mov rdx, [rdi + 8]",
                "xor r8, r8",
                "mulx rcx, rax, [rsi]", "adox r9, rax", "adcx r10, rcx",
                "mulx rcx, rax, [rsi + 8]", "adox r10, rax", "adcx r11, rcx",
                "mulx rcx, rax, [rsi + 16]", "adox r11, rax", "adcx r12, rcx",
                "mulx rcx, rax, [rsi + 24]", "adox r12, rax", "adcx r13, rcx",
                "adox r13, r15", "adcx r8, r15", "adox r8, r15",
                // Reduce (k = r9): acc r10, r11, r12, r13, r8.
                "shlx rax, r9, r14", "shrx rcx, r9, r14",
                "add r10, r9", "adc r11, 0", "adc r12, 0", "adc r13, r9", "adc r8, 0",
                "sub r10, rax", "sbb r11, rcx", "sbb r12, rax", "sbb r13, rcx", "sbb r8, 0",
                // Row 2: acc r10, r11, r12, r13, r8, new top r9.
                "mov rdx, [rdi + 16]",
                "xor r9, r9",
                "mulx rcx, rax, [rsi]", "adox r10, rax", "adcx r11, rcx",
                "mulx rcx, rax, [rsi + 8]", "adox r11, rax", "adcx r12, rcx",
                "mulx rcx, rax, [rsi + 16]", "adox r12, rax", "adcx r13, rcx",
                "mulx rcx, rax, [rsi + 24]", "adox r13, rax", "adcx r8, rcx",
                "adox r8, r15", "adcx r9, r15", "adox r9, r15",
                // Reduce (k = r10): acc r11, r12, r13, r8, r9.
                "shlx rax, r10, r14", "shrx rcx, r10, r14",
                "add r11, r10", "adc r12, 0", "adc r13, 0", "adc r8, r10", "adc r9, 0",
                "sub r11, rax", "sbb r12, rcx", "sbb r13, rax", "sbb r8, rcx", "sbb r9, 0",
                // Row 3: acc r11, r12, r13, r8, r9, new top r10.
                "mov rdx, [rdi + 24]",
                "xor r10, r10",
                "mulx rcx, rax, [rsi]", "adox r11, rax", "adcx r12, rcx",
                "mulx rcx, rax, [rsi + 8]", "adox r12, rax", "adcx r13, rcx",
                "mulx rcx, rax, [rsi + 16]", "adox r13, rax", "adcx r8, rcx",
                "mulx rcx, rax, [rsi + 24]", "adox r8, rax", "adcx r9, rcx",
                "adox r9, r15", "adcx r10, r15", "adox r10, r15",
                // Reduce (k = r11): acc r12, r13, r8, r9, r10.
                "shlx rax, r11, r14", "shrx rcx, r11, r14",
                "add r12, r11", "adc r13, 0", "adc r8, 0", "adc r9, r11", "adc r10, 0",
                "sub r12, rax", "sbb r13, rcx", "sbb r8, rax", "sbb r9, rcx", "sbb r10, 0",
                // Final: (r10:r9:r8:r13:r12) − p; keep the input if it borrows.
                "mov r11, r12", "mov rdx, r13", "mov rax, r8", "mov rcx, r9",
                "sub r11, -1", "sbb rdx, [rip + {p} + 8]", "sbb rax, -1", "sbb rcx, [rip + {p} + 24]", "sbb r10, 0",
                "cmovc r11, r12", "cmovc rdx, r13", "cmovc rax, r8", "cmovc rcx, r9",
                inout("rsi") a.as_ptr() => _,
                inout("rdi") b.as_ptr() => _,
                out("r11") r0,
                out("rdx") r1,
                out("rax") r2,
                out("rcx") r3,
                out("r8") _, out("r9") _, out("r10") _, out("r12") _, out("r13") _, out("r14") _, out("r15") _,
                p = sym P_WORDS,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }

    /// a²·2^−256 mod p for a < p: the full 512-bit square (off-diagonal
    /// products once, doubled, plus the diagonal squares), then four
    /// multiplication-free reduction steps on the low half (each result
    /// fits 256 bits: (r + k·p)/2^64 < 2^192 + p), the high half added
    /// (sum < 2p) and one constant-time subtraction of p. Same result as
    /// the portable `mont_mul(a, a)` (both return the unique
    /// (a² + K·p)/2^256 with K < 2^256, conditionally minus p).
    ///
    /// The token proves BMI2 and ADX.
    #[inline(always)]
    pub(crate) fn mont_sqr(_: crate::cpu::Adx, a: &Limbs) -> Limbs {
        let (r0, r1, r2, r3): (u64, u64, u64, u64);
        // SAFETY: the token proves MULX exists; `a` is a valid 32-byte
        // read; every register written is an output or clobber; no stack
        // use; flags are clobbered (no preserves_flags).
        unsafe {
            core::arch::asm!(
                // Off-diagonal products into r9..r14 (positions 1..6).
                "mov rdx, [rsi]",
                "mulx r10, r9, [rsi + 8]",
                "mulx r11, rax, [rsi + 16]",
                "add r10, rax",
                "mulx r12, rax, [rsi + 24]",
                "adc r11, rax",
                "adc r12, 0",
                "mov rdx, [rsi + 8]",
                "mulx rcx, rax, [rsi + 16]",
                "mulx r13, rdi, [rsi + 24]",
                "add rcx, rdi",
                "adc r13, 0",
                "add r11, rax",
                "adc r12, rcx",
                "adc r13, 0",
                "mov rdx, [rsi + 16]",
                "mulx r14, rax, [rsi + 24]",
                "add r13, rax",
                "adc r14, 0",
                // Double them into r9..r15.
                "xor r15, r15",
                "add r9, r9", "adc r10, r10", "adc r11, r11", "adc r12, r12",
                "adc r13, r13", "adc r14, r14", "adc r15, 0",
                // Add the diagonal squares a[i]² at positions 2i, 2i + 1.
                "mov rdx, [rsi]",
                "mulx rcx, r8, rdx",
                "mov rdx, [rsi + 8]",
                "mulx rdi, rax, rdx",
                "add r9, rcx", "adc r10, rax", "adc r11, rdi",
                "mov rdx, [rsi + 16]",
                "mulx rcx, rax, rdx",
                "adc r12, rax", "adc r13, rcx",
                "mov rdx, [rsi + 24]",
                "mulx rcx, rax, rdx",
                "adc r14, rax", "adc r15, rcx",
                // Shift count for SHLX/SHRX (k·2^32 split into two words;
                // a MULX by 2^32 would take the same µop count but adds
                // three cycles to each step's dependency chain).
                "mov edi, 32",
                // Four reduction steps on the low half r8..r11: with k the
                // low word, r ← (r >> 64) + k + k·2^192 − k·2^32 − k·2^160.
                "shlx rax, r8, rdi", "shrx rcx, r8, rdi",
                "add r9, r8", "adc r10, 0", "adc r11, 0", "adc r8, 0",
                "sub r9, rax", "sbb r10, rcx", "sbb r11, rax", "sbb r8, rcx",
                // low half now r9, r10, r11, r8
                "shlx rax, r9, rdi", "shrx rcx, r9, rdi",
                "add r10, r9", "adc r11, 0", "adc r8, 0", "adc r9, 0",
                "sub r10, rax", "sbb r11, rcx", "sbb r8, rax", "sbb r9, rcx",
                // r10, r11, r8, r9
                "shlx rax, r10, rdi", "shrx rcx, r10, rdi",
                "add r11, r10", "adc r8, 0", "adc r9, 0", "adc r10, 0",
                "sub r11, rax", "sbb r8, rcx", "sbb r9, rax", "sbb r10, rcx",
                // r11, r8, r9, r10
                "shlx rax, r11, rdi", "shrx rcx, r11, rdi",
                "add r8, r11", "adc r9, 0", "adc r10, 0", "adc r11, 0",
                "sub r8, rax", "sbb r9, rcx", "sbb r10, rax", "sbb r11, rcx",
                // r8, r9, r10, r11: add the high half (rdi = carry).
                "xor edi, edi",
                "add r12, r8", "adc r13, r9", "adc r14, r10", "adc r15, r11", "adc rdi, 0",
                // Final: (rdi:r15:r14:r13:r12) − p; keep the input on borrow.
                "mov r8, r12", "mov r9, r13", "mov r10, r14", "mov r11, r15",
                "sub r8, -1", "sbb r9, [rip + {p} + 8]", "sbb r10, -1", "sbb r11, [rip + {p} + 24]", "sbb rdi, 0",
                "cmovc r8, r12", "cmovc r9, r13", "cmovc r10, r14", "cmovc r11, r15",
                inout("rsi") a.as_ptr() => _,
                out("r8") r0,
                out("r9") r1,
                out("r10") r2,
                out("r11") r3,
                out("rax") _, out("rcx") _, out("rdx") _, out("rdi") _,
                out("r12") _, out("r13") _, out("r14") _, out("r15") _,
                p = sym P_WORDS,
                options(pure, readonly, nostack),
            );
        }
        [r0, r1, r2, r3]
    }
}

/// n, the order of the base point G.
#[derive(Clone, Copy, Debug)]
pub struct Sm2N;

impl Modulus for Sm2N {
    const M: Limbs = [0x53bb_f409_39d5_4123, 0x7203_df6b_21c6_052b, 0xffff_ffff_ffff_ffff, 0xffff_fffe_ffff_ffff];
}

/// An element of the SM2 base field, Montgomery form.
pub type Fp = Fe<Sm2P>;
/// A scalar mod n, Montgomery form.
pub type Fn = Fe<Sm2N>;

/// p as limbs.
pub const P: Limbs = <Sm2P as Modulus>::M;
/// n as limbs.
pub const N: Limbs = <Sm2N as Modulus>::M;

/// Curve coefficient b (a = −3), canonical big-endian.
pub const B_BYTES: [u8; 32] = hex32("28e9fa9e9d9f5e344d5a9e4bcf6509a7f39789f515ab8f92ddbcbd414d940e93");
/// Curve coefficient a = p − 3, canonical big-endian (for Z).
pub const A_BYTES: [u8; 32] = hex32("fffffffeffffffffffffffffffffffffffffffff00000000fffffffffffffffc");
/// Base point G, canonical big-endian coordinates.
pub const GX_BYTES: [u8; 32] = hex32("32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7");
pub const GY_BYTES: [u8; 32] = hex32("bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0");

/// Square root in Fp (p ≡ 3 mod 4): a^((p+1)/4); `None` if a is a non-residue.
pub fn sqrt_vartime(a: &Fp) -> Option<Fp> {
    // (p + 1) / 4
    const E: Limbs = [0x4000_0000_0000_0000, 0xffff_ffff_c000_0000, 0xffff_ffff_ffff_ffff, 0x3fff_ffff_bfff_ffff];
    let r = a.pow_public_exp(&E);
    if bool::from(subtle::ConstantTimeEq::ct_eq(&r.square(), a)) {
        Some(r)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a deterministic test-only generator.
    fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Edge values: 0, 1, small, p − 1, p − 2, and (representation
    /// permitting only < p, but both paths run the same algorithm, so they
    /// must agree bit-for-bit on any 256-bit input) p, p + 1, 2^256 − 1 and
    /// words at their extremes.
    fn edge_values() -> Vec<Limbs> {
        let m = u64::MAX;
        vec![
            [0, 0, 0, 0],
            [1, 0, 0, 0],
            [2, 0, 0, 0],
            [m, 0, 0, 0],
            [0, 0, 0, 1 << 63],
            [m, m, m, 0],
            crate::arith::sub_limbs(&P, &[1, 0, 0, 0]).0,
            crate::arith::sub_limbs(&P, &[2, 0, 0, 0]).0,
            [m, 0xffff_ffff_0000_0000, m, 0xffff_fffe_ffff_fffe],
            [0, 0xffff_ffff_0000_0000, m, 0xffff_fffe_ffff_ffff],
            P,
            crate::arith::add_limbs(&P, &[1, 0, 0, 0]).0,
            [m, m, m, m],
            [0, 0, 0, m],
            [m, 0, m, 0],
            [0, m, 0, m],
        ]
    }

    fn random_values(count: usize, seed: u64) -> Vec<Limbs> {
        let mut s = seed;
        (0..count)
            .map(|i| {
                let mut v = [next(&mut s), next(&mut s), next(&mut s), next(&mut s)];
                // Half of them reduced below p (the values the code base
                // actually produces), the rest any 256-bit value.
                if i % 2 == 0 {
                    v = crate::arith::reduce_once(&v, &P);
                }
                v
            })
            .collect()
    }

    /// The portable multiplication against an independent reduction (the
    /// generic word-by-word Montgomery reduction of the full product).
    #[test]
    fn portable_mul_matches_generic_montgomery() {
        let m_inv = crate::arith::neg_inv64(P[0]);
        let mut vals = edge_values();
        vals.extend(random_values(200, 1));
        for a in vals.iter().map(|v| crate::arith::reduce_once(v, &P)) {
            for b in vals.iter().take(40).map(|v| crate::arith::reduce_once(v, &P)) {
                let wide = crate::arith::mul_wide(&a, &b);
                assert_eq!(mont_mul_portable(&a, &b), crate::arith::mont_reduce_generic(&wide, &P, m_inv));
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn adx_mul_matches_portable() {
        let Some(AdxMul(t)) = AdxMul::get() else {
            eprintln!("no BMI2+ADX on this CPU: assembly path not testable here");
            return;
        };
        let mut vals = edge_values();
        vals.extend(random_values(2000, 2));
        for (i, a) in vals.iter().enumerate() {
            // Every edge value against every value, random values pairwise
            // with a sliding partner, and every square.
            let sq = adx::mont_sqr(t, a);
            if crate::arith::lt(a, &P) == 1 {
                // The square's bound (high half < p) needs a < p.
                assert_eq!(sq, mont_mul_portable(a, a), "square of {a:x?}");
            }
            assert_eq!(adx::mont_mul(t, a, a), mont_mul_portable(a, a), "a·a for {a:x?}");
            let partners: Vec<&Limbs> =
                if i < 16 { vals.iter().collect() } else { vals.iter().skip(i % 97).step_by(97).collect() };
            for b in partners {
                let got = adx::mont_mul(t, a, b);
                assert_eq!(got, mont_mul_portable(a, b), "{a:x?} · {b:x?}");
            }
        }
    }

    /// Values below p: every edge value reduced, and random ones.
    fn reduced_values(count: usize, seed: u64) -> Vec<Limbs> {
        let mut vals: Vec<Limbs> = edge_values().iter().map(|v| crate::arith::reduce_once(v, &P)).collect();
        vals.extend(random_values(count, seed).iter().map(|v| crate::arith::reduce_once(v, &P)));
        vals
    }

    /// The assembly add/sub/half against the generic Rust code (add_mod,
    /// sub_mod) and an independent check of halving (2·(a/2) = a).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn asm_add_sub_half_match_portable() {
        let vals = reduced_values(400, 4);
        for (i, a) in vals.iter().enumerate() {
            let partners: Vec<&Limbs> =
                if i < 16 { vals.iter().collect() } else { vals.iter().skip(i % 31).step_by(31).collect() };
            for b in partners {
                assert_eq!(addsub::add(a, b), crate::arith::add_mod(a, b, &P), "{a:x?} + {b:x?}");
                assert_eq!(addsub::sub(a, b), crate::arith::sub_mod(a, b, &P), "{a:x?} - {b:x?}");
            }
            let h = addsub::half(a);
            assert_eq!(h, half_portable(a), "half {a:x?}");
            assert_eq!(crate::arith::lt(&h, &P), 1);
            assert_eq!(crate::arith::add_mod(&h, &h, &P), *a, "2·(a/2) for {a:x?}");
        }
    }

    #[test]
    fn portable_half_doubles_back() {
        for a in reduced_values(200, 5) {
            let h = half_portable(&a);
            assert_eq!(crate::arith::lt(&h, &P), 1);
            assert_eq!(crate::arith::add_mod(&h, &h, &P), a);
        }
    }

    /// The inversion chain with either multiplication path, against the
    /// generic Fermat power x^(p−2) (4-bit window) and x·x⁻¹ = 1.
    #[test]
    fn invert_paths_match_fermat() {
        let mut vals = reduced_values(50, 6);
        vals.push([0; 4]);
        for a in vals {
            let x = Fp::from_mont_limbs(a);
            let want = x.pow_public_exp(&<Sm2P as Modulus>::M_MINUS_2);
            assert_eq!(*invert_with(PortableMul, &x).mont_limbs(), *want.mont_limbs());
            // The library's inversion (safegcd) too, and mod n.
            assert_eq!(*x.invert().mont_limbs(), *want.mont_limbs());
            let y = Fn::from_limbs_reduce(&a);
            assert_eq!(*y.invert().mont_limbs(), *y.pow_public_exp(&<Sm2N as Modulus>::M_MINUS_2).mont_limbs());
            #[cfg(target_arch = "x86_64")]
            if let Some(b) = AdxMul::get() {
                assert_eq!(*invert_with(b, &x).mont_limbs(), *want.mont_limbs());
            }
            if !bool::from(x.is_zero()) {
                assert_eq!(x.invert().mul(&x).to_canonical(), [1, 0, 0, 0]);
            }
        }
    }

    /// The dispatching `Fp` operations (assembly on this CPU) agree with the
    /// portable field code: products, squares and an inversion round trip.
    #[test]
    fn fp_ops_match_portable() {
        for a in random_values(300, 3).iter().map(|v| crate::arith::reduce_once(v, &P)) {
            let x = Fp::from_mont_limbs(a);
            assert_eq!(*x.square().mont_limbs(), Sm2P::reduce(&crate::arith::sqr_wide(&a)));
            let y = Fp::from_mont_limbs(crate::arith::reduce_once(&[a[3], a[0], a[1], a[2]], &P));
            assert_eq!(*x.mul(&y).mont_limbs(), mont_mul_portable(&a, y.mont_limbs()));
            if !bool::from(x.is_zero()) {
                assert_eq!(x.invert().mul(&x).to_canonical(), [1, 0, 0, 0]);
            }
        }
    }
}
