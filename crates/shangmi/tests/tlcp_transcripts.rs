//! TLCP transcripts recorded against real peers (Tongsuo, GmSSL), replayed
//! byte for byte without them.
//!
//! A transcript (`tests/vectors/tlcp/transcripts/*.json`) is one connection
//! between shangmi and a peer: the suite, shangmi's role, the seed of the
//! deterministic generator that supplied every random byte shangmi drew
//! (SM3 in counter mode, [`crate::transcript::seeded`]), the clock (the recording time, so the
//! certificates are judged as they were), the certificate files used
//! (`tests/vectors/tlcp`), and the bytes each side sent, in order, as
//! flights. Replay ([`replay_recorded_transcripts`]) builds a fresh
//! connection with the same configuration and seed, feeds it the peer's
//! flights exactly as they were received, and requires every byte shangmi
//! writes to equal the recorded bytes, the handshake to complete with the
//! recorded suite, and the application data to decrypt to the recorded
//! plaintext. So CI checks shangmi against a real peer's bytes: any change
//! to what shangmi sends to that peer (message forms, key derivation, the
//! order of random draws) fails here, and the transcripts of that peer
//! must then be re-recorded with `python scripts/tlcp_record.py --out
//! tests/vectors/tlcp/transcripts [--gmssl BIN]`.
//!
//! [`record_transcript`] is the recorder (ignored; the script runs it): it
//! speaks to a live peer over TCP with the same driver the replay uses.
//! The application exchange: as client, shangmi sends [`CLIENT_MESSAGE`],
//! reads the echo and sends close_notify (with an HTTP-only peer, `"http":
//! true`, it sends [`HTTP_GET`] and reads until the peer closes); as server, shangmi echoes what it
//! receives until the peer's close_notify, then sends its own.

use crate::transcript::{
    assert_every_suite_in_both_roles, env, first_peer_flight_changed_diverges, flights_json, hex_of, identity, load,
    pki_dir, record_flights, recorder_socket, replay_flights, roots, seeded, transcripts_in, App, HOST,
};
use shangmi::tls::{CipherSuite, ClientConfig, Connection, ServerConfig, VerifyMode};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What shangmi's client sends after the handshake (the peer echoes it).
const CLIENT_MESSAGE: &[u8] = b"shangmi TLCP transcript: client to server\n";
/// What shangmi's client sends to an HTTP-only peer (GmSSL's `-www`).
const HTTP_GET: &[u8] = b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n";

fn transcripts_dir() -> PathBuf {
    pki_dir().join("transcripts")
}

fn suite_by_name(name: &str) -> CipherSuite {
    CipherSuite::ALL.into_iter().find(|s| s.name() == name).unwrap_or_else(|| panic!("unknown suite {name}"))
}

/// The files each configuration uses (written into the transcript).
const SERVER_FILES: [&str; 5] =
    ["server-sign-chain.pem", "server-sign.key.pem", "server-enc.pem", "server-enc.key.pem", "root-ca.pem"];
const CLIENT_FILES: [&str; 5] =
    ["client-sign-chain.pem", "client-sign.key.pem", "client-enc.pem", "client-enc.key.pem", "root-ca.pem"];

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
                    let [sc, sk, ec, ek, _] = CLIENT_FILES;
                    c.sign_identity = Some(identity(sc, sk));
                    c.enc_identity = Some(identity(ec, ek));
                }
                Connection::client_with_rng(Arc::new(c), Some(HOST), rng).expect("client")
            }
            "server" => {
                let [sc, sk, ec, ek, _] = SERVER_FILES;
                let mut s = ServerConfig::new(identity(sc, sk), identity(ec, ek));
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
    let http = t["http"].as_bool() == Some(true);
    let mut app = App::new(if http { HTTP_GET } else { CLIENT_MESSAGE }, http);
    replay_flights(&what, &t, &mut conn, &mut app);
    assert_eq!(conn.cipher_suite(), Some(setup.suite), "{what}");
}

/// Every recorded transcript replays byte for byte, and every suite is
/// covered in both roles against at least one peer.
#[test]
fn replay_recorded_transcripts() {
    let paths = transcripts_in(&transcripts_dir());
    for p in &paths {
        replay(p);
    }
    assert_every_suite_in_both_roles(&paths, &CipherSuite::ALL.map(|s| s.name()));
}

/// One byte changed in a recorded peer flight: replay refuses it (an
/// error or different output), never panics or accepts silently.
#[test]
fn a_changed_peer_byte_is_noticed() {
    let t = load(&transcripts_dir().join("tongsuo-server-ECC_SM4_GCM_SM3.json"));
    // Change the last byte of the first peer flight (inside ClientHello's
    // body): the server's answer (its Finished at the latest) must differ
    // from the recorded one or the handshake must fail.
    let mut conn = Setup::of(&t).connection(&hex_of(&t, "seed"));
    let diverged = first_peer_flight_changed_diverges(&t, &mut conn, |b| *b.last_mut().unwrap() ^= 1);
    assert!(diverged, "a changed ClientHello byte went unnoticed");
}

/// The recorder: one connection with a live peer, written as a transcript.
/// Environment: `SHANGMI_TLCP_OUT` (the JSON file), `SHANGMI_TLCP_ROLE`
/// (`client`: connect to `SHANGMI_TLCP_PEER`, host:port; `server`: listen
/// on 127.0.0.1, write the port to `SHANGMI_TLCP_PORT_FILE`, take one
/// connection), `SHANGMI_TLCP_SUITE` (standard name), `SHANGMI_TLCP_PEER_NAME`,
/// `SHANGMI_TLCP_SEED` (hex), `SHANGMI_TLCP_CLIENT_CERTS` (`1`: the client
/// presents its certificates, the server requires them), `SHANGMI_TLCP_HTTP`
/// (`1`: the client sends an HTTP GET and reads until the peer closes).
#[test]
#[ignore = "needs a live peer; run by scripts/tlcp_record.py"]
fn record_transcript() {
    let out = PathBuf::from(env("SHANGMI_TLCP_OUT").expect("SHANGMI_TLCP_OUT"));
    let role = env("SHANGMI_TLCP_ROLE").expect("SHANGMI_TLCP_ROLE");
    let suite = suite_by_name(&env("SHANGMI_TLCP_SUITE").expect("SHANGMI_TLCP_SUITE"));
    let peer_name = env("SHANGMI_TLCP_PEER_NAME").unwrap_or_else(|| "peer".into());
    let seed = hex::decode(env("SHANGMI_TLCP_SEED").expect("SHANGMI_TLCP_SEED")).expect("seed hex");
    let client_certs = env("SHANGMI_TLCP_CLIENT_CERTS").as_deref() == Some("1");
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
    let setup = Setup { role: role.clone(), suite, client_certs, now };
    let mut sock = recorder_socket("SHANGMI_TLCP", &role);
    let mut conn = setup.connection(&seed);
    let http = env("SHANGMI_TLCP_HTTP").as_deref() == Some("1");
    let mut app = App::new(if http { HTTP_GET } else { CLIENT_MESSAGE }, http);
    let (flights, error) = record_flights(&mut sock, &mut conn, &mut app, &role);
    assert!(error.is_none(), "{peer_name} {role} {suite:?}: {error:?}");
    assert!(!conn.is_handshaking(), "{peer_name} {role} {suite:?}: handshake incomplete");
    let files = if role == "client" { &CLIENT_FILES } else { &SERVER_FILES };
    let t = serde_json::json!({
        "peer": peer_name,
        "role": role,
        "suite": suite.name(),
        "client_certs": client_certs,
        "http": http,
        "now": now,
        "seed": hex::encode(&seed),
        "rng": "SM3(seed || counter as u64 big-endian), counter from 0, concatenated",
        "server_name": HOST,
        "files": if role == "client" && !client_certs { &files[4..] } else { &files[..] },
        "sent": hex::encode(&app.sent),
        "received": hex::encode(&app.received),
        "flights": flights_json(&flights),
    });
    std::fs::write(&out, serde_json::to_string_pretty(&t).unwrap() + "\n").expect("write transcript");
    eprintln!("recorded {} ({} flights)", out.display(), flights.len());
}
