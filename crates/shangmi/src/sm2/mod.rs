//! SM2 (GB/T 32918): curve arithmetic, signatures, encryption, key exchange.
//!
//! Curve sm2p256v1: y² = x³ − 3x + b over Fp, p = 2^256 − 2^224 − 2^96 +
//! 2^64 − 1, prime order n, cofactor 1.
//!
//! Memory: k·G uses one process-wide comb (37 × 64 affine points, 151,552
//! bytes) built on first use from G alone (`mul::g_table`); a prepared
//! public key carries its own comb (43 × 32 points, 88,064 bytes);
//! verification also uses a process-wide table of 256 odd multiples of G
//! (16,384 bytes, built on the first verification).
//!
//! Constant time: `scripts/ctime.sh` runs `examples/sm2_ctime.rs` under
//! valgrind with every secret marked undefined; it fails on any
//! secret-dependent branch or memory index.
//!
//! Nonces: a signature's k = SM3(d ‖ DOMAIN ‖ seed ‖ e ‖ tag ‖ 1), rejection
//! sampled into [1, n−1], with a fresh 16-byte `seed` of OS randomness each
//! time ("hedged" nonces: still random if the key and message repeat, still
//! unpredictable to anyone without d if the generator were weak); see
//! `nonce.rs`. Encryption ephemerals are 32 bytes straight from the OS
//! (rejection sampled); key-exchange ephemerals and the signature pool use
//! SM3-KDF(seed ‖ extra…) mod n with a 32-byte OS seed.
//!
//! Affine conversions of secret points (k·G when signing, k·G and k·P when
//! encrypting, d·C1 when decrypting) invert Z·β for a fresh random β with
//! the faster variable-time inversion (`nonce::invert_blinded`).

use crate::ctime;
pub mod field;
mod kex;
pub mod mul;
mod nonce;
pub mod point;

pub use crate::ctime::{classify, declassify};
pub use kex::{KeyExchange, KeyExchangeResult, Role};

use crate::arith::{is_zero_limbs, limbs_from_be, Limbs};
use crate::{sm3, Error, Result};
use field::{Fn, Fp, A_BYTES, B_BYTES, GX_BYTES, GY_BYTES, N, P};
use mul::CombTable;
use nonce::{invert_blinded, NonceKey};
use point::{batch_to_affine, Affine, Jacobian};
use rayon::prelude::*;
use std::sync::{Arc, Mutex, OnceLock};
use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

/// The default user ID of GM/T 0009 (used by GmSSL; OpenSSL uses an empty ID).
pub const DEFAULT_UID: &[u8] = b"1234567812345678";

/// Longest user ID: ENTL is a 16-bit bit length.
pub const MAX_UID_LEN: usize = 8191;

/// Comb width of a prepared public key's table.
const PREPARED_COMB_W: usize = 6;

/// Upper bound for one [`SignaturePool`] fill.
pub const MAX_POOL: usize = 1_000_000;

/// Raw signature (r, s), each 32 bytes big-endian.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signature {
    pub r: [u8; 32],
    pub s: [u8; 32],
}

impl Signature {
    /// 64 bytes r‖s with r, s ∈ [1, n−1], else [`Error::InvalidSignature`].
    pub fn from_bytes(raw: &[u8]) -> Result<Self> {
        if raw.len() != 64 {
            return Err(Error::InvalidSignature);
        }
        let mut r = [0u8; 32];
        let mut s = [0u8; 32];
        r.copy_from_slice(&raw[..32]);
        s.copy_from_slice(&raw[32..]);
        let sig = Signature { r, s };
        sig.scalars().ok_or(Error::InvalidSignature)?;
        Ok(sig)
    }

    /// r‖s.
    pub fn to_bytes(&self) -> [u8; 64] {
        let mut out = [0u8; 64];
        out[..32].copy_from_slice(&self.r);
        out[32..].copy_from_slice(&self.s);
        out
    }

    /// (r, s) as canonical limbs if both are in [1, n−1].
    fn scalars(&self) -> Option<(Limbs, Limbs)> {
        let r = limbs_from_be(&self.r);
        let s = limbs_from_be(&self.s);
        let in_range = |x: &Limbs| crate::arith::lt(x, &N) == 1 && !bool::from(is_zero_limbs(x));
        if in_range(&r) && in_range(&s) {
            Some((r, s))
        } else {
            None
        }
    }
}

/// SM2 ciphertext parts. C1 is always kept uncompressed (04‖x‖y).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ciphertext {
    pub c1: [u8; 65],
    pub c3: [u8; 32],
    pub c2: Vec<u8>,
}

impl Ciphertext {
    fn split_c1(b: &[u8], layout: &str) -> Result<[u8; 65]> {
        if b.len() < 65 + 32 + 1 {
            return Err(Error::invalid(format!(
                "SM2 ciphertext too short: {} bytes, need at least 98 for {layout} (65-byte C1, 32-byte C3, non-empty C2)",
                b.len()
            )));
        }
        if b[0] != 4 {
            return Err(Error::invalid(format!(
                "SM2 ciphertext C1 must be an uncompressed point starting with 04, got {:02x}",
                b[0]
            )));
        }
        let mut c1 = [0u8; 65];
        c1.copy_from_slice(&b[..65]);
        Ok(c1)
    }

    /// C1‖C3‖C2 (GB/T 32918.4-2016 order). C1's curve membership is checked
    /// at decryption (which fails opaquely).
    pub fn from_c1c3c2(b: &[u8]) -> Result<Self> {
        let c1 = Self::split_c1(b, "C1C3C2")?;
        let mut c3 = [0u8; 32];
        c3.copy_from_slice(&b[65..97]);
        Ok(Ciphertext { c1, c3, c2: b[97..].to_vec() })
    }

    /// C1‖C2‖C3 (the 2010 draft order, still used by some peers).
    pub fn from_c1c2c3(b: &[u8]) -> Result<Self> {
        let c1 = Self::split_c1(b, "C1C2C3")?;
        let split = b.len() - 32;
        let mut c3 = [0u8; 32];
        c3.copy_from_slice(&b[split..]);
        Ok(Ciphertext { c1, c3, c2: b[65..split].to_vec() })
    }

    pub fn to_c1c3c2(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(97 + self.c2.len());
        out.extend_from_slice(&self.c1);
        out.extend_from_slice(&self.c3);
        out.extend_from_slice(&self.c2);
        out
    }

    pub fn to_c1c2c3(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(97 + self.c2.len());
        out.extend_from_slice(&self.c1);
        out.extend_from_slice(&self.c2);
        out.extend_from_slice(&self.c3);
        out
    }
}

struct PkInner {
    point: Affine,
    x: [u8; 32],
    y: [u8; 32],
    /// Comb of 43 sub-tables × 32 affine points (88,064 bytes) if prepared.
    table: Option<CombTable>,
    /// Z for the default user ID (public data), computed on first use:
    /// verifying with the default ID then hashes Z‖M only, not the ~210
    /// bytes of ENTL‖ID‖a‖b‖G‖P as well.
    z_default: OnceLock<[u8; 32]>,
}

/// An SM2 public key (a validated curve point other than infinity).
#[derive(Clone)]
pub struct PublicKey {
    inner: Arc<PkInner>,
}

impl core::fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PublicKey(04")?;
        for b in self.inner.x.iter().chain(self.inner.y.iter()) {
            write!(f, "{b:02x}")?;
        }
        write!(f, "{})", if self.is_prepared() { ", prepared" } else { "" })
    }
}

impl PartialEq for PublicKey {
    fn eq(&self, other: &Self) -> bool {
        self.inner.x == other.inner.x && self.inner.y == other.inner.y
    }
}
impl Eq for PublicKey {}

impl PublicKey {
    fn from_affine(point: Affine) -> Self {
        let x = point.x.to_be_bytes();
        let y = point.y.to_be_bytes();
        PublicKey { inner: Arc::new(PkInner { point, x, y, table: None, z_default: OnceLock::new() }) }
    }

    /// 65-byte 04‖x‖y, 33-byte 02/03‖x, or 64-byte x‖y; validates that the
    /// coordinates are < p and the point is on the curve (the point at
    /// infinity has no such encoding, and its 1-byte 00 form is refused).
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        let mut x = [0u8; 32];
        let mut y = [0u8; 32];
        let point = match b.len() {
            65 | 64 => {
                let body = if b.len() == 65 {
                    if b[0] != 4 {
                        return Err(Error::invalid_key(format!(
                            "SM2 public key of 65 bytes must start with 04 (uncompressed), got {:02x}",
                            b[0]
                        )));
                    }
                    &b[1..]
                } else {
                    b
                };
                x.copy_from_slice(&body[..32]);
                y.copy_from_slice(&body[32..]);
                Affine::from_xy_vartime(&x, &y)
            }
            33 => {
                if b[0] != 2 && b[0] != 3 {
                    return Err(Error::invalid_key(format!(
                        "SM2 compressed public key must start with 02 or 03, got {:02x}",
                        b[0]
                    )));
                }
                x.copy_from_slice(&b[1..]);
                Affine::decompress_vartime(&x, b[0] == 3)
            }
            1 if b[0] == 0 => return Err(Error::invalid_key("SM2 public key is the point at infinity")),
            n => {
                return Err(Error::invalid_key(format!(
                    "SM2 public key must be 65 bytes (04||x||y), 33 bytes (02/03||x) or 64 bytes (x||y), got {n}"
                )))
            }
        };
        point.map(Self::from_affine).map_err(|m| Error::invalid_key(format!("invalid SM2 public key: {m}")))
    }

    /// 65 bytes 04‖x‖y, or 33 bytes 02/03‖x.
    pub fn to_bytes(&self, compressed: bool) -> Vec<u8> {
        if compressed {
            let mut out = Vec::with_capacity(33);
            out.push(2 | (self.inner.y[31] & 1));
            out.extend_from_slice(&self.inner.x);
            out
        } else {
            let mut out = Vec::with_capacity(65);
            out.push(4);
            out.extend_from_slice(&self.inner.x);
            out.extend_from_slice(&self.inner.y);
            out
        }
    }

    /// The coordinates, big-endian.
    pub fn x_y(&self) -> ([u8; 32], [u8; 32]) {
        (self.inner.x, self.inner.y)
    }

    /// Z = SM3(ENTL ‖ uid ‖ a ‖ b ‖ xG ‖ yG ‖ xA ‖ yA); uid up to 8191 bytes.
    pub fn z(&self, uid: &[u8]) -> Result<[u8; 32]> {
        if uid.len() > MAX_UID_LEN {
            return Err(Error::invalid(format!("SM2 user ID too long: {} bytes, at most {MAX_UID_LEN}", uid.len())));
        }
        let compute = || {
            let entl = ((uid.len() * 8) as u16).to_be_bytes();
            sm3::hash_parts(&[&entl, uid, &A_BYTES, &B_BYTES, &GX_BYTES, &GY_BYTES, &self.inner.x, &self.inner.y])
        };
        if uid == DEFAULT_UID {
            return Ok(*self.inner.z_default.get_or_init(compute));
        }
        Ok(compute())
    }

    /// e = SM3(Z ‖ M).
    fn digest(&self, msg: &[u8], uid: &[u8]) -> Result<[u8; 32]> {
        let z = self.z(uid)?;
        Ok(sm3::hash_parts(&[&z, msg]))
    }

    /// Verifies a signature over `msg` with user ID `uid`.
    pub fn verify(&self, msg: &[u8], uid: &[u8], sig: &Signature) -> Result<()> {
        let e = self.digest(msg, uid)?;
        self.verify_digest(&e, sig)
    }

    /// Verifies a signature over a caller-computed e = SM3(Z ‖ M).
    pub fn verify_digest(&self, e: &[u8; 32], sig: &Signature) -> Result<()> {
        let (r, s) = sig.scalars().ok_or(Error::InvalidSignature)?;
        let rf = Fn::from_canonical(&r);
        let sf = Fn::from_canonical(&s);
        let t = rf.add(&sf);
        if bool::from(t.is_zero()) {
            return Err(Error::InvalidSignature);
        }
        let q = mul::double_mul_vartime(&s, &t.to_canonical(), &self.inner.point, self.inner.table.as_ref());
        if bool::from(q.is_infinity()) {
            return Err(Error::InvalidSignature);
        }
        // R = (e + x1) mod n == r ⇔ x1 ≡ r − e (mod n). x1 < p < 2n, so x1 is
        // c = (r − e) mod n or c + n (if < p). Compare X == c·Z² to skip the
        // inversion.
        let ef = Fn::from_limbs_reduce(&limbs_from_be(e));
        let c = rf.sub(&ef).to_canonical();
        let z2 = q.z.square();
        let matches = |cand: &Limbs| bool::from(Fp::from_canonical(cand).mul(&z2).ct_eq(&q.x));
        if matches(&c) {
            return Ok(());
        }
        let (c2, carry) = crate::arith::add_limbs(&c, &N);
        if carry == 0 && crate::arith::lt(&c2, &P) == 1 && matches(&c2) {
            return Ok(());
        }
        Err(Error::InvalidSignature)
    }

    /// Encrypts `plaintext` (at least one byte) with a fresh random k.
    pub fn encrypt(&self, plaintext: &[u8]) -> Result<Ciphertext> {
        if plaintext.is_empty() {
            return Err(Error::invalid("SM2 plaintext must not be empty"));
        }
        loop {
            let (k, beta) = nonce::os_pair()?;
            if let Some(ct) = self.encrypt_with_k(plaintext, &k, &beta) {
                return Ok(ct);
            }
        }
    }

    /// Encryption with a given k and a fresh blinding factor β ∈ [1, p−1];
    /// `None` if the KDF output is all zero.
    fn encrypt_with_k(&self, m: &[u8], k: &Fn, beta: &Fp) -> Option<Ciphertext> {
        let mut kl = Zeroizing::new(k.to_canonical());
        let c1 = mul::mul_g_ct(&kl);
        let mut s = match &self.inner.table {
            Some(t) => t.mul_ct(&kl),
            None => mul::mul_ct(&self.inner.point, &kl),
        };
        kl.zeroize();
        // One shared inversion for both points (Montgomery's trick), blinded:
        // neither is infinity (k ∈ [1, n−1], P ≠ O, n prime).
        let mut inv = invert_blinded(&c1.z.mul(&s.z), beta);
        let c1_aff = affine_with_inverse(&c1, &inv.mul(&s.z));
        let mut s_aff = affine_with_inverse(&s, &inv.mul(&c1.z));
        inv.zeroize();
        s.zeroize();
        let c1 = c1_aff.to_uncompressed();
        declassify(&c1);
        let mut x2y2 = Zeroizing::new([0u8; 64]);
        x2y2[..32].copy_from_slice(&s_aff.x.to_be_bytes());
        x2y2[32..].copy_from_slice(&s_aff.y.to_be_bytes());
        s_aff.zeroize();
        let mut c2 = vec![0u8; m.len()];
        sm3::kdf_into(&[&x2y2[..]], &mut c2);
        let nonzero = c2.iter().fold(0u8, |a, b| a | b);
        if !ctime::public_bool(!nonzero.ct_eq(&0)) {
            c2.zeroize();
            return None;
        }
        c2.iter_mut().zip(m).for_each(|(t, b)| *t ^= b);
        let c3 = sm3::hash_parts(&[&x2y2[..32], m, &x2y2[32..]]);
        declassify(&c2[..]);
        declassify(&c3);
        Some(Ciphertext { c1, c3, c2 })
    }

    /// Precomputes a fixed-base comb for this key (43 sub-tables of 32 affine
    /// points: 88,064 bytes), so encryption's k·P and verification's t·P need
    /// 43 mixed additions and no doublings. (Width 6 rather than 5 (52 × 16
    /// points, 53,248 bytes): k·P 1.16× faster, in-process A/B of
    /// examples/sm2_mul_ab.rs.) Returns a new key sharing the
    /// point; the original is unchanged.
    pub fn prepare(&self) -> PublicKey {
        if self.is_prepared() {
            return self.clone();
        }
        let table = CombTable::new_vartime(&self.inner.point, PREPARED_COMB_W);
        PublicKey {
            inner: Arc::new(PkInner {
                point: self.inner.point,
                x: self.inner.x,
                y: self.inner.y,
                table: Some(table),
                z_default: self.inner.z_default.clone(),
            }),
        }
    }

    pub fn is_prepared(&self) -> bool {
        self.inner.table.is_some()
    }

    /// Bytes held by the prepared table (0 if not prepared).
    pub fn prepared_memory_bytes(&self) -> usize {
        self.inner.table.as_ref().map_or(0, |t| t.memory_bytes())
    }

    pub(crate) fn point(&self) -> &Affine {
        &self.inner.point
    }
}

/// (X·Z⁻², Y·Z⁻³) given Z⁻¹.
#[inline]
fn affine_with_inverse(p: &Jacobian, zi: &Fp) -> Affine {
    let zi2 = zi.square();
    Affine { x: p.x.mul(&zi2), y: p.y.mul(&zi2).mul(zi) }
}

/// A k drawn as SM3-KDF(seed ‖ extra…, 64 bytes) mod n with a fresh OS
/// seed; never 0 (key-exchange ephemerals, the signature pool).
fn random_scalar(extra: &[&[u8]]) -> Result<Fn> {
    loop {
        let mut seed = Zeroizing::new([0u8; 32]);
        crate::rand::fill(&mut seed[..])?;
        classify(&seed[..]);
        let mut parts: Vec<&[u8]> = Vec::with_capacity(extra.len() + 1);
        parts.push(&seed[..]);
        parts.extend_from_slice(extra);
        let mut wide = Zeroizing::new([0u8; 64]);
        sm3::kdf_into(&parts, &mut wide[..]);
        let k = reduce_wide(&wide);
        if !ctime::public_bool(k.is_zero()) {
            return Ok(k);
        }
    }
}

/// A 64-byte big-endian integer mod n (bias below 2^-250), Montgomery form.
fn reduce_wide(b: &[u8; 64]) -> Fn {
    let mut hi_b = [0u8; 32];
    let mut lo_b = [0u8; 32];
    hi_b.copy_from_slice(&b[..32]);
    lo_b.copy_from_slice(&b[32..]);
    let hi = Fn::from_limbs_reduce(&limbs_from_be(&hi_b));
    let lo = Fn::from_limbs_reduce(&limbs_from_be(&lo_b));
    hi_b.zeroize();
    lo_b.zeroize();
    // The element whose value is R = 2^256 has Montgomery limbs R² mod n.
    let r = Fn::from_mont_limbs(<field::Sm2N as crate::arith::Modulus>::R2);
    hi.mul(&r).add(&lo)
}

/// An SM2 private key d ∈ [1, n−2] with its cached public key, default-uid
/// Z, (1+d)⁻¹ and the SM3 state over d of its nonce derivation. Zeroized on
/// drop.
pub struct PrivateKey {
    d: Fn,
    inv1pd: Fn,
    public: PublicKey,
    z_default: [u8; 32],
    nonce: NonceKey,
}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PrivateKey {{ public: {:?}, .. }}", self.public)
    }
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.d.zeroize();
        self.inv1pd.zeroize();
    }
}

impl Clone for PrivateKey {
    fn clone(&self) -> Self {
        PrivateKey {
            d: self.d,
            inv1pd: self.inv1pd,
            public: self.public.clone(),
            z_default: self.z_default,
            nonce: self.nonce.clone(),
        }
    }
}

impl PrivateKey {
    /// A fresh key from the OS CSPRNG.
    pub fn generate() -> Result<Self> {
        loop {
            let mut b = Zeroizing::new([0u8; 32]);
            crate::rand::fill(&mut b[..])?;
            classify(&b[..]);
            if let Some(k) = Self::from_secret_bytes(&b) {
                return Ok(k);
            }
        }
    }

    /// 32 bytes big-endian, 1 ≤ d ≤ n−2, else [`Error::InvalidKey`].
    pub fn from_bytes(d: &[u8]) -> Result<Self> {
        let b: &[u8; 32] = d
            .try_into()
            .map_err(|_| Error::invalid_key(format!("SM2 private key must be 32 bytes, got {}", d.len())))?;
        Self::from_secret_bytes(b).ok_or_else(|| Error::invalid_key("SM2 private key out of range: need 1 <= d <= n-2"))
    }

    /// Range check in constant time; only the valid/invalid bit is published.
    fn from_secret_bytes(b: &[u8; 32]) -> Option<Self> {
        let mut l = Zeroizing::new(limbs_from_be(b));
        let n_minus_1 = crate::arith::sub_limbs(&N, &[1, 0, 0, 0]).0;
        let below = Choice::from(crate::arith::lt(&l, &n_minus_1) as u8);
        let valid = below & !is_zero_limbs(&l);
        if !ctime::public_bool(valid) {
            return None;
        }
        let d = Fn::from_canonical(&l);
        let p = mul::mul_g_ct(&l).to_affine();
        l.zeroize();
        declassify(&p);
        let public = PublicKey::from_affine(p);
        let inv1pd = Fn::ONE.add(&d).invert();
        // Z for the default uid is a hash of public data only.
        let z_default = public.z(DEFAULT_UID).ok()?;
        Some(PrivateKey { d, inv1pd, public, z_default, nonce: NonceKey::new(b) })
    }

    /// d, 32 bytes big-endian.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.d.to_be_bytes())
    }

    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    fn digest(&self, msg: &[u8], uid: &[u8]) -> Result<[u8; 32]> {
        let z = if uid == DEFAULT_UID { self.z_default } else { self.public.z(uid)? };
        Ok(sm3::hash_parts(&[&z, msg]))
    }

    /// Signs `msg` for user ID `uid` (e = SM3(Z ‖ M)).
    pub fn sign(&self, msg: &[u8], uid: &[u8]) -> Result<Signature> {
        let e = self.digest(msg, uid)?;
        self.sign_digest(&e)
    }

    /// Signs a caller-computed e = SM3(Z ‖ M).
    pub fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature> {
        loop {
            let (k, beta) = self.nonce.sign_pair(e)?;
            let kl = Zeroizing::new(k.to_canonical());
            let mut p = mul::mul_g_ct(&kl);
            // Only x is needed: X·(Z⁻¹)², Z⁻¹ through the blinded inversion
            // (p ≠ O since k ∈ [1, n−1]).
            let x = p.x.mul(&invert_blinded(&p.z, &beta).square());
            p.zeroize();
            let x1 = Fn::from_limbs_reduce(&x.to_canonical());
            if let Some(sig) = self.sign_finish(e, &k, &x1) {
                return Ok(sig);
            }
        }
    }

    /// Signs many caller-computed digests with one shared field inversion
    /// (Montgomery's trick over the k·G points) instead of one per
    /// signature; otherwise exactly [`Self::sign_digest`] for each. The batch
    /// inversion is constant time in the values, like the single one.
    #[doc(hidden)]
    pub fn sign_digests(&self, es: &[[u8; 32]]) -> Result<Vec<Signature>> {
        let mut ks = Vec::with_capacity(es.len());
        let mut pts = Vec::with_capacity(es.len());
        for e in es {
            let k = self.nonce.sign_k(e)?;
            let kl = Zeroizing::new(k.to_canonical());
            pts.push(mul::mul_g_ct(&kl));
            ks.push(k);
        }
        let mut aff = batch_to_affine(&pts);
        pts.zeroize();
        let mut out = Vec::with_capacity(es.len());
        for ((e, k), p) in es.iter().zip(ks.iter()).zip(aff.iter()) {
            let x1 = Fn::from_limbs_reduce(&p.x.to_canonical());
            match self.sign_finish(e, k, &x1) {
                Some(sig) => out.push(sig),
                // r = 0, r + k = n or s = 0 (probability ~2^-254): a fresh k.
                None => out.push(self.sign_digest(e)?),
            }
        }
        ks.zeroize();
        aff.zeroize();
        Ok(out)
    }

    /// s = (1+d)⁻¹·(k + r) − r, equal to (1+d)⁻¹·(k − r·d); `None` when the
    /// standard says to draw a new k (r = 0, r + k = n, s = 0).
    fn sign_finish(&self, e: &[u8; 32], k: &Fn, x1: &Fn) -> Option<Signature> {
        let ef = Fn::from_limbs_reduce(&limbs_from_be(e));
        let r = ef.add(x1);
        declassify(&r);
        let kr = k.add(&r);
        if ctime::public_bool(r.is_zero() | kr.is_zero()) {
            return None;
        }
        let s = self.inv1pd.mul(&kr).sub(&r);
        declassify(&s);
        if bool::from(s.is_zero()) {
            return None;
        }
        Some(Signature { r: r.to_be_bytes(), s: s.to_be_bytes() })
    }

    /// Signs with a precomputed (k, k·G) from `pool` (consumed once, wiped);
    /// falls back to a fresh k when the pool is empty.
    pub fn sign_with_pool(&self, msg: &[u8], uid: &[u8], pool: &SignaturePool) -> Result<Signature> {
        let e = self.digest(msg, uid)?;
        while let Some(entry) = pool.take() {
            if let Some(sig) = self.sign_finish(&e, &entry.k, &entry.x1) {
                return Ok(sig);
            }
        }
        self.sign_digest(&e)
    }

    /// Decrypts; one opaque [`Error::DecryptionFailed`] for every failure
    /// (C1 off the curve, all-zero KDF output, C3 mismatch), and no
    /// plaintext is released unless C3 matches.
    pub fn decrypt(&self, ct: &Ciphertext) -> Result<Vec<u8>> {
        if ct.c1[0] != 4 || ct.c2.is_empty() {
            return Err(Error::DecryptionFailed);
        }
        let mut x = [0u8; 32];
        let mut y = [0u8; 32];
        x.copy_from_slice(&ct.c1[1..33]);
        y.copy_from_slice(&ct.c1[33..]);
        let c1 = Affine::from_xy_vartime(&x, &y).map_err(|_| Error::DecryptionFailed)?;
        let beta = self.nonce.decrypt_blind(&x, y[31] & 1 == 1)?;
        let mut dl = Zeroizing::new(self.d.to_canonical());
        let mut sj = mul::mul_ct(&c1, &dl);
        dl.zeroize();
        // d·C1 ≠ O (C1 ≠ O is on the curve, the cofactor is 1, d ∈ [1, n−2]).
        let mut s = affine_with_inverse(&sj, &invert_blinded(&sj.z, &beta));
        sj.zeroize();
        let mut x2y2 = Zeroizing::new([0u8; 64]);
        x2y2[..32].copy_from_slice(&s.x.to_be_bytes());
        x2y2[32..].copy_from_slice(&s.y.to_be_bytes());
        s.zeroize();
        let mut m = vec![0u8; ct.c2.len()];
        sm3::kdf_into(&[&x2y2[..]], &mut m);
        let nonzero = m.iter().fold(0u8, |a, b| a | b);
        m.iter_mut().zip(&ct.c2).for_each(|(t, c)| *t ^= c);
        let u = sm3::hash_parts(&[&x2y2[..32], &m, &x2y2[32..]]);
        let ok = !nonzero.ct_eq(&0) & u.ct_eq(&ct.c3);
        if ctime::public_bool(ok) {
            Ok(m)
        } else {
            m.zeroize();
            Err(Error::DecryptionFailed)
        }
    }

    pub(crate) fn scalar(&self) -> &Fn {
        &self.d
    }
}

/// One precomputed pair: k and x1 = x(k·G) mod n.
#[derive(Clone, Copy, Default)]
struct PoolEntry {
    k: Fn,
    x1: Fn,
}

impl Zeroize for PoolEntry {
    fn zeroize(&mut self) {
        self.k.zeroize();
        self.x1.zeroize();
    }
}

/// One-time precomputed (k, k·G) pairs: each consumed exactly once, wiped
/// after use; not Clone; thread-safe; fork-safe (a pool inherited through
/// `fork()` is wiped and empty in the child, which then signs with fresh
/// nonces or refills it; the parent keeps its pairs).
pub struct SignaturePool {
    entries: Mutex<PoolEntries>,
}

/// The pairs and the [`crate::rand::fork_generation`] they were drawn in.
struct PoolEntries {
    pairs: Vec<PoolEntry>,
    generation: u64,
}

impl core::ops::Deref for PoolEntries {
    type Target = Vec<PoolEntry>;
    fn deref(&self) -> &Vec<PoolEntry> {
        &self.pairs
    }
}

impl core::ops::DerefMut for PoolEntries {
    fn deref_mut(&mut self) -> &mut Vec<PoolEntry> {
        &mut self.pairs
    }
}

impl core::fmt::Debug for SignaturePool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SignaturePool {{ remaining: {} }}", self.remaining())
    }
}

impl SignaturePool {
    /// A pool of `n` pairs (n ≤ 1,000,000), computed now.
    pub fn new(n: usize) -> Result<Self> {
        let generation = crate::rand::fork_generation();
        let pool = SignaturePool { entries: Mutex::new(PoolEntries { pairs: Vec::new(), generation }) };
        pool.refill(n)?;
        Ok(pool)
    }

    /// Pairs left.
    pub fn remaining(&self) -> usize {
        self.lock().len()
    }

    /// The pairs, after wiping them if this is a forked child's copy.
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolEntries> {
        // A panic while holding the lock can't leave entries half-written
        // (pushes and pops are atomic w.r.t. the data), so poison is ignored.
        let mut guard = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let now = crate::rand::fork_generation();
        if guard.generation != now {
            // Zeroizing a Vec wipes its whole capacity and empties it.
            guard.pairs.zeroize();
            guard.generation = now;
        }
        guard
    }

    /// Adds `n` fresh pairs (the pool holds at most 1,000,000).
    pub fn refill(&self, n: usize) -> Result<()> {
        let drawn_in = crate::rand::fork_generation();
        let have = self.remaining();
        if n > MAX_POOL || have + n > MAX_POOL {
            return Err(Error::invalid(format!(
                "signature pool size must be at most {MAX_POOL} (has {have}, asked to add {n})"
            )));
        }
        const CHUNK: usize = 256;
        let chunks: Vec<usize> = (0..n).step_by(CHUNK).map(|i| CHUNK.min(n - i)).collect();
        let fresh: Result<Vec<Vec<PoolEntry>>> = chunks.par_iter().map(|&c| Self::generate(c)).collect();
        let mut fresh = fresh?;
        let mut entries = self.lock();
        // Another thread may have refilled meanwhile: the bound holds under
        // the lock. A fork during generation leaves the fresh pairs in both
        // processes: only the one they were drawn in keeps them.
        let result = if drawn_in != entries.generation {
            Err(Error::invalid("the process forked while the signature pool was being refilled; refill it again"))
        } else if entries.len() + n > MAX_POOL {
            Err(Error::invalid(format!(
                "signature pool size must be at most {MAX_POOL} (has {}, asked to add {n})",
                entries.len()
            )))
        } else {
            reserve_wiping(&mut entries.pairs, n);
            for chunk in fresh.iter() {
                entries.extend_from_slice(chunk);
            }
            Ok(())
        };
        fresh.iter_mut().for_each(|chunk| chunk.zeroize());
        result
    }

    /// `n` pairs with one shared inversion (Montgomery's trick).
    fn generate(n: usize) -> Result<Vec<PoolEntry>> {
        let mut ks = Vec::with_capacity(n);
        let mut pts: Vec<Jacobian> = Vec::with_capacity(n);
        for _ in 0..n {
            let k = random_scalar(&[b"SM2 signature pool"])?;
            let kl = Zeroizing::new(k.to_canonical());
            pts.push(mul::mul_g_ct(&kl));
            ks.push(k);
        }
        let mut aff = batch_to_affine(&pts);
        pts.zeroize();
        let out = ks
            .iter()
            .zip(aff.iter())
            .map(|(k, p)| PoolEntry { k: *k, x1: Fn::from_limbs_reduce(&p.x.to_canonical()) })
            .collect();
        ks.zeroize();
        aff.zeroize();
        Ok(out)
    }

    /// Removes one pair, wiping its slot.
    fn take(&self) -> Option<Zeroizing<PoolEntry>> {
        let mut entries = self.lock();
        let last = entries.last_mut()?;
        let e = Zeroizing::new(*last);
        last.zeroize();
        entries.pop();
        Some(e)
    }
}

/// Makes room for `extra` more entries without leaving the nonces behind in
/// freed memory: `Vec`'s own growth would copy them to a new buffer and free
/// the old one unwiped, so the old buffer is wiped here before it goes.
fn reserve_wiping(entries: &mut Vec<PoolEntry>, extra: usize) {
    if entries.capacity() - entries.len() >= extra {
        return;
    }
    let mut grown = Vec::with_capacity(entries.len() + extra);
    grown.extend_from_slice(entries);
    // Zeroizing a Vec wipes its whole capacity, then the old buffer is freed.
    entries.zeroize();
    *entries = grown;
}

impl Drop for SignaturePool {
    fn drop(&mut self) {
        // Zeroizing a Vec wipes its whole capacity.
        self.lock().zeroize();
    }
}

/// Messages per shared inversion in [`sign_many`]: the inversion (about a
/// quarter of a signature) is then paid once per 64 signatures, and chunks
/// still spread over the cores.
const SIGN_BATCH: usize = 64;

/// Signs every message with `key` (in parallel, chunks of messages sharing
/// one field inversion).
pub fn sign_many(key: &PrivateKey, msgs: &[&[u8]], uid: &[u8]) -> Result<Vec<Signature>> {
    let chunks: Result<Vec<Vec<Signature>>> = msgs
        .par_chunks(SIGN_BATCH)
        .map(|chunk| {
            let es: Result<Vec<[u8; 32]>> = chunk.iter().map(|m| key.digest(m, uid)).collect();
            key.sign_digests(&es?)
        })
        .collect();
    Ok(chunks?.into_iter().flatten().collect())
}

/// Verifies every (key, message, signature) with user ID `uid` (in parallel).
/// A uid that no signature can use (too long) is the caller's error, as in
/// [`PublicKey::verify`], not a batch of invalid signatures.
pub fn verify_many(items: &[(&PublicKey, &[u8], &Signature)], uid: &[u8]) -> Result<Vec<bool>> {
    if uid.len() > MAX_UID_LEN {
        return Err(Error::invalid(format!("SM2 user ID too long: {} bytes, at most {MAX_UID_LEN}", uid.len())));
    }
    Ok(items.par_iter().map(|(pk, m, s)| pk.verify(m, uid, s).is_ok()).collect())
}

/// Test-only hooks that inject k to reproduce the standard's examples. Only
/// compiled for `cargo test` or the `test-hooks` feature, which the Python
/// binding never enables.
#[cfg(any(test, feature = "test-hooks"))]
#[doc(hidden)]
pub mod testing {
    use super::*;

    fn scalar(k: &[u8; 32]) -> Result<Fn> {
        Option::<Fn>::from(Fn::from_be_bytes(k))
            .filter(|k| !bool::from(k.is_zero()))
            .ok_or_else(|| Error::invalid("k must be in [1, n-1]"))
    }

    /// Signature with a given k (e = SM3(Z ‖ M) for `uid`).
    pub fn sign_with_k(key: &PrivateKey, msg: &[u8], uid: &[u8], k: &[u8; 32]) -> Result<Signature> {
        let e = key.digest(msg, uid)?;
        let k = scalar(k)?;
        let p = mul::mul_g_ct(&k.to_canonical()).to_affine();
        let x1 = Fn::from_limbs_reduce(&p.x.to_canonical());
        key.sign_finish(&e, &k, &x1).ok_or_else(|| Error::invalid("this k gives r = 0, r + k = n or s = 0"))
    }

    /// Encryption with a given k.
    pub fn encrypt_with_k(key: &PublicKey, msg: &[u8], k: &[u8; 32]) -> Result<Ciphertext> {
        let k = scalar(k)?;
        // A fresh blinding factor: the output must not depend on it.
        let (_, beta) = nonce::os_pair()?;
        key.encrypt_with_k(msg, &k, &beta).ok_or_else(|| Error::invalid("this k gives an all-zero KDF output"))
    }

    /// A key exchange with a given ephemeral private key.
    pub fn key_exchange_with_ephemeral(
        role: Role,
        own: &PrivateKey,
        own_uid: &[u8],
        peer: &PublicKey,
        peer_uid: &[u8],
        r: &[u8; 32],
    ) -> Result<KeyExchange> {
        KeyExchange::with_ephemeral(role, own, own_uid, peer, peer_uid, scalar(r)?)
    }

    /// The raw scalar-multiplication entry points, for differential tests:
    /// (k·G constant time, k·P constant time, s·G + t·P vartime, prepared
    /// k·P constant time) as uncompressed points or `None` for infinity.
    pub fn mul_g(k: &[u8; 32]) -> Option<[u8; 65]> {
        affine_bytes(&mul::mul_g_ct(&limbs_from_be(k)))
    }

    pub fn mul_point(p: &PublicKey, k: &[u8; 32]) -> Option<[u8; 65]> {
        affine_bytes(&mul::mul_ct(p.point(), &limbs_from_be(k)))
    }

    pub fn mul_point_prepared(p: &PublicKey, k: &[u8; 32]) -> Option<[u8; 65]> {
        let p = p.prepare();
        let t = p.inner.table.as_ref()?;
        affine_bytes(&t.mul_ct(&limbs_from_be(k)))
    }

    pub fn double_mul(s: &[u8; 32], t: &[u8; 32], p: &PublicKey, prepared: bool) -> Option<[u8; 65]> {
        let p = if prepared { p.prepare() } else { p.clone() };
        affine_bytes(&mul::double_mul_vartime(&limbs_from_be(s), &limbs_from_be(t), p.point(), p.inner.table.as_ref()))
    }

    fn affine_bytes(j: &Jacobian) -> Option<[u8; 65]> {
        if bool::from(j.is_infinity()) {
            None
        } else {
            Some(j.to_affine().to_uncompressed())
        }
    }

    /// Field operations on canonical big-endian values (differential tests).
    pub fn fp_mul(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
        fp(a).mul(&fp(b)).to_be_bytes()
    }
    pub fn fp_inv(a: &[u8; 32]) -> [u8; 32] {
        fp(a).invert().to_be_bytes()
    }
    pub fn fp_inv_vartime(a: &[u8; 32]) -> [u8; 32] {
        fp(a).invert_vartime().to_be_bytes()
    }
    pub fn fp_sqrt(a: &[u8; 32]) -> Option<[u8; 32]> {
        field::sqrt_vartime(&fp(a)).map(|r| r.to_be_bytes())
    }
    pub fn fp_add_sub(a: &[u8; 32], b: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
        (fp(a).add(&fp(b)).to_be_bytes(), fp(a).sub(&fp(b)).to_be_bytes())
    }
    pub fn fn_mul(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
        fnn(a).mul(&fnn(b)).to_be_bytes()
    }
    pub fn fn_inv(a: &[u8; 32]) -> [u8; 32] {
        fnn(a).invert().to_be_bytes()
    }
    pub fn fn_reduce_wide(b: &[u8; 64]) -> [u8; 32] {
        reduce_wide(b).to_be_bytes()
    }
    fn fp(a: &[u8; 32]) -> Fp {
        Fp::from_limbs_reduce(&limbs_from_be(a))
    }
    fn fnn(a: &[u8; 32]) -> Fn {
        Fn::from_limbs_reduce(&limbs_from_be(a))
    }
}
