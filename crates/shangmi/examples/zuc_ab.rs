//! A/B of the keystream backends: many short alternating rounds, minimum
//! time per backend (the least disturbed run on a shared machine).
//! `cargo run --release -p shangmi --example zuc_ab`

use std::time::Instant;

use shangmi::zuc::{Backend, Keystream};

fn main() {
    let backends: Vec<Backend> = Backend::available().into_iter().filter(|&b| b != Backend::Portable).collect();
    let mut best = vec![f64::INFINITY; backends.len()];
    let mut out = vec![0u8; 256 << 10];
    for _ in 0..300 {
        for (i, &b) in backends.iter().enumerate() {
            let mut ks = Keystream::zuc128_with_backend(&[1; 16], &[2; 16], b).unwrap();
            let t = Instant::now();
            ks.fill(&mut out);
            best[i] = best[i].min(t.elapsed().as_secs_f64());
        }
    }
    for (i, b) in backends.iter().enumerate() {
        println!("{:<8} best {:7.1} MiB/s", b.name(), 0.25 / best[i]);
    }
}
