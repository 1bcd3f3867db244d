use std::fmt;

/// Every failure the core can report. The Python binding maps each variant to
/// one exception class, so the variant says *what kind* of failure it is and
/// the message says *what was wrong and what was expected*.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// Malformed or out-of-range input (lengths, encodings, parameters).
    InvalidInput(String),
    /// A key that is malformed, out of range, or not a valid curve point.
    InvalidKey(String),
    /// An authentication tag (AEAD, MAC) did not match.
    InvalidTag,
    /// A signature did not verify (or could not even be parsed).
    InvalidSignature,
    /// A signature did not verify, with advice on a likely mix-up (it
    /// verifies under the other widely deployed signer ID, for example).
    InvalidSignatureHint(String),
    /// Public-key decryption failed. Deliberately opaque: it never says which
    /// check failed, so it cannot serve as an oracle.
    DecryptionFailed,
    /// A certificate (or chain, CRL, signed message) is well-formed but
    /// cannot be accepted; the message names the certificate and the reason.
    InvalidCertificate(String),
    /// A streaming object was used after it was finalized.
    AlreadyFinalized,
    /// A secure-channel protocol failure (TLCP): malformed or unexpected
    /// messages, a bad record MAC, an alert received; the message names it.
    Tls(String),
    /// A peer's certificates were refused during a handshake; the message
    /// names what failed (untrusted issuer, expired, host name mismatch,
    /// key usage, ...).
    CertificateVerify(String),
    /// Well-formed input that uses an algorithm or key type shangmi does
    /// not implement (an RSA key in a PKCS#12 file, an unknown cipher).
    UnsupportedAlgorithm(String),
}

/// Shorthand for results carrying an [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An [`Error::InvalidInput`] from anything printable.
    pub fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidInput(msg.into())
    }

    /// An [`Error::InvalidKey`] from anything printable.
    pub fn invalid_key(msg: impl Into<String>) -> Self {
        Error::InvalidKey(msg.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidInput(m)
            | Error::InvalidKey(m)
            | Error::InvalidSignatureHint(m)
            | Error::InvalidCertificate(m)
            | Error::Tls(m)
            | Error::CertificateVerify(m)
            | Error::UnsupportedAlgorithm(m) => f.write_str(m),
            Error::InvalidTag => f.write_str("authentication tag does not match"),
            Error::InvalidSignature => f.write_str("signature does not verify"),
            Error::DecryptionFailed => f.write_str("decryption failed"),
            Error::AlreadyFinalized => f.write_str("this object was already finalized"),
        }
    }
}

impl std::error::Error for Error {}
