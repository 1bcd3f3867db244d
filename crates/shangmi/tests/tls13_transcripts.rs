//! TLS 1.3 (RFC 8998) transcripts recorded against real peers (Tongsuo,
//! OpenSSL 4), replayed byte for byte without them.
//!
//! A transcript (`tests/vectors/tls13/transcripts/*.json`) is one connection
//! between shangmi and a peer: the suite, shangmi's role, whether client
//! certificates were used, the seed of the deterministic generator that
//! supplied every random byte shangmi drew (SM3 in counter mode,
//! [`seeded`]: rustls's hello random, legacy session ID and ticket fields,
//! the curveSM2 key shares, CertificateVerify's hedging seeds, the ticket
//! key and nonces), the clock (the recording time: certificates are judged
//! and tickets dated as they were), the certificate files
//! (`tests/vectors/tlcp`), and the bytes each side sent, in order, as
//! flights. Replay ([`replay_recorded_transcripts`]) builds a fresh
//! connection with the same configuration and seed, feeds it the peer's
//! flights exactly as they were received, and requires every byte shangmi
//! writes to equal the recorded bytes, the handshake to complete with the
//! recorded suite, and the application data to decrypt to the recorded
//! plaintext. Any change to what shangmi sends (rustls's message forms and
//! extension order included: a rustls upgrade may need a re-record) fails
//! here; re-record with `python scripts/tls13_record.py --out
//! tests/vectors/tls13/transcripts --tongsuo BIN`.
//!
//! [`record_transcript`] is the recorder (ignored; the script runs it). The
//! application exchange: as client, shangmi sends [`CLIENT_MESSAGE`], reads
//! the peer's answer and sends close_notify; as server, shangmi echoes what
//! it receives until the peer's close_notify (or end of stream), then sends
//! its own.

use shangmi::encoding::sm2::private_key_from_pem;
use shangmi::sm3;
use shangmi::tls::tlcp::RngFn;
use shangmi::tls::tls13::{CipherSuite, ClientConfig, Connection, ServerConfig};
use shangmi::tls::{Identity, VerifyMode};
use shangmi::x509::Certificate;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What shangmi's client sends after the handshake (the peer answers it).
const CLIENT_MESSAGE: &[u8] = b"shangmi TLS 1.3 transcript: client to server\n";
/// The host name the client asks for and checks (the PKI's server SAN).
const HOST: &str = "localhost";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pki_dir() -> PathBuf {
    repo().join("tests/vectors/tlcp")
}

fn transcripts_dir() -> PathBuf {
    repo().join("tests/vectors/tls13/transcripts")
}

/// The deterministic generator: the stream SM3(seed ‖ 0) ‖ SM3(seed ‖ 1) ‖
/// ..., counters as 8-byte big-endian integers.
fn seeded(seed: &[u8]) -> RngFn {
    let seed = seed.to_vec();
    let mut counter = 0u64;
    let mut block = [0u8; 32];
    let mut used = 32;
    Box::new(move |buf: &mut [u8]| {
        for b in buf.iter_mut() {
            if used == 32 {
                block = sm3::hash(&[&seed[..], &counter.to_be_bytes()].concat());
                counter += 1;
                used = 0;
            }
            *b = block[used];
            used += 1;
        }
    })
}

fn suite_by_name(name: &str) -> CipherSuite {
    CipherSuite::ALL.into_iter().find(|s| s.name() == name).unwrap_or_else(|| panic!("unknown suite {name}"))
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(pki_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A certificate file's chain (leaf first) and a plain PKCS#8 key file.
fn identity(chain: &str, key: &str) -> Identity {
    let certs = Certificate::from_pem_bundle(&read(chain)).expect("certificates");
    let key = private_key_from_pem(&read(key), None).expect("key");
    Identity::new(certs, key).expect("identity")
}

fn roots() -> Vec<Certificate> {
    Certificate::from_pem_bundle(&read("root-ca.pem")).expect("root")
}

/// The files each configuration uses (written into the transcript).
const SERVER_FILES: [&str; 3] = ["server-sign-chain.pem", "server-sign.key.pem", "root-ca.pem"];
const CLIENT_FILES: [&str; 3] = ["client-sign-chain.pem", "client-sign.key.pem", "root-ca.pem"];

/// The connection's role and settings, as recorded.
#[derive(Clone, Debug)]
struct Setup {
    role: String,
    suite: CipherSuite,
    client_certs: bool,
    now: i64,
}

impl Setup {
    fn connection(&self, seed: &[u8]) -> Connection {
        let rng = seeded(seed);
        match self.role.as_str() {
            "client" => {
                let mut c = ClientConfig::new();
                c.suites = vec![self.suite];
                c.roots = roots();
                c.now = Some(self.now);
                if self.client_certs {
                    let [chain, key, _] = CLIENT_FILES;
                    c.sign_identity = Some(identity(chain, key));
                }
                Connection::client_with_rng(Arc::new(c), Some(HOST), rng).expect("client")
            }
            "server" => {
                let [chain, key, _] = SERVER_FILES;
                let mut s = ServerConfig::new(identity(chain, key));
                s.suites = vec![self.suite];
                s.roots = roots();
                s.now = Some(self.now);
                s.verify_mode = if self.client_certs { VerifyMode::Required } else { VerifyMode::None };
                Connection::server_with_rng(Arc::new(s), rng).expect("server")
            }
            r => panic!("unknown role {r}"),
        }
    }
}

/// The application side of a connection, the same in recording and replay.
#[derive(Default)]
struct App {
    sent: Vec<u8>,
    received: Vec<u8>,
    done: bool,
}

impl App {
    /// Moves plaintext after each step; `eof` is the peer's end of stream.
    fn step(&mut self, conn: &mut Connection, role: &str, eof: bool) {
        if conn.is_handshaking() || self.done {
            return;
        }
        let mut buf = [0u8; 4096];
        let mut got = Vec::new();
        while conn.plaintext_available() > 0 {
            let n = conn.read_plaintext(&mut buf).expect("read plaintext");
            if n == 0 {
                break;
            }
            got.extend_from_slice(&buf[..n]);
        }
        self.received.extend_from_slice(&got);
        if role == "client" {
            if self.sent.is_empty() {
                conn.write_plaintext(CLIENT_MESSAGE).expect("write");
                self.sent.extend_from_slice(CLIENT_MESSAGE);
            } else if self.received.len() >= CLIENT_MESSAGE.len() || conn.peer_closed() || eof {
                conn.send_close_notify();
                self.done = true;
            }
        } else {
            if !got.is_empty() {
                conn.write_plaintext(&got).expect("echo");
                self.sent.extend_from_slice(&got);
            }
            if conn.peer_closed() || eof {
                conn.send_close_notify();
                self.done = true;
            }
        }
    }
}

/// Everything `conn` has to send now.
fn drain(conn: &mut Connection) -> Vec<u8> {
    let mut out = Vec::new();
    while conn.wants_write() {
        if conn.write_tls(&mut out) == 0 {
            break;
        }
    }
    out
}

fn feed(conn: &mut Connection, mut data: &[u8]) -> shangmi::Result<()> {
    while !data.is_empty() {
        let n = conn.read_tls(data)?;
        assert!(n > 0, "read_tls took nothing");
        data = &data[n..];
        conn.process_new_packets()?;
    }
    Ok(())
}

fn hex_of(v: &serde_json::Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap_or_else(|| panic!("{key} missing"))).expect("hex")
}

fn setup_of(t: &serde_json::Value) -> Setup {
    Setup {
        role: t["role"].as_str().expect("role").to_string(),
        suite: suite_by_name(t["suite"].as_str().expect("suite")),
        client_certs: t["client_certs"].as_bool().expect("client_certs"),
        now: t["now"].as_i64().expect("now"),
    }
}

fn load(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).expect("JSON")
}

fn replay(path: &Path) {
    let t = load(path);
    let what = path.file_name().unwrap().to_string_lossy().into_owned();
    let setup = setup_of(&t);
    let mut conn = setup.connection(&hex_of(&t, "seed"));
    let mut app = App::default();
    let flights = t["flights"].as_array().expect("flights");
    for (i, f) in flights.iter().enumerate() {
        let bytes = hex_of(f, "hex");
        match f["from"].as_str() {
            Some("shangmi") => {
                let out = drain(&mut conn);
                assert!(out == bytes, "{what}: flight {i}: shangmi wrote other bytes than recorded");
            }
            Some("peer") => {
                feed(&mut conn, &bytes).unwrap_or_else(|e| panic!("{what}: flight {i}: {e}"));
                app.step(&mut conn, &setup.role, false);
            }
            // The peer closed the TCP stream.
            Some("peer_eof") => app.step(&mut conn, &setup.role, true),
            other => panic!("{what}: flight {i}: from {other:?}"),
        }
    }
    assert!(drain(&mut conn).is_empty(), "{what}: shangmi would send more than was recorded");
    assert!(!conn.is_handshaking(), "{what}: handshake incomplete");
    assert_eq!(conn.protocol_version(), Some("TLSv1.3"), "{what}");
    assert_eq!(conn.cipher_suite(), Some(setup.suite), "{what}");
    assert_eq!(conn.peer_certificates().is_empty(), setup.role == "server" && !setup.client_certs, "{what}");
    assert_eq!(app.sent, hex_of(&t, "sent"), "{what}: plaintext sent");
    assert_eq!(app.received, hex_of(&t, "received"), "{what}: plaintext received");
    assert!(!app.received.is_empty(), "{what}: no application data");
}

fn transcripts() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .expect("transcripts folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    paths
}

/// Every recorded transcript replays byte for byte, and every suite is
/// covered in both roles.
#[test]
fn replay_recorded_transcripts() {
    let paths = transcripts();
    assert!(!paths.is_empty(), "no transcripts recorded");
    let mut seen = std::collections::BTreeSet::new();
    for p in &paths {
        replay(p);
        let t = load(p);
        seen.insert((t["suite"].as_str().unwrap().to_string(), t["role"].as_str().unwrap().to_string()));
    }
    for s in CipherSuite::ALL {
        for role in ["client", "server"] {
            assert!(seen.contains(&(s.name().to_string(), role.to_string())), "no transcript for {s:?} as {role}");
        }
    }
}

/// One byte changed in each recorded transcript's first peer flight (the
/// peer's hello): replay refuses it (an error, or other output than
/// recorded), never panics or accepts silently.
#[test]
fn a_changed_peer_byte_is_noticed() {
    for path in transcripts() {
        let t = load(&path);
        let mut conn = setup_of(&t).connection(&hex_of(&t, "seed"));
        let mut diverged = false;
        let mut first = true;
        for f in t["flights"].as_array().unwrap() {
            let mut bytes = hex_of(f, "hex");
            if f["from"] == "peer_eof" {
                break;
            }
            if f["from"] == "peer" {
                if first {
                    // The last byte of the hello: inside its extensions, so
                    // the transcript hash (and every later secret) differs.
                    let hello_end = 5 + usize::from(u16::from_be_bytes([bytes[3], bytes[4]]));
                    bytes[hello_end - 1] ^= 1;
                    first = false;
                }
                if feed(&mut conn, &bytes).is_err() {
                    diverged = true;
                    break;
                }
            } else if drain(&mut conn) != bytes {
                diverged = true;
                break;
            }
        }
        assert!(diverged, "{}: a changed hello byte went unnoticed", path.display());
    }
}

/// The same seed gives the same bytes; another seed other bytes (the
/// injected generator reaches everything random in the client's hello).
#[test]
fn the_seed_decides_the_hello() {
    let setup = Setup { role: "client".into(), suite: CipherSuite::Sm4GcmSm3, client_certs: false, now: 1_796_600_000 };
    let a = drain(&mut setup.connection(b"seed one"));
    let b = drain(&mut setup.connection(b"seed one"));
    let c = drain(&mut setup.connection(b"seed two"));
    assert_eq!(a, b);
    assert_ne!(a, c);
    // Random (32), legacy session ID (32) and the key share (65) all differ.
    let differing = a.iter().zip(&c).filter(|(x, y)| x != y).count();
    assert!(differing >= 120, "only {differing} bytes differ");
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The recorder: one connection with a live peer, written as a transcript.
/// Environment: `SHANGMI_TLS13_OUT` (the JSON file), `SHANGMI_TLS13_ROLE`
/// (`client`: connect to `SHANGMI_TLS13_PEER`, host:port; `server`: listen
/// on 127.0.0.1, write the port to `SHANGMI_TLS13_PORT_FILE`, take one
/// connection), `SHANGMI_TLS13_SUITE` (standard name),
/// `SHANGMI_TLS13_PEER_NAME`, `SHANGMI_TLS13_NOTE` (what was special, kept
/// in the transcript), `SHANGMI_TLS13_SEED` (hex),
/// `SHANGMI_TLS13_CLIENT_CERTS` (`1`: the client presents its certificate,
/// the server requires one).
#[test]
#[ignore = "needs a live peer; run by scripts/tls13_record.py"]
fn record_transcript() {
    let out = PathBuf::from(env("SHANGMI_TLS13_OUT").expect("SHANGMI_TLS13_OUT"));
    let role = env("SHANGMI_TLS13_ROLE").expect("SHANGMI_TLS13_ROLE");
    let suite = suite_by_name(&env("SHANGMI_TLS13_SUITE").expect("SHANGMI_TLS13_SUITE"));
    let peer_name = env("SHANGMI_TLS13_PEER_NAME").unwrap_or_else(|| "peer".into());
    let seed = hex::decode(env("SHANGMI_TLS13_SEED").expect("SHANGMI_TLS13_SEED")).expect("seed hex");
    let client_certs = env("SHANGMI_TLS13_CLIENT_CERTS").as_deref() == Some("1");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let setup = Setup { role: role.clone(), suite, client_certs, now };
    let mut sock = match role.as_str() {
        "client" => {
            let peer = env("SHANGMI_TLS13_PEER").expect("SHANGMI_TLS13_PEER");
            let mut s = None;
            for _ in 0..100 {
                if let Ok(c) = std::net::TcpStream::connect(&peer) {
                    s = Some(c);
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            s.expect("connect")
        }
        _ => {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
            let port_file = env("SHANGMI_TLS13_PORT_FILE").expect("SHANGMI_TLS13_PORT_FILE");
            std::fs::write(port_file, l.local_addr().unwrap().port().to_string()).unwrap();
            l.accept().expect("accept").0
        }
    };
    sock.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    let mut conn = setup.connection(&seed);
    let mut app = App::default();
    let mut flights: Vec<(&str, Vec<u8>)> = Vec::new();
    let mut error = None;
    loop {
        let b = drain(&mut conn);
        if !b.is_empty() {
            sock.write_all(&b).expect("send");
            flights.push(("shangmi", b));
        }
        if app.done {
            break;
        }
        let mut buf = vec![0u8; 1 << 16];
        let n = match sock.read(&mut buf) {
            Ok(n) => n,
            Err(e) => {
                error = Some(format!("read: {e}"));
                break;
            }
        };
        if n == 0 {
            flights.push(("peer_eof", Vec::new()));
            app.step(&mut conn, &role, true);
            let b = drain(&mut conn);
            if !b.is_empty() {
                let _ = sock.write_all(&b);
                flights.push(("shangmi", b));
            }
            break;
        }
        flights.push(("peer", buf[..n].to_vec()));
        if let Err(e) = feed(&mut conn, &buf[..n]) {
            error = Some(e.to_string());
            let b = drain(&mut conn);
            if !b.is_empty() {
                let _ = sock.write_all(&b);
            }
            break;
        }
        app.step(&mut conn, &role, false);
    }
    assert!(error.is_none(), "{peer_name} {role} {suite:?}: {error:?}");
    assert!(!conn.is_handshaking(), "{peer_name} {role} {suite:?}: handshake incomplete");
    assert!(!app.received.is_empty(), "{peer_name} {role} {suite:?}: no application data");
    let files: &[&str] = match (role.as_str(), client_certs) {
        ("client", false) => &CLIENT_FILES[2..],
        ("client", true) => &CLIENT_FILES,
        _ => &SERVER_FILES,
    };
    let t = serde_json::json!({
        "peer": peer_name,
        "note": env("SHANGMI_TLS13_NOTE").unwrap_or_default(),
        "role": role,
        "suite": suite.name(),
        "client_certs": client_certs,
        "now": now,
        "seed": hex::encode(&seed),
        "rng": "SM3(seed || counter as u64 big-endian), counter from 0, concatenated",
        "server_name": HOST,
        "files": files,
        "sent": hex::encode(&app.sent),
        "received": hex::encode(&app.received),
        "flights": flights.iter().map(|(from, b)| serde_json::json!({"from": from, "hex": hex::encode(b)})).collect::<Vec<_>>(),
    });
    std::fs::write(&out, serde_json::to_string_pretty(&t).unwrap() + "\n").expect("write transcript");
    eprintln!("recorded {} ({} flights)", out.display(), flights.len());
}
