//! Constant-time check for SM9 in the manner of `sm2_ctime`: the master
//! keys are marked *undefined* for valgrind's memcheck (and so is every
//! scalar from `random_scalar`, by the library under `--features ctime`),
//! so any branch or memory address that depends on them — in extraction,
//! signing, encryption, decryption, decapsulation and key exchange — is
//! reported. The library declassifies only what it publishes.
//!
//! Build and run:
//! `cargo build --release -p shangmi --features ctime --example sm9_ctime &&
//!  valgrind --error-exitcode=42 -q target/release/examples/sm9_ctime`
//! (exit 0), and the negative control `... sm9_ctime leak`, which feeds a
//! secret scalar to the variable-time double-and-add and must exit 42.

use shangmi::ctime::{make_defined, make_undefined};
use shangmi::sm9::*;

fn secret32() -> [u8; 32] {
    let mut k = [0u8; 32];
    shangmi::rand::fill(&mut k).expect("OS random");
    k[0] &= 0x7f;
    k[31] |= 1;
    make_undefined(&k);
    k
}

fn main() {
    if std::env::args().nth(1).as_deref() == Some("leak") {
        let k = secret32();
        let limbs: [u64; 4] = core::array::from_fn(|i| u64::from_le_bytes(k[8 * i..8 * i + 8].try_into().unwrap()));
        let p = g1::P1.to_jacobian().mul_vartime(&limbs);
        make_defined(&p.x.to_be_bytes());
        println!("sm9 ctime leak control: ran (valgrind must have reported it)");
        return;
    }
    // Signatures: master key, extraction, plain and prepared signing.
    let sm = SignMasterKey::from_bytes(&secret32()).expect("sign master key");
    let skey = sm.extract(b"Alice", HID_SIGN).expect("extract");
    let msg = b"constant-time check";
    let sig = skey.sign(msg).expect("sign");
    let psig = skey.prepare().sign(msg).expect("prepared sign");
    for s in [&sig, &psig] {
        sm.public_key().verify(msg, b"Alice", HID_SIGN, s).expect("verify");
    }
    // Encryption: extraction, encrypt (plain and prepared), decrypt, KEM.
    let em = EncMasterKey::from_bytes(&secret32()).expect("enc master key");
    let ekey = em.extract(b"Bob", HID_ENC).expect("extract");
    let opts = Options::default();
    let ct = encrypt(em.public_key(), b"plaintext", b"Bob", HID_ENC, opts).expect("encrypt");
    let pct = encrypt(&em.public_key().prepare(), b"plaintext", b"Bob", HID_ENC, opts).expect("encrypt");
    for (c, k) in [(&ct, ekey.clone()), (&pct, ekey.prepare())] {
        let m = decrypt(&k, c, None, opts).expect("decrypt");
        make_defined(&m);
        assert_eq!(&m[..], b"plaintext");
    }
    let (k, c) = em.public_key().encapsulate(b"Bob", HID_ENC, 32).expect("encapsulate");
    let k2 = ekey.decapsulate(&c, 32, None).expect("decapsulate");
    make_defined(&k);
    make_defined(&k2);
    assert_eq!(k.as_slice(), k2.as_slice());
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
    make_defined(&ra.key);
    make_defined(&rb.key);
    assert_eq!(ra.key.as_slice(), rb.key.as_slice());
    println!("sm9 ctime: all operations ran");
}
