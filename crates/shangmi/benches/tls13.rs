//! TLS 1.3 (RFC 8998) timings, in memory, one thread:
//! `cargo bench -p shangmi --bench tls13 -- [rounds] [--phases] [--only TEXT] [--gmssl PATH]`.
//!
//! Full handshakes between `tls13::Connection::client` and `::server`
//! (each one's `write_tls` output shuttled into the other's `read_tls` and
//! `process_new_packets`) for TLS_SM4_GCM_SM3 and TLS_SM4_CCM_SM3, curveSM2,
//! sm2sig_sm3, without client certificates (the client validates the
//! server's chain and host name), the client side and the server side timed
//! apart with this thread's CPU time around each side's calls. The server
//! sends its default two session tickets (part of its cost, as GmSSL's
//! server sends its ticket). Then 16 KiB records over an established
//! connection: the encrypt side (`write_plaintext` + `write_tls`) and the
//! decrypt side (`read_tls` + `process_new_packets` + `read_plaintext`)
//! apart.
//!
//! Rounds interleave every figure; min and median per operation are
//! printed. `--phases` times the shangmi primitives a handshake calls
//! through the provider and the verifier (curveSM2 key generation and
//! ECDH, the CertificateVerify signature and its check, the certificate
//! path validation, HKDF-SM3, SM3, a handshake record's seal and open) and
//! adds them up with their counts per handshake, so the rest of a
//! handshake's time is rustls's own (state machine, message encoding,
//! buffers) and the glue. `--gmssl PATH` (or `SHANGMI_GMSSL_TLS13_BENCH`)
//! runs bench/tls/gmssl_tls13_bench (an absolute path: cargo runs benches
//! in the crate's folder) between our rounds and prints the ratios of
//! medians (same run, one core per side).
//!
//! The PKI is tests/vectors/tlcp (made by Tongsuo; see its README).

use shangmi::encoding::sm2::private_key_from_pem;
use shangmi::sm2::PrivateKey;
use shangmi::sm3;
use shangmi::sm4::Gcm;
use shangmi::tls::tls13::{self, CipherSuite, ClientConfig, Connection, ServerConfig, TLS13_SM2_ID};
use shangmi::tls::Identity;
use shangmi::x509::{verify_chain, Certificate, Options};
use std::hint::black_box;
use std::sync::Arc;

const RECORD: usize = 16384;

mod common;
use common::thread_ns as now_ns;
use common::tls::{gmssl_round, read, Samples};

const CLOCK: &str =
    if cfg!(all(target_os = "linux", target_pointer_width = "64")) { "thread CPU time" } else { "wall time" };

fn certs(names: &[&str]) -> Vec<Certificate> {
    names.iter().flat_map(|n| Certificate::from_pem_bundle(&read(n)).unwrap()).collect()
}

fn key(name: &str) -> PrivateKey {
    private_key_from_pem(&read(name), None).unwrap()
}

/// The benchmark's configurations for one suite.
struct Setup {
    suite: CipherSuite,
    client: Arc<ClientConfig>,
    server: Arc<ServerConfig>,
}

fn setup(suite: CipherSuite) -> Setup {
    let mut client = ClientConfig::new();
    client.suites = vec![suite];
    client.roots = certs(&["root-ca.pem"]);
    let id = Identity::new(certs(&["server-sign.pem", "chain.pem"]), key("server-sign.key.pem")).unwrap();
    let mut server = ServerConfig::new(id);
    server.suites = vec![suite];
    Setup { suite, client: Arc::new(client), server: Arc::new(server) }
}

/// Feeds `data` to `conn`, processing as it goes.
fn feed(conn: &mut Connection, data: &[u8]) {
    let mut off = 0;
    while off < data.len() {
        off += conn.read_tls(&data[off..]).unwrap();
        conn.process_new_packets().unwrap();
    }
}

/// One full handshake (tickets included); returns the client's and the
/// server's CPU time and the established pair.
fn handshake(s: &Setup) -> (u64, u64, Connection, Connection) {
    let (mut ct, mut st) = (0u64, 0u64);
    let t = now_ns();
    let mut c = Connection::client(s.client.clone(), Some("localhost")).unwrap();
    let t1 = now_ns();
    let mut sv = Connection::server(s.server.clone()).unwrap();
    let t2 = now_ns();
    ct += t1 - t;
    st += t2 - t1;
    let mut buf = Vec::new();
    for _ in 0..16 {
        let t = now_ns();
        buf.clear();
        c.write_tls(&mut buf);
        let t1 = now_ns();
        feed(&mut sv, &buf);
        buf.clear();
        sv.write_tls(&mut buf);
        let t2 = now_ns();
        feed(&mut c, &buf);
        let t3 = now_ns();
        ct += (t1 - t) + (t3 - t2);
        st += t2 - t1;
        if !c.is_handshaking() && !sv.is_handshaking() && !c.wants_write() && !sv.wants_write() {
            assert_eq!(c.cipher_suite(), Some(s.suite));
            return (ct, st, c, sv);
        }
    }
    panic!("{}: the handshake did not complete", s.suite.name());
}

/// `n` records of 16 KiB client to server; the encrypt and decrypt sides'
/// CPU time.
fn records(c: &mut Connection, sv: &mut Connection, n: usize) -> (u64, u64) {
    let data = vec![0x5au8; RECORD];
    let mut got = vec![0u8; RECORD];
    let mut wire = Vec::with_capacity(RECORD + 128);
    let (mut enc, mut dec) = (0u64, 0u64);
    for _ in 0..n {
        let t = now_ns();
        c.write_plaintext(&data).unwrap();
        wire.clear();
        c.write_tls(&mut wire);
        let t1 = now_ns();
        feed(sv, &wire);
        let mut have = 0;
        while have < RECORD {
            let k = sv.read_plaintext(&mut got[have..]).unwrap();
            assert!(k > 0, "record lost");
            have += k;
        }
        let t2 = now_ns();
        enc += t1 - t;
        dec += t2 - t1;
    }
    black_box(&got);
    (enc, dec)
}

/// Consumes a result (some are `Copy`, so `drop` would be a no-op).
fn sink<T>(_: T) {}

/// The shangmi primitives of one handshake, timed alone, and their sum per
/// side next to the handshake's median: the rest is rustls and the glue.
/// Counts per handshake (RFC 8446 §7.1 with SHA-256 replaced by SM3):
/// - both sides: one curveSM2 key generation and one ECDH; 3 HKDF-Extract
///   and 12 HKDF-Expand-Label calls for the schedule (Derive-Secret ×5,
///   traffic keys and IVs ×8 less the ones `expand_block` merges: counted
///   as 15 HMAC-SM3 calls of short input, each `hkdf` below being 2),
///   2 Finished HMACs, about 10 transcript-hash snapshots (SM3 of a
///   few-hundred-byte prefix: counted as 10 SM3 of 1 KiB);
/// - client: parse the 2 certificates, look the list up among the chains
///   its configuration validated already (SM3 over the anchors and the
///   certificates sent, about 2 KiB: counted as 2 SM3 of 1 KiB; the path
///   validation itself, 2 SM2 verifications, runs on the first handshake
///   only and is printed for reference), check CertificateVerify (1 SM2
///   verification),
///   open 4 handshake records (EE..Finished in 1 record, 2 tickets in 1:
///   counted as 2 GCM opens of 1.5 KiB) and seal 1;
/// - server: sign CertificateVerify (1 SM2 signature), seal 2 records,
///   open 1, 2 tickets (2 GCM seals of ~100 B, 2 HKDF-Expand-Label).
fn phases(rounds: usize, hs: &Samples) {
    let sign_key = key("server-sign.key.pem");
    let msg = [[0x20u8; 64].as_slice(), b"TLS 1.3, server CertificateVerify\0", &[7u8; 32]].concat();
    let sig = sign_key.sign(&msg, TLS13_SM2_ID).unwrap();
    let peer = PrivateKey::generate().unwrap();
    let peer_share = peer.public_key().to_bytes(false);
    let leaf = certs(&["server-sign.pem"]).remove(0);
    let leaf_der = leaf.to_der().to_vec();
    let chain = certs(&["chain.pem"]);
    let roots = certs(&["root-ca.pem"]);
    let at = 1_900_000_000; // 2030, inside the PKI's validity
    let gcm = Gcm::new(&[1; 16], 16).unwrap();
    let small = vec![0x16u8; 1536];
    let small_ct = gcm.encrypt(&[2; 12], &[23, 3, 3, 6, 16], &small).unwrap();
    let kib = vec![0x33u8; 1024];
    type Op<'a> = (&'static str, usize, Box<dyn FnMut() + 'a>);
    let mut ops: Vec<Op> = vec![
        ("curveSM2 key generation", 200, Box::new(|| sink(black_box(PrivateKey::generate().unwrap())))),
        ("curveSM2 ECDH (tls13::ecdh_x)", 200, Box::new(|| sink(black_box(tls13::ecdh_x(&sign_key, &peer_share))))),
        ("sm2sig_sm3 sign (CertificateVerify)", 200, Box::new(|| sink(black_box(sign_key.sign(&msg, TLS13_SM2_ID))))),
        (
            "sm2sig_sm3 verify (CertificateVerify)",
            200,
            Box::new(|| sign_key.public_key().verify(&msg, TLS13_SM2_ID, &sig).unwrap()),
        ),
        ("x509 parse (one certificate)", 2000, Box::new(|| sink(black_box(Certificate::from_der(&leaf_der).unwrap())))),
        (
            "x509 verify_chain (server chain)",
            100,
            Box::new(|| sink(black_box(verify_chain(&leaf, &chain, &roots, &[], Options::at(at)).unwrap()))),
        ),
        (
            "HKDF-SM3 extract+expand (2 HMACs)",
            2000,
            Box::new(|| sink(black_box(tls13::testing::hkdf_sm3(&[1; 32], &[2; 32], b"tls13 c hs traffic", 32)))),
        ),
        ("SM3 of 1 KiB (transcript hash)", 2000, Box::new(|| sink(black_box(sm3::hash(&kib))))),
        (
            "SM4-GCM seal 1.5 KiB (handshake record)",
            2000,
            Box::new(|| sink(black_box(gcm.encrypt(&[2; 12], &[23, 3, 3, 6, 16], &small).unwrap()))),
        ),
        (
            "SM4-GCM open 1.5 KiB (handshake record)",
            2000,
            Box::new(|| sink(black_box(gcm.decrypt(&[2; 12], &[23, 3, 3, 6, 16], &small_ct).unwrap()))),
        ),
    ];
    let mut samples = Samples::default();
    for (_, n, f) in ops.iter_mut() {
        for _ in 0..(*n / 10).max(1) {
            f();
        }
    }
    for _ in 0..rounds {
        for (name, n, f) in ops.iter_mut() {
            let t = now_ns();
            for _ in 0..*n {
                f();
            }
            samples.add(name, (now_ns() - t) as f64 / *n as f64);
        }
    }
    println!("\nphases ({CLOCK}, µs per operation)");
    for name in &samples.order {
        println!(
            "  {name:<42} min {:9.2}  median {:9.2}",
            samples.min(name).unwrap() / 1e3,
            samples.median(name).unwrap() / 1e3
        );
    }
    let m = |n: &str| samples.median(n).unwrap();
    let common = m("curveSM2 key generation")
        + m("curveSM2 ECDH (tls13::ecdh_x)")
        + 8.5 * m("HKDF-SM3 extract+expand (2 HMACs)")
        + 10.0 * m("SM3 of 1 KiB (transcript hash)");
    let client = common
        + 2.0 * m("x509 parse (one certificate)")
        + 2.0 * m("SM3 of 1 KiB (transcript hash)")
        + m("sm2sig_sm3 verify (CertificateVerify)")
        + 2.0 * m("SM4-GCM open 1.5 KiB (handshake record)")
        + m("SM4-GCM seal 1.5 KiB (handshake record)");
    let server = common
        + m("sm2sig_sm3 sign (CertificateVerify)")
        + 2.0 * m("SM4-GCM seal 1.5 KiB (handshake record)")
        + m("SM4-GCM open 1.5 KiB (handshake record)")
        + 2.0 * m("HKDF-SM3 extract+expand (2 HMACs)");
    println!("\nsplit of a TLS_SM4_GCM_SM3 handshake (medians, µs): shangmi's primitives vs the rest (rustls, glue)");
    for (side, prim) in [("client", client), ("server", server)] {
        if let Some(total) = hs.median(&format!("handshake TLS_SM4_GCM_SM3 {side}")) {
            println!(
                "  {side}: handshake {:8.2}  primitives {:8.2} ({:4.1}%)  rest {:8.2} ({:4.1}%)",
                total / 1e3,
                prim / 1e3,
                100.0 * prim / total,
                (total - prim) / 1e3,
                100.0 * (total - prim) / total
            );
        }
    }
}

fn main() {
    shangmi::par::set_num_threads(1).unwrap();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let rounds: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(7);
    let gmssl = args
        .iter()
        .position(|a| a == "--gmssl")
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var("SHANGMI_GMSSL_TLS13_BENCH").ok().filter(|s| !s.is_empty()));
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1).cloned());
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    let setups: Vec<Setup> = CipherSuite::ALL.into_iter().map(setup).collect();
    let (handshakes, recs) = (20usize, 200usize);

    for s in &setups {
        let (_, _, mut c, mut sv) = handshake(s);
        records(&mut c, &mut sv, 20);
    }
    let mut samples = Samples::default();
    for _ in 0..rounds {
        for s in &setups {
            let name = s.suite.name();
            if wanted(&format!("handshake {name} client")) || wanted(&format!("handshake {name} server")) {
                let (mut ct, mut st) = (0, 0);
                for _ in 0..handshakes {
                    let (c, sv, _, _) = handshake(s);
                    ct += c;
                    st += sv;
                }
                samples.add(&format!("handshake {name} client"), ct as f64 / handshakes as f64);
                samples.add(&format!("handshake {name} server"), st as f64 / handshakes as f64);
            }
            if wanted(&format!("record {name} encrypt")) || wanted(&format!("record {name} decrypt")) {
                let (_, _, mut c, mut sv) = handshake(s);
                let (enc, dec) = records(&mut c, &mut sv, recs);
                samples.add(&format!("record {name} encrypt"), enc as f64 / recs as f64);
                samples.add(&format!("record {name} decrypt"), dec as f64 / recs as f64);
            }
        }
        if let Some(g) = &gmssl {
            gmssl_round(g, &mut samples, handshakes, recs);
        }
    }

    println!(
        "TLS 1.3 in memory, one thread, {CLOCK}; {rounds} rounds of {handshakes} handshakes / {recs} records of 16 KiB"
    );
    for name in samples.order.iter().filter(|n| !n.starts_with("gmssl ")) {
        let (min, med) = (samples.min(name).unwrap(), samples.median(name).unwrap());
        let rate = if name.starts_with("record") {
            format!("{:8.1} MB/s", RECORD as f64 / med * 1e3)
        } else {
            format!("{:8.0} /s  ", 1e9 / med)
        };
        let ratio = match samples.median(&format!("gmssl {name}")) {
            Some(g) => format!("  GmSSL {:9.2} µs  ratio {:5.2}x", g / 1e3, g / med),
            None => String::new(),
        };
        println!("  {name:<36} min {:9.2} µs  median {:9.2} µs  {rate}{ratio}", min / 1e3, med / 1e3);
    }
    if args.iter().any(|a| a == "--phases") {
        phases(rounds, &samples);
    }
}
