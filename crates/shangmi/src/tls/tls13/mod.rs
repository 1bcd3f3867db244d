//! TLS 1.3 with the ShangMi suites (RFC 8998): rustls's state machine over a
//! `CryptoProvider` made of shangmi's SM2, SM3 and SM4, with certificates
//! checked by shangmi's own X.509 path validation. The [`Connection`]
//! presents the same methods as TLCP's.
//!
//! | file | job |
//! |---|---|
//! | `suites` | TLS_SM4_GCM_SM3 and TLS_SM4_CCM_SM3 and their names |
//! | `provider` | the rustls provider: SM3, HKDF-SM3, SM4-GCM/CCM records, curveSM2, sm2sig_sm3 |
//! | `verify` | server and client certificate verifiers, CertificateVerify |
//! | `rng` | the connection's random source (OS, or injected in test builds) |
//! | `config` | client and server configuration, tickets, sessions |
//! | `conn` | [`Connection`] over rustls's connections |
//!
//! Profile: TLS 1.3 only; curveSM2 the only group (a client offering
//! another group first gets a HelloRetryRequest); sm2sig_sm3 the only
//! signature scheme; session tickets and PSK resumption (with ECDHE); no
//! 0-RTT.

mod config;
mod conn;
mod provider;
mod rng;
mod suites;
mod verify;

pub use config::{ClientConfig, ServerConfig, Session};
pub use conn::Connection;
pub use provider::{ecdh_x, provider, CURVE_SM2, SM2SIG_SM3, TLS13_SM2_ID, TLS_SM4_CCM_SM3, TLS_SM4_GCM_SM3};
pub use suites::CipherSuite;

#[doc(hidden)]
pub mod testing {
    //! Internal pieces exposed for tests only.
    use rustls::crypto::tls13::Hkdf;

    /// HKDF-Extract then HKDF-Expand (RFC 5869) with HMAC-SM3, through the
    /// same `HkdfUsingHmac` the key schedule uses.
    pub fn hkdf_sm3(salt: &[u8], ikm: &[u8], info: &[u8], len: usize) -> Vec<u8> {
        let exp = super::provider::HKDF_SM3.extract_from_secret(Some(salt), ikm);
        let mut out = vec![0u8; len];
        exp.expand_slice(&[info], &mut out).expect("HKDF-SM3 output at most 255 * 32 bytes");
        out
    }
}
