//! The two TLS 1.3 ShangMi cipher suites (RFC 8998 §2).

use crate::{Error, Result};

/// A TLS 1.3 ShangMi cipher suite.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum CipherSuite {
    /// TLS_SM4_GCM_SM3, 0x00C6.
    Sm4GcmSm3,
    /// TLS_SM4_CCM_SM3, 0x00C7.
    Sm4CcmSm3,
}

impl CipherSuite {
    /// Every suite in the default preference order (GCM first: every peer
    /// has it, and it is the faster one).
    pub const ALL: [CipherSuite; 2] = [CipherSuite::Sm4GcmSm3, CipherSuite::Sm4CcmSm3];

    /// The suite's code point.
    pub fn code(self) -> u16 {
        match self {
            CipherSuite::Sm4GcmSm3 => 0x00C6,
            CipherSuite::Sm4CcmSm3 => 0x00C7,
        }
    }

    /// The suite with code point `code`.
    pub fn from_code(code: u16) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// The RFC's name, e.g. "TLS_SM4_GCM_SM3".
    pub fn name(self) -> &'static str {
        match self {
            CipherSuite::Sm4GcmSm3 => "TLS_SM4_GCM_SM3",
            CipherSuite::Sm4CcmSm3 => "TLS_SM4_CCM_SM3",
        }
    }

    /// OpenSSL's and Tongsuo's spelling: for TLS 1.3 suites the RFC name
    /// itself ("TLS_SM4_GCM_SM3", as `-ciphersuites` takes it).
    pub fn openssl_name(self) -> &'static str {
        self.name()
    }

    /// The suite named `s`: the RFC name with or without its `TLS_` prefix,
    /// with `-` or `_`, case insensitive.
    pub fn from_name(s: &str) -> Result<Self> {
        let up = s.trim().to_ascii_uppercase().replace('-', "_");
        let bare = up.strip_prefix("TLS_").unwrap_or(&up);
        Self::ALL.into_iter().find(|c| c.name().strip_prefix("TLS_") == Some(bare)).ok_or_else(|| {
            Error::invalid(format!("unknown TLS 1.3 cipher suite '{s}': expected TLS_SM4_GCM_SM3 or TLS_SM4_CCM_SM3"))
        })
    }

    /// The suites named in `names`, in order (a repeated suite counts once).
    pub fn parse_list<S: AsRef<str>>(names: &[S]) -> Result<Vec<Self>> {
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let suite = Self::from_name(name.as_ref())?;
            if !out.contains(&suite) {
                out.push(suite);
            }
        }
        if out.is_empty() {
            return Err(Error::invalid("no cipher suite named"));
        }
        Ok(out)
    }

    /// SM4-GCM records rather than SM4-CCM.
    pub fn is_gcm(self) -> bool {
        self == CipherSuite::Sm4GcmSm3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in CipherSuite::ALL {
            assert_eq!(CipherSuite::from_name(s.name()).unwrap(), s);
            assert_eq!(CipherSuite::from_name(&s.name().to_lowercase().replace('_', "-")).unwrap(), s);
            assert_eq!(CipherSuite::from_name(&s.name()[4..]).unwrap(), s);
            assert_eq!(CipherSuite::from_code(s.code()), Some(s));
        }
        assert!(CipherSuite::from_name("TLS_AES_128_GCM_SHA256").is_err());
        assert!(CipherSuite::from_name("ECC_SM4_GCM_SM3").is_err());
    }
}
