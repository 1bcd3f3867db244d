//! The one random source of a connection: the OS generator, or (with the
//! `test-rng` feature only) a caller's function, so that a recorded
//! transcript replays byte for byte. rustls draws its randoms (hello
//! randoms, the legacy session ID, ticket nonces and age offsets) from the
//! provider's `SecureRandom`, the key shares come from our
//! `SupportedKxGroup`, and CertificateVerify's SM2 hedging seeds and the
//! ticket keys and nonces from our signer and ticketer: with an injected
//! source, every one of them reads it.

use crate::Result;
#[cfg(feature = "test-rng")]
use std::sync::{Arc, Mutex};

/// Where a connection's random bytes come from.
#[derive(Clone, Default)]
pub(crate) enum Source {
    /// The OS generator (every public constructor).
    #[default]
    Os,
    /// A caller's generator (`Connection::{client_with_rng, server_with_rng}`).
    #[cfg(feature = "test-rng")]
    Injected(Arc<Mutex<crate::tls::tlcp::RngFn>>),
}

impl Source {
    #[cfg(feature = "test-rng")]
    pub(crate) fn injected(f: crate::tls::tlcp::RngFn) -> Self {
        Source::Injected(Arc::new(Mutex::new(f)))
    }

    pub(crate) fn is_os(&self) -> bool {
        matches!(self, Source::Os)
    }

    pub(crate) fn fill(&self, buf: &mut [u8]) -> Result<()> {
        match self {
            Source::Os => crate::rand::fill(buf),
            #[cfg(feature = "test-rng")]
            Source::Injected(f) => {
                let mut f =
                    f.lock().map_err(|_| crate::Error::Tls("the injected generator panicked earlier".into()))?;
                f(buf);
                Ok(())
            }
        }
    }

    /// A fresh SM2 key pair (an ephemeral key share).
    pub(crate) fn sm2_key(&self) -> Result<crate::sm2::PrivateKey> {
        if self.is_os() {
            return crate::sm2::PrivateKey::generate();
        }
        // Rejection sampling: out-of-range draws (probability ~2^-128) are drawn again.
        loop {
            let mut b = zeroize::Zeroizing::new([0u8; 32]);
            self.fill(&mut b[..])?;
            if let Ok(k) = crate::sm2::PrivateKey::from_bytes(&b[..]) {
                return Ok(k);
            }
        }
    }
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.is_os() { "Source(os)" } else { "Source(injected)" })
    }
}
