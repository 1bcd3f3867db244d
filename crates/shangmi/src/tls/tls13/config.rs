//! Client and server configuration (the fields of TLCP's, less what TLS 1.3
//! has no use for), resumable sessions, and the rustls configurations built
//! from them.

use super::provider::{provider_with, Sm2SigningKey, SM2SIG_SM3};
use super::rng::Source;
use super::suites::CipherSuite;
use super::verify::{Check, ClientVerifier, ServerVerifier};
use crate::sm4::Gcm;
use crate::tls::{Identity, VerifyMode};
use crate::x509::Certificate;
use crate::{Error, Result};
use rustls::client::{ClientSessionStore, Resumption, Tls12ClientSessionValue, Tls13ClientSessionValue};
use rustls::crypto::GetRandomFailed;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::server::{ClientHello, ProducesTickets, ResolvesServerCert};
use rustls::sign::CertifiedKey;
use rustls::{NamedGroup, SignatureScheme};
use std::sync::{Arc, Mutex, OnceLock};
use zeroize::Zeroizing;

fn tls_err(context: &str, e: rustls::Error) -> Error {
    Error::Tls(format!("{context}: {e}"))
}

/// A client's configuration (share one `Arc` between connections: the
/// rustls configuration built from it is kept, and tickets resume only
/// through the same one).
#[derive(Debug)]
pub struct ClientConfig {
    /// Suites offered, in preference order.
    pub suites: Vec<CipherSuite>,
    /// Trust anchors for the server's certificates.
    pub roots: Vec<Certificate>,
    /// Default [`VerifyMode::Required`]; `None` accepts any server
    /// certificate (its CertificateVerify is still checked with its key).
    pub verify_mode: VerifyMode,
    /// Check the server name against the server's certificate (default
    /// true; only when a server name is given and certificates are validated).
    pub check_hostname: bool,
    /// The client's certificate and key (sent when asked).
    pub sign_identity: Option<Identity>,
    /// Unused by TLS 1.3 (one certificate per side); kept so callers can
    /// fill TLCP's and TLS 1.3's configurations alike.
    pub enc_identity: Option<Identity>,
    /// The SM2 user ID certificate signatures are checked with; `None`
    /// accepts both deployed conventions (GM/T 0009's default ID and the
    /// empty ID). CertificateVerify always uses RFC 8998's ID.
    pub sm2_id: Option<Vec<u8>>,
    /// Unix seconds at which validity is checked; `None` = the system clock.
    pub now: Option<i64>,
    built: OnceLock<Arc<rustls::ClientConfig>>,
}

impl Clone for ClientConfig {
    /// A copy to be changed: it builds its own rustls configuration.
    fn clone(&self) -> Self {
        ClientConfig {
            suites: self.suites.clone(),
            roots: self.roots.clone(),
            verify_mode: self.verify_mode,
            check_hostname: self.check_hostname,
            sign_identity: self.sign_identity.clone(),
            enc_identity: self.enc_identity.clone(),
            sm2_id: self.sm2_id.clone(),
            now: self.now,
            built: OnceLock::new(),
        }
    }
}

impl ClientConfig {
    /// Every suite, no roots, [`VerifyMode::Required`], host names checked.
    pub fn new() -> Self {
        ClientConfig {
            suites: CipherSuite::ALL.to_vec(),
            roots: Vec::new(),
            verify_mode: VerifyMode::Required,
            check_hostname: true,
            sign_identity: None,
            enc_identity: None,
            sm2_id: None,
            now: None,
            built: OnceLock::new(),
        }
    }

    /// The rustls configuration of one connection to `server_name`, whose
    /// tickets land in (and whose resumed session comes from) `store`, its
    /// random bytes from `source` (an injected source gets a configuration
    /// of its own).
    pub(crate) fn rustls(
        &self,
        server_name: Option<&str>,
        store: Arc<TicketSlot>,
        source: &Source,
    ) -> Result<rustls::ClientConfig> {
        let base = match self.built.get() {
            _ if !source.is_os() => Arc::new(self.build(source)?),
            Some(b) => b.clone(),
            None => {
                let b = Arc::new(self.build(source)?);
                self.built.get_or_init(|| b).clone()
            }
        };
        let mut rc = (*base).clone();
        rc.resumption = Resumption::store(store);
        rc.enable_sni = server_name.is_some_and(|n| n.parse::<std::net::IpAddr>().is_err() && !n.starts_with('['));
        Ok(rc)
    }

    /// The parts shared by every connection: rustls resumes a ticket only
    /// with the very verifier and certificate resolver that made it.
    fn build(&self, source: &Source) -> Result<rustls::ClientConfig> {
        if self.suites.is_empty() {
            return Err(Error::invalid("TLS 1.3 client configuration offers no cipher suites"));
        }
        let check = (self.verify_mode != VerifyMode::None).then(|| Check {
            roots: self.roots.clone(),
            uid: self.sm2_id.clone(),
            now: self.now,
            validated: Default::default(),
        });
        let verifier = ServerVerifier { check, check_hostname: self.check_hostname };
        let builder = rustls::ClientConfig::builder_with_provider(Arc::new(provider_with(&self.suites, source)))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| tls_err("TLS 1.3 client configuration", e))?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier));
        let mut rc = match &self.sign_identity {
            Some(id) => builder.with_client_cert_resolver(Arc::new(ClientCert(certified_key(id, source)))),
            None => builder.with_no_client_auth(),
        };
        rc.enable_early_data = false;
        if let (false, Some(now)) = (source.is_os(), self.now) {
            rc.time_provider = Arc::new(FixedTime(now));
        }
        Ok(rc)
    }
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// A server's configuration (share one `Arc` between connections: the
/// ticket keys live in it, so tickets resume across its connections).
#[derive(Debug)]
pub struct ServerConfig {
    /// Suites accepted, in the server's preference order.
    pub suites: Vec<CipherSuite>,
    /// The certificate (leaf first, then its chain) and key.
    pub sign_identity: Identity,
    /// Unused by TLS 1.3 (kept for the shape of TLCP's configuration).
    pub enc_identity: Option<Identity>,
    /// Trust anchors for client certificates.
    pub roots: Vec<Certificate>,
    /// Default [`VerifyMode::None`] (no CertificateRequest).
    pub verify_mode: VerifyMode,
    /// The SM2 user ID client certificate signatures are checked with;
    /// `None` accepts both conventions.
    pub sm2_id: Option<Vec<u8>>,
    /// NewSessionTicket messages sent after each full handshake (default
    /// 2; 0 disables resumption). Tickets are SM4-GCM sealed under a key
    /// drawn at first use and rotated every 6 hours.
    pub tickets: usize,
    /// Unix seconds at which validity is checked; `None` = the system clock.
    pub now: Option<i64>,
    built: OnceLock<Arc<rustls::ServerConfig>>,
}

impl Clone for ServerConfig {
    /// A copy to be changed: it gets its own ticket keys on first use.
    fn clone(&self) -> Self {
        ServerConfig {
            suites: self.suites.clone(),
            sign_identity: self.sign_identity.clone(),
            enc_identity: self.enc_identity.clone(),
            roots: self.roots.clone(),
            verify_mode: self.verify_mode,
            sm2_id: self.sm2_id.clone(),
            tickets: self.tickets,
            now: self.now,
            built: OnceLock::new(),
        }
    }
}

impl ServerConfig {
    /// Every suite, no client certificates, two tickets per handshake.
    pub fn new(sign: Identity) -> Self {
        ServerConfig {
            suites: CipherSuite::ALL.to_vec(),
            sign_identity: sign,
            enc_identity: None,
            roots: Vec::new(),
            verify_mode: VerifyMode::None,
            sm2_id: None,
            tickets: 2,
            now: None,
            built: OnceLock::new(),
        }
    }

    /// A server configuration from identities that may be missing (the
    /// shape of TLCP's): TLS 1.3 needs the first, and ignores the second.
    pub fn from_identities(sign: Option<Identity>, enc: Option<Identity>) -> Result<Self> {
        let sign = sign.ok_or_else(|| Error::invalid("a TLS 1.3 server needs a certificate and key"))?;
        let mut c = ServerConfig::new(sign);
        c.enc_identity = enc;
        Ok(c)
    }

    /// The rustls configuration, built on first use and kept; an injected
    /// `source` gets one of its own (with its own ticket key).
    pub(crate) fn rustls(&self, source: &Source) -> Result<Arc<rustls::ServerConfig>> {
        if !source.is_os() {
            return Ok(Arc::new(self.build(source)?));
        }
        if let Some(c) = self.built.get() {
            return Ok(c.clone());
        }
        let c = Arc::new(self.build(source)?);
        Ok(self.built.get_or_init(|| c).clone())
    }

    fn build(&self, source: &Source) -> Result<rustls::ServerConfig> {
        if self.suites.is_empty() {
            return Err(Error::invalid("TLS 1.3 server configuration accepts no cipher suites"));
        }
        if self.sign_identity.chain.is_empty() {
            return Err(Error::invalid("TLS 1.3 server needs a certificate"));
        }
        let verifier = ClientVerifier {
            check: Check {
                roots: self.roots.clone(),
                uid: self.sm2_id.clone(),
                now: self.now,
                validated: Default::default(),
            },
            offer: self.verify_mode != VerifyMode::None,
            mandatory: self.verify_mode == VerifyMode::Required,
        };
        let mut rc = rustls::ServerConfig::builder_with_provider(Arc::new(provider_with(&self.suites, source)))
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| tls_err("TLS 1.3 server configuration", e))?
            .with_client_cert_verifier(Arc::new(verifier))
            .with_cert_resolver(Arc::new(ServerCert(certified_key(&self.sign_identity, source))));
        rc.send_tls13_tickets = self.tickets;
        if self.tickets > 0 && source.is_os() {
            rc.ticketer = Arc::new(
                rustls::TicketRotator::new(6 * 3600, Sm4Ticketer::generate)
                    .map_err(|e| tls_err("TLS 1.3 session ticket keys", e))?,
            );
        } else if self.tickets > 0 {
            // One key drawn from the injected source, no rotation (a test connection).
            rc.ticketer = Sm4Ticketer::from_source(source.clone())
                .map(Arc::from)
                .map_err(|e| tls_err("TLS 1.3 session ticket keys", e.into()))?;
        }
        if let (false, Some(now)) = (source.is_os(), self.now) {
            // Tickets carry their issue time: a replayed connection must see the recorded clock.
            rc.time_provider = Arc::new(FixedTime(now));
        }
        rc.max_early_data_size = 0;
        rc.ignore_client_order = true;
        Ok(rc)
    }
}

fn certified_key(id: &Identity, source: &Source) -> Arc<CertifiedKey> {
    let chain = id.chain.iter().map(|c| CertificateDer::from(c.to_der().to_vec())).collect();
    Arc::new(CertifiedKey::new(chain, Arc::new(Sm2SigningKey(Arc::new(id.key.clone()), source.clone()))))
}

/// A clock stopped at `now` (Unix seconds): rustls's time for the
/// connections of an injected source, so tickets replay byte for byte.
#[derive(Debug)]
struct FixedTime(i64);

impl rustls::time_provider::TimeProvider for FixedTime {
    fn current_time(&self) -> Option<rustls::pki_types::UnixTime> {
        let secs = u64::try_from(self.0).ok()?;
        Some(rustls::pki_types::UnixTime::since_unix_epoch(std::time::Duration::from_secs(secs)))
    }
}

#[derive(Debug)]
struct ClientCert(Arc<CertifiedKey>);

impl rustls::client::ResolvesClientCert for ClientCert {
    fn resolve(&self, _hints: &[&[u8]], sigschemes: &[SignatureScheme]) -> Option<Arc<CertifiedKey>> {
        sigschemes.contains(&SM2SIG_SM3).then(|| self.0.clone())
    }
    fn has_certs(&self) -> bool {
        true
    }
}

#[derive(Debug)]
struct ServerCert(Arc<CertifiedKey>);

impl ResolvesServerCert for ServerCert {
    fn resolve(&self, _hello: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// Session tickets: SM4-GCM under one random key, nonce ‖ ciphertext ‖ tag
/// (a fresh random 12-byte nonce per ticket).
struct Sm4Ticketer {
    gcm: Gcm,
    source: Source,
}

impl std::fmt::Debug for Sm4Ticketer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sm4Ticketer")
    }
}

const TICKET_AAD: &[u8] = b"shangmi tls13 ticket";

impl Sm4Ticketer {
    fn generate() -> std::result::Result<Box<dyn ProducesTickets>, GetRandomFailed> {
        Self::from_source(Source::Os)
    }

    fn from_source(source: Source) -> std::result::Result<Box<dyn ProducesTickets>, GetRandomFailed> {
        let mut key = Zeroizing::new([0u8; 16]);
        source.fill(&mut key[..]).map_err(|_| GetRandomFailed)?;
        let gcm = Gcm::new(&key[..], 16).map_err(|_| GetRandomFailed)?;
        Ok(Box::new(Sm4Ticketer { gcm, source }))
    }
}

impl ProducesTickets for Sm4Ticketer {
    fn enabled(&self) -> bool {
        true
    }
    fn lifetime(&self) -> u32 {
        6 * 3600
    }
    fn encrypt(&self, plain: &[u8]) -> Option<Vec<u8>> {
        let mut nonce = [0u8; 12];
        self.source.fill(&mut nonce).ok()?;
        let ct = self.gcm.encrypt(&nonce, TICKET_AAD, plain).ok()?;
        let mut out = Vec::with_capacity(12 + ct.len());
        out.extend_from_slice(&nonce);
        out.extend_from_slice(&ct);
        Some(out)
    }
    fn decrypt(&self, cipher: &[u8]) -> Option<Vec<u8>> {
        if cipher.len() < 12 + 16 {
            return None;
        }
        let (nonce, ct) = cipher.split_at(12);
        self.gcm.decrypt(nonce, TICKET_AAD, ct).ok()
    }
}

/// Tickets shared by the copies of one [`Session`]: each is used once
/// (RFC 8446 appendix C.4), newest first.
pub(crate) type Tickets = Arc<Mutex<Vec<Tls13ClientSessionValue>>>;

/// One client connection's ticket store: the tickets of the session it
/// offers to resume, and the tickets the server issues on this connection.
#[derive(Debug, Default)]
pub(crate) struct TicketSlot {
    pub(crate) resume: Option<Tickets>,
    pub(crate) issued: Tickets,
    kx_hint: Mutex<Option<NamedGroup>>,
}

impl ClientSessionStore for TicketSlot {
    fn set_kx_hint(&self, _server_name: ServerName<'static>, group: NamedGroup) {
        if let Ok(mut g) = self.kx_hint.lock() {
            *g = Some(group);
        }
    }
    fn kx_hint(&self, _server_name: &ServerName<'_>) -> Option<NamedGroup> {
        self.kx_hint.lock().ok()?.as_ref().copied()
    }
    fn set_tls12_session(&self, _server_name: ServerName<'static>, _value: Tls12ClientSessionValue) {}
    fn tls12_session(&self, _server_name: &ServerName<'_>) -> Option<Tls12ClientSessionValue> {
        None
    }
    fn remove_tls12_session(&self, _server_name: &ServerName<'static>) {}
    fn insert_tls13_ticket(&self, _server_name: ServerName<'static>, value: Tls13ClientSessionValue) {
        if let Ok(mut g) = self.issued.lock() {
            g.push(value);
        }
    }
    fn take_tls13_ticket(&self, _server_name: &ServerName<'static>) -> Option<Tls13ClientSessionValue> {
        self.resume.as_ref()?.lock().ok()?.pop()
    }
}

/// A resumable TLS 1.3 session: the tickets the server issued on one
/// connection (each resumption uses up one; copies share them), with the
/// suite, the server's certificates and the server name it was made for.
#[derive(Clone)]
pub struct Session {
    pub(crate) tickets: Tickets,
    pub(crate) suite: CipherSuite,
    pub(crate) peer_certificates: Vec<Certificate>,
    pub(crate) server_name: Option<String>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("suite", &self.suite).finish_non_exhaustive()
    }
}

impl Session {
    /// The suite the session was made with.
    pub fn cipher_suite(&self) -> CipherSuite {
        self.suite
    }

    /// Resumptions left (unused tickets).
    pub fn tickets_left(&self) -> usize {
        self.tickets.lock().map(|g| g.len()).unwrap_or(0)
    }

    /// The server's certificates as first received.
    pub fn peer_certificates(&self) -> &[Certificate] {
        &self.peer_certificates
    }
}
