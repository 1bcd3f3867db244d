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

/// The non-adjacent form of t, least significant digit first: digits in
/// {−1, 0, 1}, no two adjacent non-zero (fewer multiplications than t's
/// binary form; a negative digit costs a conjugation, free in the
/// cyclotomic subgroup). `tests::t_naf_is_t` checks it sums to t.
pub const T_NAF: [i8; 66] = naf(T);

const fn naf(t: u64) -> [i8; 66] {
    let mut out = [0i8; 66];
    let mut k = t as u128;
    let mut i = 0;
    while k > 0 {
        if k & 1 == 1 {
            let d = 2 - (k & 3) as i8; // k ≡ 1 mod 4 → 1, k ≡ 3 mod 4 → −1
            out[i] = d;
            if d == 1 {
                k -= 1;
            } else {
                k += 1;
            }
        }
        k >>= 1;
        i += 1;
    }
    out
}

/// Index of T_NAF's top non-zero digit.
const T_NAF_TOP: usize = {
    let mut i = 65;
    while T_NAF[i] == 0 {
        i -= 1;
    }
    i
};

/// x^t for x in the cyclotomic subgroup (t is public: square-and-multiply
/// over t's NAF, x⁻¹ = x̄).
pub fn exp_by_t(x: &Fp12) -> Fp12 {
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

/// f^((p¹²−1)/n).
pub fn final_exponentiation(f: &Fp12) -> Fp12 {
    hard_part(&easy_part(f))
}
