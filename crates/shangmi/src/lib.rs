//! shangmi: the Chinese commercial cryptography suite (SM2, SM3, SM4, SM9, ZUC).
//!
//! This crate is the pure-Rust core: no Python, usable on its own. Every
//! algorithm lives in its own module; shared 256-bit arithmetic lives in
//! [`arith`], DER/PEM formats in [`encoding`].
//!
//! Security conventions (see DESIGN.md): nothing here branches on or indexes
//! memory by a secret unless its name ends in `_vartime`; secrets are zeroized
//! on drop; every decoded input is validated and reported through [`Error`].
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_debug_implementations)]

pub mod arith;
pub mod cfca;
pub mod cms;
pub mod cpu;
#[doc(hidden)]
pub mod ctime;
pub mod encoding;
mod error;
pub mod kex;
pub mod par;
pub mod pkcs12;
pub mod rand;
pub mod sm2;
pub mod sm3;
pub mod sm4;
pub mod sm9;
pub mod tls;
pub mod x509;
pub mod zuc;

pub use error::{Error, Result};

/// The backend each algorithm chose on this CPU under [`cpu`]'s mask, as
/// (algorithm, backend name) pairs.
pub fn backends() -> Vec<(&'static str, &'static str)> {
    vec![
        ("montgomery", arith::backend_name()),
        ("table-scan", arith::scan_name()),
        ("sm2-comb", sm2::comb_backend_name()),
        ("sm3", sm3::backend_name()),
        ("sm3-lanes", sm3::lanes_backend_name()),
        ("sm4", sm4::Backend::selected().name()),
        ("ghash", sm4::ghash_backend_name()),
        ("zuc", zuc::backend_name()),
        ("zuc-lanes", zuc::lanes_backend_name()),
    ]
}

/// What [`cpu`] detected, what its mask left enabled, what it masked, and
/// the backend each algorithm chose: the contents of Python's
/// `shangmi.cpu_features()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CpuReport {
    /// Features the CPU has, by [`cpu::Feature`] name.
    pub detected: Vec<&'static str>,
    /// Detected features not masked by `SHANGMI_CPU_DISABLE`.
    pub enabled: Vec<&'static str>,
    /// Detected features the mask removed.
    pub masked: Vec<&'static str>,
    /// [`backends`].
    pub backends: Vec<(&'static str, &'static str)>,
}

/// The [`CpuReport`] for this process (the mask is read once, at first use).
pub fn cpu_report() -> CpuReport {
    CpuReport {
        detected: cpu::detected().names(),
        enabled: cpu::features().names(),
        masked: cpu::detected().without(cpu::features()).names(),
        backends: backends(),
    }
}

/// xorshift64*, the test suites' generator of arbitrary (not secret) data.
#[cfg(test)]
pub(crate) fn test_rng(seed: u64) -> impl FnMut() -> u64 {
    let mut s = seed | 1;
    move || {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        s.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cpu_report_partitions_the_detected_features() {
        let r = super::cpu_report();
        let mut both: Vec<_> = r.enabled.iter().chain(&r.masked).copied().collect();
        both.sort_unstable();
        let mut detected = r.detected.clone();
        detected.sort_unstable();
        assert_eq!(both, detected);
        assert_eq!(r.backends, super::backends());
    }
}
