//! Same-process A/B of the SM2 sign / encrypt / decrypt paths against the
//! session-2 versions kept in `shangmi::sm2::testing` (SM3-KDF nonces with a
//! system call per operation, constant-time inversions): rounds alternate
//! old and new, medians reported, so the shared machine's drift hits both.
//!
//! `cargo run --release -p shangmi --example sm2_sign_ab [ROUNDS] [N]`
//! (also times the OS random-number system call.)
use shangmi::sm2::{testing, PrivateKey, DEFAULT_UID};
use std::hint::black_box;
use std::time::Instant;

/// A name and the old and new versions of one operation.
type Pair<'a> = (&'static str, Box<dyn FnMut() + 'a>, Box<dyn FnMut() + 'a>);

fn time(n: usize, f: &mut dyn FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        f();
    }
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let rounds: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(15);
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(200);
    let key = PrivateKey::from_bytes(&[0x3a; 32]).expect("key");
    let pk = key.public_key().clone();
    let e = pk.z(DEFAULT_UID).expect("z");
    let pt = [0x5au8; 32];
    let ct = pk.encrypt(&pt).expect("encrypt");
    let mut ops: Vec<Pair> = vec![
        (
            "sign_digest",
            Box::new(|| {
                black_box(testing::sign_digest_reference(&key, &e).unwrap());
            }),
            Box::new(|| {
                black_box(key.sign_digest(&e).unwrap());
            }),
        ),
        (
            "encrypt 32 B",
            Box::new(|| {
                black_box(testing::encrypt_reference(&pk, &pt).unwrap());
            }),
            Box::new(|| {
                black_box(pk.encrypt(&pt).unwrap());
            }),
        ),
        (
            "decrypt 32 B",
            Box::new(|| {
                black_box(testing::decrypt_reference(&key, &ct).unwrap());
            }),
            Box::new(|| {
                black_box(key.decrypt(&ct).unwrap());
            }),
        ),
        (
            "getrandom 16 B vs 64 B",
            Box::new(|| {
                let mut b = [0u8; 16];
                shangmi::rand::fill(&mut b).unwrap();
                black_box(b);
            }),
            Box::new(|| {
                let mut b = [0u8; 64];
                shangmi::rand::fill(&mut b).unwrap();
                black_box(b);
            }),
        ),
    ];
    for (name, old, new) in ops.iter_mut() {
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for r in 0..rounds {
            // Alternate which goes first, so neither always runs warm.
            if r % 2 == 0 {
                a.push(time(n, old.as_mut()));
                b.push(time(n, new.as_mut()));
            } else {
                b.push(time(n, new.as_mut()));
                a.push(time(n, old.as_mut()));
            }
        }
        let (ma, mb) = (median(&mut a), median(&mut b));
        println!("{name:<24} old {ma:8.3} µs  new {mb:8.3} µs  old/new {:.3}", ma / mb);
    }
}
