//! ZUC stream cipher (GB/T 33133.1-2016, GM/T 0001-2012): ZUC-128 and
//! ZUC-256 keystream generators, the 3GPP confidentiality algorithm 128-EEA3,
//! the integrity algorithm 128-EIA3 and the ZUC-256 MAC (32/64/128-bit tags).
//!
//! Lengths are in bits where the standards say so: `length_bits` may be any
//! value up to 8·len(data); EEA3 output carries ceil(length_bits/8) bytes with
//! the bits beyond `length_bits` cleared, and the MACs ignore those bits.
//!
//! Constant time: no table is indexed by key-dependent data (see [`sbox`]
//! for how S0 and S1 are computed). Keys and states are wiped on drop.
//!
//! Many messages at once: [`eea3_many`] / [`eia3_many`] take a list of
//! [`Message`]s (the form base stations use for many bearers); on x86-64 the
//! SIMD kernels run them in the lanes of vector registers (sixteen in
//! 512-bit registers for EEA3 with AVX-512 and GFNI, 2 × 8 in AVX2
//! registers otherwise), removing the serial R1/R2 chain that bounds one
//! stream. A message that arrives in pieces: [`Keystream::eea3`] and
//! [`Keystream::xor`].
//!
//! Kernels, chosen once per process through [`crate::cpu`] (so
//! `SHANGMI_CPU_DISABLE` selects the slower ones) and named
//! `<engine>-<register width>` by [`backend_name`] and
//! [`lanes_backend_name`]: one stream on "gfni-avx512-128",
//! "aesni-avx512-128", "gfni-avx2-128", "aesni-avx2-128" (S1 by GFNI or
//! AES-NI, F's step in xmm registers with AVX-512VL or AVX2 instructions)
//! or "portable-32"; many messages on "gfni-512" (zmm lanes), "gfni-256" or
//! "aesni-256" (ymm lanes), or one after the other. On aarch64 one stream
//! runs on "aese-pmull-128" (F on NEON registers, S1 by `AESE`, the MAC by
//! `PMULL`) or "aese-128" (the MAC portable), and many messages one after
//! the other on it.

#[cfg(target_arch = "aarch64")]
mod aarch64;
mod core;
#[cfg(test)]
mod diff_tests;
mod kernel;
mod mac;
mod many;
mod ops;
mod params;
mod sbox;
mod spec;
mod stream;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use many::{eea3_many, eea3_many_into, eea3_many_output_lens, eia3_many};
pub use ops::{eea3, eea3_into, eia3, zuc256_mac};
pub use params::{
    eea3_output_len, keystream_request, keystream_words_request, zuc256_pack_iv, Message, KEY_SIZE_128, KEY_SIZE_256,
    MAX_KEYSTREAM_BYTES, MAX_KEYSTREAM_WORDS,
};
pub use stream::Keystream;

/// The one-stream kernel in use (see the module documentation).
pub fn backend_name() -> &'static str {
    kernel::Kernel::auto().name()
}

/// The kernel [`eea3_many`] uses (see the module documentation); the
/// one-stream kernel's name when messages go one after the other.
pub fn lanes_backend_name() -> &'static str {
    kernel::Kernel::auto().lanes().name()
}
