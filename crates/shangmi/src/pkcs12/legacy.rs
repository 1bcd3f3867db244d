//! The PKCS#12 password-based encryption schemes of RFC 7292 appendix C
//! that real files use, read only: pbeWithSHAAnd3-KeyTripleDES-CBC,
//! pbeWithSHAAnd2-KeyTripleDES-CBC, pbeWithSHAAnd128BitRC2-CBC and
//! pbewithSHAAnd40BitRC2-CBC (keys and IVs from the PKCS#12 KDF with SHA-1).

use cbc::cipher::{block_padding::Pkcs7, BlockDecryptMut, InnerIvInit, KeyIvInit};
use zeroize::Zeroizing;

use super::kdf::{derive, Digest, ID_IV, ID_KEY};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::Result;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pbe {
    Des3,
    Des2,
    Rc2_128,
    Rc2_40,
}

impl Pbe {
    pub(crate) fn from_oid(o: &ObjectIdentifier) -> Option<Pbe> {
        if *o == oid::PBE_SHA1_3DES {
            Some(Pbe::Des3)
        } else if *o == oid::PBE_SHA1_2DES {
            Some(Pbe::Des2)
        } else if *o == oid::PBE_SHA1_RC2_128 {
            Some(Pbe::Rc2_128)
        } else if *o == oid::PBE_SHA1_RC2_40 {
            Some(Pbe::Rc2_40)
        } else {
            None
        }
    }

    fn key_len(self) -> usize {
        match self {
            Pbe::Des3 => 24,
            Pbe::Des2 | Pbe::Rc2_128 => 16,
            Pbe::Rc2_40 => 5,
        }
    }

    /// Decrypts `data` (CBC, PKCS#7 padding); `None` when the padding is
    /// wrong (a wrong password or a corrupted file).
    pub(crate) fn decrypt(
        self,
        bmp_password: &[u8],
        salt: &[u8],
        iterations: u32,
        data: &[u8],
    ) -> Result<Option<Zeroizing<Vec<u8>>>> {
        let key = derive(Digest::Sha1, ID_KEY, bmp_password, salt, iterations, self.key_len());
        let iv = derive(Digest::Sha1, ID_IV, bmp_password, salt, iterations, 8);
        let bad = |_| crate::Error::invalid("PKCS#12 PBE: cipher key or IV length");
        let out = match self {
            Pbe::Des3 => cbc::Decryptor::<des::TdesEde3>::new_from_slices(&key, &iv)
                .map_err(bad)?
                .decrypt_padded_vec_mut::<Pkcs7>(data),
            Pbe::Des2 => cbc::Decryptor::<des::TdesEde2>::new_from_slices(&key, &iv)
                .map_err(bad)?
                .decrypt_padded_vec_mut::<Pkcs7>(data),
            Pbe::Rc2_128 | Pbe::Rc2_40 => {
                let c = rc2::Rc2::new_with_eff_key_len(&key, self.key_len() * 8);
                cbc::Decryptor::<rc2::Rc2>::inner_iv_slice_init(c, &iv)
                    .map_err(bad)?
                    .decrypt_padded_vec_mut::<Pkcs7>(data)
            }
        };
        Ok(out.ok().map(Zeroizing::new))
    }
}
