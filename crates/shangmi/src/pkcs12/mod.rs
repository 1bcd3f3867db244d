//! PKCS#12 / PFX files (RFC 7292): the container CAs and banks deliver SM2
//! keys in.
//!
//! Reading ([`parse`]) takes what real files use: password integrity (an
//! HMAC-SHA-1, -SHA-256 or -SM3 MAC keyed by the PKCS#12 KDF, ID 3),
//! shrouded key bags and encrypted data under PBES2 (PBKDF2 with
//! HMAC-SHA-1/SHA-256/SM3, SM4-CBC or AES-CBC) or the legacy PKCS#12 PBEs
//! (3DES, RC2-128, RC2-40; read only), plain key and certificate bags,
//! nested safe-contents bags, and BER (indefinite lengths, constructed
//! OCTET STRINGs, as Java toolkits write). The MAC is checked before
//! anything is decrypted, so a wrong password is one error
//! ([`WRONG_PASSWORD`]) and every later refusal (an RSA key:
//! [`Error::UnsupportedAlgorithm`]) is about an authentic file.
//!
//! Passwords: the PKCS#12 KDF takes the password as a BMPString with two
//! trailing zero bytes; PBES2 takes its UTF-8 bytes (what OpenSSL does). An
//! empty password is tried both as `00 00` and as nothing, as OpenSSL does.
//!
//! Bounded work: every iteration count (MAC, PBE, PBKDF2) is capped by the
//! caller's `max_iterations` (default [`DEFAULT_MAX_ITERATIONS`], the same
//! cap as encrypted PKCS#8 keys), at most [`MAX_DECRYPTIONS`] encrypted
//! items are decrypted, and safe-contents bags nest at most
//! [`MAX_NESTING`] deep.
//!
//! Writing ([`serialize`]) makes one of two profiles ([`Protection`]) or an
//! unprotected file.

mod kdf;
mod legacy;
mod write;

use std::borrow::Cow;

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::encoding as enc;
use crate::encoding::der::{self, Reader, Tlv};
use crate::encoding::oid::{self, ObjectIdentifier};
use crate::sm2::PrivateKey;
use crate::x509::Certificate;
use crate::{Error, Result};
use kdf::{bmp_password, derive, Digest, ID_MAC};
use legacy::Pbe;
pub use write::{serialize, serialize_named, Protection};

pub use crate::encoding::DEFAULT_MAX_ITERATIONS;

/// The message for a MAC that does not verify: a wrong password and a
/// modified file look the same.
pub const WRONG_PASSWORD: &str =
    "could not open the PKCS#12 file: wrong password, or the file was modified (its MAC does not verify)";
/// The message for encrypted contents that do not decrypt.
const UNDECRYPTABLE: &str = "could not decrypt the PKCS#12 contents: wrong password or corrupted file";
/// The most encrypted items (encrypted data, shrouded keys) one file may
/// make us decrypt: each costs a key derivation of up to `max_iterations`.
pub const MAX_DECRYPTIONS: usize = 64;
/// The deepest nesting of safe-contents bags followed.
pub const MAX_NESTING: usize = 4;
/// The iteration count written for the MAC and the PBES2 key derivations.
pub const WRITE_ITERATIONS: u32 = crate::encoding::DEFAULT_ITERATIONS;

const W: &str = "PKCS#12 file";

/// A private key with its bag attributes.
#[derive(Debug)]
pub struct KeyEntry {
    pub key: PrivateKey,
    /// The friendlyName attribute, if any.
    pub friendly_name: Option<String>,
    /// The localKeyId attribute, if any.
    pub local_key_id: Option<Vec<u8>>,
}

/// A certificate with its bag attributes.
#[derive(Clone, Debug)]
pub struct CertEntry {
    pub certificate: Certificate,
    /// The friendlyName attribute, if any.
    pub friendly_name: Option<String>,
    /// The localKeyId attribute, if any.
    pub local_key_id: Option<Vec<u8>>,
}

/// The contents of a PKCS#12 file: at most one private key and the
/// certificates, in file order.
#[derive(Debug)]
pub struct Pkcs12 {
    pub key: Option<KeyEntry>,
    pub certificates: Vec<CertEntry>,
}

impl Pkcs12 {
    /// The index of the certificate whose public key is the private key's
    /// (the key's own certificate), if any.
    pub fn key_certificate(&self) -> Option<usize> {
        let key = self.key.as_ref()?;
        let point = key.key.public_key().to_bytes(false);
        self.certificates
            .iter()
            .position(|c| c.certificate.public_key().map(|p| p.to_bytes(false) == point).unwrap_or(false))
    }
}

fn unsupported(msg: impl Into<String>) -> Error {
    Error::UnsupportedAlgorithm(msg.into())
}

/// The contents of an OCTET STRING, primitive or (BER) constructed from
/// primitive segments; `t` may carry an implicit tag.
fn octet_string<'a>(r: &Reader<'a>, t: &Tlv<'a>, field: &str) -> Result<Cow<'a, [u8]>> {
    if t.tag & der::CONSTRUCTED == 0 {
        return Ok(Cow::Borrowed(t.value));
    }
    let mut out = Vec::new();
    let mut seg = r.inner(t.value)?;
    while !seg.is_empty() {
        let s = seg.any()?;
        if s.tag != der::OCTET_STRING {
            return Err(seg.err(format!("{field}: constructed OCTET STRING segment with tag 0x{:02X}", s.tag)));
        }
        out.extend_from_slice(octet_string(&seg, &s, field)?.as_ref());
    }
    Ok(Cow::Owned(out))
}

/// The next element as an OCTET STRING, primitive or (BER) constructed.
fn next_octets<'a>(r: &mut Reader<'a>, field: &str) -> Result<Cow<'a, [u8]>> {
    let t = match r.peek_tag() {
        Some(der::OCTET_STRING) => r.any()?,
        Some(t) if t == der::OCTET_STRING | der::CONSTRUCTED => r.any()?,
        Some(t) => return Err(r.err(format!("{field}: expected an OCTET STRING, got tag 0x{t:02X}"))),
        None => return Err(r.err(format!("truncated: {field} is missing"))),
    };
    octet_string(r, &t, field)
}

/// An AlgorithmIdentifier's OID, with its parameters checked absent or NULL.
fn digest_algorithm(r: &mut Reader<'_>, field: &str) -> Result<ObjectIdentifier> {
    let mut a = r.nested(der::SEQUENCE, field)?;
    let o = a.oid(field)?;
    if o == oid::PBMAC1 {
        return Ok(o); // refused by name by the caller; its parameters are not read
    }
    if let Some(n) = a.optional(der::NULL)? {
        if !n.value.is_empty() {
            return Err(a.err(format!("{field}: NULL parameters with contents")));
        }
    }
    a.finish(field)?;
    Ok(o)
}

/// The passwords as each scheme takes them.
struct Password<'p> {
    utf8: &'p [u8],
    bmp: Zeroizing<Vec<u8>>,
}

struct Parser<'p> {
    password: Password<'p>,
    max_iterations: u32,
    decryptions: usize,
    keys: Vec<(Zeroizing<Vec<u8>>, Attrs)>,
    certificates: Vec<CertEntry>,
}

#[derive(Default)]
struct Attrs {
    friendly_name: Option<String>,
    local_key_id: Option<Vec<u8>>,
}

fn check_iterations(n: u64, max: u32, what: &str) -> Result<u32> {
    if n == 0 {
        return Err(Error::invalid(format!("invalid {W}: {what} iteration count is 0")));
    }
    if n > u64::from(max) {
        return Err(Error::invalid_key(format!(
            "the PKCS#12 file asks for {n} {what} iterations, above the cap of {max}; \
             if you trust the file, raise the iteration cap to {n}"
        )));
    }
    Ok(n as u32)
}

impl Parser<'_> {
    /// Decrypts `data` under the AlgorithmIdentifier `alg`.
    fn decrypt(&mut self, alg: &Tlv<'_>, data: &[u8]) -> Result<Zeroizing<Vec<u8>>> {
        self.decryptions += 1;
        if self.decryptions > MAX_DECRYPTIONS {
            return Err(Error::invalid(format!("invalid {W}: more than {MAX_DECRYPTIONS} encrypted items")));
        }
        let mut r = Reader::ber(alg.raw, W);
        let mut a = r.nested(der::SEQUENCE, "encryption algorithm")?;
        let o = a.oid("encryption algorithm")?;
        if o == oid::PBES2 {
            // The same PBES2 reader as encrypted PKCS#8 keys, on the same
            // shape (AlgorithmIdentifier, OCTET STRING).
            let wrapped = der::seq(&[alg.raw, &der::octets(data)]);
            return enc::decrypt_pkcs8_der(&wrapped, self.password.utf8, self.max_iterations).map_err(|e| match e {
                Error::InvalidKey(m) if m == enc::WRONG_PASSWORD => Error::invalid_key(UNDECRYPTABLE),
                Error::InvalidKey(m) if m.contains("unsupported") => {
                    unsupported(m.replace("encrypted PKCS#8 private key", "PKCS#12 PBES2 parameters"))
                }
                Error::InvalidKey(m) => {
                    Error::invalid_key(m.replace("encrypted PKCS#8 private key", "PKCS#12 PBES2 parameters"))
                }
                other => other,
            });
        }
        let Some(pbe) = Pbe::from_oid(&o) else {
            return Err(unsupported(format!(
                "PKCS#12: unsupported encryption algorithm {o} (supported: PBES2 with PBKDF2 and SM4-CBC or \
                 AES-CBC, pbeWithSHAAnd3-KeyTripleDES-CBC, pbeWithSHAAnd2-KeyTripleDES-CBC, \
                 pbeWithSHAAnd128BitRC2-CBC, pbewithSHAAnd40BitRC2-CBC)"
            )));
        };
        let mut p = a.nested(der::SEQUENCE, "PBE parameters")?;
        let salt = p.octets("PBE salt")?;
        let iterations = check_iterations(p.small_uint("PBE iteration count")?, self.max_iterations, "PBE")?;
        p.finish("PBE parameters")?;
        a.finish("encryption algorithm")?;
        pbe.decrypt(&self.password.bmp, salt, iterations, data)?.ok_or_else(|| Error::invalid_key(UNDECRYPTABLE))
    }

    fn attributes(&self, r: &mut Reader<'_>) -> Result<Attrs> {
        let mut out = Attrs::default();
        let Some(set) = r.optional(der::SET)? else { return Ok(out) };
        let mut s = r.inner(set.value)?;
        while !s.is_empty() {
            let mut a = s.nested(der::SEQUENCE, "bag attribute")?;
            let o = a.oid("bag attribute type")?;
            let mut values = a.nested(der::SET, "bag attribute values")?;
            a.finish("bag attribute")?;
            if o == oid::FRIENDLY_NAME {
                // PKCS#9 says BMPString; UTF8String is also written. A name
                // in another string type is informational and skipped.
                let v = values.any()?;
                if v.tag == der::BMP_STRING {
                    if v.value.len() % 2 != 0 {
                        return Err(values.err("friendlyName: BMPString of odd length"));
                    }
                    let units = v.value.chunks_exact(2).map(|c| u16::from_be_bytes([c[0], c[1]]));
                    let name: String = char::decode_utf16(units)
                        .collect::<std::result::Result<_, _>>()
                        .map_err(|_| values.err("friendlyName: not valid UTF-16"))?;
                    out.friendly_name = Some(name);
                } else if v.tag == der::UTF8_STRING {
                    let name = std::str::from_utf8(v.value).map_err(|_| values.err("friendlyName: not valid UTF-8"))?;
                    out.friendly_name = Some(name.to_string());
                }
            } else if o == oid::LOCAL_KEY_ID {
                out.local_key_id = Some(next_octets(&mut values, "localKeyId")?.into_owned());
            }
        }
        Ok(out)
    }

    fn safe_contents(&mut self, data: &[u8], depth: usize) -> Result<()> {
        if depth > MAX_NESTING {
            return Err(Error::invalid(format!("invalid {W}: safe contents nested more than {MAX_NESTING} deep")));
        }
        let mut top = Reader::ber(data, W);
        let mut r = top.nested(der::SEQUENCE, "SafeContents")?;
        top.finish("SafeContents")?;
        while !r.is_empty() {
            let mut bag = r.nested(der::SEQUENCE, "SafeBag")?;
            let kind = bag.oid("bagId")?;
            let mut value = bag.nested(der::ctx(0), "bagValue")?;
            let attrs = self.attributes(&mut bag)?;
            bag.finish("SafeBag")?;
            if kind == oid::KEY_BAG {
                let k = value.expect(der::SEQUENCE, "keyBag")?;
                self.keys.push((Zeroizing::new(k.raw.to_vec()), attrs));
            } else if kind == oid::PKCS8_SHROUDED_KEY_BAG {
                let mut e = value.nested(der::SEQUENCE, "pkcs8ShroudedKeyBag")?;
                let alg = e.expect(der::SEQUENCE, "encryptionAlgorithm")?;
                let ct = next_octets(&mut e, "encryptedData")?;
                e.finish("pkcs8ShroudedKeyBag")?;
                let plain = self.decrypt(&alg, &ct)?;
                self.keys.push((plain, attrs));
            } else if kind == oid::CERT_BAG {
                let mut c = value.nested(der::SEQUENCE, "certBag")?;
                let id = c.oid("certId")?;
                let mut v = c.nested(der::ctx(0), "certValue")?;
                let cert_der = next_octets(&mut v, "certValue")?;
                if id == oid::X509_CERTIFICATE_BAG {
                    let certificate = Certificate::from_der(&cert_der)?;
                    self.certificates.push(CertEntry {
                        certificate,
                        friendly_name: attrs.friendly_name,
                        local_key_id: attrs.local_key_id,
                    });
                }
                // Other certificate types (SDSI) are not X.509 and skipped.
            } else if kind == oid::SAFE_CONTENTS_BAG {
                let inner = value.expect(der::SEQUENCE, "safeContentsBag")?;
                self.safe_contents(inner.raw, depth + 1)?;
            }
            // CRL, secret and unknown bags carry nothing this API returns.
        }
        Ok(())
    }

    fn authenticated_safe(&mut self, data: &[u8]) -> Result<()> {
        let mut top = Reader::ber(data, W);
        let mut r = top.nested(der::SEQUENCE, "AuthenticatedSafe")?;
        top.finish("AuthenticatedSafe")?;
        while !r.is_empty() {
            let mut ci = r.nested(der::SEQUENCE, "ContentInfo")?;
            let ct = ci.oid("contentType")?;
            let mut body = ci.nested(der::ctx(0), "content")?;
            ci.finish("ContentInfo")?;
            if ct == oid::DATA {
                let safe = next_octets(&mut body, "data")?;
                body.finish("data")?;
                self.safe_contents(&safe, 0)?;
            } else if ct == oid::ENCRYPTED_DATA {
                let mut ed = body.nested(der::SEQUENCE, "EncryptedData")?;
                body.finish("EncryptedData")?;
                let version = ed.small_uint("EncryptedData version")?;
                if version != 0 && version != 2 {
                    return Err(ed.err(format!("EncryptedData version {version} (expected 0 or 2)")));
                }
                let mut eci = ed.nested(der::SEQUENCE, "EncryptedContentInfo")?;
                let inner_type = eci.oid("contentType")?;
                if inner_type != oid::DATA {
                    return Err(eci.err(format!("encrypted content type {inner_type} (expected data)")));
                }
                let alg = eci.expect(der::SEQUENCE, "contentEncryptionAlgorithm")?;
                let content = match eci.peek_tag() {
                    Some(t) if t == der::ctx_prim(0) || t == der::ctx(0) => {
                        let t = eci.any()?;
                        octet_string(&eci, &t, "encryptedContent")?
                    }
                    _ => return Err(eci.err("encryptedContent is missing")),
                };
                eci.finish("EncryptedContentInfo")?;
                let plain = self.decrypt(&alg, &content)?;
                self.safe_contents(&plain, 0)?;
            } else if ct == oid::ENVELOPED_DATA {
                return Err(unsupported("PKCS#12: public-key privacy mode (envelopedData) is not supported"));
            } else {
                return Err(r.err(format!("unknown AuthenticatedSafe content type {ct}")));
            }
        }
        Ok(())
    }
}

/// The SM2 key of a PKCS#8 `PrivateKeyInfo`, or
/// [`Error::UnsupportedAlgorithm`] naming another key type.
fn sm2_key(pkcs8: &[u8]) -> Result<PrivateKey> {
    let mut top = Reader::ber(pkcs8, W);
    let mut r = top.nested(der::SEQUENCE, "PrivateKeyInfo").map_err(|_| Error::invalid_key(UNDECRYPTABLE))?;
    r.small_uint("version").map_err(|_| Error::invalid_key(UNDECRYPTABLE))?;
    let mut alg = r.nested(der::SEQUENCE, "privateKeyAlgorithm").map_err(|_| Error::invalid_key(UNDECRYPTABLE))?;
    let o = alg.oid("privateKeyAlgorithm").map_err(|_| Error::invalid_key(UNDECRYPTABLE))?;
    let curve = if alg.peek_tag() == Some(der::OID) { alg.oid("curve").ok() } else { None };
    let is_sm2 = o == oid::SM2 || (o == oid::EC_PUBLIC_KEY && curve == Some(oid::SM2));
    if !is_sm2 {
        let what = if o == oid::RSA_ENCRYPTION {
            "an RSA private key".to_string()
        } else if o == oid::EC_PUBLIC_KEY {
            match curve {
                Some(c) => format!("an EC private key on curve {c}"),
                None => "an EC private key with explicit parameters".to_string(),
            }
        } else {
            format!("a private key of algorithm {o}")
        };
        return Err(unsupported(format!("the PKCS#12 file holds {what}; only SM2 keys are supported")));
    }
    enc::sm2::private_key_from_der(pkcs8, None)
}

/// Reads a PKCS#12 file (DER or BER) with `password` (UTF-8; `None` is the
/// empty password), allowing at most `max_iterations` iterations in any
/// key derivation.
pub fn parse(data: &[u8], password: Option<&[u8]>, max_iterations: u32) -> Result<Pkcs12> {
    let utf8 = password.unwrap_or(b"");
    let mut top = Reader::ber(data, W);
    let mut pfx = top.nested(der::SEQUENCE, "PFX")?;
    top.finish("the PFX")?;
    let version = pfx.small_uint("version")?;
    if version != 3 {
        return Err(pfx.err(format!("version {version} (expected 3)")));
    }
    let mut ci = pfx.nested(der::SEQUENCE, "authSafe")?;
    let ct = ci.oid("authSafe contentType")?;
    if ct == oid::SIGNED_DATA {
        return Err(unsupported("PKCS#12: public-key integrity mode (signedData) is not supported"));
    }
    if ct != oid::DATA {
        return Err(ci.err(format!("authSafe content type {ct} (expected data)")));
    }
    let mut body = ci.nested(der::ctx(0), "authSafe content")?;
    let auth_safe = next_octets(&mut body, "authSafe content")?;
    body.finish("authSafe content")?;
    ci.finish("authSafe")?;

    // Candidate BMP encodings of the password: an empty one is tried as
    // 00 00 and as nothing (files exist both ways).
    let mut candidates = vec![bmp_password(utf8)];
    if utf8.is_empty() {
        candidates.push(Zeroizing::new(Vec::new()));
    }
    let bmp = if pfx.is_empty() {
        candidates.swap_remove(0)
    } else {
        let mut m = pfx.nested(der::SEQUENCE, "macData")?;
        pfx.finish("PFX")?;
        let mut di = m.nested(der::SEQUENCE, "mac")?;
        let alg = digest_algorithm(&mut di, "MAC digest algorithm")?;
        let digest = di.octets("MAC digest")?;
        di.finish("mac")?;
        let salt = m.octets("macSalt")?;
        let iterations = if m.peek_tag() == Some(der::INTEGER) { m.small_uint("MAC iteration count")? } else { 1 };
        m.finish("macData")?;
        if alg == oid::PBMAC1 {
            return Err(unsupported(
                "PKCS#12: PBMAC1 integrity (RFC 9579; gmsm's all-ShangMi encoder writes it) is not supported; \
                 supported MACs: HMAC-SHA1, HMAC-SHA256, HMAC-SM3 with the PKCS#12 key derivation",
            ));
        }
        let h = Digest::from_oid(&alg).ok_or_else(|| {
            unsupported(format!("PKCS#12: unsupported MAC digest {alg} (supported: SHA-1, SHA-256, SM3)"))
        })?;
        let iterations = check_iterations(iterations, max_iterations, "MAC")?;
        let mut found = None;
        for c in candidates {
            let key = derive(h, ID_MAC, &c, salt, iterations, h.out_len());
            let mac = Zeroizing::new(h.hmac(&key, &auth_safe)?);
            if bool::from(mac.as_slice().ct_eq(digest)) {
                found = Some(c);
                break;
            }
        }
        found.ok_or_else(|| Error::invalid_key(WRONG_PASSWORD))?
    };

    let mut p = Parser {
        password: Password { utf8, bmp },
        max_iterations,
        decryptions: 0,
        keys: Vec::new(),
        certificates: Vec::new(),
    };
    p.authenticated_safe(&auth_safe)?;
    if p.keys.len() > 1 {
        return Err(unsupported(format!(
            "the PKCS#12 file holds {} private keys; only files with one key are supported",
            p.keys.len()
        )));
    }
    let key = match p.keys.pop() {
        Some((pkcs8, attrs)) => Some(KeyEntry {
            key: sm2_key(&pkcs8)?,
            friendly_name: attrs.friendly_name,
            local_key_id: attrs.local_key_id,
        }),
        None => None,
    };
    Ok(Pkcs12 { key, certificates: p.certificates })
}
