//! Constant-time check of every algorithm under valgrind: each test marks
//! its secrets undefined and runs the public API on them under every mask
//! in [`ctgrind::MASKS`](common::ctgrind::MASKS), then runs its negative
//! control (see `common/ctgrind.rs`). Requires the `ctime` feature:
//! `cargo test --release -p shangmi --features ctime --test ctgrind`.
//!
//! Secret: SM2 private keys and nonces (nonces and ephemerals come from
//! `shangmi::rand`, which marks its output secret in `ctime` builds), SM3's
//! HMAC key and messages, SM4's key and plaintext in every mode, SM9's
//! master keys, the user keys extracted from them and every random scalar,
//! ZUC's keys, IVs and messages; the TLCP CBC record check's MAC and SM4
//! keys and the decrypted plaintext, MAC and padding. Public: lengths,
//! identities, outputs, the record's accept/refuse bit.

// The valgrind client requests that mark secrets are x86-64 code.
#![cfg(target_arch = "x86_64")]

mod common;

use common::ctgrind::{self, control, publish, secret};
use std::hint::black_box;

/// 32 random bytes, marked secret, in range for an SM2 or SM9 scalar.
fn secret_scalar() -> [u8; 32] {
    let mut d = [0u8; 32];
    shangmi::rand::fill(&mut d).expect("OS random");
    d[0] &= 0x7f;
    d[31] |= 1;
    secret(&d);
    d
}

fn sm2_work(leak: bool) {
    use shangmi::sm2::{sign_many, KeyExchange, PrivateKey, Role, DEFAULT_UID};
    let d = secret_scalar();
    let key = PrivateKey::from_bytes(&d).expect("valid key");
    let other = PrivateKey::generate().expect("keygen");
    let pk = key.public_key();
    // Signing: secret key, secret nonce; one and many messages, a digest.
    let sig = key.sign(b"constant-time check", DEFAULT_UID).expect("sign");
    pk.verify(b"constant-time check", DEFAULT_UID, &sig).expect("verify");
    key.sign_digest(&pk.z(DEFAULT_UID).expect("z")).expect("sign digest");
    sign_many(&key, &[b"one".as_slice(), b"two", b"three"], DEFAULT_UID).expect("sign_many");
    // Encryption (secret k) and decryption (secret d), plain and prepared
    // public key, and the failure path (tampered C3).
    for ct in [pk.encrypt(b"secret message").expect("encrypt"), pk.prepare().encrypt(b"secret 2").expect("encrypt")] {
        publish(&key.decrypt(&ct).expect("decrypt"));
        let mut bad = ct.clone();
        bad.c3[0] ^= 1;
        assert!(key.decrypt(&bad).is_err());
    }
    // Key exchange, both roles, with confirmation.
    let mut a = KeyExchange::new(Role::Initiator, &key, b"alice", other.public_key(), b"bob").expect("kex");
    let mut b = KeyExchange::new(Role::Responder, &other, b"bob", pk, b"alice").expect("kex");
    let rb = b.compute(&a.ephemeral_public(), 32).expect("compute");
    let ra = a.compute(&b.ephemeral_public(), 32).expect("compute");
    ra.check_confirmation(&rb.confirm_out).expect("S_B");
    rb.check_confirmation(&ra.confirm_out).expect("S_A");
    publish(&ra.key[..]);
    control(leak, &d);
}

fn sm3_work(leak: bool) {
    use shangmi::sm3::{self, HmacSm3, Sm3};
    let key = [0x5au8; 100]; // longer than a block: hashed first
    let msg = [0xa5u8; 300];
    secret(&key);
    secret(&msg);
    publish(&sm3::hmac(&key[..16], &msg));
    publish(&sm3::hmac(&key, &msg[..70]));
    let mut h = HmacSm3::new(&key[..40]);
    h.update(&msg[..13]);
    h.update(&msg[13..]);
    publish(&h.finalize());
    publish(&sm3::hash(&msg));
    let mut s = Sm3::new();
    s.update(&msg[..1]);
    s.update(&msg[1..200]);
    publish(&s.digest());
    publish(&sm3::kdf(&msg[..64], 100));
    // The multi-buffer kernel: 9 messages fill the 8-lane AVX2 kernel and
    // leave one (loads and transposes at public offsets).
    let msgs: Vec<&[u8]> = (0..9).map(|i| &msg[i..i + 200]).collect();
    for d in sm3::hash_many(&msgs) {
        publish(&d);
    }
    control(leak, &key);
}

fn sm4_work(leak: bool) {
    use shangmi::sm4::{self, Ccm, Gcm, Sm4, Xts, XtsStandard};
    let mut key = [0x3cu8; 32];
    key[16..].fill(0xc3); // XTS refuses equal halves
    let msg = [0xa5u8; 160]; // 10 blocks: the bitsliced portable path too
    secret(&key);
    secret(&msg);
    let k16: [u8; 16] = key[..16].try_into().unwrap();
    let c = Sm4::new(&k16);
    let mut b: [u8; 16] = msg[..16].try_into().unwrap();
    c.encrypt_block(&mut b);
    c.decrypt_block(&mut b);
    publish(&b);
    publish(&sm4::ecb_encrypt(&c, &msg, false).unwrap());
    publish(&sm4::cbc_encrypt_expanded(&c, &[1; 16], &msg, false).unwrap());
    publish(&sm4::cbc_decrypt_expanded(&c, &[1; 16], &msg, false).unwrap());
    let mut x = msg;
    sm4::ctr_apply_in_place(&c, &[2; 16], &mut x);
    sm4::cfb_encrypt_in_place(&c, &[3; 16], &mut x);
    sm4::cfb_decrypt_in_place(&c, &[3; 16], &mut x);
    sm4::ofb_apply_in_place(&c, &[4; 16], &mut x);
    publish(&x);
    // encrypt_many: 17 messages fill the side-by-side kernel (two groups on
    // 256-bit registers) and leave one for the interleaved loop.
    let ivs = [[9u8; 16]; 17];
    let items: Vec<(&[u8], &[u8])> = (0..17).map(|i| (&ivs[i][..], &msg[8 * i..8 * i + 32])).collect();
    for ct in sm4::cbc_encrypt_many(&c, &items, false).unwrap() {
        publish(&ct);
    }
    let gcm = Gcm::new(&k16, 16).unwrap();
    let sealed = gcm.encrypt(&[5; 12], &msg[..8], &msg[8..100]).unwrap();
    publish(&sealed);
    publish(&gcm.decrypt(&[5; 12], &msg[..8], &sealed).unwrap());
    let ccm = Ccm::with_cipher(c.clone(), 16).unwrap();
    let sealed = ccm.encrypt(&[6; 12], &msg[..8], &msg[8..20]).unwrap();
    publish(&sealed);
    publish(&ccm.decrypt(&[6; 12], &msg[..8], &sealed).unwrap());
    // XTS with a secret key (the `ctime` build declassifies the one bit it
    // publishes: whether the halves are equal, which it must refuse).
    let mut y = msg;
    Xts::new(&key, XtsStandard::Gb).unwrap().encrypt_in_place(&[7; 16], &mut y[..40]).unwrap();
    Xts::new(&key, XtsStandard::Ieee).unwrap().decrypt_in_place(&[7; 16], &mut y[..40]).unwrap();
    publish(&y);
    control(leak, &key);
}

fn sm9_work(leak: bool) {
    use shangmi::sm9::*;
    // Signatures: master key, extraction, plain and prepared signing.
    let ms = secret_scalar();
    let sm = SignMasterKey::from_bytes(&ms).expect("sign master key");
    let skey = sm.extract(b"Alice", HID_SIGN).expect("extract");
    let msg = b"constant-time check";
    for s in [skey.sign(msg).expect("sign"), skey.prepare().sign(msg).expect("prepared sign")] {
        sm.public_key().verify(msg, b"Alice", HID_SIGN, &s).expect("verify");
    }
    // Encryption: extraction, encrypt (plain and prepared), decrypt, KEM.
    let em = EncMasterKey::from_bytes(&secret_scalar()).expect("enc master key");
    let ekey = em.extract(b"Bob", HID_ENC).expect("extract");
    let opts = Options::default();
    let ct = encrypt(em.public_key(), b"plaintext", b"Bob", HID_ENC, opts).expect("encrypt");
    let pct = encrypt(&em.public_key().prepare(), b"plaintext", b"Bob", HID_ENC, opts).expect("encrypt");
    for (c, k) in [(&ct, ekey.clone()), (&pct, ekey.prepare())] {
        publish(&decrypt(&k, c, None, opts).expect("decrypt"));
    }
    let (k, c) = em.public_key().encapsulate(b"Bob", HID_ENC, 32).expect("encapsulate");
    publish(&k);
    publish(&ekey.decapsulate(&c, 32, None).expect("decapsulate"));
    // Key exchange.
    let ka = em.extract(b"Alice", HID_EXCH).expect("extract");
    let kb = em.extract(b"Bob", HID_EXCH).expect("extract");
    let mpk = em.public_key();
    let mut a = KeyExchange::new(Role::Initiator, &ka, mpk, b"Alice", b"Bob").expect("kex");
    let mut b = KeyExchange::new(Role::Responder, &kb, mpk, b"Bob", b"Alice").expect("kex");
    let rb = b.compute(&a.ephemeral_public(), 16).expect("compute");
    let ra = a.compute(&b.ephemeral_public(), 16).expect("compute");
    ra.check_confirmation(&rb.confirm_out).expect("SB");
    rb.check_confirmation(&ra.confirm_out).expect("SA");
    publish(&ra.key);
    control(leak, &ms);
}

fn zuc_work(leak: bool) {
    use shangmi::zuc::{self, Keystream, Message};
    let key16: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(17).wrapping_add(3)).collect();
    let key32: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(7).wrapping_add(1)).collect();
    let iv16 = [0x5au8; 16];
    let iv23 = [0xa5u8; 23];
    let msg: Vec<u8> = (0..300u32).map(|i| (i * 31) as u8).collect();
    for buf in [&key16[..], &key32[..], &iv16[..], &iv23[..], &msg[..]] {
        secret(buf);
    }
    publish(&zuc::eea3(&key16, 0x1234, 5, 1, &msg, Some(8 * 300 - 3)).unwrap());
    publish(&zuc::eia3(&key16, 0x1234, 5, 1, &msg, Some(8 * 300 - 5)).unwrap());
    for tag_bits in [32, 64, 128] {
        publish(&zuc::zuc256_mac(&key32, &iv23, &msg, tag_bits, None).unwrap());
    }
    // Several messages at once (the multi-stream lanes); message lengths
    // are public, keys and contents secret.
    let msgs: Vec<Message<'_>> = [0usize, 7, 64, 300, 129, 5, 200, 33, 1]
        .iter()
        .enumerate()
        .map(|(i, &n)| Message {
            key: &key16,
            count: i as u64,
            bearer: 3,
            direction: (i % 2) as u32,
            data: &msg[..n],
            length_bits: None,
        })
        .collect();
    for out in zuc::eea3_many(&msgs).unwrap() {
        publish(&out);
    }
    for mac in zuc::eia3_many(&msgs).unwrap() {
        publish(&mac);
    }
    // 128-EEA3 as a stream, in pieces that split keystream words.
    let mut ks = Keystream::eea3(&key16, 0x1234, 5, 1).unwrap();
    let mut out = vec![0u8; msg.len()];
    for (s, d) in msg.chunks(37).zip(out.chunks_mut(37)) {
        ks.xor(s, d).unwrap();
    }
    publish(&out);
    let mut buf = [0u8; 203];
    Keystream::zuc128(&key16, &iv16).unwrap().fill(&mut buf);
    publish(&buf);
    Keystream::zuc256(&key32, &iv23).unwrap().fill(&mut buf);
    publish(&buf);
    control(leak, &key16);
}

/// The TLCP CBC record check (MAC-then-encrypt, SM4-CBC + HMAC-SM3): a
/// valid record and records with bad padding, a bad MAC, both, and the
/// largest and smallest padding, for short and long records. The keys are
/// secret, and so is everything decrypted: after SM4-CBC decryption under a
/// secret key the padding byte, the padding and the MAC are undefined, so a
/// branch or index on them (a padding oracle, Lucky13) is reported. The
/// ciphertext (the record on the wire) and the one accept/refuse bit are
/// public; an accepted record's plaintext length is published by the
/// library when it accepts.
///
/// The records are made by hand here (SM4-CBC and HMAC-SM3 from the public
/// API, padding chosen per case) so that bad-padding and bad-MAC records of
/// the same length exist; the negative control adds a deliberately
/// variable-time padding check (early exit on the first wrong byte) on the
/// decrypted record, which valgrind must catch, as well as the key control.
fn tlcp_cbc_work(leak: bool) {
    use shangmi::sm4::{self, Sm4};
    use shangmi::tls::tlcp::testing::RecordCipher;
    let mut mac_key = [0x6bu8; 32];
    let mut enc_key = [0x2du8; 16];
    mac_key[5] = 0x11;
    enc_key[9] = 0x77;
    // Record bytes built with public keys, then the keys are marked secret.
    let cases = cbc_cases(&mac_key, &enc_key);
    let run = cbc_run(&mac_key, &enc_key);
    secret(&mac_key);
    secret(&enc_key);
    let rc = RecordCipher::cbc(&mac_key, &enc_key).expect("CBC keys");
    let mut accepted = 0;
    for (what, seq, fragment, want_ok) in &cases {
        let got = rc.open(*seq, 23, fragment);
        assert_eq!(got.is_ok(), *want_ok, "{what}");
        if let Ok(pt) = got {
            publish(&pt);
            accepted += 1;
        }
    }
    assert_eq!(accepted, cases.iter().filter(|c| c.3).count());
    // The same check through a run opened at once (SM3's lanes).
    let fragments: Vec<&[u8]> = run.iter().map(|(f, _)| &f[..]).collect();
    for (i, (got, (_, want_ok))) in rc.open_many(100, 23, &fragments).into_iter().zip(&run).enumerate() {
        assert_eq!(got.is_ok(), *want_ok, "run record {i}");
        if let Ok(pt) = got {
            publish(&pt);
        }
    }
    if leak {
        // The deliberately variable-time check: decrypt the bad-padding
        // record and compare its padding bytes with an early exit.
        let (_, _, fragment, _) = &cases[1];
        let c = Sm4::new(&enc_key);
        let iv: [u8; 16] = fragment[..16].try_into().unwrap();
        let pt = sm4::cbc_decrypt_expanded(&c, &iv, &fragment[16..], false).expect("decrypt");
        black_box(leaky_padding_ok(&pt));
    }
    control(leak, &enc_key);
}

/// An early-exit padding check: a padding oracle by construction.
#[inline(never)]
fn leaky_padding_ok(pt: &[u8]) -> bool {
    let p = pt[pt.len() - 1] as usize;
    if p + 1 > pt.len() {
        return false;
    }
    pt[pt.len() - 1 - p..].iter().all(|&b| b as usize == p)
}

/// (what, sequence number, fragment, accepted?) for the CBC record check.
/// One CBC record: plaintext ‖ MAC ‖ padding, encrypted under a fixed IV;
/// `pad` is the padding length byte (p + 1 bytes of it), `bad_pad`/`bad_mac`
/// corrupt one byte.
fn cbc_record(mac_key: &[u8; 32], enc_key: &[u8; 16], seq: u64, len: usize, pad: usize, bad: (bool, bool)) -> Vec<u8> {
    use shangmi::sm3;
    use shangmi::sm4::{self, Sm4};
    let (bad_pad, bad_mac) = bad;
    let c = Sm4::new(enc_key);
    let pt: Vec<u8> = (0..len).map(|i| (i * 7 + 3) as u8).collect();
    let mut hdr = seq.to_be_bytes().to_vec();
    hdr.extend_from_slice(&[23, 1, 1]);
    hdr.extend_from_slice(&(len as u16).to_be_bytes());
    let mut mac = sm3::hmac(mac_key, &[&hdr[..], &pt[..]].concat());
    if bad_mac {
        mac[31] ^= 0x40;
    }
    let mut body = pt;
    body.extend_from_slice(&mac);
    body.extend(std::iter::repeat_n(pad as u8, pad + 1));
    if bad_pad {
        let n = body.len();
        body[n - 1 - pad] ^= 1; // the first padding byte
    }
    assert_eq!(body.len() % 16, 0, "case lengths fill whole blocks");
    let iv = [0x5au8 ^ seq as u8; 16];
    let mut out = iv.to_vec();
    out.extend(sm4::cbc_encrypt_expanded(&c, &iv, &body, false).expect("encrypt"));
    out
}

/// A run of consecutive records (sequence numbers 100, 101, ...) opened at
/// once, long enough for SM3's lanes: (fragment, accepted) pairs.
fn cbc_run(mac_key: &[u8; 32], enc_key: &[u8; 16]) -> Vec<(Vec<u8>, bool)> {
    (0..9u64)
        .map(|i| {
            let bad = (i % 3 == 1, i % 3 == 2);
            let (len, pad) = (1515 + 16 * i as usize, 4 + 16 * (i as usize % 4));
            (cbc_record(mac_key, enc_key, 100 + i, len, pad, bad), i % 3 == 0)
        })
        .collect()
}

fn cbc_cases(mac_key: &[u8; 32], enc_key: &[u8; 16]) -> Vec<(String, u64, Vec<u8>, bool)> {
    use shangmi::sm4::{self, Sm4};
    let c = Sm4::new(enc_key);
    let record = |seq: u64, len: usize, pad: usize, bad_pad: bool, bad_mac: bool| -> Vec<u8> {
        cbc_record(mac_key, enc_key, seq, len, pad, (bad_pad, bad_mac))
    };
    let mut v = vec![
        // 15 bytes of content: 15 + 32 + 1 = 48, padding 0.
        ("valid, padding 0".to_string(), 1, record(1, 15, 0, false, false), true),
        // 100 content bytes + 32 + 12 = 144: padding 11 (12 bytes), then tampered.
        ("bad padding".to_string(), 2, record(2, 100, 11, true, false), false),
        ("valid, padding 11".to_string(), 2, record(2, 100, 11, false, false), true),
        ("bad MAC".to_string(), 3, record(3, 100, 11, false, true), false),
        ("bad MAC and padding".to_string(), 4, record(4, 100, 11, true, true), false),
        // The largest padding (255, 256 bytes) on a long record, and a wrong sequence number.
        ("valid, padding 255".to_string(), 5, record(5, 992, 255, false, false), true),
        ("padding 255, bad padding".to_string(), 6, record(6, 992, 255, true, false), false),
        ("wrong sequence number".to_string(), 8, record(7, 992, 255, false, false), false),
        // No content, padding 15; then a padding byte claiming more than the
        // record holds (48 bytes of 0x30: every byte "padding", no room for a MAC).
        ("valid, empty, padding 15".to_string(), 9, record(9, 0, 15, false, false), true),
    ];
    let iv = [0x33u8; 16];
    let mut long_pad = iv.to_vec();
    long_pad.extend(sm4::cbc_encrypt_expanded(&c, &iv, &[0x30; 48], false).expect("encrypt"));
    v.push(("padding longer than the record".to_string(), 10, long_pad, false));
    v
}

#[test]
fn tlcp_cbc_record() {
    ctgrind::check_naming("tlcp_cbc_record", tlcp_cbc_work, &["leaky_padding_ok"]);
}

#[test]
fn sm2() {
    ctgrind::check("sm2", sm2_work);
}

#[test]
fn sm3_hmac() {
    ctgrind::check("sm3_hmac", sm3_work);
}

#[test]
fn sm4() {
    ctgrind::check("sm4", sm4_work);
}

#[test]
fn sm9() {
    ctgrind::check("sm9", sm9_work);
}

#[test]
fn zuc() {
    ctgrind::check("zuc", zuc_work);
}
