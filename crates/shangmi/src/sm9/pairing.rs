//! The R-ate pairing e: G1 × G2 → GT of GM/T 0044:
//! e(P, Q) = (f_{a,Q}(P) · l_{aQ,π(Q)}(P) · l_{aQ+π(Q),−π²(Q)}(P))^((p¹²−1)/n)
//! with a = 6t + 2, computed by a projective Miller loop (no inversions)
//! whose lines are sparse: with ψ(x, y) = (x·w⁻², y·w⁻³), each line times
//! w³ (an Fp4 factor the final exponentiation removes) is
//! l0 + l1·yP·v + l2·xP·w² with l0, l1, l2 ∈ Fp2 depending only on Q.
//! [`G2Prepared`] stores those coefficients for a fixed Q.

use super::final_exp::final_exponentiation;
use super::fp12::Fp12;
use super::fp2::Fp2;
use super::g1::G1Affine;
use super::g2::{self, G2Affine};
use zeroize::Zeroize;

#[cfg(target_arch = "x86_64")]
pub mod ifma;

/// The loop constant a = 6t + 2 = 0x2400000000215D93E (a test checks it against t).
pub const ATE_LOOP: u128 = 0x2400000000215D93E;

/// The non-adjacent form of a, least significant digit first: 11 non-zero
/// digits against a's 16 set bits, so five addition steps (and five lines
/// of every prepared point) fewer; a −1 digit adds −Q (y negated, free).
/// `tests::ate_naf_is_the_loop_constant` checks it sums to a.
pub const ATE_NAF: [i8; 68] = crate::arith::naf_const::<68>(ATE_LOOP);

/// Index of ATE_NAF's top digit (1, where a's top bit is: 65).
pub const ATE_NAF_TOP: usize = {
    let mut i = 67;
    while ATE_NAF[i] == 0 {
        i -= 1;
    }
    i
};

/// Number of non-zero digits below the top one (the addition steps).
const ATE_NAF_ADDS: usize = {
    let mut c = 0;
    let mut i = 0;
    while i < ATE_NAF_TOP {
        if ATE_NAF[i] != 0 {
            c += 1;
        }
        i += 1;
    }
    c
};

/// b'·x for the twist's b' = 5u: 5u(x0 + x1u) = −10x1 + 5x0·u, additions
/// only (a full Fp2 product by the constant cost three Fp products).
#[inline(always)]
pub fn mul_by_twist_b(x: &Fp2) -> Fp2 {
    let m = x.mul_u();
    m.double().double().add(&m)
}

/// One line's coefficients: the line at P is l0 + (l1·yP)·v + (l2·xP)·w².
#[derive(Clone, Copy, Debug, Default)]
pub struct Line {
    pub l0: Fp2,
    pub l1: Fp2,
    pub l2: Fp2,
}

impl Zeroize for Line {
    fn zeroize(&mut self) {
        self.l0.zeroize();
        self.l1.zeroize();
        self.l2.zeroize();
    }
}

/// T = (X : Y : Z) homogeneous on the twist (x = X/Z, y = Y/Z).
#[derive(Clone, Copy)]
pub(super) struct Proj {
    pub(super) x: Fp2,
    pub(super) y: Fp2,
    pub(super) z: Fp2,
}

/// Doubling step: T ← 2T and the tangent line (Costello–Lange–Naehrig form,
/// scaled by 4 to avoid halving): l = (Y² − 3b'Z²) + 2YZ·yP·v − 3X²·xP·w².
#[inline(always)]
pub(super) fn double_step(t: &mut Proj) -> Line {
    let b = t.y.square();
    let c = t.z.square();
    let e = mul_by_twist_b(&c.double().add(&c)); // 3b'Z²
    let f = e.double().add(&e); // 9b'Z²
    let h = t.y.add(&t.z).square().sub(&b).sub(&c); // 2YZ
    let xx = t.x.square();
    let line = Line { l0: b.sub(&e), l1: h, l2: xx.double().add(&xx).neg() };
    let xy = t.x.mul(&t.y);
    // X3 = 2XY(Y² − 9b'Z²), Y3 = (Y² + 9b'Z²)² − 12(3b'Z²)², Z3 = 4Y²·2YZ.
    let x3 = xy.mul(&b.sub(&f)).double();
    let e2 = e.square();
    let y3 = b.add(&f).square().sub(&e2.double().add(&e2).double().double());
    let z3 = b.mul(&h).double().double();
    *t = Proj { x: x3, y: y3, z: z3 };
    line
}

/// Mixed addition step: T ← T + Q (Q affine) and the chord through them:
/// with θ = Y − yQ·Z, λ = X − xQ·Z, l = (θ·xQ − λ·yQ) + λ·yP·v − θ·xP·w².
#[inline(always)]
pub(super) fn add_step(t: &mut Proj, q: &G2Affine) -> Line {
    let theta = t.y.sub(&q.y.mul(&t.z));
    let lambda = t.x.sub(&q.x.mul(&t.z));
    let c = theta.square();
    let d = lambda.square();
    let e = lambda.mul(&d);
    let f = t.z.mul(&c);
    let g = t.x.mul(&d);
    let h = e.add(&f).sub(&g.double());
    let x3 = lambda.mul(&h);
    let y3 = theta.mul(&g.sub(&h)).sub(&t.y.mul(&e));
    let z3 = t.z.mul(&e);
    let line = Line { l0: theta.mul(&q.x).sub(&lambda.mul(&q.y)), l1: lambda, l2: theta.neg() };
    *t = Proj { x: x3, y: y3, z: z3 };
    line
}

/// Every line of the Miller loop for Q, in the order the loop uses them
/// (for each NAF digit below the top: a doubling line, then an addition
/// line with ±Q if the digit is non-zero; then the two Frobenius lines).
pub fn lines(q: &G2Affine) -> Vec<Line> {
    let mut out = Vec::with_capacity(LINE_COUNT);
    let mut t = Proj { x: q.x, y: q.y, z: Fp2::ONE };
    let nq = q.neg();
    for i in (0..ATE_NAF_TOP).rev() {
        out.push(double_step(&mut t));
        match ATE_NAF[i] {
            1 => out.push(add_step(&mut t, q)),
            -1 => out.push(add_step(&mut t, &nq)),
            _ => {}
        }
    }
    let q1 = g2::frobenius(q);
    let q2 = g2::frobenius2(q).neg();
    out.push(add_step(&mut t, &q1));
    out.push(add_step(&mut t, &q2));
    out
}

/// Number of lines: one per doubling (one per digit below the top, 65), one
/// per non-zero digit below the top (10), two Frobenius lines.
pub const LINE_COUNT: usize = ATE_NAF_TOP + ATE_NAF_ADDS + 2;

#[inline(always)]
fn eval(f: &Fp12, l: &Line, p: &G1Affine) -> Fp12 {
    f.mul_by_line(&l.l0, &l.l1.mul_fp(&p.y), &l.l2.mul_fp(&p.x))
}

/// Precomputed Miller-loop lines of a fixed G2 point.
#[derive(Clone, Debug)]
pub struct G2Prepared {
    pub(crate) lines: Vec<Line>,
}

impl G2Prepared {
    pub fn new(q: &G2Affine) -> Self {
        G2Prepared { lines: lines(q) }
    }

    /// Bytes held by the lines.
    pub fn memory(&self) -> usize {
        self.lines.len() * core::mem::size_of::<Line>()
    }
}

impl Drop for G2Prepared {
    fn drop(&mut self) {
        // A user's private key's lines are as secret as the key.
        self.lines.zeroize();
    }
}

/// The Miller loop of several pairs sharing one chain of squarings:
/// Π f_i before the final exponentiation. Constant time in the points.
/// On the IFMA lanes when the CPU has them ([`super::pairing_ifma`]).
pub fn multi_miller_loop_prepared(pairs: &[(&G1Affine, &G2Prepared)]) -> Fp12 {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
        return ifma::multi_miller_loop_prepared(t, pairs);
    }
    multi_miller_loop_prepared_scalar(pairs)
}

/// [`multi_miller_loop_prepared`] on the scalar tower.
pub fn multi_miller_loop_prepared_scalar(pairs: &[(&G1Affine, &G2Prepared)]) -> Fp12 {
    let mut f = Fp12::ONE;
    let mut idx = 0;
    let top = ATE_NAF_TOP;
    for i in (0..top).rev() {
        if i != top - 1 {
            f = f.square();
        }
        for (p, q) in pairs {
            f = eval(&f, &q.lines[idx], p);
        }
        idx += 1;
        if ATE_NAF[i] != 0 {
            for (p, q) in pairs {
                f = eval(&f, &q.lines[idx], p);
            }
            idx += 1;
        }
    }
    for _ in 0..2 {
        for (p, q) in pairs {
            f = eval(&f, &q.lines[idx], p);
        }
        idx += 1;
    }
    f
}

/// The Miller loop for one pair, computing lines on the fly; on the IFMA
/// lanes when the CPU has them.
pub fn miller_loop(p: &G1Affine, q: &G2Affine) -> Fp12 {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
        return ifma::miller_loop(t, p, q);
    }
    miller_loop_scalar(p, q)
}

/// [`miller_loop`] on the scalar tower.
pub fn miller_loop_scalar(p: &G1Affine, q: &G2Affine) -> Fp12 {
    let mut f = Fp12::ONE;
    let mut t = Proj { x: q.x, y: q.y, z: Fp2::ONE };
    let nq = q.neg();
    let top = ATE_NAF_TOP;
    for i in (0..top).rev() {
        if i != top - 1 {
            f = f.square();
        }
        let l = double_step(&mut t);
        f = eval(&f, &l, p);
        if ATE_NAF[i] != 0 {
            let l = add_step(&mut t, if ATE_NAF[i] == 1 { q } else { &nq });
            f = eval(&f, &l, p);
        }
    }
    let q1 = g2::frobenius(q);
    let q2 = g2::frobenius2(q).neg();
    let l = add_step(&mut t, &q1);
    f = eval(&f, &l, p);
    let l = add_step(&mut t, &q2);
    eval(&f, &l, p)
}

/// e(P, Q).
pub fn pairing(p: &G1Affine, q: &G2Affine) -> Fp12 {
    final_exponentiation(&miller_loop(p, q))
}

/// e(P, Q) with Q's lines precomputed.
pub fn pairing_prepared(p: &G1Affine, q: &G2Prepared) -> Fp12 {
    final_exponentiation(&multi_miller_loop_prepared(&[(p, q)]))
}

/// Π e(P_i, Q_i) with one shared Miller loop and one final exponentiation.
pub fn multi_pairing_prepared(pairs: &[(&G1Affine, &G2Prepared)]) -> Fp12 {
    final_exponentiation(&multi_miller_loop_prepared(pairs))
}
