//! TLCP (GB/T 38636-2020, formerly GM/T 0024): a sans-I/O engine for client
//! and server, shaped like rustls's `Connection`.
//!
//! | file | job |
//! |---|---|
//! | `suites` | the four cipher suites and their names |
//! | `config` | client and server configuration, the session cache, sessions |
//! | `alert` | alert codes, names, and the alert each failure sends |
//! | `prf` | the TLS 1.2 PRF with HMAC-SM3, key block, Finished |
//! | `record` | the record layer: SM4-CBC + HMAC-SM3, SM4-GCM |
//! | `messages` | the handshake message codec |
//! | `certs` | certificate validation of the peer (dual certificates) |
//! | `handshake` | the state machine: dispatch, keys, Finished |
//! | `client` / `server` | each role's messages |
//! | `conn` | [`Connection`]: buffers, records in and out, plaintext |
//! | `rng` | the one random source of a connection |

mod alert;
mod bulk;
mod certs;
mod client;
mod config;
mod conn;
mod handshake;
mod messages;
mod prf;
mod record;
mod rng;
mod server;
mod suites;

pub use config::{ClientConfig, Compat, ServerConfig, Session, SessionCache};
pub use conn::Connection;
pub use rng::RngFn;
pub use suites::CipherSuite;

/// TLCP's protocol version on the wire.
pub const VERSION: u16 = 0x0101;

#[doc(hidden)]
pub mod testing {
    //! Internal pieces exposed for tests and fuzzing only.
    pub use super::prf::prf;
    pub use super::record::{RecordCipher, MAX_CIPHERTEXT, MAX_PLAINTEXT};
}
