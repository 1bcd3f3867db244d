//! Scalar recodings for scalar multiplication, for any group order: the
//! regular odd-digit recoding of the constant-time paths and the wNAF of
//! the variable-time ones. Constant time except `_vartime`.

use super::{mask_from_bit, reduce_once, sub_limbs, Limbs, Modulus};
use subtle::Choice;

/// Bits [pos, pos + w) of k (positions are public; zero beyond 256).
#[inline(always)]
pub fn bits(k: &Limbs, pos: usize, w: usize) -> u64 {
    if pos >= 256 {
        return 0;
    }
    let limb = pos / 64;
    let off = pos % 64;
    let mut v = k[limb] >> off;
    if off + w > 64 && limb + 1 < 4 {
        v |= k[limb + 1] << (64 - off);
    }
    v & ((1u64 << w) - 1)
}

/// k mod n made odd, in constant time, for the group order n = `M::M`:
/// (k', flip) with k' = k mod n if that is odd, else n − (k mod n) (odd, as
/// n is), and flip set in that case, so that k·B = (−1)^flip · k'·B for
/// every B of order n. Needs n > 2^255 so that any k < 2^256 (< 2n) is
/// reduced by one conditional subtraction (true of SM2's and SM9's n).
/// k' ∈ [1, n]; k' = n only for k ≡ 0, whose product is infinity.
#[inline]
pub fn odd_scalar<M: Modulus>(k: &Limbs) -> (Limbs, Choice) {
    const { assert!(M::M[3] >> 63 == 1, "odd_scalar needs n > 2^255") };
    let k = reduce_once(k, &M::M);
    let (nk, _) = sub_limbs(&M::M, &k);
    let even = (k[0] & 1) ^ 1;
    let m = mask_from_bit(even);
    let out = core::array::from_fn(|i| (k[i] & !m) | (nk[i] & m));
    (out, Choice::from(even as u8))
}

/// Regular odd-digit recoding (Joye–Tunstall) of an odd k < 2^256 into
/// `windows` = ⌈256/w⌉ digits d_i, all odd and non-zero:
/// d_i = 2·bits(k, wi + 1, w) + 1 − 2^w ∈ {±1, ±3, …, ±(2^w − 1)} for
/// i < windows − 1 and the last d = 2·bits(k, w(windows − 1) + 1, ..) + 1 > 0,
/// which has at most w − 1 bits there, so it is below 2^w too. The sum
/// telescopes: Σ 2·bits·2^(wi) = k − 1 and Σ (1 − 2^w)·2^(wi) + 2^(w·last)
/// = 1. (Equivalently k_(i+1) = (k_i − d_i)/2^w with d_i = (k_i mod
/// 2^(w+1)) − 2^w keeps every k_i odd.) Each digit comes out as (entry
/// index (|d| − 1)/2, sign), the sign XORed with `flip`. Constant time:
/// shifts and masks only.
#[inline]
pub fn recode_odd(k: &Limbs, w: usize, windows: usize, flip: Choice, out: &mut [(u64, Choice)]) {
    let half = 1u64 << (w - 1);
    let flip = flip.unwrap_u8() as u64;
    for (i, o) in out.iter_mut().enumerate().take(windows) {
        let v = bits(k, i * w + 1, w);
        // The last digit is positive (its top bit is clear, see above);
        // otherwise d < 0 iff v < 2^(w−1), and then |d| = 2^w − 1 − 2v.
        debug_assert!(i + 1 < windows || v < half, "last odd digit out of range");
        let neg = if i + 1 == windows { 0 } else { (v >> (w - 1)) ^ 1 };
        let idx = (v ^ neg.wrapping_neg()) & (half - 1);
        *o = (idx, Choice::from((neg ^ flip) as u8));
    }
}

/// NAF (width 2) of a public constant `k < 2^127`, least significant digit
/// first, in `N` digits (N must exceed k's bit length): digits in {−1, 0, 1},
/// no two adjacent nonzero. For loop constants fixed at compile time (SM9's
/// 6t+2 and t).
pub const fn naf_const<const N: usize>(k: u128) -> [i8; N] {
    let mut out = [0i8; N];
    let mut k = k;
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

/// Width-w NAF of a public k < 2^256: 257 digits, odd or zero, |d| < 2^(w−1).
pub fn wnaf_vartime(k: &Limbs, w: u32) -> [i32; 258] {
    let mut out = [0i32; 258];
    let mut x = [k[0], k[1], k[2], k[3], 0u64];
    let mut i = 0;
    while x != [0; 5] {
        if x[0] & 1 == 1 {
            let m = (x[0] & ((1u64 << w) - 1)) as i64;
            let d = if m >= 1 << (w - 1) { m - (1 << w) } else { m };
            // x −= d
            if d > 0 {
                let (v, mut b) = x[0].overflowing_sub(d as u64);
                x[0] = v;
                for limb in x.iter_mut().skip(1) {
                    if !b {
                        break;
                    }
                    let (v, nb) = limb.overflowing_sub(1);
                    *limb = v;
                    b = nb;
                }
            } else {
                let (v, mut c) = x[0].overflowing_add((-d) as u64);
                x[0] = v;
                for limb in x.iter_mut().skip(1) {
                    if !c {
                        break;
                    }
                    let (v, nc) = limb.overflowing_add(1);
                    *limb = v;
                    c = nc;
                }
            }
            out[i] = d as i32;
        }
        // x >>= 1
        for j in 0..4 {
            x[j] = (x[j] >> 1) | (x[j + 1] << 63);
        }
        x[4] >>= 1;
        i += 1;
    }
    out
}
