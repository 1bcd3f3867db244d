//! Throughput of 128-EEA3, 128-EIA3 and the raw keystream on every available
//! backend: `cargo bench -p shangmi --bench zuc_bench`.
//! Median of alternating rounds; absolute figures on shared machines are noise.

use std::time::Instant;

use shangmi::zuc::{self, Keystream};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let data: &'static [u8] = Box::leak(
        (0..1u32 << 20).map(|i| (i.wrapping_mul(2_654_435_761) >> 11) as u8).collect::<Vec<u8>>().into_boxed_slice(),
    );
    let key = [0x42u8; 16];
    let only = std::env::var("ZUC_BENCH_BACKEND").ok();
    let backends: Vec<&str> =
        [zuc::backend_name()].into_iter().filter(|b| only.as_deref().is_none_or(|o| o == *b)).collect();
    let rounds = 41;
    type Op = Box<dyn Fn(&str)>;
    let ops: Vec<(&str, Op)> = vec![
        ("EEA3 1 MiB", Box::new(move |_| drop(zuc::eea3(&key, 1, 2, 0, data, None).unwrap()))),
        (
            "EIA3 1 MiB",
            Box::new(move |_| {
                let _ = zuc::eia3(&key, 1, 2, 0, data, None).unwrap();
            }),
        ),
        (
            "EEA3 16x64 KiB",
            Box::new(move |_| {
                let msgs: Vec<zuc::Message<'_>> = data
                    .chunks(1 << 16)
                    .enumerate()
                    .map(|(i, d)| zuc::Message {
                        key: &key,
                        count: i as u64,
                        bearer: 3,
                        direction: 0,
                        data: d,
                        length_bits: None,
                    })
                    .collect();
                drop(zuc::eea3_many(&msgs).unwrap());
            }),
        ),
        (
            "keystream 1 MiB",
            Box::new(move |_| {
                let mut out = vec![0u8; 1 << 20];
                Keystream::zuc128(&key, &key).unwrap().fill(&mut out);
            }),
        ),
    ];
    // Setup-bound: a 64-byte EIA3 (key/IV load and 33 initialisation rounds dominate).
    for &b in &backends {
        let small = &data[..64];
        let n = std::env::var("ZUC_BENCH_SMALL_N").ok().and_then(|v| v.parse().ok()).unwrap_or(2000);
        let t = Instant::now();
        for _ in 0..n {
            let _ = zuc::eia3(&key, 1, 2, 0, small, None).unwrap();
        }
        println!("EIA3 64 B        {:<9} {:8.2} µs/op", b, t.elapsed().as_secs_f64() / n as f64 * 1e6);
    }
    if std::env::var("ZUC_BENCH_SMALL_ONLY").is_ok() {
        return;
    }
    for (name, op) in &ops {
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); backends.len()];
        for _ in 0..rounds {
            for (i, &b) in backends.iter().enumerate() {
                let reps = 1;
                let t = Instant::now();
                for _ in 0..reps {
                    op(b);
                }
                times[i].push(t.elapsed().as_secs_f64() / reps as f64);
            }
        }
        for (i, b) in backends.iter().enumerate() {
            let m = median(times[i].clone());
            let best = times[i].iter().cloned().fold(f64::INFINITY, f64::min);
            println!("{name:<16} {:<9} median {:8.1} MiB/s   best {:8.1} MiB/s", b, 1.0 / m, 1.0 / best);
        }
    }
}
