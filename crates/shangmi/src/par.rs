//! The thread pool behind every batch call (`sign_many`, `verify_many`,
//! `hash_many`, pool refills, ...).
//!
//! Batch code runs its parallel iterators inside [`install`], never on
//! rayon's global pool, for two reasons:
//! - **fork()**: a child process inherits the parent's memory but none of its
//!   threads, so a pool created before the fork would accept the child's jobs
//!   and never run them (a hang). The pool is tagged with
//!   [`crate::rand::fork_generation`] and rebuilt in a forked child.
//! - **a cap**: [`set_num_threads`] bounds how many threads shangmi uses, so
//!   several worker processes on one machine (Dask, multiprocessing) do not
//!   oversubscribe its cores.

use std::sync::{Arc, Mutex};

use crate::{Error, Result};

/// Most threads [`set_num_threads`] accepts.
pub const MAX_THREADS: usize = 1024;

struct Pool {
    generation: u64,
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);
/// The cap set by [`set_num_threads`]; 0 = one thread per logical CPU.
static CAP: Mutex<usize> = Mutex::new(0);

fn wanted_threads() -> usize {
    let cap = *CAP.lock().unwrap_or_else(|e| e.into_inner());
    if cap == 0 {
        std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
    } else {
        cap
    }
}

fn pool() -> Option<Arc<rayon::ThreadPool>> {
    let generation = crate::rand::fork_generation();
    let threads = wanted_threads();
    let mut slot = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = slot.as_ref() {
        if p.generation == generation && p.threads == threads {
            return Some(p.pool.clone());
        }
    }
    let built =
        rayon::ThreadPoolBuilder::new().num_threads(threads).thread_name(|i| format!("shangmi-{i}")).build().ok()?;
    let old = slot.replace(Pool { generation, threads, pool: Arc::new(built) });
    if let Some(old) = old {
        if old.generation != generation {
            // The old pool's threads do not exist in this (forked) process:
            // dropping it would signal threads that will never answer.
            std::mem::forget(old.pool);
        }
    }
    slot.as_ref().map(|p| p.pool.clone())
}

/// Runs `f` on shangmi's pool (rayon's parallel iterators inside `f` use it).
/// If the OS refuses to start threads, `f` runs on the calling thread.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// Caps the threads batch calls use at `n` (1..=1024), or restores one
/// thread per logical CPU with `n = 0`. Takes effect on the next batch call.
pub fn set_num_threads(n: usize) -> Result<()> {
    if n > MAX_THREADS {
        return Err(Error::invalid(format!("thread count must be 0 (all CPUs) or at most {MAX_THREADS}, got {n}")));
    }
    *CAP.lock().unwrap_or_else(|e| e.into_inner()) = n;
    Ok(())
}

/// The number of threads the next batch call will use.
pub fn num_threads() -> usize {
    wanted_threads()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rayon::prelude::*;

    #[test]
    fn cap_is_applied_and_restored() {
        set_num_threads(1).unwrap();
        assert_eq!(install(rayon::current_num_threads), 1);
        assert_eq!(num_threads(), 1);
        set_num_threads(0).unwrap();
        assert_eq!(install(rayon::current_num_threads), num_threads());
        assert!(set_num_threads(MAX_THREADS + 1).is_err());
        let v: Vec<u32> = install(|| (0..1000u32).into_par_iter().map(|x| x * 2).collect());
        assert_eq!(v[999], 1998);
    }
}
