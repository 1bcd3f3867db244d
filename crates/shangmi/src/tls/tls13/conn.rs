//! [`Connection`]: one TLS 1.3 connection, client or server, sans I/O —
//! rustls's `ClientConnection`/`ServerConnection` behind the same methods
//! as TLCP's engine, with rustls's errors turned into shangmi's.

use super::config::{ClientConfig, ServerConfig, Session, TicketSlot};
use super::rng::Source;
use super::suites::CipherSuite;
use super::verify::take_refusal;
use crate::x509::Certificate;
use crate::{Error, Result};
use rustls::pki_types::ServerName;
use rustls::{CertificateError, HandshakeKind};
use std::io::{Read, Write};
use std::sync::Arc;

enum Inner {
    Client { conn: rustls::ClientConnection, slot: Arc<TicketSlot> },
    Server(rustls::ServerConnection),
}

/// One TLS 1.3 connection (client or server): network bytes in through
/// [`Self::read_tls`] and [`Self::process_new_packets`], network bytes out
/// through [`Self::write_tls`], plaintext through [`Self::write_plaintext`]
/// and [`Self::read_plaintext`].
pub struct Connection {
    inner: Inner,
    error: Option<Error>,
    peer_closed: bool,
    plaintext: usize,
    peer_certs: Vec<Certificate>,
    server_name: Option<String>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("client", &matches!(self.inner, Inner::Client { .. }))
            .field("handshaking", &self.is_handshaking())
            .field("suite", &self.cipher_suite())
            .finish_non_exhaustive()
    }
}

/// The alert's name as RFC 8446 spells it ("bad_certificate").
fn alert_name(a: rustls::AlertDescription) -> String {
    let code = u8::from(a);
    let debug = format!("{a:?}");
    if debug.starts_with("Unknown") {
        return format!("unknown ({code})");
    }
    let mut out = String::new();
    for (i, ch) in debug.chars().enumerate() {
        if ch.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(ch.to_ascii_lowercase());
        } else {
            out.push(ch);
        }
    }
    format!("{out} ({code})")
}

/// shangmi's error for rustls's: certificate refusals (with our verifier's
/// own message when it made one) as [`Error::CertificateVerify`], the rest
/// as [`Error::Tls`].
fn map_error(e: rustls::Error) -> Error {
    use rustls::Error as E;
    match e {
        E::InvalidCertificate(CertificateError::BadSignature) => {
            Error::Tls("CertificateVerify: the peer's SM2 signature does not verify".into())
        }
        E::InvalidCertificate(c) => {
            take_refusal().unwrap_or_else(|| Error::CertificateVerify(format!("certificate refused: {c:?}")))
        }
        E::AlertReceived(a) => Error::Tls(format!("received fatal alert: {}", alert_name(a))),
        E::DecryptError => Error::Tls("record authentication failed (bad_record_mac): the record was altered".into()),
        E::NoCertificatesPresented => Error::CertificateVerify("the peer sent no certificate".into()),
        E::PeerIncompatible(p) => Error::Tls(format!("peer incompatible: {p:?}")),
        E::PeerMisbehaved(p) => Error::Tls(format!("peer misbehaved: {p:?}")),
        other => Error::Tls(format!("TLS 1.3: {other}")),
    }
}

fn rustls_server_name(name: Option<&str>) -> Result<ServerName<'static>> {
    let n = name.unwrap_or(super::verify::NO_SERVER_NAME);
    let bare = n.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(n);
    ServerName::try_from(bare.to_string())
        .map_err(|_| Error::invalid(format!("invalid server name '{n}': expected a DNS name or an IP address")))
}

impl Connection {
    fn new(inner: Inner, server_name: Option<String>) -> Self {
        let mut c =
            Connection { inner, error: None, peer_closed: false, plaintext: 0, peer_certs: Vec::new(), server_name };
        // Plaintext written after the handshake is always taken whole (as TLCP's engine does).
        match &mut c.inner {
            Inner::Client { conn, .. } => conn.set_buffer_limit(None),
            Inner::Server(s) => s.set_buffer_limit(None),
        }
        c
    }

    fn common(&self) -> &rustls::CommonState {
        match &self.inner {
            Inner::Client { conn, .. } => conn,
            Inner::Server(s) => s,
        }
    }

    fn start_client(
        cfg: Arc<ClientConfig>,
        server_name: Option<&str>,
        resume: Option<Session>,
        source: &Source,
    ) -> Result<Self> {
        let mut slot = TicketSlot::default();
        // A session is offered only to the server name it was made for.
        slot.resume = resume
            .filter(|s| s.server_name.as_deref() == server_name && cfg.suites.contains(&s.suite))
            .map(|s| s.tickets);
        let slot = Arc::new(slot);
        let rc = cfg.rustls(server_name, slot.clone(), source)?;
        let conn = rustls::ClientConnection::new(Arc::new(rc), rustls_server_name(server_name)?).map_err(map_error)?;
        Ok(Self::new(Inner::Client { conn, slot }, server_name.map(str::to_string)))
    }

    /// A client connection; `server_name` is sent as SNI (unless it is an
    /// IP address) and checked against the server's certificate.
    pub fn client(cfg: Arc<ClientConfig>, server_name: Option<&str>) -> Result<Self> {
        Self::start_client(cfg, server_name, None, &Source::Os)
    }

    /// A client connection offering to resume `s` (a previous connection's
    /// [`Self::session`]) by its ticket (PSK with (EC)DHE); a full
    /// handshake follows if the server declines.
    pub fn client_resume(cfg: Arc<ClientConfig>, server_name: Option<&str>, s: Session) -> Result<Self> {
        Self::start_client(cfg, server_name, Some(s), &Source::Os)
    }

    /// A server connection.
    pub fn server(cfg: Arc<ServerConfig>) -> Result<Self> {
        Self::start_server(cfg, &Source::Os)
    }

    fn start_server(cfg: Arc<ServerConfig>, source: &Source) -> Result<Self> {
        let conn = rustls::ServerConnection::new(cfg.rustls(source)?).map_err(map_error)?;
        Ok(Self::new(Inner::Server(conn), None))
    }

    /// Test builds only: [`Self::client`] drawing every random byte (hello
    /// random, legacy session ID, key shares, signature hedging seeds) from
    /// `rng`, for transcript replay.
    #[cfg(feature = "test-rng")]
    pub fn client_with_rng(
        cfg: Arc<ClientConfig>,
        server_name: Option<&str>,
        rng: crate::tls::tlcp::RngFn,
    ) -> Result<Self> {
        Self::start_client(cfg, server_name, None, &Source::injected(rng))
    }

    /// Test builds only: [`Self::server`] drawing every random byte (also
    /// the ticket key and nonces; tickets dated by the configuration's
    /// `now`) from `rng`, for transcript replay.
    #[cfg(feature = "test-rng")]
    pub fn server_with_rng(cfg: Arc<ServerConfig>, rng: crate::tls::tlcp::RngFn) -> Result<Self> {
        Self::start_server(cfg, &Source::injected(rng))
    }

    /// Records a failure; every later call reports the same error.
    fn fail(&mut self, e: rustls::Error) -> Error {
        let e = map_error(e);
        if self.error.is_none() {
            self.error = Some(e.clone());
        }
        self.error.clone().unwrap_or(e)
    }

    // ---- output ----

    /// Network bytes out: everything queued, appended to `out`.
    pub fn write_tls(&mut self, out: &mut Vec<u8>) -> usize {
        let before = out.len();
        loop {
            let r = match &mut self.inner {
                Inner::Client { conn, .. } => conn.write_tls(out),
                Inner::Server(s) => s.write_tls(out),
            };
            match r {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        out.len() - before
    }

    /// Bytes are queued for the network.
    pub fn wants_write(&self) -> bool {
        self.common().wants_write()
    }

    /// The connection can use more network bytes (no error, not closed by
    /// the peer).
    pub fn wants_read(&self) -> bool {
        self.error.is_none() && !self.peer_closed
    }

    /// The handshake has not completed (and has not failed).
    pub fn is_handshaking(&self) -> bool {
        self.common().is_handshaking() && self.error.is_none()
    }

    // ---- input ----

    /// Network bytes in: buffers what rustls takes now and returns how
    /// many bytes that was (pass the rest again after
    /// [`Self::process_new_packets`]). An error once the connection has failed.
    pub fn read_tls(&mut self, data: &[u8]) -> Result<usize> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let mut rd = data;
        let r = match &mut self.inner {
            Inner::Client { conn, .. } => conn.read_tls(&mut rd),
            Inner::Server(s) => s.read_tls(&mut rd),
        };
        // rustls refuses more while its buffer is full: nothing taken now.
        Ok(r.unwrap_or(0))
    }

    /// Processes every complete buffered record. On a protocol error the
    /// matching fatal alert is queued for the peer (see [`Self::write_tls`])
    /// and the error returned; every later call returns the same error.
    pub fn process_new_packets(&mut self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        // A refusal's message is only ever one this call makes.
        let _ = take_refusal();
        let was_handshaking = self.common().is_handshaking();
        let r = match &mut self.inner {
            Inner::Client { conn, .. } => conn.process_new_packets(),
            Inner::Server(s) => s.process_new_packets(),
        };
        match r {
            Ok(st) => {
                self.plaintext = st.plaintext_bytes_to_read();
                self.peer_closed |= st.peer_has_closed();
            }
            Err(e) => return Err(self.fail(e)),
        }
        if was_handshaking && !self.common().is_handshaking() {
            self.on_established();
        }
        Ok(())
    }

    fn on_established(&mut self) {
        let ders: Vec<Vec<u8>> =
            self.common().peer_certificates().unwrap_or(&[]).iter().map(|d| d.as_ref().to_vec()).collect();
        // Each was parsed and checked by the verifier already.
        self.peer_certs = ders.iter().filter_map(|d| Certificate::from_der(d).ok()).collect();
        if let Inner::Server(s) = &self.inner {
            self.server_name = s.server_name().map(str::to_string);
        }
    }

    // ---- plaintext ----

    /// Plaintext out to the peer, fragmented into records (queued; call
    /// [`Self::write_tls`]). Returns `data.len()`.
    pub fn write_plaintext(&mut self, data: &[u8]) -> Result<usize> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.common().is_handshaking() {
            return Err(Error::Tls("cannot send application data before the handshake completes".into()));
        }
        if data.is_empty() {
            return Ok(0);
        }
        let r = match &mut self.inner {
            Inner::Client { conn, .. } => conn.writer().write_all(data),
            Inner::Server(s) => s.writer().write_all(data),
        };
        r.map_err(|e| Error::Tls(format!("cannot send application data: {e}")))?;
        Ok(data.len())
    }

    /// Plaintext received: copies up to `buf.len()` bytes. `Ok(0)` with
    /// [`Self::peer_closed`] means close_notify was received; `Ok(0)`
    /// otherwise means none yet.
    pub fn read_plaintext(&mut self, buf: &mut [u8]) -> Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let r = match &mut self.inner {
            Inner::Client { conn, .. } => conn.reader().read(buf),
            Inner::Server(s) => s.reader().read(buf),
        };
        match r {
            Ok(n) => {
                self.plaintext = self.plaintext.saturating_sub(n);
                if n == 0 {
                    self.peer_closed = true;
                }
                Ok(n)
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => match &self.error {
                Some(e) => Err(e.clone()),
                None => Ok(0),
            },
            Err(e) => Err(self.error.clone().unwrap_or_else(|| Error::Tls(format!("TLS 1.3: {e}")))),
        }
    }

    /// Plaintext bytes waiting for [`Self::read_plaintext`].
    pub fn plaintext_available(&self) -> usize {
        self.plaintext
    }

    /// Queues a close_notify alert (once); no application data can be sent
    /// afterwards.
    pub fn send_close_notify(&mut self) {
        if self.error.is_none() {
            match &mut self.inner {
                Inner::Client { conn, .. } => conn.send_close_notify(),
                Inner::Server(s) => s.send_close_notify(),
            }
        }
    }

    /// The peer sent close_notify.
    pub fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    // ---- what was negotiated ----

    /// "TLSv1.3" once the handshake completed.
    pub fn protocol_version(&self) -> Option<&'static str> {
        (!self.common().is_handshaking() && self.error.is_none()).then_some("TLSv1.3")
    }

    /// The suite, once the server chose it.
    pub fn cipher_suite(&self) -> Option<CipherSuite> {
        let s = self.common().negotiated_cipher_suite()?;
        CipherSuite::from_code(u16::from(s.suite()))
    }

    /// The peer's certificates as sent (leaf first; empty when the peer
    /// sent none or the handshake has not completed).
    pub fn peer_certificates(&self) -> &[Certificate] {
        &self.peer_certs
    }

    /// Client: the resumable session (the newest ticket the server sent,
    /// which arrives just after the handshake). Server: always `None`
    /// (TLS 1.3 servers resume by their own tickets).
    pub fn session(&self) -> Option<Session> {
        let Inner::Client { slot, .. } = &self.inner else { return None };
        if self.is_handshaking() || self.error.is_some() {
            return None;
        }
        if slot.issued.lock().ok()?.is_empty() {
            return None;
        }
        Some(Session {
            tickets: slot.issued.clone(),
            suite: self.cipher_suite()?,
            peer_certificates: self.peer_certs.clone(),
            server_name: self.server_name.clone(),
        })
    }

    /// The handshake resumed a session (PSK from a ticket).
    pub fn session_resumed(&self) -> bool {
        self.common().handshake_kind() == Some(HandshakeKind::Resumed)
    }

    /// The server name: the one given (client) or the SNI received (server).
    pub fn server_name(&self) -> Option<&str> {
        self.server_name.as_deref()
    }
}
