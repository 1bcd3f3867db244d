//! One-time precomputed (k, x(k·G)) pairs for fast signing, fork-safe.

use super::field::Scalar;
use super::point::{batch_to_affine, Jacobian};
use super::{random_scalar, MAX_POOL};
use crate::{Error, Result};
use rayon::prelude::*;
use std::sync::Mutex;
use zeroize::{Zeroize, Zeroizing};

/// One precomputed pair: k and x1 = x(k·G) mod n.
#[derive(Clone, Copy, Default)]
pub(super) struct PoolEntry {
    pub(super) k: Scalar,
    pub(super) x1: Scalar,
}

impl Zeroize for PoolEntry {
    fn zeroize(&mut self) {
        self.k.zeroize();
        self.x1.zeroize();
    }
}

/// One-time precomputed (k, k·G) pairs: each consumed exactly once, wiped
/// after use; not Clone; thread-safe; fork-safe (a pool inherited through
/// `fork()` is wiped and empty in the child, which then signs with fresh
/// nonces or refills it; the parent keeps its pairs).
pub struct SignaturePool {
    entries: Mutex<PoolEntries>,
}

/// The pairs and the [`crate::rand::fork_generation`] they were drawn in.
pub(super) struct PoolEntries {
    pairs: Vec<PoolEntry>,
    generation: u64,
}

impl core::ops::Deref for PoolEntries {
    type Target = Vec<PoolEntry>;
    fn deref(&self) -> &Vec<PoolEntry> {
        &self.pairs
    }
}

impl core::ops::DerefMut for PoolEntries {
    fn deref_mut(&mut self) -> &mut Vec<PoolEntry> {
        &mut self.pairs
    }
}

impl core::fmt::Debug for SignaturePool {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "SignaturePool {{ remaining: {} }}", self.remaining())
    }
}

impl SignaturePool {
    /// A pool of `n` pairs (n ≤ 1,000,000), computed now.
    pub fn new(n: usize) -> Result<Self> {
        let generation = crate::rand::fork_generation();
        let pool = SignaturePool { entries: Mutex::new(PoolEntries { pairs: Vec::new(), generation }) };
        pool.refill(n)?;
        Ok(pool)
    }

    /// Pairs left.
    pub fn remaining(&self) -> usize {
        self.lock().len()
    }

    /// The pairs, after wiping them if this is a forked child's copy.
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, PoolEntries> {
        // A panic while holding the lock can't leave entries half-written
        // (pushes and pops are atomic w.r.t. the data), so poison is ignored.
        let mut guard = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let now = crate::rand::fork_generation();
        if guard.generation != now {
            // Zeroizing a Vec wipes its whole capacity and empties it.
            guard.pairs.zeroize();
            guard.generation = now;
        }
        guard
    }

    /// Adds `n` fresh pairs (the pool holds at most 1,000,000).
    pub fn refill(&self, n: usize) -> Result<()> {
        let drawn_in = crate::rand::fork_generation();
        let have = self.remaining();
        if n > MAX_POOL || have + n > MAX_POOL {
            return Err(Error::invalid(format!(
                "signature pool size must be at most {MAX_POOL} (has {have}, asked to add {n})"
            )));
        }
        const CHUNK: usize = 256;
        let chunks: Vec<usize> = (0..n).step_by(CHUNK).map(|i| CHUNK.min(n - i)).collect();
        // One chunk runs on the calling thread: handing it to the pool's
        // thread gains nothing and costs a wake-up, a wait and the worker's
        // spin before it sleeps (about a tenth of a 64-nonce refill).
        let fresh: Result<Vec<Vec<PoolEntry>>> = if chunks.len() <= 1 {
            chunks.iter().map(|&c| Self::generate(c)).collect()
        } else {
            crate::par::install(|| chunks.par_iter().map(|&c| Self::generate(c)).collect())
        };
        let mut fresh = fresh?;
        let mut entries = self.lock();
        // Another thread may have refilled meanwhile: the bound holds under
        // the lock. A fork during generation leaves the fresh pairs in both
        // processes: only the one they were drawn in keeps them.
        let result = if drawn_in != entries.generation {
            Err(Error::invalid("the process forked while the signature pool was being refilled; refill it again"))
        } else if entries.len() + n > MAX_POOL {
            Err(Error::invalid(format!(
                "signature pool size must be at most {MAX_POOL} (has {}, asked to add {n})",
                entries.len()
            )))
        } else {
            reserve_wiping(&mut entries.pairs, n);
            for chunk in fresh.iter() {
                entries.extend_from_slice(chunk);
            }
            Ok(())
        };
        fresh.iter_mut().for_each(|chunk| chunk.zeroize());
        result
    }

    /// `n` pairs with one shared inversion (Montgomery's trick).
    pub(super) fn generate(n: usize) -> Result<Vec<PoolEntry>> {
        let mut ks = Vec::with_capacity(n);
        let mut kls = Zeroizing::new(Vec::with_capacity(n));
        for _ in 0..n {
            let k = random_scalar(&[b"SM2 signature pool"])?;
            kls.push(k.to_canonical());
            ks.push(k);
        }
        // Eight at a time on IFMA lanes where the CPU has them.
        let mut pts: Vec<Jacobian> = super::mul_g_many(&kls);
        kls.zeroize();
        let mut aff = batch_to_affine(&pts);
        pts.zeroize();
        let out = ks
            .iter()
            .zip(aff.iter())
            .map(|(k, p)| PoolEntry { k: *k, x1: Scalar::from_limbs_reduce(&p.x.to_canonical()) })
            .collect();
        ks.zeroize();
        aff.zeroize();
        Ok(out)
    }

    /// Removes one pair, wiping its slot.
    pub(super) fn take(&self) -> Option<Zeroizing<PoolEntry>> {
        let mut entries = self.lock();
        let last = entries.last_mut()?;
        let e = Zeroizing::new(*last);
        last.zeroize();
        entries.pop();
        Some(e)
    }
}

/// Makes room for `extra` more entries without leaving the nonces behind in
/// freed memory: `Vec`'s own growth would copy them to a new buffer and free
/// the old one unwiped, so the old buffer is wiped here before it goes.
fn reserve_wiping(entries: &mut Vec<PoolEntry>, extra: usize) {
    if entries.capacity() - entries.len() >= extra {
        return;
    }
    let mut grown = Vec::with_capacity(entries.len() + extra);
    grown.extend_from_slice(entries);
    // Zeroizing a Vec wipes its whole capacity, then the old buffer is freed.
    entries.zeroize();
    *entries = grown;
}

impl Drop for SignaturePool {
    fn drop(&mut self) {
        // Zeroizing a Vec wipes its whole capacity.
        self.lock().zeroize();
    }
}
