//! ZUC against every entry of tests/vectors/zuc.json on the kernel this
//! process chose; the multi-message API (eea3_many / eia3_many) against the
//! same vectors and against the single-message functions. The kernels are
//! chosen once per process from `SHANGMI_CPU_DISABLE`, so
//! `every_kernel_in_a_subprocess` runs this file again under the masks that
//! select each slower kernel. (Each kernel against the portable one on
//! random inputs: the crate's unit tests, `zuc::diff_tests`.)

use crate::common;

use common::Value;
use shangmi::zuc::{self, Keystream, Message};

fn vectors() -> Value {
    common::json("zuc.json")
}

fn hx(v: &Value) -> Vec<u8> {
    common::hexv(v)
}

fn int(v: &Value) -> u64 {
    v.as_u64().expect("integer")
}

fn count(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("count hex"), 16).expect("count")
}

/// The kernel this process runs (one per process: see the module notes).
fn backends() -> Vec<&'static str> {
    let b = zuc::backend_name();
    #[cfg(target_arch = "x86_64")]
    if std::env::var("CI").is_ok() && shangmi::cpu::masked() == shangmi::cpu::Features::NONE {
        // CI machines are x86-64 with AES-NI: unless SHANGMI_CPU_DISABLE masks
        // features, the SIMD path must be tested there.
        assert_ne!(b, "portable-32", "SIMD kernel unavailable");
        if std::arch::is_x86_feature_detected!("avx512vl") {
            assert!(b.contains("avx512"), "AVX-512 kernel unavailable");
        }
    }
    vec![b]
}

/// Masks that select each slower kernel: aesni-avx512-128 ("gfni"),
/// gfni-avx2-128 ("avx512f"), aesni-avx2-128 ("avx512f,gfni"), portable-32
/// ("all"); the lane kernels follow.
#[cfg(target_arch = "x86_64")]
const MASKS: [&str; 4] = ["gfni", "avx512f", "avx512f,gfni", "all"];

/// Runs every other test of this file again in a child process per mask
/// (only from the unmasked parent, so children do not recurse; the filter
/// `zuc::` keeps the child to this module of the integration binary). x86-64
/// only: the masks name x86 features, and elsewhere the portable kernel is
/// the only one (under qemu-user a child would also need the emulator).
#[cfg(target_arch = "x86_64")]
#[test]
fn every_kernel_in_a_subprocess() {
    if std::env::var_os(shangmi::cpu::DISABLE_VAR).is_some() {
        return;
    }
    let exe = std::env::current_exe().expect("test binary");
    for mask in MASKS {
        let out = std::process::Command::new(&exe)
            .env(shangmi::cpu::DISABLE_VAR, mask)
            .args(["zuc::", "--test-threads=2", "--skip", "every_kernel_in_a_subprocess"])
            .output()
            .expect("child test run");
        assert!(
            out.status.success(),
            "mask {mask}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn zuc128_keystream() {
    let v = vectors();
    for backend in backends() {
        for e in v["zuc128_keystream"].as_array().unwrap() {
            let expected = hx(&e["keystream"]);
            let mut ks = Keystream::zuc128(&hx(&e["key"]), &hx(&e["iv"])).unwrap();
            let mut got = vec![0u8; expected.len()];
            ks.fill(&mut got);
            assert_eq!(got, expected, "{} on {backend:?}", e["id"]);
            if let Some(z2000) = e.get("z2000") {
                // z2000 is the 2000th word; we already have len/4 of them.
                let mut words = vec![0u32; 2000 - expected.len() / 4];
                ks.words(&mut words);
                assert_eq!(words.last().unwrap().to_be_bytes().to_vec(), hx(z2000), "{} z2000", e["id"]);
            }
        }
    }
}

#[test]
fn eea3_vectors_and_set5_both_forms() {
    let v = vectors();
    let mut cases: Vec<(String, Value, Vec<u8>, Vec<u8>)> = Vec::new();
    for e in v["eea3"].as_array().unwrap() {
        cases.push((e["id"].to_string(), e.clone(), hx(&e["plaintext"]), hx(&e["ciphertext"])));
    }
    let d = &v["source_disagreements"][0];
    assert_eq!(d["vector"], "eea3-set5");
    let set5 = v["eea3"].as_array().unwrap().iter().find(|e| e["id"] == "eea3-set5").unwrap().clone();
    cases.push(("eea3-set5 (GmSSL form)".into(), set5, hx(&d["other_plaintext"]), hx(&d["other_ciphertext"])));
    assert_eq!(cases.len(), 6);
    for backend in backends() {
        for (id, e, pt, ct) in &cases {
            let len = int(&e["length_bits"]);
            let args = (hx(&e["key"]), count(&e["count"]), int(&e["bearer"]) as u32, int(&e["direction"]) as u32);
            let got = zuc::eea3(&args.0, args.1, args.2, args.3, pt, Some(len)).unwrap();
            assert_eq!(got.len(), (len as usize).div_ceil(8));
            // Only the first length_bits bits are part of the test; ours are zero beyond.
            let mut want = ct[..got.len()].to_vec();
            if !len.is_multiple_of(8) {
                *want.last_mut().unwrap() &= 0xffu8 << (8 - len % 8);
            }
            assert_eq!(got, want, "{id} encrypt on {backend:?}");
            let back = zuc::eea3(&args.0, args.1, args.2, args.3, ct, Some(len)).unwrap();
            let mut pwant = pt[..back.len()].to_vec();
            if !len.is_multiple_of(8) {
                *pwant.last_mut().unwrap() &= 0xffu8 << (8 - len % 8);
            }
            assert_eq!(back, pwant, "{id} decrypt on {backend:?}");
        }
    }
}

/// The EEA3 stream (Keystream::eea3 + xor) over the 3GPP vectors, fed in
/// pieces of 1, 3, 7, ... bytes, gives the standard's ciphertext bytes (the
/// whole bytes of length_bits; the stream has no bit length) on every backend.
#[test]
fn eea3_stream_in_pieces_matches_vectors() {
    let v = vectors();
    for backend in backends() {
        for e in v["eea3"].as_array().unwrap() {
            let (pt, ct) = (hx(&e["plaintext"]), hx(&e["ciphertext"]));
            let n = int(&e["length_bits"]) as usize / 8;
            let mut ks = Keystream::eea3(
                &hx(&e["key"]),
                count(&e["count"]),
                int(&e["bearer"]) as u32,
                int(&e["direction"]) as u32,
            )
            .unwrap();
            let mut got = vec![0u8; n];
            let (mut at, mut piece) = (0, 1);
            while at < n {
                let end = (at + piece).min(n);
                ks.xor(&pt[at..end], &mut got[at..end]).unwrap();
                (at, piece) = (end, piece * 2 + 1);
            }
            assert_eq!(got, ct[..n], "{} on {backend:?}", e["id"]);
        }
    }
    let mut ks = Keystream::eea3(&[0u8; 16], 0, 0, 0).unwrap();
    assert!(ks.xor(&[0u8; 3], &mut [0u8; 2]).is_err());
    assert!(Keystream::eea3(&[0u8; 16], 0, 32, 0).is_err());
    assert!(Keystream::eea3(&[0u8; 15], 0, 0, 0).is_err());
}

#[test]
fn eia3_vectors() {
    let v = vectors();
    let entries = v["eia3"].as_array().unwrap();
    assert!(entries.iter().any(|e| !int(&e["length_bits"]).is_multiple_of(8)));
    for backend in backends() {
        for e in entries {
            let mac = zuc::eia3(
                &hx(&e["key"]),
                count(&e["count"]),
                int(&e["bearer"]) as u32,
                int(&e["direction"]) as u32,
                &hx(&e["message"]),
                Some(int(&e["length_bits"])),
            )
            .unwrap();
            assert_eq!(mac.to_vec(), hx(&e["mac"]), "{} on {backend:?}", e["id"]);
        }
    }
}

fn zuc256_ivs(e: &Value) -> Vec<Vec<u8>> {
    let mut ivs = Vec::new();
    for f in ["iv_packed23", "iv25"] {
        if let Some(iv) = e.get(f) {
            ivs.push(hx(iv));
        }
    }
    assert!(!ivs.is_empty());
    ivs
}

#[test]
fn zuc256_keystream() {
    let v = vectors();
    for backend in backends() {
        for e in v["zuc256_keystream"].as_array().unwrap() {
            for iv in zuc256_ivs(e) {
                let mut ks = Keystream::zuc256(&hx(&e["key"]), &iv).unwrap();
                if let Some(k) = e.get("keystream") {
                    let expected = hx(k);
                    let mut got = vec![0u8; expected.len()];
                    ks.fill(&mut got);
                    assert_eq!(got, expected, "{} on {backend:?}", e["id"]);
                } else {
                    // given as an encryption of zeros: ciphertext = plaintext ^ keystream
                    let (pt, ct) = (hx(&e["plaintext"]), hx(&e["ciphertext"]));
                    let mut got = vec![0u8; pt.len()];
                    ks.fill(&mut got);
                    let got: Vec<u8> = got.iter().zip(&pt).map(|(a, b)| a ^ b).collect();
                    assert_eq!(got, ct, "{} on {backend:?}", e["id"]);
                }
            }
        }
    }
}

#[test]
fn zuc256_macs() {
    let v = vectors();
    for backend in backends() {
        for e in v["zuc256_mac"].as_array().unwrap() {
            for iv in zuc256_ivs(e) {
                let tag = zuc::zuc256_mac(
                    &hx(&e["key"]),
                    &iv,
                    &hx(&e["message"]),
                    int(&e["tag_bits"]) as u32,
                    Some(int(&e["length_bits"])),
                )
                .unwrap();
                assert_eq!(tag, hx(&e["tag"]), "{} on {backend:?}", e["id"]);
            }
        }
    }
}

#[test]
fn chunked_keystream_equals_one_shot() {
    for _ in backends() {
        let mut one = Keystream::zuc128(&[1; 16], &[2; 16]).unwrap();
        let mut whole = vec![0u8; 5000];
        one.fill(&mut whole);
        let mut parts = Keystream::zuc128(&[1; 16], &[2; 16]).unwrap();
        let mut got = Vec::new();
        for (i, n) in [1usize, 3, 4, 5, 0, 7, 1024, 2, 1, 1, 1000].iter().cycle().enumerate() {
            if got.len() >= whole.len() {
                break;
            }
            let n = (*n + i % 3).min(whole.len() - got.len());
            let mut buf = vec![0u8; n];
            parts.fill(&mut buf);
            got.extend_from_slice(&buf);
        }
        assert_eq!(got, whole);
    }
}

#[test]
fn bad_parameters_are_rejected() {
    let k = [0u8; 16];
    let err = |r: shangmi::Result<Vec<u8>>| match r {
        Err(e) => e.to_string(),
        Ok(_) => panic!("accepted"),
    };
    assert_eq!(err(zuc::eea3(&k, 0, 40, 0, b"x", None)), "bearer must be < 32, got 40");
    assert_eq!(err(zuc::eea3(&k, 0, 1, 2, b"x", None)), "direction must be 0 or 1, got 2");
    assert_eq!(err(zuc::eea3(&k, 1 << 32, 1, 0, b"x", None)), "count must be in [0, 2^32), got 4294967296");
    assert_eq!(err(zuc::eea3(&k, 0, 1, 0, b"x", Some(9))), "length_bits must be in [0, 8 * len(data)] = [0, 8], got 9");
    assert_eq!(err(zuc::eea3(&k[..15], 0, 1, 0, b"x", None)), "128-EEA3 key must be 16 bytes, got 15");
    assert!(zuc::eia3(&k, 0, 32, 0, b"x", None).is_err());
    assert!(zuc::zuc256_mac(&[0; 32], &[0; 23], b"", 48, None).is_err());
    let mut iv = [0u8; 25];
    iv[20] = 64;
    assert_eq!(
        err(zuc::zuc256_mac(&[0; 32], &iv, b"", 32, None)),
        "ZUC-256 IV byte 20 must be a 6-bit value (< 64), got 64"
    );
    assert!(Keystream::zuc256(&[0; 32], &[0; 24]).is_err());
    assert!(Keystream::zuc128(&[0; 16], &[0; 15]).is_err());
}

// --- Many messages at once -------------------------------------------------

/// The first `bits` bits of `b`, the rest of the last byte cleared.
fn truncate(b: &[u8], bits: u64) -> Vec<u8> {
    let mut v = b[..(bits as usize).div_ceil(8)].to_vec();
    if !bits.is_multiple_of(8) {
        *v.last_mut().unwrap() &= 0xffu8 << (8 - bits % 8);
    }
    v
}

struct Owned {
    key: Vec<u8>,
    count: u64,
    bearer: u32,
    direction: u32,
    data: Vec<u8>,
    length_bits: Option<u64>,
}

impl Owned {
    fn msg(&self) -> Message<'_> {
        Message {
            key: &self.key,
            count: self.count,
            bearer: self.bearer,
            direction: self.direction,
            data: &self.data,
            length_bits: self.length_bits,
        }
    }
}

fn from_vector(e: &Value, data_field: &str) -> Owned {
    Owned {
        key: hx(&e["key"]),
        count: count(&e["count"]),
        bearer: int(&e["bearer"]) as u32,
        direction: int(&e["direction"]) as u32,
        data: hx(&e[data_field]),
        length_bits: Some(int(&e["length_bits"])),
    }
}

/// Every vector three times over (more messages than one group of lanes,
/// in an order the grouping by length reshuffles).
#[test]
fn eea3_many_vectors() {
    let v = vectors();
    let entries = v["eea3"].as_array().unwrap();
    let owned: Vec<(Owned, Vec<u8>)> = (0..3)
        .flat_map(|_| entries.iter())
        .map(|e| {
            let o = from_vector(e, "plaintext");
            let want = truncate(&hx(&e["ciphertext"]), o.length_bits.unwrap());
            (o, want)
        })
        .collect();
    assert!(owned.len() > 8);
    let msgs: Vec<Message<'_>> = owned.iter().map(|(o, _)| o.msg()).collect();
    for backend in backends() {
        let got = zuc::eea3_many(&msgs).unwrap();
        for (i, (g, (_, want))) in got.iter().zip(&owned).enumerate() {
            assert_eq!(g, want, "message {i} on {backend:?}");
        }
    }
}

#[test]
fn eia3_many_vectors() {
    let v = vectors();
    let entries = v["eia3"].as_array().unwrap();
    let owned: Vec<(Owned, Vec<u8>)> =
        (0..3).flat_map(|_| entries.iter()).map(|e| (from_vector(e, "message"), hx(&e["mac"]))).collect();
    assert!(owned.len() > 8);
    let msgs: Vec<Message<'_>> = owned.iter().map(|(o, _)| o.msg()).collect();
    for backend in backends() {
        let got = zuc::eia3_many(&msgs).unwrap();
        for (i, (g, (_, want))) in got.iter().zip(&owned).enumerate() {
            assert_eq!(g.to_vec(), *want, "message {i} on {backend:?}");
        }
    }
}

/// Messages of assorted lengths (empty, shorter than a word, block edges,
/// several KiB, bit lengths not a multiple of 8) and parameters, each
/// compared with the single-message function.
#[test]
fn many_equals_one_at_a_time() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let sizes = [0usize, 1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 1000, 4096, 5003, 70, 2, 300, 64 * 16 + 1, 9, 33];
    let owned: Vec<Owned> = sizes
        .iter()
        .map(|&n| {
            let data: Vec<u8> = (0..n).map(|_| next() as u8).collect();
            let length_bits = match next() % 3 {
                0 => None,
                _ if n == 0 => Some(0),
                _ => Some(next() % (8 * n as u64 + 1)),
            };
            Owned {
                key: (0..16).map(|_| next() as u8).collect(),
                count: next() & 0xffff_ffff,
                bearer: (next() % 32) as u32,
                direction: (next() % 2) as u32,
                data,
                length_bits,
            }
        })
        .collect();
    let msgs: Vec<Message<'_>> = owned.iter().map(Owned::msg).collect();
    for backend in backends() {
        let cts = zuc::eea3_many(&msgs).unwrap();
        let macs = zuc::eia3_many(&msgs).unwrap();
        for (i, m) in msgs.iter().enumerate() {
            let want = zuc::eea3(m.key, m.count, m.bearer, m.direction, m.data, m.length_bits).unwrap();
            assert_eq!(cts[i], want, "EEA3 message {i} ({} bytes) on {backend:?}", m.data.len());
            let want = zuc::eia3(m.key, m.count, m.bearer, m.direction, m.data, m.length_bits).unwrap();
            assert_eq!(macs[i], want, "EIA3 message {i} ({} bytes) on {backend:?}", m.data.len());
        }
    }
}

#[test]
fn many_rejects_bad_messages_by_index() {
    let key = [0u8; 16];
    let data = [0u8; 8];
    let good = Message { key: &key, count: 1, bearer: 2, direction: 0, data: &data, length_bits: None };
    assert!(zuc::eea3_many(&[]).unwrap().is_empty());
    assert!(zuc::eia3_many(&[]).unwrap().is_empty());
    let cases = [
        (Message { bearer: 32, ..good }, "message 2: bearer must be < 32, got 32"),
        (Message { key: &key[..15], ..good }, "message 2: 128-EEA3 key must be 16 bytes, got 15"),
        (
            Message { length_bits: Some(65), ..good },
            "message 2: length_bits must be in [0, 8 * len(data)] = [0, 64], got 65",
        ),
        (Message { count: 1 << 32, ..good }, "message 2: count must be in [0, 2^32), got 4294967296"),
        (Message { direction: 2, ..good }, "message 2: direction must be 0 or 1, got 2"),
    ];
    for (bad, want) in cases {
        let err = zuc::eea3_many(&[good, good, bad]).unwrap_err();
        assert!(err.to_string().contains(want), "{err} should contain {want:?}");
        let err = zuc::eia3_many(&[good, good, bad]).unwrap_err();
        assert!(err.to_string().contains("message 2: "), "{err}");
    }
}
