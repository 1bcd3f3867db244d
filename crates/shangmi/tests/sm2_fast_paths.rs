//! Checks of the SM2 fast paths that caches or alternative code paths could
//! get wrong: the cached default-uid Z of a public key, and sign/verify and
//! encrypt/decrypt round trips across plain and prepared keys (the verify
//! chain and the k·P table differ between the two).

use shangmi::sm2::{PrivateKey, PublicKey, DEFAULT_UID};
use shangmi::sm3;

/// The sm2p256v1 parameters a, b, xG, yG from tests/vectors/sm2.json.
fn curve_params() -> Vec<Vec<u8>> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/sm2.json");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let c = &v["curves"]["sm2p256v1"];
    ["a", "b", "gx", "gy"].iter().map(|k| hex::decode(c[*k].as_str().unwrap()).unwrap()).collect()
}

#[test]
fn cached_default_z_matches_the_definition() {
    let key = PrivateKey::generate().unwrap();
    for pk in [key.public_key().clone(), key.public_key().prepare()] {
        let (x, y) = pk.x_y();
        // Z = SM3(ENTL ‖ ID ‖ a ‖ b ‖ xG ‖ yG ‖ xA ‖ yA), ENTL = 128 bits.
        let mut data = vec![0x00, 0x80];
        data.extend_from_slice(b"1234567812345678");
        for param in curve_params() {
            data.extend_from_slice(&param);
        }
        data.extend_from_slice(&x);
        data.extend_from_slice(&y);
        let expect = sm3::hash(&data);
        // Twice: computed, then from the cache.
        assert_eq!(pk.z(DEFAULT_UID).unwrap(), expect);
        assert_eq!(pk.z(DEFAULT_UID).unwrap(), expect);
        // Another uid is not served from the default's cache.
        assert_ne!(pk.z(b"1234567812345679").unwrap(), expect);
    }
}

#[test]
fn round_trips_plain_and_prepared() {
    for i in 0..8u8 {
        let key = PrivateKey::generate().unwrap();
        let pk = key.public_key().clone();
        let ppk = pk.prepare();
        let reparsed = PublicKey::from_bytes(&pk.to_bytes(false)).unwrap();
        let msg = vec![i; 1 + i as usize * 7];
        for uid in [DEFAULT_UID, b"alice".as_slice()] {
            let sig = key.sign(&msg, uid).unwrap();
            for k in [&pk, &ppk, &reparsed] {
                k.verify(&msg, uid, &sig).unwrap();
                assert!(k.verify(&[&msg[..], b"x"].concat(), uid, &sig).is_err());
            }
        }
        for k in [&pk, &ppk] {
            let ct = k.encrypt(&msg).unwrap();
            assert_eq!(key.decrypt(&ct).unwrap(), msg);
        }
    }
}

#[test]
fn sign_many_shares_one_inversion_and_verifies() {
    let key = PrivateKey::generate().unwrap();
    // More than one batch, and a partial last one.
    let msgs: Vec<Vec<u8>> = (0..150u32).map(|i| format!("message {i}").into_bytes()).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    for uid in [DEFAULT_UID, b"bob".as_slice()] {
        let sigs = shangmi::sm2::sign_many(&key, &refs, uid).unwrap();
        assert_eq!(sigs.len(), msgs.len());
        for (m, s) in msgs.iter().zip(&sigs) {
            key.public_key().verify(m, uid, s).unwrap();
        }
        // Each signature belongs to its own message.
        assert!(key.public_key().verify(&msgs[1], uid, &sigs[0]).is_err());
    }
    assert!(shangmi::sm2::sign_many(&key, &[], DEFAULT_UID).unwrap().is_empty());
}
