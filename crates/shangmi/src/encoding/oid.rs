//! Every object identifier the crate reads or writes, once, and the
//! [`ObjectIdentifier`] type that holds them.
//!
//! An OID is kept as its DER contents octets (what goes between the `06`
//! tag and length and what a reader compares), so matching a parsed OID
//! against a constant is a byte comparison and writing one is a copy. The
//! constants are written in dotted form and encoded at compile time by
//! [`ObjectIdentifier::new_unwrap`] (a malformed constant fails the build);
//! each one's doc comment repeats the dotted form and names its source, so
//! a search for "1.2.156.10197" finds every ShangMi OID here and nowhere else.

use std::fmt;

use crate::{Error, Result};

/// The longest contents we hold: 63 octets, room for 9 arcs of 7 base-128
/// digits. The longest OID in X.509 practice (Microsoft's template OIDs) is
/// about 30; longer input is refused with a message rather than truncated.
pub const MAX_LEN: usize = 63;

/// An OBJECT IDENTIFIER as its DER contents octets, validated (minimal
/// base-128 arcs, every arc below 2^64, at least two arcs).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectIdentifier {
    len: u8,
    bytes: [u8; MAX_LEN],
}

/// Appends `v` in base 128 (high groups first, continuation bit on all but the last).
const fn push_arc(out: &mut [u8; MAX_LEN], mut len: usize, v: u64) -> Option<usize> {
    let mut groups = 1;
    let mut t = v >> 7;
    while t != 0 {
        groups += 1;
        t >>= 7;
    }
    if len + groups > MAX_LEN {
        return None;
    }
    let mut g = groups;
    while g > 0 {
        g -= 1;
        let mut byte = ((v >> (7 * g)) & 0x7F) as u8;
        if g != 0 {
            byte |= 0x80;
        }
        out[len] = byte;
        len += 1;
    }
    Some(len)
}

/// The encoding of a dotted OID, or `None` if it is malformed.
const fn encode(s: &str) -> Option<ObjectIdentifier> {
    let b = s.as_bytes();
    let mut out = [0u8; MAX_LEN];
    let mut len = 0;
    let mut i = 0;
    let mut arc = 0;
    let mut first = 0u64;
    while i <= b.len() {
        let mut v = 0u64;
        let mut digits = 0;
        while i < b.len() && b[i] != b'.' {
            let c = b[i];
            if !c.is_ascii_digit() {
                return None;
            }
            v = match v.checked_mul(10) {
                Some(x) => match x.checked_add((c - b'0') as u64) {
                    Some(y) => y,
                    None => return None,
                },
                None => return None,
            };
            digits += 1;
            i += 1;
        }
        if digits == 0 {
            return None;
        }
        i += 1;
        if arc == 0 {
            if v > 2 {
                return None;
            }
            first = v;
        } else {
            let value = if arc == 1 {
                if first < 2 && v >= 40 {
                    return None;
                }
                match (first * 40).checked_add(v) {
                    Some(x) => x,
                    None => return None,
                }
            } else {
                v
            };
            len = match push_arc(&mut out, len, value) {
                Some(l) => l,
                None => return None,
            };
        }
        arc += 1;
    }
    if arc < 2 {
        return None;
    }
    Some(ObjectIdentifier { len: len as u8, bytes: out })
}

impl ObjectIdentifier {
    /// The OID with dotted form `s`; panics if `s` is malformed, which in a
    /// `const` is a compile error (for constants only: parse input with [`new`](Self::new)).
    pub const fn new_unwrap(s: &str) -> Self {
        match encode(s) {
            Some(o) => o,
            None => panic!("malformed object identifier constant"),
        }
    }

    /// Parses a dotted OID ("1.2.156.10197.1.501").
    pub fn new(s: &str) -> Result<Self> {
        encode(s).ok_or_else(|| Error::invalid(format!("malformed object identifier {s:?}")))
    }

    /// The OID whose DER contents octets are `content`, checked: non-empty,
    /// at most [`MAX_LEN`] octets, every arc minimal and below 2^64, the
    /// last octet ending an arc.
    pub fn from_bytes(content: &[u8]) -> Result<Self> {
        let bad = |p: &str| Err(Error::invalid(format!("malformed OBJECT IDENTIFIER: {p}")));
        if content.is_empty() {
            return bad("empty");
        }
        if content.len() > MAX_LEN {
            return bad(&format!("{} octets, more than the {MAX_LEN} supported", content.len()));
        }
        let mut start = true;
        let mut v = 0u64;
        for &b in content {
            if start && b == 0x80 {
                return bad("non-minimal arc (leading 0x80 octet)");
            }
            if v >> 57 != 0 {
                return bad("arc of 64 bits or more");
            }
            v = (v << 7) | u64::from(b & 0x7F);
            start = b & 0x80 == 0;
            if start {
                v = 0;
            }
        }
        if !start {
            return bad("the last arc is cut off");
        }
        let mut bytes = [0u8; MAX_LEN];
        bytes[..content.len()].copy_from_slice(content);
        Ok(ObjectIdentifier { len: content.len() as u8, bytes })
    }

    /// The DER contents octets.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// The arcs, first to last.
    pub fn arcs(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.len as usize + 1);
        let mut v = 0u64;
        for &b in self.as_bytes() {
            v = (v << 7) | u64::from(b & 0x7F);
            if b & 0x80 == 0 {
                if out.is_empty() {
                    let first = (v / 40).min(2);
                    out.push(first);
                    out.push(v - 40 * first);
                } else {
                    out.push(v);
                }
                v = 0;
            }
        }
        out
    }
}

impl fmt::Display for ObjectIdentifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.arcs().iter().enumerate() {
            if i > 0 {
                f.write_str(".")?;
            }
            write!(f, "{a}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for ObjectIdentifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ObjectIdentifier({self})")
    }
}

impl std::str::FromStr for ObjectIdentifier {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        Self::new(s)
    }
}

type O = ObjectIdentifier;

// ---------------------------------------------------------------- ShangMi (GM/T 0006)

/// 1.2.156.10197.1.104.2: SM4-CBC (GM/T 0006), the PBES2 cipher GmSSL writes and CMS's content cipher.
pub const SM4_CBC: O = O::new_unwrap("1.2.156.10197.1.104.2");
/// 1.2.156.10197.1.301: the SM2 curve and SM2 algorithm (GM/T 0006).
pub const SM2: O = O::new_unwrap("1.2.156.10197.1.301");
/// 1.2.156.10197.1.301.1: `sm2-1`, SM2 signature (GM/T 0006), seen in CMS SignerInfo.
pub const SM2_SIGN: O = O::new_unwrap("1.2.156.10197.1.301.1");
/// 1.2.156.10197.1.301.2: `sm2-2`, SM2 key exchange, the key-transport OID GmSSL writes.
pub const SM2_EXCHANGE: O = O::new_unwrap("1.2.156.10197.1.301.2");
/// 1.2.156.10197.1.301.3: `sm2-3`, SM2 encryption (GM/T 0006).
pub const SM2_ENCRYPT: O = O::new_unwrap("1.2.156.10197.1.301.3");
/// 1.2.156.10197.1.302: SM9 (GM/T 0006), the master keys' algorithm.
pub const SM9: O = O::new_unwrap("1.2.156.10197.1.302");
/// 1.2.156.10197.1.302.1: SM9 signature.
pub const SM9_SIGN: O = O::new_unwrap("1.2.156.10197.1.302.1");
/// 1.2.156.10197.1.302.2: SM9 key agreement.
pub const SM9_KEY_AGREEMENT: O = O::new_unwrap("1.2.156.10197.1.302.2");
/// 1.2.156.10197.1.302.3: SM9 encryption.
pub const SM9_ENCRYPT: O = O::new_unwrap("1.2.156.10197.1.302.3");
/// 1.2.156.10197.1.401: SM3 (GM/T 0006).
pub const SM3: O = O::new_unwrap("1.2.156.10197.1.401");
/// 1.2.156.10197.1.401.2: HMAC-SM3 as GmSSL writes it (GM/T 0006 "SM3 with key").
pub const HMAC_SM3: O = O::new_unwrap("1.2.156.10197.1.401.2");
/// 1.2.156.10197.1.401.3.1: HMAC-SM3 as OpenSSL >= 3.2 and GM/T 0091 name it (`hmacWithSM3`).
pub const HMAC_SM3_ALT: O = O::new_unwrap("1.2.156.10197.1.401.3.1");
/// 1.2.156.10197.1.501: SM2 signature with SM3 (GM/T 0006), the X.509 and CMS signature algorithm.
pub const SM2_WITH_SM3: O = O::new_unwrap("1.2.156.10197.1.501");
/// 1.2.156.10197.6.1.4.2.1: GM/T 0010 `data`.
pub const GM_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.1");
/// 1.2.156.10197.6.1.4.2.2: GM/T 0010 `signedData`.
pub const GM_SIGNED_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.2");
/// 1.2.156.10197.6.1.4.2.3: GM/T 0010 `envelopedData`.
pub const GM_ENVELOPED_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.3");

// ---------------------------------------------------------------- keys and PKCS

/// 1.2.840.10045.2.1: id-ecPublicKey (RFC 5480).
pub const EC_PUBLIC_KEY: O = O::new_unwrap("1.2.840.10045.2.1");
/// 1.2.840.113549.1.5.12: PBKDF2 (PKCS#5 v2, RFC 8018).
pub const PBKDF2: O = O::new_unwrap("1.2.840.113549.1.5.12");
/// 1.2.840.113549.1.5.13: PBES2 (PKCS#5 v2, RFC 8018).
pub const PBES2: O = O::new_unwrap("1.2.840.113549.1.5.13");
/// 1.2.840.113549.2.7: hmacWithSHA1 (RFC 8018).
pub const HMAC_SHA1: O = O::new_unwrap("1.2.840.113549.2.7");
/// 1.2.840.113549.2.8: hmacWithSHA224 (RFC 8018).
pub const HMAC_SHA224: O = O::new_unwrap("1.2.840.113549.2.8");
/// 1.2.840.113549.2.9: hmacWithSHA256 (RFC 8018).
pub const HMAC_SHA256: O = O::new_unwrap("1.2.840.113549.2.9");
/// 1.2.840.113549.2.10: hmacWithSHA384 (RFC 8018).
pub const HMAC_SHA384: O = O::new_unwrap("1.2.840.113549.2.10");
/// 1.2.840.113549.2.11: hmacWithSHA512 (RFC 8018).
pub const HMAC_SHA512: O = O::new_unwrap("1.2.840.113549.2.11");
/// 2.16.840.1.101.3.4.1.2: AES-128-CBC (NIST).
pub const AES128_CBC: O = O::new_unwrap("2.16.840.1.101.3.4.1.2");
/// 2.16.840.1.101.3.4.1.22: AES-192-CBC (NIST).
pub const AES192_CBC: O = O::new_unwrap("2.16.840.1.101.3.4.1.22");
/// 2.16.840.1.101.3.4.1.42: AES-256-CBC (NIST).
pub const AES256_CBC: O = O::new_unwrap("2.16.840.1.101.3.4.1.42");

// ---------------------------------------------------------------- CMS (RFC 5652) and PKCS#9

/// 1.2.840.113549.1.7.1: id-data (RFC 5652).
pub const DATA: O = O::new_unwrap("1.2.840.113549.1.7.1");
/// 1.2.840.113549.1.7.2: id-signedData (RFC 5652).
pub const SIGNED_DATA: O = O::new_unwrap("1.2.840.113549.1.7.2");
/// 1.2.840.113549.1.7.3: id-envelopedData (RFC 5652).
pub const ENVELOPED_DATA: O = O::new_unwrap("1.2.840.113549.1.7.3");
/// 1.2.840.113549.1.9.1: PKCS#9 emailAddress (a Name attribute).
pub const EMAIL_ADDRESS: O = O::new_unwrap("1.2.840.113549.1.9.1");
/// 1.2.840.113549.1.9.3: PKCS#9 contentType attribute.
pub const CONTENT_TYPE: O = O::new_unwrap("1.2.840.113549.1.9.3");
/// 1.2.840.113549.1.9.4: PKCS#9 messageDigest attribute.
pub const MESSAGE_DIGEST: O = O::new_unwrap("1.2.840.113549.1.9.4");
/// 1.2.840.113549.1.9.5: PKCS#9 signingTime attribute.
pub const SIGNING_TIME: O = O::new_unwrap("1.2.840.113549.1.9.5");
/// 1.2.840.113549.1.9.14: PKCS#9 extensionRequest, the CSR attribute carrying extensions.
pub const EXTENSION_REQUEST: O = O::new_unwrap("1.2.840.113549.1.9.14");

// ---------------------------------------------------------------- PKCS#12 (RFC 7292)

/// 1.2.840.113549.1.7.6: id-encryptedData (RFC 5652), the encrypted AuthenticatedSafe part.
pub const ENCRYPTED_DATA: O = O::new_unwrap("1.2.840.113549.1.7.6");
/// 1.2.840.113549.1.5.14: PBMAC1 (RFC 8018, in PKCS#12 by RFC 9579), named in refusals.
pub const PBMAC1: O = O::new_unwrap("1.2.840.113549.1.5.14");
/// 1.2.840.113549.1.9.20: PKCS#9 friendlyName (a BMPString bag attribute).
pub const FRIENDLY_NAME: O = O::new_unwrap("1.2.840.113549.1.9.20");
/// 1.2.840.113549.1.9.21: PKCS#9 localKeyId (an OCTET STRING bag attribute).
pub const LOCAL_KEY_ID: O = O::new_unwrap("1.2.840.113549.1.9.21");
/// 1.2.840.113549.1.9.22.1: x509Certificate, the certId of a PKCS#12 CertBag.
pub const X509_CERTIFICATE_BAG: O = O::new_unwrap("1.2.840.113549.1.9.22.1");
/// 1.2.840.113549.1.12.1.3: pbeWithSHAAnd3-KeyTripleDES-CBC (RFC 7292 C).
pub const PBE_SHA1_3DES: O = O::new_unwrap("1.2.840.113549.1.12.1.3");
/// 1.2.840.113549.1.12.1.4: pbeWithSHAAnd2-KeyTripleDES-CBC (RFC 7292 C).
pub const PBE_SHA1_2DES: O = O::new_unwrap("1.2.840.113549.1.12.1.4");
/// 1.2.840.113549.1.12.1.5: pbeWithSHAAnd128BitRC2-CBC (RFC 7292 C).
pub const PBE_SHA1_RC2_128: O = O::new_unwrap("1.2.840.113549.1.12.1.5");
/// 1.2.840.113549.1.12.1.6: pbewithSHAAnd40BitRC2-CBC (RFC 7292 C).
pub const PBE_SHA1_RC2_40: O = O::new_unwrap("1.2.840.113549.1.12.1.6");
/// 1.2.840.113549.1.12.10.1.1: keyBag (RFC 7292 4.2.1).
pub const KEY_BAG: O = O::new_unwrap("1.2.840.113549.1.12.10.1.1");
/// 1.2.840.113549.1.12.10.1.2: pkcs8ShroudedKeyBag (RFC 7292 4.2.2).
pub const PKCS8_SHROUDED_KEY_BAG: O = O::new_unwrap("1.2.840.113549.1.12.10.1.2");
/// 1.2.840.113549.1.12.10.1.3: certBag (RFC 7292 4.2.3).
pub const CERT_BAG: O = O::new_unwrap("1.2.840.113549.1.12.10.1.3");
/// 1.2.840.113549.1.12.10.1.4: crlBag (RFC 7292 4.2.4).
pub const CRL_BAG: O = O::new_unwrap("1.2.840.113549.1.12.10.1.4");
/// 1.2.840.113549.1.12.10.1.5: secretBag (RFC 7292 4.2.5).
pub const SECRET_BAG: O = O::new_unwrap("1.2.840.113549.1.12.10.1.5");
/// 1.2.840.113549.1.12.10.1.6: safeContentsBag (RFC 7292 4.2.6).
pub const SAFE_CONTENTS_BAG: O = O::new_unwrap("1.2.840.113549.1.12.10.1.6");
/// 1.3.14.3.2.26: SHA-1 (OIW), the digest of the usual PKCS#12 MAC.
pub const SHA1: O = O::new_unwrap("1.3.14.3.2.26");
/// 2.16.840.1.101.3.4.2.1: SHA-256 (NIST), the digest of OpenSSL 3's PKCS#12 MAC.
pub const SHA256: O = O::new_unwrap("2.16.840.1.101.3.4.2.1");
/// 1.2.840.113549.1.1.1: rsaEncryption (RFC 8017), named in refusals of RSA keys.
pub const RSA_ENCRYPTION: O = O::new_unwrap("1.2.840.113549.1.1.1");

// ---------------------------------------------------------------- Name attributes (X.520, RFC 4519)

/// 2.5.4.3: commonName (CN).
pub const COMMON_NAME: O = O::new_unwrap("2.5.4.3");
/// 2.5.4.5: serialNumber (a PrintableString).
pub const SERIAL_NUMBER: O = O::new_unwrap("2.5.4.5");
/// 2.5.4.6: countryName (C), two letters in a PrintableString.
pub const COUNTRY_NAME: O = O::new_unwrap("2.5.4.6");
/// 2.5.4.7: localityName (L).
pub const LOCALITY_NAME: O = O::new_unwrap("2.5.4.7");
/// 2.5.4.8: stateOrProvinceName (ST).
pub const STATE_OR_PROVINCE_NAME: O = O::new_unwrap("2.5.4.8");
/// 2.5.4.9: streetAddress (STREET).
pub const STREET_ADDRESS: O = O::new_unwrap("2.5.4.9");
/// 2.5.4.10: organizationName (O).
pub const ORGANIZATION_NAME: O = O::new_unwrap("2.5.4.10");
/// 2.5.4.11: organizationalUnitName (OU).
pub const ORGANIZATIONAL_UNIT_NAME: O = O::new_unwrap("2.5.4.11");
/// 2.5.4.46: dnQualifier (a PrintableString).
pub const DN_QUALIFIER: O = O::new_unwrap("2.5.4.46");
/// 0.9.2342.19200300.100.1.1: userId (UID, RFC 4519).
pub const USER_ID: O = O::new_unwrap("0.9.2342.19200300.100.1.1");
/// 0.9.2342.19200300.100.1.25: domainComponent (DC, RFC 4519), an IA5String.
pub const DOMAIN_COMPONENT: O = O::new_unwrap("0.9.2342.19200300.100.1.25");

// ---------------------------------------------------------------- X.509 extensions (RFC 5280)

/// 2.5.29.14: subjectKeyIdentifier.
pub const SUBJECT_KEY_IDENTIFIER: O = O::new_unwrap("2.5.29.14");
/// 2.5.29.15: keyUsage.
pub const KEY_USAGE: O = O::new_unwrap("2.5.29.15");
/// 2.5.29.17: subjectAltName.
pub const SUBJECT_ALT_NAME: O = O::new_unwrap("2.5.29.17");
/// 2.5.29.18: issuerAltName.
pub const ISSUER_ALT_NAME: O = O::new_unwrap("2.5.29.18");
/// 2.5.29.19: basicConstraints.
pub const BASIC_CONSTRAINTS: O = O::new_unwrap("2.5.29.19");
/// 2.5.29.20: cRLNumber.
pub const CRL_NUMBER: O = O::new_unwrap("2.5.29.20");
/// 2.5.29.21: reasonCode (CRL entry).
pub const CRL_REASON: O = O::new_unwrap("2.5.29.21");
/// 2.5.29.31: cRLDistributionPoints.
pub const CRL_DISTRIBUTION_POINTS: O = O::new_unwrap("2.5.29.31");
/// 2.5.29.35: authorityKeyIdentifier.
pub const AUTHORITY_KEY_IDENTIFIER: O = O::new_unwrap("2.5.29.35");
/// 2.5.29.37: extKeyUsage.
pub const EXTENDED_KEY_USAGE: O = O::new_unwrap("2.5.29.37");

// ---------------------------------------------------------------- OCSP (RFC 6960)

/// 1.3.6.1.5.5.7.3.9: id-kp-OCSPSigning, the extKeyUsage purpose of a delegated OCSP responder (RFC 6960 4.2.2.2).
pub const KP_OCSP_SIGNING: O = O::new_unwrap("1.3.6.1.5.5.7.3.9");
/// 1.3.6.1.5.5.7.48.1.1: id-pkix-ocsp-basic, the BasicOCSPResponse response type (RFC 6960 4.2.1).
pub const OCSP_BASIC: O = O::new_unwrap("1.3.6.1.5.5.7.48.1.1");
/// 1.3.6.1.5.5.7.48.1.2: id-pkix-ocsp-nonce (RFC 6960 4.4.1, RFC 8954).
pub const OCSP_NONCE: O = O::new_unwrap("1.3.6.1.5.5.7.48.1.2");
/// 1.3.6.1.5.5.7.48.1.5: id-pkix-ocsp-nocheck, on delegated responder certificates (RFC 6960 4.2.2.2.1).
pub const OCSP_NO_CHECK: O = O::new_unwrap("1.3.6.1.5.5.7.48.1.5");
// ---------------------------------------------------------------- containers CAs, KMCs and KMSs write

/// 1.2.156.10197.1.104: SM4 (GM/T 0006) with no mode: CFCA's and gmsm's
/// EnvelopedData use it for SM4-CBC (an IV as parameters), KMC envelopes
/// and CFCA's `.sm2` key container for SM4 without one.
pub const SM4: O = O::new_unwrap("1.2.156.10197.1.104");
/// 1.2.156.10197.1.104.1: SM4-ECB (GM/T 0006), GB/T 35276 key envelopes.
pub const SM4_ECB: O = O::new_unwrap("1.2.156.10197.1.104.1");
/// 1.2.156.10197.6.1.4.2.4: GM/T 0010 `signedAndEnvelopedData`.
pub const GM_SIGNED_AND_ENVELOPED_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.4");
/// 1.2.840.113549.1.7.4: PKCS#7 `signedAndEnvelopedData` (RFC 2315).
pub const SIGNED_AND_ENVELOPED_DATA: O = O::new_unwrap("1.2.840.113549.1.7.4");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_encode_as_der_does() {
        // Contents octets worked out by hand from the arcs (X.690 8.19).
        assert_eq!(SM2.as_bytes(), [0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d]);
        assert_eq!(SM9.as_bytes(), [0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2e]);
        assert_eq!(EC_PUBLIC_KEY.as_bytes(), [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]);
        assert_eq!(KEY_USAGE.as_bytes(), [0x55, 0x1d, 0x0f]);
        assert_eq!(AES256_CBC.as_bytes(), [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x01, 0x2a]);
        assert_eq!(SM2_WITH_SM3.to_string(), "1.2.156.10197.1.501");
        assert_eq!(HMAC_SM3_ALT.to_string(), "1.2.156.10197.1.401.3.1");
        assert_eq!(O::new("2.999.3").unwrap().as_bytes(), [0x88, 0x37, 0x03]);
        assert_eq!(O::new("2.999.3").unwrap().to_string(), "2.999.3");
    }

    #[test]
    fn malformed_is_refused() {
        for s in ["", "1", "1.", ".1.2", "1..2", "3.1", "1.40", "1.2.x", "1.2.99999999999999999999"] {
            assert!(O::new(s).is_err(), "{s}");
        }
        for b in [&[][..], &[0x80, 0x01], &[0x2a, 0x81], &[0xff; 10]] {
            assert!(O::from_bytes(b).is_err(), "{b:?}");
        }
        assert!(O::from_bytes(&[0x2a; 64]).is_err());
        let o = O::from_bytes(SM2.as_bytes()).unwrap();
        assert_eq!(o, SM2);
    }
}
