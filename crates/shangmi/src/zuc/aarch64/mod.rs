//! ZUC's aarch64 kernel: one stream with F's step on NEON registers, S1
//! by `AESE` and S0 by `TBL` nibble lookups (`f.rs`, `stream.rs`), and the
//! EIA3 / ZUC-256-MAC inner product with `PMULL` (`mac.rs`). It mirrors the
//! x86-64 AES-NI kernel (x86/stream.rs, x86/f.rs) instruction for
//! instruction where NEON has the same operation. Every entry point outside
//! this folder is a safe function taking the [`crate::cpu`] tokens that
//! prove its features.
//!
//! Constant time: the state, the S-box tables and the keystream live in
//! registers or in buffers indexed by public positions only; `TBL` indexes
//! a register, not memory; `AESE` and `PMULL` have data-independent timing
//! (both are on Arm's DIT list); no branch or address depends on the key,
//! the IV or the data, only on the public length.

mod f;
mod mac;
mod stream;

pub(crate) use f::f_update;
pub(crate) use mac::window_xor;
pub(crate) use stream::generator;
