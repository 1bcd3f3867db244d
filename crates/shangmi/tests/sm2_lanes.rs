//! The batch forms (verify_many, decrypt_many, sign_many, pool refills),
//! which run on eight IFMA lanes where the CPU has them, against the
//! one-at-a-time operations and the standard's examples: every size that
//! leaves a partial lane group (0, 1, 7, 8, 9, 17, and more than one
//! thread's chunk), invalid items in random positions. Run also with
//! `SHANGMI_CPU_DISABLE=avx512ifma` and `=all` (the scalar paths).

use crate::common;

use common::{hex_arr, hexv, on_curve};
use shangmi::encoding::sm2_modes::{self, CiphertextMode};
use shangmi::sm2::{self, Ciphertext, PrivateKey, PublicKey, Signature, SignaturePool, DEFAULT_UID};

const SIZES: [usize; 8] = [0, 1, 7, 8, 9, 17, 64, 75];

use crate::common::Rng;

fn keys(n: usize) -> Vec<PrivateKey> {
    (0..n).map(|_| PrivateKey::generate().unwrap()).collect()
}

/// n minus 1 as 32 bytes, and n itself (out of range for r and s).
const N_BYTES: [u8; 32] = [
    0xff, 0xff, 0xff, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x72, 0x03, 0xdf,
    0x6b, 0x21, 0xc6, 0x05, 0x2b, 0x53, 0xbb, 0xf4, 0x09, 0x39, 0xd5, 0x41, 0x23,
];

fn sub_be(a: &[u8; 32], b: &[u8; 32]) -> [u8; 32] {
    let mut out = [0u8; 32];
    let mut borrow = 0i16;
    for i in (0..32).rev() {
        let d = a[i] as i16 - b[i] as i16 - borrow;
        borrow = (d < 0) as i16;
        out[i] = d.rem_euclid(256) as u8;
    }
    out
}

#[test]
fn verify_many_matches_one_at_a_time() {
    let ks = keys(5);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for &size in &SIZES {
        let msgs: Vec<Vec<u8>> = (0..size).map(|i| format!("message {i} of {size}").into_bytes()).collect();
        let mut items: Vec<(PublicKey, Vec<u8>, Signature)> = msgs
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let k = &ks[i % ks.len()];
                (k.public_key().clone(), m.clone(), k.sign(m, DEFAULT_UID).unwrap())
            })
            .collect();
        // Tamper with about a third of the items, in random positions.
        for _ in 0..size / 3 + usize::from(size > 0) {
            let i = rng.below(size);
            match rng.below(6) {
                0 => items[i].2.s[rng.below(32)] ^= 1 << rng.below(8),
                1 => items[i].2.r[rng.below(32)] ^= 1 << rng.below(8),
                2 => items[i].1.push(b'!'),
                3 => items[i].0 = ks[(i + 1) % ks.len()].public_key().clone(),
                // s = n − r: t = r + s ≡ 0, rejected before any product.
                4 => items[i].2.s = sub_be(&N_BYTES, &items[i].2.r),
                // Out of range: s = n.
                _ => items[i].2.s = N_BYTES,
            }
        }
        let refs: Vec<(&PublicKey, &[u8], &Signature)> = items.iter().map(|(k, m, s)| (k, &m[..], s)).collect();
        let want: Vec<bool> = refs.iter().map(|(k, m, s)| k.verify(m, DEFAULT_UID, s).is_ok()).collect();
        let got = sm2::verify_many(&refs, DEFAULT_UID).unwrap();
        assert_eq!(got, want, "size {size}");
        if size >= 7 {
            assert!(want.iter().any(|&b| b) && want.iter().any(|&b| !b), "size {size}: both outcomes exercised");
        }
        // The same through the encoded-signature layer (DER).
        let enc = sm2_modes::SignatureEncoding::Der;
        let der: Vec<Vec<u8>> = items.iter().map(|(_, _, s)| enc.encode(s)).collect();
        let triples: Vec<(&PublicKey, &[u8], &[u8])> =
            items.iter().zip(&der).map(|((k, m, _), d)| (k, &m[..], &d[..])).collect();
        assert_eq!(sm2_modes::verify_many(&triples, DEFAULT_UID, enc).unwrap(), want, "size {size}, DER");
    }
}

#[test]
fn verify_many_prepared_keys_and_repeats() {
    // Prepared keys (their own comb one at a time) go through the lanes too;
    // the same item repeated fills a whole group.
    let k = PrivateKey::generate().unwrap();
    let ppk = k.public_key().prepare();
    let sig = k.sign(b"m", b"").unwrap();
    let items: Vec<(&PublicKey, &[u8], &Signature)> = (0..11).map(|_| (&ppk, &b"m"[..], &sig)).collect();
    assert_eq!(sm2::verify_many(&items, b"").unwrap(), vec![true; 11]);
}

fn recommended(section: &str) -> Vec<common::Value> {
    on_curve(&common::json("sm2.json"), section, "sm2p256v1")
}

#[test]
fn standard_examples_through_the_batches() {
    for v in recommended("sign") {
        let key = PrivateKey::from_bytes(&hexv(&v["private_key"])).unwrap();
        let uid = hexv(&v["user_id"]);
        let msg = hexv(&v["message"]);
        let sig = Signature { r: hex_arr(&v["r"]), s: hex_arr(&v["s"]) };
        let pk = key.public_key().clone();
        for size in [1usize, 8, 9] {
            let items: Vec<(&PublicKey, &[u8], &Signature)> = (0..size).map(|_| (&pk, &msg[..], &sig)).collect();
            assert_eq!(sm2::verify_many(&items, &uid).unwrap(), vec![true; size], "{}", v["id"]);
        }
    }
    for v in recommended("encrypt") {
        let key = PrivateKey::from_bytes(&hexv(&v["private_key"])).unwrap();
        let msg = hexv(&v["message"]);
        let ct = Ciphertext::from_c1c3c2(&hexv(&v["ciphertext_c1c3c2"])).unwrap();
        for size in [1usize, 8, 9] {
            let cts = vec![ct.clone(); size];
            for r in key.decrypt_many(&cts) {
                assert_eq!(r.unwrap(), msg, "{}", v["id"]);
            }
        }
    }
}

#[test]
fn decrypt_many_matches_one_at_a_time() {
    let key = PrivateKey::generate().unwrap();
    let other = PrivateKey::generate().unwrap();
    let mut rng = Rng(0x1234_5678_9abc_def1);
    for &size in &SIZES {
        let pts: Vec<Vec<u8>> = (0..size).map(|i| vec![i as u8; 1 + i % 40]).collect();
        let mut cts: Vec<Ciphertext> = pts.iter().map(|m| key.public_key().encrypt(m).unwrap()).collect();
        let mut bad = vec![false; size];
        for _ in 0..size / 4 + usize::from(size > 0) {
            let i = rng.below(size);
            bad[i] = true;
            match rng.below(4) {
                0 => cts[i].c3[rng.below(32)] ^= 1,
                1 => {
                    let j = 1 + rng.below(64);
                    cts[i].c1[j] ^= 1; // off the curve (or not below p)
                }
                2 => cts[i] = other.public_key().encrypt(&pts[i]).unwrap(),
                _ => {
                    let n = cts[i].c2.len();
                    cts[i].c2[rng.below(n)] ^= 0x80;
                }
            }
        }
        let got = key.decrypt_many(&cts);
        assert_eq!(got.len(), size);
        for (i, (g, ct)) in got.iter().zip(&cts).enumerate() {
            let want = key.decrypt(ct);
            assert_eq!(g, &want, "size {size} item {i}");
            assert_eq!(g.is_ok(), !bad[i], "size {size} item {i}");
            if let Ok(m) = g {
                assert_eq!(m, &pts[i]);
            }
        }
        // The wire layer: the plaintexts, or the first bad index.
        for mode in CiphertextMode::ALL {
            let wire: Vec<Vec<u8>> = cts.iter().map(|c| mode.encode(c).unwrap()).collect();
            let refs: Vec<&[u8]> = wire.iter().map(|w| &w[..]).collect();
            match (sm2_modes::decrypt_many(&key, &refs, mode), bad.iter().position(|&b| b)) {
                (Ok(out), None) => assert_eq!(out, pts),
                (Err(e), Some(first)) => {
                    assert_eq!(e.index, first, "size {size} {mode:?}");
                    assert_eq!(e.error, shangmi::Error::DecryptionFailed);
                    assert!(e.to_string().starts_with(&format!("ciphertext {first}: ")), "{e}");
                }
                (r, first) => panic!("size {size} {mode:?}: {r:?} against first bad {first:?}"),
            }
        }
    }
}

#[test]
fn decrypt_many_names_the_unparsable_item() {
    let key = PrivateKey::generate().unwrap();
    let good = key.public_key().encrypt(b"abc").unwrap().to_c1c3c2();
    let short = vec![4u8; 20];
    let refs: Vec<&[u8]> = vec![&good, &good, &short, &good];
    let e = sm2_modes::decrypt_many(&key, &refs, CiphertextMode::C1C3C2).unwrap_err();
    assert_eq!(e.index, 2);
    assert!(matches!(e.error, shangmi::Error::InvalidInput(_)), "{e}");
    assert!(sm2_modes::decrypt_many(&key, &[], CiphertextMode::Der).unwrap().is_empty());
}

#[test]
fn sign_many_and_pools_verify_one_at_a_time() {
    let key = PrivateKey::generate().unwrap();
    let pk = key.public_key().clone();
    for &size in &SIZES {
        let msgs: Vec<Vec<u8>> = (0..size).map(|i| format!("to sign {i}").into_bytes()).collect();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
        let sigs = sm2::sign_many(&key, &refs, DEFAULT_UID).unwrap();
        assert_eq!(sigs.len(), size);
        for (m, s) in msgs.iter().zip(&sigs) {
            pk.verify(m, DEFAULT_UID, s).unwrap();
        }
        // Nonces differ (no lane's k was another's).
        let mut rs: Vec<[u8; 32]> = sigs.iter().map(|s| s.r).collect();
        rs.sort();
        rs.dedup();
        assert_eq!(rs.len(), size);
        let pool = SignaturePool::new(size).unwrap();
        assert_eq!(pool.remaining(), size);
        for m in &msgs {
            let s = key.sign_with_pool(m, DEFAULT_UID, &pool).unwrap();
            pk.verify(m, DEFAULT_UID, &s).unwrap();
        }
        assert_eq!(pool.remaining(), 0);
    }
}
