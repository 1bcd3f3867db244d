//! The one place randomness comes from: the operating system's CSPRNG; and
//! fork detection for everything that holds randomness drawn in advance.

pub mod hedged;

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

/// Per-thread OS randomness handed out in small pieces: for hedged values
/// ([`hedged::HedgedKey`]), whose secrecy does not rest on the seed alone, and
/// for fresh private keys, where a `getrandom` system call per key would
/// cost 1.2–2.7 µs (a sixth of a key generation). Bytes are wiped from the
/// buffer as they are handed out, so what stays in memory is only
/// randomness not yet used; a forked child's copy is discarded before
/// anything is taken from it, and key bytes are taken
/// only from a fill made by this very process (see [`buffered_key_bytes`]).
struct SeedBuffer {
    buf: [u8; 512],
    /// Bytes already handed out (and wiped) from the front of `buf`.
    used: usize,
    /// The fork generation of the fill.
    generation: u64,
    /// The process id at the fill.
    pid: u32,
}

impl Drop for SeedBuffer {
    fn drop(&mut self) {
        self.buf.zeroize();
    }
}

thread_local! {
    static SEEDS: RefCell<SeedBuffer> = const { RefCell::new(SeedBuffer { buf: [0; 512], used: 512, generation: 0, pid: 0 }) };
}

/// Largest piece [`buffered_fill`] hands out.
pub(crate) const MAX_BUFFERED: usize = 64;

/// Fills `out` (at most [`MAX_BUFFERED`] bytes) with fresh bytes from the
/// per-thread buffer, refilled from the OS when it holds fewer than
/// `out.len()` (the rest is wiped and dropped) or was filled in another
/// fork generation, or straight from the OS if the thread's buffer is gone;
/// marked secret for the valgrind check. For hedged values only.
pub(crate) fn buffered_fill(out: &mut [u8]) -> Result<()> {
    take(out, false)
}

/// [`buffered_fill`] for secrets that rest on these bytes alone (private
/// keys): the buffer is also refilled unless it was filled by this process
/// id, so even a child made by a raw `clone` that skips the `fork()`
/// handlers ([`fork_generation`]) never takes the parent's bytes. The
/// `getpid` call this costs is a fraction of a `getrandom` per key.
pub(crate) fn buffered_key_bytes(out: &mut [u8]) -> Result<()> {
    take(out, true)
}

fn take(out: &mut [u8], check_pid: bool) -> Result<()> {
    assert!(out.len() <= MAX_BUFFERED, "buffered randomness comes in pieces of at most {MAX_BUFFERED} bytes");
    let want = out.len();
    let taken = SEEDS.try_with(|cell| -> Result<()> {
        let mut s = cell.borrow_mut();
        let now = fork_generation();
        let pid_moved = check_pid && s.pid != std::process::id();
        if s.buf.len() - s.used < want || s.generation != now || pid_moved {
            // A forked child's copy is wiped before the refill.
            s.buf.zeroize();
            s.used = s.buf.len();
            fill(&mut s.buf)?;
            s.used = 0;
            s.generation = now;
            s.pid = std::process::id();
        }
        let at = s.used;
        out.copy_from_slice(&s.buf[at..at + want]);
        s.buf[at..at + want].zeroize();
        s.used += want;
        Ok(())
    });
    match taken {
        Ok(r) => r?,
        // The thread is being torn down (its buffer is gone): ask the OS.
        Err(_) => fill(out)?,
    }
    crate::ctime::classify(out);
    Ok(())
}

/// 16 fresh bytes from the per-thread buffer ([`buffered_fill`]).
pub(crate) fn buffered_seed() -> Result<Zeroizing<[u8; 16]>> {
    let mut seed = Zeroizing::new([0u8; 16]);
    buffered_fill(&mut seed[..])?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// Bytes handed out for keys never repeat, within a thread (across
    /// refills) or between threads.
    #[test]
    fn buffered_key_bytes_are_fresh() {
        let mut seen = HashSet::new();
        for _ in 0..100 {
            let mut b = [0u8; 32];
            buffered_key_bytes(&mut b).unwrap();
            assert!(seen.insert(b));
        }
        let other: Vec<[u8; 32]> = std::thread::spawn(|| {
            (0..40)
                .map(|_| {
                    let mut b = [0u8; 32];
                    buffered_key_bytes(&mut b).unwrap();
                    b
                })
                .collect()
        })
        .join()
        .unwrap();
        for b in other {
            assert!(seen.insert(b));
        }
    }

    /// A buffer filled under another process id (as a child made by a raw
    /// clone would see it) is refilled before key bytes are taken, and the
    /// bytes it held are not handed out; hedged seeds only check the fork
    /// generation.
    #[test]
    fn key_bytes_need_a_fill_by_this_process() {
        let mut b = [0u8; 32];
        buffered_key_bytes(&mut b).unwrap();
        // What the next 32 bytes would be, then pretend another pid filled it.
        let (next, used) = SEEDS.with(|c| {
            let mut s = c.borrow_mut();
            s.pid = s.pid.wrapping_add(1);
            let mut n = [0u8; 32];
            n.copy_from_slice(&s.buf[s.used..s.used + 32]);
            (n, s.used)
        });
        assert!(used + 64 <= 512, "the test needs room left in the buffer");
        buffered_key_bytes(&mut b).unwrap();
        assert_ne!(b, next, "bytes of a fill by another pid were handed out");
        let (pid, used_after) = SEEDS.with(|c| (c.borrow().pid, c.borrow().used));
        assert_eq!((pid, used_after), (std::process::id(), 32), "no refill");
        // Same pid, same generation: hedged seeds come from the same fill.
        let before = SEEDS.with(|c| c.borrow().used);
        buffered_fill(&mut b[..16]).unwrap();
        assert_eq!(SEEDS.with(|c| c.borrow().used), before + 16);
    }
}
