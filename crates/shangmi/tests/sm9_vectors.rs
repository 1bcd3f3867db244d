//! Every entry of tests/vectors/sm9.json (copied from the shared vectors,
//! each entry keeping its `source`), byte for byte, with the random values
//! injected through the test-only hooks.

use crate::common;

use shangmi::sm9::testing;
use shangmi::sm9::*;

fn vectors() -> common::Value {
    common::json("sm9.json")
}

fn h(v: &common::Value) -> Vec<u8> {
    common::hexv(v)
}

/// A GT element given as an array of hex coefficients, concatenated.
fn gt(v: &common::Value) -> Vec<u8> {
    v.as_array().unwrap().iter().flat_map(common::hexv).collect()
}

#[test]
fn hash_functions() {
    let v = vectors();
    let e = &v["hash_functions"];
    let i0 = h(&e[0]["input_hex"]);
    let (id, hid) = i0.split_at(i0.len() - 1);
    assert_eq!(testing::h1(id, hid[0]).to_vec(), h(&e[0]["output"]));
    let i1 = h(&e[1]["input_hex"]);
    assert_eq!(testing::h2(&i1[..20], &i1[20..]).to_vec(), h(&e[1]["output"]));
    // Any flipped input bit changes H1.
    assert_ne!(testing::h1(b"Alicf", 1).to_vec(), h(&e[0]["output"]));
}

#[test]
fn sign_example() {
    let v = vectors();
    let s = &v["sign"][0];
    let mk = SignMasterKey::from_bytes(&h(&s["master_private_key_ks"])).unwrap();
    assert_eq!(mk.public_key().to_bytes()[1..].to_vec(), h(&s["master_public_key_ppub_s"]));
    assert_eq!(mk.public_key().g().to_bytes().to_vec(), gt(&s["g_pairing"]));
    let uid = h(&s["user_id"]);
    let key = mk.extract(&uid, 1).unwrap();
    assert_eq!(key.to_bytes()[1..].to_vec(), h(&s["user_private_key_ds"]));
    let msg = h(&s["message"]);
    for prepared in [false, true] {
        let k = if prepared { key.prepare() } else { key.clone() };
        let sig = testing::sign_with_r(&k, &msg, &h(&s["r"])).unwrap();
        assert_eq!(sig.h.to_vec(), h(&s["h"]));
        assert_eq!(sig.to_raw()[32..].to_vec(), h(&s["s_uncompressed"]));
        let mpk = if prepared { mk.public_key().prepare() } else { mk.public_key().clone() };
        mpk.verify(&msg, &uid, 1, &sig).unwrap();
        assert_eq!(mpk.verify(b"Chinese IBS standarD", &uid, 1, &sig), Err(shangmi::Error::InvalidSignature));
        assert_eq!(mpk.verify(&msg, b"Alicf", 1, &sig), Err(shangmi::Error::InvalidSignature));
        assert_eq!(mpk.verify(&msg, &uid, 2, &sig), Err(shangmi::Error::InvalidSignature));
        let d = Signature::from_der(&sig.to_der()).unwrap();
        assert_eq!(d.to_raw(), sig.to_raw());
    }
    // The compressed S of the vector decodes to the same point.
    let mut raw = h(&s["h"]);
    raw.extend(h(&s["s_compressed"]));
    let sig = Signature::from_raw(&raw).unwrap();
    assert_eq!(sig.to_raw()[32..].to_vec(), h(&s["s_uncompressed"]));
    mk.public_key().verify(&msg, &uid, 1, &sig).unwrap();
}

#[test]
fn kem_example() {
    let v = vectors();
    let e = &v["kem"][0];
    let mk = EncMasterKey::from_bytes(&h(&e["master_private_key_ke"])).unwrap();
    assert_eq!(mk.public_key().to_bytes()[1..].to_vec(), h(&e["master_public_key_ppub_e"]));
    let uid = h(&e["user_id"]);
    let key = mk.extract(&uid, 3).unwrap();
    assert_eq!(key.to_bytes()[1..].to_vec(), h(&e["user_private_key_de"]));
    let qb = mk.public_key().user_point(&uid, 3).to_affine().unwrap();
    assert_eq!(shangmi::sm9::g1::encode_xy(&qb).to_vec(), h(&e["user_public_point_qb"]));
    let klen = e["klen_bytes"].as_u64().unwrap() as usize;
    for prepared in [false, true] {
        let mpk = if prepared { mk.public_key().prepare() } else { mk.public_key().clone() };
        let (k, c) = testing::encapsulate_with_r(&mpk, &uid, 3, klen, &h(&e["r"])).unwrap();
        assert_eq!(k, h(&e["k"]));
        assert_eq!(c[1..].to_vec(), h(&e["c"]));
        let dk = if prepared { key.prepare() } else { key.clone() };
        assert_eq!(dk.decapsulate(&c, klen, None).unwrap().to_vec(), k);
        assert_eq!(dk.decapsulate(&c[1..], klen, None).unwrap().to_vec(), k);
        assert_ne!(dk.decapsulate(&c, klen, Some(b"Bob2")).unwrap().to_vec(), k);
    }
}

#[test]
fn encrypt_examples() {
    let v = vectors();
    for (e, cipher) in v["encrypt"].as_array().unwrap().iter().zip([Cipher::Xor, Cipher::Sm4Ecb]) {
        let mk = EncMasterKey::from_bytes(&h(&e["master_private_key_ke"])).unwrap();
        let uid = h(&e["user_id"]);
        let key = mk.extract(&uid, 3).unwrap();
        let msg = h(&e["message"]);
        let opts = Options { cipher, mac: Mac::Sm3, layout: Layout::C1C3C2 };
        let ct = testing::encrypt_with_r(mk.public_key(), &msg, &uid, 3, opts, &h(&e["r"]), &[0; 16]).unwrap();
        assert_eq!(ct[0], 4);
        assert_eq!(ct[1..].to_vec(), h(&e["ciphertext_c1c3c2"]), "{}", e["id"]);
        assert_eq!(decrypt(&key, &ct, None, opts).unwrap().to_vec(), msg);
        assert_eq!(decrypt(&key.prepare(), &ct[1..], None, opts).unwrap().to_vec(), msg);
        let mut bad = ct.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert_eq!(decrypt(&key, &bad, None, opts), Err(shangmi::Error::DecryptionFailed));
        assert_eq!(decrypt(&key, &ct, Some(b"Boc"), opts), Err(shangmi::Error::DecryptionFailed));
    }
}

#[test]
fn key_exchange_example() {
    let v = vectors();
    let e = &v["key_exchange"][0];
    let mk = EncMasterKey::from_bytes(&h(&e["master_private_key_ke"])).unwrap();
    assert_eq!(mk.public_key().to_bytes()[1..].to_vec(), h(&e["master_public_key_ppub_e"]));
    let (ida, idb) = (h(&e["id_a"]), h(&e["id_b"]));
    let ka = mk.extract(&ida, 2).unwrap();
    let kb = mk.extract(&idb, 2).unwrap();
    assert_eq!(ka.to_bytes()[1..].to_vec(), h(&e["user_private_key_de_a"]));
    assert_eq!(kb.to_bytes()[1..].to_vec(), h(&e["user_private_key_de_b"]));
    let mpk = mk.public_key();
    let mut a = testing::key_exchange_with_r(Role::Initiator, &ka, mpk, &ida, &idb, &h(&e["r_a"])).unwrap();
    let mut b = testing::key_exchange_with_r(Role::Responder, &kb, mpk, &idb, &ida, &h(&e["r_b"])).unwrap();
    assert_eq!(a.ephemeral_public()[1..].to_vec(), h(&e["r_a_point"]));
    let klen = e["klen_bytes"].as_u64().unwrap() as usize;
    let rb = b.compute(&a.ephemeral_public(), klen).unwrap();
    let ra = a.compute(&b.ephemeral_public(), klen).unwrap();
    assert_eq!(rb.key.to_vec(), h(&e["shared_key"]));
    assert_eq!(ra.key.to_vec(), h(&e["shared_key"]));
    assert_eq!(rb.confirm_out.to_vec(), h(&e["s_b"]));
    assert_eq!(ra.confirm_out.to_vec(), h(&e["s_a"]));
    ra.check_confirmation(&rb.confirm_out).unwrap();
    rb.check_confirmation(&ra.confirm_out).unwrap();
    assert!(a.compute(&b.ephemeral_public(), klen).is_err(), "one compute per exchange");
}
