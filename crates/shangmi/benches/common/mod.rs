//! CPU-time clocks for the benchmarks, so that other load on the machine
//! does not inflate the figures (`openssl speed` divides by its CPU time
//! likewise). Wall time where the platform has no such clock. Each bench
//! that times CPU declares `mod common;`.
#![allow(dead_code)] // each bench uses one of the two clocks

pub mod tls;

#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn clock_ns(clock: i32) -> u64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    extern "C" {
        fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
    }
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: clock_gettime writes one timespec (two longs on 64-bit Linux)
    // to the valid pointer given.
    unsafe { clock_gettime(clock, &mut ts) };
    ts.sec as u64 * 1_000_000_000 + ts.nsec as u64
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn clock_ns(_clock: i32) -> u64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    START.get_or_init(Instant::now).elapsed().as_nanos() as u64
}

/// This thread's CPU time in nanoseconds.
pub fn thread_ns() -> u64 {
    clock_ns(3) // CLOCK_THREAD_CPUTIME_ID
}

/// This process's CPU time in nanoseconds (all threads: batch rows that run
/// on the pool's threads).
pub fn process_ns() -> u64 {
    clock_ns(2) // CLOCK_PROCESS_CPUTIME_ID
}
