//! SM4 engines for aarch64.
//!
//! - `sm4ce-128` ([`sm4e`]): the Armv8.2 SM4 instructions. `SM4E Vd.4S,
//!   Vn.4S` runs four rounds on the state words in the lanes of `Vd` with
//!   the four round keys in `Vn`; eight of them are a block. Rust's
//!   `vsm4eq_u32` is unstable (`stdarch_neon_sm4`), so the instruction is
//!   written with `asm!` in a function compiled with the `sm4` target
//!   feature.
//! - `aese-128` ([`aese`]): without the SM4 instructions, the S-box through
//!   `AESE` (the AES S-box) between two affine byte maps done as `TBL`
//!   nibble lookups on registers, as the x86-64 AES-NI engines do; the
//!   bulk modes (sixteen blocks byte-sliced) and CBC encryption keep the
//!   state in the input map's linear domain, where that map costs nothing.
//!
//! Every function offered to [`crate::sm4::block::Kernel`] is safe and
//! takes the [`crate::cpu`] token that proves its features by value.
//! Constant time: the round keys and data live in registers; `SM4E` and
//! `AESE` have data-independent timing (Arm's DIT list names them), `TBL`
//! indexes a register, not memory; no branch or address depends on keys or
//! data, only on the public length.

pub(crate) mod aese;
pub(crate) mod sm4e;
