//! SM2 signing with a key read from PEM (PKCS#8, SEC1, or encrypted PKCS#8
//! with a password), verification with the public key, and the signature in
//! DER as OpenSSL writes it.
//!
//! `cargo run -p shangmi --example sm2_sign [KEY.pem [PASSWORD]]` (without
//! a file, a fresh key is generated and its PEM printed first).

use shangmi::encoding::sm2 as pem;
use shangmi::sm2::{PrivateKey, DEFAULT_UID};

fn main() -> shangmi::Result<()> {
    let key = match std::env::args().nth(1) {
        Some(path) => {
            let data = std::fs::read(&path).map_err(|e| shangmi::Error::InvalidInput(format!("{path}: {e}")))?;
            let password = std::env::args().nth(2);
            pem::private_key_from_pem(&data, password.as_deref().map(str::as_bytes))?
        }
        None => {
            let key = PrivateKey::generate()?;
            let text = pem::private_key_to_pem(&key, None, Default::default())?;
            print!("{}", text.as_str());
            key
        }
    };
    let public = key.public_key();
    println!("{}", pem::public_key_to_pem(public)?);

    let msg = b"message to sign";
    // The signer's identity (here the standard's default "1234567812345678")
    // enters the digest: a verifier must use the same one.
    let sig = key.sign(msg, DEFAULT_UID)?;
    public.verify(msg, DEFAULT_UID, &sig)?;
    println!("signature (DER): {}", hex::encode(pem::signature_to_der(&sig)));
    assert!(public.verify(b"another message", DEFAULT_UID, &sig).is_err());
    println!("verified; a different message is rejected");
    Ok(())
}
