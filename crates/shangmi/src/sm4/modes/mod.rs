//! Modes of operation over [`Sm4`](super::Sm4): ECB and CBC (PKCS#7 or
//! none, [`ecb_cbc`]), CTR with a 128-bit counter ([`ctr`]), CFB-128 and OFB
//! ([`cfb_ofb`]), XTS (GB/T 17964-2021 and IEEE 1619 tweak rules, [`xts`]),
//! GCM ([`gcm`]), CCM ([`ccm`]), the one streaming context over CBC, CTR and
//! GCM ([`stream`]) and CBC over many messages at once ([`many`]).
//!
//! Every parallel mode hands the block function batches of
//! [`consts::CHUNK`] bytes so a SIMD kernel can keep 64 blocks in flight.

pub mod ccm;
pub mod cfb_ofb;
pub(crate) mod consts;
pub mod ctr;
pub mod ecb_cbc;
pub mod gcm;
pub mod many;
mod padding;
pub mod stream;
pub mod xts;

pub use cfb_ofb::{cfb_decrypt_in_place, cfb_encrypt_in_place, ofb_apply_in_place};
pub(crate) use consts::CHUNK;
pub use ctr::{ctr_apply_in_place, ctr_apply_into, CtrStream};
pub use ecb_cbc::{
    cbc_decrypt_expanded, cbc_decrypt_into, cbc_encrypt_expanded, cbc_encrypt_into, decrypted_len, ecb_decrypt,
    ecb_decrypt_into, ecb_encrypt, ecb_encrypt_into, encrypted_len, CbcDecryptor, CbcEncryptor,
};
pub(crate) use padding::pad;
pub use xts::{Xts, XtsStandard};

fn xor_in(dst: &mut [u8], src: &[u8]) {
    for (d, s) in dst.iter_mut().zip(src) {
        *d ^= s;
    }
}
