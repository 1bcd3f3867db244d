//! The one place randomness comes from: the operating system's CSPRNG; and
//! fork detection for everything that holds randomness drawn in advance.

use crate::{Error, Result};
use std::cell::RefCell;
use zeroize::{Zeroize, Zeroizing};

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

/// Per-thread OS randomness handed out 16 bytes at a time: only for hedged
/// values (`arith::HedgedKey`), whose secrecy does not rest on the seed
/// alone; a forked child's copy is discarded (see sm2/nonce.rs).
struct SeedBuffer {
    buf: [u8; 512],
    /// Bytes already handed out (and wiped) from the front of `buf`.
    used: usize,
    /// The fork generation of the fill.
    generation: u64,
}

impl Drop for SeedBuffer {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

thread_local! {
    static SEEDS: RefCell<SeedBuffer> = const { RefCell::new(SeedBuffer { buf: [0; 512], used: 512, generation: 0 }) };
}

/// 16 fresh bytes from the per-thread buffer (refilled from the OS when
/// empty), marked secret for the valgrind check.
pub(crate) fn buffered_seed() -> Result<Zeroizing<[u8; 16]>> {
    let mut seed = Zeroizing::new([0u8; 16]);
    let taken = SEEDS.try_with(|cell| -> Result<()> {
        let mut s = cell.borrow_mut();
        let now = fork_generation();
        if s.used == s.buf.len() || s.generation != now {
            // A forked child's copy is wiped before the refill.
            s.buf.zeroize();
            s.used = s.buf.len();
            fill(&mut s.buf)?;
            s.used = 0;
            s.generation = now;
        }
        let at = s.used;
        seed.copy_from_slice(&s.buf[at..at + 16]);
        s.buf[at..at + 16].zeroize();
        s.used += 16;
        Ok(())
    });
    match taken {
        Ok(r) => r?,
        // The thread is being torn down (its buffer is gone): ask the OS.
        Err(_) => fill(&mut seed[..])?,
    }
    crate::ctime::classify(&seed[..]);
    Ok(seed)
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
