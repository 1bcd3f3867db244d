//! Every byte format of the crate, in one place: the DER codec, the OIDs,
//! PEM, and the SM2 and SM9 key, signature and ciphertext formats. X.509,
//! CMS and (to come) PKCS#12 and TLS build on the same pieces.
//!
//! | module | job |
//! |---|---|
//! | [`der`] | the one DER reader/writer (strict DER; BER on request) |
//! | [`oid`] | every object identifier, once, and their type |
//! | [`pem`] | PEM blocks, with OpenSSL's legacy headers |
//! | [`signature`] | the one signature-encoding choice (DER or raw), for SM2 and SM9 |
//! | [`sm2`] / [`sm2_modes`] | SM2 keys, signatures, ciphertexts on [`crate::sm2`] types; the named layout choices |
//! | [`sm9`] | SM9 signature and ciphertext DER, option names, key files ([`sm9::keys`]) |
//!
//! The SM2 formats work on plain byte arrays (points as `04||x||y`, scalars
//! as 32 big-endian bytes), so they do not depend on how the curve
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
//! | SM9 signature, ciphertext, master and user keys (GmSSL) | yes | yes |

pub mod der;
mod keys;
pub mod oid;
mod pbe;
pub mod pem;
pub mod signature;
pub mod sm2;
mod sm2_der;
pub mod sm2_modes;
mod sm4cbc;
pub mod sm9;

pub use keys::{
    private_key_from_der, private_key_from_der_capped, private_key_from_pem, private_key_from_pem_capped,
    private_key_to_pkcs8_der, private_key_to_sec1_der, public_key_from_der, public_key_from_pem,
    public_key_to_spki_der, DecodedPrivateKey, PrivateKeyFormat,
};
pub(crate) use pbe::decrypt_pkcs8_der;
pub use pbe::{encrypt_pkcs8_der, KeyEncryption, Pbes2Params, DEFAULT_ITERATIONS, DEFAULT_MAX_ITERATIONS};
pub use signature::{SignatureEncoding, SignatureFormat};
pub use sm2_der::{cipher_from_der, cipher_to_der, signature_from_der, signature_to_der};

/// The message for every failure to decrypt a private key: a wrong password
/// and a corrupted file look the same from here, and saying more would turn
/// the loader into a padding oracle.
pub(crate) const WRONG_PASSWORD: &str = "could not decrypt the private key: wrong password or corrupted file";
