//! A private key computes only d·G when made; its public key, Z, (1+d)⁻¹
//! and nonce key are filled on first use. Whatever the order of first uses,
//! and in clones made before or after them, the signatures are the
//! standard's (tests/vectors/sm2.json, sm2p256v1 sign examples) byte for
//! byte, the standard's signature verifies under the lazily converted
//! public key, and that key equals d·G from the variable-time comb.

use serde_json::Value;
use shangmi::sm2::{testing, PrivateKey, Signature, DEFAULT_UID};

fn sign_vectors() -> Vec<Value> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/sm2.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("parse");
    let v: Vec<Value> = all["sign"].as_array().unwrap().iter().filter(|v| v["curve"] == "sm2p256v1").cloned().collect();
    assert!(!v.is_empty());
    v
}

fn h(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

fn h32(v: &Value) -> [u8; 32] {
    h(v).try_into().unwrap()
}

#[test]
fn lazy_values_match_the_standard_in_any_order_and_in_clones() {
    for v in sign_vectors() {
        let d = h(&v["private_key"]);
        let (uid, msg, k) = (h(&v["user_id"]), h(&v["message"]), h32(&v["k"]));
        let want_pub = testing::mul_g_vartime(&d.clone().try_into().unwrap()).unwrap().to_vec();
        let want = Signature { r: h32(&v["r"]), s: h32(&v["s"]) };

        // Signature first (forces (1+d)⁻¹ and the public key through Z).
        let a = PrivateKey::from_bytes(&d).unwrap();
        let early_clone = a.clone();
        assert_eq!(testing::sign_with_k(&a, &msg, &uid, &k).unwrap(), want, "{}", v["id"]);
        assert_eq!(a.public_key().to_bytes(false), want_pub);
        a.public_key().verify(&msg, &uid, &want).unwrap();
        // The clone made before any first use computes its own, equal values.
        assert_eq!(early_clone.public_key().to_bytes(false), want_pub);
        assert_eq!(testing::sign_with_k(&early_clone, &msg, &uid, &k).unwrap(), want);
        // The public key first (verifying the standard's signature), then a
        // signature; a clone after.
        let b = PrivateKey::from_bytes(&d).unwrap();
        b.public_key().verify(&msg, &uid, &want).unwrap();
        let late_clone = b.clone();
        assert_eq!(testing::sign_with_k(&late_clone, &msg, &uid, &k).unwrap(), want);
        // Fresh hedged signatures (the lazy nonce key) verify, with the
        // default uid (the public key's cached Z) and this vector's.
        let c = PrivateKey::from_bytes(&d).unwrap();
        let s1 = c.sign(&msg, DEFAULT_UID).unwrap();
        let s2 = c.sign(&msg, &uid).unwrap();
        c.public_key().verify(&msg, DEFAULT_UID, &s1).unwrap();
        c.public_key().verify(&msg, &uid, &s2).unwrap();
        assert!(c.public_key().verify(&msg, b"another uid", &s1).is_err());
        // Decryption first (forces only the nonce key).
        let e = PrivateKey::from_bytes(&d).unwrap();
        let ct = PrivateKey::from_bytes(&d).unwrap().public_key().encrypt(b"lazy").unwrap();
        assert_eq!(&e.decrypt(&ct).unwrap()[..], b"lazy");
        assert_eq!(e.public_key().to_bytes(false), want_pub);
    }
}

#[test]
fn threads_racing_for_the_first_use_agree() {
    for _ in 0..20 {
        let key = PrivateKey::generate().unwrap();
        let (pubs, sigs): (Vec<Vec<u8>>, Vec<Signature>) = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|i| {
                    let key = &key;
                    s.spawn(move || {
                        if i % 2 == 0 {
                            let sig = key.sign(b"race", DEFAULT_UID).unwrap();
                            (key.public_key().to_bytes(false), sig)
                        } else {
                            let p = key.public_key().to_bytes(false);
                            (p, key.sign(b"race", DEFAULT_UID).unwrap())
                        }
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).unzip()
        });
        assert!(pubs.windows(2).all(|w| w[0] == w[1]));
        for s in &sigs {
            key.public_key().verify(b"race", DEFAULT_UID, s).unwrap();
        }
        // The lazily converted public key is d·G as the vartime reference computes it.
        let d = key.to_bytes();
        assert_eq!(testing::mul_g_vartime(&d).unwrap().to_vec(), pubs[0]);
    }
}
