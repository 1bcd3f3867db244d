//! In-process A/B of SM2 scalar-multiplication variants:
//! `cargo run --release -p shangmi --example sm2_mul_ab [rounds]`.
//!
//! Each group's variants run in alternation (A, B, C, A, B, C, ...), short
//! batches each, so machine noise hits them alike; prints min and median
//! µs per call and each variant's median relative to the group's first.

use shangmi::arith::limbs_from_be;
use shangmi::sm2::field::Fp;
use shangmi::sm2::mul::{self, CombTable};
use shangmi::sm2::point::{Affine, Jacobian};
use std::hint::black_box;
use std::time::Instant;

/// xorshift64*: benchmark scalars only (real random-looking 256-bit values).
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
        b[0] &= 0x7f; // below n
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
        println!("  {name:<44} min {:>8.2} µs  median {:>8.2} µs  {:>5.2}× of first", r[0], med, med / base);
    }
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(60);
    let only = std::env::args().nth(2).unwrap_or_default();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let ks: Vec<[u64; 4]> = (0..64).map(|_| rng.scalar()).collect();
    let g = Affine::generator();
    let p: Affine = mul::mul_g_ct(&rng.scalar()).to_affine();
    let mut idx = 0usize;
    let next = move || {
        idx = (idx + 1) % 64;
        idx
    };

    if only.is_empty() || only == "scan" {
        let tab = mul::g_table();
        let mut vs: Vec<Variant> = Vec::new();
        for (name, kind) in [
            ("k·G comb w=7, AVX-512VL ymm scan", 3u8),
            ("k·G comb w=7, AVX2 scan", 2),
            ("k·G comb w=7, portable scan", 1),
        ] {
            let ks = &ks;
            let mut n = next;
            vs.push((
                name,
                Box::new(move || {
                    mul::set_scan_kind(kind);
                    black_box(tab.mul_ct(&ks[n()]));
                }),
            ));
        }
        group("k·G table scan (whole k·G, no inversion)", rounds, 50, vs);
        let mut vs: Vec<Variant> = Vec::new();
        for (name, kind) in [
            ("37 lookups only, AVX-512VL ymm scan", 3u8),
            ("37 lookups only, AVX2 scan", 2),
            ("37 lookups only, portable scan", 1),
        ] {
            let ks = &ks;
            let mut n = next;
            vs.push((
                name,
                Box::new(move || {
                    mul::set_scan_kind(kind);
                    black_box(tab.lookups_only(&ks[n()]));
                }),
            ));
        }
        group("k·G table scans alone (37 × 64 entries)", rounds, 50, vs);
        mul::set_scan_kind(0);
    }

    if only.is_empty() || only == "comb" {
        let tabs: Vec<(usize, CombTable)> =
            [7usize, 6, 8].iter().map(|&w| (w, CombTable::new_vartime(&g, w))).collect();
        let names = ["k·G + x: comb w=7", "k·G + x: comb w=6", "k·G + x: comb w=8"];
        let mut vs: Vec<Variant> = Vec::new();
        for ((_, t), name) in tabs.iter().zip(names) {
            let ks = &ks;
            let mut n = next;
            vs.push((
                name,
                Box::new(move || {
                    black_box(mul::x_affine_ct(&t.mul_ct(&ks[n()])));
                }),
            ));
        }
        group("k·G comb width (with the x-only inversion, as signing runs it)", rounds, 50, vs);
    }

    if only.is_empty() || only == "sign" {
        // Where a signature's time goes (not alternatives: parts of one).
        let key = shangmi::sm2::PrivateKey::generate().unwrap();
        let e = [7u8; 32];
        let (k1, k2) = (&ks, &ks);
        let (mut n1, mut n2) = (next, next);
        group(
            "sign_digest and its parts",
            rounds,
            50,
            vec![
                (
                    "sign_digest (whole)",
                    Box::new(move || {
                        black_box(key.sign_digest(&e).unwrap());
                    }),
                ),
                (
                    "k·G + x-only inversion",
                    Box::new(move || {
                        black_box(mul::x_affine_ct(&mul::mul_g_ct(&k1[n1()])));
                    }),
                ),
                (
                    "k·G alone",
                    Box::new(move || {
                        black_box(mul::mul_g_ct(&k2[n2()]));
                    }),
                ),
                (
                    "OS random, 32 bytes",
                    Box::new(|| {
                        let mut b = [0u8; 32];
                        shangmi::rand::fill(&mut b).unwrap();
                        black_box(b);
                    }),
                ),
                (
                    "SM3-KDF 96 B -> 64 B (nonce derivation)",
                    Box::new(|| {
                        let mut out = [0u8; 64];
                        shangmi::sm3::kdf_into(&[&[1u8; 32], &[2u8; 32], &[3u8; 32]], &mut out);
                        black_box(out);
                    }),
                ),
            ],
        );
    }

    if only.is_empty() || only == "e2e" {
        // Whole operations with the scan switched: the AVX-512VL scan's
        // end-to-end effect, in one process.
        let key = shangmi::sm2::PrivateKey::generate().unwrap();
        let ppk = key.public_key().prepare();
        let ct = key.public_key().encrypt(b"thirty-two bytes of plaintext...").unwrap();
        let e = [7u8; 32];
        for (title, op) in [("sign_digest", 0u8), ("encrypt 32 B (prepared key)", 1), ("decrypt 32 B", 2)] {
            let mut vs: Vec<Variant> = Vec::new();
            for (name, kind) in [("AVX-512VL scan", 3u8), ("AVX2 scan", 2)] {
                let (key, ppk, ct) = (&key, &ppk, &ct);
                vs.push((
                    name,
                    Box::new(move || {
                        mul::set_scan_kind(kind);
                        match op {
                            0 => drop(black_box(key.sign_digest(&e).unwrap())),
                            1 => drop(black_box(ppk.encrypt(b"thirty-two bytes of plaintext...").unwrap())),
                            _ => drop(black_box(key.decrypt(ct).unwrap())),
                        }
                    }),
                ));
            }
            group(title, rounds, if op == 2 { 10 } else { 40 }, vs);
        }
        mul::set_scan_kind(0);
    }

    if only.is_empty() || only == "batch" {
        let key = shangmi::sm2::PrivateKey::generate().unwrap();
        let es: Vec<[u8; 32]> = (0..64u8).map(|i| [i; 32]).collect();
        let (key1, key2, es1, es2) = (&key, &key, &es, &es);
        group(
            "64 signatures on one thread (sign_many's chunk)",
            rounds / 4 + 1,
            1,
            vec![
                (
                    "64 × sign_digest",
                    Box::new(move || {
                        for e in es1 {
                            black_box(key1.sign_digest(e).unwrap());
                        }
                    }),
                ),
                (
                    "sign_digests (one shared inversion)",
                    Box::new(move || {
                        black_box(key2.sign_digests(es2).unwrap());
                    }),
                ),
            ],
        );
    }

    if only.is_empty() || only == "prep" {
        let tabs: Vec<CombTable> = [5usize, 6].iter().map(|&w| CombTable::new_vartime(&p, w)).collect();
        let names = ["prepared k·P: comb w=5 (52 KiB)", "prepared k·P: comb w=6 (86 KiB)"];
        let mut vs: Vec<Variant> = Vec::new();
        for (t, name) in tabs.iter().zip(names) {
            let ks = &ks;
            let mut n = next;
            vs.push((
                name,
                Box::new(move || {
                    black_box(t.mul_ct(&ks[n()]));
                }),
            ));
        }
        group("prepared key's comb width (encrypt's k·P)", rounds, 50, vs);
    }

    if only.is_empty() || only == "inv" {
        let zs: Vec<Fp> = ks.iter().map(|k| mul::mul_g_ct(k).z).collect();
        let (z1, z2) = (zs.clone(), zs.clone());
        let (mut n1, mut n2) = (next, next);
        group(
            "field inversion",
            rounds,
            200,
            vec![
                (
                    "Fp invert (constant time)",
                    Box::new(move || {
                        black_box(z1[n1()].invert());
                    }),
                ),
                (
                    "Fp invert_vartime",
                    Box::new(move || {
                        black_box(z2[n2()].invert_vartime());
                    }),
                ),
            ],
        );
    }

    if only.is_empty() || only == "kp" {
        let mut vs: Vec<Variant> = Vec::new();
        for (name, kind) in
            [("odd digits, co-Z affine table, AVX-512VL scan", 3u8), ("odd digits, co-Z affine table, AVX2 scan", 2)]
        {
            let ks = &ks;
            let mut n = next;
            vs.push((
                name,
                Box::new(move || {
                    mul::set_scan_kind(kind);
                    black_box(mul::mul_ct(&p, &ks[n()]));
                }),
            ));
        }
        let ks2 = &ks;
        let mut n2 = next;
        vs.push((
            "session-2 signed digits, affine table",
            Box::new(move || {
                black_box(mul::mul_ct_signed(&p, &ks2[n2()]));
            }),
        ));
        let ks3 = &ks;
        let mut n3 = next;
        vs.push((
            "Jacobian table, full adds",
            Box::new(move || {
                black_box(mul::mul_ct_jacobian_table(&p, &ks3[n3()]));
            }),
        ));
        group("k·P constant time (decrypt, encrypt, kex)", rounds, 10, vs);
        mul::set_scan_kind(0);
    }

    if only.is_empty() || only == "verify" {
        let mut vs: Vec<Variant> = Vec::new();
        {
            let ks = &ks;
            let mut n = next;
            vs.push((
                "comb s·G + wNAF5 t·P + add (old)",
                Box::new(move || {
                    let i = n();
                    black_box(mul::double_mul_comb_vartime(&ks[i], &ks[(i + 1) % 64], &p));
                }),
            ));
        }
        for (name, gw) in
            [("shared chain, G wNAF w=12", 12u32), ("shared chain, G wNAF w=10", 10), ("shared chain, G wNAF w=8", 8)]
        {
            let ks = &ks;
            let mut n = next;
            vs.push((
                name,
                Box::new(move || {
                    let i = n();
                    black_box(mul::double_mul_wnaf_vartime(&ks[i], &ks[(i + 1) % 64], &p, gw));
                }),
            ));
        }
        group("s·G + t·P (verify)", rounds, 10, vs);
    }
    let _: Option<Jacobian> = None;
}
