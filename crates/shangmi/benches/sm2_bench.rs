//! Rust-level SM2 timings: `cargo bench -p shangmi --bench sm2_bench -- [rounds]`.
//!
//! `sm2_bench NAME [iters]` runs only the operations whose name starts with
//! NAME, `iters` times (default: the batch size), for instruction counts:
//! `valgrind --tool=callgrind` of NAME with iters = N minus iters = 0 is N
//! operations' worth (setup and the G table excluded).
//!
//! Each operation runs in short batches, rounds interleaved (A, B, C, ... A,
//! B, C, ...) so machine noise hits them alike; prints min and median µs per
//! operation. Compare with `openssl speed -seconds 3 ecdsap256` run in the
//! same session (absolute times on shared machines are noise).

use shangmi::sm2::{self, Ciphertext, PrivateKey, SignaturePool, DEFAULT_UID};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let arg = std::env::args().filter(|a| a != "--bench").nth(1).unwrap_or_default();
    let rounds: usize = arg.parse().unwrap_or(7);
    let only = if arg.parse::<usize>().is_err() && !arg.is_empty() { Some(arg) } else { None };
    let only_iters: Option<usize> = std::env::args().filter(|a| a != "--bench").nth(2).and_then(|a| a.parse().ok());
    let key = PrivateKey::generate().unwrap();
    let pk = key.public_key().clone();
    let ppk = pk.prepare();
    let msg = b"benchmark message of moderate length, 64 bytes long...........!";
    let sig = key.sign(msg, DEFAULT_UID).unwrap();
    let pt = [0x5au8; 32];
    let ct: Ciphertext = pk.encrypt(&pt).unwrap();
    // A long message: the KDF and C3 dominate (the KDF's blocks on SM3's lanes).
    let ct_long: Ciphertext = pk.encrypt(&[0xa5u8; 1 << 16]).unwrap();
    // Enough one-time points for every timed pool-hit sign (filled untimed;
    // only when that operation runs).
    let pool_size = match &only {
        None => 400 * rounds + 1,
        Some(o) if "sign with pool hit".starts_with(o.as_str()) => only_iters.unwrap_or(400) + 1,
        Some(_) => 0,
    };
    let pool = SignaturePool::new(pool_size).unwrap();
    let d = key.to_bytes();
    let e = pk.z(DEFAULT_UID).unwrap();

    type Op<'a> = (&'static str, usize, Box<dyn FnMut() + 'a>);
    let mut ops: Vec<Op> = vec![
        (
            "keygen (from_bytes: d·G, (1+d)^-1, Z)",
            200,
            Box::new(|| {
                black_box(PrivateKey::from_bytes(&d[..]).unwrap());
            }),
        ),
        (
            "sign (64 B msg, default uid)",
            400,
            Box::new(|| {
                black_box(key.sign(msg, DEFAULT_UID).unwrap());
            }),
        ),
        (
            "sign_digest",
            400,
            Box::new(|| {
                black_box(key.sign_digest(&e).unwrap());
            }),
        ),
        (
            "sign with pool hit",
            400,
            Box::new(|| {
                black_box(key.sign_with_pool(msg, DEFAULT_UID, &pool).unwrap());
            }),
        ),
        ("verify", 150, Box::new(|| pk.verify(msg, DEFAULT_UID, &sig).unwrap())),
        ("verify (prepared key)", 150, Box::new(|| ppk.verify(msg, DEFAULT_UID, &sig).unwrap())),
        (
            "encrypt 32 B",
            150,
            Box::new(|| {
                black_box(pk.encrypt(&pt).unwrap());
            }),
        ),
        (
            "encrypt 32 B (prepared key)",
            150,
            Box::new(|| {
                black_box(ppk.encrypt(&pt).unwrap());
            }),
        ),
        (
            "decrypt 32 B",
            150,
            Box::new(|| {
                black_box(key.decrypt(&ct).unwrap());
            }),
        ),
        (
            "decrypt 64 KiB",
            4,
            Box::new(|| {
                black_box(key.decrypt(&ct_long).unwrap());
            }),
        ),
    ];
    if let Some(only) = only {
        // One operation only, e.g. for `valgrind --tool=callgrind` instruction counts.
        for (name, iters, f) in ops.iter_mut() {
            if name.starts_with(only.as_str()) {
                let n = only_iters.unwrap_or(*iters);
                for _ in 0..n {
                    f();
                }
                println!("ran {n} × {name}");
            }
        }
        return;
    }
    let mut results: Vec<Vec<f64>> = vec![Vec::new(); ops.len()];
    // Warm-up (builds the G table).
    for (_, _, f) in ops.iter_mut() {
        f();
    }
    for _ in 0..rounds {
        for (i, (_, iters, f)) in ops.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..*iters {
                f();
            }
            results[i].push(t.elapsed().as_secs_f64() * 1e6 / *iters as f64);
        }
    }
    println!("{:<45} {:>10} {:>10} {:>10}", "operation", "min µs", "median µs", "ops/s");
    for ((name, _, _), r) in ops.iter().zip(results.iter_mut()) {
        r.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = r[r.len() / 2];
        println!("{name:<45} {:>10.2} {:>10.2} {:>10.0}", r[0], med, 1e6 / r[0]);
    }
    let _ = sm2::MAX_POOL;
    println!("prepared table: {} bytes", ppk.prepared_memory_bytes());
}
