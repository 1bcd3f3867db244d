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
pub mod cpu;
#[doc(hidden)]
pub mod ctime;
pub mod encoding;
mod error;
pub mod rand;
pub mod sm2;
pub mod sm3;
pub mod sm4;
pub mod sm9;
pub mod zuc;

pub use error::{Error, Result};

/// The backend each algorithm chose on this CPU under [`cpu`]'s mask, as
/// (algorithm, backend name) pairs.
pub fn backends() -> Vec<(&'static str, &'static str)> {
    vec![
        ("sm2-field", sm2::field::backend_name()),
        ("sm2-scan", sm2::mul::scan_name()),
        ("sm3", sm3::backend_name()),
        ("sm4", sm4::Backend::selected().name()),
        ("zuc", zuc::Backend::auto().name()),
    ]
}
