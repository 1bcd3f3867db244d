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

/// Throughput of SM9's tower operations (independent calls on fixed
/// inputs, min over rounds), ns per call.
fn tower() {
    use shangmi::sm9::{fp::Fp, fp12::Fp12, fp2::Fp2, fp4::Fp4};
    let e = |k: u64| Fp::from_canonical(&[k.wrapping_mul(0x9e37_79b9_7f4a_7c15), k, !k, k >> 3]);
    let f2 = |k: u64| Fp2::new(e(k), e(k + 1));
    let f4 = |k: u64| Fp4::new(f2(k), f2(k + 2));
    let f12 = |k: u64| Fp12 { c0: f4(k), c1: f4(k + 4), c2: f4(k + 8) };
    let (a, b) = (f12(1), f12(20));
    fn best(reps: usize, mut f: impl FnMut()) -> f64 {
        let mut m = f64::MAX;
        for _ in 0..20 {
            let t = Instant::now();
            for _ in 0..reps {
                f();
            }
            m = m.min(t.elapsed().as_secs_f64() * 1e9 / reps as f64);
        }
        m
    }
    let fp = best(20000, || {
        black_box(black_box(&a.c0.c0.c0).mul(black_box(&b.c0.c0.c0)));
    });
    let fp2 = best(10000, || {
        black_box(black_box(&a.c0.c0).mul(black_box(&b.c0.c0)));
    });
    let fp4 = best(4000, || {
        black_box(black_box(&a.c0).mul(black_box(&b.c0)));
    });
    let fp12 = best(500, || {
        black_box(black_box(&a).mul(black_box(&b)));
    });
    let sq12 = best(500, || {
        black_box(black_box(&a).square());
    });
    let cyc = best(500, || {
        black_box(black_box(&a).cyclotomic_square());
    });
    let line = best(500, || {
        black_box(black_box(&a).mul_by_line(&b.c0.c0, &b.c0.c1, &b.c1.c0));
    });
    println!(
        "SM9 tower ns: Fp mul {fp:.1}  Fp2 mul {fp2:.1}  Fp4 mul {fp4:.0}  Fp12 mul {fp12:.0}  Fp12 square {sq12:.0}  cyclotomic square {cyc:.0}  line product {line:.0}"
    );
}

fn main() {
    tower();
    let n = std::env::args().filter(|a| a != "--bench").nth(1).and_then(|s| s.parse().ok()).unwrap_or(2_000_000);
    row::<Sm2P>("SM2 p (special form)", n);
    row::<GenericSm2P>("SM2 p (generic)", n);
    row::<Sm2N>("SM2 n (generic)", n);
    row::<Sm9P>("SM9 p (generic)", n);
}
