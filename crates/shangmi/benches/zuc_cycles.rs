//! Cycles per 32-bit keystream word of ZUC on each backend, measured with
//! the time-stamp counter: `cargo bench -p shangmi --bench zuc_cycles`.
//!
//! On a shared machine wall-clock figures drift from minute to minute; the
//! minimum over many short runs, alternating the operations, is stable. The
//! TSC ticks at the nominal clock; the core may run faster (turbo), so the
//! ratio of core cycles to ticks is measured too, with a chain of dependent
//! vector additions (1 cycle each) timed the same way.
//!
//! Columns: TSC ticks per word, core cycles per word, and MiB/s at the
//! measured TSC rate (what the core achieves when undisturbed).

#[cfg(target_arch = "x86_64")]
fn main() {
    use std::arch::x86_64::_rdtsc;
    use std::time::Instant;

    use shangmi::zuc::{self, Keystream};

    fn ticks() -> u64 {
        // SAFETY: RDTSC exists on every x86-64 CPU.
        unsafe { _rdtsc() }
    }

    /// TSC ticks for 80 000 dependent 1-cycle vector additions.
    fn add_chain() -> u64 {
        let t = ticks();
        // SAFETY: register-only SSE2 instructions (baseline on x86-64).
        unsafe {
            std::arch::asm!(
                "mov {n:e}, 10000",
                "2:",
                "paddd {x}, {y}", "paddd {x}, {y}", "paddd {x}, {y}", "paddd {x}, {y}",
                "paddd {x}, {y}", "paddd {x}, {y}", "paddd {x}, {y}", "paddd {x}, {y}",
                "dec {n:e}",
                "jnz 2b",
                n = out(reg) _, x = out(xmm_reg) _, y = out(xmm_reg) _,
                options(nomem, nostack),
            );
        }
        ticks() - t
    }

    let words = 1 << 14;
    let data = vec![0x5au8; 4 * words];
    let key = [0x42u8; 16];
    let only = std::env::var("ZUC_BENCH_BACKEND").ok();
    let backends: Vec<&str> =
        [zuc::backend_name()].into_iter().filter(|b| only.as_deref().is_none_or(|o| o == *b)).collect();
    let rounds: usize = std::env::var("ZUC_CYCLES_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);

    let wall = Instant::now();
    let t0 = ticks();
    let mut chain = u64::MAX;
    // [backend][op] minimum ticks
    let mut best = vec![[u64::MAX; 5]; backends.len()];
    let mut buf = vec![0u32; words];
    for _ in 0..rounds {
        chain = chain.min(add_chain());
        for (i, _) in backends.iter().enumerate() {
            let mut ks = Keystream::zuc128(&key, &key).unwrap();
            ks.words(&mut buf[..256]); // past initialisation
            let t = ticks();
            ks.words(&mut buf);
            best[i][0] = best[i][0].min(ticks() - t);
            std::hint::black_box(&buf);

            let t = ticks();
            std::hint::black_box(zuc::eea3(&key, 1, 2, 0, &data, None).unwrap());
            best[i][1] = best[i][1].min(ticks() - t);

            let t = ticks();
            std::hint::black_box(zuc::eia3(&key, 1, 2, 0, &data, None).unwrap());
            best[i][2] = best[i][2].min(ticks() - t);

            // The same 64 KiB as 16 messages of 4 KiB (distinct COUNTs).
            let msgs: Vec<zuc::Message<'_>> = data
                .chunks(data.len() / 16)
                .enumerate()
                .map(|(j, d)| zuc::Message {
                    key: &key,
                    count: j as u64,
                    bearer: 2,
                    direction: 0,
                    data: d,
                    length_bits: None,
                })
                .collect();
            let t = ticks();
            std::hint::black_box(zuc::eea3_many(&msgs).unwrap());
            best[i][3] = best[i][3].min(ticks() - t);
            let t = ticks();
            std::hint::black_box(zuc::eia3_many(&msgs).unwrap());
            best[i][4] = best[i][4].min(ticks() - t);
        }
    }
    let tsc_hz = (ticks() - t0) as f64 / wall.elapsed().as_secs_f64();
    let core_per_tick = 80_000.0 / chain as f64;
    println!(
        "TSC {:.3} GHz, core {:.3} GHz (core cycles per tick {:.3}); {} words per run, best of {rounds}",
        tsc_hz / 1e9,
        tsc_hz * core_per_tick / 1e9,
        core_per_tick,
        words
    );
    for (i, b) in backends.iter().enumerate() {
        for (j, name) in
            ["keystream words", "EEA3 64 KiB", "EIA3 64 KiB", "EEA3 16 x 4 KiB", "EIA3 16 x 4 KiB"].iter().enumerate()
        {
            let per_word = best[i][j] as f64 / words as f64;
            println!(
                "{name:<17} {:<9} {:6.2} ticks/word {:6.2} core cycles/word {:7.1} MiB/s",
                b,
                per_word,
                per_word * core_per_tick,
                4.0 * tsc_hz / per_word / (1 << 20) as f64
            );
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn main() {
    eprintln!("zuc_cycles needs x86-64 (RDTSC)");
}
