//! The object identifiers of RFC 5652 and GM/T 0010.

use der::asn1::ObjectIdentifier as O;

pub const DATA: O = O::new_unwrap("1.2.840.113549.1.7.1");
pub const SIGNED_DATA: O = O::new_unwrap("1.2.840.113549.1.7.2");
pub const ENVELOPED_DATA: O = O::new_unwrap("1.2.840.113549.1.7.3");
pub const GM_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.1");
pub const GM_SIGNED_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.2");
pub const GM_ENVELOPED_DATA: O = O::new_unwrap("1.2.156.10197.6.1.4.2.3");
pub const CONTENT_TYPE: O = O::new_unwrap("1.2.840.113549.1.9.3");
pub const MESSAGE_DIGEST: O = O::new_unwrap("1.2.840.113549.1.9.4");
pub const SIGNING_TIME: O = O::new_unwrap("1.2.840.113549.1.9.5");
pub const SM3: O = crate::encoding::oid::SM3;
pub const SM2_WITH_SM3: O = crate::encoding::oid::SM2_WITH_SM3;
/// GM/T 0006 `sm2-1` (signature), seen in SignerInfo.signatureAlgorithm.
pub const SM2_SIGN: O = O::new_unwrap("1.2.156.10197.1.301.1");
pub const SM2: O = crate::encoding::oid::SM2;
pub const SM2_ENCRYPT: O = crate::encoding::oid::SM2_ENCRYPT;
pub const SM2_ENCRYPT_GMSSL: O = crate::encoding::oid::SM2_EXCHANGE;
pub const SM4_CBC: O = crate::encoding::oid::SM4_CBC;

/// Whether `o` is the data content type under either OID family.
pub fn is_data(o: &O) -> bool {
    *o == DATA || *o == GM_DATA
}

/// Whether `o` names an SM2 signature in any form seen in SignerInfo.
pub fn is_sm2_signature(o: &O) -> bool {
    *o == SM2_WITH_SM3 || *o == SM2_SIGN || *o == SM2
}

/// Whether `o` names SM2 key transport in any form seen in KeyTransRecipientInfo.
pub fn is_sm2_encryption(o: &O) -> bool {
    *o == SM2_ENCRYPT || *o == SM2_ENCRYPT_GMSSL || *o == SM2
}
