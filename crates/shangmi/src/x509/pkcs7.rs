//! Certs-only PKCS#7 / CMS SignedData (`.p7b`, `.p7c`): how CAs publish
//! chains. Reading takes any SignedData (RFC 5652 or GM/T 0010 content-type
//! OIDs, DER or BER) and returns its certificates; writing makes the
//! degenerate SignedData `openssl crl2pkcs7 -nocrl` writes (no signers,
//! empty digest algorithms, id-data content without a value).

use super::certificate::Certificate;
use super::signed::pem_one;
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::{Error, Result};

const W: &str = "PKCS#7 certificates";
/// The PEM label OpenSSL writes and reads (`-----BEGIN PKCS7-----`).
pub const PEM_LABEL: &str = "PKCS7";

/// The certificates of a DER or BER PKCS#7 SignedData, in file order (an
/// empty list when it carries none). Certificates other than X.509 ones
/// (the tagged CertificateChoices of RFC 5652) are refused.
pub fn certificates_from_der(data: &[u8]) -> Result<Vec<Certificate>> {
    let mut top = Reader::ber(data, W);
    let mut ci = top.nested(der::SEQUENCE, "ContentInfo")?;
    top.finish("ContentInfo")?;
    let ct = ci.oid("contentType")?;
    if ct != oid::SIGNED_DATA && ct != oid::GM_SIGNED_DATA {
        return Err(ci.err(format!(
            "content type {ct} is not signedData ({} or {})",
            oid::SIGNED_DATA,
            oid::GM_SIGNED_DATA
        )));
    }
    let mut body = ci.nested(der::ctx(0), "content")?;
    ci.finish("ContentInfo")?;
    let mut sd = body.nested(der::SEQUENCE, "SignedData")?;
    body.finish("content")?;
    sd.small_uint("version")?;
    sd.expect(der::SET, "digestAlgorithms")?;
    sd.expect(der::SEQUENCE, "encapContentInfo")?;
    let mut out = Vec::new();
    if let Some(certs) = sd.optional(der::ctx(0))? {
        let mut r = sd.inner(certs.value)?;
        while !r.is_empty() {
            let c = r.any()?;
            if c.tag != der::SEQUENCE {
                return Err(r.err(format!(
                    "certificate choice with tag 0x{:02X}: only X.509 certificates are supported",
                    c.tag
                )));
            }
            out.push(Certificate::from_der(c.raw).map_err(|e| match e {
                Error::InvalidInput(m) => Error::invalid(format!("{W}: certificate {}: {m}", out.len())),
                other => other,
            })?);
        }
    }
    sd.optional(der::ctx(1))?; // CRLs
    sd.expect(der::SET, "signerInfos")?;
    sd.finish("SignedData")?;
    Ok(out)
}

/// [`certificates_from_der`] on one `PKCS7` PEM block.
pub fn certificates_from_pem(data: &[u8]) -> Result<Vec<Certificate>> {
    certificates_from_der(&pem_one(data, &[PEM_LABEL])?)
}

/// A certs-only SignedData (DER) holding `certs` in order.
pub fn certificates_to_der(certs: &[Certificate]) -> Result<Vec<u8>> {
    if certs.is_empty() {
        return Err(Error::invalid("no certificates to write"));
    }
    let mut set = Vec::new();
    for c in certs {
        set.extend_from_slice(c.to_der());
    }
    let signed = der::seq(&[
        &der::small_int(1),
        &der::tlv(der::SET, &[]),
        &der::seq(&[&der::oid(&oid::DATA)]),
        &der::tlv(der::ctx(0), &set),
        &der::tlv(der::SET, &[]),
    ]);
    Ok(der::seq(&[&der::oid(&oid::SIGNED_DATA), &der::tlv(der::ctx(0), &signed)]))
}

/// [`certificates_to_der`] as a `PKCS7` PEM block.
pub fn certificates_to_pem(certs: &[Certificate]) -> Result<String> {
    Ok(crate::encoding::pem::encode(PEM_LABEL, &[], &certificates_to_der(certs)?).to_string())
}

/// [`certificates_to_der`] or [`certificates_to_pem`] by the name callers
/// pass: `"der"` or `"pem"`.
pub fn serialize(certs: &[Certificate], encoding: &str) -> Result<Vec<u8>> {
    match encoding {
        "der" => certificates_to_der(certs),
        "pem" => certificates_to_pem(certs).map(String::into_bytes),
        other => Err(Error::invalid(format!("encoding must be one of 'pem', 'der', got '{other}'"))),
    }
}
