//! The names by which callers (the Python binding, the CLI) choose a
//! protocol, a verification mode and cipher suites; each parser owns its
//! refusal message.

use super::tlcp::{CipherSuite, ServerConfig};
use super::{Identity, Protocol, VerifyMode};
use crate::{Error, Result};

impl Protocol {
    /// Every protocol's lower-case name, as [`Protocol::from_name`] takes it.
    pub const NAMES: [&'static str; 2] = ["tlcp", "tls1.3"];

    /// The protocol named `name` (case-insensitive: "tlcp", "tls1.3";
    /// also "tlsv1.3" and "tls13").
    pub fn from_name(name: &str) -> Result<Self> {
        match name.to_ascii_lowercase().as_str() {
            "tlcp" => Ok(Protocol::Tlcp),
            "tls1.3" | "tlsv1.3" | "tls13" => Ok(Protocol::Tls13),
            _ => Err(Error::invalid(format!("unknown protocol '{name}': expected one of {}", Self::NAMES.join(", ")))),
        }
    }
}

impl VerifyMode {
    /// The mode of Python's `ssl` constants: 0 none, 1 optional, 2 required.
    pub fn from_index(mode: u32) -> Result<Self> {
        match mode {
            0 => Ok(VerifyMode::None),
            1 => Ok(VerifyMode::Optional),
            2 => Ok(VerifyMode::Required),
            _ => Err(Error::invalid(format!(
                "unknown verify mode {mode}: expected 0 (none), 1 (optional) or 2 (required)"
            ))),
        }
    }
}

impl CipherSuite {
    /// The suites named in `names`, in order, each in any spelling
    /// [`CipherSuite::from_name`] accepts; a repeated suite counts once.
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
}

impl ServerConfig {
    /// A server configuration from identities that may be missing: a TLCP
    /// server cannot run without both its certificates, and this says which
    /// one is absent.
    pub fn from_identities(sign: Option<Identity>, enc: Option<Identity>) -> Result<Self> {
        match (sign, enc) {
            (Some(sign), Some(enc)) => Ok(ServerConfig::new(sign, enc)),
            (sign, enc) => Err(Error::invalid(format!(
                "a TLCP server needs a signing identity and an encryption identity (missing: {})",
                match (sign.is_none(), enc.is_none()) {
                    (true, true) => "both",
                    (true, false) => "the signing certificate and key",
                    _ => "the encryption certificate and key",
                }
            ))),
        }
    }
}
