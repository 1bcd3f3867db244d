//! GIL release and shared-state locking used by every algorithm's bindings.

use std::sync::{Mutex, MutexGuard};

use pyo3::prelude::*;

/// Native work on inputs shorter than this is not worth releasing the GIL
/// for (releasing and re-acquiring costs about as much as hashing it).
pub(crate) const GIL_RELEASE_THRESHOLD: usize = 2048;

/// Runs `f` with the GIL released when `len` bytes of work make it worth it.
pub(crate) fn maybe_detach<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= GIL_RELEASE_THRESHOLD {
        py.detach(f)
    } else {
        f()
    }
}

/// Locks the mutable state behind a frozen pyclass. A poisoned lock could
/// only come from a panic in the core (a bug); the states kept this way
/// (hash, cipher stream, keystream, pool) stay consistent, so keep going.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
