//! SM2 keys in SPKI, PKCS#8 and SEC1, as DER or PEM, plain or encrypted.

use der::asn1::{AnyRef, BitStringRef, ObjectIdentifier};
use der::{Decode, Encode, Header, Reader, SliceReader, Tag, Tagged};
use pkcs8::PrivateKeyInfo;
use sec1::{EcParameters, EcPrivateKey};
use spki::{AlgorithmIdentifierRef, SubjectPublicKeyInfoRef};
use zeroize::Zeroizing;

use super::{der_problem, oid, pbe, pem};
use crate::{Error, Result};

/// Where a decoded private key came from (so a tool can write it back the
/// same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrivateKeyFormat {
    /// PKCS#8 `PrivateKeyInfo` (plain or PBES2-encrypted).
    Pkcs8,
    /// SEC1 `ECPrivateKey` (plain or legacy-encrypted PEM).
    Sec1,
}

/// A private key as read from a file: the secret scalar and, when the file
/// carried one, the public point (the caller should check it matches).
pub struct DecodedPrivateKey {
    /// d, 32 bytes big-endian (not yet range-checked: the SM2 key type does that).
    pub secret: Zeroizing<[u8; 32]>,
    /// The encoded public point found in the file, if any.
    pub public: Option<Vec<u8>>,
    /// Which container it came in.
    pub format: PrivateKeyFormat,
}

impl std::fmt::Debug for DecodedPrivateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DecodedPrivateKey").field("format", &self.format).finish_non_exhaustive()
    }
}

fn sm2_params() -> AnyRef<'static> {
    AnyRef::from(&oid::SM2)
}

fn curve_name(o: &ObjectIdentifier) -> String {
    if *o == oid::SM2 {
        "SM2".into()
    } else {
        o.to_string()
    }
}

/// Checks an AlgorithmIdentifier says "SM2 key": id-ecPublicKey with the SM2
/// named curve, or (as some tools write) the SM2 OID itself with no, NULL or
/// SM2 parameters.
fn check_algorithm(alg: &AlgorithmIdentifierRef<'_>, what: &str) -> Result<()> {
    let params_oid = match alg.parameters {
        None => None,
        Some(p) if p.tag() == Tag::Null => None,
        Some(p) => Some(p.decode_as::<ObjectIdentifier>().map_err(|_| {
            Error::invalid_key(format!(
                "{what}: EC parameters must be a named curve OID (explicit parameters are not supported)"
            ))
        })?),
    };
    if alg.oid == oid::EC_PUBLIC_KEY {
        match params_oid {
            Some(c) if c == oid::SM2 => Ok(()),
            Some(c) => Err(Error::invalid_key(format!(
                "{what}: not an SM2 key: curve {} (expected SM2, {})",
                curve_name(&c),
                oid::SM2
            ))),
            None => Err(Error::invalid_key(format!("{what}: id-ecPublicKey without a named curve"))),
        }
    } else if alg.oid == oid::SM2 {
        match params_oid {
            None => Ok(()),
            Some(c) if c == oid::SM2 => Ok(()),
            Some(c) => Err(Error::invalid_key(format!("{what}: unexpected SM2 algorithm parameters {c}"))),
        }
    } else {
        Err(Error::invalid_key(format!(
            "{what}: not an SM2 key: algorithm {} (expected id-ecPublicKey {} with curve SM2 {})",
            alg.oid,
            oid::EC_PUBLIC_KEY,
            oid::SM2
        )))
    }
}

/// SubjectPublicKeyInfo DER for an encoded SM2 point (`04||x||y` or
/// compressed), with id-ecPublicKey and the SM2 named curve as OpenSSL writes.
pub fn public_key_to_spki_der(point: &[u8]) -> Result<Vec<u8>> {
    let spki = SubjectPublicKeyInfoRef {
        algorithm: AlgorithmIdentifierRef { oid: oid::EC_PUBLIC_KEY, parameters: Some(sm2_params()) },
        subject_public_key: BitStringRef::from_bytes(point)
            .map_err(|e| Error::invalid_key(format!("cannot encode public key: {e}")))?,
    };
    spki.to_der().map_err(|e| Error::invalid_key(format!("cannot encode public key: {e}")))
}

/// The encoded point inside an SPKI DER structure (not yet validated as a
/// curve point: the SM2 key type does that).
pub fn public_key_from_der(der: &[u8]) -> Result<Vec<u8>> {
    let spki = SubjectPublicKeyInfoRef::from_der(der)
        .map_err(|e| Error::invalid_key(format!("invalid SubjectPublicKeyInfo: {}", der_problem(&e))))?;
    check_algorithm(&spki.algorithm, "invalid SubjectPublicKeyInfo")?;
    let bits = spki
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| Error::invalid_key("invalid SubjectPublicKeyInfo: public key bit string has unused bits"))?;
    Ok(bits.to_vec())
}

/// The encoded point of a `PUBLIC KEY` PEM block (exactly one block, only
/// whitespace around it).
pub fn public_key_from_pem(data: &[u8]) -> Result<Vec<u8>> {
    let block = pem::decode(data).map_err(pem_error_as_key_error)?;
    public_key_of_block(&block)
}

/// The encoded points of every block of a `PUBLIC KEY` PEM bundle.
pub fn public_keys_from_pem_all(data: &[u8]) -> Result<Vec<Vec<u8>>> {
    let blocks = pem::decode_all(data).map_err(pem_error_as_key_error)?;
    blocks.iter().map(public_key_of_block).collect()
}

fn public_key_of_block(block: &pem::PemBlock) -> Result<Vec<u8>> {
    if block.label != "PUBLIC KEY" {
        return Err(Error::invalid_key(format!("expected a 'PUBLIC KEY' PEM block, got '{}'", block.label)));
    }
    public_key_from_der(&block.der)
}

/// SEC1 `ECPrivateKey` DER. `with_params` adds the `[0]` named-curve field
/// (OpenSSL writes it in standalone SEC1 files, not inside PKCS#8).
fn sec1_der(d: &[u8; 32], public: &[u8], with_params: bool) -> Result<Zeroizing<Vec<u8>>> {
    let key = EcPrivateKey {
        private_key: d,
        parameters: with_params.then_some(EcParameters::NamedCurve(oid::SM2)),
        public_key: Some(public),
    };
    key.to_der().map(Zeroizing::new).map_err(|e| Error::invalid_key(format!("cannot encode private key: {e}")))
}

/// Standalone SEC1 `ECPrivateKey` DER (with curve and public key), the body
/// of an `EC PRIVATE KEY` / `SM2 PRIVATE KEY` PEM.
pub fn private_key_to_sec1_der(d: &[u8; 32], public: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    sec1_der(d, public, true)
}

/// PKCS#8 `PrivateKeyInfo` DER as OpenSSL writes it: id-ecPublicKey with the
/// SM2 curve, wrapping an `ECPrivateKey` that carries the public key.
pub fn private_key_to_pkcs8_der(d: &[u8; 32], public: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let inner = sec1_der(d, public, false)?;
    let info = PrivateKeyInfo {
        algorithm: AlgorithmIdentifierRef { oid: oid::EC_PUBLIC_KEY, parameters: Some(sm2_params()) },
        private_key: &inner,
        public_key: None,
    };
    info.to_der().map(Zeroizing::new).map_err(|e| Error::invalid_key(format!("cannot encode private key: {e}")))
}

fn from_ec_private_key(k: &EcPrivateKey<'_>, format: PrivateKeyFormat) -> Result<DecodedPrivateKey> {
    if let Some(EcParameters::NamedCurve(c)) = k.parameters {
        if c != oid::SM2 {
            return Err(Error::invalid_key(format!(
                "not an SM2 key: curve {} (expected SM2, {})",
                curve_name(&c),
                oid::SM2
            )));
        }
    }
    let b = k.private_key;
    if b.is_empty() || b.len() > 32 {
        return Err(Error::invalid_key(format!("SM2 private key must be 32 bytes, got {}", b.len())));
    }
    // Some writers drop leading zero bytes; left-pad to 32.
    let mut secret = Zeroizing::new([0u8; 32]);
    secret[32 - b.len()..].copy_from_slice(b);
    Ok(DecodedPrivateKey { secret, public: k.public_key.map(|p| p.to_vec()), format })
}

fn from_pkcs8(der: &[u8]) -> Result<DecodedPrivateKey> {
    let info = PrivateKeyInfo::from_der(der)
        .map_err(|e| Error::invalid_key(format!("invalid PKCS#8 private key: {}", der_problem(&e))))?;
    check_algorithm(&info.algorithm, "invalid PKCS#8 private key")?;
    let inner = EcPrivateKey::from_der(info.private_key)
        .map_err(|e| Error::invalid_key(format!("invalid ECPrivateKey inside PKCS#8: {}", der_problem(&e))))?;
    let mut key = from_ec_private_key(&inner, PrivateKeyFormat::Pkcs8)?;
    if key.public.is_none() {
        key.public = info.public_key.map(|p| p.to_vec());
    }
    Ok(key)
}

fn from_sec1(der: &[u8]) -> Result<DecodedPrivateKey> {
    let k = EcPrivateKey::from_der(der)
        .map_err(|e| Error::invalid_key(format!("invalid SEC1 EC private key: {}", der_problem(&e))))?;
    from_ec_private_key(&k, PrivateKeyFormat::Sec1)
}

/// The tag of the first and second elements inside an outer SEQUENCE.
fn shape(der: &[u8]) -> Option<(Tag, Option<Tag>)> {
    let mut r = SliceReader::new(der).ok()?;
    let h = Header::decode(&mut r).ok()?;
    if h.tag != Tag::Sequence {
        return None;
    }
    let first = AnyRef::decode(&mut r).ok()?;
    let second = r.peek_tag().ok();
    Some((first.tag(), second))
}

/// A key file that is not even valid PEM is a bad key file: the same
/// [`Error::InvalidKey`] as a DER-level problem, so one `except InvalidKey`
/// covers every way a key file can be unreadable.
fn pem_error_as_key_error(e: Error) -> Error {
    match e {
        Error::InvalidInput(msg) => Error::InvalidKey(msg),
        other => other,
    }
}

fn no_password(password: Option<&[u8]>) -> Result<()> {
    match password {
        Some(_) => Err(Error::invalid("a password was given but the private key is not encrypted")),
        None => Ok(()),
    }
}

/// Reads a DER private key: PKCS#8 `PrivateKeyInfo`, PBES2
/// `EncryptedPrivateKeyInfo` (needs `password`; at most
/// [`DEFAULT_MAX_ITERATIONS`](super::pbe::DEFAULT_MAX_ITERATIONS) PBKDF2
/// iterations) or SEC1 `ECPrivateKey`.
pub fn private_key_from_der(der: &[u8], password: Option<&[u8]>) -> Result<DecodedPrivateKey> {
    private_key_from_der_capped(der, password, super::pbe::DEFAULT_MAX_ITERATIONS)
}

/// [`private_key_from_der`] accepting up to `max_iterations` PBKDF2 iterations.
pub fn private_key_from_der_capped(
    der: &[u8],
    password: Option<&[u8]>,
    max_iterations: u32,
) -> Result<DecodedPrivateKey> {
    match shape(der) {
        // EncryptedPrivateKeyInfo: SEQUENCE { AlgorithmIdentifier, OCTET STRING }.
        Some((Tag::Sequence, Some(Tag::OctetString))) => {
            let pw =
                password.ok_or_else(|| Error::invalid_key("the private key is encrypted: a password is required"))?;
            let plain = pbe::decrypt_pkcs8_der(der, pw, max_iterations)?;
            // A wrong password that happens to leave valid padding gives garbage.
            from_pkcs8(&plain).map_err(|_| Error::invalid_key(super::WRONG_PASSWORD))
        }
        Some((Tag::Integer, Some(Tag::Sequence))) => {
            no_password(password)?;
            from_pkcs8(der)
        }
        Some((Tag::Integer, Some(Tag::OctetString))) => {
            no_password(password)?;
            from_sec1(der)
        }
        // SubjectPublicKeyInfo: SEQUENCE { AlgorithmIdentifier, BIT STRING }.
        Some((Tag::Sequence, Some(Tag::BitString))) => {
            Err(Error::invalid_key("this is a public key (SubjectPublicKeyInfo), not a private key"))
        }
        _ => Err(Error::invalid_key("not a private key: expected DER PKCS#8, encrypted PKCS#8 or SEC1 ECPrivateKey")),
    }
}

/// Reads a PEM private key: `PRIVATE KEY`, `ENCRYPTED PRIVATE KEY`,
/// `EC PRIVATE KEY` or `SM2 PRIVATE KEY` (the last two possibly with
/// OpenSSL's legacy `Proc-Type: 4,ENCRYPTED` encryption). Exactly one key
/// block, after any `... PARAMETERS` blocks, with only whitespace around.
pub fn private_key_from_pem(data: &[u8], password: Option<&[u8]>) -> Result<DecodedPrivateKey> {
    private_key_from_pem_capped(data, password, super::pbe::DEFAULT_MAX_ITERATIONS)
}

/// [`private_key_from_pem`] accepting up to `max_iterations` PBKDF2 iterations.
pub fn private_key_from_pem_capped(
    data: &[u8],
    password: Option<&[u8]>,
    max_iterations: u32,
) -> Result<DecodedPrivateKey> {
    let block = pem::decode_skipping_parameters(data).map_err(pem_error_as_key_error)?;
    match block.label.as_str() {
        "PRIVATE KEY" => {
            no_password(password)?;
            from_pkcs8(&block.der)
        }
        "ENCRYPTED PRIVATE KEY" => {
            if !matches!(shape(&block.der), Some((Tag::Sequence, _))) {
                return Err(Error::invalid_key("invalid encrypted PKCS#8 private key"));
            }
            private_key_from_der_capped(&block.der, password, max_iterations)
        }
        "EC PRIVATE KEY" | "SM2 PRIVATE KEY" => {
            if block.header("Proc-Type").is_some() {
                let pw = password
                    .ok_or_else(|| Error::invalid_key("the private key is encrypted: a password is required"))?;
                let plain = pbe::decrypt_legacy_pem(&block, pw)?;
                from_sec1(&plain).map_err(|_| Error::invalid_key(super::WRONG_PASSWORD))
            } else {
                no_password(password)?;
                from_sec1(&block.der)
            }
        }
        "PUBLIC KEY" => Err(Error::invalid_key("this is a public key (PEM 'PUBLIC KEY'), not a private key")),
        other => Err(Error::invalid_key(format!(
            "unsupported PEM label '{other}' (expected PRIVATE KEY, ENCRYPTED PRIVATE KEY, EC PRIVATE KEY or SM2 PRIVATE KEY)"
        ))),
    }
}
