//! SM2 key exchange (GB/T 32918.3), with the optional confirmation values.
//!
//! Initiator A and responder B each hold a static key and an ephemeral
//! (r, R = r·G). With w = 127 and x̄ = 2^w + (x mod 2^w):
//! t = d + x̄_own·r mod n, U = t·(P_peer + x̄_peer·R_peer),
//! K = KDF(x_U ‖ y_U ‖ Z_A ‖ Z_B, klen),
//! S_B (B → A) = SM3(02 ‖ y_U ‖ SM3(x_U ‖ Z_A ‖ Z_B ‖ x_RA ‖ y_RA ‖ x_RB ‖ y_RB)),
//! S_A (A → B) = the same with 03. Z_A, R_A always belong to the initiator.

use super::field::Scalar;
use super::{ctime, declassify, ecmult, ecmult_const, ecmult_gen, random_scalar, PrivateKey, PublicKey};
use crate::arith::{limbs_from_be, Limbs};
pub use crate::kex::{KeyExchangeResult, Role};
use crate::{sm3, Error, Result};
use zeroize::{Zeroize, Zeroizing};

/// Largest shared key `compute` derives, in bytes.
pub const MAX_KEY_LEN: usize = 1 << 20;

/// One party's state for one exchange. The ephemeral key is used for one
/// `compute` only and is zeroized on drop.
pub struct KeyExchange {
    role: Role,
    d: Scalar,
    r: Scalar,
    ephemeral: [u8; 65],
    peer: PublicKey,
    z_own: [u8; 32],
    z_peer: [u8; 32],
    used: bool,
    /// [`crate::rand::fork_generation`] when `r` was drawn: a copy of this
    /// state in a forked child refuses to use `r` (the parent may).
    generation: u64,
}

impl core::fmt::Debug for KeyExchange {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KeyExchange {{ role: {:?}, used: {} }}", self.role, self.used)
    }
}

impl Drop for KeyExchange {
    fn drop(&mut self) {
        self.d.zeroize();
        self.r.zeroize();
    }
}

/// x̄ = 2^127 + (x mod 2^127).
fn x_bar(x: &[u8; 32]) -> Limbs {
    let l = limbs_from_be(x);
    [l[0], (l[1] & (u64::MAX >> 1)) | (1 << 63), 0, 0]
}

impl KeyExchange {
    /// Starts an exchange with a fresh ephemeral key from the OS CSPRNG.
    pub fn new(role: Role, own: &PrivateKey, own_uid: &[u8], peer: &PublicKey, peer_uid: &[u8]) -> Result<Self> {
        let d = own.to_bytes();
        let r = random_scalar(&[&d[..], b"SM2 key exchange"])?;
        Self::with_ephemeral(role, own, own_uid, peer, peer_uid, r)
    }

    /// [`Self::new`] with the ephemeral drawn from `source` (64 bytes
    /// reduced mod n, redrawn if zero).
    pub(crate) fn new_from(
        role: Role,
        own: &PrivateKey,
        own_uid: &[u8],
        peer: &PublicKey,
        peer_uid: &[u8],
        source: &mut dyn FnMut(&mut [u8]) -> Result<()>,
    ) -> Result<Self> {
        let r = loop {
            let mut wide = Zeroizing::new([0u8; 64]);
            source(&mut wide[..])?;
            let k = Scalar::from_be_wide(&wide);
            if !ctime::public_bool(k.is_zero()) {
                break k;
            }
        };
        Self::with_ephemeral(role, own, own_uid, peer, peer_uid, r)
    }

    pub(crate) fn with_ephemeral(
        role: Role,
        own: &PrivateKey,
        own_uid: &[u8],
        peer: &PublicKey,
        peer_uid: &[u8],
        r: Scalar,
    ) -> Result<Self> {
        let z_own = own.public_key().z(own_uid)?;
        let z_peer = peer.z(peer_uid)?;
        let rl = Zeroizing::new(r.to_canonical());
        let generation = crate::rand::fork_generation();
        let ephemeral = ecmult_gen::mul_g(&rl).to_affine_masked().0.to_uncompressed();
        declassify(&ephemeral);
        Ok(KeyExchange {
            role,
            d: *own.scalar(),
            r,
            ephemeral,
            peer: peer.clone(),
            z_own,
            z_peer,
            used: false,
            generation,
        })
    }

    /// This party's ephemeral point R (R_A or R_B), 04‖x‖y.
    pub fn ephemeral_public(&self) -> [u8; 65] {
        self.ephemeral
    }

    /// This party's role.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Derives `key_len` bytes of shared key from the peer's ephemeral point
    /// (any encoding [`PublicKey::from_bytes`] takes), plus both
    /// confirmation values. Works once per exchange, and only in the process
    /// that created it: a copy inherited through `fork()` refuses (and wipes
    /// its ephemeral), so parent and child can never both use it.
    pub fn compute(&mut self, peer_ephemeral: &[u8], key_len: usize) -> Result<KeyExchangeResult> {
        if self.used {
            return Err(Error::invalid("this SM2 key exchange was already computed; start a new one"));
        }
        if self.generation != crate::rand::fork_generation() {
            self.used = true;
            self.r.zeroize();
            return Err(Error::invalid(
                "this SM2 key exchange was created before fork(): its ephemeral key belongs to the parent process; \
                 start a new key exchange in this process",
            ));
        }
        if key_len == 0 || key_len > MAX_KEY_LEN {
            return Err(Error::invalid(format!(
                "SM2 key exchange key length must be 1..={MAX_KEY_LEN} bytes, got {key_len}"
            )));
        }
        let peer_r =
            PublicKey::from_bytes(peer_ephemeral).map_err(|e| Error::invalid(format!("peer ephemeral point: {e}")))?;
        self.used = true;
        let (px, py) = peer_r.x_y();
        let mut own_x = [0u8; 32];
        own_x.copy_from_slice(&self.ephemeral[1..33]);
        // t = d + x̄_own·r mod n (secret).
        let xo = Scalar::from_canonical(&x_bar(&own_x));
        let mut t = self.d.add(&xo.mul(&self.r));
        self.r.zeroize();
        // Q = P_peer + x̄_peer·R_peer: public.
        let q = ecmult::mul_vartime(peer_r.point(), &x_bar(&px)).add_vartime(&self.peer.point().to_jacobian());
        // Q depends only on the peer's public points: variable-time inversion.
        let Some(q) = q.to_affine_vartime() else {
            return Err(Error::invalid("SM2 key exchange failed: peer's points sum to infinity"));
        };
        let mut tl = Zeroizing::new(t.to_canonical());
        t.zeroize();
        let u = ecmult_const::mul(&q, &tl);
        tl.zeroize();
        if ctime::public_bool(u.is_identity()) {
            return Err(Error::invalid("SM2 key exchange failed: shared point is infinity"));
        }
        let mut u = u.to_affine_masked().0;
        let mut xu = Zeroizing::new(u.x.to_be_bytes());
        let yu = Zeroizing::new(u.y.to_be_bytes());
        u.zeroize();
        let (za, zb) = self.role.order(&self.z_own, &self.z_peer);
        // x_RA ‖ y_RA ‖ x_RB ‖ y_RB, always in the initiator's order.
        let (first, second) = self.role.order(0, 64);
        let mut rarb = [0u8; 128];
        rarb[first..first + 64].copy_from_slice(&self.ephemeral[1..]);
        rarb[second..second + 32].copy_from_slice(&px);
        rarb[second + 32..second + 64].copy_from_slice(&py);
        let mut key = Zeroizing::new(vec![0u8; key_len]);
        sm3::kdf_into(&[&xu[..], &yu[..], &za[..], &zb[..]], &mut key);
        let inner = Zeroizing::new(sm3::hash_parts(&[&xu[..], &za[..], &zb[..], &rarb]));
        xu.zeroize();
        let s02 = sm3::hash_parts(&[&[2u8], &yu[..], &inner[..]]);
        let s03 = sm3::hash_parts(&[&[3u8], &yu[..], &inner[..]]);
        // The confirmation values go on the wire: public.
        declassify(&s02);
        declassify(&s03);
        // S_B carries 02, S_A 03.
        Ok(KeyExchangeResult::new(self.role, key, s03, s02))
    }
}
