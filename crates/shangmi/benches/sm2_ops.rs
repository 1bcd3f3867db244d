//! One SM2 operation N times, for instruction counts and A/B timings between
//! two builds of this program:
//!
//! `sm2_ops OP N` runs OP N times after an untimed warm-up (G table, keys),
//! and prints the time per operation. OP is one of sign, verify,
//! verify_prepared, encrypt, encrypt_prepared, decrypt, keygen, pool64 (a
//! `SignaturePool` of 64 nonces), or `none`
//! (setup only, to subtract it from callgrind totals); `prim` (feature
//! `test-hooks`) times chained field and point primitives:
//!
//! ```text
//! cargo bench -p shangmi --features ctime --bench sm2_ops -- sign 100
//! # the line "Running benches/sm2_ops.rs (target/release/deps/sm2_ops-HASH)"
//! # names the executable:
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/deps/sm2_ops-HASH sign 100
//! ```
//! (valgrind's CPUID hides ADX: `ctime` builds take it from /proc/cpuinfo;
//! `SHANGMI_CPU_DISABLE=adx` picks the portable path.)
//!
//! `sm2_ops batch R` (R rounds, default 5) measures the batch forms on one
//! thread per item — verify_many, decrypt_many (32-byte plaintexts),
//! sign_many, a pool refill and a one-shot signature, 64 items each, in
//! process CPU time (`CLOCK_PROCESS_CPUTIME_ID`, as `openssl speed`
//! reports; /proc's schedstat figures lag a running thread by up to a
//! scheduler tick) — alternating with `openssl speed -seconds 2 ecdsap256`
//! in the same run, and prints each rate over OpenSSL's P-256 verify rate (min and median
//! over the rounds) and the refill's cost per nonce over a one-shot
//! signature. `SHANGMI_CPU_DISABLE=avx512ifma` gives the scalar figures.
mod common;
use shangmi::sm2::{PrivateKey, Signature, DEFAULT_UID};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().filter(|a| a != "--bench").skip(1);
    let op = args.next().unwrap_or_else(|| "none".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let d = [0x3au8; 32];
    let key = PrivateKey::from_bytes(&d).expect("key");
    let pk = key.public_key().clone();
    let ppk = pk.prepare();
    let pt = [0x5au8; 32];
    let ct = pk.encrypt(&pt).expect("encrypt");
    // A digest standing in for SM3(Z ‖ M), and a real signature over it.
    let e = pk.z(DEFAULT_UID).expect("z");
    let sig: Signature = key.sign_digest(&e).expect("sign");
    #[cfg(feature = "test-hooks")]
    if op == "prim" {
        // Chained field multiplications, squarings, doublings and mixed
        // additions: min ns per operation over 15 rounds.
        use shangmi::sm2::testing::primitive_chains;
        let mut best = [f64::MAX; 4];
        for _ in 0..15 {
            for (w, b) in best.iter_mut().enumerate() {
                let m = if w < 2 { n } else { n / 4 };
                let t = Instant::now();
                black_box(primitive_chains(black_box(&[0x5c; 32]), m, w as u8));
                *b = b.min(t.elapsed().as_secs_f64() * 1e9 / m as f64);
            }
        }
        println!(
            "shangmi ns: mont_mul {:.2} mont_sqr {:.2} point_dbl {:.1} add_affine {:.1}",
            best[0], best[1], best[2], best[3]
        );
        return;
    }
    #[cfg(feature = "test-hooks")]
    if op == "dbl_ab" {
        // SM2's doubling kernel against the shared a = −3 formula, alternating
        // in this process: 21 rounds of n chained doublings each.
        use shangmi::sm2::testing::double_chain;
        let k = [0x5cu8; 32];
        assert_eq!(double_chain(&k, 64, false), double_chain(&k, 64, true));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for _ in 0..21 {
            for (shared, v) in [(false, &mut a), (true, &mut b)] {
                let t = Instant::now();
                black_box(double_chain(black_box(&k), n, shared));
                v.push(t.elapsed().as_secs_f64() * 1e9 / n as f64);
            }
        }
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        println!(
            "doubling ns: sm2 kernel min {:.1} median {:.1}; shared min {:.1} median {:.1}",
            a[0], a[10], b[0], b[10]
        );
        println!("shared / sm2 kernel: min {:.3} median {:.3}", b[0] / a[0], b[10] / a[10]);
        return;
    }
    if op == "batch" {
        batch(n.clamp(1, 21), &key);
        return;
    }
    let mut f: Box<dyn FnMut()> = match op.as_str() {
        "sign" => Box::new(|| {
            black_box(key.sign_digest(&e).expect("sign"));
        }),
        "verify" => Box::new(|| pk.verify_digest(&e, &sig).expect("verify")),
        "verify_prepared" => Box::new(|| ppk.verify_digest(&e, &sig).expect("verify")),
        "encrypt" => Box::new(|| {
            black_box(pk.encrypt(&pt).expect("encrypt"));
        }),
        "encrypt_prepared" => Box::new(|| {
            black_box(ppk.encrypt(&pt).expect("encrypt"));
        }),
        "decrypt" => Box::new(|| {
            black_box(key.decrypt(&ct).expect("decrypt"));
        }),
        "keygen" => Box::new(|| {
            black_box(PrivateKey::from_bytes(&d).expect("key"));
        }),
        // A pool refill of 64 nonces per operation (one chunk: on this
        // thread), for profiles of the lane k·G.
        "pool64" => Box::new(|| {
            black_box(shangmi::sm2::SignaturePool::new(64).expect("pool"));
        }),
        _ => Box::new(|| {}),
    };
    let (t, c) = (Instant::now(), cpu_ns());
    for _ in 0..n {
        f();
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / n.max(1) as f64;
    // CPU time (where the kernel reports it): on the shared 2-core machine
    // wall time also counts the time other processes held the core.
    let cpu = cpu_ns().zip(c).map(|(b, a)| (b - a) as f64 / 1e3 / n.max(1) as f64);
    println!("{op} {n}: {:.4} µs/op cpu, {us:.4} µs/op wall", cpu.unwrap_or(us));
}

/// This thread's CPU time in ns, where the platform has a CPU clock.
fn cpu_ns() -> Option<u64> {
    cfg!(target_os = "linux").then(common::thread_ns)
}

/// OpenSSL's P-256 ECDSA verify rate (per second) from one `openssl speed`.
fn openssl_verify_rate() -> Option<f64> {
    let out = std::process::Command::new("openssl").args(["speed", "-seconds", "2", "ecdsap256"]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| l.contains("ecdsa (nistp256)"))?;
    line.split_whitespace().last()?.parse().ok()
}

/// CPU seconds per item of `f` over `items` items (20 calls), best of three.
fn per_item(items: usize, mut f: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let c = common::process_ns();
            for _ in 0..20 {
                f();
            }
            (common::process_ns() - c) as f64 * 1e-9 / (20 * items) as f64
        })
        .fold(f64::MAX, f64::min)
}

fn batch(rounds: usize, key: &PrivateKey) {
    use shangmi::encoding::sm2_modes::{self, CiphertextMode};
    use shangmi::sm2::{sign_many, verify_many, SignaturePool};
    shangmi::par::set_num_threads(1).expect("threads");
    const ITEMS: usize = 64;
    let pk = key.public_key().clone();
    let msgs: Vec<Vec<u8>> = (0..ITEMS).map(|i| format!("batch message {i}").into_bytes()).collect();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| &m[..]).collect();
    let sigs = sign_many(key, &refs, DEFAULT_UID).expect("sign_many");
    let items: Vec<(&shangmi::sm2::PublicKey, &[u8], &Signature)> =
        refs.iter().zip(&sigs).map(|(m, s)| (&pk, *m, s)).collect();
    let cts: Vec<Vec<u8>> = (0..ITEMS).map(|_| pk.encrypt(&[0x5a; 32]).expect("encrypt").to_c1c3c2()).collect();
    let ct_refs: Vec<&[u8]> = cts.iter().map(|c| &c[..]).collect();
    let e = pk.z(DEFAULT_UID).expect("z");
    println!("CPU backend for k·G: {}; one thread, {ITEMS} items per batch", shangmi::sm2::comb_backend_name());
    let names = ["verify_many", "decrypt_many", "sign_many", "sign (one-shot)", "pool refill"];
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut refill_over_sign = Vec::new();
    for round in 0..rounds {
        let Some(v) = openssl_verify_rate() else {
            println!("openssl speed did not run: no ratios");
            return;
        };
        let t = [
            per_item(ITEMS, || {
                black_box(verify_many(&items, DEFAULT_UID).expect("verify"));
            }),
            per_item(ITEMS, || {
                black_box(sm2_modes::decrypt_many(key, &ct_refs, CiphertextMode::C1C3C2).expect("decrypt"));
            }),
            per_item(ITEMS, || {
                black_box(sign_many(key, &refs, DEFAULT_UID).expect("sign"));
            }),
            per_item(ITEMS, || {
                for _ in 0..ITEMS {
                    black_box(key.sign_digest(&e).expect("sign"));
                }
            }),
            per_item(ITEMS, || {
                black_box(SignaturePool::new(ITEMS).expect("pool"));
            }),
        ];
        print!("round {round}: openssl P-256 verify {v:.0}/s;");
        for (i, name) in names.iter().enumerate() {
            print!(" {name} {:.2} µs", t[i] * 1e6);
            ratios[i].push(1.0 / t[i] / v);
        }
        println!();
        refill_over_sign.push(t[4] / t[3]);
    }
    let stats = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        (v[0], v[v.len() / 2])
    };
    for (i, name) in names.iter().enumerate() {
        let (min, med) = stats(&mut ratios[i]);
        println!("{name}: rate / OpenSSL P-256 verify rate: min {min:.2} median {med:.2}");
    }
    let (min, med) = stats(&mut refill_over_sign);
    println!("pool refill per nonce / one-shot signature: min {min:.3} median {med:.3}");
}
