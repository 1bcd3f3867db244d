//! The final exponentiation f^((p¹²−1)/n), split as
//! (p⁶ − 1)(p² + 1) (the easy part: a conjugation, one inversion, two
//! Frobenius maps) times (p⁴ − p² + 1)/n (the hard part), the latter as
//! λ0 + λ1·p + λ2·p² + λ3·p³ with λ3 = 1, λ2 = 6t² + 1,
//! λ1 = −36t³ − 18t² − 12t + 1, λ0 = −36t³ − 30t² − 18t − 2
//! (Scott–Benger–Charlemagne–Dominguez Perez–Kachisa's addition chain:
//! three exponentiations by t in the cyclotomic subgroup, where squaring
//! is Granger–Scott's and inversion is conjugation). A test checks the
//! whole against plain exponentiation by (p¹²−1)/n.

use super::fp::T;
use super::fp12::Fp12;
use super::fp2::Fp2;
use super::fp4::Fp4;
use subtle::ConditionallySelectable;

#[cfg(target_arch = "x86_64")]
pub mod ifma;

/// The non-adjacent form of t, least significant digit first: digits in
/// {−1, 0, 1}, no two adjacent non-zero (fewer multiplications than t's
/// binary form; a negative digit costs a conjugation, free in the
/// cyclotomic subgroup). `tests::t_naf_is_t` checks it sums to t.
pub const T_NAF: [i8; 66] = crate::arith::naf_const::<66>(T as u128);

/// Index of T_NAF's top non-zero digit.
pub(super) const T_NAF_TOP: usize = {
    let mut i = 65;
    while T_NAF[i] == 0 {
        i -= 1;
    }
    i
};

/// x^t for x in the cyclotomic subgroup (t is public: square-and-multiply
/// over t's NAF, x⁻¹ = x̄). The runs of squarings between non-zero digits
/// go through [`square_run`] (t's NAF has one run of 38, which Karabina's
/// compressed squaring takes; the others are short).
pub fn exp_by_t(x: &Fp12) -> Fp12 {
    let xi = x.conj();
    let mut acc = *x;
    let mut pending = 0;
    for i in (0..T_NAF_TOP).rev() {
        pending += 1;
        if T_NAF[i] != 0 {
            acc = square_run(&acc, pending);
            pending = 0;
            acc = acc.mul(if T_NAF[i] == 1 { x } else { &xi });
        }
    }
    square_run(&acc, pending)
}

/// [`exp_by_t`] with Granger–Scott squarings only: the plain twin the
/// tests compare the compressed runs against.
pub fn exp_by_t_plain(x: &Fp12) -> Fp12 {
    let xi = x.conj();
    let mut acc = *x;
    for i in (0..T_NAF_TOP).rev() {
        acc = acc.cyclotomic_square();
        match T_NAF[i] {
            1 => acc = acc.mul(x),
            -1 => acc = acc.mul(&xi),
            _ => {}
        }
    }
    acc
}

/// Shortest run of squarings worth compressing: a decompression costs an
/// Fp2 inversion (one constant-time Fp inversion) and about ten Fp2
/// products, a compressed square saves three Fp2 squares and a third of
/// the additions of a Granger–Scott one.
const KARABINA_MIN_RUN: usize = 12;

/// x^(2^n) for x in the cyclotomic subgroup; n is public (from t).
fn square_run(x: &Fp12, n: usize) -> Fp12 {
    if n >= KARABINA_MIN_RUN {
        let mut c = Compressed::of(x);
        for _ in 0..n {
            c = c.square();
        }
        c.decompress()
    } else {
        let mut acc = *x;
        for _ in 0..n {
            acc = acc.cyclotomic_square();
        }
        acc
    }
}

/// Karabina's compressed form of a cyclotomic element ("Squaring in
/// cyclotomic subgroups", Math. Comp. 82, 2013): with Fp12 = Fp2[W]/(W⁶ − u)
/// (W = w, coefficient of W^(i+3j) = c_i.c_j here), x = Σ g_k W^k is
/// determined by (g1, g2, g3, g5) = the coefficients of W², W⁴, W, W⁵, and
/// squaring in that form costs six Fp2 squares. The coefficient naming is
/// gnark-crypto's (`CyclotomicSquareCompressed`, `DecompressKarabina`);
/// the formulas were checked against plain squaring in a Python model
/// before being written here, and `tests::karabina_*` check this code.
#[derive(Clone, Copy, Debug)]
pub struct Compressed {
    g1: Fp2,
    g2: Fp2,
    g3: Fp2,
    g5: Fp2,
}

impl Compressed {
    /// Drops g0 (W⁰) and g4 (W³); only for cyclotomic x.
    pub fn of(x: &Fp12) -> Self {
        Compressed { g1: x.c2.c0, g2: x.c1.c1, g3: x.c1.c0, g5: x.c2.c1 }
    }

    /// The compressed form of x² (ξ = u is the sextic non-residue):
    /// g1' = 3(g3² + ξg2²) − 2g1, g2' = 3(g1² + ξg5²) − 2g2,
    /// g3' = 6ξg1g5 + 2g3, g5' = 6g2g3 + 2g5.
    pub fn square(&self) -> Self {
        let t0 = self.g1.square();
        let t1 = self.g5.square();
        let g1g5 = self.g1.add(&self.g5).square().sub(&t0).sub(&t1); // 2g1g5
        let t2 = self.g3.square();
        let t3 = self.g2.square();
        let g2g3 = self.g2.add(&self.g3).square().sub(&t2).sub(&t3); // 2g2g3
        let xi = g1g5.mul_u();
        let g3 = xi.add(&self.g3).double().add(&xi);
        let a = t0.add(&t1.mul_u());
        let g2 = a.sub(&self.g2).double().add(&a);
        let b = t2.add(&t3.mul_u());
        let g1 = b.sub(&self.g1).double().add(&b);
        let g5 = g2g3.add(&self.g5).double().add(&g2g3);
        Compressed { g1, g2, g3, g5 }
    }

    /// The full element: g4 = (ξg5² + 3g1² − 2g2)/(4g3), or 2g1g5/g2 when
    /// g3 = 0 (selected in constant time; the values may derive from a
    /// secret key), then g0 = ξ(2g4² + g3g5 − 3g1g2) + 1. One constant-time
    /// Fp2 inversion (0 ↦ 0: the identity, all four zero, decompresses to 1).
    pub fn decompress(&self) -> Fp12 {
        let g1sq = self.g1.square();
        let num_a = self.g5.square().mul_u().add(&g1sq.sub(&self.g2).double().add(&g1sq));
        let den_a = self.g3.double().double();
        let num_b = self.g1.mul(&self.g5).double();
        let g3_zero = self.g3.is_zero();
        let num = Fp2::conditional_select(&num_a, &num_b, g3_zero);
        let den = Fp2::conditional_select(&den_a, &self.g2, g3_zero);
        let g4 = num.mul(&den.invert());
        let g1g2 = self.g1.mul(&self.g2);
        let s = g4.square().sub(&g1g2).double().sub(&g1g2).add(&self.g3.mul(&self.g5));
        let g0 = s.mul_u().add(&Fp2::ONE);
        Fp12 { c0: Fp4::new(g0, g4), c1: Fp4::new(self.g3, self.g2), c2: Fp4::new(self.g1, self.g5) }
    }
}

/// The easy part f^((p⁶−1)(p²+1)); the result is in the cyclotomic subgroup.
pub fn easy_part(f: &Fp12) -> Fp12 {
    let f1 = f.conj().mul(&f.invert());
    f1.frobenius2().mul(&f1)
}

/// The hard part f^((p⁴−p²+1)/n) for f in the cyclotomic subgroup.
pub fn hard_part(f: &Fp12) -> Fp12 {
    let fu = exp_by_t(f);
    let fu2 = exp_by_t(&fu);
    let fu3 = exp_by_t(&fu2);
    let y0 = f.frobenius().mul(&f.frobenius2()).mul(&f.frobenius3());
    let y1 = f.conj();
    let y2 = fu2.frobenius2();
    let y3 = fu.frobenius().conj();
    let y4 = fu.mul(&fu2.frobenius()).conj();
    let y5 = fu2.conj();
    let y6 = fu3.mul(&fu3.frobenius()).conj();
    let mut t0 = y6.cyclotomic_square().mul(&y4).mul(&y5);
    let mut t1 = y3.mul(&y5).mul(&t0);
    t0 = t0.mul(&y2);
    t1 = t1.cyclotomic_square().mul(&t0).cyclotomic_square();
    t0 = t1.mul(&y1);
    t1 = t1.mul(&y0);
    t0 = t0.cyclotomic_square();
    t0.mul(&t1)
}

/// f^((p¹²−1)/n): on the IFMA lanes when the CPU has them
/// ([`super::pairing_ifma`]), else on the scalar tower.
pub fn final_exponentiation(f: &Fp12) -> Fp12 {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
        return ifma::final_exponentiation(t, f);
    }
    final_exponentiation_scalar(f)
}

/// f^((p¹²−1)/n) on the scalar tower (the reference of the lane path).
pub fn final_exponentiation_scalar(f: &Fp12) -> Fp12 {
    hard_part(&easy_part(f))
}
