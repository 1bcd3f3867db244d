//! DER/PEM formats: PKCS#8, SPKI, SEC1, GM/T 0009 structures.
//!
//! Everything here works on plain byte arrays (points as `04||x||y`, scalars
//! as 32 big-endian bytes), so the formats do not depend on how the curve
//! arithmetic represents them. Parsing is strict DER: trailing bytes,
//! non-minimal lengths or integers, wrong OIDs all give a clear error.
//!
//! | structure | read | write |
//! |---|---|---|
//! | SM2 signature `SEQUENCE { r INTEGER, s INTEGER }` | yes | yes |
//! | GM/T 0009 `SM2Cipher` | yes | yes |
//! | SPKI (id-ecPublicKey + SM2 curve, or the SM2 OID alone) | yes | yes (id-ecPublicKey) |
//! | PKCS#8 `PrivateKeyInfo` wrapping SEC1 `ECPrivateKey` | yes | yes |
//! | SEC1 `EC PRIVATE KEY` / OpenSSL 3's `SM2 PRIVATE KEY` | yes | yes |
//! | PBES2 PBKDF2-HMAC-SM3 + SM4-CBC (GmSSL) | yes | yes |
//! | PBES2 PBKDF2-HMAC-SHA1/224/256/384/512 + AES-128/192/256-CBC (OpenSSL) | yes | SHA-256 + AES-256-CBC |
//! | legacy `Proc-Type: 4,ENCRYPTED` PEM (EVP_BytesToKey/MD5) | yes | no |
//!
//! [`sm2`](self::sm2) has the same operations on [`crate::sm2`] key, signature and ciphertext types.

mod keys;
mod pbe;
pub mod pem;
pub mod sm2;
mod sm2_der;
pub mod sm2_modes;
mod sm4cbc;

pub use keys::{
    private_key_from_der, private_key_from_der_capped, private_key_from_pem, private_key_from_pem_capped,
    private_key_to_pkcs8_der, private_key_to_sec1_der, public_key_from_der, public_key_from_pem,
    public_key_to_spki_der, DecodedPrivateKey, PrivateKeyFormat,
};
pub(crate) use pbe::decrypt_pkcs8_der;
pub use pbe::{encrypt_pkcs8_der, KeyEncryption, Pbes2Params, DEFAULT_ITERATIONS, DEFAULT_MAX_ITERATIONS};
pub use sm2_der::{cipher_from_der, cipher_to_der, signature_from_der, signature_to_der};

use der::asn1::ObjectIdentifier;

/// Object identifiers used by the SM2 key formats.
pub mod oid {
    use super::ObjectIdentifier;
    /// id-ecPublicKey (RFC 5480).
    pub const EC_PUBLIC_KEY: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.10045.2.1");
    /// The SM2 curve / SM2 algorithm (GM/T 0006).
    pub const SM2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.301");
    /// SM2 signature with SM3 (GM/T 0006), the X.509 and CMS signature algorithm.
    pub const SM2_WITH_SM3: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.501");
    /// SM2 encryption (GM/T 0006 .301.3) and the key-transport OID GmSSL writes (.301.2).
    pub const SM2_ENCRYPT: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.301.3");
    pub const SM2_EXCHANGE: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.301.2");
    /// SM3 (GM/T 0006).
    pub const SM3: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.401");
    /// PBES2 and PBKDF2 (PKCS#5 v2, RFC 8018).
    pub const PBES2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.5.13");
    pub const PBKDF2: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.1.5.12");
    /// HMAC-SM3 as GmSSL writes it (GM/T 0006 "SM3 with key").
    pub const HMAC_SM3: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.401.2");
    /// HMAC-SM3 as OpenSSL >= 3.2 and GM/T 0091 name it (`hmacWithSM3`).
    pub const HMAC_SM3_ALT: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.401.3.1");
    pub const HMAC_SHA1: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.7");
    pub const HMAC_SHA224: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.8");
    pub const HMAC_SHA256: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.9");
    pub const HMAC_SHA384: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.10");
    pub const HMAC_SHA512: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.840.113549.2.11");
    pub const SM4_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("1.2.156.10197.1.104.2");
    pub const AES128_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.2");
    pub const AES192_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.22");
    pub const AES256_CBC: ObjectIdentifier = ObjectIdentifier::new_unwrap("2.16.840.1.101.3.4.1.42");
}

/// The message for every failure to decrypt a private key: a wrong password
/// and a corrupted file look the same from here, and saying more would turn
/// the loader into a padding oracle.
pub(crate) const WRONG_PASSWORD: &str = "could not decrypt the private key: wrong password or corrupted file";

/// Short human name of a DER error for messages ("truncated", "trailing data"...).
pub(crate) fn der_problem(e: &der::Error) -> String {
    use der::ErrorKind::*;
    match e.kind() {
        Incomplete { .. } => "truncated DER".into(),
        TrailingData { .. } => "trailing data after the DER structure".into(),
        Noncanonical { .. } => "non-canonical DER encoding".into(),
        _ => format!("malformed DER ({e})"),
    }
}
