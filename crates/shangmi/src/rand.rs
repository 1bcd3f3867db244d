//! The one place randomness comes from: the operating system's CSPRNG.

use crate::{Error, Result};

/// Fills `buf` from the OS CSPRNG.
pub fn fill(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|e| Error::invalid(format!("OS random number generator failed: {e}")))
}
