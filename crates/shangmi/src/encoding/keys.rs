//! SM2 keys in SPKI, PKCS#8 and SEC1, as DER or PEM, plain or encrypted.

use zeroize::Zeroizing;

use super::der::{self, Reader};
use super::oid::{self, ObjectIdentifier};
use super::{pbe, pem};
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

fn curve_name(o: &ObjectIdentifier) -> String {
    if *o == oid::SM2 {
        "SM2".into()
    } else {
        o.to_string()
    }
}

/// A DER-level problem in a key file is a bad key file ([`Error::InvalidKey`]).
fn as_key(e: Error) -> Error {
    match e {
        Error::InvalidInput(msg) => Error::InvalidKey(msg),
        other => other,
    }
}

/// The SM2 AlgorithmIdentifier OpenSSL writes: id-ecPublicKey with the SM2 named curve.
fn sm2_algorithm() -> Vec<u8> {
    der::seq(&[&der::oid(&oid::EC_PUBLIC_KEY), &der::oid(&oid::SM2)])
}

/// Checks an AlgorithmIdentifier says "SM2 key": id-ecPublicKey with the SM2
/// named curve, or (as some tools write) the SM2 OID itself with no, NULL or
/// SM2 parameters.
fn check_algorithm(r: &mut Reader<'_>, what: &str) -> Result<()> {
    let mut alg = r.nested(der::SEQUENCE, "algorithm").map_err(as_key)?;
    let alg_oid = alg.oid("algorithm").map_err(as_key)?;
    let params_oid = match alg.peek_tag() {
        None => None,
        Some(der::NULL) => {
            let n = alg.any().map_err(as_key)?;
            if !n.value.is_empty() {
                return Err(Error::invalid_key(format!("{what}: NULL parameters with contents")));
            }
            None
        }
        Some(der::OID) => Some(alg.oid("parameters").map_err(as_key)?),
        Some(_) => {
            return Err(Error::invalid_key(format!(
                "{what}: EC parameters must be a named curve OID (explicit parameters are not supported)"
            )))
        }
    };
    alg.finish("the algorithm parameters").map_err(as_key)?;
    if alg_oid == oid::EC_PUBLIC_KEY {
        match params_oid {
            Some(c) if c == oid::SM2 => Ok(()),
            Some(c) => Err(Error::invalid_key(format!(
                "{what}: not an SM2 key: curve {} (expected SM2, {})",
                curve_name(&c),
                oid::SM2
            ))),
            None => Err(Error::invalid_key(format!("{what}: id-ecPublicKey without a named curve"))),
        }
    } else if alg_oid == oid::SM2 {
        match params_oid {
            None => Ok(()),
            Some(c) if c == oid::SM2 => Ok(()),
            Some(c) => Err(Error::invalid_key(format!("{what}: unexpected SM2 algorithm parameters {c}"))),
        }
    } else {
        Err(Error::invalid_key(format!(
            "{what}: not an SM2 key: algorithm {alg_oid} (expected id-ecPublicKey {} with curve SM2 {})",
            oid::EC_PUBLIC_KEY,
            oid::SM2
        )))
    }
}

/// SubjectPublicKeyInfo DER for an encoded SM2 point (`04||x||y` or
/// compressed), with id-ecPublicKey and the SM2 named curve as OpenSSL writes.
pub fn public_key_to_spki_der(point: &[u8]) -> Result<Vec<u8>> {
    Ok(der::seq(&[&sm2_algorithm(), &der::bits(point)]))
}

/// The encoded point inside an SPKI DER structure (not yet validated as a
/// curve point: the SM2 key type does that).
pub fn public_key_from_der(data: &[u8]) -> Result<Vec<u8>> {
    const W: &str = "SubjectPublicKeyInfo";
    let outer = der::single(data, der::SEQUENCE, W).map_err(as_key)?;
    let mut r = Reader::new(outer.value, W);
    check_algorithm(&mut r, "invalid SubjectPublicKeyInfo")?;
    let bits = r.bits("subjectPublicKey").map_err(as_key)?;
    r.finish("subjectPublicKey").map_err(as_key)?;
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

/// SEC1 `ECPrivateKey` DER (RFC 5915): `SEQUENCE { version 1, privateKey
/// OCTET STRING, [0] parameters OPTIONAL, [1] publicKey OPTIONAL }`.
/// `with_params` adds the `[0]` named-curve field (OpenSSL writes it in
/// standalone SEC1 files, not inside PKCS#8).
fn sec1_der(d: &[u8; 32], public: &[u8], with_params: bool) -> Zeroizing<Vec<u8>> {
    let params = if with_params { der::tlv(der::ctx(0), &der::oid(&oid::SM2)) } else { Vec::new() };
    der::seq_secret(&[
        &der::small_int(1),
        &der::tlv_secret(der::OCTET_STRING, d),
        &params,
        &der::tlv(der::ctx(1), &der::bits(public)),
    ])
}

/// Standalone SEC1 `ECPrivateKey` DER (with curve and public key), the body
/// of an `EC PRIVATE KEY` / `SM2 PRIVATE KEY` PEM.
pub fn private_key_to_sec1_der(d: &[u8; 32], public: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    Ok(sec1_der(d, public, true))
}

/// PKCS#8 `PrivateKeyInfo` DER as OpenSSL writes it: version 0,
/// id-ecPublicKey with the SM2 curve, wrapping an `ECPrivateKey` that
/// carries the public key.
pub fn private_key_to_pkcs8_der(d: &[u8; 32], public: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
    let inner = sec1_der(d, public, false);
    Ok(der::seq_secret(&[&der::small_int(0), &sm2_algorithm(), &der::tlv_secret(der::OCTET_STRING, &inner)]))
}

/// Reads a SEC1 `ECPrivateKey`; `what` names it in errors.
fn ec_private_key(data: &[u8], what: &'static str, format: PrivateKeyFormat) -> Result<DecodedPrivateKey> {
    let outer = der::single(data, der::SEQUENCE, what).map_err(as_key)?;
    let mut r = Reader::new(outer.value, what);
    let version = r.small_uint("version").map_err(as_key)?;
    if version != 1 {
        return Err(Error::invalid_key(format!("invalid {what}: version {version} (expected 1)")));
    }
    let b = r.octets("privateKey").map_err(as_key)?;
    if let Some(p) = r.optional(der::ctx(0)).map_err(as_key)? {
        let mut pr = r.inner(p.value).map_err(as_key)?;
        if pr.peek_tag() != Some(der::OID) {
            return Err(Error::invalid_key(format!(
                "invalid {what}: EC parameters must be a named curve OID (explicit parameters are not supported)"
            )));
        }
        let c = pr.oid("parameters").map_err(as_key)?;
        pr.finish("parameters").map_err(as_key)?;
        if c != oid::SM2 {
            return Err(Error::invalid_key(format!(
                "not an SM2 key: curve {} (expected SM2, {})",
                curve_name(&c),
                oid::SM2
            )));
        }
    }
    let public = match r.optional(der::ctx(1)).map_err(as_key)? {
        Some(p) => {
            let mut pr = r.inner(p.value).map_err(as_key)?;
            let bits = pr.bits("publicKey").map_err(as_key)?;
            pr.finish("publicKey").map_err(as_key)?;
            Some(bits.to_vec())
        }
        None => None,
    };
    r.finish("publicKey").map_err(as_key)?;
    if b.is_empty() || b.len() > 32 {
        return Err(Error::invalid_key(format!("SM2 private key must be 32 bytes, got {}", b.len())));
    }
    // Some writers drop leading zero bytes; left-pad to 32.
    let mut secret = Zeroizing::new([0u8; 32]);
    secret[32 - b.len()..].copy_from_slice(b);
    Ok(DecodedPrivateKey { secret, public, format })
}

/// Reads a PKCS#8 `PrivateKeyInfo` (RFC 5208, or RFC 5958 v2 with its
/// `[1]` publicKey) holding an SM2 `ECPrivateKey`.
fn from_pkcs8(data: &[u8]) -> Result<DecodedPrivateKey> {
    const W: &str = "PKCS#8 private key";
    let outer = der::single(data, der::SEQUENCE, W).map_err(as_key)?;
    let mut r = Reader::new(outer.value, W);
    let version = r.small_uint("version").map_err(as_key)?;
    if version > 1 {
        return Err(Error::invalid_key(format!("invalid {W}: version {version} (expected 0 or 1)")));
    }
    check_algorithm(&mut r, "invalid PKCS#8 private key")?;
    let inner = r.octets("privateKey").map_err(as_key)?;
    r.optional(der::ctx(0)).map_err(as_key)?; // attributes, unused
    let outer_public = match r.optional(der::ctx_prim(1)).map_err(as_key)? {
        Some(t) if version == 1 => Some(der::bit_string_bytes(&t, W).map_err(as_key)?.to_vec()),
        Some(_) => return Err(Error::invalid_key(format!("invalid {W}: publicKey in a version 0 structure"))),
        None => None,
    };
    r.finish("privateKey").map_err(as_key)?;
    let mut key = ec_private_key(inner, "ECPrivateKey inside PKCS#8", PrivateKeyFormat::Pkcs8)?;
    if key.public.is_none() {
        key.public = outer_public;
    }
    Ok(key)
}

fn from_sec1(data: &[u8]) -> Result<DecodedPrivateKey> {
    ec_private_key(data, "SEC1 EC private key", PrivateKeyFormat::Sec1)
}

/// The tag of the first and second elements inside an outer SEQUENCE.
fn shape(data: &[u8]) -> Option<(u8, Option<u8>)> {
    let mut r = Reader::new(data, "key");
    let outer = r.expect(der::SEQUENCE, "key").ok()?;
    let mut inner = Reader::new(outer.value, "key");
    let first = inner.any().ok()?;
    Some((first.tag, inner.peek_tag()))
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
        Some((der::SEQUENCE, Some(der::OCTET_STRING))) => {
            let pw =
                password.ok_or_else(|| Error::invalid_key("the private key is encrypted: a password is required"))?;
            let plain = pbe::decrypt_pkcs8_der(der, pw, max_iterations)?;
            // A wrong password that happens to leave valid padding gives garbage.
            from_pkcs8(&plain).map_err(|_| Error::invalid_key(super::WRONG_PASSWORD))
        }
        Some((der::INTEGER, Some(der::SEQUENCE))) => {
            no_password(password)?;
            from_pkcs8(der)
        }
        Some((der::INTEGER, Some(der::OCTET_STRING))) => {
            no_password(password)?;
            from_sec1(der)
        }
        // SubjectPublicKeyInfo: SEQUENCE { AlgorithmIdentifier, BIT STRING }.
        Some((der::SEQUENCE, Some(der::BIT_STRING))) => {
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
            if !matches!(shape(&block.der), Some((der::SEQUENCE, _))) {
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
