//! [`Connection`]: one TLCP connection, client or server, sans I/O: the
//! buffers, the record layer in and out, alerts, plaintext. The handshake
//! messages themselves are handled in `handshake`.

use super::alert::{self, Fatal, HsResult};
use super::bulk::{self, check_plaintext_len, BATCH};
use super::config::{ClientConfig, Compat, ServerConfig, Session};
use super::messages::{self, MAX_HANDSHAKE};
use super::record::{RecordCipher, HEADER, MAX_CIPHERTEXT, MAX_PLAINTEXT};
use super::rng::Rng;
#[cfg(feature = "test-rng")]
use super::rng::RngFn;
use super::suites::CipherSuite;
use super::VERSION;
use crate::x509::Certificate;
use crate::{Error, Result};
use std::collections::VecDeque;
use std::sync::Arc;
use zeroize::Zeroizing;

pub(crate) const CT_CHANGE_CIPHER_SPEC: u8 = 20;
pub(crate) const CT_ALERT: u8 = 21;
pub(crate) const CT_HANDSHAKE: u8 = 22;
pub(crate) const CT_APPLICATION_DATA: u8 = bulk::CT_APPLICATION_DATA;

/// Which side, with its configuration.
#[derive(Debug)]
pub(crate) enum Side {
    Client { cfg: Arc<ClientConfig>, resume: Option<Session> },
    Server { cfg: Arc<ServerConfig> },
}

/// What the connection expects next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum State {
    // Client.
    ExpectServerHello,
    ExpectServerCertificate,
    ExpectServerKeyExchange,
    ExpectCertificateRequestOrDone,
    ExpectServerHelloDone,
    // Server.
    ExpectClientHello,
    ExpectClientCertificate,
    ExpectClientKeyExchange,
    ExpectCertificateVerify,
    // Both.
    ExpectChangeCipherSpec,
    ExpectFinished,
    Established,
}

/// One TLCP connection (client or server): network bytes in through
/// [`Self::read_tls`] and [`Self::process_new_packets`], network bytes out
/// through [`Self::write_tls`], plaintext through [`Self::write_plaintext`]
/// and [`Self::read_plaintext`].
pub struct Connection {
    pub(crate) side: Side,
    pub(crate) rng: Rng,
    pub(crate) state: State,
    inbuf: Vec<u8>,
    outbuf: Vec<u8>,
    read_cipher: Option<RecordCipher>,
    read_seq: u64,
    write_cipher: Option<RecordCipher>,
    write_seq: u64,
    pub(crate) pending_read: Option<RecordCipher>,
    pub(crate) pending_write: Option<RecordCipher>,
    hs_buf: Vec<u8>,
    plain_in: VecDeque<u8>,
    pub(crate) transcript: Vec<u8>,
    pub(crate) client_random: [u8; 32],
    pub(crate) server_random: [u8; 32],
    pub(crate) suite: Option<CipherSuite>,
    pub(crate) session_id: Vec<u8>,
    pub(crate) master: Option<Zeroizing<[u8; 48]>>,
    pub(crate) peer_certs: Vec<Certificate>,
    pub(crate) resumed: bool,
    pub(crate) server_name: Option<String>,
    /// Client: the server asked for certificates. Server: we asked.
    pub(crate) cert_requested: bool,
    /// Server: the client sent a non-empty Certificate.
    pub(crate) client_sent_cert: bool,
    /// Client: the wire forms chosen (never `Auto` once the server's
    /// CertificateRequest arrived).
    pub(crate) compat: Compat,
    /// Server, ECDHE: the 64 bytes the ephemeral scalar is drawn from.
    pub(crate) ephemeral_seed: Option<Zeroizing<[u8; 64]>>,
    /// Client, ECDHE: the server's ephemeral point.
    pub(crate) peer_ephemeral: Option<[u8; 65]>,
    error: Option<Error>,
    peer_closed: bool,
    sent_close: bool,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("state", &self.state)
            .field("suite", &self.suite)
            .field("resumed", &self.resumed)
            .finish_non_exhaustive()
    }
}

impl Connection {
    fn new(side: Side, rng: Rng, state: State) -> Self {
        Connection {
            side,
            rng,
            state,
            inbuf: Vec::new(),
            outbuf: Vec::new(),
            read_cipher: None,
            read_seq: 0,
            write_cipher: None,
            write_seq: 0,
            pending_read: None,
            pending_write: None,
            hs_buf: Vec::new(),
            plain_in: VecDeque::new(),
            transcript: Vec::new(),
            client_random: [0; 32],
            server_random: [0; 32],
            suite: None,
            session_id: Vec::new(),
            master: None,
            peer_certs: Vec::new(),
            resumed: false,
            server_name: None,
            cert_requested: false,
            client_sent_cert: false,
            compat: Compat::Auto,
            ephemeral_seed: None,
            peer_ephemeral: None,
            error: None,
            peer_closed: false,
            sent_close: false,
        }
    }

    fn start_client(
        cfg: Arc<ClientConfig>,
        server_name: Option<&str>,
        resume: Option<Session>,
        rng: Rng,
    ) -> Result<Self> {
        if cfg.suites.is_empty() {
            return Err(Error::invalid("TLCP client configuration offers no cipher suites"));
        }
        if let Some(n) = server_name {
            if n.is_empty() || n.len() > 255 || !n.is_ascii() {
                return Err(Error::invalid(format!("server name '{n}' must be 1 to 255 ASCII characters")));
            }
        }
        for id in [&cfg.sign_identity, &cfg.enc_identity].into_iter().flatten() {
            if id.chain.is_empty() {
                return Err(Error::invalid("a TLCP client identity needs at least its leaf certificate"));
            }
        }
        // A session is offered only to the server name it was made with
        // (its certificates were checked for that name).
        let resume = resume.filter(|s| s.server_name.as_deref() == server_name);
        let mut c = Connection::new(Side::Client { cfg, resume }, rng, State::ExpectServerHello);
        c.server_name = server_name.map(str::to_string);
        c.client_hello().map_err(|f| c.fail(f))?;
        Ok(c)
    }

    /// A client connection; `server_name` is sent as SNI (unless it is an
    /// IP address) and checked against the server's signing certificate.
    pub fn client(cfg: Arc<ClientConfig>, server_name: Option<&str>) -> Result<Self> {
        Self::start_client(cfg, server_name, None, Rng::os())
    }

    /// A client connection offering to resume `s` (a previous connection's
    /// [`Self::session`]); a full handshake follows if the server declines.
    pub fn client_resume(cfg: Arc<ClientConfig>, server_name: Option<&str>, s: Session) -> Result<Self> {
        Self::start_client(cfg, server_name, Some(s), Rng::os())
    }

    /// A server connection.
    pub fn server(cfg: Arc<ServerConfig>) -> Result<Self> {
        Self::start_server(cfg, Rng::os())
    }

    fn start_server(cfg: Arc<ServerConfig>, rng: Rng) -> Result<Self> {
        if cfg.suites.is_empty() {
            return Err(Error::invalid("TLCP server configuration accepts no cipher suites"));
        }
        if cfg.sign_identity.chain.is_empty() || cfg.enc_identity.chain.is_empty() {
            return Err(Error::invalid("TLCP server needs a signing and an encryption certificate"));
        }
        Ok(Connection::new(Side::Server { cfg }, rng, State::ExpectClientHello))
    }

    /// [`Self::client`] drawing every random byte from `rng` (test builds
    /// only: transcript replay).
    #[cfg(feature = "test-rng")]
    pub fn client_with_rng(cfg: Arc<ClientConfig>, server_name: Option<&str>, rng: RngFn) -> Result<Self> {
        Self::start_client(cfg, server_name, None, Rng::injected(rng))
    }

    /// [`Self::server`] drawing every random byte from `rng` (test builds
    /// only: transcript replay).
    #[cfg(feature = "test-rng")]
    pub fn server_with_rng(cfg: Arc<ServerConfig>, rng: RngFn) -> Result<Self> {
        Self::start_server(cfg, Rng::injected(rng))
    }

    pub(crate) fn is_client(&self) -> bool {
        matches!(self.side, Side::Client { .. })
    }

    // ---- output ----

    /// Queues one record of `typ` per fragment of `data`, protected under
    /// the current write state.
    pub(crate) fn write_record(&mut self, typ: u8, data: &[u8]) -> HsResult<()> {
        let mut chunks: Vec<&[u8]> = data.chunks(MAX_PLAINTEXT).collect();
        if chunks.is_empty() {
            chunks.push(&[]);
        }
        // Sealed BATCH records at a time (record::seal_many), which bounds
        // the working memory of a large write.
        for group in chunks.chunks(BATCH) {
            let fragments = match &self.write_cipher {
                None => group.iter().map(|c| c.to_vec()).collect(),
                Some(c) => {
                    let mut ivs = vec![[0u8; 16]; group.len()];
                    if matches!(c, RecordCipher::Cbc { .. }) {
                        for iv in ivs.iter_mut() {
                            self.rng.fill(iv).map_err(Fatal::internal)?;
                        }
                    }
                    let Some(c) = &self.write_cipher else { unreachable!("checked above") };
                    let f = c.seal_many(self.write_seq, typ, group, &ivs).map_err(Fatal::internal)?;
                    self.write_seq = self.write_seq.wrapping_add(group.len() as u64);
                    f
                }
            };
            for fragment in fragments {
                self.outbuf.push(typ);
                self.outbuf.extend_from_slice(&VERSION.to_be_bytes());
                self.outbuf.extend_from_slice(&(fragment.len() as u16).to_be_bytes());
                self.outbuf.extend_from_slice(&fragment);
            }
        }
        Ok(())
    }

    /// Adds a handshake message to the transcript and queues it.
    pub(crate) fn send_handshake(&mut self, msg: &[u8]) -> HsResult<()> {
        self.transcript.extend_from_slice(msg);
        self.write_record(CT_HANDSHAKE, msg)
    }

    /// Queues ChangeCipherSpec and switches the write side to the pending keys.
    pub(crate) fn send_change_cipher_spec(&mut self) -> HsResult<()> {
        self.write_record(CT_CHANGE_CIPHER_SPEC, &[1])?;
        self.write_cipher =
            Some(self.pending_write.take().ok_or_else(|| Fatal::internal(Error::invalid("no pending write keys")))?);
        self.write_seq = 0;
        Ok(())
    }

    /// Records a failure: queues its fatal alert, and every later call
    /// reports the same error.
    pub(crate) fn fail(&mut self, f: Fatal) -> Error {
        if self.error.is_none() {
            let _ = self.write_record(CT_ALERT, &[2, f.alert]);
            self.error = Some(f.error.clone());
        }
        self.error.clone().unwrap_or(f.error)
    }

    /// Network bytes out: everything queued, appended to `out`.
    pub fn write_tls(&mut self, out: &mut Vec<u8>) -> usize {
        let n = self.outbuf.len();
        out.append(&mut self.outbuf);
        n
    }

    /// Bytes are queued for the network.
    pub fn wants_write(&self) -> bool {
        !self.outbuf.is_empty()
    }

    /// The connection can use more network bytes (no error, not closed by
    /// the peer).
    pub fn wants_read(&self) -> bool {
        self.error.is_none() && !self.peer_closed
    }

    /// The handshake has not completed (and has not failed).
    pub fn is_handshaking(&self) -> bool {
        self.state != State::Established && self.error.is_none()
    }

    // ---- input ----

    /// Network bytes in: buffers up to 16 whole records (headers included;
    /// they are opened side by side) beyond what
    /// [`Self::process_new_packets`] has consumed, and returns
    /// how many bytes were taken (pass the rest again after processing).
    /// An error once the connection has failed.
    pub fn read_tls(&mut self, data: &[u8]) -> Result<usize> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let room = (BATCH * (HEADER + MAX_CIPHERTEXT)).saturating_sub(self.inbuf.len());
        let n = room.min(data.len());
        self.inbuf.extend_from_slice(&data[..n]);
        Ok(n)
    }

    /// Processes every complete buffered record. On a protocol error the
    /// matching fatal alert is queued for the peer (see [`Self::write_tls`])
    /// and the error returned; every later call returns the same error.
    pub fn process_new_packets(&mut self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        match self.process() {
            Ok(()) => Ok(()),
            Err(f) => Err(self.fail(f)),
        }
    }

    fn process(&mut self) -> HsResult<()> {
        while self.inbuf.len() >= HEADER && self.error.is_none() && !self.peer_closed {
            let typ = self.inbuf[0];
            let version = u16::from_be_bytes([self.inbuf[1], self.inbuf[2]]);
            let len = u16::from_be_bytes([self.inbuf[3], self.inbuf[4]]) as usize;
            if !matches!(typ, CT_CHANGE_CIPHER_SPEC | CT_ALERT | CT_HANDSHAKE | CT_APPLICATION_DATA) {
                return Err(Fatal::unexpected(format!("unexpected message: unknown record type {typ}")));
            }
            if version != VERSION {
                return Err(Fatal::new(
                    alert::PROTOCOL_VERSION,
                    format!("protocol version 0x{version:04x} in a record header; only TLCP 1.1 (0x0101) is supported"),
                ));
            }
            let limit = if self.read_cipher.is_some() { MAX_CIPHERTEXT } else { MAX_PLAINTEXT };
            if len > limit {
                return Err(Fatal::new(
                    alert::RECORD_OVERFLOW,
                    format!("record overflow: {len}-byte record, at most {limit}"),
                ));
            }
            if self.inbuf.len() < HEADER + len {
                break;
            }
            let established = self.state == State::Established && self.hs_buf.is_empty();
            if let (CT_APPLICATION_DATA, true, Some(c)) = (typ, established, &self.read_cipher) {
                bulk::open_application_run(c, &mut self.inbuf, &mut self.read_seq, &mut self.plain_in)?;
                continue;
            }
            let plain = match &self.read_cipher {
                None => Zeroizing::new(self.inbuf[HEADER..HEADER + len].to_vec()),
                Some(c) => {
                    let p = c
                        .open(self.read_seq, typ, &self.inbuf[HEADER..HEADER + len])
                        .map_err(|e| Fatal { alert: alert::BAD_RECORD_MAC, error: e })?;
                    self.read_seq = self.read_seq.wrapping_add(1);
                    check_plaintext_len(p.len())?;
                    Zeroizing::new(p)
                }
            };
            self.inbuf.drain(..HEADER + len);
            if typ != CT_HANDSHAKE && !self.hs_buf.is_empty() {
                return Err(Fatal::unexpected(
                    "unexpected message: record interleaved with a fragmented handshake message",
                ));
            }
            match typ {
                CT_CHANGE_CIPHER_SPEC => self.on_change_cipher_spec(&plain)?,
                CT_ALERT => self.on_alert(&plain)?,
                CT_HANDSHAKE => self.on_handshake_fragment(&plain)?,
                _ => self.on_application_data(&plain)?,
            }
        }
        Ok(())
    }

    fn on_change_cipher_spec(&mut self, body: &[u8]) -> HsResult<()> {
        if body != [1] {
            return Err(Fatal::decode("ChangeCipherSpec: body must be the single byte 1"));
        }
        if self.state != State::ExpectChangeCipherSpec {
            return Err(Fatal::unexpected(format!(
                "unexpected message: ChangeCipherSpec while in state {:?}",
                self.state
            )));
        }
        self.read_cipher =
            Some(self.pending_read.take().ok_or_else(|| Fatal::unexpected("ChangeCipherSpec before keys"))?);
        self.read_seq = 0;
        self.state = State::ExpectFinished;
        Ok(())
    }

    fn on_alert(&mut self, body: &[u8]) -> HsResult<()> {
        if body.len() != 2 {
            return Err(Fatal::decode("alert: must be exactly 2 bytes (level, description)"));
        }
        let (level, desc) = (body[0], body[1]);
        if desc == alert::CLOSE_NOTIFY {
            self.peer_closed = true;
            return Ok(());
        }
        if level == 1 && desc != alert::NO_RENEGOTIATION {
            // A warning other than close_notify: nothing to do.
            return Ok(());
        }
        let kind = if level == 2 { "fatal" } else { "warning" };
        let e = Error::Tls(format!("received {kind} alert: {} ({desc})", alert::name(desc)));
        // No alert goes back for a received fatal alert.
        self.error = Some(e.clone());
        Err(Fatal { alert: alert::CLOSE_NOTIFY, error: e })
    }

    fn on_handshake_fragment(&mut self, data: &[u8]) -> HsResult<()> {
        if data.is_empty() {
            return Err(Fatal::decode("handshake record: empty fragment"));
        }
        self.hs_buf.extend_from_slice(data);
        loop {
            if self.hs_buf.len() < 4 {
                return Ok(());
            }
            let typ = self.hs_buf[0];
            let len = (self.hs_buf[1] as usize) << 16 | (self.hs_buf[2] as usize) << 8 | self.hs_buf[3] as usize;
            if len > MAX_HANDSHAKE {
                return Err(Fatal::decode(format!(
                    "{}: {len}-byte handshake message, at most {MAX_HANDSHAKE}",
                    messages::type_name(typ)
                )));
            }
            if self.hs_buf.len() < 4 + len {
                return Ok(());
            }
            let msg: Vec<u8> = self.hs_buf.drain(..4 + len).collect();
            self.on_handshake(typ, &msg)?;
            if self.error.is_some() {
                return Ok(());
            }
        }
    }

    fn on_application_data(&mut self, data: &[u8]) -> HsResult<()> {
        if self.state != State::Established {
            return Err(Fatal::unexpected("unexpected message: application data before the handshake completed"));
        }
        self.plain_in.extend(data.iter());
        Ok(())
    }

    // ---- plaintext ----

    /// Plaintext out to the peer, fragmented into records (queued; call
    /// [`Self::write_tls`]). Returns `data.len()`.
    pub fn write_plaintext(&mut self, data: &[u8]) -> Result<usize> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.state != State::Established {
            return Err(Error::Tls("cannot send application data before the handshake completes".into()));
        }
        if self.sent_close {
            return Err(Error::Tls("cannot send application data after close_notify".into()));
        }
        if data.is_empty() {
            return Ok(0);
        }
        self.write_record(CT_APPLICATION_DATA, data).map_err(|f| self.fail(f))?;
        Ok(data.len())
    }

    /// Plaintext received: copies up to `buf.len()` bytes. `Ok(0)` with
    /// [`Self::peer_closed`] means close_notify was received; `Ok(0)`
    /// otherwise means none yet.
    pub fn read_plaintext(&mut self, buf: &mut [u8]) -> Result<usize> {
        let n = buf.len().min(self.plain_in.len());
        if n == 0 {
            if let Some(e) = &self.error {
                return Err(e.clone());
            }
            return Ok(0);
        }
        let (a, b) = self.plain_in.as_slices();
        let k = a.len().min(n);
        buf[..k].copy_from_slice(&a[..k]);
        buf[k..n].copy_from_slice(&b[..n - k]);
        self.plain_in.drain(..n);
        Ok(n)
    }

    /// Plaintext bytes waiting for [`Self::read_plaintext`].
    pub fn plaintext_available(&self) -> usize {
        self.plain_in.len()
    }

    /// Queues a close_notify alert (once); no application data can be sent
    /// afterwards.
    pub fn send_close_notify(&mut self) {
        if !self.sent_close && self.error.is_none() {
            self.sent_close = true;
            if let Err(f) = self.write_record(CT_ALERT, &[1, alert::CLOSE_NOTIFY]) {
                self.fail(f);
            }
        }
    }

    /// The peer sent close_notify.
    pub fn peer_closed(&self) -> bool {
        self.peer_closed
    }

    // ---- what was negotiated ----

    /// "TLCP" once the handshake completed.
    pub fn protocol_version(&self) -> Option<&'static str> {
        (self.state == State::Established).then_some("TLCP")
    }

    /// The suite, once the server chose it.
    pub fn cipher_suite(&self) -> Option<CipherSuite> {
        self.suite
    }

    /// The peer's certificates as sent: sign cert, enc cert, then the chain
    /// (empty when the peer sent none).
    pub fn peer_certificates(&self) -> &[Certificate] {
        &self.peer_certs
    }

    /// The resumable session, once the handshake completed with a session ID.
    pub fn session(&self) -> Option<Session> {
        if self.state != State::Established || self.session_id.is_empty() {
            return None;
        }
        Some(Session {
            id: self.session_id.clone(),
            master: self.master.clone()?,
            suite: self.suite?,
            peer_certificates: self.peer_certs.clone(),
            server_name: self.server_name.clone(),
        })
    }

    /// The handshake resumed a session (abbreviated handshake).
    pub fn session_resumed(&self) -> bool {
        self.resumed
    }

    /// The server name: the one given (client) or the SNI received (server).
    pub fn server_name(&self) -> Option<&str> {
        self.server_name.as_deref()
    }
}

#[cfg(feature = "test-rng")]
impl Connection {
    /// Sends `msg` as a handshake record under the current keys, outside
    /// the state machine (test builds only: renegotiation attempts).
    #[doc(hidden)]
    pub fn test_send_handshake_record(&mut self, msg: &[u8]) -> Result<()> {
        self.write_record(CT_HANDSHAKE, msg).map_err(|f| f.error)
    }
}
