//! Test-only hooks that inject k to reproduce the standard's examples. Only
//! compiled for `cargo test`, the `test-hooks` feature or the `ctime`
//! harness build, none of which the Python binding enables.

use super::field::{self, Fp, Scalar};
use super::point::Jacobian;
use super::{ecmult, ecmult_const, ecmult_gen, nonce};
use super::{Ciphertext, KeyExchange, PrivateKey, PublicKey, Role, Signature};
use crate::arith::limbs_from_be;
use crate::{Error, Result};

fn scalar(k: &[u8; 32]) -> Result<Scalar> {
    Option::<Scalar>::from(Scalar::from_be_bytes(k))
        .filter(|k| !bool::from(k.is_zero()))
        .ok_or_else(|| Error::invalid("k must be in [1, n-1]"))
}

/// Signature with a given k (e = SM3(Z ‖ M) for `uid`).
pub fn sign_with_k(key: &PrivateKey, msg: &[u8], uid: &[u8], k: &[u8; 32]) -> Result<Signature> {
    let e = key.digest(msg, uid)?;
    let k = scalar(k)?;
    let p = ecmult_gen::mul_g(&k.to_canonical()).to_affine_masked().0;
    let x1 = Scalar::from_limbs_reduce(&p.x.to_canonical());
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
    affine_bytes(&ecmult_gen::mul_g(&limbs_from_be(k)))
}

/// k·P by the constant-time fixed window (`None` for infinity).
pub fn mul_point(p: &PublicKey, k: &[u8; 32]) -> Option<[u8; 65]> {
    affine_bytes(&ecmult_const::mul(p.point(), &limbs_from_be(k)))
}

/// k·P by the prepared key's comb (`None` for infinity).
pub fn mul_point_prepared(p: &PublicKey, k: &[u8; 32]) -> Option<[u8; 65]> {
    let p = p.prepare();
    let t = p.inner.table.as_ref()?;
    affine_bytes(&t.mul(&limbs_from_be(k)))
}

/// s·G + t·P by the verification chain, with or without P's comb.
pub fn double_mul(s: &[u8; 32], t: &[u8; 32], p: &PublicKey, prepared: bool) -> Option<[u8; 65]> {
    let p = if prepared { p.prepare() } else { p.clone() };
    affine_bytes(&ecmult::double_mul_vartime(&limbs_from_be(s), &limbs_from_be(t), p.point(), p.inner.table.as_ref()))
}

/// k·G by the variable-time comb path: the constant-time harness's
/// negative control (a secret k through it must be reported).
pub fn mul_g_vartime(k: &[u8; 32]) -> Option<[u8; 65]> {
    affine_bytes(&ecmult_gen::g_table().mul_vartime(&limbs_from_be(k)))
}

fn affine_bytes(j: &Jacobian) -> Option<[u8; 65]> {
    if bool::from(j.is_identity()) {
        None
    } else {
        Some(j.to_affine_masked().0.to_uncompressed())
    }
}

/// Field operations on canonical big-endian values (differential tests).
pub fn fp_mul(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    fp(a).mul(&fp(b)).to_be_bytes()
}
/// a⁻¹ mod p (constant time; 0 ↦ 0).
pub fn fp_inv(a: &[u8; 32]) -> [u8; 32] {
    fp(a).invert().to_be_bytes()
}
/// a⁻¹ mod p (variable time; 0 ↦ 0).
pub fn fp_inv_vartime(a: &[u8; 32]) -> [u8; 32] {
    fp(a).invert_vartime().to_be_bytes()
}
/// A square root of a mod p, or `None`.
pub fn fp_sqrt(a: &[u8; 32]) -> Option<[u8; 32]> {
    field::sqrt_vartime(&fp(a)).map(|r| r.to_be_bytes())
}
/// (a + b, a − b) mod p.
pub fn fp_add_sub(a: &[u8; 32], b: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
    (fp(a).add(&fp(b)).to_be_bytes(), fp(a).sub(&fp(b)).to_be_bytes())
}
/// a·b mod n.
pub fn fn_mul(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    fnn(a).mul(&fnn(b)).to_be_bytes()
}
/// a⁻¹ mod n (0 ↦ 0).
pub fn fn_inv(a: &[u8; 32]) -> [u8; 32] {
    fnn(a).invert().to_be_bytes()
}
/// A 64-byte big-endian integer mod n.
pub fn fn_reduce_wide(b: &[u8; 64]) -> [u8; 32] {
    Scalar::from_be_wide(b).to_be_bytes()
}
fn fp(a: &[u8; 32]) -> Fp {
    Fp::from_limbs_reduce(&limbs_from_be(a))
}
fn fnn(a: &[u8; 32]) -> Scalar {
    Scalar::from_limbs_reduce(&limbs_from_be(a))
}

/// `n` chained doublings of the Jacobian point k·G, with SM2's doubling
/// kernel (`shared` false) or the shared a = −3 formula of
/// [`crate::arith::curve`] (`shared` true); returns the result's x, affine,
/// big-endian (for A/B timing of the two formulas: both give the same
/// point).
pub fn double_chain(k: &[u8; 32], n: usize, shared: bool) -> [u8; 32] {
    use crate::arith::curve;
    let mut p: curve::Jacobian<Fp> = ecmult_gen::mul_g(&limbs_from_be(k));
    crate::arith::with_mul!(|b| {
        for _ in 0..n {
            p = if shared { curve::double_generic(b, &p) } else { super::point::double_scaled(b, &p) };
        }
    });
    p.to_affine_vartime().map(|a| a.x.to_be_bytes()).unwrap_or([0; 32])
}

/// Chained primitives for per-operation timings against other libraries'
/// (`benches/sm2_ops.rs`, `prim`): `n` field multiplications (a ← a·b),
/// squarings, doublings and mixed additions (P ← P + Q, Q fixed) on values
/// derived from k; returns a digest of the results so nothing is elided.
pub fn primitive_chains(k: &[u8; 32], n: usize, which: u8) -> u64 {
    use super::point::{add_mixed, double};
    use crate::arith::curve::CurveField;
    let mut a = fp(k);
    let b = fp(&[0x77; 32]);
    let mut p: Jacobian = ecmult_gen::mul_g(&limbs_from_be(k));
    let q = ecmult_gen::mul_g(&limbs_from_be(&[0x42; 32])).to_affine_masked().0;
    crate::arith::with_mul!(|bk| {
        for _ in 0..n {
            match which {
                0 => a = a.mul_with(bk, &b),
                1 => a = a.square_with(bk),
                2 => p = double(bk, &p),
                _ => p = add_mixed(bk, &p, &q, false),
            }
        }
    });
    let x = p.to_affine_masked().0.x.to_be_bytes();
    let y = a.to_be_bytes();
    u64::from_le_bytes(x[..8].try_into().unwrap_or([0; 8])) ^ u64::from_le_bytes(y[..8].try_into().unwrap_or([0; 8]))
}
