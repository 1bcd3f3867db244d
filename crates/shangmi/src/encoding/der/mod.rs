//! The one DER reader and writer of the crate: X.509, CMS, the SM2 and SM9
//! key, signature and ciphertext formats, and PKCS#8/PBES2 all use it.
//!
//! Why our own and not the RustCrypto `der` crate (measured 2026-12-06):
//! - **BER.** PKCS#12 files from real CAs and CMS from BouncyCastle use
//!   indefinite lengths; `der` refuses them by design. [`Reader::ber`] reads
//!   them (bounded, iteratively), while [`Reader::new`] stays strict DER.
//! - **Messages.** A failure names the structure, the field and the
//!   numbers ("invalid SubjectPublicKeyInfo: truncated DER: length 300
//!   exceeds the 12 bytes left"); `der` reports a kind and a byte offset,
//!   which every caller had to translate.
//! - **Real-world leniency where the standards need it.** UTCTime years
//!   1950–1969 (`der`'s `DateTime` starts at 1970), 21-octet serials,
//!   byte-exact slices of what was signed.
//! - **Size.** Reader, writer, tags and times are ~550 lines besides their
//!   tests (the OID type and every OID constant another ~200); the
//!   `der`/`spki`/`pkcs8`/`sec1` stack with `const-oid` and `der_derive`
//!   is ~22,400 lines (counted in their 0.7/0.10/0.9 sources) and served
//!   five structures, while X.509 and CMS already had their own reader.
//! - **Speed** is not a reason either way: key and certificate parsing is
//!   a few hundred bytes per call, far below the public-key operation that
//!   follows it.
//!
//! Bounds: every length is checked against the bytes actually left before
//! any slice is taken; nothing is allocated from a length read off the wire
//! (the reader only borrows); nesting is bounded by [`MAX_DEPTH`] for nested
//! readers and for the scan over indefinite-length BER; lengths wider than
//! 4 octets are refused. Malformed input is an [`Error::InvalidInput`](crate::Error)
//! (callers turn it into `InvalidKey`/`InvalidSignature` where that is the
//! better kind), never a panic.

mod ber;
mod reader;
pub mod tags;
mod time;
mod writer;

pub use ber::normalize as normalize_ber;
pub use reader::{bit_string_bytes, single, Reader, Tlv, MAX_DEPTH};
pub use tags::*;
pub use time::{
    civil_from_days, days_from_civil, encode_generalized_time, encode_time, format_time, parse_time, MAX_TIME, MIN_TIME,
};
pub use writer::*;

pub use super::oid::ObjectIdentifier;
