//! SM2's p in x86-64 assembly: addition, subtraction and halving (base
//! instruction set) and the MULX/ADCX/ADOX Montgomery multiplication and
//! squaring with the shift-and-add reduction (−p⁻¹ ≡ 1 mod 2^64). Each is
//! checked against the portable code in `field::tests`.

/// p's words in memory, for assembly that reads the two irregular ones
/// as operands (`sbb r, [rip + P_WORDS + 8]`: one fused µop, where a
/// 64-bit immediate would take a MOVABS and a register).
static P_WORDS: crate::arith::Limbs = super::P;

/// BMI2 + ADX (MULX/ADCX/ADOX) Montgomery multiplication for SM2's p,
/// selected through the `cpu::Adx` token; the portable code is the fallback.
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

/// Addition, subtraction and halving mod p in x86-64 assembly (base
/// instruction set only). Every selection is a CMOV or a mask from SBB/NEG,
/// so there is no branch and no value-dependent address: constant time by
/// construction (and checked by tests/ctgrind.rs). The first operand and
/// the result stay in registers; the second operand is read from memory.
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
