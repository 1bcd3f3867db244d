//! SM2 signatures (GB/T 32918.2): signing with hedged nonces or a pool,
//! verification, and the parallel batch forms.

use super::ecmult;
use super::field::{Fp, Scalar, N, P};
use super::point::batch_to_affine;
use super::pool::SignaturePool;
use super::{ctime, declassify, ecmult_gen, PrivateKey, PublicKey, MAX_UID_LEN};
use crate::arith::invert_blinded;
use crate::arith::{is_zero_limbs, limbs_from_be, Limbs};
use crate::{Error, Result};
use rayon::prelude::*;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

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

impl PublicKey {
    /// Verifies a signature over `msg` with user ID `uid`.
    pub fn verify(&self, msg: &[u8], uid: &[u8], sig: &Signature) -> Result<()> {
        let e = self.digest(msg, uid)?;
        self.verify_digest(&e, sig)
    }

    /// Verifies a signature over a caller-computed e = SM3(Z ‖ M).
    pub fn verify_digest(&self, e: &[u8; 32], sig: &Signature) -> Result<()> {
        let (r, s) = sig.scalars().ok_or(Error::InvalidSignature)?;
        let rf = Scalar::from_canonical(&r);
        let sf = Scalar::from_canonical(&s);
        let t = rf.add(&sf);
        if bool::from(t.is_zero()) {
            return Err(Error::InvalidSignature);
        }
        let q = ecmult::double_mul_vartime(&s, &t.to_canonical(), &self.inner.point, self.inner.table.as_ref());
        let ef = Scalar::from_limbs_reduce(&limbs_from_be(e));
        if x_matches(&q, &rf.sub(&ef).to_canonical()) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }
}

/// Whether R = s·G + t·P (not infinity) has (e + x1) mod n = r, given
/// c = (r − e) mod n: x1 ≡ c (mod n), and x1 < p < 2n, so x1 is c or c + n
/// (if < p). X == c·Z² is compared, which needs no inversion.
fn x_matches(q: &super::point::Jacobian, c: &Limbs) -> bool {
    if bool::from(q.is_identity()) {
        return false;
    }
    let z2 = q.z.square();
    let matches = |cand: &Limbs| bool::from(Fp::from_canonical(cand).mul(&z2).ct_eq(&q.x));
    if matches(c) {
        return true;
    }
    let (c2, carry) = crate::arith::add_limbs(c, &N);
    carry == 0 && crate::arith::lt(&c2, &P) == 1 && matches(&c2)
}

impl PrivateKey {
    /// Signs `msg` for user ID `uid` (e = SM3(Z ‖ M)).
    pub fn sign(&self, msg: &[u8], uid: &[u8]) -> Result<Signature> {
        let e = self.digest(msg, uid)?;
        self.sign_digest(&e)
    }

    /// Signs a caller-computed e = SM3(Z ‖ M).
    pub fn sign_digest(&self, e: &[u8; 32]) -> Result<Signature> {
        self.sign_digest_seeded(e, &mut |s| {
            s.copy_from_slice(&crate::rand::buffered_seed()?[..]);
            Ok(())
        })
    }

    /// [`Self::sign_digest`] with the 16-byte hedging seeds drawn from
    /// `seed_source` (k is still hedged with d and e).
    pub(crate) fn sign_digest_seeded(
        &self,
        e: &[u8; 32],
        seed_source: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<Signature> {
        loop {
            let (k, beta) = self.nonce().sign_pair_seeded(e, seed_source)?;
            let kl = Zeroizing::new(k.to_canonical());
            let mut p = ecmult_gen::mul_g(&kl);
            // Only x is needed: X·(Z⁻¹)², Z⁻¹ through the blinded inversion
            // (p ≠ O since k ∈ [1, n−1]).
            let x = p.x.mul(&invert_blinded(&p.z, &beta).square());
            p.zeroize();
            let x1 = Scalar::from_limbs_reduce(&x.to_canonical());
            if let Some(sig) = self.sign_finish(e, &k, &x1) {
                return Ok(sig);
            }
        }
    }

    /// Signs many caller-computed digests with one shared field inversion
    /// (Montgomery's trick over the k·G points) instead of one per
    /// signature, the k·G eight at a time on IFMA lanes where the CPU has
    /// them ([`super::mul_g_many`]); otherwise exactly [`Self::sign_digest`] for each. The batch
    /// inversion is constant time in the values, like the single one.
    #[doc(hidden)]
    pub fn sign_digests(&self, es: &[[u8; 32]]) -> Result<Vec<Signature>> {
        let mut ks = Vec::with_capacity(es.len());
        let mut kls = Zeroizing::new(Vec::with_capacity(es.len()));
        for e in es {
            let k = self.nonce().sign_k(e)?;
            kls.push(k.to_canonical());
            ks.push(k);
        }
        let mut pts = super::mul_g_many(&kls);
        kls.zeroize();
        let mut aff = batch_to_affine(&pts);
        pts.zeroize();
        let mut out = Vec::with_capacity(es.len());
        for ((e, k), p) in es.iter().zip(ks.iter()).zip(aff.iter()) {
            let x1 = Scalar::from_limbs_reduce(&p.x.to_canonical());
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
    pub(super) fn sign_finish(&self, e: &[u8; 32], k: &Scalar, x1: &Scalar) -> Option<Signature> {
        let ef = Scalar::from_limbs_reduce(&limbs_from_be(e));
        let r = ef.add(x1);
        declassify(&r);
        let kr = k.add(&r);
        if ctime::public_bool(r.is_zero() | kr.is_zero()) {
            return None;
        }
        let s = self.inv1pd().mul(&kr).sub(&r);
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
}

/// Messages per shared inversion in [`sign_many`]: the inversion (about a
/// quarter of a signature) is then paid once per 64 signatures, and chunks
/// still spread over the cores.
const SIGN_BATCH: usize = 64;

/// Signs every message with `key` (in parallel, chunks of messages sharing
/// one field inversion).
pub fn sign_many(key: &PrivateKey, msgs: &[&[u8]], uid: &[u8]) -> Result<Vec<Signature>> {
    let chunk = |chunk: &[&[u8]]| {
        let es: Result<Vec<[u8; 32]>> = chunk.iter().map(|m| key.digest(m, uid)).collect();
        key.sign_digests(&es?)
    };
    // One chunk runs on the calling thread (as a pool refill's): a hand-off
    // to the pool's thread would only add a wake-up and a wait.
    if msgs.len() <= SIGN_BATCH {
        return chunk(msgs);
    }
    let chunks: Result<Vec<Vec<Signature>>> = crate::par::install(|| msgs.par_chunks(SIGN_BATCH).map(chunk).collect());
    Ok(chunks?.into_iter().flatten().collect())
}

/// Verifies every (key, message, signature) with user ID `uid` (in parallel).
/// A uid that no signature can use (too long) is the caller's error, as in
/// [`PublicKey::verify`], not a batch of invalid signatures.
///
/// With AVX-512 IFMA, chunks of [`LANE_CHUNK`] items go to the threads and
/// each runs its items eight at a time on the lanes
/// ([`super::lanes::double_mul8_vartime`]); the answers are those of
/// [`PublicKey::verify`] item by item (the lanes' rare exceptional case is
/// redone by it).
pub fn verify_many(items: &[(&PublicKey, &[u8], &Signature)], uid: &[u8]) -> Result<Vec<bool>> {
    if uid.len() > MAX_UID_LEN {
        return Err(Error::invalid(format!("SM2 user ID too long: {} bytes, at most {MAX_UID_LEN}", uid.len())));
    }
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
        return Ok(crate::par::install(|| {
            items.par_chunks(LANE_CHUNK).flat_map_iter(|c| verify_lanes_vartime(t, c, uid)).collect()
        }));
    }
    Ok(crate::par::install(|| items.par_iter().map(|(pk, m, s)| pk.verify(m, uid, s).is_ok()).collect()))
}

/// Items per thread's chunk in the lane paths (whole lane groups).
#[cfg(target_arch = "x86_64")]
pub(super) const LANE_CHUNK: usize = 64;

/// [`verify_many`]'s chunk on the lanes: every item that parses (r, s in
/// range, t = r + s ≠ 0) joins a lane group; a partial last group repeats
/// its last item in the spare lanes (public data: nothing to hide).
#[cfg(target_arch = "x86_64")]
fn verify_lanes_vartime(t: crate::cpu::Ifma, items: &[(&PublicKey, &[u8], &Signature)], uid: &[u8]) -> Vec<bool> {
    use super::lanes::{double_mul8_vartime, LANES};
    struct Job {
        at: usize,
        s: Limbs,
        t: Limbs,
        c: Limbs,
    }
    let mut out = vec![false; items.len()];
    let jobs: Vec<Job> = items
        .iter()
        .enumerate()
        .filter_map(|(at, (pk, m, sig))| {
            let (r, s) = sig.scalars()?;
            let e = pk.digest(m, uid).ok()?;
            let rf = Scalar::from_canonical(&r);
            let tf = rf.add(&Scalar::from_canonical(&s));
            if bool::from(tf.is_zero()) {
                return None;
            }
            let c = rf.sub(&Scalar::from_limbs_reduce(&limbs_from_be(&e))).to_canonical();
            Some(Job { at, s, t: tf.to_canonical(), c })
        })
        .collect();
    for group in jobs.chunks(LANES) {
        let job = |l: usize| &group[l.min(group.len() - 1)];
        let s = core::array::from_fn(|l| job(l).s);
        let tt = core::array::from_fn(|l| job(l).t);
        let ps = core::array::from_fn(|l| items[job(l).at].0.inner.point);
        let (q, flagged) = double_mul8_vartime(t, &s, &tt, &ps);
        for (l, j) in group.iter().enumerate() {
            let (pk, m, sig) = items[j.at];
            out[j.at] = if flagged[l] { pk.verify(m, uid, sig).is_ok() } else { x_matches(&q[l], &j.c) };
        }
    }
    out
}
