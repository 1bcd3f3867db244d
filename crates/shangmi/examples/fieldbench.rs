//! Field-multiplication micro-benchmark: `fieldbench spec|generic|sqr|wide`
//! (under `valgrind --tool=callgrind` for instruction counts; note valgrind
//! hides ADX, so this measures the portable path there). For the SM2 field
//! and point operations with either path see the `sm2_ops` example.
use shangmi::arith::{mul_wide, Fe, Modulus};
use shangmi::sm2::field::{Fp, Sm2P};
use std::hint::black_box;

#[derive(Clone, Copy, Debug)]
struct GenP;
impl Modulus for GenP {
    const M: [u64; 4] = Sm2P::M;
}

fn main() {
    let which = std::env::args().nth(1).unwrap_or_default();
    let n = 10_000_000;
    match which.as_str() {
        "spec" => {
            let mut a = Fp::from_canonical(&[1, 2, 3, 4]);
            let b = Fp::from_canonical(&[5, 6, 7, 8]);
            for _ in 0..n {
                a = black_box(a).mul(&b);
            }
            println!("{:?}", a.to_canonical());
        }
        "generic" => {
            let mut a = Fe::<GenP>::from_canonical(&[1, 2, 3, 4]);
            let b = Fe::<GenP>::from_canonical(&[5, 6, 7, 8]);
            for _ in 0..n {
                a = black_box(a).mul(&b);
            }
            println!("{:?}", a.to_canonical());
        }
        "sqr" => {
            let mut a = Fp::from_canonical(&[1, 2, 3, 4]);
            for _ in 0..n {
                a = black_box(a).square();
            }
            println!("{:?}", a.to_canonical());
        }
        _ => {
            let mut w = [1u64, 2, 3, 4];
            for _ in 0..n {
                w = black_box(mul_wide(&w, &[5, 6, 7, 8]))[2..6].try_into().unwrap();
            }
            println!("{w:?}");
        }
    }
}
