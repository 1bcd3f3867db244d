//! The lane squares of [`super::Fp12x`]: the general square and
//! Granger–Scott's cyclotomic square, both by Fp12 = Fp4[w]/(w³ − v) with
//! each Fp4 = Fp[z]/(z⁴ + 2) (z = w³) a four-term twisted convolution on
//! the flattened coefficients (lane k = r + 3m holds the z^m coefficient
//! of c_r). The tables say, for each output lane, which entry of S (see
//! [`super`]) and which coefficient it multiplies; they are constants, so
//! every permute index is public.

use super::{canon, sources, Fp12x};
use crate::sm9::fp_ifma::{carry, mac, reduce, Fp8, P52};
use core::arch::x86_64::*;

/// Granger–Scott's output slot r (c0', c1', c2') takes the Fp4 square of
/// c_SIGMA[r] (c0², v·c2², c1²; see [`cyclotomic_square_impl`]).
const SIGMA: [usize; 3] = [0, 2, 1];

/// For output half h (lanes 8h..8h + 8) and term i of the cyclotomic
/// square: the first of the two S vectors its operand reads and each
/// lane's index into them (lanes past e_11 read index 0).
const fn cyc_src(h: usize, i: usize) -> (usize, [i64; 8]) {
    let mut min = usize::MAX;
    let mut l = 0;
    while l < 8 {
        let k = 8 * h + l;
        if k < 12 && 12 + k - SIGMA[k % 3] - 3 * i < min {
            min = 12 + k - SIGMA[k % 3] - 3 * i;
        }
        l += 1;
    }
    let q = min / 8;
    let mut idx = [0i64; 8];
    l = 0;
    while l < 8 {
        let k = 8 * h + l;
        if k < 12 {
            idx[l] = (12 + k - SIGMA[k % 3] - 3 * i - 8 * q) as i64;
        }
        l += 1;
    }
    (q, idx)
}

/// Each lane's coefficient of the other operand of term i: e_(σ + 3i)
/// (σ = SIGMA[k mod 3]), as an index into lo ‖ hi.
const fn cyc_b(h: usize, i: usize) -> [i64; 8] {
    let mut idx = [0i64; 8];
    let mut l = 0;
    while l < 8 {
        let k = 8 * h + l;
        if k < 12 {
            idx[l] = (SIGMA[k % 3] + 3 * i) as i64;
        }
        l += 1;
    }
    idx
}

const CYC_SRC: [[(usize, [i64; 8]); 4]; 2] = [
    [cyc_src(0, 0), cyc_src(0, 1), cyc_src(0, 2), cyc_src(0, 3)],
    [cyc_src(1, 0), cyc_src(1, 1), cyc_src(1, 2), cyc_src(1, 3)],
];
const CYC_B: [[[i64; 8]; 4]; 2] =
    [[cyc_b(0, 0), cyc_b(0, 1), cyc_b(0, 2), cyc_b(0, 3)], [cyc_b(1, 0), cyc_b(1, 1), cyc_b(1, 2), cyc_b(1, 3)]];

#[target_feature(enable = "avx512f")]
#[inline]
fn load_idx(v: &[i64; 8]) -> __m512i {
    // SAFETY: 64 readable bytes (a constant table); unaligned load.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// Granger–Scott's cyclotomic square (as [`Fp12::cyclotomic_square`]) in
/// one pass: with z = w³ each c_r = Σ_m e_(r+3m)·z^m lies in
/// Fp4 = Fp[z]/(z⁴ + 2), so c_r² is a four-term twisted convolution whose
/// operands are S at lane offsets −3i and e_(r+3i); routing c2² into slot
/// 1 shifted by one z-step (·v, the twist wrapping into S's −2 half)
/// and c1² into slot 2 puts every output lane's Fp4 square in place. The
/// other operand enters tripled (3c² with no extra pass: 4·3p² < p·R, one
/// reduction), and −2c̄ = ∓2e_k (+2 in slot 1, i.e. −2e on even lanes,
/// +2e on odd ones) is added after it by modular additions.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(super) fn cyclotomic_square_impl(a: &Fp12x) -> Fp12x {
    let s = sources(a);
    let odd = _mm512_set_epi64(-1, 0, -1, 0, -1, 0, -1, 0);
    // 3e, carried (below 3p: limbs below 2^52 again, the top one small).
    let tri = |x: &Fp8| carry(core::array::from_fn(|l| _mm512_add_epi64(_mm512_slli_epi64::<1>(x.0[l]), x.0[l])));
    let (t_lo, t_hi) = (tri(&a.lo), tri(&a.hi));
    let e = [a.lo, a.hi];
    let mut out = e;
    for h in 0..2 {
        let mut t = [_mm512_setzero_si512(); 10];
        for i in 0..4 {
            let (q, idx) = &CYC_SRC[h][i];
            let iv = load_idx(idx);
            let w = Fp8(core::array::from_fn(|l| _mm512_permutex2var_epi64(s[*q][l], iv, s[*q + 1][l])));
            let bv = load_idx(&CYC_B[h][i]);
            let b = Fp8(core::array::from_fn(|l| _mm512_permutex2var_epi64(t_lo[l], bv, t_hi[l])));
            mac(&mut t, &w, &b);
        }
        let u = canon(reduce(t).0);
        // ±2e: 2e mod p on odd lanes, p − (2e mod p) on even ones; then
        // u + that (below 2p) made canonical.
        let x = &e[h].0;
        let d = canon(carry(core::array::from_fn(|l| _mm512_slli_epi64::<1>(x[l]))));
        let n = carry(core::array::from_fn(|l| _mm512_sub_epi64(_mm512_set1_epi64(P52[l] as i64), d[l])));
        let pm: [__m512i; 5] =
            core::array::from_fn(|l| _mm512_or_si512(_mm512_and_si512(odd, d[l]), _mm512_andnot_si512(odd, n[l])));
        out[h] = Fp8(canon(carry(core::array::from_fn(|l| _mm512_add_epi64(u[l], pm[l])))));
    }
    Fp12x { lo: out[0], hi: out[1] }
}

/// The general square's two products per output slot r (c0² + v·2c1c2,
/// v·c2² + 2c0c1, c1² + 2c0c2 for r = 0, 1, 2): for product p, (x, y, s)
/// = the Fp4 factors c_x (doubled for p = 1) and c_y, and s = 1 for the
/// ·v shift.
const SQ: [[(usize, usize, usize); 3]; 2] = [[(0, 0, 0), (2, 2, 1), (1, 1, 0)], [(1, 2, 1), (1, 0, 0), (2, 0, 0)]];

/// As [`cyc_src`] for the general square's product p, term i: lane
/// k = r + 3m reads S[12 + y + 3(m − s − i)] (one twist at most).
const fn sq_src(h: usize, p: usize, i: usize) -> (usize, [i64; 8]) {
    let mut src = [0usize; 8];
    let mut min = usize::MAX;
    let mut l = 0;
    while l < 8 {
        let k = 8 * h + l;
        if k < 12 {
            let (_, y, s) = SQ[p][k % 3];
            src[l] = 12 + y + 3 * (k / 3) - 3 * s - 3 * i;
            if src[l] < min {
                min = src[l];
            }
        }
        l += 1;
    }
    let q = min / 8;
    let mut idx = [0i64; 8];
    l = 0;
    while l < 8 {
        if 8 * h + l < 12 {
            idx[l] = (src[l] - 8 * q) as i64;
        }
        l += 1;
    }
    (q, idx)
}

/// The other operand of the general square's product p, term i: e_(x + 3i).
const fn sq_b(h: usize, p: usize, i: usize) -> [i64; 8] {
    let mut idx = [0i64; 8];
    let mut l = 0;
    while l < 8 {
        let k = 8 * h + l;
        if k < 12 {
            idx[l] = (SQ[p][k % 3].0 + 3 * i) as i64;
        }
        l += 1;
    }
    idx
}

/// The general square's operand tables: [half][product][term] → (first S
/// vector, lane indices) and the other operand's lane indices.
type SqTables = ([[[(usize, [i64; 8]); 4]; 2]; 2], [[[[i64; 8]; 4]; 2]; 2]);

const fn sq_tables() -> SqTables {
    let mut src = [[[(0usize, [0i64; 8]); 4]; 2]; 2];
    let mut b = [[[[0i64; 8]; 4]; 2]; 2];
    let mut h = 0;
    while h < 2 {
        let mut p = 0;
        while p < 2 {
            let mut i = 0;
            while i < 4 {
                src[h][p][i] = sq_src(h, p, i);
                b[h][p][i] = sq_b(h, p, i);
                i += 1;
            }
            p += 1;
        }
        h += 1;
    }
    (src, b)
}

const SQ_TABLES: SqTables = sq_tables();

/// The general square by Fp12 = Fp4[w]/(w³ − v) (as [`Fp12::square`]):
/// each output slot is two Fp4 products, each a four-term twisted
/// convolution routed like [`cyclotomic_square_impl`]'s, the doubled
/// factor entering as 2e (4p² + 4·2p² = 12p² < p·R): sixteen vector
/// products instead of the general product's 24.
#[target_feature(enable = "avx512f,avx512ifma")]
#[inline]
pub(super) fn square_impl(a: &Fp12x) -> Fp12x {
    let s = sources(a);
    let dbl = |x: &Fp8| carry(core::array::from_fn(|l| _mm512_slli_epi64::<1>(x.0[l])));
    let ops = [[a.lo.0, a.hi.0], [dbl(&a.lo), dbl(&a.hi)]];
    let (src, bt) = &SQ_TABLES;
    let mut out = [a.lo, a.hi];
    for h in 0..2 {
        let mut t = [_mm512_setzero_si512(); 10];
        for p in 0..2 {
            for i in 0..4 {
                let (q, idx) = &src[h][p][i];
                let iv = load_idx(idx);
                let w = Fp8(core::array::from_fn(|l| _mm512_permutex2var_epi64(s[*q][l], iv, s[*q + 1][l])));
                let bv = load_idx(&bt[h][p][i]);
                let b = Fp8(core::array::from_fn(|l| _mm512_permutex2var_epi64(ops[p][0][l], bv, ops[p][1][l])));
                mac(&mut t, &w, &b);
            }
        }
        out[h] = Fp8(canon(reduce(t).0));
    }
    Fp12x { lo: out[0], hi: out[1] }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cyclotomic square's operand tables stay inside the two vectors
    /// each permute reads.
    #[test]
    fn cyclotomic_tables_in_range() {
        for h in 0..2 {
            for i in 0..4 {
                let (q, idx) = CYC_SRC[h][i];
                assert!(q + 1 < 4 && idx.iter().all(|&x| (0..16).contains(&x)), "half {h} term {i}");
                assert!(CYC_B[h][i].iter().all(|&x| (0..12).contains(&x)));
                for p in 0..2 {
                    let (q, idx) = SQ_TABLES.0[h][p][i];
                    assert!(q + 1 < 4 && idx.iter().all(|&x| (0..16).contains(&x)), "square {h} {p} {i}");
                    assert!(SQ_TABLES.1[h][p][i].iter().all(|&x| (0..12).contains(&x)));
                }
            }
        }
    }
}
