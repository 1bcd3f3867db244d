//! SM2 key pairs: validation, encodings, Z, and a public key's prepared comb.

use super::ecmult_gen::{self, CombTable};
use super::field::{Fp, Scalar, Sm2P, A_BYTES, B_BYTES, GX_BYTES, GY_BYTES, N};
use super::nonce::NonceKey;
use super::point::{Affine, Jacobian};
use super::{classify, ctime, declassify, DEFAULT_UID, MAX_UID_LEN, PREPARED_COMB_W};
use crate::arith::{invert_blinded, is_zero_limbs, limbs_from_be, nonzero_below};
use crate::rand::buffered_seed;
use crate::{sm3, Error, Result};
use std::sync::{Arc, OnceLock};
use subtle::Choice;
use zeroize::{Zeroize, Zeroizing};

pub(super) struct PkInner {
    pub(super) point: Affine,
    pub(super) x: [u8; 32],
    pub(super) y: [u8; 32],
    /// Comb of 43 sub-tables × 32 affine points (88,064 bytes) if prepared.
    pub(super) table: Option<CombTable>,
    /// Z for the default user ID (public data), computed on first use:
    /// verifying with the default ID then hashes Z‖M only, not the ~210
    /// bytes of ENTL‖ID‖a‖b‖G‖P as well.
    pub(super) z_default: OnceLock<[u8; 32]>,
}

/// An SM2 public key (a validated curve point other than infinity).
#[derive(Clone)]
pub struct PublicKey {
    pub(super) inner: Arc<PkInner>,
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
    pub(super) fn from_affine(point: Affine) -> Self {
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
    pub(super) fn digest(&self, msg: &[u8], uid: &[u8]) -> Result<[u8; 32]> {
        let z = self.z(uid)?;
        Ok(sm3::hash_parts(&[&z, msg]))
    }

    /// Precomputes a fixed-base comb for this key (43 sub-tables of 32 affine
    /// points: 88,064 bytes), so encryption's k·P and verification's t·P need
    /// 43 mixed additions and no doublings (the width choice is recorded in
    /// bench/NOTES.md). Returns a new key sharing the point; the original
    /// is unchanged.
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

    /// Whether this key carries a prepared comb ([`Self::prepare`]).
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

/// An SM2 private key d ∈ [1, n−2]. Construction computes d·G only (kept
/// Jacobian); the public key's affine form, (1+d)⁻¹ and the SM3 state over d
/// of the nonce derivation are each computed on first use, once, and shared
/// by every thread using the key (all are deterministic functions of d, so a
/// forked child computing them again gets the same values). Every secret
/// field is zeroized on drop.
pub struct PrivateKey {
    pub(super) d: Scalar,
    /// d·G in Jacobian form. Its Z depends on the computation, so it is
    /// treated as secret until converted (see [`Self::public_key`]).
    point: Jacobian,
    public: OnceLock<PublicKey>,
    inv1pd: OnceLock<Scalar>,
    nonce: OnceLock<NonceKey>,
}

impl core::fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "PrivateKey {{ public: {:?}, .. }}", self.public_key())
    }
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.d.zeroize();
        self.point.zeroize();
        if let Some(mut v) = self.inv1pd.take() {
            v.zeroize();
        }
        // NonceKey wipes its SM3 state when dropped.
        drop(self.nonce.take());
    }
}

impl Clone for PrivateKey {
    fn clone(&self) -> Self {
        PrivateKey {
            d: self.d,
            point: self.point,
            public: self.public.clone(),
            inv1pd: self.inv1pd.clone(),
            nonce: self.nonce.clone(),
        }
    }
}

impl PrivateKey {
    /// A fresh key from the OS CSPRNG, through the per-thread buffer of
    /// [`crate::rand::buffered_key_bytes`] (one `getrandom` per 16 keys;
    /// bytes wiped as taken; never bytes of a fill made before a fork).
    pub fn generate() -> Result<Self> {
        loop {
            let mut b = Zeroizing::new([0u8; 32]);
            crate::rand::buffered_key_bytes(&mut b[..])?;
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
    /// Computes d·G and nothing else.
    pub(super) fn from_secret_bytes(b: &[u8; 32]) -> Option<Self> {
        let mut l = Zeroizing::new(limbs_from_be(b));
        let n_minus_1 = crate::arith::sub_limbs(&N, &[1, 0, 0, 0]).0;
        let below = Choice::from(crate::arith::lt(&l, &n_minus_1) as u8);
        let valid = below & !is_zero_limbs(&l);
        if !ctime::public_bool(valid) {
            return None;
        }
        let d = Scalar::from_canonical(&l);
        let point = ecmult_gen::mul_g(&l);
        l.zeroize();
        Some(PrivateKey { d, point, public: OnceLock::new(), inv1pd: OnceLock::new(), nonce: OnceLock::new() })
    }

    /// d, 32 bytes big-endian.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.d.to_be_bytes())
    }

    /// The public key d·G. The first call converts the point to affine form
    /// (inverting Z blinded by a fresh random factor, or in constant time if
    /// no randomness is available) and caches it; later calls return it.
    pub fn public_key(&self) -> &PublicKey {
        self.public.get_or_init(|| {
            let zi = match blind_factor() {
                Some(beta) => invert_blinded(&self.point.z, &beta),
                None => self.point.z.invert(),
            };
            let zi2 = zi.square();
            let p = Affine { x: self.point.x.mul(&zi2), y: self.point.y.mul(&zi2).mul(&zi) };
            declassify(&p);
            PublicKey::from_affine(p)
        })
    }

    /// (1+d)⁻¹ mod n (constant time), computed on first use.
    pub(super) fn inv1pd(&self) -> &Scalar {
        self.inv1pd.get_or_init(|| Scalar::ONE.add(&self.d).invert())
    }

    /// The hedged-nonce key over d, computed on first use.
    pub(super) fn nonce(&self) -> &NonceKey {
        self.nonce.get_or_init(|| NonceKey::new(&self.to_bytes()))
    }

    pub(super) fn digest(&self, msg: &[u8], uid: &[u8]) -> Result<[u8; 32]> {
        self.public_key().digest(msg, uid)
    }

    pub(crate) fn scalar(&self) -> &Scalar {
        &self.d
    }
}

/// β ∈ [1, p−1] from 32 bytes of fresh buffered OS randomness, for one
/// blinded inversion; `None` if the OS gave no randomness.
fn blind_factor() -> Option<Fp> {
    loop {
        let a = buffered_seed().ok()?;
        let b = buffered_seed().ok()?;
        let mut bytes = Zeroizing::new([0u8; 32]);
        bytes[..16].copy_from_slice(&a[..]);
        bytes[16..].copy_from_slice(&b[..]);
        let (beta, ok) = nonzero_below::<Sm2P>(&bytes);
        if ctime::public_bool(ok) {
            return Some(beta);
        }
    }
}
