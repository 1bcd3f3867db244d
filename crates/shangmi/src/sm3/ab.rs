//! Alternating A/B timings of the SM3 kernels in one process (min and
//! median over rounds, one thread), for `bench/NOTES.md`:
//! `cargo test -p shangmi --release sm3::ab -- --ignored --nocapture`.
//! Not run by default: they measure, they check nothing.

use super::compress::{self, Kernel as OneKernel};
use super::many::{hash_batch, Blocks, Kernel};
use super::IV;

/// A named case of a race.
type Case<'a> = (&'static str, Box<dyn Fn() + 'a>);

fn data(n: usize) -> Vec<u8> {
    let mut next = crate::test_rng(0x6a09_e667_f3bc_c908);
    (0..n).map(|_| next() as u8).collect()
}

/// Runs every case once per round, in turn, and prints MiB/s (min time
/// and median time) for `mib` MiB of work per call.
fn race(mib: f64, rounds: usize, cases: &[(&str, &dyn Fn())]) {
    let mut times = vec![Vec::new(); cases.len()];
    for r in 0..rounds + 2 {
        for (k, (_, f)) in cases.iter().enumerate() {
            let t = std::time::Instant::now();
            f();
            if r >= 2 {
                times[k].push(t.elapsed().as_secs_f64());
            }
        }
    }
    for ((name, _), v) in cases.iter().zip(times.iter_mut()) {
        v.sort_by(f64::total_cmp);
        println!("{name:24} min {:7.1} MiB/s  median {:7.1} MiB/s", mib / v[0], mib / v[v.len() / 2]);
    }
}

#[test]
#[ignore]
fn lane_kernels() {
    let d = data(1 << 20);
    let msgs: Vec<&[u8]> = d.chunks(1 << 16).collect();
    let run = |k: Kernel| {
        for group in msgs.chunks(k.lanes()) {
            let blocks: Vec<Blocks<'_>> = group.iter().map(|m| Blocks::new(m)).collect();
            std::hint::black_box(hash_batch(&blocks, k, OneKernel::auto()));
        }
    };
    let kernels = Kernel::available();
    let names: Vec<String> = kernels.iter().map(|k| format!("16 x 64 KiB, {k:?}")).collect();
    let fns: Vec<Box<dyn Fn()>> = kernels.iter().map(|&k| Box::new(move || run(k)) as Box<dyn Fn()>).collect();
    let cases: Vec<(&str, &dyn Fn())> = names.iter().map(|n| n.as_str()).zip(fns.iter().map(|f| &**f)).collect();
    race(1.0, 20, &cases);
}

#[test]
#[ignore]
#[cfg(target_arch = "x86_64")]
fn one_stream_kernels() {
    use crate::cpu::{Avx512Vl, Bmi2Avx2, Token};
    let d = data(1 << 20);
    let d = &d;
    let mut cases: Vec<Case<'_>> = OneKernel::available()
        .into_iter()
        .map(|k| {
            (
                k.name(),
                Box::new(move || {
                    let mut s = IV;
                    k.compress(&mut s, d);
                    std::hint::black_box(s);
                }) as Box<dyn Fn()>,
            )
        })
        .collect();
    if let (Some(b), Some(v)) = (Bmi2Avx2::get(), Avx512Vl::get()) {
        cases.push((
            "avx512 Rust rounds",
            Box::new(move || {
                let mut s = IV;
                compress::compress_blocks_avx512((b, v), &mut s, d);
                std::hint::black_box(s);
            }),
        ));
    }
    let refs: Vec<(&str, &dyn Fn())> = cases.iter().map(|(n, f)| (*n, &**f)).collect();
    race(1.0, 30, &refs);
}
