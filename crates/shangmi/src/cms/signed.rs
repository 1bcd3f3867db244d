//! SignedData (RFC 5652 section 5, GM/T 0010 section 8) with SM2 signers.

use crate::encoding::oid::ObjectIdentifier;

use super::{content_info, is_data, is_sm2_signature, unsupported, wrap, Flavor};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::encoding::sm2 as fmt;
use crate::sm2::PublicKey;
use crate::x509::{self, Certificate, Options};
use crate::{sm3, Error, Result};

const MAX_SIGNERS: usize = 64;
const MAX_CERTS: usize = 256;

/// What to sign: content, signer certificate, and the shape to write.
#[derive(Clone, Debug)]
pub struct SignRequest<'a> {
    pub content: &'a [u8],
    pub signer: &'a Certificate,
    /// Extra certificates to include (intermediates).
    pub certificates: &'a [Certificate],
    pub detached: bool,
    pub flavor: Flavor,
    /// Unix seconds for the signingTime attribute (not written in the GmSSL form).
    pub signing_time: i64,
}

fn issuer_and_serial(c: &Certificate) -> Vec<u8> {
    der::seq(&[c.issuer().to_der(), &der::uint(c.serial())])
}

fn attribute(o: &ObjectIdentifier, value: &[u8]) -> Vec<u8> {
    der::seq(&[&der::oid(o), &der::set_of(&[value.to_vec()])])
}

impl SignRequest<'_> {
    fn encap(&self) -> Vec<u8> {
        der::seq(&[&der::oid(&self.flavor.data()), &der::tlv(der::ctx(0), &der::octets(self.content))])
    }

    /// The signed attributes as the DER SET that is signed.
    fn signed_attributes(&self) -> Result<Vec<u8>> {
        let attrs = vec![
            attribute(&oid::CONTENT_TYPE, &der::oid(&self.flavor.data())),
            attribute(&oid::SIGNING_TIME, &der::encode_time(self.signing_time)?),
            attribute(&oid::MESSAGE_DIGEST, &der::octets(&sm3::hash(self.content))),
        ];
        Ok(der::set_of(&attrs))
    }

    /// The digest e the signer's key must sign (with `uid` for the Z value;
    /// the GmSSL form has no Z).
    pub fn digest(&self, uid: &[u8]) -> Result<[u8; 32]> {
        let key = self.signer.public_key()?;
        match self.flavor {
            Flavor::Gmssl => Ok(sm3::hash(&self.encap())),
            _ => x509::signing_digest(key, uid, &self.signed_attributes()?),
        }
    }

    /// The DER ContentInfo carrying SignedData, given the signer's DER signature.
    pub fn finish(&self, sig_der: &[u8]) -> Result<Vec<u8>> {
        fmt::signature_from_der(sig_der)
            .map_err(|_| Error::invalid("the signer returned something that is not a DER SM2 signature"))?;
        let sm3_alg = der::seq(&[&der::oid(&oid::SM3)]);
        let sig_alg = der::seq(&[&der::oid(&oid::SM2_WITH_SM3)]);
        let attrs = match self.flavor {
            Flavor::Gmssl => Vec::new(),
            _ => {
                let set = self.signed_attributes()?;
                der::tlv(der::ctx(0), &set[header(&set)..])
            }
        };
        let signer_info = der::seq(&[
            &der::small_int(1),
            &issuer_and_serial(self.signer),
            &sm3_alg,
            &attrs,
            &sig_alg,
            &der::octets(sig_der),
        ]);
        let encap = if self.detached { der::seq(&[&der::oid(&self.flavor.data())]) } else { self.encap() };
        let mut certs: Vec<Vec<u8>> = vec![self.signer.to_der().to_vec()];
        for c in self.certificates {
            if !certs.iter().any(|d| d == c.to_der()) {
                certs.push(c.to_der().to_vec());
            }
        }
        let certs = der::tlv(der::ctx(0), &certs.concat());
        let sd = der::seq(&[
            &der::small_int(1),
            &der::cons(der::SET, &[&sm3_alg]),
            &encap,
            &certs,
            &der::cons(der::SET, &[&signer_info]),
        ]);
        let t = if self.flavor == Flavor::Rfc5652 { oid::SIGNED_DATA } else { oid::GM_SIGNED_DATA };
        Ok(wrap(&t, &sd))
    }
}

fn header(der: &[u8]) -> usize {
    match der.get(1) {
        Some(&b) if b < 0x80 => 2,
        Some(&b) => 2 + (b & 0x7F) as usize,
        None => der.len(),
    }
}

/// A verified SignedData.
#[derive(Clone, Debug)]
pub struct Verified {
    pub content: Vec<u8>,
    /// The certificate of each signer, in SignerInfo order.
    pub signers: Vec<Certificate>,
    /// Every certificate the message carried.
    pub certificates: Vec<Certificate>,
    /// Which OIDs the message used (GmSSL's form is reported as [`Flavor::Gmssl`]).
    pub flavor: Flavor,
}

fn find_cert<'a>(kind: SignerIdKind, a: &[u8], serial: &[u8], certs: &'a [Certificate]) -> Option<&'a Certificate> {
    certs.iter().find(|c| super::names_certificate(c, kind, a, serial))
}

/// Reads a SignerIdentifier: IssuerAndSerialNumber or `[0]` subjectKeyIdentifier.
pub(crate) fn read_sid(r: &mut Reader<'_>) -> Result<(SignerIdKind, Vec<u8>, Vec<u8>)> {
    match r.peek_tag() {
        Some(der::SEQUENCE) => {
            let mut s = r.nested(der::SEQUENCE, "IssuerAndSerialNumber")?;
            // Any element: a KMC writes an empty placeholder (00 00) there;
            // such an identifier then names no certificate.
            let name = s.any()?.raw.to_vec();
            let serial = crate::x509::certificate::serial_magnitude(s.integer("serialNumber")?, 21, "CMS")?;
            s.finish("IssuerAndSerialNumber")?;
            Ok((SignerIdKind::IssuerSerial, name, serial))
        }
        Some(t) if t == der::ctx_prim(0) || t == der::ctx_prim(2) => {
            Ok((SignerIdKind::KeyId, r.any()?.value.to_vec(), Vec::new()))
        }
        _ => Err(r.err("unsupported signer / recipient identifier")),
    }
}

/// How a signer or recipient is identified.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SignerIdKind {
    IssuerSerial,
    KeyId,
}

fn verify_sm2(key: &PublicKey, e: &[u8; 32], sig: &[u8]) -> bool {
    fmt::signature_from_der(sig).and_then(|s| key.verify_digest(e, &s)).is_ok()
}

fn uid_list(uid: Option<&[u8]>) -> Vec<&[u8]> {
    match uid {
        Some(u) => vec![u],
        None => x509::UID_CONVENTIONS.to_vec(),
    }
}

/// Verifies a SignedData (DER or BER ContentInfo). `detached` supplies the
/// content when the message does not carry it; `extra` adds certificates to
/// search for signers; with `trust` every signer must chain to one of the
/// roots at time `at` (the usual [`x509::verify_chain`] checks).
pub fn verify(
    der: &[u8],
    detached: Option<&[u8]>,
    extra: &[Certificate],
    uid: Option<&[u8]>,
    trust: Option<(&[Certificate], i64)>,
) -> Result<Verified> {
    const W: &str = "SignedData";
    let der = super::normalized(der, W)?;
    let (ct, body) = content_info(&der, W)?;
    let gm = if ct == oid::GM_SIGNED_DATA {
        true
    } else if ct == oid::SIGNED_DATA {
        false
    } else {
        return Err(unsupported("content type (expected signedData)", &ct));
    };
    let mut sd = Reader::new(der::single(body, der::SEQUENCE, W)?.value, W);
    sd.small_uint("version")?;
    let mut algs = sd.nested(der::SET, "digestAlgorithms")?;
    while !algs.is_empty() {
        algs.any()?;
    }
    let mut encap = sd.nested(der::SEQUENCE, "encapContentInfo")?;
    let ect = encap.oid("eContentType")?;
    let carried = match encap.optional(der::ctx(0))? {
        Some(t) => {
            let mut e = Reader::new(t.value, W);
            let o = e.expect(der::OCTET_STRING, "eContent")?;
            e.finish("eContent")?;
            Some(o.value)
        }
        None => None,
    };
    encap.finish("encapContentInfo")?;
    let certificates = read_certificates(&mut sd)?;
    sd.optional(der::ctx(1))?;
    let mut infos = sd.nested(der::SET, "signerInfos")?;
    sd.finish("SignedData")?;
    if infos.is_empty() {
        return Err(Error::invalid(format!(
            "signed-data has no signers: it carries only {} certificate(s) (certs-only PKCS#7, a .p7b); \
             read them with load_der_pkcs7_certificates / load_pem_pkcs7_certificates",
            certificates.len()
        )));
    }
    if !is_data(&ect) {
        return Err(unsupported("encapsulated content type (only data is supported)", &ect));
    }
    let content: Vec<u8> = match (carried, detached) {
        (Some(c), None) => c.to_vec(),
        (None, Some(d)) => d.to_vec(),
        (Some(_), Some(_)) => return Err(Error::invalid("the message carries its content; do not pass data as well")),
        (None, None) => return Err(Error::invalid("detached signature: the signed data must be given")),
    };
    let mut pool: Vec<Certificate> = certificates.clone();
    pool.extend(extra.iter().cloned());
    let encap_der = der::seq(&[&der::oid(&ect), &der::tlv(der::ctx(0), &der::octets(&content))]);
    let (signers, gmssl_form) =
        verify_signer_infos(&mut infos, &pool, &content, Some(&ect), Some(&encap_der), uid, trust)?;
    let flavor = if gmssl_form {
        Flavor::Gmssl
    } else if gm {
        Flavor::GmT0010
    } else {
        Flavor::Rfc5652
    };
    Ok(Verified { content, signers, certificates, flavor })
}

/// Reads the optional `[0] IMPLICIT CertificateSet`, keeping X.509
/// certificates (other choices are skipped).
pub(crate) fn read_certificates(sd: &mut Reader<'_>) -> Result<Vec<Certificate>> {
    let mut certificates = Vec::new();
    if let Some(c) = sd.optional(der::ctx(0))? {
        let mut cr = sd.inner(c.value)?;
        while !cr.is_empty() {
            if certificates.len() >= MAX_CERTS {
                return Err(cr.err("too many certificates"));
            }
            let t = cr.any()?;
            if t.tag == der::SEQUENCE {
                certificates.push(Certificate::from_der(t.raw)?);
            }
        }
    }
    Ok(certificates)
}

/// Verifies every SignerInfo of `infos` over `content` (whose content type
/// is `ect`; `None`: id-data under either OID family); `encap_der` enables GmSSL's form (SM3 of the encapsulated
/// ContentInfo, no Z). Returns the signers' certificates and whether the
/// GmSSL form was used. No SignerInfo at all is an error.
pub(crate) fn verify_signer_infos(
    infos: &mut Reader<'_>,
    pool: &[Certificate],
    content: &[u8],
    ect: Option<&ObjectIdentifier>,
    encap_der: Option<&[u8]>,
    uid: Option<&[u8]>,
    trust: Option<(&[Certificate], i64)>,
) -> Result<(Vec<Certificate>, bool)> {
    let mut signers = Vec::new();
    let mut gmssl_form = false;
    while !infos.is_empty() {
        if signers.len() >= MAX_SIGNERS {
            return Err(infos.err("too many signers"));
        }
        let mut si = infos.nested(der::SEQUENCE, "SignerInfo")?;
        si.small_uint("version")?;
        let (kind, a, b) = read_sid(&mut si)?;
        let mut dr = si.nested(der::SEQUENCE, "digestAlgorithm")?;
        let dalg = dr.oid("digestAlgorithm")?;
        // Lenient: GmSSL and others sometimes name the signature algorithm here.
        if dalg != oid::SM3 && !is_sm2_signature(&dalg) {
            return Err(unsupported("digest algorithm (only SM3 is supported)", &dalg));
        }
        let attrs = si.optional(der::ctx(0))?;
        let mut sr = si.nested(der::SEQUENCE, "signatureAlgorithm")?;
        let salg = sr.oid("signatureAlgorithm")?;
        if !is_sm2_signature(&salg) && salg != oid::EC_PUBLIC_KEY {
            return Err(unsupported("signature algorithm (only SM2 is supported)", &salg));
        }
        let sig = si.expect(der::OCTET_STRING, "signature")?.value;
        si.optional(der::ctx(1))?;
        si.finish("SignerInfo")?;
        let cert = find_cert(kind, &a, &b, pool).ok_or_else(|| {
            Error::InvalidCertificate("the signer's certificate is neither in the message nor given".into())
        })?;
        let key = cert.public_key()?;
        let ok = match attrs {
            Some(a) => {
                check_attributes(a.value, ect, content)?;
                let set = der::tlv(der::SET, a.value);
                uid_list(uid)
                    .into_iter()
                    .any(|u| x509::signing_digest(key, u, &set).map(|e| verify_sm2(key, &e, sig)).unwrap_or(false))
            }
            None => {
                let g = encap_der.is_some_and(|e| verify_sm2(key, &sm3::hash(e), sig));
                gmssl_form |= g;
                g || uid_list(uid)
                    .into_iter()
                    .any(|u| x509::signing_digest(key, u, content).map(|e| verify_sm2(key, &e, sig)).unwrap_or(false))
            }
        };
        if !ok {
            return Err(Error::InvalidSignature);
        }
        if let Some((roots, at)) = trust {
            let others: Vec<Certificate> = pool.iter().filter(|c| *c != cert).cloned().collect();
            x509::verify_chain(cert, &others, roots, &[], Options::at(at)).map_err(|e| match e {
                Error::InvalidCertificate(m) => Error::InvalidCertificate(format!("signer not trusted: {m}")),
                other => other,
            })?;
        }
        signers.push(cert.clone());
    }
    if signers.is_empty() {
        return Err(Error::invalid("the message has no signers"));
    }
    Ok((signers, gmssl_form))
}

fn check_attributes(set_contents: &[u8], ect: Option<&ObjectIdentifier>, content: &[u8]) -> Result<()> {
    let mut r = Reader::new(set_contents, "signed attributes");
    let (mut ctype, mut digest) = (None, None);
    while !r.is_empty() {
        let mut a = r.nested(der::SEQUENCE, "Attribute")?;
        let t = a.oid("attribute type")?;
        let mut vals = a.nested(der::SET, "attribute values")?;
        let v = vals.any()?;
        if t == oid::CONTENT_TYPE {
            ctype = Some(ObjectIdentifier::from_bytes(v.value).map_err(|e| r.err(format!("contentType: {e}")))?);
        } else if t == oid::MESSAGE_DIGEST {
            digest = Some(v.value.to_vec());
        }
    }
    let expected = match (ect, ctype.as_ref()) {
        (Some(e), Some(c)) => e == c,
        (None, Some(c)) => is_data(c),
        (_, None) => false,
    };
    if !expected {
        return Err(Error::invalid("signed attributes: contentType is missing or differs from the content's"));
    }
    match digest {
        Some(d) if d == sm3::hash(content) => Ok(()),
        Some(_) => Err(Error::InvalidSignature),
        None => Err(Error::invalid("signed attributes: messageDigest is missing")),
    }
}
