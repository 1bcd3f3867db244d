//! SM2 (GB/T 32918): curve arithmetic, signatures, encryption, key exchange.
//!
//! Curve sm2p256v1: y² = x³ − 3x + b over Fp, p = 2^256 − 2^224 − 2^96 +
//! 2^64 − 1, prime order n, cofactor 1.
//!
//! Memory: k·G uses one process-wide comb (37 × 64 affine points, 151,552
//! bytes) built on first use from G alone (`ecmult_gen::g_table`), and on
//! CPUs with AVX-512 IFMA its first 36 windows again in the eight-lane layout
//! (204,800 bytes, `ecmult_gen::ifma`); a prepared
//! public key carries its own comb (43 × 32 points, 88,064 bytes);
//! verification also uses a process-wide table of 256 odd multiples of G
//! (16,384 bytes, built on the first verification).
//!
//! Constant time: `tests/ctgrind.rs` runs signing, decryption and key
//! exchange under valgrind with every secret marked undefined; it fails on
//! any secret-dependent branch or memory index.
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
//! the faster variable-time inversion (`arith::invert_blinded`).
//!
//! Fork safety: pools, key exchanges and the buffered nonce seeds record
//! [`crate::rand::fork_generation`] and never hand the same secret to a
//! parent and its forked child.
//!
//! Layout, one job per file: `keys` (key pairs, Z, prepared comb), `sign`
//! (signatures and batches), `encrypt` (ciphertexts), `pool` (signature
//! pools), `kex` (key exchange), `nonce` (hedged draws), `ecmult_gen` (k·G
//! and fixed-base combs; k·G on eight IFMA lanes in `ecmult_gen::ifma`, over
//! the lane field of `field::ifma`), `ecmult_const` (k·P), `ecmult` (s·G + t·P),
//! `point` (formulas), `field` (p and n; x86-64 kernels in `field::x86`).

use crate::ctime;
mod ecmult;
pub(crate) mod ecmult_const;
mod ecmult_gen;
#[cfg(test)]
mod ecmult_tests;
mod encrypt;
pub(crate) mod field;
mod kex;
mod keys;
#[cfg(target_arch = "x86_64")]
mod lanes;
mod nonce;
pub(crate) mod point;
mod pool;
mod sign;

pub use crate::ctime::{classify, declassify};
pub use ecmult_gen::mul_g_name as comb_backend_name;
pub use encrypt::Ciphertext;
pub use field::{Sm2N, Sm2P};
pub use kex::{KeyExchange, KeyExchangeResult, Role};
pub use keys::{PrivateKey, PublicKey};
pub use pool::SignaturePool;
pub use sign::{sign_many, verify_many, Signature};

use crate::arith::Limbs;
use crate::{sm3, Result};
use field::{Fp, Scalar};
use point::{Affine, Jacobian};
use zeroize::Zeroizing;

/// The default user ID of GM/T 0009 (used by GmSSL; OpenSSL uses an empty ID).
pub const DEFAULT_UID: &[u8] = b"1234567812345678";

/// Longest user ID: ENTL is a 16-bit bit length.
pub const MAX_UID_LEN: usize = 8191;

/// Comb width of a prepared public key's table.
pub(crate) const PREPARED_COMB_W: usize = 6;

/// Upper bound for one [`SignaturePool`] fill.
pub const MAX_POOL: usize = 1_000_000;

/// (X·Z⁻², Y·Z⁻³) given Z⁻¹.
#[inline]
fn affine_with_inverse(p: &Jacobian, zi: &Fp) -> Affine {
    let zi2 = zi.square();
    Affine { x: p.x.mul(&zi2), y: p.y.mul(&zi2).mul(zi) }
}

/// k·G for each of many secret k < 2^256, in constant time: eight at a
/// time on IFMA lanes where the CPU has them (`lanes::mul_g8`; a
/// partial last group fills its spare lanes with k = 1 and runs the same
/// steps, so the count of real lanes shows only in the output's length),
/// else [`ecmult_gen::mul_g`] one by one.
fn mul_g_many(ks: &[Limbs]) -> Vec<Jacobian> {
    #[cfg(target_arch = "x86_64")]
    if let Some(t) = <crate::cpu::Ifma as crate::cpu::Token>::get() {
        use lanes::{mul_g8, LANES};
        use zeroize::Zeroize;
        let mut out = Vec::with_capacity(ks.len());
        for group in ks.chunks(LANES) {
            let mut lane_ks: [Limbs; LANES] = core::array::from_fn(|l| group.get(l).copied().unwrap_or([1, 0, 0, 0]));
            let mut pts = mul_g8(t, &lane_ks);
            out.extend_from_slice(&pts[..group.len()]);
            lane_ks.zeroize();
            pts.zeroize();
        }
        return out;
    }
    ks.iter().map(ecmult_gen::mul_g).collect()
}

/// A k drawn as SM3-KDF(seed ‖ extra…, 64 bytes) mod n with a fresh
/// 32-byte seed of OS randomness ([`crate::rand::buffered_key_bytes`]); never 0 (key-exchange ephemerals, the signature pool).
fn random_scalar(extra: &[&[u8]]) -> Result<Scalar> {
    loop {
        let mut seed = Zeroizing::new([0u8; 32]);
        // The per-thread buffer of OS bytes, refilled for a new process id
        // as for private keys (one system call per 512 bytes instead of one
        // per scalar: a pool refill draws thousands).
        crate::rand::buffered_key_bytes(&mut seed[..])?;
        classify(&seed[..]);
        let mut parts: Vec<&[u8]> = Vec::with_capacity(extra.len() + 1);
        parts.push(&seed[..]);
        parts.extend_from_slice(extra);
        let mut wide = Zeroizing::new([0u8; 64]);
        sm3::kdf_into(&parts, &mut wide[..]);
        let k = Scalar::from_be_wide(&wide);
        if !ctime::public_bool(k.is_zero()) {
            return Ok(k);
        }
    }
}

/// Test-only hooks that inject k to reproduce the standard's examples. Only
/// compiled for `cargo test`, the `test-hooks` feature or the `ctime`
/// harness build, none of which the Python binding enables.
#[cfg(any(test, feature = "test-hooks", feature = "ctime"))]
#[doc(hidden)]
pub mod testing;
