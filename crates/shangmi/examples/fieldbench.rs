//! Montgomery multiplication micro-benchmark, every backend this CPU has:
//! SM2's p (its special-form kernels), SM2's p and n and SM9's p through the
//! generic full-carry kernels. `fieldbench [N]` prints ns per product, each
//! chained N times on its own output (default 2,000,000); under
//! `SHANGMI_CPU_DISABLE=adx` only the portable rows appear. Under
//! `valgrind --tool=callgrind` it gives instruction counts (valgrind hides
//! ADX, so that measures the portable path).
use shangmi::arith::{limbs_from_hex, Fe, Modulus, MulBackend, Portable};
use shangmi::sm2::{Sm2N, Sm2P};
use std::hint::black_box;
use std::time::Instant;

/// SM2's p without its special-form override: the generic kernels.
#[derive(Clone, Copy, Debug)]
struct GenericSm2P;
impl Modulus for GenericSm2P {
    const M: [u64; 4] = Sm2P::M;
}

/// SM9's BN256 p (top bit set).
#[derive(Clone, Copy, Debug)]
struct Sm9P;
impl Modulus for Sm9P {
    const M: [u64; 4] = limbs_from_hex("B640000002A3A6F1D603AB4FF58EC74521F2934B1A7AEEDBE56F9B27E351457D");
}

fn time<M: Modulus, B: MulBackend>(b: B, n: usize) -> f64 {
    let mut a = Fe::<M>::from_canonical(&[1, 2, 3, 4]);
    let c = Fe::<M>::from_canonical(&[5, 6, 7, 8]);
    let t = Instant::now();
    for _ in 0..n {
        a = b.mul(&black_box(a), &c);
    }
    black_box(a);
    t.elapsed().as_secs_f64() * 1e9 / n as f64
}

fn row<M: Modulus>(name: &str, n: usize) {
    let portable = time::<M, _>(Portable, n);
    #[cfg(target_arch = "x86_64")]
    if let Some(adx) = shangmi::arith::Adx::get() {
        let fast = time::<M, _>(adx, n);
        println!("{name:24} portable {portable:6.2} ns   adx {fast:6.2} ns   ratio {:.2}", portable / fast);
        return;
    }
    println!("{name:24} portable {portable:6.2} ns");
}

fn main() {
    let n = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(2_000_000);
    row::<Sm2P>("SM2 p (special form)", n);
    row::<GenericSm2P>("SM2 p (generic)", n);
    row::<Sm2N>("SM2 n (generic)", n);
    row::<Sm9P>("SM9 p (generic)", n);
}
