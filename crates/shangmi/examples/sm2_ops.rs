//! One SM2 operation N times, for instruction counts and A/B timings between
//! two builds of this example (sm2-field work):
//!
//! `sm2_ops OP N` runs OP N times after an untimed warm-up (G table, keys),
//! and prints the time per operation. OP is one of sign, verify,
//! verify_prepared, encrypt, encrypt_prepared, decrypt, keygen, or `none`
//! (setup only, to subtract it from callgrind totals), or a field / point
//! operation: dbl, madd, add (Jacobian), inv, inv_chain (the Fermat chain),
//! ninv (mod n), inv_vartime, mul, sqr, fadd, fsub (Fp), each chained N times on its
//! own output:
//!
//! ```text
//! cargo build --release -p shangmi --features ctime --example sm2_ops
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!     target/release/examples/sm2_ops sign 100
//! ```
//! (valgrind's CPUID hides ADX: `ctime` builds take it from /proc/cpuinfo;
//! `SHANGMI_CPU_DISABLE=adx` picks the portable path.)
use shangmi::sm2::field::{invert_with, AdxMul, Fn};
use shangmi::sm2::point::Affine;
use shangmi::sm2::{PrivateKey, Signature, DEFAULT_UID};
use std::hint::black_box;
use std::time::Instant;
use subtle::Choice;

fn main() {
    let mut args = std::env::args().skip(1);
    let op = args.next().unwrap_or_else(|| "none".into());
    let n: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let d = [0x3au8; 32];
    let key = PrivateKey::from_bytes(&d).expect("key");
    let pk = key.public_key().clone();
    let ppk = pk.prepare();
    let pt = [0x5au8; 32];
    let ct = pk.encrypt(&pt).expect("encrypt");
    // A digest standing in for SM3(Z ‖ M), and a real signature over it.
    let e = pk.z(DEFAULT_UID).expect("z");
    let sig: Signature = key.sign_digest(&e).expect("sign");
    let mut f: Box<dyn FnMut()> = match op.as_str() {
        "sign" => Box::new(|| {
            black_box(key.sign_digest(&e).expect("sign"));
        }),
        "verify" => Box::new(|| pk.verify_digest(&e, &sig).expect("verify")),
        "verify_prepared" => Box::new(|| ppk.verify_digest(&e, &sig).expect("verify")),
        "encrypt" => Box::new(|| {
            black_box(pk.encrypt(&pt).expect("encrypt"));
        }),
        "encrypt_prepared" => Box::new(|| {
            black_box(ppk.encrypt(&pt).expect("encrypt"));
        }),
        "decrypt" => Box::new(|| {
            black_box(key.decrypt(&ct).expect("decrypt"));
        }),
        "keygen" => Box::new(|| {
            black_box(PrivateKey::from_bytes(&d).expect("key"));
        }),
        _ => Box::new(|| {}),
    };
    let t = Instant::now();
    if !micro(&op, n) {
        for _ in 0..n {
            f();
        }
    }
    let us = t.elapsed().as_secs_f64() * 1e6 / n.max(1) as f64;
    println!("{op} {n}: {us:.4} µs/op");
}

/// Field and point operations, each chained `n` times on its own output
/// (a tight loop per operation, so the counts are the operation's own).
fn micro(op: &str, n: usize) -> bool {
    let g = Affine::generator();
    let mut p = g.to_jacobian().double().double();
    let q = p.double();
    let y = g.y;
    let mut x = g.x.add(&y);
    let mut nx = Fn::from_canonical(&[5, 6, 7, 8]);
    match op {
        "dbl" => (0..n).for_each(|_| p = black_box(p).double()),
        "madd" => (0..n).for_each(|_| p = black_box(p).add_mixed_ct(&g, Choice::from(0), false)),
        "add" => (0..n).for_each(|_| p = black_box(p).add_ct(&q, false)),
        "inv" => (0..n).for_each(|_| x = black_box(x).invert()),
        "inv_chain" => {
            let b = AdxMul::get().expect("BMI2+ADX (not masked by SHANGMI_CPU_DISABLE; a ctime build under valgrind)");
            (0..n).for_each(|_| x = invert_with(b, &black_box(x)))
        }
        "ninv" => (0..n).for_each(|_| nx = black_box(nx).invert()),
        "inv_vartime" => (0..n).for_each(|_| x = black_box(x).invert_vartime()),
        "mul" => (0..n).for_each(|_| x = black_box(x).mul(&y)),
        "sqr" => (0..n).for_each(|_| x = black_box(x).square()),
        "fadd" => (0..n).for_each(|_| x = black_box(x).add(&y)),
        "fsub" => (0..n).for_each(|_| x = black_box(x).sub(&y)),
        _ => return false,
    }
    black_box((&p, &x, &nx));
    true
}
