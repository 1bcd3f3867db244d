//! TLCP transcripts recorded against real peers (Tongsuo, GmSSL), replayed
//! byte for byte without them.
//!
//! A transcript (`tests/vectors/tlcp/transcripts/*.json`) is one connection
//! between shangmi and a peer: the suite, shangmi's role, the seed of the
//! deterministic generator that supplied every random byte shangmi drew
//! (SM3 in counter mode, [`seeded`]), the clock (the recording time, so the
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

use shangmi::encoding::sm2::private_key_from_pem;
use shangmi::sm3;
use shangmi::tls::tlcp::RngFn;
use shangmi::tls::{CipherSuite, ClientConfig, Connection, Identity, ServerConfig, VerifyMode};
use shangmi::x509::Certificate;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What shangmi's client sends after the handshake (the peer echoes it).
const CLIENT_MESSAGE: &[u8] = b"shangmi TLCP transcript: client to server\n";
/// What shangmi's client sends to an HTTP-only peer (GmSSL's `-www`).
const HTTP_GET: &[u8] = b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n";
/// The host name the client asks for and checks (the PKI's server SAN).
const HOST: &str = "localhost";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn pki_dir() -> PathBuf {
    repo().join("tests/vectors/tlcp")
}

fn transcripts_dir() -> PathBuf {
    pki_dir().join("transcripts")
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

/// The application side of a connection, the same in recording and replay.
#[derive(Default)]
struct App {
    http: bool,
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
            let msg = if self.http { HTTP_GET } else { CLIENT_MESSAGE };
            let echoed = !self.http && self.received.len() >= msg.len();
            if self.sent.is_empty() {
                conn.write_plaintext(msg).expect("write");
                self.sent.extend_from_slice(msg);
            } else if echoed || conn.peer_closed() || eof {
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

fn replay(path: &Path) {
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(path).unwrap()).expect("JSON");
    let what = path.file_name().unwrap().to_string_lossy().into_owned();
    let setup = Setup {
        role: t["role"].as_str().expect("role").to_string(),
        suite: suite_by_name(t["suite"].as_str().expect("suite")),
        client_certs: t["client_certs"].as_bool().expect("client_certs"),
        now: t["now"].as_i64().expect("now"),
    };
    let mut conn = setup.connection(&hex_of(&t, "seed"));
    let mut app = App { http: t["http"].as_bool() == Some(true), ..App::default() };
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
    assert_eq!(conn.cipher_suite(), Some(setup.suite), "{what}");
    assert_eq!(app.sent, hex_of(&t, "sent"), "{what}: plaintext sent");
    assert_eq!(app.received, hex_of(&t, "received"), "{what}: plaintext received");
    assert!(!app.received.is_empty(), "{what}: no application data");
}

/// Every recorded transcript replays byte for byte.
#[test]
fn replay_recorded_transcripts() {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(transcripts_dir())
        .expect("transcripts folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no transcripts recorded");
    for p in &paths {
        replay(p);
    }
    // Every suite in both roles against at least one peer.
    let mut seen = std::collections::BTreeSet::new();
    for p in &paths {
        let t: serde_json::Value = serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap();
        seen.insert((t["suite"].as_str().unwrap().to_string(), t["role"].as_str().unwrap().to_string()));
    }
    for s in CipherSuite::ALL {
        for role in ["client", "server"] {
            assert!(seen.contains(&(s.name().to_string(), role.to_string())), "no transcript for {s:?} as {role}");
        }
    }
}

/// One byte changed in a recorded peer flight: replay refuses it (an
/// error or different output), never panics or accepts silently.
#[test]
fn a_changed_peer_byte_is_noticed() {
    let path = transcripts_dir().join("tongsuo-server-ECC_SM4_GCM_SM3.json");
    if !path.exists() {
        return;
    }
    let t: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let setup = Setup {
        role: t["role"].as_str().unwrap().to_string(),
        suite: suite_by_name(t["suite"].as_str().unwrap()),
        client_certs: t["client_certs"].as_bool().unwrap(),
        now: t["now"].as_i64().unwrap(),
    };
    // Change the last byte of the first peer flight (inside ClientHello's
    // body): the server's answer (its Finished at the latest) must differ
    // from the recorded one or the handshake must fail.
    let mut conn = setup.connection(&hex_of(&t, "seed"));
    let mut diverged = false;
    let mut first = true;
    for f in t["flights"].as_array().unwrap() {
        let mut bytes = hex_of(f, "hex");
        if f["from"] == "peer_eof" {
            break;
        }
        if f["from"] == "peer" {
            if first {
                *bytes.last_mut().unwrap() ^= 1;
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
    assert!(diverged, "a changed ClientHello byte went unnoticed");
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
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
    let mut sock = match role.as_str() {
        "client" => {
            std::net::TcpStream::connect(env("SHANGMI_TLCP_PEER").expect("SHANGMI_TLCP_PEER")).expect("connect")
        }
        _ => {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
            let port_file = env("SHANGMI_TLCP_PORT_FILE").expect("SHANGMI_TLCP_PORT_FILE");
            std::fs::write(port_file, l.local_addr().unwrap().port().to_string()).unwrap();
            l.accept().expect("accept").0
        }
    };
    sock.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    let mut conn = setup.connection(&seed);
    let http = env("SHANGMI_TLCP_HTTP").as_deref() == Some("1");
    let mut app = App { http, ..App::default() };
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
        "flights": flights.iter().map(|(from, b)| serde_json::json!({"from": from, "hex": hex::encode(b)})).collect::<Vec<_>>(),
    });
    std::fs::write(&out, serde_json::to_string_pretty(&t).unwrap() + "\n").expect("write transcript");
    eprintln!("recorded {} ({} flights)", out.display(), flights.len());
}
