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
//! SIMD backends run them in the lanes of vector registers (sixteen in
//! 512-bit registers for EEA3 on [`Backend::Gfni`], 2 × 8 in AVX2 registers
//! otherwise), removing the serial R1/R2 chain that bounds one stream.
//! A message that arrives in pieces: [`Keystream::eea3`] and
//! [`Keystream::xor`].
//!
//! Backends: [`Backend::Gfni`] (AVX-512 with GFNI), [`Backend::Avx512`],
//! [`Backend::GfniAvx2`] and [`Backend::Simd`] (x86-64 with AVX2, AES-NI and
//! PCLMULQDQ; the first two also use AVX-512VL rotations and three-way XORs,
//! the GFNI ones compute S1 with GFNI) and
//! [`Backend::Portable`]; [`Backend::auto`] picks the best available one
//! that [`crate::cpu`] allows.

mod backend;
mod core;
mod mac;
mod many;
mod ops;
mod params;
mod sbox;
mod spec;
mod stream;
#[cfg(target_arch = "x86_64")]
mod x86;
#[cfg(target_arch = "x86_64")]
mod x86_f;
#[cfg(target_arch = "x86_64")]
mod x86_many;
#[cfg(target_arch = "x86_64")]
mod x86_x16;

pub use backend::Backend;
pub use many::{
    eea3_many, eea3_many_into, eea3_many_output_lens, eea3_many_with_backend, eia3_many, eia3_many_with_backend,
};
pub use ops::{eea3, eea3_into, eea3_with_backend, eia3, eia3_with_backend, zuc256_mac, zuc256_mac_with_backend};
pub use params::{
    eea3_output_len, keystream_request, keystream_words_request, zuc256_pack_iv, Message, KEY_SIZE_128, KEY_SIZE_256,
    MAX_KEYSTREAM_BYTES, MAX_KEYSTREAM_WORDS,
};
pub use stream::Keystream;
