//! SM9 identity-based signatures: a key generation centre holds the master
//! key and extracts each user's signing key from the user's identity; anyone
//! verifies with the master public key and the signer's identity alone (no
//! certificate).
//!
//! `cargo run -p shangmi --example sm9_sign`

use shangmi::sm9::{SignMasterKey, HID_SIGN};

fn main() -> shangmi::Result<()> {
    // At the key generation centre.
    let master = SignMasterKey::generate()?;
    let alice = master.extract(b"alice@example.com", HID_SIGN)?;
    let mpk = master.public_key();

    // Alice signs.
    let msg = b"message to sign";
    let sig = alice.sign(msg)?;
    println!("signature {}", hex::encode(sig.to_raw()));

    // Anyone verifies with the master public key and Alice's identity.
    mpk.verify(msg, b"alice@example.com", HID_SIGN, &sig)?;
    assert!(mpk.verify(msg, b"bob@example.com", HID_SIGN, &sig).is_err());
    println!("verified for alice@example.com; rejected for bob@example.com");
    Ok(())
}
