//! Constant-time check for SM2, in the manner of libsecp256k1's
//! `valgrind_ctime_test`: every secret (private keys, nonce seeds, the
//! decryption key, key-exchange ephemerals) is marked *undefined* for
//! valgrind's memcheck, so any branch or memory address that depends on it
//! is reported. The library declassifies only what it publishes (public
//! keys, signatures, ciphertexts, pass/fail bits).
//!
//! Run through `scripts/ctime.sh` (builds with `--features ctime`, runs
//! under `valgrind --error-exitcode=1`). Outside valgrind this just runs.
//!
//! `sm2_ctime leak` is the negative control: it feeds a secret scalar to the
//! variable-time comb multiplication (which skips zero digits and indexes
//! the table by digit), so the check must report it; `ctime.sh` fails if it
//! doesn't, which shows the harness can catch a leak.

use shangmi::sm2::{classify, declassify, Ciphertext, KeyExchange, PrivateKey, Role, SignaturePool, DEFAULT_UID};

fn secret_bytes() -> [u8; 32] {
    let mut d = [0u8; 32];
    shangmi::rand::fill(&mut d).expect("OS random");
    d[0] &= 0x7f; // in range for from_bytes without a retry
    d[31] |= 1;
    classify(&d);
    d
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("leak") {
        let k = secret_bytes();
        let p = shangmi::sm2::testing::mul_g_vartime(&k);
        declassify(&p);
        println!("sm2 ctime leak control: ran (valgrind must have reported it)");
        return;
    }
    // Key generation (from bytes and from the CSPRNG).
    let d = secret_bytes();
    let key = PrivateKey::from_bytes(&d).expect("valid key");
    let other = PrivateKey::generate().expect("keygen");

    // Signing: fresh nonce, digest, pool (pool generation included).
    let sig = key.sign(b"constant-time check", DEFAULT_UID).expect("sign");
    let e = key.public_key().z(DEFAULT_UID).expect("z");
    let sig2 = key.sign_digest(&e).expect("sign digest");
    let pool = SignaturePool::new(3).expect("pool");
    let sig3 = key.sign_with_pool(b"pooled", DEFAULT_UID, &pool).expect("pool sign");
    let many = shangmi::sm2::sign_many(&key, &[b"one".as_slice(), b"two", b"three"], DEFAULT_UID).expect("sign_many");
    for s in [&sig, &sig2, &sig3].into_iter().chain(many.iter()) {
        declassify(s);
    }
    key.public_key().verify(b"constant-time check", DEFAULT_UID, &sig).expect("verify");

    // Encryption (secret k) and decryption (secret d), plain and prepared.
    let ct = key.public_key().encrypt(b"secret message").expect("encrypt");
    let ct2 = key.public_key().prepare().encrypt(b"secret message 2").expect("encrypt prepared");
    for c in [&ct, &ct2] {
        let m = key.decrypt(c).expect("decrypt");
        declassify(&m[..]);
        assert!(m.starts_with(b"secret message"));
    }
    // The failure path (tampered C3) must be constant time too.
    let mut bad: Ciphertext = ct.clone();
    bad.c3[0] ^= 1;
    assert!(key.decrypt(&bad).is_err());

    // Key exchange, both roles, with confirmation.
    let mut a = KeyExchange::new(Role::Initiator, &key, b"alice", other.public_key(), b"bob").expect("kex a");
    let mut b = KeyExchange::new(Role::Responder, &other, b"bob", key.public_key(), b"alice").expect("kex b");
    let rb = b.compute(&a.ephemeral_public(), 32).expect("compute b");
    let ra = a.compute(&b.ephemeral_public(), 32).expect("compute a");
    ra.check_confirmation(&rb.confirm_out).expect("S_B");
    rb.check_confirmation(&ra.confirm_out).expect("S_A");
    declassify(&ra.key[..]);
    declassify(&rb.key[..]);
    assert_eq!(*ra.key, *rb.key);

    let d2 = key.to_bytes();
    declassify(&d2[..]);
    declassify(&d);
    assert_eq!(*d2, d);
    println!("sm2 ctime: all operations ran");
}
