//! Secure channels, sans I/O: bytes in from the network, bytes out to it,
//! plaintext in and out; no sockets, no threads.
//!
//! [`tlcp`] is TLCP (GB/T 38636-2020, protocol version 1.1, 0x0101) with
//! the four ShangMi cipher suites; [`tls13`] is TLS 1.3 with the RFC 8998
//! suites, on rustls. What every protocol engine shares lives
//! here: [`Protocol`], [`VerifyMode`] and [`Identity`].

pub mod channel;
mod names;
pub mod tlcp;
pub mod tls13;
mod validated;

pub use channel::{Channel, ChannelSession, ClientChannelConfig, ClientSettings, ServerChannelConfig, ServerSettings};
pub use tlcp::{CipherSuite, ClientConfig, Compat, Connection, ServerConfig, Session, SessionCache};

use crate::sm2::PrivateKey;
use crate::x509::Certificate;

/// The protocol a connection speaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// TLCP, GB/T 38636-2020 (version 0x0101).
    Tlcp,
    /// TLS 1.3 with the ShangMi suites (RFC 8998).
    Tls13,
}

impl Protocol {
    /// "TLCP" or "TLSv1.3" (what `version()` reports).
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Tlcp => "TLCP",
            Protocol::Tls13 => "TLSv1.3",
        }
    }
}

/// How a peer's certificates are checked, as Python's `ssl.CERT_NONE`,
/// `CERT_OPTIONAL` and `CERT_REQUIRED`.
///
/// A client with `None` accepts any server certificates (not validated);
/// `Optional` and `Required` validate them. A server with `None` sends no
/// CertificateRequest (except in ECDHE suites, which need the client's
/// encryption key: it then asks but does not validate); `Optional` asks and
/// validates whatever the client sends; `Required` also refuses a client
/// without certificates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VerifyMode {
    None,
    Optional,
    Required,
}

/// A certificate chain (leaf first, DER-backed) with the leaf's SM2
/// private key.
#[derive(Clone, Debug)]
pub struct Identity {
    pub chain: Vec<Certificate>,
    pub key: PrivateKey,
}

impl Identity {
    /// The identity of `chain` (leaf first, at least one certificate) and
    /// `key`; the key must match the leaf's public key.
    pub fn new(chain: Vec<Certificate>, key: PrivateKey) -> crate::Result<Self> {
        let leaf = chain
            .first()
            .ok_or_else(|| crate::Error::invalid("a certificate chain needs at least its leaf certificate"))?;
        if leaf.public_key()? != key.public_key() {
            return Err(crate::Error::invalid_key("the private key does not match the certificate's public key"));
        }
        Ok(Identity { chain, key })
    }
}
