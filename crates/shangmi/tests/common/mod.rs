//! The one loader for the Rust tests' data: files under the repository's
//! `tests/vectors/` (official vectors copied there with their provenance in
//! `tests/vectors/README.md`, Wycheproof files, OpenSSL-written formats),
//! hex fields, and Wycheproof test groups. A missing file, a field that is
//! not hex or a Wycheproof file without tests fails the test that asked,
//! naming the file or field, never silently.
//!
//! Each test binary includes this with `mod common;` and uses part of it.
#![allow(dead_code)]

// The constant-time harness (tests/ctgrind.rs); valgrind client requests are x86-64 code.
#[cfg(target_arch = "x86_64")]
pub mod ctgrind;

use std::path::PathBuf;

pub use serde_json::Value;

/// `tests/vectors/<rel>` in the repository.
pub fn path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors").join(rel)
}

/// The bytes of `tests/vectors/<rel>`.
pub fn read(rel: &str) -> Vec<u8> {
    std::fs::read(path(rel)).unwrap_or_else(|e| panic!("tests/vectors/{rel}: {e}"))
}

/// `tests/vectors/<rel>` parsed as JSON.
pub fn json(rel: &str) -> Value {
    serde_json::from_slice(&read(rel)).unwrap_or_else(|e| panic!("tests/vectors/{rel}: {e}"))
}

/// The bytes of a hex string (either case).
pub fn hex(s: &str) -> Vec<u8> {
    ::hex::decode(s).unwrap_or_else(|e| panic!("not hex ({e}): {s:?}"))
}

/// The bytes of a JSON hex string.
pub fn hexv(v: &Value) -> Vec<u8> {
    hex(v.as_str().unwrap_or_else(|| panic!("expected a hex string, got {v}")))
}

/// Field `key` of `v` as hex bytes.
pub fn hex_field(v: &Value, key: &str) -> Vec<u8> {
    match v.get(key) {
        Some(f) => hexv(f),
        None => panic!("missing field {key:?} in {v}"),
    }
}

/// Exactly `N` bytes.
pub fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
    v.try_into().unwrap_or_else(|_| panic!("expected {N} bytes, got {}", v.len()))
}

/// A JSON hex string of exactly `N` bytes.
pub fn hex_arr<const N: usize>(v: &Value) -> [u8; N] {
    arr(&hexv(v))
}

/// The entries of array `section` of `file` whose `"curve"` is `curve`;
/// none at all is a failure (a renamed curve must not skip the test).
pub fn on_curve(file: &Value, section: &str, curve: &str) -> Vec<Value> {
    let all = file[section].as_array().unwrap_or_else(|| panic!("no array {section:?}"));
    let out: Vec<Value> = all.iter().filter(|v| v["curve"] == curve).cloned().collect();
    assert!(!out.is_empty(), "no {curve} vectors in {section}");
    out
}

/// Every (group, test) pair of a Wycheproof file `tests/vectors/<rel>`
/// (schema: `testGroups[].tests[]`, each test with `tcId`, `result` and
/// `flags`); a file without tests is a failure.
pub fn wycheproof(rel: &str) -> Vec<(Value, Value)> {
    let d = json(rel);
    let groups = d["testGroups"].as_array().unwrap_or_else(|| panic!("{rel}: no testGroups"));
    let mut out = Vec::new();
    for g in groups {
        for t in g["tests"].as_array().unwrap_or_else(|| panic!("{rel}: a group without tests")) {
            out.push((g.clone(), t.clone()));
        }
    }
    assert!(!out.is_empty(), "{rel}: no tests");
    out
}

/// Wycheproof's verdict for one test: `Some(true)` valid, `Some(false)`
/// invalid, `None` acceptable (either outcome is allowed).
pub fn wycheproof_valid(test: &Value) -> Option<bool> {
    match test["result"].as_str() {
        Some("valid") => Some(true),
        Some("invalid") => Some(false),
        Some("acceptable") => None,
        other => panic!("tc {}: unknown result {other:?}", test["tcId"]),
    }
}

/// Whether a Wycheproof test carries `flag`.
pub fn has_flag(test: &Value, flag: &str) -> bool {
    test["flags"].as_array().is_some_and(|f| f.iter().any(|x| x == flag))
}

/// The tests' deterministic generator of arbitrary (not secret) data
/// (splitmix64: any seed, 0 and small ones included, starts well mixed),
/// so a failure replays from its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A position or count below `n` (the modulo bias is irrelevant here).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut out = [0u8; 32];
        for c in out.chunks_mut(8) {
            c.copy_from_slice(&self.next().to_be_bytes());
        }
        out
    }
}
