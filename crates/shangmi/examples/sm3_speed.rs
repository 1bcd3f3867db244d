//! Rough SM3 throughput, one stream and `hash_many` of 16 x 64 KiB:
//! `cargo run --release --example sm3_speed`.
use std::time::Instant;

fn best(f: impl Fn()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..100 {
        let t = Instant::now();
        f();
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let data = vec![0x5au8; 1 << 20];
    let one = best(|| {
        std::hint::black_box(shangmi::sm3::hash(std::hint::black_box(&data)));
    });
    println!("SM3 1 MiB one stream ({}): best {:.1} MiB/s", shangmi::sm3::backend_name(), 1.0 / one);
    let msgs: Vec<&[u8]> = data.chunks(1 << 16).collect();
    let many = best(|| {
        std::hint::black_box(shangmi::sm3::hash_many(std::hint::black_box(&msgs)));
    });
    println!("SM3 hash_many 16 x 64 KiB: best {:.1} MiB/s ({:.2}x one stream)", 1.0 / many, one / many);
}
