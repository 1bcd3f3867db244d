//! What certificates, CSRs and CRLs share: the outer
//! `SEQUENCE { tbs, signatureAlgorithm, signatureValue BIT STRING }`, the
//! SM2-with-SM3 algorithm identifier, and SM2 signature checks under either
//! user-ID convention.

use crate::encoding::oid::ObjectIdentifier;

use crate::encoding::der::{self, Reader};
use crate::encoding::{oid, sm2 as fmt};
use crate::sm2::{PublicKey, DEFAULT_UID};
use crate::{sm3, Error, Result};

/// The signed envelope of a certificate, CSR or CRL. Public only so that
/// [`SignedObject`] can name it; this module is private, so nothing outside
/// the crate can reach its fields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signed {
    /// Where the to-be-signed SEQUENCE lies in the object's DER.
    pub(crate) tbs: std::ops::Range<usize>,
    /// signatureAlgorithm's OID.
    pub(crate) alg: ObjectIdentifier,
    /// The complete outer AlgorithmIdentifier DER.
    pub(crate) alg_der: Vec<u8>,
    /// The contents of signatureValue (a DER SM2 signature when well formed).
    pub(crate) signature: Vec<u8>,
}

/// What certificates, certificate requests and CRLs share: DER
/// `SEQUENCE { tbs, signatureAlgorithm, signatureValue }` with a PEM label.
/// The accessors are written once here; each type says how to parse its
/// to-be-signed part and where its envelope is.
pub trait SignedObject: Sized {
    /// The PEM labels read, the one written first.
    const PEM_LABELS: &'static [&'static str];

    /// Parses exactly one DER object, validating every field
    /// ([`Error::InvalidInput`] naming the field otherwise).
    fn from_der(der: &[u8]) -> Result<Self>;

    /// The whole DER, as parsed or built.
    fn to_der(&self) -> &[u8];

    /// The parsed envelope (crate-internal: [`Signed`] is unnameable outside).
    #[doc(hidden)]
    fn envelope(&self) -> &Signed;

    /// Parses one PEM block labelled with one of [`Self::PEM_LABELS`] (and
    /// nothing else around it).
    fn from_pem(data: &[u8]) -> Result<Self> {
        Self::from_der(&pem_one(data, Self::PEM_LABELS)?)
    }

    /// The DER as one PEM block under the first of [`Self::PEM_LABELS`].
    fn to_pem(&self) -> String {
        crate::encoding::pem::encode(Self::PEM_LABELS[0], &[], self.to_der()).to_string()
    }

    /// The DER of the to-be-signed part: what the signature covers.
    fn tbs_der(&self) -> &[u8] {
        &self.to_der()[self.envelope().tbs.clone()]
    }

    /// The OID of signatureAlgorithm.
    fn signature_algorithm(&self) -> &ObjectIdentifier {
        &self.envelope().alg
    }

    /// The contents of signatureValue (for SM2, a DER `SEQUENCE { r, s }`).
    fn signature(&self) -> &[u8] {
        &self.envelope().signature
    }
}

/// Parses an AlgorithmIdentifier, returning its OID and whether its
/// parameters are absent or NULL (the only forms SM2-with-SM3 allows).
pub(crate) fn algorithm(r: &mut Reader<'_>, field: &str) -> Result<(ObjectIdentifier, bool, Vec<u8>)> {
    let t = r.expect(der::SEQUENCE, field)?;
    let mut a = Reader::new(t.value, r.what());
    let o = a.oid(field)?;
    let mut plain = true;
    if !a.is_empty() {
        let p = a.any()?;
        plain = p.tag == der::NULL && p.value.is_empty();
    }
    a.finish(field)?;
    Ok((o, plain, t.raw.to_vec()))
}

/// The AlgorithmIdentifier OpenSSL and GmSSL write for SM2-with-SM3: no parameters.
pub(crate) fn sm2_sm3_algorithm() -> Vec<u8> {
    der::seq(&[&der::oid(&oid::SM2_WITH_SM3)])
}

impl Signed {
    /// Parses the envelope of `der` (which must be exactly one structure).
    pub fn parse(der: &[u8], what: &'static str) -> Result<Signed> {
        let outer = der::single(der, der::SEQUENCE, what)?;
        let mut r = Reader::new(outer.value, what);
        let tbs = r.expect(der::SEQUENCE, "the to-be-signed part")?;
        let (alg, _, alg_der) = algorithm(&mut r, "signatureAlgorithm")?;
        let sig = r.expect(der::BIT_STRING, "signatureValue")?;
        let signature = der::bit_string_bytes(&sig, what)?.to_vec();
        r.finish("signatureValue")?;
        let start = tbs.raw.as_ptr() as usize - der.as_ptr() as usize;
        Ok(Signed { tbs: start..start + tbs.raw.len(), alg, alg_der, signature })
    }
}

/// e = SM3(Z(uid) ‖ tbs): the digest an SM2 signer signs for `tbs`.
pub fn signing_digest(key: &PublicKey, uid: &[u8], tbs: &[u8]) -> Result<[u8; 32]> {
    let z = key.z(uid)?;
    Ok(sm3::hash_parts(&[&z, tbs]))
}

/// The two user IDs deployed in SM2 certificates, in the order `uid=None`
/// tries them: GM/T 0015's default (GmSSL, CFCA, national roots), then
/// OpenSSL 3's empty ID.
pub const UID_CONVENTIONS: [&[u8]; 2] = [DEFAULT_UID, b""];

/// Checks an SM2-with-SM3 signature over `tbs`. With `uid = None` either
/// convention of [`UID_CONVENTIONS`] is accepted; returns the one that verified.
pub(crate) fn verify(
    key: &PublicKey,
    alg: &ObjectIdentifier,
    tbs: &[u8],
    sig_der: &[u8],
    uid: Option<&[u8]>,
) -> Result<&'static [u8]> {
    if *alg != oid::SM2_WITH_SM3 {
        return Err(Error::invalid(format!(
            "unsupported signature algorithm {alg} (only SM2-with-SM3, {}, is supported)",
            oid::SM2_WITH_SM3
        )));
    }
    let sig = fmt::signature_from_der(sig_der)?;
    let check = |u: &[u8]| -> Result<()> { key.verify_digest(&signing_digest(key, u, tbs)?, &sig) };
    match uid {
        Some(u) => check(u).map(|_| &b""[..0]),
        None => {
            for u in UID_CONVENTIONS {
                if check(u).is_ok() {
                    return Ok(u);
                }
            }
            Err(Error::InvalidSignature)
        }
    }
}

/// Assembles `SEQUENCE { tbs, sm2-with-sm3, BIT STRING sig }` after checking
/// that `sig_der` is a well-formed DER SM2 signature.
pub(crate) fn assemble(tbs: &[u8], sig_der: &[u8]) -> Result<Vec<u8>> {
    fmt::signature_from_der(sig_der).map_err(|_| {
        Error::invalid("the signer returned something that is not a DER SM2 signature (SEQUENCE { r, s })")
    })?;
    der::single(tbs, der::SEQUENCE, "to-be-signed structure")?;
    Ok(der::seq(&[tbs, &sm2_sm3_algorithm(), &der::bits(sig_der)]))
}

/// PEM blocks labelled `label` in `data`, in order (text between them is ignored).
pub(crate) fn pem_blocks(data: &[u8], label: &str) -> Result<Vec<Vec<u8>>> {
    let text = std::str::from_utf8(data).map_err(|_| Error::invalid("PEM data is not valid UTF-8 text"))?;
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find(&begin) {
        let after = &rest[i..];
        let j = after.find(&end).ok_or_else(|| Error::invalid(format!("PEM block '{label}' has no '{end}' line")))?;
        let block = crate::encoding::pem::decode(&after.as_bytes()[..j + end.len()])?;
        out.push(block.der.to_vec());
        rest = &after[j + end.len()..];
    }
    if out.is_empty() {
        return Err(Error::invalid(format!("no '{begin}' PEM block found")));
    }
    Ok(out)
}

/// The DER of the one PEM block in `data`, which must carry one of `labels`.
pub(crate) fn pem_one(data: &[u8], labels: &[&str]) -> Result<Vec<u8>> {
    let block = crate::encoding::pem::decode(data)?;
    if !labels.contains(&block.label.as_str()) {
        return Err(Error::invalid(format!("expected a '{}' PEM block, got '{}'", labels[0], block.label)));
    }
    Ok(block.der.to_vec())
}
