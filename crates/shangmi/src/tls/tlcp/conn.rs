//! [`Connection`]: one TLCP connection, client or server, sans I/O.

use super::config::{ClientConfig, ServerConfig, Session};
use super::suites::CipherSuite;
use crate::x509::Certificate;
use crate::{Error, Result};
use std::sync::Arc;

/// One TLCP connection (client or server): network bytes in through
/// [`Self::read_tls`] and [`Self::process_new_packets`], network bytes out
/// through [`Self::write_tls`], plaintext through [`Self::write_plaintext`]
/// and [`Self::read_plaintext`].
#[derive(Debug)]
pub struct Connection {
    _private: (),
}

fn todo_err() -> Error {
    Error::Tls("TLCP engine not implemented yet".into())
}

impl Connection {
    /// A client connection; `server_name` is sent as SNI and checked
    /// against the server's signing certificate.
    pub fn client(_cfg: Arc<ClientConfig>, _server_name: Option<&str>) -> Result<Self> {
        Err(todo_err())
    }
    /// A client connection offering to resume `session`.
    pub fn client_resume(_cfg: Arc<ClientConfig>, _server_name: Option<&str>, _s: Session) -> Result<Self> {
        Err(todo_err())
    }
    /// A server connection.
    pub fn server(_cfg: Arc<ServerConfig>) -> Result<Self> {
        Err(todo_err())
    }
    /// Network bytes in; returns how many were taken.
    pub fn read_tls(&mut self, _data: &[u8]) -> Result<usize> {
        Err(todo_err())
    }
    /// Processes every complete buffered record.
    pub fn process_new_packets(&mut self) -> Result<()> {
        Err(todo_err())
    }
    /// Network bytes out; returns how many were appended.
    pub fn write_tls(&mut self, _out: &mut Vec<u8>) -> usize {
        0
    }
    pub fn wants_write(&self) -> bool {
        false
    }
    pub fn wants_read(&self) -> bool {
        false
    }
    pub fn is_handshaking(&self) -> bool {
        true
    }
    pub fn write_plaintext(&mut self, _data: &[u8]) -> Result<usize> {
        Err(todo_err())
    }
    pub fn read_plaintext(&mut self, _buf: &mut [u8]) -> Result<usize> {
        Err(todo_err())
    }
    pub fn plaintext_available(&self) -> usize {
        0
    }
    pub fn send_close_notify(&mut self) {}
    pub fn peer_closed(&self) -> bool {
        false
    }
    pub fn protocol_version(&self) -> Option<&'static str> {
        None
    }
    pub fn cipher_suite(&self) -> Option<CipherSuite> {
        None
    }
    pub fn peer_certificates(&self) -> &[Certificate] {
        &[]
    }
    pub fn session(&self) -> Option<Session> {
        None
    }
    pub fn session_resumed(&self) -> bool {
        false
    }
    pub fn server_name(&self) -> Option<&str> {
        None
    }
}
