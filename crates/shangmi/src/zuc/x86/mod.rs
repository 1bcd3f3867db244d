//! ZUC's x86-64 kernels: one stream (`stream.rs`, with F's step in
//! `f.rs`), eight streams in the lanes of ymm registers (`lanes8.rs`) and
//! sixteen in zmm registers (`lanes16.rs`). Every entry point outside this
//! folder is a safe function taking the [`crate::cpu`] tokens that prove
//! its features.

#[cfg(test)]
mod derive_tests;
mod f;
mod lanes16;
mod lanes8;
mod stream;

pub(crate) use f::f_update;
pub(crate) use lanes16::{eea3_x16, LANES as LANES16};
pub(crate) use lanes8::{xor_be, Lanes, Sbox, BLOCK, LANES};
pub(crate) use stream::{generator, window_xor, Form};
