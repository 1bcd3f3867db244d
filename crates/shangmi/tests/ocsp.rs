//! OCSP (RFC 6960) through the public core API: requests and responses
//! written by OpenSSL 3.0.19 and GmSSL 3.3 (tests/vectors/ocsp/make.sh)
//! parsed and verified, ours built and checked, every refusal, and
//! revocation by OCSP in path validation.

use shangmi::encoding::oid;
use shangmi::encoding::private_key_from_pem;
use shangmi::sm2::{PrivateKey, DEFAULT_UID};
use shangmi::x509::extensions as ext;
use shangmi::x509::ocsp::{
    nonce_extension, CertId, CertStatus, HashAlgorithm, OcspRequest, OcspResponse, ResponderId, ResponseData,
    ResponseStatus, SingleResponse,
};
use shangmi::x509::{self, Certificate, Extension, Name, Options, SignedObject, TbsCertificate};
use shangmi::Error;

fn read(name: &str) -> Vec<u8> {
    let path = format!("{}/../../tests/vectors/ocsp/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn cert(name: &str) -> Certificate {
    Certificate::from_pem(&read(name)).unwrap()
}

fn key(name: &str) -> PrivateKey {
    PrivateKey::from_bytes(&private_key_from_pem(&read(name), None).unwrap().secret[..]).unwrap()
}

fn resp(name: &str) -> OcspResponse {
    OcspResponse::from_der(&read(name)).unwrap()
}

/// 2027-01-01T00:00:00Z: inside every vector's validity and thisUpdate..nextUpdate.
const AT: i64 = 1_798_761_600;
/// 2037-01-01T00:00:00Z: after the vectors' nextUpdate (2036), before the certificates expire (2046).
const LATE: i64 = 2_114_380_800;
/// 2026-12-01T00:00:00Z, the revocation time in the vectors.
const REVOKED_AT: i64 = 1_796_083_200;

#[test]
fn openssl_requests() {
    let (ca, leaf, revoked) = (cert("ca.pem"), cert("leaf.pem"), cert("revoked.pem"));
    let r = OcspRequest::from_der(&read("openssl_req_leaf.der")).unwrap();
    assert_eq!(r.cert_ids().len(), 1);
    let id = &r.cert_ids()[0];
    assert_eq!(id.hash().unwrap(), HashAlgorithm::Sha1);
    assert!(id.matches(&leaf, &ca));
    assert!(!id.matches(&revoked, &ca));
    assert_eq!(id.serial, [0x10, 0x01]);
    assert_eq!(*id, CertId::new(&leaf, &ca, HashAlgorithm::Sha1).unwrap());
    assert_eq!(r.nonce().unwrap().len(), 16);
    assert!(!r.is_signed());
    let r = OcspRequest::from_der(&read("openssl_req_revoked_sm3.der")).unwrap();
    assert_eq!(r.cert_ids()[0].hash().unwrap(), HashAlgorithm::Sm3);
    assert!(r.cert_ids()[0].matches(&revoked, &ca));
    assert_eq!(r.nonce(), None);
    // Ours, byte for byte what OpenSSL wrote when given the same nonce.
    let theirs = OcspRequest::from_der(&read("openssl_req_leaf.der")).unwrap();
    let nonce = theirs.nonce().unwrap();
    let ours = OcspRequest::build(
        &[CertId::new(&leaf, &ca, HashAlgorithm::Sha1).unwrap()],
        &[nonce_extension(&nonce).unwrap()],
    )
    .unwrap();
    assert_eq!(ours.to_der(), theirs.to_der());
}

#[test]
fn gmssl_request() {
    let r = OcspRequest::from_der(&read("gmssl_req_leaf.der")).unwrap();
    assert_eq!(r.cert_ids()[0].hash().unwrap(), HashAlgorithm::Sm3);
    assert!(r.cert_ids()[0].matches(&cert("leaf.pem"), &cert("ca.pem")));
}

#[test]
fn openssl_responses() {
    let ca = cert("ca.pem");
    let r = resp("openssl_resp_leaf_delegated.der");
    assert_eq!(r.status(), ResponseStatus::Successful);
    let signer = r.verify(&ca, &[], AT, None).unwrap().expect("a delegated responder signed");
    assert_eq!(signer, cert("responder.pem"));
    r.verify(&ca, &[], AT, Some(DEFAULT_UID)).unwrap();
    let d = r.data().unwrap();
    assert!(matches!(d.responder_id, ResponderId::ByName(_)));
    assert_eq!(d.responses[0].status, CertStatus::Good);
    assert!(d.responses[0].cert_id.matches(&cert("leaf.pem"), &ca));
    assert!(d.responses[0].next_update.unwrap() > LATE - 400 * 86_400);
    let req = OcspRequest::from_der(&read("openssl_req_leaf.der")).unwrap();
    assert_eq!(r.nonce(), req.nonce());

    let r = resp("openssl_resp_revoked_by_ca.der");
    assert_eq!(r.verify(&ca, &[], AT, None).unwrap(), None);
    let d = r.data().unwrap();
    assert!(matches!(d.responder_id, ResponderId::ByKey(_)));
    assert!(r.certificates().unwrap().is_empty());
    assert_eq!(d.responses[0].status, CertStatus::Revoked { time: REVOKED_AT, reason: Some(1) });
}

#[test]
fn gmssl_responses() {
    let ca = cert("ca.pem");
    let r = resp("gmssl_resp_leaf_delegated.der");
    assert_eq!(r.verify(&ca, &[], AT, None).unwrap().unwrap(), cert("responder.pem"));
    assert_eq!(r.data().unwrap().responses[0].status, CertStatus::Good);
    // GmSSL's byKey is IMPLICIT; it is read and matched all the same.
    let r = resp("gmssl_resp_leaf_revoked_by_ca.der");
    assert!(matches!(r.data().unwrap().responder_id, ResponderId::ByKey(_)));
    assert_eq!(r.verify(&ca, &[], AT, None).unwrap(), None);
    assert_eq!(r.data().unwrap().responses[0].status, CertStatus::Revoked { time: REVOKED_AT, reason: Some(1) });
}

fn chain(leaf: &str, responses: &[OcspResponse], opts: Options<'_>) -> shangmi::Result<Vec<Certificate>> {
    let root = cert("ca.pem");
    x509::verify_chain_with_ocsp(&cert(leaf), &[], std::slice::from_ref(&root), &[], responses, opts)
}

#[test]
fn path_validation_uses_responses() {
    let good = resp("openssl_resp_leaf_delegated.der");
    assert_eq!(chain("leaf.pem", std::slice::from_ref(&good), Options::at(AT)).unwrap().len(), 2);
    let e = chain("revoked.pem", &[resp("openssl_resp_revoked_by_ca.der")], Options::at(AT)).unwrap_err().to_string();
    assert!(e.contains("revoked (serial 1002") && e.contains("2026-12-01"), "{e}");
    let e = chain("leaf.pem", &[resp("gmssl_resp_leaf_revoked_by_ca.der")], Options::at(AT)).unwrap_err();
    assert!(e.to_string().contains("revoked"), "{e}");
    // A response about another certificate says nothing about this one.
    chain("leaf.pem", &[resp("openssl_resp_revoked_by_ca.der")], Options::at(AT)).unwrap();
    // Stale: refused, unless the caller allows it.
    let e = chain("leaf.pem", std::slice::from_ref(&good), Options::at(LATE)).unwrap_err().to_string();
    assert!(e.contains("OCSP response has expired") && e.contains("nextUpdate 2036-12-04"), "{e}");
    let opts = Options { crl_max_staleness: 2 * 365 * 86_400, ..Options::at(LATE) };
    chain("leaf.pem", std::slice::from_ref(&good), opts).unwrap();
    // Not yet valid.
    let e = chain("leaf.pem", std::slice::from_ref(&good), Options::at(AT - 40 * 86_400)).unwrap_err().to_string();
    assert!(e.contains("not yet valid"), "{e}");
}

// ---------------------------------------------------------------- ours

fn name(cn: &str) -> Name {
    Name::from_rdns(&[vec![(oid::COMMON_NAME, cn.to_string(), 0)]]).unwrap()
}

fn issue(
    subject: &str,
    key: &PrivateKey,
    issuer: &Name,
    by: &PrivateKey,
    exts: Vec<Extension>,
    nb: i64,
) -> Certificate {
    let tbs = TbsCertificate {
        serial: vec![0x20, subject.len() as u8],
        issuer: issuer.clone(),
        subject: name(subject),
        not_before: nb,
        not_after: nb + 365 * 86_400,
        public_key: key.public_key().clone(),
        extensions: exts,
    };
    x509::sign_certificate(&tbs, by, DEFAULT_UID).unwrap()
}

fn eku(purposes: &[x509::ObjectIdentifier]) -> Vec<Extension> {
    vec![Extension::new(oid::EXTENDED_KEY_USAGE, false, ext::encode_extended_key_usage(purposes))]
}

fn answer(id: CertId, status: CertStatus) -> SingleResponse {
    SingleResponse { cert_id: id, status, this_update: AT - 3600, next_update: Some(AT + 86_400), extensions: vec![] }
}

fn data(rid: ResponderId, s: SingleResponse) -> ResponseData {
    ResponseData { responder_id: rid, produced_at: AT - 3600, responses: vec![s], extensions: vec![] }
}

#[test]
fn ours_built_verified_and_refused() {
    let ca = cert("ca.pem");
    let ca_key = key("ca.key");
    let leaf = cert("leaf.pem");
    let id = CertId::new(&leaf, &ca, HashAlgorithm::Sm3).unwrap();
    let by_ca = ResponderId::ByName(ca.subject().clone());
    // The CA signs itself: verifies, and parses back to what was built.
    let d = data(by_ca.clone(), answer(id.clone(), CertStatus::Revoked { time: REVOKED_AT, reason: Some(4) }));
    let r = x509::ocsp::sign_response(&d, &ca_key, DEFAULT_UID, &[]).unwrap();
    assert_eq!(r.verify(&ca, &[], AT, None).unwrap(), None);
    assert_eq!(*r.data().unwrap(), d);
    assert_eq!(OcspResponse::from_der(r.to_der()).unwrap().to_der(), r.to_der());
    // byKey.
    let kd =
        data(ResponderId::ByKey(x509::ocsp::responder_key_hash(&ca).unwrap()), answer(id.clone(), CertStatus::Good));
    x509::ocsp::sign_response(&kd, &ca_key, b"", &[]).unwrap().verify(&ca, &[], AT, None).unwrap();
    // The delegated responder of the vectors.
    let rc = cert("responder.pem");
    let dd = data(ResponderId::ByName(rc.subject().clone()), answer(id.clone(), CertStatus::Unknown));
    let r = x509::ocsp::sign_response(&dd, &key("responder.key"), DEFAULT_UID, std::slice::from_ref(&rc)).unwrap();
    assert_eq!(r.verify(&ca, &[], AT, None).unwrap(), Some(rc.clone()));
    // ... also when its certificate is given instead of carried.
    let bare = x509::ocsp::sign_response(&dd, &key("responder.key"), DEFAULT_UID, &[]).unwrap();
    let msg = bare.verify(&ca, &[], AT, None).unwrap_err().to_string();
    assert!(msg.contains("neither the issuer"), "{msg}");
    bare.verify(&ca, std::slice::from_ref(&rc), AT, None).unwrap();

    // Signed by someone else under the CA's name.
    let other = PrivateKey::generate().unwrap();
    let forged = x509::ocsp::sign_response(&d, &other, DEFAULT_UID, &[]).unwrap();
    let e = forged.verify(&ca, &[], AT, None).unwrap_err();
    assert!(matches!(e, Error::InvalidSignatureHint(_)), "{e}");
    // A responder without id-kp-OCSPSigning.
    let ns = cert("nosign.pem");
    let nd = data(ResponderId::ByName(ns.subject().clone()), answer(id.clone(), CertStatus::Good));
    let r = x509::ocsp::sign_response(&nd, &key("nosign.key"), DEFAULT_UID, std::slice::from_ref(&ns)).unwrap();
    let e = r.verify(&ca, &[], AT, None).unwrap_err().to_string();
    assert!(e.contains("lacks id-kp-OCSPSigning"), "{e}");
    // A responder with OCSPSigning but issued by another CA.
    let (k2, rk) = (PrivateKey::generate().unwrap(), PrivateKey::generate().unwrap());
    let rogue = issue("rogue responder", &rk, ca.subject(), &k2, eku(&[oid::KP_OCSP_SIGNING]), AT - 86_400);
    let gd = data(ResponderId::ByName(rogue.subject().clone()), answer(id.clone(), CertStatus::Good));
    let r = x509::ocsp::sign_response(&gd, &rk, DEFAULT_UID, std::slice::from_ref(&rogue)).unwrap();
    let e = r.verify(&ca, &[], AT, None).unwrap_err().to_string();
    assert!(e.contains("was not issued by"), "{e}");
    // A properly delegated responder outside its validity.
    let young = issue("young responder", &rk, ca.subject(), &ca_key, eku(&[oid::KP_OCSP_SIGNING]), AT + 86_400);
    let yd = data(ResponderId::ByName(young.subject().clone()), answer(id.clone(), CertStatus::Good));
    let r = x509::ocsp::sign_response(&yd, &rk, DEFAULT_UID, std::slice::from_ref(&young)).unwrap();
    let e = r.verify(&ca, &[], AT, None).unwrap_err().to_string();
    assert!(e.contains("outside its validity"), "{e}");
    r.verify(&ca, &[], AT + 2 * 86_400, None).unwrap();
    // Tampered: one bit of the status flipped after signing.
    let good = x509::ocsp::sign_response(&kd, &ca_key, DEFAULT_UID, &[]).unwrap();
    let mut der = good.to_der().to_vec();
    let at = der.windows(2).position(|w| w == [0x80, 0x00]).unwrap();
    der[at] = 0x82;
    let e = OcspResponse::from_der(&der).unwrap().verify(&ca, &[], AT, None).unwrap_err();
    assert!(matches!(e, Error::InvalidSignatureHint(_)), "{e}");
    // A CertID naming another issuer.
    let wrong = CertId::new(&ca, &ca, HashAlgorithm::Sha1).unwrap();
    let mut wrong = wrong;
    wrong.issuer_key_hash[0] ^= 1;
    let wd = data(by_ca, answer(wrong, CertStatus::Good));
    let r = x509::ocsp::sign_response(&wd, &ca_key, DEFAULT_UID, &[]).unwrap();
    let e = r.verify(&ca, &[], AT, None).unwrap_err().to_string();
    assert!(e.contains("not about a certificate of"), "{e}");
}

#[test]
fn unsuccessful_and_malformed() {
    for (code, st) in
        [(1, ResponseStatus::MalformedRequest), (3, ResponseStatus::TryLater), (6, ResponseStatus::Unauthorized)]
    {
        let r = OcspResponse::unsuccessful(st).unwrap();
        assert_eq!(r.to_der(), [0x30, 0x03, 0x0A, 0x01, code]);
        assert_eq!(r.status(), st);
        let e = r.verify(&cert("ca.pem"), &[], AT, None).unwrap_err().to_string();
        assert!(e.contains("carries no signed certificate status"), "{e}");
    }
    assert!(OcspResponse::unsuccessful(ResponseStatus::Successful).is_err());
    for bad in [&[0x30u8, 0x03, 0x0A, 0x01, 0x04][..], &[0x30, 0x03, 0x0A, 0x01, 0x00], &[0x30, 0x00], &[]] {
        assert!(OcspResponse::from_der(bad).is_err(), "{bad:?}");
    }
    let mut trailing = read("openssl_resp_leaf_delegated.der");
    trailing.push(0);
    assert!(OcspResponse::from_der(&trailing).unwrap_err().to_string().contains("trailing"));
    assert!(OcspRequest::build(&[], &[]).is_err());
    assert!(nonce_extension(&[0u8; 33]).is_err());
}

/// Every prefix and single-byte change of the vectors: an error or a
/// value, never a panic.
#[test]
fn mutations_never_panic() {
    for f in [
        "openssl_req_leaf.der",
        "gmssl_req_leaf.der",
        "openssl_resp_leaf_delegated.der",
        "gmssl_resp_leaf_revoked_by_ca.der",
    ] {
        let d = read(f);
        let ca = cert("ca.pem");
        for n in 0..d.len() {
            let _ = OcspRequest::from_der(&d[..n]);
            let _ = OcspResponse::from_der(&d[..n]);
            let mut m = d.clone();
            m[n] ^= 0x41;
            let _ = OcspRequest::from_der(&m);
            if let Ok(r) = OcspResponse::from_der(&m) {
                let _ = r.verify(&ca, &[], AT, None);
            }
        }
    }
}
