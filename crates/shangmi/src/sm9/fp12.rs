//! Fp12 = Fp4[w]/(w³ − v): the top of SM9's tower, holding GT.
//!
//! Viewed over Fp2, w⁶ = u and an element is Σ aᵢwⁱ with a0 = c0.c0,
//! a3 = c0.c1, a1 = c1.c0, a4 = c1.c1, a2 = c2.c0, a5 = c2.c1. The k-th
//! Frobenius conjugates each aᵢ k times and multiplies it by
//! γ_{k,i} = u^{i(p^k − 1)/6}, which for SM9's p all lie in Fp (the
//! constants below; `tests::frobenius_constants` recomputes each).

use super::fp::{fp, Fp};
use super::fp2::Fp2;
use super::fp4::Fp4;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// γ_{1,1} = u^((p−1)/6).
pub const G11: Fp = fp([0xa91d8354377b698b, 0x47c5c86e0ddd04ed, 0x843c6cfa9c086749, 0x3f23ea58e5720bdb]);
/// γ_{1,2} = u^((p−1)/3) (also γ_{2,1} = u^((p²−1)/6)).
pub const G12: Fp = fp([0xd5fc11967be65334, 0x780272354f8b78f4, 0xf300000002a3a6f2, 0]);
/// γ_{1,3} = u^((p−1)/2) (also γ_{3,1}).
pub const G13: Fp = fp([0xf5b21fd3da24d011, 0x9f9d411806dc5177, 0xf55acc93ee0baf15, 0x6c648de5dc0a3f2c]);
/// γ_{1,4} = u^(2(p−1)/3) (also γ_{2,2}); G12·G14 ≡ ... and G14 = G12 − 1.
pub const G14: Fp = fp([0xd5fc11967be65333, 0x780272354f8b78f4, 0xf300000002a3a6f2, 0]);
/// γ_{1,5} = u^(5(p−1)/6).
pub const G15: Fp = fp([0x4c949c7fa2a96686, 0x57d778a9f8ff4c8a, 0x711e5f99520347cc, 0x2d40a38cf6983351]);

/// c0 + c1·w + c2·w².
#[derive(Clone, Copy, Debug, Default)]
pub struct Fp12 {
    pub c0: Fp4,
    pub c1: Fp4,
    pub c2: Fp4,
}

impl Zeroize for Fp12 {
    fn zeroize(&mut self) {
        self.c0.zeroize();
        self.c1.zeroize();
        self.c2.zeroize();
    }
}

impl ConditionallySelectable for Fp12 {
    #[inline(always)]
    fn conditional_select(a: &Self, b: &Self, c: Choice) -> Self {
        Fp12 {
            c0: Fp4::conditional_select(&a.c0, &b.c0, c),
            c1: Fp4::conditional_select(&a.c1, &b.c1, c),
            c2: Fp4::conditional_select(&a.c2, &b.c2, c),
        }
    }
}

impl ConstantTimeEq for Fp12 {
    #[inline(always)]
    fn ct_eq(&self, o: &Self) -> Choice {
        self.c0.ct_eq(&o.c0) & self.c1.ct_eq(&o.c1) & self.c2.ct_eq(&o.c2)
    }
}

impl Fp12 {
    pub const ZERO: Self = Fp12 { c0: Fp4::ZERO, c1: Fp4::ZERO, c2: Fp4::ZERO };
    pub const ONE: Self = Fp12 { c0: Fp4::ONE, c1: Fp4::ZERO, c2: Fp4::ZERO };

    pub fn add(&self, o: &Self) -> Self {
        Fp12 { c0: self.c0.add(&o.c0), c1: self.c1.add(&o.c1), c2: self.c2.add(&o.c2) }
    }

    pub fn sub(&self, o: &Self) -> Self {
        Fp12 { c0: self.c0.sub(&o.c0), c1: self.c1.sub(&o.c1), c2: self.c2.sub(&o.c2) }
    }

    pub fn neg(&self) -> Self {
        Fp12 { c0: self.c0.neg(), c1: self.c1.neg(), c2: self.c2.neg() }
    }

    /// Cubic Karatsuba: six Fp4 multiplications.
    pub fn mul(&self, o: &Self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let (b0, b1, b2) = (&o.c0, &o.c1, &o.c2);
        let v0 = a0.mul(b0);
        let v1 = a1.mul(b1);
        let v2 = a2.mul(b2);
        // c0 = v0 + v·((a1 + a2)(b1 + b2) − v1 − v2)
        let t0 = a1.add(a2).mul(&b1.add(b2)).sub(&v1).sub(&v2);
        // c1 = (a0 + a1)(b0 + b1) − v0 − v1 + v·v2
        let t1 = a0.add(a1).mul(&b0.add(b1)).sub(&v0).sub(&v1);
        // c2 = (a0 + a2)(b0 + b2) − v0 − v2 + v1
        let t2 = a0.add(a2).mul(&b0.add(b2)).sub(&v0).sub(&v2);
        Fp12 { c0: v0.add(&t0.mul_v()), c1: t1.add(&v2.mul_v()), c2: t2.add(&v1) }
    }

    /// Generic squaring (Chung–Hasan SQR2): two multiplications, three squarings in Fp4.
    pub fn square(&self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        let s0 = a0.square();
        let s1 = a0.mul(a1).double();
        let s2 = a0.sub(a1).add(a2).square();
        let s3 = a1.mul(a2).double();
        let s4 = a2.square();
        Fp12 { c0: s0.add(&s3.mul_v()), c1: s1.add(&s4.mul_v()), c2: s1.add(&s2).add(&s3).sub(&s0).sub(&s4) }
    }

    /// Squaring in the cyclotomic subgroup (order dividing p⁴ − p² + 1),
    /// Granger–Scott over Fp4 (q = p², conjugation v ↦ −v):
    /// c0' = 3c0² − 2c̄0, c1' = 3v·c2² + 2c̄1, c2' = 3c1² − 2c̄2.
    /// Only correct for such elements (results of the final exponentiation's easy part).
    /// Each 3s ∓ 2c̄ is computed as 2(s ∓ c̄) + s per Fp2 half (three Fp2
    /// additions instead of the nine of tripling, conjugating, doubling
    /// and subtracting separately).
    pub fn cyclotomic_square(&self) -> Self {
        // 3s − 2c̄ with c̄ = c.c0 − c.c1·v.
        let minus =
            |s: &Fp4, c: &Fp4| Fp4::new(s.c0.sub(&c.c0).double().add(&s.c0), s.c1.add(&c.c1).double().add(&s.c1));
        // 3s + 2c̄.
        let plus =
            |s: &Fp4, c: &Fp4| Fp4::new(s.c0.add(&c.c0).double().add(&s.c0), s.c1.sub(&c.c1).double().add(&s.c1));
        let s0 = self.c0.square();
        let s1 = self.c1.square();
        let s2 = self.c2.square();
        Fp12 { c0: minus(&s0, &self.c0), c1: plus(&s2.mul_v(), &self.c1), c2: minus(&s1, &self.c2) }
    }

    /// self · (a + b·w²) for a line a = l0 + l1·v, b = l2 (an Fp2): the
    /// shape every Miller-loop line takes here. With self = f0 + f1·w + f2·w²
    /// the w² coefficient f2·a + f0·b comes from one Karatsuba product
    /// (f0 + f2)(a + b) − f0·a − f2·b: thirteen Fp2 multiplications.
    pub fn mul_by_line(&self, l0: &Fp2, l1: &Fp2, l2: &Fp2) -> Self {
        let a = Fp4::new(*l0, *l1);
        let f0a = self.c0.mul(&a);
        let f1a = self.c1.mul(&a);
        let f1b = self.c1.mul_fp2(l2);
        let f2b = self.c2.mul_fp2(l2);
        let s = self.c0.add(&self.c2).mul(&Fp4::new(l0.add(l2), *l1));
        Fp12 { c0: f0a.add(&f1b.mul_v()), c1: f1a.add(&f2b.mul_v()), c2: s.sub(&f0a).sub(&f2b) }
    }

    /// Conjugate over Fp6 = Fp2(w²): w ↦ −w, i.e. the p⁶ Frobenius; the
    /// inverse of a unitary element (everything after the easy part).
    pub fn conj(&self) -> Self {
        Fp12 {
            c0: Fp4::new(self.c0.c0, self.c0.c1.neg()),
            c1: Fp4::new(self.c1.c0.neg(), self.c1.c1),
            c2: Fp4::new(self.c2.c0, self.c2.c1.neg()),
        }
    }

    /// The p-power Frobenius.
    pub fn frobenius(&self) -> Self {
        Fp12 {
            c0: Fp4::new(self.c0.c0.conj(), self.c0.c1.conj().mul_fp(&G13)),
            c1: Fp4::new(self.c1.c0.conj().mul_fp(&G11), self.c1.c1.conj().mul_fp(&G14)),
            c2: Fp4::new(self.c2.c0.conj().mul_fp(&G12), self.c2.c1.conj().mul_fp(&G15)),
        }
    }

    /// The p²-power Frobenius: γ_{2,i} = G12, G14, −1, −G12, −G14 for i = 1..5.
    pub fn frobenius2(&self) -> Self {
        Fp12 {
            c0: Fp4::new(self.c0.c0, self.c0.c1.neg()),
            c1: Fp4::new(self.c1.c0.mul_fp(&G12), self.c1.c1.mul_fp(&G12).neg()),
            c2: Fp4::new(self.c2.c0.mul_fp(&G14), self.c2.c1.mul_fp(&G14).neg()),
        }
    }

    /// The p³-power Frobenius: γ_{3,i} = G13, −1, −G13, 1, G13 for i = 1..5.
    pub fn frobenius3(&self) -> Self {
        Fp12 {
            c0: Fp4::new(self.c0.c0.conj(), self.c0.c1.conj().mul_fp(&G13).neg()),
            c1: Fp4::new(self.c1.c0.conj().mul_fp(&G13), self.c1.c1.conj()),
            c2: Fp4::new(self.c2.c0.conj().neg(), self.c2.c1.conj().mul_fp(&G13)),
        }
    }

    /// Constant-time inverse (0 ↦ 0), by the norm to Fp4.
    pub fn invert(&self) -> Self {
        let (a0, a1, a2) = (&self.c0, &self.c1, &self.c2);
        // Adjugate of the multiplication matrix for w³ = v.
        let t0 = a0.square().sub(&a1.mul(a2).mul_v());
        let t1 = a2.square().mul_v().sub(&a0.mul(a1));
        let t2 = a1.square().sub(&a0.mul(a2));
        let d = a0.mul(&t0).add(&a2.mul(&t1).mul_v()).add(&a1.mul(&t2).mul_v()).invert();
        Fp12 { c0: t0.mul(&d), c1: t1.mul(&d), c2: t2.mul(&d) }
    }

    pub fn is_zero(&self) -> Choice {
        self.c0.is_zero() & self.c1.is_zero() & self.c2.is_zero()
    }

    pub fn is_one(&self) -> Choice {
        self.ct_eq(&Fp12::ONE)
    }

    /// self^e, public exponent (little-endian limbs), generic squaring.
    pub fn pow_vartime(&self, e: &[u64]) -> Self {
        let mut acc = Fp12::ONE;
        for limb in e.iter().rev() {
            for i in (0..64).rev() {
                acc = acc.square();
                if (limb >> i) & 1 == 1 {
                    acc = acc.mul(self);
                }
            }
        }
        acc
    }

    /// The twelve Fp coefficients, c0 (its Fp2 parts, each c0 then c1) first.
    pub fn coefficients(&self) -> [Fp; 12] {
        let f = [self.c0.c0, self.c0.c1, self.c1.c0, self.c1.c1, self.c2.c0, self.c2.c1];
        core::array::from_fn(|i| if i % 2 == 0 { f[i / 2].c0 } else { f[i / 2].c1 })
    }

    /// Inverse of [`Fp12::coefficients`].
    pub fn from_coefficients(c: &[Fp; 12]) -> Self {
        let f2 = |i: usize| Fp2::new(c[2 * i], c[2 * i + 1]);
        Fp12 { c0: Fp4::new(f2(0), f2(1)), c1: Fp4::new(f2(2), f2(3)), c2: Fp4::new(f2(4), f2(5)) }
    }

    /// The 384-byte encoding of GM/T 0044 (as the standard's examples print
    /// it): c2, c1, c0, each Fp4 as its v-part then its 1-part, each Fp2 as
    /// its u-coefficient then its constant.
    pub fn to_bytes(&self) -> [u8; 384] {
        let mut out = [0u8; 384];
        let parts = [
            self.c2.c1.c1,
            self.c2.c1.c0,
            self.c2.c0.c1,
            self.c2.c0.c0,
            self.c1.c1.c1,
            self.c1.c1.c0,
            self.c1.c0.c1,
            self.c1.c0.c0,
            self.c0.c1.c1,
            self.c0.c1.c0,
            self.c0.c0.c1,
            self.c0.c0.c0,
        ];
        for (chunk, x) in out.chunks_exact_mut(32).zip(parts.iter()) {
            chunk.copy_from_slice(&x.to_be_bytes());
        }
        out
    }

    /// Inverse of [`Fp12::to_bytes`]; `None` if any coordinate is ≥ p.
    /// (No subgroup check: callers that take GT elements from outside check that.)
    pub fn from_bytes(b: &[u8; 384]) -> Option<Self> {
        let mut v = [Fp::ZERO; 12];
        for (i, chunk) in b.chunks_exact(32).enumerate() {
            let mut c = [0u8; 32];
            c.copy_from_slice(chunk);
            v[i] = Option::from(Fp::from_be_bytes(&c))?;
        }
        let f2 = |hi: Fp, lo: Fp| Fp2::new(lo, hi);
        Some(Fp12 {
            c2: Fp4::new(f2(v[2], v[3]), f2(v[0], v[1])),
            c1: Fp4::new(f2(v[6], v[7]), f2(v[4], v[5])),
            c0: Fp4::new(f2(v[10], v[11]), f2(v[8], v[9])),
        })
    }
}
