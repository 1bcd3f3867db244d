//! What the TLCP and TLS 1.3 transcript tests share (`tlcp_transcripts`,
//! `tls13_transcripts`): the deterministic generator, the test PKI's files,
//! the application side of a connection, the replay of recorded flights and
//! the recorder's loop against a live peer. The two connection types have
//! the same sans-I/O surface; [`Conn`] names it so one driver serves both.

use shangmi::encoding::sm2::private_key_from_pem;
use shangmi::sm3;
use shangmi::tls::tlcp::RngFn;
use shangmi::tls::Identity;
use shangmi::x509::Certificate;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The host name the client asks for and checks (the PKI's server SAN).
pub const HOST: &str = "localhost";

/// The sans-I/O surface both connection types offer.
pub trait Conn {
    fn write_tls(&mut self, out: &mut Vec<u8>) -> usize;
    fn wants_write(&self) -> bool;
    fn is_handshaking(&self) -> bool;
    fn read_tls(&mut self, data: &[u8]) -> shangmi::Result<usize>;
    fn process_new_packets(&mut self) -> shangmi::Result<()>;
    fn write_plaintext(&mut self, data: &[u8]) -> shangmi::Result<usize>;
    fn read_plaintext(&mut self, buf: &mut [u8]) -> shangmi::Result<usize>;
    fn plaintext_available(&self) -> usize;
    fn send_close_notify(&mut self);
    fn peer_closed(&self) -> bool;
}

macro_rules! conn_for {
    ($t:ty) => {
        impl Conn for $t {
            fn write_tls(&mut self, out: &mut Vec<u8>) -> usize {
                <$t>::write_tls(self, out)
            }
            fn wants_write(&self) -> bool {
                <$t>::wants_write(self)
            }
            fn is_handshaking(&self) -> bool {
                <$t>::is_handshaking(self)
            }
            fn read_tls(&mut self, data: &[u8]) -> shangmi::Result<usize> {
                <$t>::read_tls(self, data)
            }
            fn process_new_packets(&mut self) -> shangmi::Result<()> {
                <$t>::process_new_packets(self)
            }
            fn write_plaintext(&mut self, data: &[u8]) -> shangmi::Result<usize> {
                <$t>::write_plaintext(self, data)
            }
            fn read_plaintext(&mut self, buf: &mut [u8]) -> shangmi::Result<usize> {
                <$t>::read_plaintext(self, buf)
            }
            fn plaintext_available(&self) -> usize {
                <$t>::plaintext_available(self)
            }
            fn send_close_notify(&mut self) {
                <$t>::send_close_notify(self)
            }
            fn peer_closed(&self) -> bool {
                <$t>::peer_closed(self)
            }
        }
    };
}

conn_for!(shangmi::tls::Connection);
conn_for!(shangmi::tls::tls13::Connection);

pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The test PKI both protocols use (`tests/vectors/tlcp`).
pub fn pki_dir() -> PathBuf {
    repo().join("tests/vectors/tlcp")
}

/// The deterministic generator: the stream SM3(seed ‖ 0) ‖ SM3(seed ‖ 1) ‖
/// ..., counters as 8-byte big-endian integers.
pub fn seeded(seed: &[u8]) -> RngFn {
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

fn read(name: &str) -> Vec<u8> {
    std::fs::read(pki_dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A certificate file's chain (leaf first) and a plain PKCS#8 key file.
pub fn identity(chain: &str, key: &str) -> Identity {
    let certs = Certificate::from_pem_bundle(&read(chain)).expect("certificates");
    let key = private_key_from_pem(&read(key), None).expect("key");
    Identity::new(certs, key).expect("identity")
}

pub fn roots() -> Vec<Certificate> {
    Certificate::from_pem_bundle(&read("root-ca.pem")).expect("root")
}

pub fn hex_of(v: &serde_json::Value, key: &str) -> Vec<u8> {
    hex::decode(v[key].as_str().unwrap_or_else(|| panic!("{key} missing"))).expect("hex")
}

pub fn load(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).expect("JSON")
}

/// The JSON files of `dir`, sorted; at least one.
pub fn transcripts_in(dir: &Path) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("transcripts folder")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no transcripts recorded in {}", dir.display());
    paths
}

/// Every suite (by standard name) has a transcript in both roles.
pub fn assert_every_suite_in_both_roles(paths: &[PathBuf], suites: &[&str]) {
    let seen: BTreeSet<(String, String)> = paths
        .iter()
        .map(|p| {
            let t = load(p);
            (t["suite"].as_str().unwrap().to_string(), t["role"].as_str().unwrap().to_string())
        })
        .collect();
    for s in suites {
        for role in ["client", "server"] {
            assert!(seen.contains(&(s.to_string(), role.to_string())), "no transcript for {s} as {role}");
        }
    }
}

/// The application side of a connection, the same in recording and replay:
/// as client, send `message`, read the answer, send close_notify (with an
/// HTTP-only peer, `http`, read until the peer closes); as server, echo
/// what arrives until the peer's close_notify or end of stream.
pub struct App {
    pub message: &'static [u8],
    pub http: bool,
    pub sent: Vec<u8>,
    pub received: Vec<u8>,
    pub done: bool,
}

impl App {
    pub fn new(message: &'static [u8], http: bool) -> Self {
        App { message, http, sent: Vec::new(), received: Vec::new(), done: false }
    }

    /// Moves plaintext after each step; `eof` is the peer's end of stream.
    pub fn step(&mut self, conn: &mut impl Conn, role: &str, eof: bool) {
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
            let answered = !self.http && self.received.len() >= self.message.len();
            if self.sent.is_empty() {
                conn.write_plaintext(self.message).expect("write");
                self.sent.extend_from_slice(self.message);
            } else if answered || conn.peer_closed() || eof {
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
pub fn drain(conn: &mut impl Conn) -> Vec<u8> {
    let mut out = Vec::new();
    while conn.wants_write() {
        if conn.write_tls(&mut out) == 0 {
            break;
        }
    }
    out
}

pub fn feed(conn: &mut impl Conn, mut data: &[u8]) -> shangmi::Result<()> {
    while !data.is_empty() {
        let n = conn.read_tls(data)?;
        assert!(n > 0, "read_tls took nothing");
        data = &data[n..];
        conn.process_new_packets()?;
    }
    Ok(())
}

/// Replays transcript `t`'s flights through `conn`: shangmi's must come out
/// byte for byte, the peer's are fed in; then nothing more is to be sent,
/// the handshake is complete and the plaintext both ways is the recorded.
pub fn replay_flights(what: &str, t: &serde_json::Value, conn: &mut impl Conn, app: &mut App) {
    let role = t["role"].as_str().expect("role");
    for (i, f) in t["flights"].as_array().expect("flights").iter().enumerate() {
        let bytes = hex_of(f, "hex");
        match f["from"].as_str() {
            Some("shangmi") => {
                let out = drain(conn);
                assert!(out == bytes, "{what}: flight {i}: shangmi wrote other bytes than recorded");
            }
            Some("peer") => {
                feed(conn, &bytes).unwrap_or_else(|e| panic!("{what}: flight {i}: {e}"));
                app.step(conn, role, false);
            }
            // The peer closed the TCP stream.
            Some("peer_eof") => app.step(conn, role, true),
            other => panic!("{what}: flight {i}: from {other:?}"),
        }
    }
    assert!(drain(conn).is_empty(), "{what}: shangmi would send more than was recorded");
    assert!(!conn.is_handshaking(), "{what}: handshake incomplete");
    assert_eq!(app.sent, hex_of(t, "sent"), "{what}: plaintext sent");
    assert_eq!(app.received, hex_of(t, "received"), "{what}: plaintext received");
    assert!(!app.received.is_empty(), "{what}: no application data");
}

/// Replays `t` with the first peer flight changed by `change`: true if the
/// connection refused it (an error) or wrote other bytes than recorded.
pub fn first_peer_flight_changed_diverges(
    t: &serde_json::Value,
    conn: &mut impl Conn,
    change: impl FnOnce(&mut Vec<u8>),
) -> bool {
    let mut change = Some(change);
    for f in t["flights"].as_array().unwrap() {
        let mut bytes = hex_of(f, "hex");
        if f["from"] == "peer_eof" {
            break;
        }
        if f["from"] == "peer" {
            if let Some(change) = change.take() {
                change(&mut bytes);
            }
            if feed(conn, &bytes).is_err() {
                return true;
            }
        } else if drain(conn) != bytes {
            return true;
        }
    }
    false
}

/// A non-empty environment variable.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The recorder's socket: as client, connect to `{prefix}_PEER` (host:port,
/// retried for five seconds while the peer starts); as server, listen on
/// 127.0.0.1, write the port to `{prefix}_PORT_FILE`, take one connection.
pub fn recorder_socket(prefix: &str, role: &str) -> std::net::TcpStream {
    let sock = if role == "client" {
        let peer = env(&format!("{prefix}_PEER")).unwrap_or_else(|| panic!("{prefix}_PEER"));
        let mut s = None;
        for _ in 0..100 {
            if let Ok(c) = std::net::TcpStream::connect(&peer) {
                s = Some(c);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        s.expect("connect")
    } else {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
        let port_file = env(&format!("{prefix}_PORT_FILE")).unwrap_or_else(|| panic!("{prefix}_PORT_FILE"));
        std::fs::write(port_file, l.local_addr().unwrap().port().to_string()).unwrap();
        l.accept().expect("accept").0
    };
    sock.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
    sock
}

/// One connection with a live peer over `sock`: the flights both ways (and
/// the peer's end of stream), and the error that ended it early, if any.
pub fn record_flights(
    sock: &mut std::net::TcpStream,
    conn: &mut impl Conn,
    app: &mut App,
    role: &str,
) -> (Vec<(&'static str, Vec<u8>)>, Option<String>) {
    let mut flights = Vec::new();
    loop {
        let b = drain(conn);
        if !b.is_empty() {
            sock.write_all(&b).expect("send");
            flights.push(("shangmi", b));
        }
        if app.done {
            return (flights, None);
        }
        let mut buf = vec![0u8; 1 << 16];
        let n = match sock.read(&mut buf) {
            Ok(n) => n,
            Err(e) => return (flights, Some(format!("read: {e}"))),
        };
        if n == 0 {
            flights.push(("peer_eof", Vec::new()));
            app.step(conn, role, true);
            let b = drain(conn);
            if !b.is_empty() {
                let _ = sock.write_all(&b);
                flights.push(("shangmi", b));
            }
            return (flights, None);
        }
        flights.push(("peer", buf[..n].to_vec()));
        if let Err(e) = feed(conn, &buf[..n]) {
            let b = drain(conn);
            if !b.is_empty() {
                let _ = sock.write_all(&b);
            }
            return (flights, Some(e.to_string()));
        }
        app.step(conn, role, false);
    }
}

/// The flights as the transcript's JSON array.
pub fn flights_json(flights: &[(&str, Vec<u8>)]) -> Vec<serde_json::Value> {
    flights.iter().map(|(from, b)| serde_json::json!({"from": from, "hex": hex::encode(b)})).collect()
}
