//! SM3 throughput, one stream and `hash_many` of 16 x 64 KiB (with the
//! default thread pool and with one thread), and the KDF's 1 MiB output
//! (`sm3::kdf`, its blocks on the lanes) against the same blocks finalized
//! one at a time, alternating after a warm-up;
//! min and median of the rounds: `cargo bench -p shangmi --bench sm3_speed --
//! [rounds]`. The backend follows `SHANGMI_CPU_DISABLE`.
use std::time::Instant;

fn main() {
    let rounds: usize = std::env::args().filter(|a| a != "--bench").nth(1).and_then(|s| s.parse().ok()).unwrap_or(30);
    // Arbitrary non-constant data (xorshift), 1 MiB.
    let mut x = 0x243f_6a88_85a3_08d3u64;
    let data: Vec<u8> = (0..1 << 20)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let msgs: Vec<&[u8]> = data.chunks(1 << 16).collect();
    let threads = |n: usize| shangmi::par::set_num_threads(n).expect("thread cap");
    let z = &data[..64];
    let cases: [(&str, &dyn Fn()); 5] = [
        ("one stream", &|| {
            std::hint::black_box(shangmi::sm3::hash(std::hint::black_box(&data)));
        }),
        ("hash_many, default threads", &|| {
            threads(0);
            std::hint::black_box(shangmi::sm3::hash_many(std::hint::black_box(&msgs)));
        }),
        ("hash_many, one thread", &|| {
            threads(1);
            std::hint::black_box(shangmi::sm3::hash_many(std::hint::black_box(&msgs)));
        }),
        ("KDF, 1 MiB out", &|| {
            std::hint::black_box(shangmi::sm3::kdf(std::hint::black_box(z), 1 << 20));
        }),
        ("KDF, one block at a time", &|| {
            let prefix = shangmi::sm3::Sm3::new().chain(std::hint::black_box(z));
            let mut out = vec![0u8; 1 << 20];
            for (i, chunk) in out.chunks_mut(32).enumerate() {
                chunk.copy_from_slice(&prefix.clone().chain(&(i as u32 + 1).to_be_bytes()).finalize());
            }
            std::hint::black_box(out);
        }),
    ];
    let mut times = vec![Vec::new(); cases.len()];
    for r in 0..rounds + 3 {
        for (k, (_, f)) in cases.iter().enumerate() {
            let t = Instant::now();
            f();
            if r >= 3 {
                times[k].push(t.elapsed().as_secs_f64());
            }
        }
    }
    threads(0);
    let stats: Vec<(f64, f64)> = times
        .iter_mut()
        .map(|v| {
            v.sort_by(f64::total_cmp);
            (v[0], v[v.len() / 2])
        })
        .collect();
    println!("SM3, 1 MiB, backend {}, {rounds} rounds", shangmi::sm3::backend_name());
    for ((name, _), (min, med)) in cases.iter().zip(&stats) {
        println!(
            "{name:28} min {:7.1} MiB/s  median {:7.1} MiB/s  ({:.2}x / {:.2}x one stream)",
            1.0 / min,
            1.0 / med,
            stats[0].0 / min,
            stats[0].1 / med
        );
    }
}
