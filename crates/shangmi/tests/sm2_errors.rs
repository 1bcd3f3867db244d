//! Bad input gives a clear error, never a panic or a wrong answer.

use crate::common;

use common::hex;
use shangmi::encoding::sm2_modes::{self as modes, SignatureEncoding};
use shangmi::encoding::KeyEncryption;
use shangmi::sm2::{sign_many, verify_many, Ciphertext, PrivateKey, PublicKey, Signature, SignaturePool, DEFAULT_UID};
use shangmi::Error;

const P_HEX: &str = "fffffffeffffffffffffffffffffffffffffffff00000000ffffffffffffffff";
const N_HEX: &str = "fffffffeffffffffffffffffffffffff7203df6b21c6052b53bbf40939d54123";

/// The private key of GB/T 32918.2's signing example (tests/vectors/sm2.json).
fn key() -> PrivateKey {
    let v = &common::on_curve(&common::json("sm2.json"), "sign", "sm2p256v1")[0];
    PrivateKey::from_bytes(&common::hexv(&v["private_key"])).unwrap()
}

fn is_invalid_key(r: Result<PublicKey, Error>, needle: &str) {
    match r {
        Err(Error::InvalidKey(m)) => assert!(m.contains(needle), "message {m:?} lacks {needle:?}"),
        other => panic!("expected InvalidKey, got {other:?}"),
    }
}

#[test]
fn public_key_rejects() {
    let good = key().public_key().to_bytes(false);
    // Wrong lengths.
    for len in [0usize, 1, 32, 34, 63, 66, 100] {
        is_invalid_key(PublicKey::from_bytes(&vec![4u8; len]), "SM2 public key");
    }
    // Infinity.
    is_invalid_key(PublicKey::from_bytes(&[0]), "infinity");
    // Off the curve.
    let mut bad = good.clone();
    bad[64] ^= 1;
    is_invalid_key(PublicKey::from_bytes(&bad), "not on the SM2 curve");
    is_invalid_key(PublicKey::from_bytes(&bad[1..]), "not on the SM2 curve");
    // Bad prefix.
    let mut bad = good.clone();
    bad[0] = 6;
    is_invalid_key(PublicKey::from_bytes(&bad), "04");
    let mut c = key().public_key().to_bytes(true);
    c[0] = 4;
    is_invalid_key(PublicKey::from_bytes(&c), "02 or 03");
    // Coordinates ≥ p.
    let mut bad = vec![4u8];
    bad.extend_from_slice(&hex(P_HEX));
    bad.extend_from_slice(&good[33..]);
    is_invalid_key(PublicKey::from_bytes(&bad), "not less than p");
    let mut bad = good[..33].to_vec();
    bad.extend_from_slice(&hex(P_HEX));
    is_invalid_key(PublicKey::from_bytes(&bad), "not less than p");
    let mut cbad = vec![2u8];
    cbad.extend_from_slice(&[0xff; 32]);
    is_invalid_key(PublicKey::from_bytes(&cbad), "not less than p");
    // x with no point: x = 0 → y² = b; find an x that is not on the curve.
    let mut found = false;
    for i in 0..20u8 {
        let mut cx = vec![2u8];
        cx.extend_from_slice(&[0; 31]);
        cx.push(i);
        if let Err(Error::InvalidKey(m)) = PublicKey::from_bytes(&cx) {
            assert!(m.contains("not the coordinate"), "{m}");
            found = true;
        }
    }
    assert!(found);
}

#[test]
fn private_key_rejects() {
    let n = hex(N_HEX);
    let mut n1 = n.clone();
    n1[31] -= 1; // n − 1
    let mut n2 = n.clone();
    n2[31] -= 2; // n − 2 is the largest valid
    for bad in [vec![0u8; 32], n.clone(), n1, vec![0xff; 32]] {
        assert!(matches!(PrivateKey::from_bytes(&bad), Err(Error::InvalidKey(m)) if m.contains("out of range")));
    }
    assert!(PrivateKey::from_bytes(&n2).is_ok());
    assert!(matches!(PrivateKey::from_bytes(&[1u8; 31]), Err(Error::InvalidKey(m)) if m.contains("32 bytes, got 31")));
    let k = PrivateKey::generate().unwrap();
    assert_eq!(PrivateKey::from_bytes(&k.to_bytes()[..]).unwrap().public_key(), k.public_key());
}

#[test]
fn signature_rejects() {
    let k = key();
    let pk = k.public_key();
    let sig = k.sign(b"abc", DEFAULT_UID).unwrap();
    pk.verify(b"abc", DEFAULT_UID, &sig).unwrap();
    let zero = [0u8; 32];
    let n: [u8; 32] = hex(N_HEX).try_into().unwrap();
    for (r, s) in [(zero, sig.s), (sig.r, zero), (n, sig.s), (sig.r, n), ([0xff; 32], sig.s)] {
        let bad = Signature { r, s };
        assert_eq!(pk.verify(b"abc", DEFAULT_UID, &bad), Err(Error::InvalidSignature));
        assert_eq!(Signature::from_bytes(&bad.to_bytes()), Err(Error::InvalidSignature));
    }
    for len in [0, 63, 65] {
        assert_eq!(Signature::from_bytes(&vec![1u8; len]), Err(Error::InvalidSignature));
    }
    assert_eq!(Signature::from_bytes(&sig.to_bytes()).unwrap(), sig);
    // r + s = n.
    let mut rs = [0u8; 32];
    let nl = num_bigint::BigUint::from_bytes_be(&n);
    let rb = num_bigint::BigUint::from_bytes_be(&sig.r);
    let sb = (nl - rb).to_bytes_be();
    rs[32 - sb.len()..].copy_from_slice(&sb);
    assert_eq!(pk.verify(b"abc", DEFAULT_UID, &Signature { r: sig.r, s: rs }), Err(Error::InvalidSignature));
    // Every bit flip fails.
    for bit in 0..512 {
        let mut b = sig.to_bytes();
        b[bit / 8] ^= 1 << (bit % 8);
        if let Ok(bad) = Signature::from_bytes(&b) {
            assert!(pk.verify(b"abc", DEFAULT_UID, &bad).is_err());
        }
    }
    // uid too long.
    assert!(matches!(k.sign(b"abc", &[0u8; 8192]), Err(Error::InvalidInput(m)) if m.contains("too long")));
    assert!(k.sign(b"abc", &[0u8; 8191]).is_ok());
}

#[test]
fn ciphertext_rejects() {
    let k = key();
    let ct = k.public_key().encrypt(b"hello").unwrap();
    assert_eq!(k.decrypt(&ct).unwrap(), b"hello");
    let raw = ct.to_c1c3c2();
    for len in [0usize, 64, 96, 97] {
        assert!(matches!(Ciphertext::from_c1c3c2(&raw[..len]), Err(Error::InvalidInput(m)) if m.contains("too short")));
        assert!(Ciphertext::from_c1c2c3(&raw[..len]).is_err());
    }
    let mut bad = raw.clone();
    bad[0] = 2;
    assert!(matches!(Ciphertext::from_c1c3c2(&bad), Err(Error::InvalidInput(m)) if m.contains("04")));
    // Any single bit flip fails opaquely.
    for bit in 8..raw.len() * 8 {
        let mut b = raw.clone();
        b[bit / 8] ^= 1 << (bit % 8);
        let c = Ciphertext::from_c1c3c2(&b).unwrap();
        assert_eq!(k.decrypt(&c), Err(Error::DecryptionFailed), "bit {bit}");
    }
    // C1 not on the curve / coordinates ≥ p.
    let mut c = ct.clone();
    c.c1[1..33].copy_from_slice(&hex(P_HEX));
    assert_eq!(k.decrypt(&c), Err(Error::DecryptionFailed));
    // Wrong key.
    let other = PrivateKey::generate().unwrap();
    assert_eq!(other.decrypt(&ct), Err(Error::DecryptionFailed));
    assert!(matches!(k.public_key().encrypt(b""), Err(Error::InvalidInput(_))));
    // Large and prepared.
    let big = vec![0xa5u8; 100_000];
    let ct = k.public_key().prepare().encrypt(&big).unwrap();
    assert_eq!(k.decrypt(&ct).unwrap(), big);
}

#[test]
fn pool_and_batches() {
    let k = key();
    let pool = SignaturePool::new(5).unwrap();
    assert_eq!(pool.remaining(), 5);
    let mut sigs = Vec::new();
    for i in 0..7 {
        let s = k.sign_with_pool(b"msg", DEFAULT_UID, &pool).unwrap();
        k.public_key().verify(b"msg", DEFAULT_UID, &s).unwrap();
        assert_eq!(pool.remaining(), 5usize.saturating_sub(i + 1));
        sigs.push(s);
    }
    // No two signatures share r (no point reused).
    for i in 0..sigs.len() {
        for j in 0..i {
            assert_ne!(sigs[i].r, sigs[j].r);
        }
    }
    pool.refill(3).unwrap();
    assert_eq!(pool.remaining(), 3);
    assert!(matches!(SignaturePool::new(1_000_001), Err(Error::InvalidInput(m)) if m.contains("at most")));
    let msgs: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d"];
    let sigs = sign_many(&k, &msgs, DEFAULT_UID).unwrap();
    let pk = k.public_key();
    let mut items: Vec<(&PublicKey, &[u8], &Signature)> = msgs.iter().zip(&sigs).map(|(m, s)| (pk, *m, s)).collect();
    assert_eq!(verify_many(&items, DEFAULT_UID).unwrap(), vec![true; 4]);
    items[2].1 = b"x";
    assert_eq!(verify_many(&items, DEFAULT_UID).unwrap(), vec![true, true, false, true]);
    let long_uid = vec![0u8; 8192];
    let m = verify_many(&items, &long_uid).unwrap_err().to_string();
    assert!(m.contains("SM2 user ID too long: 8192 bytes, at most 8191"), "{m}");
}

#[test]
fn key_containers_refuse_what_they_cannot_hold() {
    let k = key();
    let e = modes::private_key_to_der(&k, Some(b"pw"), true, KeyEncryption::default()).unwrap_err();
    assert!(matches!(&e, Error::InvalidInput(m) if m.contains("SEC1 DER cannot be encrypted")), "{e:?}");
    let e = modes::private_key_to_pem(&k, Some(b"pw"), Some("EC PRIVATE KEY"), KeyEncryption::default()).unwrap_err();
    assert!(matches!(&e, Error::InvalidInput(m) if m.contains("encrypted SEC1 PEM is not written")), "{e:?}");
    let e = modes::private_key_to_pem(&k, None, Some("PRIVATE KEY"), KeyEncryption::default()).unwrap_err();
    assert!(matches!(&e, Error::InvalidInput(m) if m.contains("sec1_label must be one of")), "{e:?}");
    let sec1 = modes::private_key_to_pem(&k, None, Some("SM2 PRIVATE KEY"), KeyEncryption::default()).unwrap();
    assert!(sec1.starts_with("-----BEGIN SM2 PRIVATE KEY-----"));
    let pkcs8 = modes::private_key_to_pem(&k, None, None, KeyEncryption::default()).unwrap();
    assert!(pkcs8.starts_with("-----BEGIN PRIVATE KEY-----"));
    let enc = modes::private_key_to_pem(&k, Some(b"pw"), None, KeyEncryption::default()).unwrap();
    assert!(enc.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
}

#[test]
fn sign_with_and_without_a_pool() {
    let k = key();
    let pool = SignaturePool::new(1).unwrap();
    for (pool, enc) in [(None, SignatureEncoding::Der), (Some(&pool), SignatureEncoding::Raw)] {
        let sig = modes::sign(&k, b"msg", DEFAULT_UID, pool, enc).unwrap();
        modes::verify(k.public_key(), &sig, b"msg", DEFAULT_UID, enc).unwrap();
    }
    assert_eq!(pool.remaining(), 0);
    // An empty pool falls back to a fresh nonce.
    let sig = modes::sign(&k, b"msg", DEFAULT_UID, Some(&pool), SignatureEncoding::Der).unwrap();
    modes::verify(k.public_key(), &sig, b"msg", DEFAULT_UID, SignatureEncoding::Der).unwrap();
}
