//! SM2 public-key encryption (GB/T 32918.4): C1 = k·G, (x2, y2) = k·P,
//! C2 = M ⊕ KDF(x2 ‖ y2), C3 = SM3(x2 ‖ M ‖ y2); both directions share
//! [`kdf_xor`].

use super::field::{Fp, Scalar};
use super::nonce;
use super::point::Affine;
use super::{affine_with_inverse, ctime, declassify, ecmult_const, ecmult_gen, PrivateKey, PublicKey};
use crate::arith::invert_blinded;
use crate::{sm3, Error, Result};
use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

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

    /// C1‖C3‖C2 (GB/T 32918.4-2016 order).
    pub fn to_c1c3c2(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(97 + self.c2.len());
        out.extend_from_slice(&self.c1);
        out.extend_from_slice(&self.c3);
        out.extend_from_slice(&self.c2);
        out
    }

    /// C1‖C2‖C3 (the 2010 draft order).
    pub fn to_c1c2c3(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(97 + self.c2.len());
        out.extend_from_slice(&self.c1);
        out.extend_from_slice(&self.c2);
        out.extend_from_slice(&self.c3);
        out
    }
}

/// x2 ‖ y2 of the shared point (secret), wiping the point.
fn shared_bytes(s: &mut Affine) -> Zeroizing<[u8; 64]> {
    let mut x2y2 = Zeroizing::new([0u8; 64]);
    x2y2[..32].copy_from_slice(&s.x.to_be_bytes());
    x2y2[32..].copy_from_slice(&s.y.to_be_bytes());
    s.zeroize();
    x2y2
}

/// The one KDF-and-C3 step of both directions: `input` ⊕ KDF(x2 ‖ y2), and
/// C3 = SM3(x2 ‖ M ‖ y2) over the plaintext M (`input` when encrypting, the
/// output when decrypting), and whether the KDF output was non-zero (the
/// standard rejects an all-zero one). Constant time in every secret.
fn kdf_xor(x2y2: &[u8; 64], input: &[u8], encrypting: bool) -> (Vec<u8>, [u8; 32], Choice) {
    let mut out = vec![0u8; input.len()];
    sm3::kdf_into(&[&x2y2[..]], &mut out);
    xor_c3(x2y2, input, out, encrypting)
}

/// [`kdf_xor`] after the KDF: `out` holds KDF(x2 ‖ y2), as many bytes as
/// `input`.
fn xor_c3(x2y2: &[u8; 64], input: &[u8], mut out: Vec<u8>, encrypting: bool) -> (Vec<u8>, [u8; 32], Choice) {
    let nonzero = !out.iter().fold(0u8, |a, b| a | b).ct_eq(&0);
    out.iter_mut().zip(input).for_each(|(t, b)| *t ^= b);
    let m = if encrypting { input } else { &out[..] };
    let c3 = sm3::hash_parts(&[&x2y2[..32], m, &x2y2[32..]]);
    (out, c3, nonzero)
}

impl PublicKey {
    /// Encrypts `plaintext` (at least one byte) with a fresh random k.
    pub fn encrypt(&self, plaintext: &[u8]) -> Result<Ciphertext> {
        self.encrypt_from(plaintext, &mut |b| crate::rand::buffered_key_bytes(b))
    }

    /// [`Self::encrypt`] with k and the blinding factor drawn from
    /// `source` (64 bytes per draw, rejection sampled as in
    /// [`nonce::os_pair`]): for a protocol engine that takes every random
    /// byte from one generator.
    pub(crate) fn encrypt_from(
        &self,
        plaintext: &[u8],
        source: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<Ciphertext> {
        if plaintext.is_empty() {
            return Err(Error::invalid("SM2 plaintext must not be empty"));
        }
        loop {
            let (k, beta) = nonce::pair_from(source)?;
            if let Some(ct) = self.encrypt_with_k(plaintext, &k, &beta) {
                return Ok(ct);
            }
        }
    }

    /// Encryption with a given k and a fresh blinding factor β ∈ [1, p−1];
    /// `None` if the KDF output is all zero.
    pub(super) fn encrypt_with_k(&self, m: &[u8], k: &Scalar, beta: &Fp) -> Option<Ciphertext> {
        let mut kl = Zeroizing::new(k.to_canonical());
        let c1 = ecmult_gen::mul_g(&kl);
        let mut s = match &self.inner.table {
            Some(t) => t.mul(&kl),
            None => ecmult_const::mul(&self.inner.point, &kl),
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
        let x2y2 = shared_bytes(&mut s_aff);
        let (mut c2, c3, nonzero) = kdf_xor(&x2y2, m, true);
        if !ctime::public_bool(nonzero) {
            c2.zeroize();
            return None;
        }
        declassify(&c2[..]);
        declassify(&c3);
        Some(Ciphertext { c1, c3, c2 })
    }
}

impl PrivateKey {
    /// Decrypts every ciphertext, one result per item (each exactly what
    /// [`Self::decrypt`] returns for it), in parallel: chunks of items go to
    /// the threads, and with AVX-512 IFMA each chunk runs eight d·C1 at a
    /// time in constant time on the lanes (`sm2::lanes::mul8`) with one
    /// blinded inversion per lane group.
    pub fn decrypt_many(&self, cts: &[Ciphertext]) -> Vec<Result<Vec<u8>>> {
        use rayon::prelude::*;
        #[cfg(target_arch = "x86_64")]
        if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
            return crate::par::install(|| {
                cts.par_chunks(super::sign::LANE_CHUNK)
                    .flat_map_iter(|chunk| {
                        chunk.chunks(super::lanes::LANES).flat_map(|g| self.decrypt_lanes(t, g)).collect::<Vec<_>>()
                    })
                    .collect()
            });
        }
        crate::par::install(|| cts.par_iter().map(|ct| self.decrypt(ct)).collect())
    }

    /// Up to eight ciphertexts on the lanes. The spare lanes of a partial
    /// group, and the lanes of items whose C1 is not a curve point, compute
    /// d·C1 for another item's C1 (the same steps: which lanes are real
    /// changes no branch or address of the lane code).
    #[cfg(target_arch = "x86_64")]
    fn decrypt_lanes(&self, t: crate::cpu::Ifma, group: &[Ciphertext]) -> Vec<Result<Vec<u8>>> {
        use super::lanes::{mul8, LANES};
        let c1s: Vec<Option<Affine>> = group
            .iter()
            .map(|ct| {
                if ct.c1[0] != 4 || ct.c2.is_empty() {
                    return None;
                }
                let (x, y) = ct.c1[1..].split_at(32);
                Affine::from_xy_vartime(x.try_into().ok()?, y.try_into().ok()?).ok()
            })
            .collect();
        let Some(first) = c1s.iter().position(Option::is_some) else {
            return group.iter().map(|_| Err(Error::DecryptionFailed)).collect();
        };
        let fill = c1s[first].unwrap_or_else(Affine::generator);
        let ps: [Affine; LANES] = core::array::from_fn(|l| c1s.get(l).copied().flatten().unwrap_or(fill));
        let mut x = [0u8; 32];
        x.copy_from_slice(&group[first].c1[1..33]);
        let beta = match self.nonce().decrypt_blind(&x, group[first].c1[64] & 1 == 1) {
            Ok(b) => b,
            Err(e) => return group.iter().map(|_| Err(e.clone())).collect(),
        };
        let mut dl = Zeroizing::new([self.d.to_canonical(); LANES]);
        let mut pts = mul8(t, &ps, &dl);
        dl.zeroize();
        // One blinded inversion for the eight Z (Montgomery's trick); none
        // is zero (d ∈ [1, n − 2], C1 ≠ O, n prime).
        let mut pre = [Fp::ONE; LANES];
        let mut acc = Fp::ONE;
        for l in 0..LANES {
            pre[l] = acc;
            acc = acc.mul(&pts[l].z);
        }
        let mut inv = invert_blinded(&acc, &beta);
        acc.zeroize();
        let mut zi = [Fp::ZERO; LANES];
        for l in (0..LANES).rev() {
            zi[l] = inv.mul(&pre[l]);
            inv = inv.mul(&pts[l].z);
        }
        inv.zeroize();
        pre.zeroize();
        // The shared points, then every item's KDF at once (their blocks
        // side by side on SM3's lanes), then each item's C3 check.
        let x2y2: Vec<Zeroizing<[u8; 64]>> =
            (0..group.len()).map(|l| shared_bytes(&mut affine_with_inverse(&pts[l], &zi[l]))).collect();
        let mut keys: Vec<Vec<u8>> =
            group.iter().zip(&c1s).map(|(ct, c1)| vec![0u8; if c1.is_some() { ct.c2.len() } else { 0 }]).collect();
        let zs: Vec<[&[u8]; 1]> = x2y2.iter().map(|z| [&z[..]]).collect();
        let zrefs: Vec<&[&[u8]]> = zs.iter().map(|z| &z[..]).collect();
        let mut outs: Vec<&mut [u8]> = keys.iter_mut().map(|k| &mut k[..]).collect();
        sm3::kdf_many_into(&zrefs, &mut outs);
        let out = group
            .iter()
            .zip(keys)
            .enumerate()
            .map(|(l, (ct, key))| {
                if c1s[l].is_none() {
                    return Err(Error::DecryptionFailed);
                }
                let (mut m, u, nonzero) = xor_c3(&x2y2[l], &ct.c2, key, false);
                let ok = nonzero & u.ct_eq(&ct.c3);
                if ctime::public_bool(ok) {
                    Ok(m)
                } else {
                    m.zeroize();
                    Err(Error::DecryptionFailed)
                }
            })
            .collect();
        pts.zeroize();
        zi.zeroize();
        out
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
        let beta = self.nonce().decrypt_blind(&x, y[31] & 1 == 1)?;
        let mut dl = Zeroizing::new(self.d.to_canonical());
        let mut sj = ecmult_const::mul(&c1, &dl);
        dl.zeroize();
        // d·C1 ≠ O (C1 ≠ O is on the curve, the cofactor is 1, d ∈ [1, n−2]).
        let mut s = affine_with_inverse(&sj, &invert_blinded(&sj.z, &beta));
        sj.zeroize();
        let x2y2 = shared_bytes(&mut s);
        let (mut m, u, nonzero) = kdf_xor(&x2y2, &ct.c2, false);
        let ok = nonzero & u.ct_eq(&ct.c3);
        if ctime::public_bool(ok) {
            Ok(m)
        } else {
            m.zeroize();
            Err(Error::DecryptionFailed)
        }
    }
}
