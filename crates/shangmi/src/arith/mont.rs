//! Montgomery multiplication backends for any odd 256-bit modulus.
//!
//! # How an algorithm selects the path
//!
//! A [`MulBackend`] computes products and squares of [`Fe<M>`] for every
//! [`Modulus`] `M`. Two exist: [`Portable`] (any CPU) and, on x86-64,
//! [`Adx`] (MULX/ADCX/ADOX; a value exists only when [`crate::cpu::Adx`]
//! was obtained, so under `SHANGMI_CPU_DISABLE=adx` or `bmi2` only the
//! portable one is ever built). Code that does many products — a point
//! formula, an inversion chain, a Miller loop — is written once, generic
//! over `B: MulBackend`, and called through `crate::arith::with_mul!`:
//!
//! ```ignore
//! fn double<B: MulBackend>(b: B, p: &G1) -> G1 { let zz = b.sqr(&p.z); ... }
//! let r = with_mul!(|b| double(b, &p));
//! ```
//!
//! The CPU check then happens once per operation and each instantiation is
//! compiled without the other path's code in its way. The plain
//! [`Fe::mul`]/[`Fe::square`] methods dispatch per product (one cached
//! check); they are right for code that does a handful of products.
//!
//! A modulus gets the generic full-carry kernels (no spare top bit needed:
//! SM9's p and n have theirs set) without writing anything; a modulus with
//! a special form (SM2's p, where −p⁻¹ ≡ 1 mod 2^64) overrides
//! [`Modulus::mont_mul_portable`], [`Modulus::mont_mul_adx`] and the
//! squaring counterparts, and every caller above picks the override up.

#[cfg(target_arch = "x86_64")]
use super::Limbs;
use super::{Fe, Modulus};
#[cfg(target_arch = "x86_64")]
use std::sync::OnceLock;

/// How field products and squares are computed; implemented by
/// [`Portable`] and [`Adx`]. All methods are constant time.
pub trait MulBackend: Copy + core::fmt::Debug + Send + Sync + 'static {
    /// a·b (both in Montgomery form, below M).
    fn mul<M: Modulus>(self, a: &Fe<M>, b: &Fe<M>) -> Fe<M>;
    /// a².
    fn sqr<M: Modulus>(self, a: &Fe<M>) -> Fe<M>;
    /// a^(2^n).
    #[inline(always)]
    fn sqr_n<M: Modulus>(self, a: &Fe<M>, n: usize) -> Fe<M> {
        let mut x = *a;
        for _ in 0..n {
            x = self.sqr(&x);
        }
        x
    }
    /// The backend's name as reported by `shangmi::backends()`.
    fn name(self) -> &'static str;
}

/// The portable Rust multiplication (any CPU).
#[derive(Clone, Copy, Debug)]
pub struct Portable;

impl MulBackend for Portable {
    #[inline(always)]
    fn mul<M: Modulus>(self, a: &Fe<M>, b: &Fe<M>) -> Fe<M> {
        Fe::from_mont_limbs(M::mont_mul_portable(a.mont_limbs(), b.mont_limbs()))
    }
    #[inline(always)]
    fn sqr<M: Modulus>(self, a: &Fe<M>) -> Fe<M> {
        Fe::from_mont_limbs(M::mont_sqr_portable(a.mont_limbs()))
    }
    fn name(self) -> &'static str {
        "portable-64"
    }
}

/// The MULX/ADCX/ADOX kernels; holding one proves the CPU has BMI2 and ADX
/// (and that they are not masked), which makes its methods safe.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
pub struct Adx(pub crate::cpu::Adx);

#[cfg(target_arch = "x86_64")]
impl Adx {
    /// `Some` iff the CPU has BMI2 and ADX and neither is masked (checked
    /// once per process, then one atomic load).
    #[inline(always)]
    pub fn get() -> Option<Self> {
        static TOKEN: OnceLock<Option<crate::cpu::Adx>> = OnceLock::new();
        TOKEN.get_or_init(<crate::cpu::Adx as crate::cpu::Token>::get).map(Adx)
    }
}

#[cfg(target_arch = "x86_64")]
impl MulBackend for Adx {
    #[inline(always)]
    fn mul<M: Modulus>(self, a: &Fe<M>, b: &Fe<M>) -> Fe<M> {
        Fe::from_mont_limbs(M::mont_mul_adx(self.0, a.mont_limbs(), b.mont_limbs()))
    }
    #[inline(always)]
    fn sqr<M: Modulus>(self, a: &Fe<M>) -> Fe<M> {
        Fe::from_mont_limbs(M::mont_sqr_adx(self.0, a.mont_limbs()))
    }
    fn name(self) -> &'static str {
        "mulx-64"
    }
}

/// The name of the backend `with_mul!` picks on this CPU under the mask.
pub fn backend_name() -> &'static str {
    with_mul!(|b| b.name())
}

/// Evaluates `$body` with `$b` bound to the fastest [`MulBackend`] this CPU
/// has (the body is compiled once per backend).
macro_rules! with_mul {
    (|$b:ident| $body:expr) => {{
        #[cfg(target_arch = "x86_64")]
        let r = match $crate::arith::Adx::get() {
            Some($b) => $body,
            None => {
                let $b = $crate::arith::Portable;
                $body
            }
        };
        #[cfg(not(target_arch = "x86_64"))]
        let r = {
            let $b = $crate::arith::Portable;
            $body
        };
        r
    }};
}
pub(crate) use with_mul;

/// One CIOS row on accumulator registers t0..t4 (t4 ≤ 1) with rdx = b[i]
/// and t5 = 0: t += a·b[i] (ADOX chain for the low product words, ADCX for
/// the high ones), then t += k·M with k = t0·(−M⁻¹) mod 2^64, after which t0
/// is zero and (t1..t5) is the row's result (< 2M, so t5 ≤ 1).
/// Fixed registers: rsi = a, r8 = [M0, M1, M2, M3, −M⁻¹], r9 = zero.
#[cfg(target_arch = "x86_64")]
macro_rules! cios_row {
    ($t0:literal, $t1:literal, $t2:literal, $t3:literal, $t4:literal, $t5:literal) => {
        concat!(
            "xor r9d, r9d\n",
            "mulx rcx, rax, [rsi]\n",
            "adox ",
            $t0,
            ", rax\n",
            "adcx ",
            $t1,
            ", rcx\n",
            "mulx rcx, rax, [rsi + 8]\n",
            "adox ",
            $t1,
            ", rax\n",
            "adcx ",
            $t2,
            ", rcx\n",
            "mulx rcx, rax, [rsi + 16]\n",
            "adox ",
            $t2,
            ", rax\n",
            "adcx ",
            $t3,
            ", rcx\n",
            "mulx rcx, rax, [rsi + 24]\n",
            "adox ",
            $t3,
            ", rax\n",
            "adcx ",
            $t4,
            ", rcx\n",
            "adox ",
            $t4,
            ", r9\n",
            "adcx ",
            $t5,
            ", r9\n",
            "adox ",
            $t5,
            ", r9\n",
            "mov rdx, ",
            $t0,
            "\n",
            "mulx rcx, rdx, [r8 + 32]\n",
            "xor r9d, r9d\n",
            "mulx rcx, rax, [r8]\n",
            "adox ",
            $t0,
            ", rax\n",
            "adcx ",
            $t1,
            ", rcx\n",
            "mulx rcx, rax, [r8 + 8]\n",
            "adox ",
            $t1,
            ", rax\n",
            "adcx ",
            $t2,
            ", rcx\n",
            "mulx rcx, rax, [r8 + 16]\n",
            "adox ",
            $t2,
            ", rax\n",
            "adcx ",
            $t3,
            ", rcx\n",
            "mulx rcx, rax, [r8 + 24]\n",
            "adox ",
            $t3,
            ", rax\n",
            "adcx ",
            $t4,
            ", rcx\n",
            "adox ",
            $t4,
            ", r9\n",
            "adcx ",
            $t5,
            ", r9\n",
            "adox ",
            $t5,
            ", r9\n",
        )
    };
}

/// a·b·2^−256 mod M for a, b < M and any odd M < 2^256 (`m` = the modulus
/// words followed by −M⁻¹ mod 2^64, [`Modulus::WORDS`]). Interleaved (CIOS)
/// rows with a sixth accumulator word, so the top bit of M may be set; the
/// result is the same canonical value as [`super::mont_reduce_generic`] of
/// the full product. No branch and no value-dependent address: the final
/// subtraction is a borrow chain and CMOVs.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub fn mont_mul_adx(_: crate::cpu::Adx, a: &Limbs, b: &Limbs, m: &'static [u64; 5]) -> Limbs {
    let (r0, r1, r2, r3): (u64, u64, u64, u64);
    // SAFETY: the token proves MULX/ADCX/ADOX exist; `a`, `b` (32 bytes)
    // and `m` (40 bytes) are valid reads; every register written is an
    // output or a clobber; no stack use; flags clobbered (no
    // preserves_flags). Registers rotate: after row i the freed register
    // (the old t0) is zero, and it becomes the next row's t5.
    unsafe {
        core::arch::asm!(
            "xor r10d, r10d", "xor r11d, r11d", "xor r12d, r12d",
            "xor r13d, r13d", "xor r14d, r14d", "xor r15d, r15d",
            "mov rdx, [rdi]",
            cios_row!("r10", "r11", "r12", "r13", "r14", "r15"),
            "mov rdx, [rdi + 8]",
            cios_row!("r11", "r12", "r13", "r14", "r15", "r10"),
            "mov rdx, [rdi + 16]",
            cios_row!("r12", "r13", "r14", "r15", "r10", "r11"),
            "mov rdx, [rdi + 24]",
            cios_row!("r13", "r14", "r15", "r10", "r11", "r12"),
            // (r12:r11:r10:r15:r14) < 2M: subtract M, keep the input on borrow.
            "mov rax, r14", "mov rcx, r15", "mov rdx, r10", "mov r13, r11",
            "sub rax, [r8]", "sbb rcx, [r8 + 8]", "sbb rdx, [r8 + 16]", "sbb r13, [r8 + 24]", "sbb r12, 0",
            "cmovc rax, r14", "cmovc rcx, r15", "cmovc rdx, r10", "cmovc r13, r11",
            in("rsi") a.as_ptr(),
            in("rdi") b.as_ptr(),
            in("r8") m.as_ptr(),
            out("rax") r0,
            out("rcx") r1,
            out("rdx") r2,
            out("r13") r3,
            out("r9") _, out("r10") _, out("r11") _, out("r12") _, out("r14") _, out("r15") _,
            options(pure, readonly, nostack),
        );
    }
    [r0, r1, r2, r3]
}
