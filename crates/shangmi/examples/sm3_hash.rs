//! SM3 digests (one-shot and incremental) and HMAC-SM3.
//!
//! `cargo run -p shangmi --example sm3_hash [FILE]` prints the SM3 digest of
//! FILE (or of "abc", the standard's first example, whose digest is
//! 66c7f0f4...8f4ba8e0) and an HMAC-SM3 tag.

use shangmi::sm3::{self, HmacSm3, Sm3};

fn main() -> std::io::Result<()> {
    let data = match std::env::args().nth(1) {
        Some(path) => std::fs::read(path)?,
        None => b"abc".to_vec(),
    };
    println!("sm3     {}", hex::encode(sm3::hash(&data)));

    // The same digest fed in pieces (a stream, a file read in chunks).
    let mut h = Sm3::new();
    for chunk in data.chunks(1000) {
        h.update(chunk);
    }
    assert_eq!(h.finalize(), sm3::hash(&data));

    let key = b"a secret key of any length";
    let tag = sm3::hmac(key, &data);
    println!("hmac    {}", hex::encode(tag));
    // Incremental HMAC gives the same tag.
    let mut mac = HmacSm3::new(key);
    mac.update(&data);
    assert_eq!(mac.finalize(), tag);
    Ok(())
}
