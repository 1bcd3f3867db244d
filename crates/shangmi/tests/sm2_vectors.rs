//! SM2 recommended-curve examples of tests/vectors/sm2.json, byte for byte.

use crate::common;

use common::{hex_arr, hexv, on_curve, Value};
use shangmi::sm2::{self, testing, Ciphertext, PrivateKey, PublicKey, Signature};

fn vectors() -> Value {
    common::json("sm2.json")
}

fn recommended(section: &str) -> Vec<Value> {
    on_curve(&vectors(), section, "sm2p256v1")
}

#[test]
fn sign_examples() {
    for v in recommended("sign") {
        let key = PrivateKey::from_bytes(&hexv(&v["private_key"])).unwrap();
        let uid = hexv(&v["user_id"]);
        let msg = hexv(&v["message"]);
        let sig = testing::sign_with_k(&key, &msg, &uid, &hex_arr(&v["k"])).unwrap();
        assert_eq!(hex::encode(sig.r), v["r"].as_str().unwrap(), "{}", v["id"]);
        assert_eq!(hex::encode(sig.s), v["s"].as_str().unwrap(), "{}", v["id"]);
        let expected = Signature { r: hex_arr(&v["r"]), s: hex_arr(&v["s"]) };
        key.public_key().verify(&msg, &uid, &expected).unwrap();
        key.public_key().prepare().verify(&msg, &uid, &expected).unwrap();
        // Any other message fails.
        assert!(key.public_key().verify(b"message digesT", &uid, &expected).is_err());
        assert!(key.public_key().verify(&msg, b"", &expected).is_err());
    }
}

#[test]
fn encrypt_examples() {
    for v in recommended("encrypt") {
        let key = PrivateKey::from_bytes(&hexv(&v["private_key"])).unwrap();
        let msg = hexv(&v["message"]);
        for pk in [key.public_key().clone(), key.public_key().prepare()] {
            let ct = testing::encrypt_with_k(&pk, &msg, &hex_arr(&v["k"])).unwrap();
            assert_eq!(hex::encode(ct.c1), v["c1"].as_str().unwrap());
            assert_eq!(hex::encode(&ct.c2), v["c2"].as_str().unwrap());
            assert_eq!(hex::encode(ct.c3), v["c3"].as_str().unwrap());
            assert_eq!(hex::encode(ct.to_c1c3c2()), v["ciphertext_c1c3c2"].as_str().unwrap());
        }
        let ct = Ciphertext::from_c1c3c2(&hexv(&v["ciphertext_c1c3c2"])).unwrap();
        assert_eq!(key.decrypt(&ct).unwrap(), msg);
        let ct2 = Ciphertext::from_c1c2c3(&ct.to_c1c2c3()).unwrap();
        assert_eq!(ct2, ct);
    }
}

#[test]
fn kdf_example() {
    for v in vectors()["kdf"].as_array().unwrap() {
        let out = shangmi::sm3::kdf(&hexv(&v["z"]), v["klen_bytes"].as_u64().unwrap() as usize);
        assert_eq!(hex::encode(out), v["output"].as_str().unwrap());
    }
}

#[test]
fn public_key_roundtrip() {
    let v = &recommended("sign")[0];
    let key = PrivateKey::from_bytes(&hexv(&v["private_key"])).unwrap();
    let pk = key.public_key();
    for enc in [pk.to_bytes(false), pk.to_bytes(true), pk.to_bytes(false)[1..].to_vec()] {
        assert_eq!(&PublicKey::from_bytes(&enc).unwrap(), pk);
    }
    assert_eq!(sm2::DEFAULT_UID, b"1234567812345678");
}
