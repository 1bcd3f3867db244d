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

/// Wipes recoded digits ([`recode_odd`]'s output, secret when the scalar
/// is): volatile stores, so they are not dropped as dead, of one zero
/// `Choice` made once (`Choice::from` is an out-of-line barrier call in
/// `subtle`; one per digit cost ~1 % of a k·G).
#[inline]
pub fn wipe_digits(digits: &mut [(u64, Choice)]) {
    let zero = (0u64, Choice::from(0));
    for d in digits.iter_mut() {
        // SAFETY: `d` is a valid, aligned, exclusive reference.
        unsafe { core::ptr::write_volatile(d, zero) };
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

/// Width-w NAF (2 ≤ w ≤ 31) of a public k < 2^256: digits at positions
/// 0..=256, each odd or zero with |d| < 2^(w−1), and at most one nonzero
/// digit in any w consecutive positions; Σ d_i·2^i = k.
///
/// libsecp256k1's scan: skip positions whose bit equals the pending carry
/// (the running value is even there), otherwise read the next w bits at
/// once, add the carry and take the signed residue. One window read per
/// digit, no shifting of the whole scalar.
pub fn wnaf_vartime(k: &Limbs, w: u32) -> [i32; 258] {
    debug_assert!((2..=31).contains(&w));
    // Bits i .. i + n of k (n ≤ 31), zero above bit 255.
    let window = |i: usize, n: u32| -> u64 {
        let (limb, sh) = (i / 64, i % 64);
        let mut v = if limb < 4 { k[limb] >> sh } else { 0 };
        if sh != 0 && limb + 1 < 4 {
            v |= k[limb + 1] << (64 - sh);
        }
        v & ((1u64 << n) - 1)
    };
    let mut out = [0i32; 258];
    let mut carry = 0u64;
    let mut i = 0usize;
    while i < 257 {
        if window(i, 1) == carry {
            i += 1;
            continue;
        }
        let mut d = (window(i, w) + carry) as i64;
        carry = ((d >> (w - 1)) & 1) as u64;
        d -= (carry as i64) << w;
        out[i] = d as i32;
        i += w as usize;
    }
    debug_assert_eq!(carry, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;

    fn limbs_to_int(k: &Limbs) -> BigInt {
        k.iter().rev().fold(BigInt::from(0), |acc, &l| (acc << 64) + BigInt::from(l))
    }

    /// The defining properties of a width-w NAF, checked on random and edge
    /// scalars with big-integer arithmetic (not against another recoder).
    #[test]
    fn wnaf_sums_back_and_is_sparse() {
        let mut seed = [0u8; 8 * 4 * 64];
        getrandom::fill(&mut seed).expect("getrandom");
        let mut ks: Vec<Limbs> = seed
            .chunks_exact(32)
            .map(|c| core::array::from_fn(|j| u64::from_le_bytes(c[8 * j..8 * j + 8].try_into().unwrap())))
            .collect();
        ks.extend([[0; 4], [1, 0, 0, 0], [u64::MAX; 4], [0, 0, 0, 1 << 63], [u64::MAX, 0, u64::MAX, 0]]);
        for k in &ks {
            for w in [2u32, 3, 4, 5, 7, 10, 16] {
                let naf = wnaf_vartime(k, w);
                let mut sum = BigInt::from(0);
                let mut last: Option<usize> = None;
                for (i, &d) in naf.iter().enumerate() {
                    if d == 0 {
                        continue;
                    }
                    assert_eq!(d & 1, 1, "even digit, w={w}");
                    assert!(d.unsigned_abs() < 1 << (w - 1), "digit too large, w={w}");
                    if let Some(j) = last {
                        assert!(i - j >= w as usize, "digits {j} and {i} closer than w={w}");
                    }
                    last = Some(i);
                    sum += BigInt::from(d) << i;
                }
                assert_eq!(sum, limbs_to_int(k), "w={w}");
            }
        }
    }
}
