//! SM9 signatures (GM/T 0044.2): master keys, extraction, sign and verify.
//!
//! Sign: w = g^r with g = e(P1, Ppub-s), h = H2(M ‖ w), l = r − h, S = [l]dsA.
//! Verify: w' = e(S, [h1]P2 + Ppub-s)·g^h = e([h1]S, P2)·e(S, Ppub-s)·g^h,
//! one multi-pairing whose two G2 arguments are fixed (their lines are
//! precomputed for P2 always, for Ppub-s once the key is prepared).

use super::fp::Scalar;
use super::g1::{self, G1Affine, G1, P1};
use super::g2::{self, G2Affine};
use super::gt::{Gt, GtTable};
use super::hash::{h1, h2, h_from_bytes, random_scalar, scalar_from_bytes, Hedge, TAG_SIGN};
use super::pairing::{multi_pairing_prepared, pairing, G2Prepared};
use super::window::{comb, mul_fixed_window};
use crate::arith::comb::CombTable;
use crate::{Error, Result};
use std::sync::Arc;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

/// The default hid of signature keys.
pub const HID_SIGN: u8 = 1;

/// A signature master key ks with its public key Ppub-s = [ks]P2.
pub struct SignMasterKey {
    ks: Scalar,
    public: SignMasterPublicKey,
}

impl core::fmt::Debug for SignMasterKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("SignMasterKey(..)")
    }
}

impl Drop for SignMasterKey {
    fn drop(&mut self) {
        self.ks.zeroize();
    }
}

impl SignMasterKey {
    pub fn generate() -> Result<Self> {
        Ok(Self::from_scalar(random_scalar()?))
    }

    /// ks as 32 big-endian bytes in [1, n − 1].
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(scalar_from_bytes(b, "SM9 sign master key")?))
    }

    fn from_scalar(ks: Scalar) -> Self {
        let mut l = Zeroizing::new(ks.to_canonical());
        let ppub = super::p2_table().mul(&l).to_affine_public().expect("ks in [1, n-1]");
        l.zeroize();
        SignMasterKey { ks, public: SignMasterPublicKey { ppub, prepared: None } }
    }

    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.ks.to_be_bytes())
    }

    pub fn public_key(&self) -> &SignMasterPublicKey {
        &self.public
    }

    /// dsA = [ks/(H1(ID ‖ hid) + ks)]P1. Fails (the master key must then be
    /// replaced, as the standard says) if H1(ID ‖ hid) + ks ≡ 0.
    pub fn extract(&self, uid: &[u8], hid: u8) -> Result<SignPrivateKey> {
        let t1 = h1(uid, hid).add(&self.ks);
        if crate::ctime::public_bool(t1.is_zero()) {
            return Err(Error::invalid("this identity cannot be used with this master key (t1 = 0)"));
        }
        let mut t2 = Zeroizing::new(self.ks.mul(&t1.invert()).to_canonical());
        // t2 ≠ 0, so dsA is never the identity; dsA stays secret.
        let ds = super::p1_table().mul(&t2).to_affine_masked().0;
        t2.zeroize();
        Ok(SignPrivateKey { ds, mpk: self.public.clone(), table: None })
    }
}

/// What a prepared master public key carries: g = e(P1, Ppub-s), its
/// fixed-base table and Ppub-s's Miller-loop lines.
struct SignPrepared {
    g: Gt,
    g_table: GtTable,
    lines: G2Prepared,
}

/// Ppub-s, optionally prepared (see [`SignMasterPublicKey::prepare`]).
#[derive(Clone)]
pub struct SignMasterPublicKey {
    ppub: G2Affine,
    prepared: Option<Arc<SignPrepared>>,
}

impl core::fmt::Debug for SignMasterPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SignMasterPublicKey(prepared: {})", self.prepared.is_some())
    }
}

impl SignMasterPublicKey {
    /// 04‖x1‖x0‖y1‖y0 or the 128 bytes without 04; checked on the twist and in G2.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        let ppub = g2::decode(b, "SM9 sign master public key").map_err(|e| Error::invalid_key(e.to_string()))?;
        Ok(SignMasterPublicKey { ppub, prepared: None })
    }

    pub fn to_bytes(&self) -> [u8; 129] {
        g2::encode(&self.ppub)
    }

    pub fn point(&self) -> &G2Affine {
        &self.ppub
    }

    /// A copy carrying g, g's fixed-base table and Ppub-s's lines.
    pub fn prepare(&self) -> Self {
        if self.prepared.is_some() {
            return self.clone();
        }
        let lines = G2Prepared::new(&self.ppub);
        let g = Gt(multi_pairing_prepared(&[(&P1, &lines)]));
        let g_table = comb(&g);
        SignMasterPublicKey { ppub: self.ppub, prepared: Some(Arc::new(SignPrepared { g, g_table, lines })) }
    }

    pub fn is_prepared(&self) -> bool {
        self.prepared.is_some()
    }

    /// Bytes held by the precomputation (0 if not prepared).
    pub fn prepared_memory(&self) -> usize {
        self.prepared.as_ref().map_or(0, |p| p.g_table.memory_bytes() + p.lines.memory() + core::mem::size_of::<Gt>())
    }

    /// g = e(P1, Ppub-s).
    pub fn g(&self) -> Gt {
        match &self.prepared {
            Some(p) => p.g,
            None => Gt(pairing(&P1, &self.ppub)),
        }
    }

    fn g_pow(&self, k: &Scalar) -> Gt {
        match &self.prepared {
            Some(p) => Gt::pow_table(&p.g_table, k),
            None => self.g().pow(k),
        }
    }

    /// Ok(()) if `sig` is a signature of `msg` by (uid, hid) under this master key.
    ///
    /// g^h = e([h]P1, Ppub-s), so w' = e([h1]S, P2)·e(S + [h]P1, Ppub-s):
    /// one two-pair Miller loop over fixed G2 points, one final
    /// exponentiation, no GT exponentiation and (unprepared) no separate g.
    pub fn verify(&self, msg: &[u8], uid: &[u8], hid: u8, sig: &Signature) -> Result<()> {
        let h = h_from_bytes(&sig.h).ok_or(Error::InvalidSignature)?;
        let hid1 = h1(uid, hid);
        // S and h1 are public: the variable-time GLV product.
        let hs = super::glv::mul_glv_vartime(&sig.s, &hid1).to_affine_vartime().ok_or(Error::InvalidSignature)?;
        let t = super::p1_table().mul(&h.to_canonical()).add(&sig.s.to_jacobian()).to_affine_vartime();
        if check_w(&self.lines(), msg, &h, &hs, t.as_ref()) {
            Ok(())
        } else {
            Err(Error::InvalidSignature)
        }
    }

    /// Ppub-s's Miller-loop lines: the prepared ones, or computed now.
    fn lines(&self) -> std::borrow::Cow<'_, G2Prepared> {
        match &self.prepared {
            Some(p) => std::borrow::Cow::Borrowed(&p.lines),
            None => std::borrow::Cow::Owned(G2Prepared::new(&self.ppub)),
        }
    }
}

/// The end of a verification once [h1]S and T = S + [h]P1 are affine (T is
/// `None` when S = −[h]P1, the second factor e(O, Ppub-s) = 1): w' =
/// e([h1]S, P2)·e(T, Ppub-s) by one two-pair Miller loop and one final
/// exponentiation, then H2(M ‖ w') == h.
fn check_w(lines: &G2Prepared, msg: &[u8], h: &Scalar, hs: &G1Affine, t: Option<&G1Affine>) -> bool {
    let w = match t {
        Some(t) => multi_pairing_prepared(&[(hs, super::p2_prepared()), (t, lines)]),
        None => multi_pairing_prepared(&[(hs, super::p2_prepared())]),
    };
    bool::from(h2(msg, &w.to_bytes()).ct_eq(h))
}

/// A user's signing key dsA with the master public key it belongs to.
pub struct SignPrivateKey {
    ds: G1Affine,
    mpk: SignMasterPublicKey,
    table: Option<Box<CombTable<G1>>>,
}

impl core::fmt::Debug for SignPrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SignPrivateKey(prepared: {})", self.table.is_some())
    }
}

impl Drop for SignPrivateKey {
    fn drop(&mut self) {
        self.ds.zeroize();
    }
}

impl Clone for SignPrivateKey {
    fn clone(&self) -> Self {
        SignPrivateKey { ds: self.ds, mpk: self.mpk.clone(), table: self.table.clone() }
    }
}

impl SignPrivateKey {
    /// dsA from 04‖x‖y (or x‖y, or compressed), checked on the curve, with its master public key.
    pub fn from_bytes(b: &[u8], mpk: &SignMasterPublicKey) -> Result<Self> {
        let ds = g1::decode(b, "SM9 sign private key").map_err(|e| Error::invalid_key(e.to_string()))?;
        Ok(SignPrivateKey { ds, mpk: mpk.clone(), table: None })
    }

    /// 04‖x‖y.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 65]> {
        Zeroizing::new(g1::encode(&self.ds))
    }

    pub fn master_public_key(&self) -> &SignMasterPublicKey {
        &self.mpk
    }

    /// A copy carrying the prepared master public key and a fixed-base table of dsA.
    pub fn prepare(&self) -> Self {
        let table = self.table.clone().unwrap_or_else(|| Box::new(comb(&self.ds.to_jacobian())));
        SignPrivateKey { ds: self.ds, mpk: self.mpk.prepare(), table: Some(table) }
    }

    pub fn prepared_memory(&self) -> usize {
        self.mpk.prepared_memory() + self.table.as_ref().map_or(0, |t| t.memory_bytes())
    }

    /// A signature of `msg` with a fresh random r, hedged with dsA and
    /// `msg` ([`Hedge`]).
    pub fn sign(&self, msg: &[u8]) -> Result<Signature> {
        let ds = Zeroizing::new(g1::encode_xy(&self.ds));
        let hedge = Hedge::new(&ds[..], &[msg]);
        loop {
            let mut r = hedge.scalar(TAG_SIGN)?;
            let s = self.sign_with_r(msg, &r);
            r.zeroize();
            if let Some(s) = s {
                return Ok(s);
            }
        }
    }

    /// The signature for a given r, or `None` when l = r − h ≡ 0 (retry
    /// with another r; the branch reveals only that event).
    pub(crate) fn sign_with_r(&self, msg: &[u8], r: &Scalar) -> Option<Signature> {
        let mut w = self.mpk.g_pow(r);
        let mut wb = Zeroizing::new(w.to_bytes());
        w.zeroize();
        let h = h2(msg, &wb[..]);
        wb.zeroize();
        crate::ctime::declassify(&h);
        let mut l = r.sub(&h);
        if crate::ctime::public_bool(l.is_zero()) {
            return None;
        }
        let mut ll = Zeroizing::new(l.to_canonical());
        l.zeroize();
        let s = match &self.table {
            Some(t) => t.mul(&ll),
            None => mul_fixed_window(&self.ds.to_jacobian(), &ll),
        };
        ll.zeroize();
        Some(Signature { h: h.to_be_bytes(), s: s.to_affine_public()? })
    }
}

/// A signature (h, S).
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    pub h: [u8; 32],
    pub s: G1Affine,
}

impl Signature {
    /// h ‖ 04‖x‖y (97 bytes).
    pub fn to_raw(&self) -> [u8; 97] {
        let mut out = [0u8; 97];
        out[..32].copy_from_slice(&self.h);
        out[32..].copy_from_slice(&g1::encode(&self.s));
        out
    }

    /// h ‖ S with S as 04‖x‖y, x‖y or compressed; S checked on the curve.
    pub fn from_raw(b: &[u8]) -> Result<Self> {
        if b.len() < 32 + 33 {
            return Err(Error::invalid(format!(
                "SM9 raw signature too short: {} bytes, need 97 (h ‖ 04‖x‖y)",
                b.len()
            )));
        }
        let mut h = [0u8; 32];
        h.copy_from_slice(&b[..32]);
        let s = g1::decode(&b[32..], "SM9 signature S")?;
        Ok(Signature { h, s })
    }

    /// GmSSL's SEQUENCE { h OCTET STRING, S BIT STRING (04‖x‖y) }.
    pub fn to_der(&self) -> Vec<u8> {
        crate::encoding::sm9::wire::signature_to_der(&self.h, &g1::encode(&self.s))
    }

    pub fn from_der(b: &[u8]) -> Result<Self> {
        let (h, s) = crate::encoding::sm9::wire::signature_from_der(b)?;
        Ok(Signature { h, s: g1::decode(s, "SM9 signature S")? })
    }
}

/// Signs every message with one key, in parallel over all cores.
pub fn sign_many(key: &SignPrivateKey, messages: &[&[u8]]) -> Result<Vec<Signature>> {
    use rayon::prelude::*;
    crate::par::install(|| messages.par_iter().map(|m| key.sign(m)).collect())
}

/// Verifies (message, uid, signature) triples under one master public key
/// (prepare it first for large batches) in parallel; `None` stands for a
/// signature that did not parse, which is simply invalid. One bool per item,
/// each exactly what [`SignMasterPublicKey::verify`] says for it.
///
/// What a batch shares, and why not more. An SM9 signature is checked by
/// recomputing w' = e([h1]S, P2)·e(S + [h]P1, Ppub-s) and comparing
/// H2(M ‖ w') with h: the verifier needs each item's w' itself, since h is
/// a hash of it and no pairing equation between public values holds. A
/// product of Miller loops under one final exponentiation (or a random
/// linear combination Π w'_i^(c_i)) yields only a product of the w'_i,
/// which cannot be compared with anything the signatures carry (their
/// w_i appear only through H2); splitting it back into factors is as hard
/// as the pairing inversion the scheme's security rests on. So every item
/// keeps its own two-pair Miller loop and final exponentiation, and the
/// batch shares what is sound to share:
/// - the lines of both G2 arguments: P2's (always precomputed) and
///   Ppub-s's, computed once per batch when the key is not prepared (a
///   one-at-a-time loop computes them per item);
/// - H1(ID ‖ hid) for consecutive items of one identity;
/// - one field inversion per chunk for the affine forms of [h1]S and
///   S + [h]P1 (Montgomery's trick over 2 × chunk values, variable time:
///   everything here is public);
/// - the threads: chunks run in parallel.
pub fn verify_many(mpk: &SignMasterPublicKey, hid: u8, items: &[(&[u8], &[u8], Option<Signature>)]) -> Vec<bool> {
    use rayon::prelude::*;
    if items.iter().all(|(_, _, s)| s.is_none()) {
        return vec![false; items.len()];
    }
    let lines = mpk.lines();
    let lines = &*lines;
    crate::par::install(|| {
        let threads = rayon::current_num_threads().max(1);
        let chunk = items.len().div_ceil(threads).clamp(1, VERIFY_CHUNK);
        items.par_chunks(chunk).flat_map_iter(|c| verify_chunk(lines, hid, c)).collect()
    })
}

/// Most items per shared inversion in [`verify_many`] (more saves little:
/// the inversion is already a small share at this size).
const VERIFY_CHUNK: usize = 16;

/// [`verify_many`] on one chunk, in order.
fn verify_chunk(lines: &G2Prepared, hid: u8, items: &[(&[u8], &[u8], Option<Signature>)]) -> Vec<bool> {
    use super::fp::Fp;
    // Well-formed items: (index, h, [h1]S, S + [h]P1), both Jacobian.
    let mut pending: Vec<(usize, Scalar, G1, G1)> = Vec::with_capacity(items.len());
    let mut last: Option<(&[u8], Scalar)> = None;
    for (i, (_, uid, sig)) in items.iter().enumerate() {
        let Some(sig) = sig else { continue };
        let Some(h) = h_from_bytes(&sig.h) else { continue };
        let hid1 = match last {
            Some((u, v)) if u == *uid => v,
            _ => {
                let v = h1(uid, hid);
                last = Some((uid, v));
                v
            }
        };
        let hs = super::glv::mul_glv_vartime(&sig.s, &hid1);
        let t = super::p1_table().mul(&h.to_canonical()).add(&sig.s.to_jacobian());
        pending.push((i, h, hs, t));
    }
    // One inversion for every Z (the identity's Z = 0 stays 0 and is
    // recognised by is_identity below).
    let mut zi: Vec<Fp> = pending.iter().flat_map(|(_, _, hs, t)| [hs.z, t.z]).collect();
    crate::arith::batch_invert_vartime(&mut zi);
    let affine = |p: &G1, zi: &Fp| -> Option<G1Affine> {
        if bool::from(p.is_identity()) {
            return None;
        }
        let zi2 = zi.square();
        Some(G1Affine { x: p.x.mul(&zi2), y: p.y.mul(&zi2).mul(zi) })
    };
    let mut out = vec![false; items.len()];
    for (k, (i, h, hs, t)) in pending.iter().enumerate() {
        let (Some(zh), Some(zt)) = (zi.get(2 * k), zi.get(2 * k + 1)) else { continue };
        // [h1]S = O (h1 ≡ 0): invalid, as in verify.
        let Some(hs) = affine(hs, zh) else { continue };
        let t = affine(t, zt);
        if let (Some(out_i), Some((msg, _, _))) = (out.get_mut(*i), items.get(*i)) {
            *out_i = check_w(lines, msg, h, &hs, t.as_ref());
        }
    }
    out
}
