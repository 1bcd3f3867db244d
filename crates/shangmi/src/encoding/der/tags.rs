//! Tag octets (X.690 8.1.2): universal tags, and the context-specific ones
//! built by [`ctx`] and [`ctx_prim`]. Only single-octet tags (numbers up to
//! 30) exist in the structures we read; the reader refuses longer ones.

pub const BOOLEAN: u8 = 0x01;
pub const INTEGER: u8 = 0x02;
pub const BIT_STRING: u8 = 0x03;
pub const OCTET_STRING: u8 = 0x04;
pub const NULL: u8 = 0x05;
pub const OID: u8 = 0x06;
pub const ENUMERATED: u8 = 0x0A;
pub const UTF8_STRING: u8 = 0x0C;
pub const PRINTABLE_STRING: u8 = 0x13;
pub const TELETEX_STRING: u8 = 0x14;
pub const IA5_STRING: u8 = 0x16;
pub const UTC_TIME: u8 = 0x17;
pub const GENERALIZED_TIME: u8 = 0x18;
pub const UNIVERSAL_STRING: u8 = 0x1C;
pub const BMP_STRING: u8 = 0x1E;
pub const SEQUENCE: u8 = 0x30;
pub const SET: u8 = 0x31;

/// The constructed bit of a tag octet.
pub const CONSTRUCTED: u8 = 0x20;

/// Context-specific constructed tag `[n]`.
pub const fn ctx(n: u8) -> u8 {
    0xA0 | n
}

/// Context-specific primitive tag `[n]` (IMPLICIT on a primitive type).
pub const fn ctx_prim(n: u8) -> u8 {
    0x80 | n
}
