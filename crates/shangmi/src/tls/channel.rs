//! One face over both engines: the configurations, sessions and connections
//! a caller builds by protocol name (the Python binding, the CLI) without
//! knowing which engine runs. Every method forwards to the engine.

use std::sync::Arc;

use super::{tlcp, tls13, Identity, Protocol, VerifyMode};
use crate::x509::Certificate;
use crate::{Error, Result};

/// What a client configuration is built from, for either protocol.
#[derive(Debug)]
pub struct ClientSettings {
    pub protocol: Protocol,
    /// Suite names in any accepted spelling; `None` = the protocol's defaults.
    pub suites: Option<Vec<String>>,
    pub roots: Vec<Certificate>,
    pub verify_mode: VerifyMode,
    pub check_hostname: bool,
    pub sign_identity: Option<Identity>,
    /// TLCP's encryption identity (refused for TLS 1.3, which has none).
    pub enc_identity: Option<Identity>,
    /// TLCP's wire-form compatibility mode by name ("auto", ...).
    pub compat: String,
}

/// What a server configuration is built from, for either protocol.
#[derive(Debug)]
pub struct ServerSettings {
    pub protocol: Protocol,
    pub suites: Option<Vec<String>>,
    pub roots: Vec<Certificate>,
    pub verify_mode: VerifyMode,
    pub sign_identity: Option<Identity>,
    pub enc_identity: Option<Identity>,
    /// TLCP: sessions cached for resumption by ID; TLS 1.3: tickets issued.
    pub resumption: usize,
}

/// A client configuration of either protocol (share one between connections).
#[derive(Clone, Debug)]
pub enum ClientChannelConfig {
    Tlcp(Arc<tlcp::ClientConfig>),
    Tls13(Arc<tls13::ClientConfig>),
}

/// A server configuration of either protocol.
#[derive(Clone, Debug)]
pub enum ServerChannelConfig {
    Tlcp(Arc<tlcp::ServerConfig>),
    Tls13(Arc<tls13::ServerConfig>),
}

/// A resumable session of either protocol.
#[derive(Clone)]
#[allow(missing_debug_implementations)] // holds a master secret
pub enum ChannelSession {
    Tlcp(tlcp::Session),
    Tls13(tls13::Session),
}

/// A connection of either protocol.
#[allow(missing_debug_implementations)] // holds secrets; the engines have no Debug either
pub enum Channel {
    Tlcp(Box<tlcp::Connection>),
    Tls13(Box<tls13::Connection>),
}

fn no_enc_for_tls13(enc: &Option<Identity>) -> Result<()> {
    match enc {
        Some(_) => Err(Error::invalid("TLS 1.3 has no encryption certificate: load only the signing one")),
        None => Ok(()),
    }
}

impl ClientChannelConfig {
    pub fn new(s: ClientSettings) -> Result<Self> {
        match s.protocol {
            Protocol::Tlcp => {
                let mut c = tlcp::ClientConfig::new();
                if let Some(names) = &s.suites {
                    c.suites = tlcp::CipherSuite::parse_list(names)?;
                }
                c.roots = s.roots;
                c.verify_mode = s.verify_mode;
                c.check_hostname = s.check_hostname;
                c.sign_identity = s.sign_identity;
                c.enc_identity = s.enc_identity;
                c.compat = tlcp::Compat::from_name(&s.compat)?;
                Ok(ClientChannelConfig::Tlcp(Arc::new(c)))
            }
            Protocol::Tls13 => {
                no_enc_for_tls13(&s.enc_identity)?;
                let mut c = tls13::ClientConfig::new();
                if let Some(names) = &s.suites {
                    c.suites = tls13::CipherSuite::parse_list(names)?;
                }
                c.roots = s.roots;
                c.verify_mode = s.verify_mode;
                c.check_hostname = s.check_hostname;
                c.sign_identity = s.sign_identity;
                Ok(ClientChannelConfig::Tls13(Arc::new(c)))
            }
        }
    }
}

impl ServerChannelConfig {
    pub fn new(s: ServerSettings) -> Result<Self> {
        match s.protocol {
            Protocol::Tlcp => {
                let mut c = tlcp::ServerConfig::from_identities(s.sign_identity, s.enc_identity)?;
                if let Some(names) = &s.suites {
                    c.suites = tlcp::CipherSuite::parse_list(names)?;
                }
                c.roots = s.roots;
                c.verify_mode = s.verify_mode;
                c.session_cache = Arc::new(tlcp::SessionCache::new(s.resumption));
                Ok(ServerChannelConfig::Tlcp(Arc::new(c)))
            }
            Protocol::Tls13 => {
                no_enc_for_tls13(&s.enc_identity)?;
                let mut c = tls13::ServerConfig::from_identities(s.sign_identity, None)?;
                if let Some(names) = &s.suites {
                    c.suites = tls13::CipherSuite::parse_list(names)?;
                }
                c.roots = s.roots;
                c.verify_mode = s.verify_mode;
                c.tickets = s.resumption.min(8);
                Ok(ServerChannelConfig::Tls13(Arc::new(c)))
            }
        }
    }
}

/// (standard name, OpenSSL name, code) of each suite of `protocol`, in
/// the default preference order.
pub fn cipher_suites(protocol: Protocol) -> Vec<(&'static str, &'static str, u16)> {
    match protocol {
        Protocol::Tlcp => tlcp::CipherSuite::ALL.iter().map(|s| (s.name(), s.openssl_name(), s.code())).collect(),
        Protocol::Tls13 => tls13::CipherSuite::ALL.iter().map(|s| (s.name(), s.openssl_name(), s.code())).collect(),
    }
}

/// The standard names of `names` (any accepted spelling) for `protocol`.
pub fn parse_cipher_suites<S: AsRef<str>>(protocol: Protocol, names: &[S]) -> Result<Vec<&'static str>> {
    Ok(match protocol {
        Protocol::Tlcp => tlcp::CipherSuite::parse_list(names)?.into_iter().map(|s| s.name()).collect(),
        Protocol::Tls13 => tls13::CipherSuite::parse_list(names)?.into_iter().map(|s| s.name()).collect(),
    })
}

macro_rules! forward {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Channel::Tlcp($c) => $e,
            Channel::Tls13($c) => $e,
        }
    };
}

impl Channel {
    /// A client connection; `session` resumes an earlier one of the same protocol.
    pub fn client(
        cfg: &ClientChannelConfig,
        server_name: Option<&str>,
        session: Option<ChannelSession>,
    ) -> Result<Self> {
        Ok(match (cfg, session) {
            (ClientChannelConfig::Tlcp(c), None) => {
                Channel::Tlcp(Box::new(tlcp::Connection::client(c.clone(), server_name)?))
            }
            (ClientChannelConfig::Tlcp(c), Some(ChannelSession::Tlcp(s))) => {
                Channel::Tlcp(Box::new(tlcp::Connection::client_resume(c.clone(), server_name, s)?))
            }
            (ClientChannelConfig::Tls13(c), None) => {
                Channel::Tls13(Box::new(tls13::Connection::client(c.clone(), server_name)?))
            }
            (ClientChannelConfig::Tls13(c), Some(ChannelSession::Tls13(s))) => {
                Channel::Tls13(Box::new(tls13::Connection::client_resume(c.clone(), server_name, s)?))
            }
            _ => return Err(Error::invalid("the session is of another protocol than this context")),
        })
    }

    pub fn server(cfg: &ServerChannelConfig) -> Result<Self> {
        Ok(match cfg {
            ServerChannelConfig::Tlcp(c) => Channel::Tlcp(Box::new(tlcp::Connection::server(c.clone())?)),
            ServerChannelConfig::Tls13(c) => Channel::Tls13(Box::new(tls13::Connection::server(c.clone())?)),
        })
    }

    pub fn read_tls(&mut self, data: &[u8]) -> Result<usize> {
        forward!(self, c => c.read_tls(data))
    }
    pub fn process_new_packets(&mut self) -> Result<()> {
        forward!(self, c => c.process_new_packets())
    }
    pub fn write_tls(&mut self, out: &mut Vec<u8>) -> usize {
        forward!(self, c => c.write_tls(out))
    }
    pub fn wants_write(&self) -> bool {
        forward!(self, c => c.wants_write())
    }
    pub fn wants_read(&self) -> bool {
        forward!(self, c => c.wants_read())
    }
    pub fn is_handshaking(&self) -> bool {
        forward!(self, c => c.is_handshaking())
    }
    pub fn write_plaintext(&mut self, data: &[u8]) -> Result<usize> {
        forward!(self, c => c.write_plaintext(data))
    }
    pub fn read_plaintext(&mut self, buf: &mut [u8]) -> Result<usize> {
        forward!(self, c => c.read_plaintext(buf))
    }
    pub fn plaintext_available(&self) -> usize {
        forward!(self, c => c.plaintext_available())
    }
    pub fn send_close_notify(&mut self) {
        forward!(self, c => c.send_close_notify())
    }
    pub fn peer_closed(&self) -> bool {
        forward!(self, c => c.peer_closed())
    }
    pub fn protocol_version(&self) -> Option<&'static str> {
        forward!(self, c => c.protocol_version())
    }
    /// The negotiated suite's standard name.
    pub fn cipher_suite_name(&self) -> Option<&'static str> {
        match self {
            Channel::Tlcp(c) => c.cipher_suite().map(|s| s.name()),
            Channel::Tls13(c) => c.cipher_suite().map(|s| s.name()),
        }
    }
    pub fn peer_certificates(&self) -> &[Certificate] {
        forward!(self, c => c.peer_certificates())
    }
    pub fn session(&self) -> Option<ChannelSession> {
        match self {
            Channel::Tlcp(c) => c.session().map(ChannelSession::Tlcp),
            Channel::Tls13(c) => c.session().map(ChannelSession::Tls13),
        }
    }
    pub fn session_resumed(&self) -> bool {
        forward!(self, c => c.session_resumed())
    }
    pub fn server_name(&self) -> Option<&str> {
        forward!(self, c => c.server_name())
    }
}
