//! SM9 encryption master keys, user keys, key encapsulation and public-key
//! encryption (GM/T 0044.3/.4).
//!
//! QB = [H1(IDB ‖ hid)]P1 + Ppub-e, C = [r]QB, w = e(Ppub-e, P2)^r,
//! K = KDF(C ‖ w ‖ IDB, klen); the recipient recomputes w = e(C, deB).

use super::fp::Scalar;
use super::g1::{self, G1Affine, G1};
use super::g2::{self, G2Affine, P2};
use super::gt::{Gt, GtTable};
use super::hash::{h1, random_scalar, scalar_from_bytes};
use super::pairing::{multi_pairing_prepared, pairing, G2Prepared};
use super::window::{comb, mul_fixed_window};
use crate::arith::comb::CombTable;
use crate::{Error, Result};
use std::sync::Arc;
use zeroize::{Zeroize, Zeroizing};

/// The default hid of encryption keys.
pub const HID_ENC: u8 = 3;
/// The hid of key-exchange keys.
pub const HID_EXCH: u8 = 2;

/// An encryption master key ke with Ppub-e = [ke]P1.
pub struct EncMasterKey {
    ke: Scalar,
    public: EncMasterPublicKey,
}

impl core::fmt::Debug for EncMasterKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("EncMasterKey(..)")
    }
}

impl Drop for EncMasterKey {
    fn drop(&mut self) {
        self.ke.zeroize();
    }
}

impl EncMasterKey {
    pub fn generate() -> Result<Self> {
        Ok(Self::from_scalar(random_scalar()?))
    }

    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        Ok(Self::from_scalar(scalar_from_bytes(b, "SM9 encryption master key")?))
    }

    fn from_scalar(ke: Scalar) -> Self {
        let mut l = Zeroizing::new(ke.to_canonical());
        let ppub = super::p1_table().mul(&l).to_affine_public().expect("ke in [1, n-1]");
        l.zeroize();
        EncMasterKey { ke, public: EncMasterPublicKey { ppub, prepared: None } }
    }

    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.ke.to_be_bytes())
    }

    pub fn public_key(&self) -> &EncMasterPublicKey {
        &self.public
    }

    /// de = [ke/(H1(ID ‖ hid) + ke)]P2; the key remembers `uid` (it enters the KDF).
    pub fn extract(&self, uid: &[u8], hid: u8) -> Result<EncPrivateKey> {
        let t1 = h1(uid, hid).add(&self.ke);
        if crate::ctime::public_bool(t1.is_zero()) {
            return Err(Error::invalid("this identity cannot be used with this master key (t1 = 0)"));
        }
        let mut t2 = Zeroizing::new(self.ke.mul(&t1.invert()).to_canonical());
        // t2 ≠ 0, so deB is never the identity; deB stays secret.
        let de = super::p2_table().mul(&t2).to_affine_masked().0;
        t2.zeroize();
        Ok(EncPrivateKey { de, mpk: self.public.clone(), uid: Some(uid.to_vec()), lines: None })
    }
}

struct EncPrepared {
    g: Gt,
    g_table: GtTable,
    ppub_table: CombTable<G1>,
}

/// Ppub-e, optionally prepared.
#[derive(Clone)]
pub struct EncMasterPublicKey {
    ppub: G1Affine,
    prepared: Option<Arc<EncPrepared>>,
}

impl core::fmt::Debug for EncMasterPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "EncMasterPublicKey(prepared: {})", self.prepared.is_some())
    }
}

impl EncMasterPublicKey {
    /// 04‖x‖y or x‖y, checked on the curve.
    pub fn from_bytes(b: &[u8]) -> Result<Self> {
        let ppub = g1::decode(b, "SM9 encryption master public key").map_err(|e| Error::invalid_key(e.to_string()))?;
        Ok(EncMasterPublicKey { ppub, prepared: None })
    }

    pub fn to_bytes(&self) -> [u8; 65] {
        g1::encode(&self.ppub)
    }

    pub fn point(&self) -> &G1Affine {
        &self.ppub
    }

    /// A copy carrying g = e(Ppub-e, P2) with its fixed-base table and a fixed-base table of Ppub-e.
    pub fn prepare(&self) -> Self {
        if self.prepared.is_some() {
            return self.clone();
        }
        let g = Gt(multi_pairing_prepared(&[(&self.ppub, super::p2_prepared())]));
        let p = EncPrepared { g, g_table: comb(&g), ppub_table: comb(&self.ppub.to_jacobian()) };
        EncMasterPublicKey { ppub: self.ppub, prepared: Some(Arc::new(p)) }
    }

    pub fn is_prepared(&self) -> bool {
        self.prepared.is_some()
    }

    pub fn prepared_memory(&self) -> usize {
        self.prepared
            .as_ref()
            .map_or(0, |p| p.g_table.memory_bytes() + p.ppub_table.memory_bytes() + core::mem::size_of::<Gt>())
    }

    /// g = e(Ppub-e, P2).
    pub fn g(&self) -> Gt {
        match &self.prepared {
            Some(p) => p.g,
            None => Gt(pairing(&self.ppub, &P2)),
        }
    }

    pub(crate) fn g_pow(&self, k: &Scalar) -> Gt {
        match &self.prepared {
            Some(p) => Gt::pow_table(&p.g_table, k),
            None => self.g().pow(k),
        }
    }

    /// QB = [H1(ID ‖ hid)]P1 + Ppub-e (public).
    pub fn user_point(&self, uid: &[u8], hid: u8) -> G1 {
        let h = h1(uid, hid);
        super::p1_table().mul(&h.to_canonical()).add(&self.ppub.to_jacobian())
    }

    /// [r]QB for a secret r: [r·h1]P1 + [r]Ppub-e from two fixed-base tables
    /// when prepared, else a fixed window over QB.
    pub(crate) fn mul_user_point(&self, uid: &[u8], hid: u8, r: &Scalar) -> Result<G1Affine> {
        let mut rl = Zeroizing::new(r.to_canonical());
        let c = match &self.prepared {
            Some(p) => {
                let mut rh = Zeroizing::new(r.mul(&h1(uid, hid)).to_canonical());
                let a = super::p1_table().mul(&rh);
                rh.zeroize();
                a.add(&p.ppub_table.mul(&rl))
            }
            None => mul_fixed_window(&self.user_point(uid, hid), &rl),
        };
        rl.zeroize();
        // QB = O only for an identity whose H1 is −ke: nothing can be sent to it.
        c.to_affine_public().ok_or_else(|| Error::invalid("this identity's public point is the point at infinity"))
    }

    /// (K, C) with K of `length` bytes; `r` injected by tests only.
    pub(crate) fn encapsulate_with_r(
        &self,
        uid: &[u8],
        hid: u8,
        length: usize,
        r: &Scalar,
    ) -> Result<Option<Encapsulated>> {
        let c = self.mul_user_point(uid, hid, r)?;
        let cb = g1::encode(&c);
        let mut w = self.g_pow(r);
        let mut wb = Zeroizing::new(w.to_bytes());
        w.zeroize();
        let mut k = Zeroizing::new(vec![0u8; length]);
        crate::sm3::kdf_into(&[&cb[1..], &wb[..], uid], &mut k);
        wb.zeroize();
        if crate::ctime::public_bool(all_zero(&k)) {
            return Ok(None);
        }
        Ok(Some((k, cb)))
    }

    /// Key encapsulation: a fresh `length`-byte key and its ciphertext C (04‖x‖y).
    pub fn encapsulate(&self, uid: &[u8], hid: u8, length: usize) -> Result<Encapsulated> {
        check_kdf_len(length)?;
        loop {
            let mut r = random_scalar()?;
            let out = self.encapsulate_with_r(uid, hid, length, &r);
            r.zeroize();
            if let Some(kc) = out? {
                return Ok(kc);
            }
        }
    }
}

/// Whether every byte is zero, as a Choice (no branch on the bytes).
pub(crate) fn all_zero(b: &[u8]) -> subtle::Choice {
    use subtle::ConstantTimeEq;
    b.iter().fold(0u8, |a, &x| a | x).ct_eq(&0)
}

/// KDF lengths: at least 1 byte, at most what SM3's 32-bit counter covers (and a sane bound).
pub(crate) fn check_kdf_len(length: usize) -> Result<()> {
    if length == 0 || length > (1 << 30) {
        return Err(Error::invalid(format!("key length must be between 1 and 2^30 bytes, got {length}")));
    }
    Ok(())
}

/// A key and its encapsulation C (04‖x‖y).
pub type Encapsulated = (Zeroizing<Vec<u8>>, [u8; 65]);

/// A user's decryption (or key-exchange) key deB with its master public key and identity.
pub struct EncPrivateKey {
    pub(crate) de: G2Affine,
    pub(crate) mpk: EncMasterPublicKey,
    pub(crate) uid: Option<Vec<u8>>,
    lines: Option<Arc<G2Prepared>>,
}

impl core::fmt::Debug for EncPrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "EncPrivateKey(prepared: {})", self.lines.is_some())
    }
}

impl Drop for EncPrivateKey {
    fn drop(&mut self) {
        self.de.zeroize();
    }
}

impl Clone for EncPrivateKey {
    fn clone(&self) -> Self {
        EncPrivateKey { de: self.de, mpk: self.mpk.clone(), uid: self.uid.clone(), lines: self.lines.clone() }
    }
}

impl EncPrivateKey {
    /// deB from 04‖x1‖x0‖y1‖y0 (or 128 bytes), checked on the twist and in G2.
    pub fn from_bytes(b: &[u8], mpk: &EncMasterPublicKey, uid: Option<&[u8]>) -> Result<Self> {
        let de = g2::decode(b, "SM9 encryption private key").map_err(|e| Error::invalid_key(e.to_string()))?;
        Ok(EncPrivateKey { de, mpk: mpk.clone(), uid: uid.map(|u| u.to_vec()), lines: None })
    }

    pub fn to_bytes(&self) -> Zeroizing<[u8; 129]> {
        Zeroizing::new(g2::encode(&self.de))
    }

    pub fn master_public_key(&self) -> &EncMasterPublicKey {
        &self.mpk
    }

    pub fn uid(&self) -> Option<&[u8]> {
        self.uid.as_deref()
    }

    /// A copy carrying deB's Miller-loop lines (as secret as deB, wiped on drop).
    pub fn prepare(&self) -> Self {
        let lines = self.lines.clone().unwrap_or_else(|| Arc::new(G2Prepared::new(&self.de)));
        EncPrivateKey { de: self.de, mpk: self.mpk.clone(), uid: self.uid.clone(), lines: Some(lines) }
    }

    pub fn prepared_memory(&self) -> usize {
        self.lines.as_ref().map_or(0, |l| l.memory())
    }

    /// e(C, deB), constant time in deB.
    pub(crate) fn pair(&self, c: &G1Affine) -> Gt {
        match &self.lines {
            Some(l) => Gt(multi_pairing_prepared(&[(c, l)])),
            None => Gt(pairing(c, &self.de)),
        }
    }

    /// The identity to use: the caller's, else the key's own.
    pub(crate) fn resolve_uid<'a>(&'a self, uid: Option<&'a [u8]>) -> Result<&'a [u8]> {
        uid.or(self.uid.as_deref()).ok_or_else(|| {
            Error::invalid("this SM9 key does not know its identity (keys read from files do not store it): give a uid")
        })
    }

    /// Decapsulation of C (04‖x‖y or x‖y) into a `length`-byte key.
    pub fn decapsulate(&self, c: &[u8], length: usize, uid: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
        check_kdf_len(length)?;
        let uid = self.resolve_uid(uid)?;
        let cp = g1::decode(c, "SM9 encapsulated key").map_err(|_| Error::DecryptionFailed)?;
        let mut w = self.pair(&cp);
        let mut wb = Zeroizing::new(w.to_bytes());
        w.zeroize();
        let mut k = Zeroizing::new(vec![0u8; length]);
        crate::sm3::kdf_into(&[&g1::encode_xy(&cp), &wb[..], uid], &mut k);
        wb.zeroize();
        if crate::ctime::public_bool(all_zero(&k)) {
            return Err(Error::DecryptionFailed);
        }
        Ok(k)
    }
}
