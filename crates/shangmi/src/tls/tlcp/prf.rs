//! The PRF of GB/T 38636-2020 section 6.5: TLS 1.2's P_hash (RFC 5246
//! section 5) with HMAC-SM3, and what is derived from it.

use crate::sm3::HmacSm3;
use zeroize::{Zeroize, Zeroizing};

/// PRF(secret, label, seed) = P_SM3(secret, label ‖ seed), `out.len()` bytes:
/// A(0) = label ‖ seed, A(i) = HMAC(secret, A(i−1)),
/// output = HMAC(secret, A(1) ‖ label ‖ seed) ‖ HMAC(secret, A(2) ‖ label ‖ seed) ‖ ...
pub fn prf(secret: &[u8], label: &[u8], seed: &[u8], out: &mut [u8]) {
    let keyed = HmacSm3::new(secret);
    let mut a = {
        let mut h = keyed.clone();
        h.update(label);
        h.update(seed);
        h.finalize()
    };
    for chunk in out.chunks_mut(32) {
        let mut h = keyed.clone();
        h.update(&a);
        h.update(label);
        h.update(seed);
        let mut block = h.finalize();
        chunk.copy_from_slice(&block[..chunk.len()]);
        block.zeroize();
        let mut h = keyed.clone();
        h.update(&a);
        a = h.finalize();
    }
    a.zeroize();
}

/// master_secret = PRF(pre_master, "master secret", client_random ‖ server_random)[..48].
pub(crate) fn master_secret(
    pre_master: &[u8],
    client_random: &[u8; 32],
    server_random: &[u8; 32],
) -> Zeroizing<[u8; 48]> {
    let mut seed = [0u8; 64];
    seed[..32].copy_from_slice(client_random);
    seed[32..].copy_from_slice(server_random);
    let mut m = Zeroizing::new([0u8; 48]);
    prf(pre_master, b"master secret", &seed, &mut m[..]);
    m
}

/// key_block = PRF(master, "key expansion", server_random ‖ client_random).
pub(crate) fn key_block(
    master: &[u8; 48],
    client_random: &[u8; 32],
    server_random: &[u8; 32],
    len: usize,
) -> Zeroizing<Vec<u8>> {
    let mut seed = [0u8; 64];
    seed[..32].copy_from_slice(server_random);
    seed[32..].copy_from_slice(client_random);
    let mut k = Zeroizing::new(vec![0u8; len]);
    prf(master, b"key expansion", &seed, &mut k);
    k
}

/// verify_data = PRF(master, "client finished" / "server finished", SM3(handshake messages))[..12].
pub(crate) fn verify_data(master: &[u8; 48], client: bool, transcript_hash: &[u8; 32]) -> [u8; 12] {
    let label: &[u8] = if client { b"client finished" } else { b"server finished" };
    let mut v = [0u8; 12];
    prf(master, label, transcript_hash, &mut v);
    v
}
