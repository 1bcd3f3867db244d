//! Certificate revocation lists (RFC 5280 section 5).

use super::certificate::{serial_magnitude, MAX_SERIAL_READ};
use super::extensions::{self as ext, Extension};
use super::name::Name;
use super::signed::{self, Signed, SignedObject};
use crate::encoding::der::{self, Reader};
use crate::encoding::oid;
use crate::sm2::PublicKey;
use crate::Result;

/// One revoked certificate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RevokedCertificate {
    /// Serial magnitude, big-endian without leading zeros.
    pub serial: Vec<u8>,
    /// Unix seconds.
    pub revocation_date: i64,
    pub extensions: Vec<Extension>,
}

impl RevokedCertificate {
    /// The reasonCode entry extension, if present.
    pub fn reason(&self) -> Result<Option<u8>> {
        self.extensions.iter().find(|e| e.oid == oid::CRL_REASON).map(|e| ext::crl_reason(&e.value)).transpose()
    }
}

/// A parsed CRL. Immutable; keeps its exact DER.
#[derive(Clone, Debug)]
pub struct Crl {
    der: Vec<u8>,
    signed: Signed,
    tbs_alg_der: Vec<u8>,
    issuer: Name,
    this_update: i64,
    next_update: Option<i64>,
    revoked: Vec<RevokedCertificate>,
    extensions: Vec<Extension>,
}

/// A bound on entries so a hostile CRL costs bounded memory per byte.
const MAX_ENTRIES: usize = 10_000_000;

impl Crl {
    /// Parses one DER CRL (no trailing bytes), validating every field and
    /// bounding the number of entries.
    pub fn from_der(der: &[u8]) -> Result<Crl> {
        const W: &str = "CRL";
        let signed = Signed::parse(der, W)?;
        let mut r = Reader::new(&der[signed.tbs.clone()], W);
        let mut t = r.nested(der::SEQUENCE, "tbsCertList")?;
        if t.peek_tag() == Some(der::INTEGER) && t.small_uint("version")? != 1 {
            return Err(t.err("unknown version (expected v2, 1)"));
        }
        let (_, _, tbs_alg_der) = signed::algorithm(&mut t, "signature")?;
        let issuer = Name::from_der(t.expect(der::SEQUENCE, "issuer")?.raw)?;
        let this_update = der::parse_time(&t.any()?, "thisUpdate")?;
        let next_update = match t.peek_tag() {
            Some(der::UTC_TIME) | Some(der::GENERALIZED_TIME) => Some(der::parse_time(&t.any()?, "nextUpdate")?),
            _ => None,
        };
        let mut revoked = Vec::new();
        if let Some(list) = t.optional(der::SEQUENCE)? {
            let mut lr = Reader::new(list.value, W);
            while !lr.is_empty() {
                if revoked.len() >= MAX_ENTRIES {
                    return Err(lr.err("too many entries"));
                }
                let mut e = lr.nested(der::SEQUENCE, "revoked certificate")?;
                let serial = serial_magnitude(e.integer("userCertificate")?, MAX_SERIAL_READ, W)?;
                let revocation_date = der::parse_time(&e.any()?, "revocationDate")?;
                let extensions = match e.optional(der::SEQUENCE)? {
                    Some(x) => ext::parse_list(x.value, W)?,
                    None => Vec::new(),
                };
                e.finish("revoked certificate")?;
                revoked.push(RevokedCertificate { serial, revocation_date, extensions });
            }
        }
        let extensions = match t.optional(der::ctx(0))? {
            Some(x) => ext::parse_list(der::single(x.value, der::SEQUENCE, W)?.value, W)?,
            None => Vec::new(),
        };
        t.finish("tbsCertList")?;
        Ok(Crl { der: der.to_vec(), signed, tbs_alg_der, issuer, this_update, next_update, revoked, extensions })
    }

    /// The CRL's DER, as parsed or built.
    pub fn to_der(&self) -> &[u8] {
        &self.der
    }

    /// The issuer name.
    pub fn issuer(&self) -> &Name {
        &self.issuer
    }

    /// thisUpdate in Unix seconds.
    pub fn this_update(&self) -> i64 {
        self.this_update
    }

    /// nextUpdate in Unix seconds, if present.
    pub fn next_update(&self) -> Option<i64> {
        self.next_update
    }

    /// The revoked certificates, in CRL order.
    pub fn revoked(&self) -> &[RevokedCertificate] {
        &self.revoked
    }

    /// The CRL's own extensions (crlExtensions).
    pub fn extensions(&self) -> &[Extension] {
        &self.extensions
    }

    /// The entry for `serial` (a magnitude), if revoked.
    pub fn find(&self, serial: &[u8]) -> Option<&RevokedCertificate> {
        let skip = serial.iter().take_while(|&&b| b == 0).count();
        self.revoked.iter().find(|r| r.serial == serial[skip..])
    }

    /// Checks the CRL's signature with the issuer's key (see
    /// [`super::Certificate::verify_signature`] for `uid`).
    pub fn verify_signature(&self, issuer_key: &PublicKey, uid: Option<&[u8]>) -> Result<()> {
        if self.tbs_alg_der != self.signed.alg_der {
            return Err(crate::Error::invalid(
                "CRL: the signature algorithm inside and outside the signed part differ",
            ));
        }
        signed::verify(issuer_key, &self.signed.alg, self.tbs_der(), &self.signed.signature, uid).map(|_| ())
    }
}

impl SignedObject for Crl {
    const PEM_LABELS: &'static [&'static str] = &["X509 CRL"];

    fn from_der(der: &[u8]) -> Result<Self> {
        Crl::from_der(der)
    }

    fn to_der(&self) -> &[u8] {
        Crl::to_der(self)
    }

    fn envelope(&self) -> &Signed {
        &self.signed
    }
}

/// The DER tbsCertList (v2, SM2-with-SM3).
pub fn encode_tbs_crl(
    issuer: &Name,
    this_update: i64,
    next_update: Option<i64>,
    revoked: &[RevokedCertificate],
    extensions: &[Extension],
) -> Result<Vec<u8>> {
    let mut entries = Vec::with_capacity(revoked.len());
    for r in revoked {
        super::builder::check_serial(&r.serial)?;
        let exts = if r.extensions.is_empty() { Vec::new() } else { ext::encode_list(&r.extensions)? };
        entries.push(der::seq(&[&der::uint(&r.serial), &der::encode_time(r.revocation_date)?, &exts]));
    }
    let list = if entries.is_empty() {
        Vec::new()
    } else {
        let refs: Vec<&[u8]> = entries.iter().map(|v| v.as_slice()).collect();
        der::seq(&refs)
    };
    let next = next_update.map(der::encode_time).transpose()?.unwrap_or_default();
    let exts = if extensions.is_empty() { Vec::new() } else { der::tlv(der::ctx(0), &ext::encode_list(extensions)?) };
    Ok(der::seq(&[
        &der::small_int(1),
        &signed::sm2_sm3_algorithm(),
        issuer.to_der(),
        &der::encode_time(this_update)?,
        &next,
        &list,
        &exts,
    ]))
}

/// A CRL from its to-be-signed DER and a DER SM2 signature over it, both
/// checked for shape (not the signature's validity).
pub fn assemble(tbs: &[u8], sig_der: &[u8]) -> Result<Crl> {
    Crl::from_der(&signed::assemble(tbs, sig_der)?)
}
