//! Constant-time check for ZUC under Valgrind (the method of libsecp256k1's
//! `ctime_tests`): the key, IV and message are marked *undefined* with a
//! Memcheck client request, so any branch, conditional move or memory address
//! that depends on them is reported as an error.
//!
//! ```text
//! cargo build --release -p shangmi --example zuc_ctgrind
//! valgrind --error-exitcode=42 target/release/examples/zuc_ctgrind          # must exit 0
//! valgrind --error-exitcode=42 target/release/examples/zuc_ctgrind --leak   # must exit 42
//! ```
//! `--leak` adds one deliberate secret-indexed table lookup, proving that the
//! check can fail. Run outside Valgrind the client requests are no-ops.
//! `tests/zuc_ctgrind.rs` runs both when `valgrind` is installed.
//!
//! Coverage: the kernel this process chose (`SHANGMI_CPU_DISABLE` selects
//! it; `tests/zuc_ctgrind.rs` runs `portable-32` under the mask `all` and
//! `aesni-avx2-128` unmasked, the best Valgrind shows). Valgrind emulates
//! neither AVX-512 nor GFNI (its CPUID hides both), so the GFNI and
//! AVX-512 kernels never run here; their
//! instruction sequences are register-only (no branch or address depends on
//! a key, IV or message byte: see zuc/x86/f.rs, lanes8.rs and lanes16.rs), the
//! same data flow as the AES-NI/AVX2 code this check covers.

use std::hint::black_box;

use shangmi::ctime::{make_defined, make_undefined};
use shangmi::zuc::{self, Keystream};

fn secret(buf: &[u8]) {
    make_undefined(buf);
}

fn public(buf: &[u8]) {
    make_defined(buf);
}

fn main() {
    let leak = std::env::args().any(|a| a == "--leak");
    let key16: Vec<u8> = (0..16u8).map(|i| i.wrapping_mul(17).wrapping_add(3)).collect();
    let key32: Vec<u8> = (0..32u8).map(|i| i.wrapping_mul(7).wrapping_add(1)).collect();
    let iv16 = [0x5au8; 16];
    let iv23 = [0xa5u8; 23];
    let msg: Vec<u8> = (0..300u32).map(|i| (i * 31) as u8).collect();
    for buf in [&key16[..], &key32[..], &iv16[..], &iv23[..], &msg[..]] {
        secret(buf);
    }
    eprintln!("zuc_ctgrind: kernels {} and {}", zuc::backend_name(), zuc::lanes_backend_name());
    {
        let mut out = zuc::eea3(&key16, 0x1234, 5, 1, &msg, Some(8 * 300 - 3)).unwrap();
        public(&out);
        black_box(&mut out);
        let mac = zuc::eia3(&key16, 0x1234, 5, 1, &msg, Some(8 * 300 - 5)).unwrap();
        public(&mac);
        black_box(mac);
        for tag_bits in [32, 64, 128] {
            let t = zuc::zuc256_mac(&key32, &iv23, &msg, tag_bits, None).unwrap();
            public(&t);
            black_box(t);
        }
        // Several messages at once (lanes of the multi-stream code); message
        // lengths are public, keys and contents secret.
        let msgs: Vec<zuc::Message<'_>> = [0usize, 7, 64, 300, 129, 5, 200, 33, 1]
            .iter()
            .enumerate()
            .map(|(i, &n)| zuc::Message {
                key: &key16,
                count: i as u64,
                bearer: 3,
                direction: (i % 2) as u32,
                data: &msg[..n],
                length_bits: None,
            })
            .collect();
        for mut out in zuc::eea3_many(&msgs).unwrap() {
            public(&out);
            black_box(&mut out);
        }
        for mac in zuc::eia3_many(&msgs).unwrap() {
            public(&mac);
            black_box(mac);
        }
        // 128-EEA3 as a stream, in pieces that split keystream words.
        let mut ks = Keystream::eea3(&key16, 0x1234, 5, 1).unwrap();
        let mut out = vec![0u8; msg.len()];
        for (s, d) in msg.chunks(37).zip(out.chunks_mut(37)) {
            ks.xor(s, d).unwrap();
        }
        public(&out);
        black_box(&mut out);
        let mut ks = Keystream::zuc128(&key16, &iv16).unwrap();
        let mut buf = [0u8; 203];
        ks.fill(&mut buf);
        public(&buf);
        let mut ks = Keystream::zuc256(&key32, &iv23).unwrap();
        ks.fill(&mut buf);
        public(&buf);
        black_box(buf);
    }
    if leak {
        // A deliberate secret-dependent memory index: must be reported.
        let table: Vec<u8> = (0..=255u8).collect();
        let mut x = table[key16[0] as usize];
        public(std::slice::from_mut(&mut x));
        black_box(x);
    }
}
