//! The one place the key formats touch SM4: CBC with PKCS#7 padding, for
//! PBES2 and legacy PEM. SM4 itself lives in `crate::sm4` (another
//! engineer's module); until its CBC functions land this wrapper reports
//! that SM4-CBC is unavailable instead of re-implementing SM4 here.

use crate::{Error, Result};

fn unavailable() -> Error {
    Error::invalid("SM4-CBC is not available in this build yet (needed for PBKDF2-HMAC-SM3 + SM4-CBC encrypted keys)")
}

pub(super) fn encrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Result<Vec<u8>> {
    let _ = (key, iv, data);
    Err(unavailable())
}

pub(super) fn decrypt(key: &[u8; 16], iv: &[u8; 16], data: &[u8]) -> Result<Vec<u8>> {
    let _ = (key, iv, data);
    Err(unavailable())
}
