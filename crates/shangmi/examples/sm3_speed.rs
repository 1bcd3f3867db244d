//! Rough single-stream SM3 throughput: `cargo run --release --example sm3_speed`.
use std::time::Instant;

fn main() {
    let data = vec![0x5au8; 1 << 20];
    let mut best = f64::MAX;
    for _ in 0..300 {
        let t = Instant::now();
        std::hint::black_box(shangmi::sm3::hash(std::hint::black_box(&data)));
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!("SM3 1 MiB: best {:.1} MiB/s", 1.0 / best);
}
