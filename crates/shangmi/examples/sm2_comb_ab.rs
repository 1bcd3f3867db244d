//! In-process A/B of the odd-digit scalar multiplications (session 3):
//! `cargo run --release -p shangmi --example sm2_comb_ab [rounds]`.
//!
//! k·G combs of width 7 and 8; k·P with the odd-digit window (co-Z table) against the
//! session-2 signed-digit one (`mul_ct_signed`). Variants alternate in
//! short batches so machine noise hits them alike; min and median µs.

use shangmi::arith::limbs_from_be;
use shangmi::sm2::mul::{self, CombTable};
use shangmi::sm2::point::Affine;
use std::hint::black_box;
use std::time::Instant;

/// xorshift64*: benchmark scalars only.
struct Rng(u64);
impl Rng {
    fn scalar(&mut self) -> [u64; 4] {
        let mut b = [0u8; 32];
        for c in b.chunks_mut(8) {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            c.copy_from_slice(&self.0.wrapping_mul(0x2545_f491_4f6c_dd1d).to_be_bytes());
        }
        b[0] &= 0x7f;
        limbs_from_be(&b)
    }
}

type Variant<'a> = (&'static str, Box<dyn FnMut() + 'a>);

fn group(title: &str, rounds: usize, iters: usize, mut vs: Vec<Variant>) {
    let mut res: Vec<Vec<f64>> = vec![Vec::new(); vs.len()];
    for (_, f) in vs.iter_mut() {
        f();
    }
    for _ in 0..rounds {
        for (i, (_, f)) in vs.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..iters {
                f();
            }
            res[i].push(t.elapsed().as_secs_f64() * 1e6 / iters as f64);
        }
    }
    println!("== {title}");
    let mut base = 0.0;
    for (i, ((name, _), r)) in vs.iter().zip(res.iter_mut()).enumerate() {
        r.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let med = r[r.len() / 2];
        if i == 0 {
            base = med;
        }
        println!("  {name:<36} min {:>8.2} µs  median {:>8.2} µs  {:>5.3}× of first", r[0], med, med / base);
    }
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(60);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let ks: Vec<[u64; 4]> = (0..64).map(|_| rng.scalar()).collect();
    let g = Affine::generator();
    let t7 = CombTable::new_vartime(&g, 7);
    let t8 = CombTable::new_vartime(&g, 8);
    let p = mul::mul_g_ct(&rng.scalar()).to_affine();
    let ks = &ks;
    // Each variant walks the 64 scalars with its own counter.
    let comb = |name: &'static str, tab: &'static CombTable| -> Variant<'_> {
        let mut i = 0;
        (
            name,
            Box::new(move || {
                black_box(tab.mul_ct(&ks[i]));
                i = (i + 1) % 64;
            }),
        )
    };
    let (t7, t8): (&'static CombTable, &'static CombTable) = (Box::leak(Box::new(t7)), Box::leak(Box::new(t8)));
    group("k·G comb", rounds, 40, vec![comb("w=7", t7), comb("w=8", t8)]);
    let (mut i, mut j) = (0, 0);
    group(
        "k·P (fresh table each call, as in decrypt)",
        rounds,
        10,
        vec![
            (
                "signed digits (session 2)",
                Box::new(|| {
                    black_box(mul::mul_ct_signed(&p, &ks[i]));
                    i = (i + 1) % 64;
                }),
            ),
            (
                "odd digits, co-Z table",
                Box::new(|| {
                    black_box(mul::mul_ct(&p, &ks[j]));
                    j = (j + 1) % 64;
                }),
            ),
        ],
    );
}
