//! Rust-level SM9 timings: `cargo bench -p shangmi --bench sm9_bench -- [rounds] [--openssl] [--only NAME]`.
//!
//! Each operation runs in short batches, rounds interleaved (A, B, C, ... A,
//! B, C, ...) so machine noise hits them alike; prints min and median µs per
//! operation of process CPU time. With `--openssl`, `openssl speed -seconds 3 ecdsap256` runs
//! between the rounds and every figure is also printed as a ratio to its
//! P-256 verify time V (absolute times on shared machines are noise).

use shangmi::sm9::pairing::{miller_loop, pairing, G2Prepared};
use shangmi::sm9::*;
use std::hint::black_box;
use std::process::Command;

// The process clock, not the thread's: the batch rows run on the pool's thread.
mod common;
use common::process_ns as now_ns;

fn openssl_verify_us() -> Option<f64> {
    let out = Command::new("openssl").args(["speed", "-seconds", "3", "ecdsap256"]).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    // "256 bits ecdsa (nistp256)   0.0000s   0.0001s  41234.5  12345.6": the 4th number is verify/s.
    for line in text.lines() {
        if line.contains("ecdsa (nistp256)") {
            let nums: Vec<f64> = line.split_whitespace().filter_map(|w| w.trim_end_matches('s').parse().ok()).collect();
            if let Some(vps) = nums.last() {
                return Some(1e6 / vps);
            }
        }
    }
    None
}

/// Items per batch in the `verify_many` rows.
const BATCH: usize = 16;

fn main() {
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    let rounds: usize = args.iter().skip(1).find_map(|a| a.parse().ok()).unwrap_or(5);
    let with_openssl = args.iter().any(|a| a == "--openssl");
    let sm = SignMasterKey::generate().unwrap();
    let smpk = sm.public_key().clone();
    let psmpk = smpk.prepare();
    let skey = sm.extract(b"Alice", HID_SIGN).unwrap();
    let pskey = skey.prepare();
    let msg = b"benchmark message of moderate length, 64 bytes long...........!";
    let sig = skey.sign(msg).unwrap();
    let em = EncMasterKey::generate().unwrap();
    let empk = em.public_key().clone();
    let pempk = empk.prepare();
    let ekey = em.extract(b"Bob", HID_ENC).unwrap();
    let pekey = ekey.prepare();
    let pt = [0x5au8; 32];
    let opts = Options::default();
    let ct = encrypt(&empk, &pt, b"Bob", HID_ENC, opts).unwrap();
    let (_, kc) = empk.encapsulate(b"Bob", HID_ENC, 32).unwrap();
    let p = *empk.point();
    let q = *smpk.point();
    let qprep = G2Prepared::new(&q);
    let f = miller_loop(&p, &q);
    let p_bytes = g1::encode(&p);
    // A batch of 16 signatures by one identity, checked on one thread; its
    // rows are per item (the closure runs the whole batch, `n` = 1 batch
    // counts as 16 items below through BATCH).
    shangmi::par::set_num_threads(1).unwrap();
    let batch_msgs: Vec<Vec<u8>> = (0..BATCH).map(|i| format!("batch message {i}").into_bytes()).collect();
    let batch: Vec<(&[u8], &[u8], Option<Signature>)> =
        batch_msgs.iter().map(|m| (&m[..], &b"Alice"[..], Some(skey.sign(m).unwrap()))).collect();
    let q_bytes = g2::encode(&q);

    type Op<'a> = (&'static str, usize, Box<dyn FnMut() + 'a>);
    let mut ops: Vec<Op> = vec![
        (
            "pairing, encoded (validated)",
            20,
            Box::new(|| {
                black_box(pairing_encoded(&p_bytes, &q_bytes).unwrap());
            }),
        ),
        (
            "pairing, encoded, [n]Q check",
            20,
            Box::new(|| {
                // The validation before the ψ test: the same decoding with
                // the subgroup checked by [n]Q.
                let p = g1::decode(&p_bytes, "P").unwrap();
                let q = g2::decode_on_twist(&q_bytes, "Q").unwrap();
                assert!(g2::in_subgroup_by_order_vartime(&q));
                black_box(pairing(&p, &q));
            }),
        ),
        (
            "G1 validate (decode)",
            200,
            Box::new(|| {
                black_box(g1::decode(&p_bytes, "P").unwrap());
            }),
        ),
        (
            "G2 validate (decode, ψ test)",
            100,
            Box::new(|| {
                black_box(g2::decode(&q_bytes, "Q").unwrap());
            }),
        ),
        (
            "G2 on-twist check only",
            200,
            Box::new(|| {
                black_box(g2::decode_on_twist(&q_bytes, "Q").unwrap());
            }),
        ),
        (
            "G2 subgroup, ψ test",
            100,
            Box::new(|| {
                assert!(black_box(g2::in_subgroup_vartime(&q)));
            }),
        ),
        (
            "G2 subgroup, [n]Q",
            20,
            Box::new(|| {
                assert!(black_box(g2::in_subgroup_by_order_vartime(&q)));
            }),
        ),
        (
            "pairing",
            20,
            Box::new(|| {
                black_box(pairing(&p, &q));
            }),
        ),
        (
            "miller loop",
            20,
            Box::new(|| {
                black_box(miller_loop(&p, &q));
            }),
        ),
        (
            "final exponentiation",
            20,
            Box::new(|| {
                black_box(final_exp::final_exponentiation(&f));
            }),
        ),
        (
            "pairing, prepared G2",
            20,
            Box::new(|| {
                black_box(pairing::pairing_prepared(&p, &qprep));
            }),
        ),
        (
            "extract (sign key)",
            20,
            Box::new(|| {
                black_box(sm.extract(b"Alice", 1).unwrap());
            }),
        ),
        (
            "extract (enc key)",
            20,
            Box::new(|| {
                black_box(em.extract(b"Bob", 3).unwrap());
            }),
        ),
        (
            "sign",
            10,
            Box::new(|| {
                black_box(skey.sign(msg).unwrap());
            }),
        ),
        (
            "sign, prepared",
            20,
            Box::new(|| {
                black_box(pskey.sign(msg).unwrap());
            }),
        ),
        (
            "verify_many/item, prepared",
            1,
            Box::new(|| {
                assert!(verify_many(&psmpk, 1, &batch).iter().all(|&ok| ok));
            }),
        ),
        (
            "verify 1-by-1/item, prepared",
            1,
            Box::new(|| {
                for (m, u, s) in &batch {
                    psmpk.verify(m, u, 1, s.as_ref().unwrap()).unwrap();
                }
            }),
        ),
        (
            "verify_many/item",
            1,
            Box::new(|| {
                assert!(verify_many(&smpk, 1, &batch).iter().all(|&ok| ok));
            }),
        ),
        ("verify", 10, Box::new(|| smpk.verify(msg, b"Alice", 1, &sig).unwrap())),
        ("verify, prepared", 10, Box::new(|| psmpk.verify(msg, b"Alice", 1, &sig).unwrap())),
        (
            "encrypt 32 B",
            10,
            Box::new(|| {
                black_box(encrypt(&empk, &pt, b"Bob", 3, opts).unwrap());
            }),
        ),
        (
            "encrypt 32 B, prepared",
            20,
            Box::new(|| {
                black_box(encrypt(&pempk, &pt, b"Bob", 3, opts).unwrap());
            }),
        ),
        (
            "decrypt 32 B",
            10,
            Box::new(|| {
                black_box(decrypt(&ekey, &ct, None, opts).unwrap());
            }),
        ),
        (
            "decrypt 32 B, prepared",
            10,
            Box::new(|| {
                black_box(decrypt(&pekey, &ct, None, opts).unwrap());
            }),
        ),
        (
            "encapsulate, prepared",
            20,
            Box::new(|| {
                black_box(pempk.encapsulate(b"Bob", 3, 32).unwrap());
            }),
        ),
        (
            "decapsulate, prepared",
            10,
            Box::new(|| {
                black_box(pekey.decapsulate(&kc, 32, None).unwrap());
            }),
        ),
    ];
    // The IFMA lane field against the scalar tower: 64 rounds of eight
    // products each (eight independent chains on both sides), per product.
    #[cfg(target_arch = "x86_64")]
    {
        use shangmi::cpu::Token;
        use shangmi::sm9::fp::Fp;
        use shangmi::sm9::fp2::Fp2;
        use shangmi::sm9::fp_ifma::{self, Fp2x8, Fp8};
        let xs: [Fp; 8] = core::array::from_fn(|i| Fp::from_limbs_reduce(&[i as u64 + 3, 7, 11 * i as u64, 1]));
        let ys: [Fp; 8] = core::array::from_fn(|i| Fp::from_limbs_reduce(&[i as u64 + 5, 13, 17, 2 * i as u64]));
        let x2: [Fp2; 8] = core::array::from_fn(|i| Fp2::new(xs[i], ys[(i + 1) % 8]));
        let y2: [Fp2; 8] = core::array::from_fn(|i| Fp2::new(ys[i], xs[(i + 3) % 8]));
        ops.push((
            "Fp mul, ADX/lane",
            4,
            Box::new(move || {
                let mut acc = xs;
                for _ in 0..64 {
                    for k in 0..8 {
                        acc[k] = acc[k].mul(&ys[k]);
                    }
                }
                black_box(acc);
            }),
        ));
        ops.push((
            "Fp2 mul, ADX/lane",
            4,
            Box::new(move || {
                let mut acc = x2;
                for _ in 0..64 {
                    for k in 0..8 {
                        acc[k] = acc[k].mul(&y2[k]);
                    }
                }
                black_box(acc);
            }),
        ));
        ops.push((
            "Fp2 square, ADX/lane",
            4,
            Box::new(move || {
                let mut acc = x2;
                for _ in 0..64 {
                    for a in acc.iter_mut() {
                        *a = a.square();
                    }
                }
                black_box(acc);
            }),
        ));
        if let Some(t) = shangmi::cpu::Ifma::get() {
            let (vx, vy) = (Fp8::from_fp(t, &xs), Fp8::from_fp(t, &ys));
            let (wx, wy) = (Fp2x8::from_fp2(t, &x2), Fp2x8::from_fp2(t, &y2));
            ops.push((
                "Fp mul, IFMA/lane",
                4,
                Box::new(move || {
                    let mut acc = vx;
                    for _ in 0..64 {
                        acc = fp_ifma::mul(t, &acc, &vy);
                    }
                    black_box(acc.to_fp(t));
                }),
            ));
            ops.push((
                "Fp2 mul, IFMA/lane",
                4,
                Box::new(move || {
                    let mut acc = wx;
                    for _ in 0..64 {
                        acc = fp_ifma::fp2_mul(t, &acc, &wy);
                    }
                    black_box(acc.to_fp2(t));
                }),
            ));
            ops.push((
                "Fp2 square, IFMA/lane",
                4,
                Box::new(move || {
                    let mut acc = wx;
                    for _ in 0..64 {
                        acc = fp_ifma::fp2_square(t, &acc);
                    }
                    black_box(acc.to_fp2(t));
                }),
            ));
        }
    }
    // Fp12 products on the scalar tower and on the lanes (64 chained
    // operations per call, per operation; `scalar in/out` pays both
    // conversions each time).
    #[cfg(target_arch = "x86_64")]
    {
        use shangmi::cpu::Token;
        use shangmi::sm9::fp12_ifma::{self, Fp12x};
        let x = final_exp::easy_part(&f);
        let y = x.frobenius();
        let (l0, l1, l2) = (x.c0.c0, x.c1.c1, x.c2.c0);
        ops.push((
            "Fp12 mul, ADX/op",
            2,
            Box::new(move || {
                let mut acc = x;
                for _ in 0..64 {
                    acc = acc.mul(&y);
                }
                black_box(acc);
            }),
        ));
        ops.push((
            "Fp12 square, ADX/op",
            2,
            Box::new(move || {
                let mut acc = x;
                for _ in 0..64 {
                    acc = acc.square();
                }
                black_box(acc);
            }),
        ));
        ops.push((
            "Fp12 cyclotomic sq, ADX/op",
            2,
            Box::new(move || {
                let mut acc = x;
                for _ in 0..64 {
                    acc = acc.cyclotomic_square();
                }
                black_box(acc);
            }),
        ));
        ops.push((
            "Fp12 line mul, ADX/op",
            2,
            Box::new(move || {
                let mut acc = x;
                for _ in 0..64 {
                    acc = acc.mul_by_line(&l0, &l1, &l2);
                }
                black_box(acc);
            }),
        ));
        if let Some(t) = shangmi::cpu::Ifma::get() {
            let (vx, vy) = (Fp12x::from_fp12(t, &x), Fp12x::from_fp12(t, &y));
            ops.push((
                "Fp12 mul, IFMA/op",
                2,
                Box::new(move || {
                    let mut acc = vx;
                    for _ in 0..64 {
                        acc = acc.mul(t, &vy);
                    }
                    black_box(acc.to_fp12(t));
                }),
            ));
            ops.push((
                "Fp12 mul, IFMA scalar io/op",
                2,
                Box::new(move || {
                    let mut acc = x;
                    for _ in 0..64 {
                        acc = fp12_ifma::mul(t, &acc, &y);
                    }
                    black_box(acc);
                }),
            ));
            ops.push((
                "Fp12 square, IFMA/op",
                2,
                Box::new(move || {
                    let mut acc = vx;
                    for _ in 0..64 {
                        acc = acc.square(t);
                    }
                    black_box(acc.to_fp12(t));
                }),
            ));
            ops.push((
                "Fp12 cyclotomic sq, IFMA/op",
                2,
                Box::new(move || {
                    let mut acc = vx;
                    for _ in 0..64 {
                        acc = acc.cyclotomic_square(t);
                    }
                    black_box(acc.to_fp12(t));
                }),
            ));
            ops.push((
                "Fp12 line mul, IFMA/op",
                2,
                Box::new(move || {
                    let mut acc = vx;
                    for _ in 0..64 {
                        acc = acc.mul_by_line(t, &l0, &l1, &l2);
                    }
                    black_box(acc.to_fp12(t));
                }),
            ));
        }
    }
    // `--only SUBSTRING` keeps the operations whose name contains it (for profiling one).
    if let Some(i) = args.iter().position(|a| a == "--only") {
        let pat = args.get(i + 1).cloned().unwrap_or_default();
        ops.retain(|(name, _, _)| name.contains(pat.as_str()));
    }
    let ops_names: Vec<&'static str> = ops.iter().map(|(name, _, _)| *name).collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); ops.len()];
    let mut v_times = Vec::new();
    for (_, n, op) in ops.iter_mut() {
        for _ in 0..(*n / 4).max(1) {
            op();
        }
    }
    for _ in 0..rounds {
        if with_openssl {
            if let Some(v) = openssl_verify_us() {
                v_times.push(v);
            }
        }
        for (i, (_, n, op)) in ops.iter_mut().enumerate() {
            let t = now_ns();
            for _ in 0..*n {
                op();
            }
            // Batch rows (`…/item`) run BATCH items per call.
            // Lane rows (`…/lane`) do 64 rounds of eight products per call,
            // `…/op` rows 64 operations.
            let per = if ops_names[i].contains("/item") {
                BATCH
            } else if ops_names[i].contains("/lane") {
                512
            } else if ops_names[i].contains("/op") {
                64
            } else {
                1
            };
            times[i].push((now_ns() - t) as f64 / 1e3 / (*n * per) as f64);
        }
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (v[0], v[v.len() / 2])
    };
    let v = if v_times.is_empty() { None } else { Some(med(&mut v_times).1) };
    if let Some(v) = v {
        println!("openssl P-256 verify V = {v:.1} µs (median of {})", v_times.len());
    }
    println!("{:<28} {:>10} {:>10} {:>8}", "operation", "min µs", "median µs", "/ V");
    for (i, (name, _, _)) in ops.iter().enumerate() {
        let (mn, md) = med(&mut times[i]);
        let ratio = v.map_or(String::from("-"), |v| format!("{:.2}", md / v));
        println!("{name:<28} {mn:>10.3} {md:>10.3} {ratio:>8}");
    }
    println!(
        "prepared memory: sign master {} B, sign key {} B, enc master {} B, enc key {} B",
        psmpk.prepared_memory(),
        pskey.prepared_memory(),
        pempk.prepared_memory(),
        pekey.prepared_memory()
    );
}
