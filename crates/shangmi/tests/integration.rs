//! The integration tests: one test binary whose modules are the files of
//! this folder (each a theme: vectors, formats, protocols, interop
//! transcripts), sharing `common`'s loaders. One binary, not one per file:
//! with the release profile's fat LTO every test binary is a whole-program
//! link of the library, and two dozen of them were most of the test build's
//! time. `ctgrind.rs` stays its own binary (it needs the `ctime` feature).
//!
//! `cargo test -p shangmi --release --test integration [MODULE::]` runs
//! them, or one module's.

mod common;

mod cfca;
mod cms_wild;
mod encoding;
mod ocsp;
mod pkcs12;
mod pkcs7;
mod sm2_errors;
mod sm2_fast_paths;
mod sm2_lanes;
mod sm2_lazy_keys;
mod sm2_reference;
mod sm2_vectors;
mod sm4_vectors;
mod sm9_subgroup;
mod sm9_vectors;
mod sm9_verify_many;
mod tlcp;
mod tlcp_transcripts;
mod tls13;
mod tls13_interop;
mod tls13_transcripts;
mod transcript;
mod x509;
mod x509_crl_freshness;
mod zuc;
