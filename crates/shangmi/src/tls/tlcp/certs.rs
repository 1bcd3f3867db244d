//! Validation of a peer's TLCP certificates: the signing certificate and
//! the encryption certificate both chain (through the intermediates sent)
//! to the configured trust anchors, and to the same one; the signing
//! certificate allows digitalSignature and the encryption certificate
//! keyEncipherment, keyAgreement or dataEncipherment (when keyUsage is
//! present); the host name is checked against the signing certificate.

use super::alert::{Fatal, HsResult, BAD_CERTIFICATE, CERTIFICATE_EXPIRED, UNKNOWN_CA, UNSUPPORTED_CERTIFICATE};
use crate::tls::validated::{self, ValidatedChains};
use crate::x509::extensions::key_usage as ku;
use crate::x509::{verify_chain, verify_hostname, Certificate, Options};
use crate::Error;

/// What to validate.
pub(crate) struct Check<'a> {
    pub roots: &'a [Certificate],
    pub uid: Option<&'a [u8]>,
    pub now: Option<i64>,
    /// Host name to check against the signing certificate.
    pub host: Option<&'a str>,
    /// Certificate lists already validated under this configuration.
    pub cache: Option<&'a ValidatedChains>,
}

pub(crate) fn now(at: Option<i64>) -> i64 {
    at.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs() as i64).unwrap_or(0)
    })
}

/// The alert and message of a refused path.
fn path_failure(which: &str, e: Error) -> Fatal {
    let msg = e.to_string();
    let (alert, kind) = if msg.contains("expired") || msg.contains("not yet valid") {
        (CERTIFICATE_EXPIRED, "expired")
    } else if msg.contains("not found among")
        || msg.contains("no path")
        || msg.contains("cycle")
        || msg.contains("no trust roots")
        || msg.contains("gave up")
    {
        (UNKNOWN_CA, "untrusted issuer")
    } else {
        (BAD_CERTIFICATE, "invalid")
    };
    Fatal::cert(alert, format!("{which} certificate {kind}: {msg}"))
}

/// The peer's certificates parsed (sign, then enc when present, then the
/// rest), all SM2 keys.
pub(crate) fn parse_all(ders: &[&[u8]]) -> HsResult<Vec<Certificate>> {
    let mut out = Vec::with_capacity(ders.len());
    for (i, d) in ders.iter().enumerate() {
        let c = Certificate::from_der(d)
            .map_err(|e| Fatal::cert(BAD_CERTIFICATE, format!("certificate {i} of the peer's list: {e}")))?;
        c.public_key()
            .map_err(|e| Fatal::cert(UNSUPPORTED_CERTIFICATE, format!("certificate {i}: not an SM2 key: {e}")))?;
        out.push(c);
    }
    Ok(out)
}

/// Validates a signing certificate, an optional encryption certificate and
/// the intermediates sent with them.
pub(crate) fn validate(
    sign: &Certificate,
    enc: Option<&Certificate>,
    rest: &[Certificate],
    c: &Check<'_>,
) -> HsResult<()> {
    let opts = Options { uid: c.uid, ..Options::at(now(c.now)) };
    let sent: Vec<&[u8]> = std::iter::once(sign).chain(enc).chain(rest).map(|c| c.to_der()).collect();
    let key = c.cache.map(|_| validated::key(c.roots, c.uid, &sent));
    if let (Some(cache), Some(k)) = (c.cache, &key) {
        if cache.hit(k, opts.at) {
            return check_host(sign, c.host);
        }
    }
    let sign_path = verify_chain(sign, rest, c.roots, &[], opts).map_err(|e| path_failure("signing", e))?;
    let mut enc_path_kept = Vec::new();
    if let Some(k) = sign.key_usage().map_err(|e| Fatal::cert(BAD_CERTIFICATE, format!("signing certificate: {e}")))? {
        if k & ku::DIGITAL_SIGNATURE == 0 {
            return Err(Fatal::cert(
                UNSUPPORTED_CERTIFICATE,
                "signing certificate key usage: keyUsage does not include digitalSignature",
            ));
        }
    }
    if let Some(enc) = enc {
        let mut anchors: Vec<Certificate> = c.roots.to_vec();
        anchors.extend(sign_path.iter().skip(1).cloned());
        let enc_path = verify_chain(enc, rest, &anchors, &[], opts).map_err(|e| path_failure("encryption", e))?;
        if let Some(k) =
            enc.key_usage().map_err(|e| Fatal::cert(BAD_CERTIFICATE, format!("encryption certificate: {e}")))?
        {
            if k & (ku::KEY_ENCIPHERMENT | ku::KEY_AGREEMENT | ku::DATA_ENCIPHERMENT) == 0 {
                return Err(Fatal::cert(
                    UNSUPPORTED_CERTIFICATE,
                    "encryption certificate key usage: keyUsage includes none of keyEncipherment, keyAgreement, \
                     dataEncipherment",
                ));
            }
        }
        enc_path_kept = enc_path.clone();
        if !enc_path.last().is_some_and(|a| sign_path.contains(a)) {
            return Err(Fatal::cert(
                UNKNOWN_CA,
                "untrusted issuer: the encryption certificate chains to a different trust anchor than the \
                 signing certificate",
            ));
        }
    }
    check_host(sign, c.host)?;
    if let (Some(cache), Some(k)) = (c.cache, key) {
        cache.insert(k, validated::window(sign_path.iter().chain(enc_path_kept.iter())));
    }
    Ok(())
}

/// The host name against the signing certificate (on every handshake, the
/// remembered validations included).
fn check_host(sign: &Certificate, host: Option<&str>) -> HsResult<()> {
    if let Some(h) = host {
        verify_hostname(sign, h).map_err(|e| match e {
            Error::CertificateVerify(_) => Fatal { alert: BAD_CERTIFICATE, error: e },
            other => Fatal::cert(BAD_CERTIFICATE, format!("signing certificate subjectAltName: {other}")),
        })?;
    }
    Ok(())
}
