//! What the TLCP and TLS 1.3 benches share: the test PKI they load, the
//! samples they collect, and the reading of GmSSL's timing program.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// `tests/vectors/tlcp`: the certificates and keys both benches load.
pub fn vectors() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors/tlcp")
}

pub fn read(name: &str) -> Vec<u8> {
    let p = vectors().join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Per-operation samples of each figure, by name, in first-seen order.
#[derive(Default)]
pub struct Samples {
    pub order: Vec<String>,
    pub by: BTreeMap<String, Vec<f64>>,
}

impl Samples {
    pub fn add(&mut self, name: &str, ns: f64) {
        if !self.by.contains_key(name) {
            self.order.push(name.to_string());
        }
        self.by.entry(name.to_string()).or_default().push(ns);
    }

    pub fn median(&self, name: &str) -> Option<f64> {
        let mut v = self.by.get(name)?.clone();
        v.sort_by(f64::total_cmp);
        Some(v[v.len() / 2])
    }

    pub fn min(&self, name: &str) -> Option<f64> {
        self.by.get(name)?.iter().copied().reduce(f64::min)
    }
}

/// One round of GmSSL's timing program; its lines as figures named like ours.
pub fn gmssl_round(path: &str, samples: &mut Samples, handshakes: usize, recs: usize) {
    let out = std::process::Command::new(path)
        .arg(vectors())
        .args(["-handshakes", &handshakes.to_string(), "-records", &recs.to_string()])
        .output()
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    assert!(out.status.success(), "{path} failed: {}", String::from_utf8_lossy(&out.stderr));
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut words = line.split_whitespace();
        let kind = words.next().unwrap_or("");
        let kv: BTreeMap<&str, &str> = words.filter_map(|w| w.split_once('=')).collect();
        let num = |k: &str| kv.get(k).and_then(|v| v.parse::<f64>().ok());
        let suite = kv.get("suite").copied().unwrap_or("?");
        match kind {
            "handshake" => {
                samples.add(&format!("gmssl handshake {suite} client"), num("client_ns").unwrap());
                samples.add(&format!("gmssl handshake {suite} server"), num("server_ns").unwrap());
            }
            "record" => {
                samples.add(&format!("gmssl record {suite} encrypt"), num("encrypt_ns").unwrap());
                samples.add(&format!("gmssl record {suite} decrypt"), num("decrypt_ns").unwrap());
            }
            _ => {}
        }
    }
}
