//! The one random source of a connection: the OS generator, or (with the
//! `test-rng` feature only) a caller's function, so that a recorded
//! transcript replays byte for byte. Every random byte a connection uses
//! (hello randoms, session IDs, the pre-master secret, SM2 encryption k,
//! signature hedging seeds, ECDHE ephemerals, CBC IVs) is drawn here.

use crate::Result;

/// The injected generator of the `test-rng` constructors.
pub type RngFn = Box<dyn FnMut(&mut [u8]) + Send>;

pub(crate) struct Rng {
    source: Option<RngFn>,
}

impl Rng {
    pub(crate) fn os() -> Self {
        Rng { source: None }
    }

    #[cfg(feature = "test-rng")]
    pub(crate) fn injected(f: RngFn) -> Self {
        Rng { source: Some(f) }
    }

    pub(crate) fn fill(&mut self, buf: &mut [u8]) -> Result<()> {
        match &mut self.source {
            Some(f) => {
                f(buf);
                Ok(())
            }
            None => crate::rand::fill(buf),
        }
    }
}

impl std::fmt::Debug for Rng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.source.is_some() { "Rng(injected)" } else { "Rng(os)" })
    }
}
