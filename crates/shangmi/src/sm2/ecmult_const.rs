//! k·P in constant time for a secret k and a public P (libsecp256k1's
//! ecmult_const): odd 5-bit digits (52 windows, 255 doublings, 51 mixed
//! additions) over an affine table P, 3P, ..., 31P built by a co-Z chain
//! with one inversion, each lookup scanning the whole table.

use super::field::{Fp, Sm2N};
use super::point::{add_mixed, double, Affine, Jacobian};
use crate::arith::curve;
use crate::arith::with_mul;
use crate::arith::{odd_scalar, recode_odd, scan, wipe_digits, Limbs};
use subtle::{Choice, ConditionallySelectable};

/// k·P for a secret k < 2^256 and a public P: odd-digit 5-bit fixed window
/// (k made odd as in [`super::ecmult_gen::CombTable::mul`], 52 digits, 255 doublings, 51
/// mixed additions), constant-time lookups in an affine table of P, 3P, ...,
/// 31P (16 entries, from [`curve::odd_multiples_coz_vartime`]). The table depends
/// only on the public point P (C1 in decryption, the public key in
/// encryption, the peer's combined point in key exchange), never on k, so
/// it uses the variable-time inversion; the doublings and additions run
/// with the multiplication backend chosen once.
///
/// Exceptional cases: with k_i the recoding's remainders (k_0 = k' ≤ n,
/// k_(i+1) = (k_i − d_i)/32, all odd, k_51 = 1, 1 ≤ k_i < 2^(256−5i) + 1),
/// the accumulator before adding d_i is A = 32·k_(i+1), and A + d_i = k_i.
/// For i ≥ 1: 0 < A − 31 ≤ A ± d_i ≤ k_i + 62 < n, so neither A ≡ ±d_i nor
/// A ≡ 0 (nor any 2^t·k_(i+1) of the doublings before it). For i = 0,
/// A = 32·k_1 ≤ n + 32 is even, so not n, so the accumulator isn't infinity
/// either; only that last addition can meet ±P, and it is the complete one
/// (the doubling selected; k ≡ 0 gives Z = 0 by itself).
pub fn mul(p: &Affine, k: &Limbs) -> Jacobian {
    const W: usize = 5;
    const WINDOWS: usize = 52;
    let table = curve::odd_multiples_coz_vartime(p, 16);
    let (mut k, flip) = odd_scalar::<Sm2N>(k);
    let mut digits = [(0u64, Choice::from(0)); 64];
    recode_odd(&k, W, WINDOWS, flip, &mut digits);
    let lookup = |(idx, neg): (u64, Choice)| -> Affine {
        let mut q = scan(&table, idx + 1);
        q.y = Fp::conditional_select(&q.y, &q.y.neg(), neg);
        q
    };
    let acc = with_mul!(|b| {
        let mut acc = lookup(digits[WINDOWS - 1]).to_jacobian();
        for i in (0..WINDOWS - 1).rev() {
            for _ in 0..W {
                acc = double(b, &acc);
            }
            acc = add_mixed(b, &acc, &lookup(digits[i]), i == 0);
        }
        acc
    });
    wipe_digits(&mut digits);
    k.iter_mut().for_each(|l| *l = 0);
    acc
}
