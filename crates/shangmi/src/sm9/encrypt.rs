//! SM9 public-key encryption (GM/T 0044.4): K = KDF(C1 ‖ w ‖ IDB, k1len + 32)
//! = K1 ‖ K2, C2 = M ⊕ K1 (or SM4-ECB/CBC under K1), C3 = MAC(K2, C2).
//!
//! Options: the cipher (KDF stream, SM4-ECB, SM4-CBC with IV ‖ ciphertext in
//! C2, both with PKCS#7 padding), the MAC (the standard's SM3(C2 ‖ K2) or
//! GmSSL's HMAC-SM3(K2, C2)) and the layout (C1‖C3‖C2, C1‖C2‖C3 or GmSSL's
//! DER SEQUENCE { EnType, C1, C3, C2 }, EnType 0 = stream, 1 = ECB, 2 = CBC).

use super::enc::{EncMasterPublicKey, EncPrivateKey};
use super::fp::Scalar;
use super::g1;
use super::hash::random_scalar;
use crate::sm3;
use crate::sm4::{self, Sm4};
use crate::{Error, Result};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

/// How C2 is formed from the plaintext.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cipher {
    /// C2 = M ⊕ K1 (K1 as long as M).
    Xor,
    /// SM4-ECB under a 16-byte K1, PKCS#7 padding.
    Sm4Ecb,
    /// SM4-CBC under a 16-byte K1, PKCS#7 padding, C2 = IV ‖ ciphertext.
    Sm4Cbc,
}

impl Cipher {
    fn en_type(self) -> u8 {
        match self {
            Cipher::Xor => 0,
            Cipher::Sm4Ecb => 1,
            Cipher::Sm4Cbc => 2,
        }
    }
}

/// How C3 is computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mac {
    /// SM3(C2 ‖ K2), the standard's MAC.
    Sm3,
    /// HMAC-SM3(K2, C2), what GmSSL writes and expects.
    HmacSm3,
}

/// The ciphertext layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    C1C3C2,
    C1C2C3,
    Der,
}

/// Encryption options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub cipher: Cipher,
    pub mac: Mac,
    pub layout: Layout,
}

impl Default for Options {
    fn default() -> Self {
        Options { cipher: Cipher::Xor, mac: Mac::Sm3, layout: Layout::C1C3C2 }
    }
}

const K2_LEN: usize = 32;

fn mac(m: Mac, k2: &[u8], c2: &[u8]) -> [u8; 32] {
    match m {
        Mac::Sm3 => sm3::hash_parts(&[c2, k2]),
        Mac::HmacSm3 => sm3::hmac(k2, c2),
    }
}

fn k1_len(cipher: Cipher, mlen: usize) -> usize {
    match cipher {
        Cipher::Xor => mlen,
        _ => 16,
    }
}

/// Encryption with a given r and IV (tests inject both); `None` when K1 is all zero (retry).
pub(crate) fn encrypt_injected(
    mpk: &EncMasterPublicKey,
    msg: &[u8],
    uid: &[u8],
    hid: u8,
    opts: Options,
    r: &Scalar,
    iv: &[u8; 16],
) -> Result<Option<Vec<u8>>> {
    let c1 = mpk.mul_user_point(uid, hid, r)?;
    let c1b = g1::encode(&c1);
    let mut w = mpk.g_pow(r);
    let mut wb = Zeroizing::new(w.to_bytes());
    w.zeroize();
    let k1len = k1_len(opts.cipher, msg.len());
    let mut k = Zeroizing::new(vec![0u8; k1len + K2_LEN]);
    sm3::kdf_into(&[&c1b[1..], &wb[..], uid], &mut k);
    wb.zeroize();
    let (k1, k2) = k.split_at(k1len);
    if crate::ctime::public_bool(super::enc::all_zero(k1)) {
        return Ok(None);
    }
    let c2 = match opts.cipher {
        Cipher::Xor => msg.iter().zip(k1).map(|(m, k)| m ^ k).collect::<Vec<u8>>(),
        Cipher::Sm4Ecb => sm4::modes::ecb_encrypt(&Sm4::from_slice(k1)?, msg, true)?,
        Cipher::Sm4Cbc => {
            let mut out = iv.to_vec();
            out.extend_from_slice(&sm4::modes::cbc_encrypt_expanded(&Sm4::from_slice(k1)?, iv, msg, true)?);
            out
        }
    };
    let c3 = mac(opts.mac, k2, &c2);
    crate::ctime::declassify(&c2[..]);
    crate::ctime::declassify(&c3);
    Ok(Some(assemble(opts, &c1b, &c3, &c2)))
}

fn assemble(opts: Options, c1: &[u8; 65], c3: &[u8; 32], c2: &[u8]) -> Vec<u8> {
    match opts.layout {
        Layout::C1C3C2 => [&c1[..], c3, c2].concat(),
        Layout::C1C2C3 => [&c1[..], c2, c3].concat(),
        Layout::Der => crate::encoding::sm9::wire::cipher_to_der(opts.cipher.en_type(), c1, c3, c2),
    }
}

/// Public-key encryption of a non-empty plaintext to (uid, hid).
pub fn encrypt(mpk: &EncMasterPublicKey, msg: &[u8], uid: &[u8], hid: u8, opts: Options) -> Result<Vec<u8>> {
    if msg.is_empty() {
        return Err(Error::invalid(
            "SM9 cannot encrypt an empty plaintext (the standard's K1 = 0 retry would never end for the stream cipher)",
        ));
    }
    loop {
        let mut r = random_scalar()?;
        let mut iv = [0u8; 16];
        if opts.cipher == Cipher::Sm4Cbc {
            crate::rand::fill(&mut iv)?;
        }
        let out = encrypt_injected(mpk, msg, uid, hid, opts, &r, &iv);
        r.zeroize();
        if let Some(c) = out? {
            return Ok(c);
        }
    }
}

/// Splits a ciphertext into (C1 bytes, C3, C2) per the layout, C1 taking
/// `c1len` bytes (65 with the 04 prefix, 64 without) unless DER.
fn split(ct: &[u8], opts: Options, c1len: usize) -> Result<(&[u8], &[u8], &[u8])> {
    let fail = Error::DecryptionFailed;
    match opts.layout {
        Layout::Der => {
            let p = crate::encoding::sm9::wire::cipher_from_der(ct).ok_or(fail.clone())?;
            if p.en_type != u64::from(opts.cipher.en_type()) {
                return Err(fail);
            }
            Ok((p.c1, p.c3, p.c2))
        }
        _ => {
            if ct.len() <= c1len + 32 {
                return Err(fail);
            }
            let (c1, rest) = ct.split_at(c1len);
            Ok(match opts.layout {
                Layout::C1C3C2 => (c1, &rest[..32], &rest[32..]),
                _ => (c1, &rest[rest.len() - 32..], &rest[..rest.len() - 32]),
            })
        }
    }
}

/// Decryption: the plaintext, or one opaque [`Error::DecryptionFailed`] for any failure.
pub fn decrypt(key: &EncPrivateKey, ct: &[u8], uid: Option<&[u8]>, opts: Options) -> Result<Zeroizing<Vec<u8>>> {
    let uid = key.resolve_uid(uid)?;
    // C1 comes with or without 04; an x starting with byte 04 is told apart
    // by which reading is a curve point (C1 is public).
    let parsed = [65, 64].iter().filter(|&&l| l == 64 || ct.first() == Some(&4)).find_map(|&l| {
        let (c1b, c3, c2) = split(ct, opts, l).ok()?;
        Some((g1::decode(c1b, "").ok()?, c3, c2))
    });
    let (c1, c3, c2) = parsed.ok_or(Error::DecryptionFailed)?;
    let k1len = match opts.cipher {
        Cipher::Xor => c2.len(),
        Cipher::Sm4Ecb => {
            if c2.is_empty() || c2.len() % 16 != 0 {
                return Err(Error::DecryptionFailed);
            }
            16
        }
        Cipher::Sm4Cbc => {
            if c2.len() < 32 || c2.len() % 16 != 0 {
                return Err(Error::DecryptionFailed);
            }
            16
        }
    };
    let mut w = key.pair(&c1);
    let mut wb = Zeroizing::new(w.to_bytes());
    w.zeroize();
    let mut k = Zeroizing::new(vec![0u8; k1len + K2_LEN]);
    sm3::kdf_into(&[&g1::encode_xy(&c1), &wb[..], uid], &mut k);
    wb.zeroize();
    let (k1, k2) = k.split_at(k1len);
    let zero_k1 = super::enc::all_zero(k1);
    let u = mac(opts.mac, k2, c2);
    let ok = u.ct_eq(<&[u8; 32]>::try_from(c3).map_err(|_| Error::DecryptionFailed)?) & !zero_k1;
    if !crate::ctime::public_bool(ok) {
        return Err(Error::DecryptionFailed);
    }
    let m = match opts.cipher {
        Cipher::Xor => c2.iter().zip(k1).map(|(c, k)| c ^ k).collect::<Vec<u8>>(),
        Cipher::Sm4Ecb => {
            sm4::modes::ecb_decrypt(&Sm4::from_slice(k1)?, c2, true).map_err(|_| Error::DecryptionFailed)?
        }
        Cipher::Sm4Cbc => {
            let mut iv = [0u8; 16];
            iv.copy_from_slice(&c2[..16]);
            sm4::modes::cbc_decrypt_expanded(&Sm4::from_slice(k1)?, &iv, &c2[16..], true)
                .map_err(|_| Error::DecryptionFailed)?
        }
    };
    Ok(Zeroizing::new(m))
}
