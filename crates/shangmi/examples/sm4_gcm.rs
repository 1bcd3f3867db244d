//! SM4-GCM authenticated encryption (RFC 8998's cipher suite): a random
//! 128-bit key, a 96-bit nonce that must never repeat under one key, and
//! associated data that is authenticated but not encrypted.
//!
//! `cargo run -p shangmi --example sm4_gcm`

use shangmi::sm4::Gcm;

fn main() -> shangmi::Result<()> {
    let mut key = [0u8; 16];
    let mut nonce = [0u8; 12];
    shangmi::rand::fill(&mut key)?;
    shangmi::rand::fill(&mut nonce)?;
    let gcm = Gcm::new(&key, 16)?; // 16-byte tag
    let aad = b"header, sent in clear";

    let sealed = gcm.encrypt(&nonce, aad, b"attack at dawn")?; // ciphertext || tag
    println!("nonce {} sealed {}", hex::encode(nonce), hex::encode(&sealed));
    let opened = gcm.decrypt(&nonce, aad, &sealed)?;
    assert_eq!(opened, b"attack at dawn");

    // Any change to the ciphertext, tag, nonce or associated data fails
    // authentication, and no plaintext is returned.
    let mut forged = sealed.clone();
    forged[0] ^= 1;
    assert!(gcm.decrypt(&nonce, aad, &forged).is_err());
    assert!(gcm.decrypt(&nonce, b"other header", &sealed).is_err());
    println!("opened: {}", String::from_utf8_lossy(&opened));
    Ok(())
}
