//! The one place randomness comes from: the operating system's CSPRNG; and
//! fork detection for everything that holds randomness drawn in advance.

use crate::{Error, Result};

/// Fills `buf` from the OS CSPRNG.
pub fn fill(buf: &mut [u8]) -> Result<()> {
    getrandom::fill(buf).map_err(|e| Error::invalid(format!("OS random number generator failed: {e}")))
}

/// A number that changes in a child process after `fork()`, for state that
/// holds one-time secrets drawn in advance (signature pools, key-exchange
/// ephemerals, buffered seeds): such state records the value when it draws
/// and compares on use; a different value means this is a copy of the
/// state in a forked child, which must not reuse it.
///
/// On Unix the first call registers a `pthread_atfork` child handler that
/// advances a counter, so a check is one atomic load (a `getpid` system
/// call per check would cost a noticeable share of a pooled signature). A
/// fork through a raw `clone` system call that skips the handlers is not
/// seen (CPython's `os.fork`, `multiprocessing` and `subprocess` go through
/// `fork()`). If the handler cannot be registered, the process id is
/// returned instead (one system call per check). Elsewhere there is no
/// fork and the value is constant.
pub fn fork_generation() -> u64 {
    #[cfg(unix)]
    return fork::generation();
    #[cfg(not(unix))]
    return 0;
}

#[cfg(unix)]
mod fork {
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    use std::sync::Once;

    static GENERATION: AtomicU64 = AtomicU64::new(0);
    static FALLBACK: AtomicBool = AtomicBool::new(false);
    static REGISTER: Once = Once::new();

    extern "C" {
        fn pthread_atfork(
            prepare: Option<unsafe extern "C" fn()>,
            parent: Option<unsafe extern "C" fn()>,
            child: Option<unsafe extern "C" fn()>,
        ) -> core::ffi::c_int;
    }

    /// Runs in the child right after `fork()`: async-signal-safe (one
    /// atomic add).
    unsafe extern "C" fn in_child() {
        GENERATION.fetch_add(1, Ordering::SeqCst);
    }

    pub(super) fn generation() -> u64 {
        REGISTER.call_once(|| {
            // SAFETY: registers a handler that only touches an atomic; the
            // function pointer stays valid for the life of the process.
            let rc = unsafe { pthread_atfork(None, None, Some(in_child)) };
            if rc != 0 {
                FALLBACK.store(true, Ordering::SeqCst);
            }
        });
        if FALLBACK.load(Ordering::Relaxed) {
            // Tagged so it can never equal a counter value.
            return (1 << 63) | std::process::id() as u64;
        }
        GENERATION.load(Ordering::SeqCst)
    }
}
