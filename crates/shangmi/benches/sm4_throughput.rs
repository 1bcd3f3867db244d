//! SM4 throughput per backend and mode on 1 MiB (a rough guide; the
//! benchmark that counts is `shangmi bench sm4`, which compares with OpenSSL
//! in the same process). Run: `cargo bench -p shangmi --bench sm4_throughput`.
//! With the argument `ab [ROUNDS]`: every backend's ECB, CTR and GCM on
//! 1 MiB in alternating rounds after a warm-up (the order rotates each
//! round), min and median per backend: the same-process A/B for a shared
//! machine.

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

fn ab(rounds: usize) {
    let mut key = [0u8; 16];
    getrandom_key(&mut key);
    let iv = [0x11u8; 16];
    let size = 1 << 20;
    let bs: Vec<Backend> = Backend::available().into_iter().filter(|b| *b != Backend::Portable).collect();
    let ciphers: Vec<Sm4> = bs.iter().map(|b| Sm4::with_backend(&key, *b).unwrap()).collect();
    for mode in ["ecb", "ctr", "gcm", "cbc-decrypt"] {
        let mut buf = vec![0x5au8; size];
        let mut out = vec![0u8; size];
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); bs.len()];
        for r in 0..rounds + 2 {
            for k in 0..bs.len() {
                let i = (k + r) % bs.len();
                let c = &ciphers[i];
                let t = Instant::now();
                match mode {
                    "ecb" => c.encrypt_blocks(&mut buf),
                    "ctr" => sm4::ctr_apply_in_place(c, &iv, &mut buf),
                    "gcm" => {
                        Gcm::with_cipher(c.clone(), 16).encrypt_in_place_detached(&[1; 12], b"", &mut buf).unwrap();
                    }
                    _ => sm4::cbc_decrypt_into(c, &iv, &buf, &mut out).unwrap(),
                }
                if r >= 2 {
                    times[i].push(t.elapsed().as_secs_f64());
                }
            }
        }
        for (b, t) in bs.iter().zip(times.iter_mut()) {
            t.sort_by(|a, b| a.partial_cmp(b).unwrap());
            let (min, med) = (t[0], t[t.len() / 2]);
            println!(
                "{mode:<12} {:<14} min {:>8.1} MB/s  median {:>8.1} MB/s",
                b.name(),
                size as f64 / min / 1e6,
                size as f64 / med / 1e6
            );
        }
    }
}

/// A key from the clock and the address space (measuring only; the
/// cipher's speed does not depend on it, but no one fixed key is measured).
fn getrandom_key(key: &mut [u8; 16]) {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let a = key.as_ptr() as u128;
    *key =
        (t ^ (a << 64) ^ 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834).wrapping_mul(0x2545_f491_4f6c_dd1d).to_le_bytes();
}

fn main() {
    let mut args = std::env::args().filter(|a| a != "--bench").skip(1);
    if args.next().as_deref() == Some("ab") {
        ab(args.next().and_then(|s| s.parse().ok()).unwrap_or(30));
        return;
    }
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
