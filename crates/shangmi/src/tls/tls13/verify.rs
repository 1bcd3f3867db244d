//! The peer's certificates checked by shangmi's own X.509 path validation
//! (never webpki): the chain to the configured trust anchors with either
//! SM2 user ID convention for certificate signatures (or the configured
//! one), validity at the configured time, keyUsage digitalSignature on the
//! leaf (when present), the host name per RFC 6125; and CertificateVerify
//! as sm2sig_sm3 with the RFC 8998 ID.

use super::provider::{verify_sm2sig, SM2SIG_SM3};
use crate::tls::validated::{self, ValidatedChains};
use crate::x509::extensions::key_usage as ku;
use crate::x509::{verify_chain, verify_hostname, Certificate, Options};
use crate::Error;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use rustls::{CertificateError, DigitallySignedStruct, DistinguishedName, OtherError, SignatureScheme};
use std::cell::RefCell;
use std::sync::Arc;

/// The server name rustls is given when the caller gives none: no SNI is
/// sent for it and no host name is checked (`.invalid` is reserved by RFC
/// 6761, so no real server has this name).
pub(crate) const NO_SERVER_NAME: &str = "no-server-name.invalid";

thread_local! {
    /// The message of the last refusal made on this thread: rustls carries
    /// only the `CertificateError` (which picks the alert), and the
    /// connection takes the message back while handling the error.
    static LAST: RefCell<Option<Error>> = const { RefCell::new(None) };
}

/// A refusal sending the alert of `kind`, with `msg` kept for the caller.
fn refuse_as(kind: CertificateError, msg: String) -> rustls::Error {
    LAST.with(|l| *l.borrow_mut() = Some(Error::CertificateVerify(msg)));
    rustls::Error::InvalidCertificate(kind)
}

/// A refusal of a malformed or unusable certificate (bad_certificate is
/// not among rustls's choices for these: certificate_unknown is sent).
fn refuse(msg: String) -> rustls::Error {
    LAST.with(|l| *l.borrow_mut() = Some(Error::CertificateVerify(msg.clone())));
    rustls::Error::InvalidCertificate(CertificateError::Other(OtherError(Arc::new(Error::CertificateVerify(msg)))))
}

/// The message of the last refusal on this thread (taken).
pub(crate) fn take_refusal() -> Option<Error> {
    LAST.with(|l| l.borrow_mut().take())
}

/// What to check of a peer's chain.
#[derive(Clone, Debug)]
pub(crate) struct Check {
    pub roots: Vec<Certificate>,
    /// `None`: either certificate SM2 ID convention.
    pub uid: Option<Vec<u8>>,
    /// Unix seconds; `None` = the time rustls passes (the system clock).
    pub now: Option<i64>,
    /// Certificate lists this configuration validated already.
    pub validated: Arc<ValidatedChains>,
}

impl Check {
    /// Validates `leaf` (+ `rest`) for `who` ("server", "client"), and the
    /// host name when given.
    fn validate(
        &self,
        who: &str,
        leaf: &CertificateDer<'_>,
        rest: &[CertificateDer<'_>],
        now: UnixTime,
        host: Option<&str>,
    ) -> Result<(), rustls::Error> {
        let sent: Vec<&[u8]> = std::iter::once(leaf).chain(rest).map(|d| d.as_ref()).collect();
        let (leaf, rest) = parse(who, leaf, rest)?;
        let at = self.now.unwrap_or(now.as_secs() as i64);
        let key = validated::key(&self.roots, self.uid.as_deref(), &sent);
        if !self.validated.hit(&key, at) {
            let opts = Options { uid: self.uid.as_deref(), ..Options::at(at) };
            let path = verify_chain(&leaf, &rest, &self.roots, &[], opts).map_err(|e| path_failure(who, e))?;
            self.validated.insert(key, validated::window(path.iter()));
        }
        match leaf.key_usage() {
            Ok(Some(k)) if k & ku::DIGITAL_SIGNATURE == 0 => {
                return Err(refuse_as(
                    CertificateError::InvalidPurpose,
                    format!("{who} certificate key usage: keyUsage does not include digitalSignature"),
                ))
            }
            Ok(_) => {}
            Err(e) => return Err(refuse(format!("{who} certificate keyUsage: {e}"))),
        }
        if let Some(h) = host {
            verify_hostname(&leaf, h).map_err(|e| match e {
                Error::CertificateVerify(m) => refuse_as(CertificateError::NotValidForName, m),
                other => refuse(format!("{who} certificate subjectAltName: {other}")),
            })?;
        }
        Ok(())
    }
}

/// The certificates parsed, each an SM2 key.
fn parse(
    who: &str,
    leaf: &CertificateDer<'_>,
    rest: &[CertificateDer<'_>],
) -> Result<(Certificate, Vec<Certificate>), rustls::Error> {
    let one = |i: usize, d: &CertificateDer<'_>| -> Result<Certificate, rustls::Error> {
        let c = Certificate::from_der(d).map_err(|e| refuse(format!("{who} certificate {i}: {e}")))?;
        c.public_key().map_err(|e| refuse(format!("{who} certificate {i}: not an SM2 key: {e}")))?;
        Ok(c)
    };
    let leaf = one(0, leaf)?;
    let rest = rest.iter().enumerate().map(|(i, d)| one(i + 1, d)).collect::<Result<Vec<_>, _>>()?;
    Ok((leaf, rest))
}

/// A refused path, classified as TLCP's validation does (the alert:
/// certificate_expired, unknown_ca or certificate_unknown).
fn path_failure(who: &str, e: Error) -> rustls::Error {
    let msg = e.to_string();
    let (kind, what) = if msg.contains("expired") || msg.contains("not yet valid") {
        (CertificateError::Expired, "expired")
    } else if msg.contains("not found among")
        || msg.contains("no path")
        || msg.contains("cycle")
        || msg.contains("no trust roots")
        || msg.contains("gave up")
    {
        (CertificateError::UnknownIssuer, "untrusted issuer")
    } else {
        return refuse(format!("{who} certificate invalid: {msg}"));
    };
    refuse_as(kind, format!("{who} certificate {what}: {msg}"))
}

/// CertificateVerify: sm2sig_sm3 by the leaf's key, the RFC 8998 ID.
fn verify_cv(message: &[u8], cert: &CertificateDer<'_>, dss: &DigitallySignedStruct) -> Result<(), rustls::Error> {
    if dss.scheme != SM2SIG_SM3 {
        return Err(rustls::Error::PeerMisbehaved(rustls::PeerMisbehaved::SignedHandshakeWithUnadvertisedSigScheme));
    }
    let c = Certificate::from_der(cert).map_err(|e| refuse(format!("peer certificate: {e}")))?;
    let key = c.public_key().map_err(|e| refuse(format!("peer certificate: not an SM2 key: {e}")))?;
    verify_sm2sig(key, message, dss.signature())
        .map_err(|_| rustls::Error::InvalidCertificate(CertificateError::BadSignature))
}

/// The client's view of the server: validated (unless `check` is `None`,
/// [`crate::tls::VerifyMode::None`]) and, with `check_hostname`, matched
/// against the server name the connection was made for (unless none was
/// given: [`NO_SERVER_NAME`]).
#[derive(Debug)]
pub(crate) struct ServerVerifier {
    pub check: Option<Check>,
    pub check_hostname: bool,
}

impl ServerCertVerifier for ServerVerifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let host = match server_name {
            ServerName::DnsName(d) if d.as_ref() == NO_SERVER_NAME => None,
            _ if !self.check_hostname => None,
            n => Some(n.to_str().into_owned()),
        };
        match &self.check {
            Some(c) => c.validate("server", end_entity, intermediates, now, host.as_deref())?,
            // Not validated, but CertificateVerify is still checked with its key.
            None => drop(parse("server", end_entity, &[])?),
        }
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("TLS 1.2 is not offered".into()))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_cv(message, cert, dss).map(|_| HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SM2SIG_SM3]
    }
}

/// The server's view of client certificates: asked for unless
/// `offer` is false, refused when absent if `mandatory`.
#[derive(Debug)]
pub(crate) struct ClientVerifier {
    pub check: Check,
    pub offer: bool,
    pub mandatory: bool,
}

impl ClientCertVerifier for ClientVerifier {
    fn offer_client_auth(&self) -> bool {
        self.offer
    }

    fn client_auth_mandatory(&self) -> bool {
        self.mandatory
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<ClientCertVerified, rustls::Error> {
        self.check.validate("client", end_entity, intermediates, now, None)?;
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        _message: &[u8],
        _cert: &CertificateDer<'_>,
        _dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        Err(rustls::Error::General("TLS 1.2 is not offered".into()))
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_cv(message, cert, dss).map(|_| HandshakeSignatureValid::assertion())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        vec![SM2SIG_SM3]
    }
}
