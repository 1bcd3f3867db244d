//! Certification path validation (a practical subset of RFC 5280 section 6):
//! path building by name chaining and key identifiers, then per link the
//! signature, validity period, basicConstraints (cA, pathLenConstraint),
//! keyUsage (keyCertSign; cRLSign for CRLs), unknown critical extensions and,
//! when CRLs are given, revocation. Each refusal has its own message naming
//! the certificate.
//!
//! CRL freshness (RFC 5280 section 6.3.3): a CRL establishes status only
//! between its thisUpdate and its nextUpdate. One whose thisUpdate is after
//! the validation time, or whose nextUpdate is before it, is refused with a
//! message naming its issuer and dates, so a revoked certificate cannot pass
//! on an old list an attacker replays. A caller who knowingly accepts old
//! lists (an offline archive) sets [`Options::crl_max_staleness`]. A CRL
//! without nextUpdate (not conforming to RFC 5280 section 5.1.2.5, but
//! seen) has no end and is used as OpenSSL uses it.

use super::certificate::Certificate;
use super::crl::Crl;
use super::extensions::{key_usage, UNDERSTOOD};
use super::name::hex;
use super::ocsp::{CertStatus, OcspResponse};
use crate::{Error, Result};

/// The longest path tried (leaf and anchor included); also bounds the search.
pub const MAX_DEPTH: usize = 16;
/// Bound on signature checks during path building (hostile bundles with
/// many same-named certificates cannot make it run for long).
const MAX_SIGNATURE_CHECKS: usize = 64;

/// Options of [`verify_chain`].
#[derive(Clone, Copy, Debug)]
pub struct Options<'a> {
    /// Unix seconds at which validity is checked.
    pub at: i64,
    /// SM2 user ID: `None` accepts either deployed convention per signature.
    pub uid: Option<&'a [u8]>,
    /// Seconds past its nextUpdate a CRL may still be used; 0 (strict, the
    /// RFC 5280 rule) refuses every CRL whose nextUpdate has passed.
    pub crl_max_staleness: u64,
}

impl<'a> Options<'a> {
    /// Strict options at `at` (Unix seconds): either SM2 user ID, no stale
    /// CRLs.
    pub fn at(at: i64) -> Options<'a> {
        Options { at, uid: None, crl_max_staleness: 0 }
    }
}

fn label(c: &Certificate) -> String {
    let s = c.subject().rfc4514();
    if s.is_empty() {
        format!("serial {}", hex(c.serial()))
    } else {
        s
    }
}

fn refuse(c: &Certificate, reason: impl AsRef<str>) -> Error {
    Error::InvalidCertificate(format!("certificate '{}': {}", label(c), reason.as_ref()))
}

fn check_validity(c: &Certificate, at: i64) -> Result<()> {
    use crate::encoding::der::format_time;
    if at < c.not_before() {
        return Err(refuse(
            c,
            format!("not yet valid (valid from {}, checked at {})", format_time(c.not_before()), format_time(at)),
        ));
    }
    if at > c.not_after() {
        return Err(refuse(
            c,
            format!("expired (valid until {}, checked at {})", format_time(c.not_after()), format_time(at)),
        ));
    }
    Ok(())
}

fn check_critical(c: &Certificate) -> Result<()> {
    for e in c.extensions() {
        if e.critical && !UNDERSTOOD.contains(&e.oid) {
            return Err(refuse(c, format!("unsupported critical extension {}", e.oid)));
        }
    }
    Ok(())
}

/// `issuer` may issue certificates with `below` CA certificates under it
/// (not counting the leaf and self-issued ones).
fn check_ca(issuer: &Certificate, below: u64, anchor: bool) -> Result<()> {
    match issuer.basic_constraints()? {
        Some((true, path)) => {
            if let Some(max) = path {
                if below > max {
                    return Err(refuse(
                        issuer,
                        format!(
                            "path length exceeded: pathLenConstraint is {max}, but {below} CA certificates follow it"
                        ),
                    ));
                }
            }
        }
        // A v1 trust anchor (no extensions at all) is accepted as a CA: its
        // trust comes from the caller, not from its contents.
        None if anchor && issuer.version() == 1 => {}
        _ => return Err(refuse(issuer, "is not a CA (basicConstraints cA is not set) but issued a certificate")),
    }
    if let Some(ku) = issuer.key_usage()? {
        if ku & key_usage::KEY_CERT_SIGN == 0 {
            return Err(refuse(issuer, "keyUsage does not include keyCertSign but the certificate issued one"));
        }
    }
    Ok(())
}

fn could_issue(child: &Certificate, issuer: &Certificate) -> bool {
    if !child.issuer().matches(issuer.subject()) {
        return false;
    }
    match (child.authority_key_id(), issuer.subject_key_id()) {
        (Ok(Some(a)), Ok(Some(s))) => a == s,
        _ => true,
    }
}

struct Search<'a> {
    intermediates: &'a [Certificate],
    roots: &'a [Certificate],
    opts: Options<'a>,
    checks: usize,
    cycle: bool,
}

impl<'a> Search<'a> {
    /// Extends `path` (whose last element still needs an issuer) to a trust
    /// anchor. Returns the first error met when no extension works.
    fn extend(&mut self, path: &mut Vec<&'a Certificate>) -> Result<()> {
        let child = *path.last().expect("path is never empty");
        let mut first_err: Option<Error> = None;
        let candidates = self.roots.iter().map(|c| (c, true)).chain(self.intermediates.iter().map(|c| (c, false)));
        for (cand, anchor) in candidates {
            if !could_issue(child, cand) {
                continue;
            }
            if path.contains(&cand) {
                if !anchor {
                    self.cycle = true;
                }
                continue;
            }
            if path.len() >= MAX_DEPTH {
                return Err(refuse(child, format!("no path to a trust root within {MAX_DEPTH} certificates")));
            }
            self.checks += 1;
            if self.checks > MAX_SIGNATURE_CHECKS {
                return Err(refuse(child, "path building gave up: too many candidate issuers"));
            }
            let key = match cand.public_key() {
                Ok(k) => k,
                Err(e) => {
                    first_err.get_or_insert(refuse(cand, e.to_string()));
                    continue;
                }
            };
            if child.verify_signature(key, self.opts.uid).is_err() {
                let how = match self.opts.uid {
                    Some(u) => format!("with user ID {:?}", String::from_utf8_lossy(u)),
                    None => "with user ID 1234567812345678 or the empty ID".to_string(),
                };
                first_err.get_or_insert(refuse(
                    child,
                    format!("signature does not verify with the key of '{}' {how}", label(cand)),
                ));
                continue;
            }
            path.push(cand);
            if anchor {
                return Ok(());
            }
            match self.extend(path) {
                Ok(()) => return Ok(()),
                Err(e) => {
                    first_err.get_or_insert(e);
                    path.pop();
                }
            }
        }
        Err(first_err.unwrap_or_else(|| {
            if self.cycle {
                refuse(child, "the bundle's issuers form a cycle and never reach a trust root")
            } else {
                refuse(
                    child,
                    format!("issuer '{}' not found among the intermediates or trust roots", child.issuer().rfc4514()),
                )
            }
        }))
    }
}

/// A CRL used at `at` must have been issued by then and not be past its
/// nextUpdate by more than `allowance` seconds.
fn check_crl_time(cert: &Certificate, crl: &Crl, at: i64, allowance: u64) -> Result<()> {
    use crate::encoding::der::format_time;
    let dates = || match crl.next_update() {
        Some(n) => format!("thisUpdate {}, nextUpdate {}", format_time(crl.this_update()), format_time(n)),
        None => format!("thisUpdate {}, no nextUpdate", format_time(crl.this_update())),
    };
    if crl.this_update() > at {
        return Err(refuse(
            cert,
            format!(
                "the CRL of '{}' is not yet valid ({}; checked at {}): a CRL issued after the validation time cannot establish status",
                crl.issuer().rfc4514(),
                dates(),
                format_time(at)
            ),
        ));
    }
    if let Some(next) = crl.next_update() {
        let limit = i64::try_from(allowance).map_or(i64::MAX, |a| next.saturating_add(a));
        if at > limit {
            return Err(refuse(
                cert,
                format!(
                    "the CRL of '{}' has expired ({}; checked at {}): a CRL past its nextUpdate cannot establish revocation status (RFC 5280 6.3.3); pass a staleness allowance to use it anyway",
                    crl.issuer().rfc4514(),
                    dates(),
                    format_time(at)
                ),
            ));
        }
    }
    Ok(())
}

fn check_revocation(chain: &[&Certificate], crls: &[Crl], opts: Options<'_>) -> Result<()> {
    let uid = opts.uid;
    for (i, cert) in chain.iter().enumerate().take(chain.len() - 1) {
        let issuer = chain[i + 1];
        for crl in crls.iter().filter(|c| c.issuer().matches(cert.issuer())) {
            if let Some(ku) = issuer.key_usage()? {
                if ku & key_usage::CRL_SIGN == 0 {
                    return Err(refuse(issuer, "keyUsage does not include cRLSign but a CRL names it as issuer"));
                }
            }
            if crl.verify_signature(issuer.public_key()?, uid).is_err() {
                return Err(refuse(
                    cert,
                    format!("the CRL of '{}' has a signature that does not verify", crl.issuer().rfc4514()),
                ));
            }
            check_crl_time(cert, crl, opts.at, opts.crl_max_staleness)?;
            if let Some(entry) = crl.find(cert.serial()) {
                return Err(refuse(
                    cert,
                    format!(
                        "revoked (serial {} on the CRL of '{}', since {})",
                        hex(cert.serial()),
                        crl.issuer().rfc4514(),
                        crate::encoding::der::format_time(entry.revocation_date)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// OCSP answers are used like CRLs: a response about a certificate of the
/// path must be signed by its issuer or a responder that issuer delegated
/// to, and fresh by the CRL rule (thisUpdate not after the validation time,
/// nextUpdate not passed by more than the staleness allowance); "revoked"
/// refuses the certificate, "unknown" establishes nothing.
fn check_ocsp(chain: &[&Certificate], responses: &[OcspResponse], opts: Options<'_>) -> Result<()> {
    use crate::encoding::der::format_time;
    for (i, cert) in chain.iter().enumerate().take(chain.len() - 1) {
        let issuer = chain[i + 1];
        for resp in responses {
            let Ok(data) = resp.data() else { continue };
            for single in data.responses.iter().filter(|s| s.cert_id.matches(cert, issuer)) {
                resp.verify(issuer, &[], opts.at, opts.uid)
                    .map_err(|e| refuse(cert, format!("its OCSP response cannot be used: {e}")))?;
                let dates = match single.next_update {
                    Some(n) => format!("thisUpdate {}, nextUpdate {}", format_time(single.this_update), format_time(n)),
                    None => format!("thisUpdate {}, no nextUpdate", format_time(single.this_update)),
                };
                if single.this_update > opts.at {
                    return Err(refuse(
                        cert,
                        format!("its OCSP response is not yet valid ({dates}; checked at {})", format_time(opts.at)),
                    ));
                }
                if let Some(next) = single.next_update {
                    let limit = i64::try_from(opts.crl_max_staleness).map_or(i64::MAX, |a| next.saturating_add(a));
                    if opts.at > limit {
                        return Err(refuse(
                            cert,
                            format!(
                                "its OCSP response has expired ({dates}; checked at {}): a response past its nextUpdate cannot establish revocation status; pass a staleness allowance to use it anyway",
                                format_time(opts.at)
                            ),
                        ));
                    }
                }
                if let CertStatus::Revoked { time, .. } = single.status {
                    return Err(refuse(
                        cert,
                        format!(
                            "revoked (serial {}, OCSP response of '{}', since {})",
                            hex(cert.serial()),
                            issuer.subject().rfc4514(),
                            format_time(time)
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Validates `leaf` up to one of `roots` and returns the path, leaf first,
/// trust anchor last (just the leaf when it is itself a trust root). The
/// anchor's own signature is not checked: it is trusted as given.
pub fn verify_chain(
    leaf: &Certificate,
    intermediates: &[Certificate],
    roots: &[Certificate],
    crls: &[Crl],
    opts: Options<'_>,
) -> Result<Vec<Certificate>> {
    verify_chain_with_ocsp(leaf, intermediates, roots, crls, &[], opts)
}

/// [`verify_chain`] that also uses OCSP responses for revocation (see
/// `check_ocsp` above: like CRLs, revoked refuses, stale is an error).
pub fn verify_chain_with_ocsp(
    leaf: &Certificate,
    intermediates: &[Certificate],
    roots: &[Certificate],
    crls: &[Crl],
    ocsp: &[OcspResponse],
    opts: Options<'_>,
) -> Result<Vec<Certificate>> {
    if roots.is_empty() {
        return Err(Error::InvalidCertificate("no trust roots given".into()));
    }
    let chain: Vec<&Certificate> = if roots.contains(leaf) {
        vec![leaf]
    } else {
        let mut path = vec![leaf];
        let mut s = Search { intermediates, roots, opts, checks: 0, cycle: false };
        s.extend(&mut path)?;
        path
    };
    // Per-certificate checks, leaf to anchor.
    let n = chain.len();
    let mut cas_below = 0u64;
    for (i, c) in chain.iter().enumerate() {
        check_validity(c, opts.at)?;
        check_critical(c)?;
        if i > 0 {
            check_ca(c, cas_below, i == n - 1)?;
            if !c.is_self_issued() {
                cas_below += 1;
            }
        }
    }
    check_revocation(&chain, crls, opts)?;
    check_ocsp(&chain, ocsp, opts)?;
    Ok(chain.into_iter().cloned().collect())
}
