//! SM9 key exchange (GM/T 0044.3), keys extracted with hid 2.
//!
//! A sends RA = [rA]QB, B sends RB = [rB]QA (Q = [H1(ID ‖ hid)]P1 + Ppub-e).
//! With g = e(Ppub-e, P2): A has g1 = g^rA, g2 = e(RB, deA), g3 = g2^rA;
//! B has g1 = e(RA, deB), g2 = g^rB, g3 = g1^rB — the same three values.
//! SK = KDF(IDA ‖ IDB ‖ RA ‖ RB ‖ g1 ‖ g2 ‖ g3, klen),
//! SB = SM3(0x82 ‖ g1 ‖ SM3(g2 ‖ g3 ‖ IDA ‖ IDB ‖ RA ‖ RB)), SA the same with 0x83.

use super::enc::{check_kdf_len, EncMasterPublicKey, EncPrivateKey};
use super::fp::Scalar;
use super::g1::{self, G1Affine};
use super::g2;
use super::gt::Gt;
use super::hash::{Hedge, TAG_EXCHANGE};
pub use crate::kex::{KeyExchangeResult, Role};
use crate::sm3::{self, Sm3};
use crate::{Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// One party's state for one exchange; the ephemeral rA/rB serves one `compute`.
pub struct KeyExchange {
    role: Role,
    r: Scalar,
    ephemeral: G1Affine,
    own: EncPrivateKey,
    mpk: EncMasterPublicKey,
    uid: Vec<u8>,
    peer_uid: Vec<u8>,
    used: bool,
}

impl core::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KeyExchange {{ role: {:?}, used: {} }}", self.role, self.used)
    }
}

impl Drop for KeyExchange {
    fn drop(&mut self) {
        self.r.zeroize();
    }
}

impl KeyExchange {
    /// Starts an exchange with a fresh ephemeral scalar. `own` must be a
    /// hid-2 key of the identity `uid` under `mpk`.
    pub fn new(role: Role, own: &EncPrivateKey, mpk: &EncMasterPublicKey, uid: &[u8], peer_uid: &[u8]) -> Result<Self> {
        // Hedged with deB/deA and both identities, as SM2's exchange is with d.
        let de = Zeroizing::new(g2::encode_raw(&own.de));
        let uid_len = (uid.len() as u64).to_be_bytes();
        let r = Hedge::new(&de[..], &[&uid_len, uid, peer_uid]).scalar(TAG_EXCHANGE)?;
        Self::with_r(role, own, mpk, uid, peer_uid, r)
    }

    pub(crate) fn with_r(
        role: Role,
        own: &EncPrivateKey,
        mpk: &EncMasterPublicKey,
        uid: &[u8],
        peer_uid: &[u8],
        r: Scalar,
    ) -> Result<Self> {
        let ephemeral = mpk.mul_user_point(peer_uid, super::enc::HID_EXCH, &r)?;
        Ok(KeyExchange {
            role,
            r,
            ephemeral,
            own: own.clone(),
            mpk: mpk.clone(),
            uid: uid.to_vec(),
            peer_uid: peer_uid.to_vec(),
            used: false,
        })
    }

    /// RA or RB as 04‖x‖y.
    pub fn ephemeral_public(&self) -> [u8; 65] {
        g1::encode(&self.ephemeral)
    }

    /// This party's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// The shared key of `length` bytes and the confirmations, from the
    /// peer's ephemeral point (04‖x‖y or x‖y). Usable once.
    pub fn compute(&mut self, peer_ephemeral: &[u8], length: usize) -> Result<KeyExchangeResult> {
        check_kdf_len(length)?;
        if self.used {
            return Err(Error::invalid("this SM9 key exchange was already computed; start a new one"));
        }
        let peer = g1::decode(peer_ephemeral, "peer's SM9 ephemeral point")?;
        self.used = true;
        let own_r = g1::encode_xy(&self.ephemeral);
        let peer_r = g1::encode_xy(&peer);
        let mut from_g = self.mpk.g_pow(&self.r);
        let mut paired = self.own.pair(&peer);
        let mut cubed: Gt = paired.pow(&self.r);
        self.r.zeroize();
        let (ga, gb) = (from_g.to_bytes(), paired.to_bytes());
        let mut g3 = Zeroizing::new(cubed.to_bytes());
        from_g.zeroize();
        paired.zeroize();
        cubed.zeroize();
        // (g1, g2) = (g^rA, e(RB, deA)) for A, (e(RA, deB), g^rB) for B.
        let (g1, g2) = self.role.order(ga, gb);
        let (mut g1b, mut g2b) = (Zeroizing::new(g1), Zeroizing::new(g2));
        let (ida, idb) = self.role.order(&self.uid[..], &self.peer_uid[..]);
        let (ra, rb) = self.role.order(&own_r, &peer_r);
        let mut key = Zeroizing::new(vec![0u8; length]);
        sm3::kdf_into(&[ida, idb, &ra[..], &rb[..], &g1b[..], &g2b[..], &g3[..]], &mut key);
        let inner = sm3::hash_parts(&[&g2b[..], &g3[..], ida, idb, &ra[..], &rb[..]]);
        let conf = |tag: u8| Sm3::new().chain(&[tag]).chain(&g1b[..]).chain(&inner).finalize();
        let sb = conf(0x82);
        let sa = conf(0x83);
        crate::ctime::declassify(&sb);
        crate::ctime::declassify(&sa);
        g1b.zeroize();
        g2b.zeroize();
        g3.zeroize();
        Ok(KeyExchangeResult::new(self.role, key, sa, sb))
    }
}
