//! CRL freshness in path validation (RFC 5280 section 6.3.3), on an SM2 CA,
//! leaf and CRLs made by the OpenSSL 3 CLI (tests/vectors/crl/generate.sh).
//! The leaf is revoked on every CRL, so a CRL that is used says "revoked"
//! and one refused for its dates says why.

use shangmi::x509::{self, Certificate, Crl, Options, SignedObject};
use shangmi::Error;

fn read(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/vectors/crl/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cert(name: &str) -> Certificate {
    Certificate::from_pem(&read(name)).unwrap()
}

fn crl(name: &str) -> Crl {
    Crl::from_pem(&read(name)).unwrap()
}

/// 2030-01-01T00:00:00Z: inside the leaf's validity and the current CRL's.
const AT: i64 = 1_893_456_000;
/// The stale CRL's nextUpdate, 2022-06-04T00:00:00Z.
const STALE_NEXT: i64 = 1_654_300_800;

fn verify(list: &str, opts: Options<'_>) -> shangmi::Result<Vec<Certificate>> {
    let root = cert("ca.pem");
    x509::verify_chain(&cert("leaf.pem"), &[], std::slice::from_ref(&root), &[crl(list)], opts)
}

fn message(r: shangmi::Result<Vec<Certificate>>) -> String {
    match r {
        Err(Error::InvalidCertificate(m)) => m,
        other => panic!("expected InvalidCertificate, got {other:?}"),
    }
}

#[test]
fn current_crl_establishes_revocation() {
    assert!(message(verify("current.crl.pem", Options::at(AT))).contains("revoked"));
}

#[test]
fn stale_crl_is_refused_naming_issuer_and_dates() {
    let m = message(verify("stale.crl.pem", Options::at(AT)));
    assert!(m.contains("has expired"), "{m}");
    assert!(m.contains("CN=CRL Test CA"), "{m}");
    assert!(m.contains("2022-06-04") && m.contains("2020-01-01"), "{m}");
    assert!(!m.contains("revoked ("), "{m}");
    // (The leaf is not valid yet in 2022, so the boundary is probed through
    // the allowance below: exactly enough passes, one second less does not.)
}

#[test]
fn stale_crl_used_with_an_explicit_allowance() {
    let enough = (AT - STALE_NEXT) as u64;
    let opts = Options { crl_max_staleness: enough, ..Options::at(AT) };
    assert!(message(verify("stale.crl.pem", opts)).contains("revoked ("));
    let short = Options { crl_max_staleness: enough - 1, ..Options::at(AT) };
    assert!(message(verify("stale.crl.pem", short)).contains("has expired"));
    let any = Options { crl_max_staleness: u64::MAX, ..Options::at(AT) };
    assert!(message(verify("stale.crl.pem", any)).contains("revoked ("));
}

#[test]
fn crl_from_the_future_is_refused() {
    let m = message(verify("future.crl.pem", Options::at(AT)));
    assert!(m.contains("not yet valid") && m.contains("2040-01-01"), "{m}");
    // No staleness allowance makes a not-yet-issued list usable.
    let any = Options { crl_max_staleness: u64::MAX, ..Options::at(AT) };
    assert!(message(verify("future.crl.pem", any)).contains("not yet valid"));
}
