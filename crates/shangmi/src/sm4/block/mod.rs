//! The SM4 block function: the portable kernels (table-free SWAR for single
//! blocks, bitsliced runs of 64 blocks, both over the tower-field S-box
//! circuit) and the x86-64 SIMD kernels, with the S-box algebra they share.

pub(crate) mod bitsliced;
pub(crate) mod portable;
pub(crate) mod sbox;
#[cfg(target_arch = "x86_64")]
pub(crate) mod simd;
mod tower;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
