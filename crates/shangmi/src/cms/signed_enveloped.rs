//! SignedAndEnvelopedData (GM/T 0010 section 10, PKCS#7 / RFC 2315 section
//! 11): content encrypted for recipients and signed by signers in one
//! structure, what CAs' key management centres use to deliver an
//! encryption key pair.
//!
//! ```text
//! SignedAndEnvelopedData ::= SEQUENCE {
//!   version                 Version,                      -- 1
//!   recipientInfos          RecipientInfos,
//!   digestAlgorithms        DigestAlgorithmIdentifiers,
//!   encryptedContentInfo    EncryptedContentInfo,
//!   certificates        [0] IMPLICIT Certificates OPTIONAL,
//!   crls                [1] IMPLICIT CertificateRevocationLists OPTIONAL,
//!   signerInfos             SignerInfos }
//! ```
//!
//! As GM/T 0010 and the deployed writers (gmcert.org's KMC, gmsm) use it,
//! each signature is an SM2 signature (SM3 with Z) over the plaintext
//! content, without signed attributes, and is not itself encrypted
//! (RFC 2315's encryption of the digest is not done). Reading also accepts
//! signed attributes over the content, as in SignedData.

use zeroize::Zeroizing;

use super::enveloped::{encrypted_content_info, recipient_infos, select, unwrap_cek, ContentCipher, Recipient};
use super::signed::{read_certificates, verify_signer_infos};
use super::{content_info, normalized, unsupported, wrap, Flavor};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::PrivateKey;
use crate::x509::{self, Certificate};
use crate::{Error, Result};

const W: &str = "SignedAndEnvelopedData";

/// A decrypted and verified SignedAndEnvelopedData.
#[derive(Clone, Debug)]
pub struct Opened {
    /// The decrypted content (often a private key: zeroized on drop).
    pub content: Zeroizing<Vec<u8>>,
    /// The certificate of each signer, in SignerInfo order.
    pub signers: Vec<Certificate>,
    /// Every certificate the message carried.
    pub certificates: Vec<Certificate>,
}

struct Parsed {
    cipher: ContentCipher,
    content: Vec<u8>,
    recipients: Vec<Recipient>,
    certificates: Vec<Certificate>,
    /// The DER of the signerInfos SET's contents.
    signer_infos: Vec<u8>,
}

fn parse(data: &[u8]) -> Result<Parsed> {
    let der = normalized(data, W)?;
    let (ct, body) = content_info(&der, W)?;
    if ct != oid::GM_SIGNED_AND_ENVELOPED_DATA && ct != oid::SIGNED_AND_ENVELOPED_DATA {
        return Err(unsupported("content type (expected signedAndEnvelopedData)", &ct));
    }
    let mut r = Reader::new(der::single(body, der::SEQUENCE, W)?.value, W);
    r.small_uint("version")?;
    let mut ris = r.nested(der::SET, "recipientInfos")?;
    r.expect(der::SET, "digestAlgorithms")?;
    let mut eci = r.nested(der::SEQUENCE, "encryptedContentInfo")?;
    let certificates = read_certificates(&mut r)?;
    r.optional(der::ctx(1))?; // CRLs
    let infos = r.expect(der::SET, "signerInfos")?;
    r.finish(W)?;
    let (cipher, content) = encrypted_content_info(&mut eci)?;
    let recipients = recipient_infos(&mut ris)?;
    Ok(Parsed { cipher, content, recipients, certificates, signer_infos: infos.value.to_vec() })
}

/// The encryptedKey (GM/T 0009 SM2Cipher DER) of every SM2 recipient
/// naming `cert` (every one when `None`), for a key held elsewhere.
pub fn recipient_keys(data: &[u8], cert: Option<&Certificate>) -> Result<Vec<Vec<u8>>> {
    select(parse(data)?.recipients, cert)
}

/// Decrypts the content with the content-encryption key `cek` and verifies
/// every signature over it: signers are looked up in the message's
/// certificates and `extra`; `uid` pins the SM2 ID (both conventions are
/// tried when `None`); with `trust`, each signer must chain to one of the
/// roots at the given time.
pub fn open(
    data: &[u8],
    cek: &[u8],
    extra: &[Certificate],
    uid: Option<&[u8]>,
    trust: Option<(&[Certificate], i64)>,
) -> Result<Opened> {
    let p = parse(data)?;
    let content = p.cipher.decrypt(cek, &p.content)?;
    let mut pool = p.certificates.clone();
    pool.extend(extra.iter().cloned());
    let mut infos = Reader::new(&p.signer_infos, W);
    let (signers, _) =
        verify_signer_infos(&mut infos, &pool, &content, None, None, uid, trust).map_err(|e| match e {
            Error::InvalidInput(m) if m == "the message has no signers" => {
                Error::invalid("signed-and-enveloped data has no signers")
            }
            other => other,
        })?;
    Ok(Opened { content, signers, certificates: p.certificates })
}

/// [`open`] with the recipient's private key: the RecipientInfo naming
/// `cert` (or each one, without it) is unwrapped with `key`. A wrong key or
/// a modified ciphertext is one opaque [`Error::DecryptionFailed`]; a bad
/// signature [`Error::InvalidSignature`].
pub fn decrypt_and_verify(
    data: &[u8],
    key: &PrivateKey,
    cert: Option<&Certificate>,
    extra: &[Certificate],
    uid: Option<&[u8]>,
    trust: Option<(&[Certificate], i64)>,
) -> Result<Opened> {
    if let Some(c) = cert {
        if c.public_key()? != key.public_key() {
            return Err(Error::invalid_key("the private key does not belong to the recipient certificate"));
        }
    }
    let cek = unwrap_cek(&recipient_keys(data, cert)?, key)?;
    open(data, &cek, extra, uid, trust)
}

/// What to sign and encrypt; built in two steps like
/// [`super::SignRequest`] so the signing key may be held elsewhere.
#[derive(Clone, Debug)]
pub struct SealRequest<'a> {
    pub content: &'a [u8],
    pub signer: &'a Certificate,
    /// Extra certificates to include (intermediates).
    pub certificates: &'a [Certificate],
    pub recipients: &'a [Certificate],
    /// [`Flavor::Rfc5652`] writes the PKCS#7 OIDs; the others GM/T 0010's.
    pub flavor: Flavor,
}

impl SealRequest<'_> {
    /// The digest e the signer's key must sign: SM3(Z(uid) ‖ content).
    pub fn digest(&self, uid: &[u8]) -> Result<[u8; 32]> {
        x509::signing_digest(self.signer.public_key()?, uid, self.content)
    }

    /// The DER ContentInfo, given the signer's DER signature over
    /// [`Self::digest`]; a fresh SM4 key and IV encrypt the content.
    pub fn finish(&self, sig_der: &[u8]) -> Result<Vec<u8>> {
        fmt::signature_from_der(sig_der)
            .map_err(|_| Error::invalid("the signer returned something that is not a DER SM2 signature"))?;
        if self.recipients.is_empty() {
            return Err(Error::invalid("at least one recipient certificate is needed"));
        }
        let mut key = Zeroizing::new([0u8; 16]);
        crate::rand::fill(key.as_mut())?;
        let mut iv = [0u8; 16];
        crate::rand::fill(&mut iv)?;
        let mut infos = Vec::with_capacity(self.recipients.len());
        for cert in self.recipients {
            let enc = fmt::ciphertext_to_der(&cert.public_key()?.encrypt(key.as_ref())?)?;
            let ias = der::seq(&[cert.issuer().to_der(), &der::uint(cert.serial())]);
            infos.push(der::seq(&[
                &der::small_int(1),
                &ias,
                &der::seq(&[&der::oid(&oid::SM2_ENCRYPT)]),
                &der::octets(&enc),
            ]));
        }
        let data_oid = self.flavor.data();
        let body = crate::sm4::cbc_encrypt(&key, &iv, self.content, true)?;
        let eci = der::seq(&[
            &der::oid(&data_oid),
            &der::seq(&[&der::oid(&oid::SM4_CBC), &der::octets(&iv)]),
            &der::tlv(der::ctx_prim(0), &body),
        ]);
        let sm3_alg = der::seq(&[&der::oid(&oid::SM3)]);
        let signer_info = der::seq(&[
            &der::small_int(1),
            &der::seq(&[self.signer.issuer().to_der(), &der::uint(self.signer.serial())]),
            &sm3_alg,
            &der::seq(&[&der::oid(&oid::SM2_WITH_SM3)]),
            &der::octets(sig_der),
        ]);
        let mut certs: Vec<Vec<u8>> = vec![self.signer.to_der().to_vec()];
        for c in self.certificates {
            if !certs.iter().any(|d| d == c.to_der()) {
                certs.push(c.to_der().to_vec());
            }
        }
        let refs: Vec<&[u8]> = infos.iter().map(|v| v.as_slice()).collect();
        let sed = der::seq(&[
            &der::small_int(1),
            &der::cons(der::SET, &refs),
            &der::cons(der::SET, &[&sm3_alg]),
            &eci,
            &der::tlv(der::ctx(0), &certs.concat()),
            &der::cons(der::SET, &[&signer_info]),
        ]);
        let t = if self.flavor == Flavor::Rfc5652 {
            oid::SIGNED_AND_ENVELOPED_DATA
        } else {
            oid::GM_SIGNED_AND_ENVELOPED_DATA
        };
        Ok(wrap(&t, &sed))
    }
}
