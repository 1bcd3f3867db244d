//! Host name checks (RFC 6125, as TLS clients apply them): a DNS name is
//! matched against the certificate's subjectAltName dNSName entries, an IP
//! address against its iPAddress entries. A wildcard is honoured only as
//! the whole left-most label (`*.example.com` matches `a.example.com`, not
//! `example.com` nor `a.b.example.com`) with at least two labels after it.
//! The subject's commonName is consulted only when the certificate has no
//! dNSName at all (and never for IP addresses). Comparison is ASCII case
//! insensitive, with one trailing dot ignored.

use super::certificate::Certificate;
use super::extensions::{general_names, GeneralName};
use crate::encoding::oid;
use crate::{Error, Result};
use std::net::IpAddr;

fn normalize(s: &str) -> String {
    s.strip_suffix('.').unwrap_or(s).to_ascii_lowercase()
}

/// `pattern` (from a certificate) matches `host` (normalized).
fn dns_matches(pattern: &str, host: &str) -> bool {
    let pattern = normalize(pattern);
    if pattern.is_empty() || host.is_empty() {
        return false;
    }
    match pattern.strip_prefix("*.") {
        Some(rest) => {
            if rest.contains('*') || rest.split('.').count() < 2 {
                return false;
            }
            match host.split_once('.') {
                Some((first, tail)) => !first.is_empty() && tail == rest,
                None => false,
            }
        }
        None => !pattern.contains('*') && pattern == host,
    }
}

/// `Ok` when `cert` is valid for `host` (a DNS name or an IP address
/// literal), else [`Error::CertificateVerify`] naming what it is valid for.
pub fn verify_hostname(cert: &Certificate, host: &str) -> Result<()> {
    let sans = match cert.extension(&oid::SUBJECT_ALT_NAME) {
        Some(e) => general_names(&e.value, "subjectAltName")?,
        None => Vec::new(),
    };
    let literal = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')).unwrap_or(host);
    if let Ok(ip) = literal.parse::<IpAddr>() {
        let want: Vec<u8> = match ip {
            IpAddr::V4(a) => a.octets().to_vec(),
            IpAddr::V6(a) => a.octets().to_vec(),
        };
        if sans.iter().any(|g| matches!(g, GeneralName::Ip(b) if *b == want)) {
            return Ok(());
        }
        return Err(mismatch(host, &sans, cert));
    }
    let h = normalize(host);
    let dns: Vec<&str> = sans
        .iter()
        .filter_map(|g| match g {
            GeneralName::Dns(d) => Some(d.as_str()),
            _ => None,
        })
        .collect();
    let ok = if dns.is_empty() {
        common_names(cert).iter().any(|cn| dns_matches(cn, &h))
    } else {
        dns.iter().any(|d| dns_matches(d, &h))
    };
    if ok {
        Ok(())
    } else {
        Err(mismatch(host, &sans, cert))
    }
}

fn common_names(cert: &Certificate) -> Vec<String> {
    cert.subject()
        .rdns()
        .iter()
        .flatten()
        .filter(|a| a.oid == oid::COMMON_NAME)
        .filter_map(|a| a.text.clone())
        .collect()
}

fn mismatch(host: &str, sans: &[GeneralName], cert: &Certificate) -> Error {
    let mut names: Vec<String> = sans
        .iter()
        .filter_map(|g| match g {
            GeneralName::Dns(d) => Some(d.clone()),
            GeneralName::Ip(b) if b.len() == 4 => {
                let a: [u8; 4] = b[..].try_into().ok()?;
                Some(IpAddr::from(a).to_string())
            }
            GeneralName::Ip(b) if b.len() == 16 => {
                let a: [u8; 16] = b[..].try_into().ok()?;
                Some(IpAddr::from(a).to_string())
            }
            _ => None,
        })
        .collect();
    if !sans.iter().any(|g| matches!(g, GeneralName::Dns(_))) {
        names.extend(common_names(cert).into_iter().map(|c| format!("CN={c}")));
    }
    let valid = if names.is_empty() { "no names".to_string() } else { names.join(", ") };
    Error::CertificateVerify(format!("host name mismatch: certificate is valid for {valid}, not '{host}'"))
}

#[cfg(test)]
mod tests {
    use super::dns_matches;

    #[test]
    fn wildcards_only_as_the_whole_left_most_label() {
        assert!(dns_matches("example.com", "example.com"));
        assert!(dns_matches("EXAMPLE.com.", "example.com"));
        assert!(dns_matches("*.example.com", "a.example.com"));
        assert!(!dns_matches("*.example.com", "example.com"));
        assert!(!dns_matches("*.example.com", "a.b.example.com"));
        assert!(!dns_matches("*.com", "example.com"));
        assert!(!dns_matches("a*.example.com", "ab.example.com"));
        assert!(!dns_matches("*.*.example.com", "a.b.example.com"));
        assert!(!dns_matches("www.example.com", "example.com"));
        assert!(!dns_matches("", ""));
    }
}
