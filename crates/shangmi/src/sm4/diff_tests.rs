//! Differential tests: every backend this CPU allows (after
//! `SHANGMI_CPU_DISABLE`) against the portable one, and every GHASH kernel
//! against the portable constant-time GHASH, on fresh random keys, data
//! and lengths (odd tails included). The seed is printed on failure.

use super::ghash::{Ghash, Kernel as GhashKernel};
use super::*;

/// xorshift64* from a getrandom seed; returns (seed, generator).
fn rng() -> (u64, impl FnMut() -> u64) {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("getrandom");
    let seed = u64::from_le_bytes(b) | 1;
    (seed, crate::test_rng(seed))
}

fn bytes(next: &mut impl FnMut() -> u64, n: usize) -> Vec<u8> {
    (0..n).map(|_| next() as u8).collect()
}

#[test]
fn every_backend_matches_portable_on_random_inputs() {
    let (seed, mut next) = rng();
    for _ in 0..12 {
        let key: [u8; 16] = bytes(&mut next, 16).try_into().unwrap();
        let iv: [u8; 16] = bytes(&mut next, 16).try_into().unwrap();
        let p = Sm4::with_backend(&key, Backend::Portable).unwrap();
        // Lengths around the 8/16/64-block group sizes and odd tails.
        let len = match next() % 3 {
            0 => (next() % 40) as usize,
            1 => (next() % 2100) as usize,
            _ => 16 * (next() % 140) as usize,
        };
        let data = bytes(&mut next, len);
        let whole = &data[..len - len % 16];
        let want_ecb = ecb_encrypt(&p, whole, false).unwrap();
        let want_cbc = cbc_encrypt_expanded(&p, &iv, whole, false).unwrap();
        let want_cbcd = cbc_decrypt_expanded(&p, &iv, whole, false).unwrap();
        let mut want_ctr = data.clone();
        ctr_apply_in_place(&p, &iv, &mut want_ctr);
        let nonce = bytes(&mut next, 12);
        let aad_len = (next() % 50) as usize;
        let aad = bytes(&mut next, aad_len);
        let want_gcm = Gcm::with_cipher(p.clone(), 16).encrypt(&nonce, &aad, &data).unwrap();
        for b in Backend::available() {
            let c = Sm4::with_backend(&key, b).unwrap();
            let ctx = format!("{b:?} len {len} seed {seed:#x}");
            assert_eq!(ecb_encrypt(&c, whole, false).unwrap(), want_ecb, "ECB {ctx}");
            assert_eq!(ecb_decrypt(&c, &want_ecb, false).unwrap(), whole, "ECB dec {ctx}");
            assert_eq!(cbc_encrypt_expanded(&c, &iv, whole, false).unwrap(), want_cbc, "CBC {ctx}");
            assert_eq!(cbc_decrypt_expanded(&c, &iv, whole, false).unwrap(), want_cbcd, "CBC dec {ctx}");
            let mut got = data.clone();
            ctr_apply_in_place(&c, &iv, &mut got);
            assert_eq!(got, want_ctr, "CTR {ctx}");
            let gcm = Gcm::with_cipher(c.clone(), 16);
            assert_eq!(gcm.encrypt(&nonce, &aad, &data).unwrap(), want_gcm, "GCM {ctx}");
            assert_eq!(gcm.decrypt(&nonce, &aad, &want_gcm).unwrap(), data, "GCM dec {ctx}");
        }
    }
}

#[test]
fn every_ghash_kernel_matches_portable_on_random_inputs() {
    let (seed, mut next) = rng();
    for _ in 0..40 {
        let h: [u8; 16] = bytes(&mut next, 16).try_into().unwrap();
        let blocks = (next() % 90) as usize;
        let data = bytes(&mut next, 16 * blocks);
        let split = 16 * (next() as usize % (blocks + 1));
        let mut p = Ghash::with_kernel(&h, GhashKernel::Portable);
        p.update_blocks(&data);
        for k in GhashKernel::available() {
            let mut g = Ghash::with_kernel(&h, k);
            g.update_blocks(&data[..split]);
            g.update_blocks(&data[split..]);
            assert_eq!(g.value(), p.value(), "{k:?} {blocks} blocks split {split} seed {seed:#x}");
        }
    }
}
