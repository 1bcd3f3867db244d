//! The four TLCP cipher suites (GB/T 38636-2020 table 1, GM/T 0024).

use crate::{Error, Result};

/// A TLCP cipher suite.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CipherSuite {
    /// ECC_SM4_CBC_SM3, 0xE013.
    EccSm4CbcSm3,
    /// ECC_SM4_GCM_SM3, 0xE053.
    EccSm4GcmSm3,
    /// ECDHE_SM4_CBC_SM3, 0xE011.
    EcdheSm4CbcSm3,
    /// ECDHE_SM4_GCM_SM3, 0xE051.
    EcdheSm4GcmSm3,
}

impl CipherSuite {
    /// Every suite in the default preference order.
    pub const ALL: [CipherSuite; 4] = [
        CipherSuite::EcdheSm4GcmSm3,
        CipherSuite::EccSm4GcmSm3,
        CipherSuite::EcdheSm4CbcSm3,
        CipherSuite::EccSm4CbcSm3,
    ];

    /// The suite's code point.
    pub fn code(self) -> u16 {
        match self {
            CipherSuite::EccSm4CbcSm3 => 0xE013,
            CipherSuite::EccSm4GcmSm3 => 0xE053,
            CipherSuite::EcdheSm4CbcSm3 => 0xE011,
            CipherSuite::EcdheSm4GcmSm3 => 0xE051,
        }
    }

    /// The suite with code point `code`.
    pub fn from_code(code: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The standard's name, e.g. "ECC_SM4_GCM_SM3".
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite::EccSm4CbcSm3 => "ECC_SM4_CBC_SM3",
            CipherSuite::EccSm4GcmSm3 => "ECC_SM4_GCM_SM3",
            CipherSuite::EcdheSm4CbcSm3 => "ECDHE_SM4_CBC_SM3",
            CipherSuite::EcdheSm4GcmSm3 => "ECDHE_SM4_GCM_SM3",
        }
    }

    /// Tongsuo's (OpenSSL-style) spelling, e.g. "ECC-SM2-SM4-GCM-SM3".
    pub fn openssl_name(self) -> &'static str {
        match self {
            CipherSuite::EccSm4CbcSm3 => "ECC-SM2-SM4-CBC-SM3",
            CipherSuite::EccSm4GcmSm3 => "ECC-SM2-SM4-GCM-SM3",
            CipherSuite::EcdheSm4CbcSm3 => "ECDHE-SM2-SM4-CBC-SM3",
            CipherSuite::EcdheSm4GcmSm3 => "ECDHE-SM2-SM4-GCM-SM3",
        }
    }

    /// The suite named `s`: the standard name, the same with a `TLS_`
    /// prefix, or Tongsuo's spelling (also with `-SM2-` left out), case
    /// insensitive.
    pub fn from_name(s: &str) -> Result<Self> {
        let up = s.trim().to_ascii_uppercase().replace('-', "_");
        let up = up.strip_prefix("TLS_").unwrap_or(&up).replace("_SM2_", "_");
        Self::ALL.into_iter().find(|c| c.name() == up).ok_or_else(|| {
            Error::invalid(format!(
                "unknown TLCP cipher suite '{s}': expected one of ECC_SM4_CBC_SM3, ECC_SM4_GCM_SM3, \
                 ECDHE_SM4_CBC_SM3, ECDHE_SM4_GCM_SM3 (or Tongsuo's ECC-SM2-SM4-GCM-SM3 spellings)"
            ))
        })
    }

    /// ECDHE (SM2 key exchange) rather than ECC (SM2 encryption).
    pub fn is_ecdhe(self) -> bool {
        matches!(self, CipherSuite::EcdheSm4CbcSm3 | CipherSuite::EcdheSm4GcmSm3)
    }

    /// SM4-GCM records rather than SM4-CBC with HMAC-SM3.
    pub fn is_gcm(self) -> bool {
        matches!(self, CipherSuite::EccSm4GcmSm3 | CipherSuite::EcdheSm4GcmSm3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_every_spelling() {
        for s in CipherSuite::ALL {
            assert_eq!(CipherSuite::from_name(s.name()).unwrap(), s);
            assert_eq!(CipherSuite::from_name(s.openssl_name()).unwrap(), s);
            assert_eq!(CipherSuite::from_name(&format!("TLS_{}", s.name().to_lowercase())).unwrap(), s);
            assert_eq!(CipherSuite::from_code(s.code()), Some(s));
        }
        assert_eq!(CipherSuite::from_name("ECC-SM4-CBC-SM3").unwrap(), CipherSuite::EccSm4CbcSm3);
        assert!(CipherSuite::from_name("AES128-SHA").is_err());
    }
}
