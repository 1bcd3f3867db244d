//! TLCP timings, in memory, one thread:
//! `cargo bench -p shangmi --bench tlcp -- [rounds] [--phases] [--gmssl PATH]`.
//!
//! Full handshakes between [`Connection::client`] and [`Connection::server`]
//! (each one's `write_tls` output shuttled into the other's `read_tls` and
//! `process_new_packets`) for ECC_SM4_GCM_SM3, ECC_SM4_CBC_SM3 and
//! ECDHE_SM4_GCM_SM3, the client side and the server side timed apart with
//! this thread's CPU time around each side's calls. ECC handshakes run
//! without client certificates; ECDHE ones with the client's two
//! certificates, which the server validates (`VerifyMode::Required`), as
//! GmSSL's server does with `-cert_request -cacert`. Then 16 KiB records
//! over an established connection: the encrypt side (`write_plaintext` +
//! `write_tls`) and the decrypt side (`read_tls` + `process_new_packets` +
//! `read_plaintext`) apart, for GCM and CBC: one record per write, and 16
//! per write (a 256 KiB `sendall`, whose records are sealed and opened side
//! by side; GmSSL's figure is per record either way).
//!
//! Rounds interleave every figure (A, B, C, ... A, B, C, ...); min and
//! median per operation are printed. `--phases` also times the pieces a
//! handshake is made of (SM2 operations, certificate path validation, the
//! PRF, one record's seal and open), to say where a handshake's time goes.
//! `--only TEXT` keeps the figures whose name contains TEXT (for a
//! profiler: `--only "handshake ECC_SM4_GCM_SM3"`). `--gmssl PATH` (or
//! `SHANGMI_GMSSL_TLS_BENCH`) runs the GmSSL timing program of bench/tls/
//! (an absolute path: cargo runs benches in the crate's folder) between
//! our rounds and prints the ratios of medians (same run, one core per
//! side).
//!
//! The PKI is tests/vectors/tlcp (made by Tongsuo; see its README).

use shangmi::encoding::sm2::private_key_from_pem;
use shangmi::sm2::{PrivateKey, DEFAULT_UID};
use shangmi::sm3;
use shangmi::sm4::{cbc_encrypt_many, Sm4};
use shangmi::tls::tlcp::testing::{prf, RecordCipher};
use shangmi::tls::{CipherSuite, ClientConfig, Connection, Identity, ServerConfig, VerifyMode};
use shangmi::x509::{verify_chain, Certificate, Options};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Arc;

const RECORD: usize = 16384;
/// Records per write in the bulk rows (a 256 KiB `sendall`).
const BULK: usize = 16;
const BULK_SUFFIX: &str = ", 256 KiB writes";

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

fn identity(chain: &[&str], key_file: &str) -> Identity {
    Identity::new(certs(chain), key(key_file)).unwrap()
}

/// The benchmark's configurations for one suite.
struct Setup {
    suite: CipherSuite,
    client: Arc<ClientConfig>,
    server: Arc<ServerConfig>,
}

fn setup(suite: CipherSuite) -> Setup {
    let roots = certs(&["root-ca.pem"]);
    let mut client = ClientConfig::new();
    client.suites = vec![suite];
    client.roots = roots.clone();
    let mut server = ServerConfig::new(
        identity(&["server-sign.pem", "chain.pem"], "server-sign.key.pem"),
        identity(&["server-enc.pem"], "server-enc.key.pem"),
    );
    server.suites = vec![suite];
    if suite.is_ecdhe() {
        client.sign_identity = Some(identity(&["client-sign.pem", "chain.pem"], "client-sign.key.pem"));
        client.enc_identity = Some(identity(&["client-enc.pem"], "client-enc.key.pem"));
        server.roots = roots;
        server.verify_mode = VerifyMode::Required;
    }
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

/// One full handshake; returns the client's and the server's CPU time and
/// the established pair.
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

/// `n` records of 16 KiB client to server, `per_write` records' worth of
/// plaintext per `write_plaintext` call (and the wire bytes of as many per
/// `read_tls`); the encrypt and decrypt sides' CPU time.
fn records(c: &mut Connection, sv: &mut Connection, n: usize, per_write: usize) -> (u64, u64) {
    let data = vec![0x5au8; RECORD * per_write];
    let mut got = vec![0u8; RECORD * per_write];
    let mut wire = Vec::with_capacity((RECORD + 128) * per_write);
    let (mut enc, mut dec) = (0u64, 0u64);
    for _ in 0..n / per_write {
        let t = now_ns();
        c.write_plaintext(&data).unwrap();
        wire.clear();
        c.write_tls(&mut wire);
        let t1 = now_ns();
        feed(sv, &wire);
        let mut have = 0;
        while have < got.len() {
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

/// What a record layer that sealed several CBC records at once would pay
/// per record: HMAC-SM3 of `n` records side by side (`sm3::hash_many`'s
/// lanes, inner and outer hashes) and SM4-CBC of the `n` padded records
/// side by side (`sm4::cbc_encrypt_many`), copies included. An estimate for
/// the notes, not a record format: the MAC input is laid out as TLCP's
/// (ipad block, sequence number, header, data).
fn batched_cbc_seal(sm4: &Sm4, mac_key: &[u8; 32], data: &[u8], n: usize) -> Vec<Vec<u8>> {
    let mut ipad = [0x36u8; 64];
    let mut opad = [0x5cu8; 64];
    for i in 0..32 {
        ipad[i] ^= mac_key[i];
        opad[i] ^= mac_key[i];
    }
    let inner: Vec<Vec<u8>> = (0..n as u64)
        .map(|seq| {
            let mut m = Vec::with_capacity(64 + 13 + data.len());
            m.extend_from_slice(&ipad);
            m.extend_from_slice(&seq.to_be_bytes());
            m.extend_from_slice(&[23, 1, 1]);
            m.extend_from_slice(&(data.len() as u16).to_be_bytes());
            m.extend_from_slice(data);
            m
        })
        .collect();
    let refs: Vec<&[u8]> = inner.iter().map(|m| m.as_slice()).collect();
    let ih = sm3::hash_many(&refs);
    let outer: Vec<Vec<u8>> = ih.iter().map(|h| [&opad[..], &h[..]].concat()).collect();
    let refs: Vec<&[u8]> = outer.iter().map(|m| m.as_slice()).collect();
    let macs = sm3::hash_many(&refs);
    let pad = 16 - (data.len() + 32) % 16;
    let bodies: Vec<Vec<u8>> = macs
        .iter()
        .map(|mac| {
            let mut b = Vec::with_capacity(data.len() + 32 + pad);
            b.extend_from_slice(data);
            b.extend_from_slice(mac);
            b.resize(data.len() + 32 + pad, (pad - 1) as u8);
            b
        })
        .collect();
    let iv = [9u8; 16];
    let items: Vec<(&[u8], &[u8])> = bodies.iter().map(|b| (&iv[..], b.as_slice())).collect();
    cbc_encrypt_many(sm4, &items, false).unwrap()
}

/// Consumes a result (some are `Copy`, so `drop` would be a no-op).
fn sink<T>(_: T) {}

fn phases(rounds: usize) {
    let sign_key = key("server-sign.key.pem");
    let enc_key = key("server-enc.key.pem");
    let e = sign_key.public_key().z(DEFAULT_UID).unwrap();
    let sig = sign_key.sign_digest(&e).unwrap();
    let pms = [7u8; 48];
    let ct = enc_key.public_key().encrypt(&pms).unwrap();
    // What a per-configuration cache of prepared keys would use.
    let prepared_sign = sign_key.public_key().prepare();
    let prepared_enc = enc_key.public_key().prepare();
    let sign_cert = certs(&["server-sign.pem"]).remove(0);
    let enc_cert = certs(&["server-enc.pem"]).remove(0);
    let chain = certs(&["chain.pem"]);
    let roots = certs(&["root-ca.pem"]);
    let der = read("server-sign.pem");
    let sign_der = Certificate::from_pem_bundle(&der).unwrap()[0].to_der().to_vec();
    let at = 1_900_000_000; // 2030, inside the PKI's validity
    let gcm = RecordCipher::gcm(&[1; 16], &[2; 4]).unwrap();
    let cbc = RecordCipher::cbc(&[3; 32], &[4; 16]).unwrap();
    let data = vec![0x5au8; RECORD];
    let gcm_rec = gcm.seal(1, 23, &data, &[0; 16]).unwrap();
    let sm4 = Sm4::new(&[4; 16]);
    let batch = 16;
    // The estimate does the record layer's work: its records open.
    for (seq, ct) in batched_cbc_seal(&sm4, &[3; 32], &data, batch).iter().enumerate() {
        let fragment = [&[9u8; 16][..], ct].concat();
        assert_eq!(cbc.open(seq as u64, 23, &fragment).unwrap(), data, "batched CBC estimate: record {seq}");
    }
    let cbc_rec = cbc.seal(1, 23, &data, &[9; 16]).unwrap();
    type Op<'a> = (&'static str, usize, Box<dyn FnMut() + 'a>);
    let mut ops: Vec<Op> = vec![
        ("sm2 sign_digest", 200, Box::new(|| sink(black_box(sign_key.sign_digest(&e).unwrap())))),
        ("sm2 verify_digest", 200, Box::new(|| sign_key.public_key().verify_digest(&e, &sig).unwrap())),
        ("sm2 prepare (public key table)", 50, Box::new(|| sink(black_box(sign_key.public_key().prepare())))),
        ("sm2 verify_digest (prepared key)", 200, Box::new(|| prepared_sign.verify_digest(&e, &sig).unwrap())),
        ("sm2 encrypt 48 B (prepared key)", 200, Box::new(|| sink(black_box(prepared_enc.encrypt(&pms).unwrap())))),
        ("sm2 encrypt 48 B", 200, Box::new(|| sink(black_box(enc_key.public_key().encrypt(&pms).unwrap())))),
        ("sm2 decrypt 48 B", 200, Box::new(|| sink(black_box(enc_key.decrypt(&ct).unwrap())))),
        ("x509 parse server-sign", 2000, Box::new(|| sink(black_box(Certificate::from_der(&sign_der).unwrap())))),
        (
            "x509 verify_chain (sign cert)",
            100,
            Box::new(|| {
                let o = Options::at(at);
                sink(black_box(verify_chain(&sign_cert, &chain, &roots, &[], o).unwrap()))
            }),
        ),
        (
            "x509 verify_chain (enc cert)",
            100,
            Box::new(|| {
                let o = Options::at(at);
                sink(black_box(verify_chain(&enc_cert, &chain, &roots, &[], o).unwrap()))
            }),
        ),
        (
            "prf master (48 B)",
            2000,
            Box::new(|| {
                let mut out = [0u8; 48];
                prf(&pms, b"master secret", &[1; 64], &mut out);
                black_box(out);
            }),
        ),
        ("record seal GCM 16 KiB", 500, Box::new(|| sink(black_box(gcm.seal(1, 23, &data, &[0; 16]).unwrap())))),
        ("record open GCM 16 KiB", 500, Box::new(|| sink(black_box(gcm.open(1, 23, &gcm_rec).unwrap())))),
        ("record seal CBC 16 KiB", 500, Box::new(|| sink(black_box(cbc.seal(1, 23, &data, &[9; 16]).unwrap())))),
        ("record open CBC 16 KiB", 500, Box::new(|| sink(black_box(cbc.open(1, 23, &cbc_rec).unwrap())))),
        (
            "HMAC-SM3 16 KiB (sm3::HmacSm3)",
            500,
            Box::new(|| {
                let mut h = sm3::HmacSm3::new(&[3; 32]);
                h.update(&data);
                sink(black_box(h.finalize()));
            }),
        ),
        (
            "CBC seal, 16 records at once (est.)",
            30,
            Box::new(|| sink(black_box(batched_cbc_seal(&sm4, &[3; 32], &data, batch)))),
        ),
    ];
    let mut samples = Samples::default();
    let per_call: BTreeMap<&str, f64> = [("CBC seal, 16 records at once (est.)", batch as f64)].into_iter().collect();
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
            let per = per_call.get(name).copied().unwrap_or(1.0);
            samples.add(name, (now_ns() - t) as f64 / (*n as f64 * per));
        }
    }
    println!("\nphases ({CLOCK}, µs per operation; per record for the batched estimate)");
    for name in &samples.order {
        println!(
            "  {name:<34} min {:9.2}  median {:9.2}",
            samples.min(name).unwrap() / 1e3,
            samples.median(name).unwrap() / 1e3
        );
    }
}

fn main() {
    // One core: batch calls (sm3::hash_many in the estimate) stay on this thread.
    shangmi::par::set_num_threads(1).unwrap();
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let rounds: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(7);
    let gmssl = args
        .iter()
        .position(|a| a == "--gmssl")
        .and_then(|i| args.get(i + 1).cloned())
        .or_else(|| std::env::var("SHANGMI_GMSSL_TLS_BENCH").ok().filter(|s| !s.is_empty()));
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1).cloned());
    let wanted = |name: &str| only.as_deref().is_none_or(|o| name.contains(o));
    let suites = [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3, CipherSuite::EcdheSm4GcmSm3];
    let setups: Vec<Setup> = suites.into_iter().map(setup).collect();
    let (handshakes, recs) = (20usize, 16 * BULK);

    // Warm-up (lazy tables, caches), then interleaved rounds.
    for s in &setups {
        let (_, _, mut c, mut sv) = handshake(s);
        records(&mut c, &mut sv, 32, 16);
    }
    let mut samples = Samples::default();
    for _ in 0..rounds {
        for s in &setups {
            let name = s.suite.name();
            if !wanted(&format!("handshake {name} client")) && !wanted(&format!("handshake {name} server")) {
                continue;
            }
            let (mut ct, mut st) = (0, 0);
            for _ in 0..handshakes {
                let (c, sv, _, _) = handshake(s);
                ct += c;
                st += sv;
            }
            samples.add(&format!("handshake {name} client"), ct as f64 / handshakes as f64);
            samples.add(&format!("handshake {name} server"), st as f64 / handshakes as f64);
        }
        for s in &setups[..2] {
            let name = s.suite.name();
            if !wanted(&format!("record {name} encrypt")) && !wanted(&format!("record {name} decrypt")) {
                continue;
            }
            for per_write in [1, BULK] {
                let (_, _, mut c, mut sv) = handshake(s);
                let (enc, dec) = records(&mut c, &mut sv, recs, per_write);
                let bulk = if per_write > 1 { BULK_SUFFIX } else { "" };
                samples.add(&format!("record {name} encrypt{bulk}"), enc as f64 / recs as f64);
                samples.add(&format!("record {name} decrypt{bulk}"), dec as f64 / recs as f64);
            }
        }
        if let Some(g) = &gmssl {
            gmssl_round(g, &mut samples, handshakes, recs);
        }
    }

    println!(
        "TLCP in memory, one thread, {CLOCK}; {rounds} rounds of {handshakes} handshakes / {recs} records of 16 KiB"
    );
    for name in samples.order.iter().filter(|n| !n.starts_with("gmssl ")) {
        let (min, med) = (samples.min(name).unwrap(), samples.median(name).unwrap());
        let rate = if name.starts_with("record") {
            format!("{:8.1} MB/s", RECORD as f64 / med * 1e3)
        } else {
            format!("{:8.0} /s  ", 1e9 / med)
        };
        // GmSSL's tls_send and tls_recv take one record per call whatever
        // the write size, so its one-record figure is its bulk figure too.
        let ratio = match samples.median(&format!("gmssl {}", name.trim_end_matches(BULK_SUFFIX))) {
            Some(g) => format!("  GmSSL {:9.2} µs  ratio {:5.2}x", g / 1e3, g / med),
            None => String::new(),
        };
        println!("  {name:<36} min {:9.2} µs  median {:9.2} µs  {rate}{ratio}", min / 1e3, med / 1e3);
    }
    if args.iter().any(|a| a == "--phases") {
        phases(rounds);
    }
}
