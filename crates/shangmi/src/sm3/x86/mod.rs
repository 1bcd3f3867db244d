//! SM3's x86-64 kernels: the one-message compressions (message expansion
//! in vector registers, rounds in inline assembly) and the lane kernels of
//! `hash_many`. Each entry point is a safe function taking the
//! [`crate::cpu`] tokens that prove its features.

pub(crate) mod avx2;
pub(crate) mod avx512;
pub(crate) mod lanes;
