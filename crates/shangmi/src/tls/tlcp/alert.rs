//! Alerts (TLS 1.2 codes; GB/T 38636 adds 200-204), their names, and the
//! alert each of our failures sends the peer.

use crate::Error;

pub(crate) const CLOSE_NOTIFY: u8 = 0;
pub(crate) const UNEXPECTED_MESSAGE: u8 = 10;
pub(crate) const BAD_RECORD_MAC: u8 = 20;
pub(crate) const RECORD_OVERFLOW: u8 = 22;
pub(crate) const HANDSHAKE_FAILURE: u8 = 40;
pub(crate) const BAD_CERTIFICATE: u8 = 42;
pub(crate) const UNSUPPORTED_CERTIFICATE: u8 = 43;
pub(crate) const CERTIFICATE_EXPIRED: u8 = 45;
pub(crate) const ILLEGAL_PARAMETER: u8 = 47;
pub(crate) const UNKNOWN_CA: u8 = 48;
pub(crate) const DECODE_ERROR: u8 = 50;
pub(crate) const DECRYPT_ERROR: u8 = 51;
pub(crate) const PROTOCOL_VERSION: u8 = 70;
pub(crate) const INTERNAL_ERROR: u8 = 80;
pub(crate) const NO_RENEGOTIATION: u8 = 100;

/// The alert's name as the standards spell it.
pub(crate) fn name(code: u8) -> &'static str {
    match code {
        0 => "close_notify",
        10 => "unexpected_message",
        20 => "bad_record_mac",
        21 => "decryption_failed",
        22 => "record_overflow",
        30 => "decompression_failure",
        40 => "handshake_failure",
        41 => "no_certificate",
        42 => "bad_certificate",
        43 => "unsupported_certificate",
        44 => "certificate_revoked",
        45 => "certificate_expired",
        46 => "certificate_unknown",
        47 => "illegal_parameter",
        48 => "unknown_ca",
        49 => "access_denied",
        50 => "decode_error",
        51 => "decrypt_error",
        60 => "export_restriction",
        70 => "protocol_version",
        71 => "insufficient_security",
        80 => "internal_error",
        90 => "user_canceled",
        100 => "no_renegotiation",
        110 => "unsupported_extension",
        200 => "unsupported_site2site",
        201 => "no_area",
        202 => "unsupported_areatype",
        203 => "bad_ibcparam",
        204 => "unsupported_ibcparam",
        _ => "unknown",
    }
}

/// A failure of ours: the error reported locally and the fatal alert the
/// peer is sent.
#[derive(Debug)]
pub(crate) struct Fatal {
    pub alert: u8,
    pub error: Error,
}

impl Fatal {
    pub(crate) fn new(alert: u8, msg: impl Into<String>) -> Self {
        Fatal { alert, error: Error::Tls(msg.into()) }
    }

    /// A decode error naming what could not be parsed.
    pub(crate) fn decode(msg: impl Into<String>) -> Self {
        Fatal::new(DECODE_ERROR, msg)
    }

    pub(crate) fn unexpected(msg: impl Into<String>) -> Self {
        Fatal::new(UNEXPECTED_MESSAGE, msg)
    }

    pub(crate) fn internal(e: Error) -> Self {
        Fatal { alert: INTERNAL_ERROR, error: Error::Tls(format!("internal error: {e}")) }
    }

    pub(crate) fn cert(alert: u8, msg: impl Into<String>) -> Self {
        Fatal { alert, error: Error::CertificateVerify(msg.into()) }
    }
}

pub(crate) type HsResult<T> = std::result::Result<T, Fatal>;
