//! The typed content of the extensions the core interprets, chosen by OID
//! in one place: [`ExtValue::decode`] reads an `extnValue`, [`ExtKind::of`]
//! says which shape an OID's value has (so a caller holding loose values,
//! such as the Python binding, knows what to convert them into) and
//! [`ExtValue::encode`] writes it back.

use crate::encoding::oid::ObjectIdentifier;

use super::extensions::{self as ext, AuthorityKeyId, GeneralName};
use crate::encoding::oid;
use crate::{Error, Result};

/// The shape of a known extension's value (an [`ExtValue`] without its data).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExtKind {
    /// basicConstraints: (cA, pathLenConstraint).
    BasicConstraints,
    /// keyUsage: the bit mask of [`ext::key_usage`].
    KeyUsage,
    /// extKeyUsage: purpose OIDs.
    ExtendedKeyUsage,
    /// subjectKeyIdentifier: the key identifier octets.
    SubjectKeyIdentifier,
    /// authorityKeyIdentifier: [`AuthorityKeyId`].
    AuthorityKeyIdentifier,
    /// subjectAltName or issuerAltName: general names.
    AltName,
    /// cRLDistributionPoints: the full names of each point.
    CrlDistributionPoints,
    /// cRLNumber: the integer's unsigned big-endian magnitude.
    CrlNumber,
    /// reasonCode: the CRLReason value.
    CrlReason,
}

impl ExtKind {
    /// The shape of `oid`'s value, or `None` for an extension the core does
    /// not interpret (its value stays raw bytes).
    pub fn of(oid: &ObjectIdentifier) -> Option<Self> {
        let table = [
            (oid::BASIC_CONSTRAINTS, ExtKind::BasicConstraints),
            (oid::KEY_USAGE, ExtKind::KeyUsage),
            (oid::EXTENDED_KEY_USAGE, ExtKind::ExtendedKeyUsage),
            (oid::SUBJECT_KEY_IDENTIFIER, ExtKind::SubjectKeyIdentifier),
            (oid::AUTHORITY_KEY_IDENTIFIER, ExtKind::AuthorityKeyIdentifier),
            (oid::SUBJECT_ALT_NAME, ExtKind::AltName),
            (oid::ISSUER_ALT_NAME, ExtKind::AltName),
            (oid::CRL_DISTRIBUTION_POINTS, ExtKind::CrlDistributionPoints),
            (oid::CRL_NUMBER, ExtKind::CrlNumber),
            (oid::CRL_REASON, ExtKind::CrlReason),
        ];
        table.into_iter().find(|(o, _)| o == oid).map(|(_, k)| k)
    }

    /// [`ExtKind::of`] for a caller that wants to encode: an extension the
    /// core does not interpret is an [`Error::InvalidInput`].
    pub fn for_encoding(oid: &ObjectIdentifier) -> Result<Self> {
        Self::of(oid).ok_or_else(|| Error::invalid(format!("no typed encoder for extension {oid}")))
    }
}

/// The typed content of a known extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExtValue {
    /// basicConstraints: cA and the optional path length.
    BasicConstraints(bool, Option<u64>),
    /// keyUsage bit mask.
    KeyUsage(u16),
    /// extKeyUsage purposes.
    ExtendedKeyUsage(Vec<ObjectIdentifier>),
    /// subjectKeyIdentifier octets.
    SubjectKeyIdentifier(Vec<u8>),
    /// authorityKeyIdentifier fields.
    AuthorityKeyIdentifier(AuthorityKeyId),
    /// subjectAltName / issuerAltName entries.
    AltName(Vec<GeneralName>),
    /// cRLDistributionPoints: the full names of each point.
    CrlDistributionPoints(Vec<Vec<GeneralName>>),
    /// cRLNumber magnitude (unsigned big-endian).
    CrlNumber(Vec<u8>),
    /// reasonCode value.
    CrlReason(u8),
}

impl ExtValue {
    /// The typed content of `value`, the `extnValue` of an extension `oid`:
    /// `Ok(None)` for an extension the core does not interpret, an
    /// [`Error::InvalidInput`] for a known one whose DER is malformed.
    pub fn decode(oid: &ObjectIdentifier, value: &[u8]) -> Result<Option<Self>> {
        let Some(kind) = ExtKind::of(oid) else {
            return Ok(None);
        };
        Ok(Some(match kind {
            ExtKind::BasicConstraints => {
                let (ca, path_length) = ext::basic_constraints(value)?;
                ExtValue::BasicConstraints(ca, path_length)
            }
            ExtKind::KeyUsage => ExtValue::KeyUsage(ext::key_usage(value)?),
            ExtKind::ExtendedKeyUsage => ExtValue::ExtendedKeyUsage(ext::extended_key_usage(value)?),
            ExtKind::SubjectKeyIdentifier => ExtValue::SubjectKeyIdentifier(ext::subject_key_identifier(value)?),
            ExtKind::AuthorityKeyIdentifier => ExtValue::AuthorityKeyIdentifier(ext::authority_key_identifier(value)?),
            ExtKind::AltName => ExtValue::AltName(ext::general_names(value, "alternative name")?),
            ExtKind::CrlDistributionPoints => ExtValue::CrlDistributionPoints(ext::crl_distribution_points(value)?),
            ExtKind::CrlNumber => ExtValue::CrlNumber(ext::crl_number(value)?),
            ExtKind::CrlReason => ExtValue::CrlReason(ext::crl_reason(value)?),
        }))
    }

    /// The `extnValue` DER of this content; out-of-range values (a reason
    /// code with no meaning, an empty name list, a key usage above bit 8)
    /// are [`Error::InvalidInput`].
    pub fn encode(&self) -> Result<Vec<u8>> {
        match self {
            ExtValue::BasicConstraints(ca, path_length) => ext::encode_basic_constraints(*ca, *path_length),
            ExtValue::KeyUsage(mask) => ext::encode_key_usage(*mask),
            ExtValue::ExtendedKeyUsage(purposes) => Ok(ext::encode_extended_key_usage(purposes)),
            ExtValue::SubjectKeyIdentifier(id) => Ok(ext::encode_subject_key_identifier(id)),
            ExtValue::AuthorityKeyIdentifier((kid, issuer, serial)) => {
                ext::encode_authority_key_identifier(kid.as_deref(), issuer.as_deref(), serial.as_deref())
            }
            ExtValue::AltName(names) => ext::encode_general_names(names),
            ExtValue::CrlDistributionPoints(points) => ext::encode_crl_distribution_points(points),
            ExtValue::CrlNumber(magnitude) => ext::encode_crl_number(magnitude),
            ExtValue::CrlReason(code) => ext::encode_crl_reason(*code),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_understood_extension_has_a_kind_and_round_trips() {
        for o in ext::UNDERSTOOD {
            assert!(ExtKind::of(o).is_some(), "{o}");
        }
        let v = ExtValue::BasicConstraints(true, Some(3));
        let der = v.encode().unwrap();
        // SEQUENCE { BOOLEAN TRUE, INTEGER 3 }, RFC 5280's basicConstraints.
        assert_eq!(der, [0x30, 0x06, 0x01, 0x01, 0xff, 0x02, 0x01, 0x03]);
        assert_eq!(ExtValue::decode(&oid::BASIC_CONSTRAINTS, &der).unwrap(), Some(v));
    }

    #[test]
    fn unknown_oids_decode_to_none_and_refuse_to_encode() {
        let o = ObjectIdentifier::new_unwrap("1.2.3.4");
        assert_eq!(ExtValue::decode(&o, &[0x05, 0x00]).unwrap(), None);
        let err = ExtKind::for_encoding(&o).unwrap_err();
        assert_eq!(err.to_string(), "no typed encoder for extension 1.2.3.4");
    }
}
