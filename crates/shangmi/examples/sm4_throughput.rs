//! SM4 throughput per backend and mode on 1 MiB (a rough guide; the
//! benchmark that counts is `shangmi bench sm4`, which compares with OpenSSL
//! in the same process). Run: `cargo run --release --example sm4_throughput`.

use std::time::Instant;

use shangmi::sm4::{self, Backend, Gcm, Sm4};

fn rate(name: &str, bytes: usize, mut f: impl FnMut()) {
    f();
    let mut best = f64::INFINITY;
    for _ in 0..5 {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("{name:<28} {:>8.1} MB/s", bytes as f64 / best / 1e6);
}

fn main() {
    let key = [0x2bu8; 16];
    let iv = [0x11u8; 16];
    for b in Backend::available() {
        let size = if b == Backend::Portable { 1 << 16 } else { 1 << 20 };
        let mut buf = vec![0x5au8; size];
        let c = Sm4::with_backend(&key, b).unwrap();
        let n = b.name();
        rate(&format!("{n} ecb"), size, || c.encrypt_blocks(&mut buf));
        rate(&format!("{n} ctr"), size, || sm4::ctr_apply_in_place(&c, &iv, &mut buf));
        rate(&format!("{n} cbc-encrypt"), size, || {
            sm4::cbc_encrypt_expanded(&c, &iv, &buf, false).unwrap();
        });
        rate(&format!("{n} cbc-decrypt"), size, || {
            sm4::cbc_decrypt_expanded(&c, &iv, &buf, false).unwrap();
        });
        // The out-of-place paths the Python binding uses.
        let mut out = vec![0u8; size];
        rate(&format!("{n} cbc-decrypt-into"), size, || {
            sm4::cbc_decrypt_into(&c, &iv, &buf, &mut out).unwrap();
        });
        rate(&format!("{n} ecb-encrypt-into"), size, || {
            sm4::ecb_encrypt_into(&c, &buf, false, &mut out).unwrap();
        });
        rate(&format!("{n} ctr-into"), size, || {
            sm4::ctr_apply_into(&c, &iv, &buf, &mut out).unwrap();
        });
        let items: Vec<(&[u8], &[u8])> = buf.chunks(size / 16).map(|m| (&iv[..], m)).collect();
        rate(&format!("{n} cbc-encrypt-many-16"), size, || {
            sm4::cbc_encrypt_many(&c, &items, false).unwrap();
        });
        let mut g256 = [0u8; 256];
        rate(&format!("{n} ecb-256-byte-calls"), size, || {
            for _ in 0..size / 256 {
                c.encrypt_blocks(&mut g256);
            }
        });
        let g = Gcm::with_cipher(c.clone(), 16);
        rate(&format!("{n} gcm"), size, || {
            g.encrypt_in_place_detached(&[1; 12], b"", &mut buf).unwrap();
        });
    }
}
