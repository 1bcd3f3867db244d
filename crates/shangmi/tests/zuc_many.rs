//! The multi-message API (eea3_many / eia3_many) against the standard's
//! vectors and against the single-message functions on the portable
//! backend, on every backend this CPU can run.

use serde_json::Value;
use shangmi::zuc::{self, Backend, Message};

fn vectors() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/zuc.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read zuc.json")).expect("parse zuc.json")
}

fn hx(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().expect("hex string")).expect("valid hex")
}

fn int(v: &Value) -> u64 {
    v.as_u64().expect("integer")
}

fn count(v: &Value) -> u64 {
    u64::from_str_radix(v.as_str().expect("count hex"), 16).expect("count")
}

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
    for backend in Backend::available() {
        let got = zuc::eea3_many_with_backend(backend, &msgs).unwrap();
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
    for backend in Backend::available() {
        let got = zuc::eia3_many_with_backend(backend, &msgs).unwrap();
        for (i, (g, (_, want))) in got.iter().zip(&owned).enumerate() {
            assert_eq!(g.to_vec(), *want, "message {i} on {backend:?}");
        }
    }
}

/// Messages of assorted lengths (empty, shorter than a word, block edges,
/// several KiB, bit lengths not a multiple of 8) and parameters, each
/// compared with the single-message function on the portable backend.
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
    let p = Backend::Portable;
    for backend in Backend::available() {
        let cts = zuc::eea3_many_with_backend(backend, &msgs).unwrap();
        let macs = zuc::eia3_many_with_backend(backend, &msgs).unwrap();
        for (i, m) in msgs.iter().enumerate() {
            let want = zuc::eea3_with_backend(p, m.key, m.count, m.bearer, m.direction, m.data, m.length_bits).unwrap();
            assert_eq!(cts[i], want, "EEA3 message {i} ({} bytes) on {backend:?}", m.data.len());
            let want = zuc::eia3_with_backend(p, m.key, m.count, m.bearer, m.direction, m.data, m.length_bits).unwrap();
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
            "message 2: length_bits must be at most 8 * len(data) = 64, got 65",
        ),
        (Message { count: 1 << 32, ..good }, "message 2: count must be < 2^32, got 4294967296"),
        (Message { direction: 2, ..good }, "message 2: direction must be 0 or 1, got 2"),
    ];
    for (bad, want) in cases {
        let err = zuc::eea3_many(&[good, good, bad]).unwrap_err();
        assert!(err.to_string().contains(want), "{err} should contain {want:?}");
        let err = zuc::eia3_many(&[good, good, bad]).unwrap_err();
        assert!(err.to_string().contains("message 2: "), "{err}");
    }
}
