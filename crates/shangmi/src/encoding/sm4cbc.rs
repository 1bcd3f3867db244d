//! The one place the key formats touch SM4: CBC with PKCS#7 padding, for
//! PBES2 and legacy PEM. SM4 itself lives in [`crate::sm4`].

use crate::Result;

pub(super) fn encrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Result<Vec<u8>> {
    crate::sm4::cbc_encrypt(key, iv, data, true)
}

pub(super) fn decrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Result<Vec<u8>> {
    crate::sm4::cbc_decrypt(key, iv, data, true)
}
