//! TLS 1.3 (RFC 8998) transcripts recorded against real peers (Tongsuo,
//! OpenSSL 4), replayed byte for byte without them.
//!
//! A transcript (`tests/vectors/tls13/transcripts/*.json`) is one connection
//! between shangmi and a peer: the suite, shangmi's role, whether client
//! certificates were used, the seed of the deterministic generator that
//! supplied every random byte shangmi drew (SM3 in counter mode,
//! [`transcript::seeded`]: rustls's hello random, legacy session ID and ticket fields,
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

use crate::transcript::{
    assert_every_suite_in_both_roles, drain, env, first_peer_flight_changed_diverges, flights_json, hex_of, identity,
    load, record_flights, recorder_socket, replay_flights, repo, roots, seeded, transcripts_in, App, HOST,
};
use shangmi::tls::tls13::{CipherSuite, ClientConfig, Connection, ServerConfig};
use shangmi::tls::VerifyMode;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What shangmi's client sends after the handshake (the peer answers it).
const CLIENT_MESSAGE: &[u8] = b"shangmi TLS 1.3 transcript: client to server\n";

fn transcripts_dir() -> PathBuf {
    repo().join("tests/vectors/tls13/transcripts")
}

fn suite_by_name(name: &str) -> CipherSuite {
    CipherSuite::ALL.into_iter().find(|s| s.name() == name).unwrap_or_else(|| panic!("unknown suite {name}"))
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
    fn of(t: &serde_json::Value) -> Setup {
        Setup {
            role: t["role"].as_str().expect("role").to_string(),
            suite: suite_by_name(t["suite"].as_str().expect("suite")),
            client_certs: t["client_certs"].as_bool().expect("client_certs"),
            now: t["now"].as_i64().expect("now"),
        }
    }

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

fn replay(path: &Path) {
    let t = load(path);
    let what = path.file_name().unwrap().to_string_lossy().into_owned();
    let setup = Setup::of(&t);
    let mut conn = setup.connection(&hex_of(&t, "seed"));
    let mut app = App::new(CLIENT_MESSAGE, false);
    replay_flights(&what, &t, &mut conn, &mut app);
    assert_eq!(conn.protocol_version(), Some("TLSv1.3"), "{what}");
    assert_eq!(conn.cipher_suite(), Some(setup.suite), "{what}");
    assert_eq!(conn.peer_certificates().is_empty(), setup.role == "server" && !setup.client_certs, "{what}");
}

/// Every recorded transcript replays byte for byte, and every suite is
/// covered in both roles.
#[test]
fn replay_recorded_transcripts() {
    let paths = transcripts_in(&transcripts_dir());
    for p in &paths {
        replay(p);
    }
    assert_every_suite_in_both_roles(&paths, &CipherSuite::ALL.map(|s| s.name()));
}

/// One byte changed in each recorded transcript's first peer flight (the
/// peer's hello): replay refuses it (an error, or other output than
/// recorded), never panics or accepts silently.
#[test]
fn a_changed_peer_byte_is_noticed() {
    for path in transcripts_in(&transcripts_dir()) {
        let t = load(&path);
        let mut conn = Setup::of(&t).connection(&hex_of(&t, "seed"));
        // The last byte of the hello: inside its extensions, so the
        // transcript hash (and every later secret) differs.
        let diverged = first_peer_flight_changed_diverges(&t, &mut conn, |bytes| {
            let hello_end = 5 + usize::from(u16::from_be_bytes([bytes[3], bytes[4]]));
            bytes[hello_end - 1] ^= 1;
        });
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
    let mut sock = recorder_socket("SHANGMI_TLS13", &role);
    let mut conn = setup.connection(&seed);
    let mut app = App::new(CLIENT_MESSAGE, false);
    let (flights, error) = record_flights(&mut sock, &mut conn, &mut app, &role);
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
        "flights": flights_json(&flights),
    });
    std::fs::write(&out, serde_json::to_string_pretty(&t).unwrap() + "\n").expect("write transcript");
    eprintln!("recorded {} ({} flights)", out.display(), flights.len());
}
