//! SM9 key files in the forms GmSSL writes (`include/gmssl/sm9.h`,
//! `src/sm9_key.c`), and gmsm's bare-element forms on reading.
//!
//! | key | inner DER | PKCS#8 algorithm | PEM label |
//! |---|---|---|---|
//! | sign master key | SEQUENCE { ks INTEGER, Ppubs BIT STRING } | sm9 (.302), params sm9sign (.302.1) | `ENCRYPTED PRIVATE KEY` / `PRIVATE KEY` |
//! | enc master key | SEQUENCE { ke INTEGER, Ppube BIT STRING } | sm9 (.302), params sm9encrypt (.302.3) | same |
//! | sign user key | SEQUENCE { ds BIT STRING, Ppubs BIT STRING } | sm9sign (.302.1), no params | same |
//! | enc / exchange user key | SEQUENCE { de BIT STRING, Ppube BIT STRING } | sm9encrypt (.302.3); .302.2 read too | same |
//! | sign master public key | SEQUENCE { Ppubs BIT STRING } | — | `SM9 SIGN MASTER PUBLIC KEY` |
//! | enc master public key | SEQUENCE { Ppube BIT STRING } | — | `SM9 ENC MASTER PUBLIC KEY` |
//!
//! Private keys are written as PKCS#8 `PrivateKeyInfo`, or with a password
//! as PBES2 (PBKDF2-HMAC-SM3, SM4-CBC: what GmSSL writes and requires).
//! Reading also takes the bare inner SEQUENCE, gmsm's bare elements (a lone
//! INTEGER master key, a lone BIT STRING point; a bare user point needs its
//! master public key from the caller). Every point is validated by the key
//! constructors (on the curve; G2 points also in the subgroup), every scalar
//! range-checked, a master key's stored public key must match the one its
//! scalar gives, and every file-level defect is [`Error::InvalidKey`].

use crate::encoding::der::{self, Reader};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::encoding::{encrypt_pkcs8_der, pem, KeyEncryption};
use crate::sm9::{EncMasterKey, EncMasterPublicKey, EncPrivateKey, SignMasterKey, SignMasterPublicKey, SignPrivateKey};
use crate::{Error, Result};
use zeroize::Zeroizing;

/// GmSSL's PEM label for a signature master public key.
pub const PEM_SIGN_MASTER_PUBLIC_KEY: &str = "SM9 SIGN MASTER PUBLIC KEY";
/// GmSSL's PEM label for an encryption master public key.
pub const PEM_ENC_MASTER_PUBLIC_KEY: &str = "SM9 ENC MASTER PUBLIC KEY";
const PEM_PRIVATE: &str = "PRIVATE KEY";
const PEM_ENCRYPTED: &str = "ENCRYPTED PRIVATE KEY";

/// The SM9 object identifiers of GM/T 0006 used in key files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Alg {
    /// .302, the master keys' algorithm.
    Sm9,
    /// .302.1
    Sign,
    /// .302.2
    KeyAgreement,
    /// .302.3
    Encrypt,
}

impl Alg {
    fn oid(self) -> ObjectIdentifier {
        match self {
            Alg::Sm9 => oid::SM9,
            Alg::Sign => oid::SM9_SIGN,
            Alg::KeyAgreement => oid::SM9_KEY_AGREEMENT,
            Alg::Encrypt => oid::SM9_ENCRYPT,
        }
    }

    fn der(self) -> Vec<u8> {
        der::oid(&self.oid())
    }

    fn parse(o: &ObjectIdentifier) -> Result<Alg> {
        [Alg::Sm9, Alg::Sign, Alg::KeyAgreement, Alg::Encrypt].into_iter().find(|a| a.oid() == *o).ok_or_else(|| {
            Error::invalid_key(format!("not an SM9 key: algorithm OID {o} (expected {} or .302.1/.2/.3)", oid::SM9))
        })
    }
}

fn as_key(e: Error) -> Error {
    match e {
        Error::InvalidInput(m) => Error::InvalidKey(m),
        other => other,
    }
}

/// PKCS#8 `PrivateKeyInfo` { 0, { alg [, params] }, OCTET STRING inner }.
fn pkcs8(alg: Alg, params: Option<Alg>, inner: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut a = alg.der();
    if let Some(p) = params {
        a.extend_from_slice(&p.der());
    }
    der::seq_secret(&[&der::small_int(0), &der::seq(&[&a]), &der::tlv_secret(der::OCTET_STRING, inner)])
}

/// Parses a plain `PrivateKeyInfo`: (alg, params, inner DER).
fn parse_pkcs8(b: &[u8]) -> Result<(Alg, Option<Alg>, Zeroizing<Vec<u8>>)> {
    const W: &str = "SM9 PKCS#8 private key";
    let mut r = Reader::new(der::single(b, der::SEQUENCE, W)?.value, W);
    let version = r.small_uint("version")?;
    if version != 0 {
        return Err(Error::invalid_key(format!("{W}: version {version}, expected 0")));
    }
    let mut ai = r.nested(der::SEQUENCE, "privateKeyAlgorithm")?;
    let inner = r.octets("privateKey")?;
    if !r.is_empty() {
        return Err(Error::invalid_key(format!("{W}: unexpected fields after the private key")));
    }
    let alg = Alg::parse(&ai.oid("algorithm")?)?;
    let params = if ai.is_empty() {
        None
    } else {
        let p = ai.oid("parameters")?;
        if !ai.is_empty() {
            return Err(Error::invalid_key(format!("{W}: trailing bytes in the AlgorithmIdentifier")));
        }
        Some(Alg::parse(&p)?)
    };
    Ok((alg, params, Zeroizing::new(inner.to_vec())))
}

/// A PKCS#8 algorithm identifier: (algorithm, parameters).
type AlgId = (Alg, Option<Alg>);
/// A key file's secret part and the public point stored beside it, if any.
type WithPublic<S> = (S, Option<Vec<u8>>);

/// What the outermost DER of a private-key file is.
enum Shape {
    /// SEQUENCE { SEQUENCE, OCTET STRING }: PBES2 `EncryptedPrivateKeyInfo`.
    Encrypted,
    /// SEQUENCE { INTEGER, SEQUENCE, ... }: `PrivateKeyInfo`.
    Pkcs8,
    /// Anything else: the bare inner structure (GmSSL's inner SEQUENCE or gmsm's element).
    Bare,
}

fn shape(b: &[u8]) -> Result<Shape> {
    const W: &str = "SM9 private key";
    let mut r = Reader::new(b, W);
    let t = r.any().map_err(as_key)?;
    r.finish("the DER structure").map_err(as_key)?;
    if t.tag != der::SEQUENCE {
        return Ok(Shape::Bare);
    }
    let mut inner = r.inner(t.value).map_err(as_key)?;
    let first = inner.any().map_err(as_key)?.tag;
    Ok(match (first, inner.peek_tag()) {
        (der::SEQUENCE, Some(der::OCTET_STRING)) => Shape::Encrypted,
        (der::INTEGER, Some(der::SEQUENCE)) => Shape::Pkcs8,
        _ => Shape::Bare,
    })
}

/// The inner key DER of a private-key file and its PKCS#8 algorithm (None
/// for a bare structure). `password` is required for, and only for, an
/// encrypted file.
fn unwrap_private(b: &[u8], password: Option<&[u8]>) -> Result<(Option<AlgId>, Zeroizing<Vec<u8>>)> {
    match shape(b)? {
        Shape::Encrypted => {
            let pw = password
                .ok_or_else(|| Error::invalid_key("the SM9 private key is encrypted: a password is required"))?;
            let plain = crate::encoding::decrypt_pkcs8_der(b, pw, crate::encoding::DEFAULT_MAX_ITERATIONS)?;
            // A wrong password that leaves valid padding gives garbage: same message.
            let (a, p, inner) = parse_pkcs8(&plain).map_err(|_| Error::invalid_key(crate::encoding::WRONG_PASSWORD))?;
            Ok((Some((a, p)), inner))
        }
        Shape::Pkcs8 | Shape::Bare if password.is_some() => {
            Err(Error::invalid("a password was given but the SM9 private key is not encrypted"))
        }
        Shape::Pkcs8 => {
            let (a, p, inner) = parse_pkcs8(b).map_err(as_key)?;
            Ok((Some((a, p)), inner))
        }
        Shape::Bare => Ok((None, Zeroizing::new(b.to_vec()))),
    }
}

fn wrap_private(alg: Alg, params: Option<Alg>, inner: &[u8], password: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
    let info = pkcs8(alg, params, inner);
    match password {
        None => Ok(info),
        Some(pw) => Ok(Zeroizing::new(encrypt_pkcs8_der(&info, pw, KeyEncryption::Sm3Sm4, None)?)),
    }
}

fn private_pem(der: &[u8], password: Option<&[u8]>) -> Zeroizing<String> {
    pem::encode(if password.is_some() { PEM_ENCRYPTED } else { PEM_PRIVATE }, &[], der)
}

/// The DER of a one-block private-key PEM, its label matching its contents.
fn private_pem_der(data: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let block = pem::decode(data).map_err(as_key)?;
    match block.label.as_str() {
        PEM_PRIVATE | PEM_ENCRYPTED => {
            let encrypted = matches!(shape(&block.der)?, Shape::Encrypted);
            if encrypted != (block.label == PEM_ENCRYPTED) {
                return Err(Error::invalid_key(format!(
                    "PEM label '{}' does not match its contents ({})",
                    block.label,
                    if encrypted { "an encrypted key" } else { "an unencrypted key" }
                )));
            }
            Ok(block.der)
        }
        PEM_SIGN_MASTER_PUBLIC_KEY | PEM_ENC_MASTER_PUBLIC_KEY => {
            Err(Error::invalid_key(format!("this is a master public key (PEM '{}'), not a private key", block.label)))
        }
        other => Err(Error::invalid_key(format!(
            "unsupported PEM label '{other}' for an SM9 private key (expected PRIVATE KEY or ENCRYPTED PRIVATE KEY)"
        ))),
    }
}

fn public_pem_der(data: &[u8], label: &str) -> Result<Zeroizing<Vec<u8>>> {
    let block = pem::decode(data).map_err(as_key)?;
    if block.label != label {
        return Err(Error::invalid_key(format!("expected PEM label '{label}', got '{}'", block.label)));
    }
    Ok(block.der)
}

fn expect_alg(found: Option<AlgId>, allowed: &[AlgId], what: &str) -> Result<()> {
    match found {
        Some(f) if !allowed.contains(&f) => {
            Err(Error::invalid_key(format!("this PKCS#8 file holds a different SM9 key type ({f:?}), not {what}")))
        }
        _ => Ok(()),
    }
}

/// A non-negative INTEGER of at most 32 magnitude bytes, left-padded to 32
/// (range checks are the key constructors').
fn uint256(r: &mut Reader<'_>, field: &str) -> Result<Zeroizing<[u8; 32]>> {
    let mut out = Zeroizing::new([0u8; 32]);
    r.unsigned_into(field, out.as_mut())?;
    Ok(out)
}

/// Master key inner: SEQUENCE { INTEGER, BIT STRING } or gmsm's bare INTEGER:
/// (scalar, stored public point if any).
fn parse_master(inner: &[u8], what: &'static str) -> Result<WithPublic<Zeroizing<[u8; 32]>>> {
    let mut r = Reader::new(inner, what);
    if inner.first() == Some(&der::INTEGER) {
        let k = uint256(&mut r, "master key").map_err(as_key)?;
        r.finish("the INTEGER").map_err(as_key)?;
        return Ok((k, None));
    }
    let mut body = r.nested(der::SEQUENCE, "master key").map_err(as_key)?;
    r.finish("the SEQUENCE").map_err(as_key)?;
    let k = uint256(&mut body, "master key").map_err(as_key)?;
    let p = body.bits("master public key").map_err(as_key)?;
    body.finish("the master public key").map_err(as_key)?;
    Ok((k, Some(p.to_vec())))
}

fn master_inner(k: &[u8; 32], public: &[u8]) -> Zeroizing<Vec<u8>> {
    der::seq_secret(&[&der::uint_secret(k), &der::bits(public)])
}

/// User key inner: SEQUENCE { BIT STRING d, BIT STRING Ppub } or gmsm's bare
/// BIT STRING d: (point bytes, stored master public point if any).
fn parse_user(inner: &[u8], what: &'static str) -> Result<WithPublic<Zeroizing<Vec<u8>>>> {
    let mut r = Reader::new(inner, what);
    if inner.first() == Some(&der::BIT_STRING) {
        let d = r.bits("user key").map_err(as_key)?;
        r.finish("the BIT STRING").map_err(as_key)?;
        return Ok((Zeroizing::new(d.to_vec()), None));
    }
    let mut body = r.nested(der::SEQUENCE, "user key").map_err(as_key)?;
    r.finish("the SEQUENCE").map_err(as_key)?;
    let d = body.bits("user key").map_err(as_key)?;
    let p = body.bits("master public key").map_err(as_key)?;
    body.finish("the master public key").map_err(as_key)?;
    Ok((Zeroizing::new(d.to_vec()), Some(p.to_vec())))
}

fn user_inner(d: &[u8], public: &[u8]) -> Zeroizing<Vec<u8>> {
    let mut bits = Zeroizing::new(Vec::with_capacity(d.len() + 1));
    bits.push(0);
    bits.extend_from_slice(d);
    der::seq_secret(&[&der::tlv_secret(der::BIT_STRING, &bits), &der::bits(public)])
}

/// Master public key: SEQUENCE { BIT STRING } or gmsm's bare BIT STRING.
fn parse_master_public(b: &[u8], what: &'static str) -> Result<Vec<u8>> {
    let mut r = Reader::new(b, what);
    let mut body = if b.first() == Some(&der::SEQUENCE) {
        let body = r.nested(der::SEQUENCE, "master public key").map_err(as_key)?;
        r.finish("the SEQUENCE").map_err(as_key)?;
        body
    } else {
        r
    };
    let p = body.bits("master public key").map_err(as_key)?;
    body.finish("the BIT STRING").map_err(as_key)?;
    Ok(p.to_vec())
}

/// The master public key a user file stores, reconciled with the caller's.
fn pick_master<M: Clone>(stored: Option<M>, given: Option<&M>, same: impl Fn(&M, &M) -> bool, what: &str) -> Result<M> {
    match (stored, given) {
        (Some(s), Some(g)) if !same(&s, g) => {
            Err(Error::invalid_key(format!("{what}: the file's master public key differs from the one given")))
        }
        (Some(s), _) => Ok(s),
        (None, Some(g)) => Ok(g.clone()),
        (None, None) => {
            Err(Error::invalid_key(format!("{what}: the file holds only the user's point; pass its master public key")))
        }
    }
}

macro_rules! master_public_files {
    ($ty:ty, $label:expr, $what:expr) => {
        impl $ty {
            /// GmSSL's DER: SEQUENCE { BIT STRING point }.
            pub fn to_der(&self) -> Vec<u8> {
                der::seq(&[&der::bits(&self.to_bytes())])
            }

            /// PEM under GmSSL's label.
            pub fn to_pem(&self) -> String {
                pem::encode($label, &[], &self.to_der()).to_string()
            }

            /// Reads GmSSL's SEQUENCE { BIT STRING } or gmsm's bare BIT STRING;
            /// the point is validated; any defect is [`Error::InvalidKey`].
            pub fn from_der(b: &[u8]) -> Result<Self> {
                let p = parse_master_public(b, $what)?;
                Self::from_bytes(&p).map_err(as_key)
            }

            /// Reads one PEM block under GmSSL's label.
            pub fn from_pem(data: &[u8]) -> Result<Self> {
                Self::from_der(&public_pem_der(data, $label)?)
            }
        }
    };
}

master_public_files!(SignMasterPublicKey, PEM_SIGN_MASTER_PUBLIC_KEY, "SM9 sign master public key");
master_public_files!(EncMasterPublicKey, PEM_ENC_MASTER_PUBLIC_KEY, "SM9 enc master public key");

macro_rules! master_files {
    ($ty:ty, $pub:ty, $params:expr, $what:expr) => {
        impl $ty {
            /// PKCS#8 as GmSSL writes it (algorithm sm9, the key type as
            /// parameter), PBES2-encrypted when `password` is given.
            pub fn to_der(&self, password: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
                let inner = master_inner(&self.to_bytes(), &self.public_key().to_bytes());
                wrap_private(Alg::Sm9, Some($params), &inner, password)
            }

            /// [`Self::to_der`] as PEM (`ENCRYPTED PRIVATE KEY` with a password, else `PRIVATE KEY`).
            pub fn to_pem(&self, password: Option<&[u8]>) -> Result<Zeroizing<String>> {
                Ok(private_pem(&self.to_der(password)?, password))
            }

            /// Reads PKCS#8 (encrypted needs `password`), GmSSL's inner
            /// SEQUENCE or gmsm's bare INTEGER; the scalar is range-checked
            /// and a stored public key must match it.
            pub fn from_der(b: &[u8], password: Option<&[u8]>) -> Result<Self> {
                let (alg, inner) = unwrap_private(b, password)?;
                expect_alg(alg, &[(Alg::Sm9, Some($params))], $what)?;
                let (k, public) = parse_master(&inner, $what)?;
                let key = Self::from_bytes(k.as_ref()).map_err(as_key)?;
                if let Some(p) = public {
                    let stored = <$pub>::from_bytes(&p).map_err(as_key)?;
                    if stored.to_bytes() != key.public_key().to_bytes() {
                        return Err(Error::invalid_key(format!(
                            "{}: the stored master public key does not match the master key",
                            $what
                        )));
                    }
                }
                Ok(key)
            }

            /// Reads one PEM block (`PRIVATE KEY` or `ENCRYPTED PRIVATE KEY`).
            pub fn from_pem(data: &[u8], password: Option<&[u8]>) -> Result<Self> {
                Self::from_der(&private_pem_der(data)?, password)
            }
        }
    };
}

master_files!(SignMasterKey, SignMasterPublicKey, Alg::Sign, "SM9 sign master key");
master_files!(EncMasterKey, EncMasterPublicKey, Alg::Encrypt, "SM9 enc master key");

impl SignPrivateKey {
    /// PKCS#8 as GmSSL writes it (algorithm sm9sign, SEQUENCE { ds, Ppubs }),
    /// PBES2-encrypted when `password` is given.
    pub fn to_der(&self, password: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
        let inner = user_inner(self.to_bytes().as_ref(), &self.master_public_key().to_bytes());
        wrap_private(Alg::Sign, None, &inner, password)
    }

    /// [`Self::to_der`] as PEM.
    pub fn to_pem(&self, password: Option<&[u8]>) -> Result<Zeroizing<String>> {
        Ok(private_pem(&self.to_der(password)?, password))
    }

    /// Reads PKCS#8 (encrypted needs `password`), GmSSL's inner SEQUENCE or
    /// gmsm's bare BIT STRING (which needs `master_public_key`); a file that
    /// stores a master public key different from a given one is refused.
    pub fn from_der(
        b: &[u8],
        password: Option<&[u8]>,
        master_public_key: Option<&SignMasterPublicKey>,
    ) -> Result<Self> {
        let what = "SM9 sign private key";
        let (alg, inner) = unwrap_private(b, password)?;
        expect_alg(alg, &[(Alg::Sign, None)], what)?;
        let (d, public) = parse_user(&inner, what)?;
        let stored = public.map(|p| SignMasterPublicKey::from_bytes(&p).map_err(as_key)).transpose()?;
        let mpk = pick_master(stored, master_public_key, |a, b| a.to_bytes() == b.to_bytes(), what)?;
        SignPrivateKey::from_bytes(&d, &mpk).map_err(as_key)
    }

    /// Reads one PEM block (`PRIVATE KEY` or `ENCRYPTED PRIVATE KEY`).
    pub fn from_pem(
        data: &[u8],
        password: Option<&[u8]>,
        master_public_key: Option<&SignMasterPublicKey>,
    ) -> Result<Self> {
        Self::from_der(&private_pem_der(data)?, password, master_public_key)
    }
}

impl EncPrivateKey {
    /// PKCS#8 as GmSSL writes it (algorithm sm9encrypt, SEQUENCE { de, Ppube },
    /// also for key-exchange keys, as GmSSL does), PBES2-encrypted when
    /// `password` is given. The identity is not stored (GmSSL's files do not
    /// carry it).
    pub fn to_der(&self, password: Option<&[u8]>) -> Result<Zeroizing<Vec<u8>>> {
        let inner = user_inner(self.to_bytes().as_ref(), &self.master_public_key().to_bytes());
        wrap_private(Alg::Encrypt, None, &inner, password)
    }

    /// [`Self::to_der`] as PEM.
    pub fn to_pem(&self, password: Option<&[u8]>) -> Result<Zeroizing<String>> {
        Ok(private_pem(&self.to_der(password)?, password))
    }

    /// Reads PKCS#8 (sm9encrypt or sm9keyagreement; encrypted needs
    /// `password`), GmSSL's inner SEQUENCE or gmsm's bare BIT STRING (which
    /// needs `master_public_key`); `uid` becomes the key's identity.
    pub fn from_der(
        b: &[u8],
        password: Option<&[u8]>,
        master_public_key: Option<&EncMasterPublicKey>,
        uid: Option<&[u8]>,
    ) -> Result<Self> {
        let what = "SM9 enc private key";
        let (alg, inner) = unwrap_private(b, password)?;
        expect_alg(alg, &[(Alg::Encrypt, None), (Alg::KeyAgreement, None)], what)?;
        let (d, public) = parse_user(&inner, what)?;
        let stored = public.map(|p| EncMasterPublicKey::from_bytes(&p).map_err(as_key)).transpose()?;
        let mpk = pick_master(stored, master_public_key, |a, b| a.to_bytes() == b.to_bytes(), what)?;
        EncPrivateKey::from_bytes(&d, &mpk, uid).map_err(as_key)
    }

    /// Reads one PEM block (`PRIVATE KEY` or `ENCRYPTED PRIVATE KEY`).
    pub fn from_pem(
        data: &[u8],
        password: Option<&[u8]>,
        master_public_key: Option<&EncMasterPublicKey>,
        uid: Option<&[u8]>,
    ) -> Result<Self> {
        Self::from_der(&private_pem_der(data)?, password, master_public_key, uid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oid_bytes_are_gm_t_0006s() {
        // 1.2.156.10197.1.302.1 as DER, worked out by hand from the arcs.
        assert_eq!(Alg::Sign.der(), [0x06, 0x09, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2e, 0x01]);
        assert_eq!(Alg::Sm9.oid().to_string(), "1.2.156.10197.1.302");
    }

    #[test]
    fn uint256_round_trip_and_strictness() {
        for v in [[0u8; 32], [0xff; 32], {
            let mut a = [0u8; 32];
            a[31] = 0x7f;
            a
        }] {
            let d = der::uint_secret(&v);
            let mut r = Reader::new(&d, "x");
            let back = uint256(&mut r, "x").unwrap();
            assert!(r.is_empty());
            assert_eq!(*back, v);
        }
        let read = |b: &[u8]| uint256(&mut Reader::new(b, "x"), "x");
        assert!(read(&[0x02, 0x02, 0x00, 0x01]).is_err()); // non-minimal
        assert!(read(&[0x02, 0x01, 0x80]).is_err()); // negative
        assert!(read(&[0x02, 0x00]).is_err()); // empty
    }

    #[test]
    fn round_trips_and_errors() {
        let msk = SignMasterKey::from_bytes(&[7u8; 32]).unwrap();
        for pw in [None, Some(&b"pw"[..])] {
            let d = msk.to_der(pw).unwrap();
            assert_eq!(SignMasterKey::from_der(&d, pw).unwrap().to_bytes(), msk.to_bytes());
            let p = msk.to_pem(pw).unwrap();
            assert_eq!(SignMasterKey::from_pem(p.as_bytes(), pw).unwrap().to_bytes(), msk.to_bytes());
            // Truncation and trailing bytes.
            assert!(matches!(SignMasterKey::from_der(&d[..d.len() - 1], pw), Err(Error::InvalidKey(_))));
            let mut t = d.to_vec();
            t.push(0);
            assert!(matches!(SignMasterKey::from_der(&t, pw), Err(Error::InvalidKey(_))));
        }
        let enc = msk.to_der(Some(b"pw")).unwrap();
        assert!(matches!(SignMasterKey::from_der(&enc, Some(b"wrong")), Err(Error::InvalidKey(_))));
        assert!(SignMasterKey::from_der(&enc, None).is_err());
        // A key of one kind is not read as another.
        assert!(EncMasterKey::from_der(&msk.to_der(None).unwrap(), None).is_err());
        let user = msk.extract(b"Alice", 1).unwrap();
        let d = user.to_der(None).unwrap();
        assert!(SignMasterKey::from_der(&d, None).is_err());
        let back = SignPrivateKey::from_der(&d, None, None).unwrap();
        assert_eq!(back.to_bytes(), user.to_bytes());
        // gmsm's bare point needs the master public key.
        let bare = der::bits(user.to_bytes().as_ref());
        assert!(SignPrivateKey::from_der(&bare, None, None).is_err());
        assert!(SignPrivateKey::from_der(&bare, None, Some(msk.public_key())).is_ok());
        let other = SignMasterKey::from_bytes(&[8u8; 32]).unwrap();
        assert!(SignPrivateKey::from_der(&d, None, Some(other.public_key())).is_err());
        let mpk = msk.public_key();
        assert_eq!(SignMasterPublicKey::from_der(&mpk.to_der()).unwrap().to_bytes(), mpk.to_bytes());
        assert_eq!(SignMasterPublicKey::from_pem(mpk.to_pem().as_bytes()).unwrap().to_bytes(), mpk.to_bytes());
        assert!(EncMasterPublicKey::from_pem(mpk.to_pem().as_bytes()).is_err());
    }

    macro_rules! gmssl {
        ($f:expr) => {
            include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/sm9_gmssl/", $f))
        };
    }

    #[test]
    fn gmssl_files_load_and_work() {
        // Files written by GmSSL 3.3.0's CLI (tests/vectors/sm9_gmssl/README.md).
        let smsk = SignMasterKey::from_pem(gmssl!("sign_msk.pem"), Some(b"P@ssw0rd")).unwrap();
        let smpk = SignMasterPublicKey::from_pem(gmssl!("sign_mpk.pem")).unwrap();
        assert_eq!(smsk.public_key().to_bytes(), smpk.to_bytes());
        let alice = SignPrivateKey::from_pem(gmssl!("sign_alice.pem"), Some(b"123456"), None).unwrap();
        assert_eq!(alice.to_bytes(), smsk.extract(b"Alice", 1).unwrap().to_bytes());
        let msg = gmssl!("msg.txt");
        let sig = crate::sm9::Signature::from_der(gmssl!("msg.sig")).unwrap();
        smpk.verify(msg, b"Alice", 1, &sig).unwrap();
        assert!(SignPrivateKey::from_pem(gmssl!("sign_alice.pem"), Some(b"12345"), None).is_err());

        let emsk = EncMasterKey::from_pem(gmssl!("enc_msk.pem"), Some(b"P@ssw0rd")).unwrap();
        let empk = EncMasterPublicKey::from_pem(gmssl!("enc_mpk.pem")).unwrap();
        assert_eq!(emsk.public_key().to_bytes(), empk.to_bytes());
        let bob = EncPrivateKey::from_pem(gmssl!("enc_bob.pem"), Some(b"123456"), None, Some(b"Bob")).unwrap();
        assert_eq!(bob.to_bytes(), emsk.extract(b"Bob", 3).unwrap().to_bytes());
        let opts = crate::sm9::Options::from_names("der", "xor", "hmac-sm3").unwrap();
        let pt = crate::sm9::decrypt(&bob, gmssl!("msg.ct"), None, opts).unwrap();
        assert_eq!(&pt[..], &msg[..]);
        let carol = EncPrivateKey::from_pem(gmssl!("exch_carol.pem"), Some(b"123456"), None, None).unwrap();
        assert_eq!(carol.to_bytes(), emsk.extract(b"Carol", 2).unwrap().to_bytes());
    }
}
