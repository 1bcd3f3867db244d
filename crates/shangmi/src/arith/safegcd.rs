//! Modular inversion by Bernstein–Yang "safegcd" divsteps (constant time),
//! for any odd modulus M < 2^256.
//!
//! The algorithm (Bernstein and Yang, "Fast constant-time gcd computation
//! and modular inversion", 2019, with the half-delta variant and the batch
//! structure described in libsecp256k1's doc/safegcd_implementation.md):
//! f = M, g = x, and the "divstep" map
//!   if δ > 0 and g odd: (δ, f, g) ← (1 − δ, g, (g − f)/2)
//!   elif g odd:         (δ, f, g) ← (1 + δ, f, (g + f)/2)
//!   else:               (δ, f, g) ← (1 + δ, f, g/2)
//! reaches g = 0, f = ±gcd = ±1 within 590 steps for 256-bit inputs
//! (δ starts at 1/2). Steps run in batches of 59 on the low 64 bits of f and
//! g only, accumulating a 2×2 transition matrix (scaled by 2^62), which is
//! then applied to the full f, g and to the Bézout-style coefficients d, e
//! (kept with d·x ≡ f, e·x ≡ g mod M, reduced mod M on the way). At the end
//! d·x ≡ ±1, so ±d is the inverse.
//!
//! Numbers are held as five signed 62-bit limbs (value Σ v_i·2^(62 i)) so
//! that a 64-bit matrix entry times a limb fits an i128 with room for sums.
//!
//! Everything is constant time: a fixed number of batches and steps, every
//! choice made with masks; no branch or index depends on the values.

use super::Limbs;

const M62: u64 = u64::MAX >> 2;

/// Five signed 62-bit limbs.
type S62 = [i64; 5];

/// A modulus prepared for inversion: its limbs and M⁻¹ mod 2^62.
#[derive(Clone, Copy, Debug)]
pub struct ModInfo {
    m: S62,
    m_inv62: u64,
}

impl ModInfo {
    /// For an odd M < 2^256 (compile-time evaluable).
    pub const fn new(m: &Limbs) -> Self {
        // M⁻¹ mod 2^64 by Newton's iteration (each step doubles the bits).
        let mut inv: u64 = 1;
        let mut i = 0;
        while i < 6 {
            inv = inv.wrapping_mul(2u64.wrapping_sub(m[0].wrapping_mul(inv)));
            i += 1;
        }
        ModInfo { m: to_s62(m), m_inv62: inv & M62 }
    }
}

/// 256-bit value → five 62-bit limbs (all non-negative).
const fn to_s62(a: &Limbs) -> S62 {
    [
        (a[0] & M62) as i64,
        (((a[0] >> 62) | (a[1] << 2)) & M62) as i64,
        (((a[1] >> 60) | (a[2] << 4)) & M62) as i64,
        (((a[2] >> 58) | (a[3] << 6)) & M62) as i64,
        (a[3] >> 56) as i64,
    ]
}

/// The transition matrix of a batch, scaled by 2^62: after the batch
/// 2^62·(f', g') = (u·f + v·g, q·f + r·g).
#[derive(Clone, Copy)]
struct Trans {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// 59 divsteps on the low bits of f and g (f odd), constant time; ζ =
/// −(δ + 1/2) is carried in and out. Starting the matrix at 8·I makes the
/// total scale 2^(3 + 59) = 2^62, matching the limb size.
#[inline(always)]
fn divsteps_59(zeta: i64, f0: u64, g0: u64) -> (i64, Trans) {
    let (mut u, mut v, mut q, mut r): (u64, u64, u64, u64) = (8, 0, 0, 8);
    let (mut f, mut g, mut zeta) = (f0, g0, zeta as u64);
    for _ in 0..59 {
        // c1: δ > 0 (ζ < 0); c2: g odd. All-ones or zero masks.
        let c1 = ((zeta as i64) >> 63) as u64;
        let c2 = (g & 1).wrapping_neg();
        // If δ > 0 subtract f from g (and the f row from the g row), else
        // add; only if g is odd.
        let x = (f ^ c1).wrapping_sub(c1);
        let y = (u ^ c1).wrapping_sub(c1);
        let z = (v ^ c1).wrapping_sub(c1);
        g = g.wrapping_add(x & c2);
        q = q.wrapping_add(y & c2);
        r = r.wrapping_add(z & c2);
        // Swap case (δ > 0 and g odd): f takes the old g, which is the
        // new g plus f; likewise the rows. δ ← 1 − δ is ζ ← −ζ − 2, else
        // δ ← 1 + δ is ζ ← ζ − 1.
        let c = c1 & c2;
        zeta = (zeta ^ c).wrapping_sub(1);
        f = f.wrapping_add(g & c);
        u = u.wrapping_add(q & c);
        v = v.wrapping_add(r & c);
        // g ← g/2 (exact: g is even now), and the f row doubles instead of
        // halving the g row, keeping the matrix integral.
        g >>= 1;
        u <<= 1;
        v <<= 1;
    }
    (zeta as i64, Trans { u: u as i64, v: v as i64, q: q as i64, r: r as i64 })
}

/// (f, g) ← (u·f + v·g, q·f + r·g) / 2^62 (exact by construction).
#[inline(always)]
fn update_fg(f: &mut S62, g: &mut S62, t: &Trans) {
    let (u, v, q, r) = (t.u as i128, t.v as i128, t.q as i128, t.r as i128);
    let mut cf = u * f[0] as i128 + v * g[0] as i128;
    let mut cg = q * f[0] as i128 + r * g[0] as i128;
    debug_assert!(cf as u64 & M62 == 0 && cg as u64 & M62 == 0);
    cf >>= 62;
    cg >>= 62;
    for i in 1..5 {
        cf += u * f[i] as i128 + v * g[i] as i128;
        cg += q * f[i] as i128 + r * g[i] as i128;
        f[i - 1] = (cf as u64 & M62) as i64;
        g[i - 1] = (cg as u64 & M62) as i64;
        cf >>= 62;
        cg >>= 62;
    }
    f[4] = cf as i64;
    g[4] = cg as i64;
}

/// (d, e) ← (u·d + v·e, q·d + r·e) / 2^62 mod M, where multiples of M are
/// added to make the division exact. With d, e in (−2M, M) on entry they
/// stay in (−2M, M) (libsecp256k1's analysis: the M added for a negative
/// input plus the matrix bound).
#[inline(always)]
fn update_de(d: &mut S62, e: &mut S62, t: &Trans, mi: &ModInfo) {
    let (u, v, q, r) = (t.u, t.v, t.q, t.r);
    // Masks: d < 0, e < 0 (top limbs carry the sign).
    let sd = d[4] >> 63;
    let se = e[4] >> 63;
    // Start the M multiples at (u, q)·[d < 0] + (v, r)·[e < 0]: adds M to
    // a negative d or e before the matrix is applied.
    let mut md = (u & sd).wrapping_add(v & se);
    let mut me = (q & sd).wrapping_add(r & se);
    let (ui, vi, qi, ri) = (u as i128, v as i128, q as i128, r as i128);
    let mut cd = ui * d[0] as i128 + vi * e[0] as i128;
    let mut ce = qi * d[0] as i128 + ri * e[0] as i128;
    // Choose md, me so that the low 62 bits of cd + md·M, ce + me·M vanish.
    md = md.wrapping_sub((mi.m_inv62.wrapping_mul(cd as u64).wrapping_add(md as u64) & M62) as i64);
    me = me.wrapping_sub((mi.m_inv62.wrapping_mul(ce as u64).wrapping_add(me as u64) & M62) as i64);
    let (mdi, mei) = (md as i128, me as i128);
    cd += mi.m[0] as i128 * mdi;
    ce += mi.m[0] as i128 * mei;
    debug_assert!(cd as u64 & M62 == 0 && ce as u64 & M62 == 0);
    cd >>= 62;
    ce >>= 62;
    for i in 1..5 {
        cd += ui * d[i] as i128 + vi * e[i] as i128 + mi.m[i] as i128 * mdi;
        ce += qi * d[i] as i128 + ri * e[i] as i128 + mi.m[i] as i128 * mei;
        d[i - 1] = (cd as u64 & M62) as i64;
        e[i - 1] = (ce as u64 & M62) as i64;
        cd >>= 62;
        ce >>= 62;
    }
    d[4] = cd as i64;
    e[4] = ce as i64;
}

/// Carries limbs 0..3 into [0, 2^62) (top limb signed), then packs the
/// value into five 64-bit words of two's complement (320 bits).
#[inline(always)]
fn to_words(a: &S62) -> [u64; 5] {
    let mut l = *a;
    for i in 0..4 {
        let c = l[i] >> 62;
        l[i] &= M62 as i64;
        l[i + 1] += c;
    }
    let w = |x: i64| x as u64;
    [
        w(l[0]) | (w(l[1]) << 62),
        (w(l[1]) >> 2) | (w(l[2]) << 60),
        (w(l[2]) >> 4) | (w(l[3]) << 58),
        (w(l[3]) >> 6) | (w(l[4]) << 56),
        (l[4] >> 8) as u64,
    ]
}

/// a + (M & mask) over 320 bits.
#[inline(always)]
fn add_masked(a: &[u64; 5], m: &Limbs, mask: u64) -> [u64; 5] {
    let mut out = [0u64; 5];
    let mut carry = 0u64;
    for i in 0..5 {
        let mi = if i < 4 { m[i] & mask } else { 0 };
        let (s, c) = super::adc(a[i], mi, carry);
        out[i] = s;
        carry = c;
    }
    out
}

/// x⁻¹ mod M for x < M (0 ↦ 0), constant time. `m` must be the modulus
/// `mi` was built from.
pub fn invert(x: &Limbs, m: &Limbs, mi: &ModInfo) -> Limbs {
    let mut f = mi.m;
    let mut g = to_s62(x);
    let mut d: S62 = [0; 5];
    let mut e: S62 = [1, 0, 0, 0, 0];
    let mut zeta: i64 = -1; // δ = 1/2
    for _ in 0..10 {
        let (z, t) = divsteps_59(zeta, f[0] as u64, g[0] as u64);
        zeta = z;
        update_de(&mut d, &mut e, &t, mi);
        update_fg(&mut f, &mut g, &t);
    }
    debug_assert!(g == [0; 5], "590 divsteps suffice for 256-bit inputs");
    finish(&d, &f, m)
}

/// Now f = ±1 (or ±M if x = 0, when d = 0) and d·x ≡ f. d ∈ (−2M, M): add M
/// if negative, negate if f < 0, add M if negative again. Constant time.
#[inline(always)]
fn finish(d: &S62, f: &S62, m: &Limbs) -> Limbs {
    // The masks go through mask_from_bit's optimisation barrier: knowing
    // a mask is 0 or −1, LLVM otherwise turns the masked addition into a
    // branch (the valgrind check caught that here).
    let dw = to_words(d);
    let neg = |w: &[u64; 5]| super::mask_from_bit(w[4] >> 63);
    let dw = add_masked(&dw, m, neg(&dw));
    let fneg = super::mask_from_bit((f[4] as u64) >> 63);
    // Conditional negation: (d ^ mask) − mask over 320 bits.
    let mut nd = [0u64; 5];
    let mut borrow = 0u64;
    for i in 0..5 {
        let (s, b) = super::sbb(dw[i] ^ fneg, fneg, borrow);
        nd[i] = s;
        borrow = b;
    }
    let nd = add_masked(&nd, m, neg(&nd));
    [nd[0], nd[1], nd[2], nd[3]]
}

/// Up to 62 divsteps (the original δ variant, η = −δ) on the low bits of f
/// and g, variable time: runs of zeros in g are skipped at once, and each
/// odd step cancels up to 4 (or, after a swap, 6) low bits of g with one
/// multiple of f. Matrix scaled by 2^62, like `divsteps_59`'s.
fn divsteps_62_vartime(eta: i64, f0: u64, g0: u64) -> (i64, Trans) {
    let (mut u, mut v, mut q, mut r): (u64, u64, u64, u64) = (1, 0, 0, 1);
    let (mut f, mut g, mut eta) = (f0, g0, eta);
    let mut i: u32 = 62;
    loop {
        // Zeros of g (at most the i steps left: a sentinel bit at i).
        let zeros = (g | (u64::MAX << i)).trailing_zeros();
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros as i64;
        i -= zeros;
        if i == 0 {
            break;
        }
        // f and g are odd here.
        let w;
        if eta < 0 {
            // δ > 0: swap, (f, g) ← (g, −f) and the rows likewise.
            eta = -eta;
            let t = f;
            f = g;
            g = t.wrapping_neg();
            let t = u;
            u = q;
            q = t.wrapping_neg();
            let t = v;
            v = r;
            r = t.wrapping_neg();
            // w = −g/f mod 2^k (k ≤ 6, ≤ η + 1 and ≤ i): f(2 − f²) is
            // f⁻¹ mod 64 (f² ≡ 1 mod 8, one Newton step).
            let limit = (eta as u32 + 1).min(i);
            let mask = (u64::MAX >> (64 - limit)) & 63;
            w = f.wrapping_mul(g).wrapping_mul(f.wrapping_mul(f).wrapping_sub(2)) & mask;
        } else {
            // w = −g/f mod 2^k (k ≤ 4): f + ((f + 1) & 4)·2 is f⁻¹ mod 16.
            let limit = (eta as u32 + 1).min(i);
            let mask = (u64::MAX >> (64 - limit)) & 15;
            let finv = f.wrapping_add(((f.wrapping_add(1)) & 4) << 1);
            w = finv.wrapping_mul(g).wrapping_neg() & mask;
        }
        g = g.wrapping_add(f.wrapping_mul(w));
        q = q.wrapping_add(u.wrapping_mul(w));
        r = r.wrapping_add(v.wrapping_mul(w));
    }
    (eta, Trans { u: u as i64, v: v as i64, q: q as i64, r: r as i64 })
}

/// x⁻¹ mod M for x < M (0 ↦ 0), variable time: only for public x.
pub fn invert_vartime(x: &Limbs, m: &Limbs, mi: &ModInfo) -> Limbs {
    let mut f = mi.m;
    let mut g = to_s62(x);
    let mut d: S62 = [0; 5];
    let mut e: S62 = [1, 0, 0, 0, 0];
    let mut eta: i64 = -1; // δ = 1
    while g != [0; 5] {
        let (n, t) = divsteps_62_vartime(eta, f[0] as u64, g[0] as u64);
        eta = n;
        update_de(&mut d, &mut e, &t, mi);
        update_fg(&mut f, &mut g, &t);
    }
    finish(&d, &f, m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    fn big(a: &Limbs) -> BigUint {
        let mut b = Vec::new();
        for l in a.iter().rev() {
            b.extend_from_slice(&l.to_be_bytes());
        }
        BigUint::from_bytes_be(&b)
    }

    fn next(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Against x^(M−2) mod M (num-bigint) for prime moduli: SM2's p and n,
    /// 2^255 − 19, and a small-top-limb prime (2^192 − 2^64 − 1, P-192),
    /// on edge and random inputs; and g = 0 after the 590 steps.
    #[test]
    fn matches_fermat_on_primes() {
        let moduli: [Limbs; 4] = [
            crate::sm2::field::P,
            crate::sm2::field::N,
            [0xffff_ffff_ffff_ffed, u64::MAX, u64::MAX, 0x7fff_ffff_ffff_ffff],
            [u64::MAX, 0xffff_ffff_ffff_fffe, u64::MAX, 0],
        ];
        let mut s = 7u64;
        for m in moduli {
            let mi = ModInfo::new(&m);
            let mb = big(&m);
            let m1 = crate::arith::sub_limbs(&m, &[1, 0, 0, 0]).0;
            let m2 = crate::arith::sub_limbs(&m, &[2, 0, 0, 0]).0;
            let half = [(m[0] >> 1) | (m[1] << 63), (m[1] >> 1) | (m[2] << 63), (m[2] >> 1) | (m[3] << 63), m[3] >> 1];
            let mut xs: Vec<Limbs> = vec![[0; 4], [1, 0, 0, 0], [2, 0, 0, 0], [3, 0, 0, 0], m1, m2, half];
            for _ in 0..300 {
                let v = [next(&mut s), next(&mut s), next(&mut s), next(&mut s)];
                // Reduce below M by masking the top and one subtraction.
                let mut v = [v[0], v[1], v[2], v[3] & (m[3] | (m[3] >> 1) | (m[3] >> 2))];
                while crate::arith::lt(&v, &m) == 0 {
                    v = crate::arith::sub_limbs(&v, &m).0;
                }
                xs.push(v);
            }
            for x in xs {
                let want = big(&x).modpow(&(&mb - 2u32), &mb);
                assert_eq!(big(&invert(&x, &m, &mi)), want, "inverse of {x:x?} mod {m:x?}");
                assert_eq!(big(&invert_vartime(&x, &m, &mi)), want, "vartime inverse of {x:x?} mod {m:x?}");
            }
        }
    }
}
