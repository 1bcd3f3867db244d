//! x509 and cms through the public core API: build, parse, validate, and
//! mutation fuzzing of every parser (no panic, bounded time).

use crate::common;

use common::hex;
use shangmi::cms::{self, Flavor, RecipientId, SignRequest};
use shangmi::encoding::oid;
use shangmi::sm2::{PrivateKey, DEFAULT_UID};
use shangmi::x509::extensions::{self as ext, key_usage};
use shangmi::x509::{
    self, Certificate, CertificateRequest, Crl, ExtKind, ExtValue, Extension, Name, Options, RevokedCertificate,
    SignedObject, TbsCertificate,
};
use shangmi::Error;

const NOW: i64 = 1_800_000_000;
const DAY: i64 = 86_400;

fn name(cn: &str) -> Name {
    let cn_oid = x509::parse_oid("2.5.4.3").unwrap();
    let o_oid = x509::parse_oid("2.5.4.10").unwrap();
    Name::from_rdns(&[vec![(o_oid, "商密".to_string(), 0)], vec![(cn_oid, cn.to_string(), 0)]]).unwrap()
}

fn ca_exts(path: Option<u64>) -> Vec<Extension> {
    vec![
        Extension::new(oid::BASIC_CONSTRAINTS, true, ext::encode_basic_constraints(true, path).unwrap()),
        Extension::new(
            oid::KEY_USAGE,
            true,
            ext::encode_key_usage(key_usage::KEY_CERT_SIGN | key_usage::CRL_SIGN).unwrap(),
        ),
    ]
}

fn cert(subject: &str, key: &PrivateKey, issuer: &str, signer: &PrivateKey, exts: Vec<Extension>) -> Certificate {
    let tbs = TbsCertificate {
        serial: vec![0x01, 0x02, subject.len() as u8],
        issuer: name(issuer),
        subject: name(subject),
        not_before: NOW - DAY,
        not_after: NOW + DAY,
        public_key: key.public_key().clone(),
        extensions: exts,
    };
    x509::sign_certificate(&tbs, signer, DEFAULT_UID).unwrap()
}

struct Pki {
    root: Certificate,
    inter: Certificate,
    leaf: Certificate,
    inter_key: PrivateKey,
    leaf_key: PrivateKey,
}

fn pki() -> Pki {
    let (rk, ik, lk) =
        (PrivateKey::generate().unwrap(), PrivateKey::generate().unwrap(), PrivateKey::generate().unwrap());
    let root = cert("root", &rk, "root", &rk, ca_exts(None));
    let inter = cert("inter", &ik, "root", &rk, ca_exts(Some(0)));
    let leaf = cert("leaf", &lk, "inter", &ik, vec![]);
    Pki { root, inter, leaf, inter_key: ik, leaf_key: lk }
}

fn opts() -> Options<'static> {
    Options::at(NOW)
}

#[test]
fn build_parse_validate() {
    let p = pki();
    let back = Certificate::from_der(p.leaf.to_der()).unwrap();
    assert_eq!(back, p.leaf);
    assert_eq!(back.version(), 1); // no extensions: v1
    assert_eq!(p.inter.version(), 3);
    assert_eq!(back.subject().rfc4514(), "CN=leaf,O=商密");
    let chain = x509::verify_chain(&p.leaf, std::slice::from_ref(&p.inter), std::slice::from_ref(&p.root), &[], opts())
        .unwrap();
    assert_eq!(chain.len(), 3);
    p.leaf.verify_directly_issued_by(&p.inter, Some(DEFAULT_UID)).unwrap();
    assert_eq!(p.leaf.verify_directly_issued_by(&p.inter, Some(b"")), Err(Error::InvalidSignature));
    assert!(matches!(p.leaf.verify_directly_issued_by(&p.root, None), Err(Error::InvalidCertificate(_))));
    let pem = p.root.to_pem() + &p.inter.to_pem();
    assert_eq!(Certificate::from_pem_bundle(pem.as_bytes()).unwrap(), vec![p.root.clone(), p.inter.clone()]);
}

#[test]
fn refusals_have_their_own_messages() {
    let p = pki();
    let e = |r: shangmi::Result<Vec<Certificate>>| match r {
        Err(Error::InvalidCertificate(m)) => m,
        other => panic!("expected InvalidCertificate, got {other:?}"),
    };
    let late = Options::at(NOW + 2 * DAY);
    assert!(e(x509::verify_chain(&p.leaf, std::slice::from_ref(&p.inter), std::slice::from_ref(&p.root), &[], late))
        .contains("expired"));
    let early = Options::at(NOW - 2 * DAY);
    assert!(e(x509::verify_chain(&p.leaf, std::slice::from_ref(&p.inter), std::slice::from_ref(&p.root), &[], early))
        .contains("not yet valid"));
    assert!(e(x509::verify_chain(&p.leaf, &[], std::slice::from_ref(&p.root), &[], opts())).contains("not found"));
    let pinned = Options { uid: Some(b""), ..Options::at(NOW) };
    assert!(e(x509::verify_chain(&p.leaf, std::slice::from_ref(&p.inter), std::slice::from_ref(&p.root), &[], pinned))
        .contains("signature does not verify"));
    let k = PrivateKey::generate().unwrap();
    let sub = cert("sub", &k, "inter", &p.inter_key, ca_exts(None));
    let deep = cert("deep", &PrivateKey::generate().unwrap(), "sub", &k, vec![]);
    assert!(e(x509::verify_chain(&deep, &[sub, p.inter.clone()], std::slice::from_ref(&p.root), &[], opts()))
        .contains("path length exceeded"));
    let not_ca = cert("nca", &k, "root", &PrivateKey::generate().unwrap(), vec![]);
    let _ = not_ca;
    let tbs = x509::crl::encode_tbs_crl(
        p.inter.subject(),
        NOW,
        None,
        &[RevokedCertificate { serial: p.leaf.serial().to_vec(), revocation_date: NOW, extensions: vec![] }],
        &[],
    )
    .unwrap();
    let crl = x509::crl::assemble(&tbs, &x509::sign_tbs(&tbs, &p.inter_key, b"").unwrap()).unwrap();
    assert!(e(x509::verify_chain(
        &p.leaf,
        std::slice::from_ref(&p.inter),
        std::slice::from_ref(&p.root),
        &[crl],
        opts()
    ))
    .contains("revoked"));
}

#[test]
fn csr_round_trip() {
    let k = PrivateKey::generate().unwrap();
    let info = x509::csr::encode_request_info(&name("req"), k.public_key(), &[]).unwrap();
    let csr = x509::csr::assemble(&info, &x509::sign_tbs(&info, &k, DEFAULT_UID).unwrap()).unwrap();
    let back = CertificateRequest::from_der(csr.to_der()).unwrap();
    back.verify(Some(DEFAULT_UID)).unwrap();
    back.verify(None).unwrap();
    assert_eq!(back.verify(Some(b"")), Err(Error::InvalidSignature));
}

#[test]
fn cms_round_trips() {
    let p = pki();
    for flavor in [Flavor::Rfc5652, Flavor::GmT0010, Flavor::Gmssl] {
        for detached in [false, true] {
            let req = SignRequest {
                content: b"hello",
                signer: &p.leaf,
                certificates: std::slice::from_ref(&p.inter),
                detached,
                flavor,
                signing_time: NOW,
            };
            let e = req.digest(DEFAULT_UID).unwrap();
            let sig = shangmi::encoding::sm2::signature_to_der(&p.leaf_key.sign_digest(&e).unwrap());
            let msg = req.finish(&sig).unwrap();
            let data = if detached { Some(&b"hello"[..]) } else { None };
            let v = cms::signed::verify(&msg, data, &[], None, Some((std::slice::from_ref(&p.root), NOW))).unwrap();
            assert_eq!(v.content, b"hello");
            assert_eq!(v.flavor, flavor);
            if detached {
                assert_eq!(
                    cms::signed::verify(&msg, Some(b"x"), &[], None, None).unwrap_err(),
                    Error::InvalidSignature
                );
            }
        }
        let env = cms::encrypt(b"secret", std::slice::from_ref(&p.leaf), flavor, RecipientId::IssuerAndSerial).unwrap();
        assert_eq!(&*cms::decrypt(&env, &p.leaf_key, Some(&p.leaf)).unwrap(), b"secret");
        assert_eq!(cms::decrypt(&env, &p.inter_key, None), Err(Error::DecryptionFailed));
        // Without a subjectKeyIdentifier, the key identifier is RFC 5280 method 1.
        let no_ski =
            cms::encrypt(b"x", std::slice::from_ref(&p.leaf), flavor, RecipientId::SubjectKeyIdentifier).unwrap();
        assert_eq!(&*cms::decrypt(&no_ski, &p.leaf_key, Some(&p.leaf)).unwrap(), b"x");
    }
}

use crate::common::Rng;

fn mutate(seed: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..1 + rng.next() % 4 {
        if v.is_empty() {
            break;
        }
        let i = (rng.next() as usize) % v.len();
        match rng.next() % 5 {
            0 => v[i] ^= 1 << (rng.next() % 8),
            1 => v[i] = rng.next() as u8,
            2 => v.truncate(i),
            3 => v.insert(i, rng.next() as u8),
            _ => {
                let j = (rng.next() as usize) % v.len();
                v[i] = v[j];
            }
        }
    }
    v
}

#[test]
fn parsers_survive_mutation() {
    let p = pki();
    let req = SignRequest {
        content: b"hello",
        signer: &p.leaf,
        certificates: &[],
        detached: false,
        flavor: Flavor::GmT0010,
        signing_time: NOW,
    };
    let sig =
        shangmi::encoding::sm2::signature_to_der(&p.leaf_key.sign_digest(&req.digest(DEFAULT_UID).unwrap()).unwrap());
    let signed = req.finish(&sig).unwrap();
    let env =
        cms::encrypt(b"secret", std::slice::from_ref(&p.leaf), Flavor::Gmssl, RecipientId::IssuerAndSerial).unwrap();
    let tbs = x509::crl::encode_tbs_crl(p.inter.subject(), NOW, Some(NOW + DAY), &[], &[]).unwrap();
    let crl = x509::crl::assemble(&tbs, &x509::sign_tbs(&tbs, &p.inter_key, b"").unwrap()).unwrap();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let started = std::time::Instant::now();
    for round in 0..3000 {
        let c = mutate(p.inter.to_der(), &mut rng);
        if let Ok(c) = Certificate::from_der(&c) {
            let _ = x509::verify_chain(&c, &[], std::slice::from_ref(&p.root), &[], opts());
        }
        let _ = Crl::from_der(&mutate(crl.to_der(), &mut rng));
        let _ = CertificateRequest::from_der(&mutate(p.leaf.to_der(), &mut rng));
        let _ = Name::from_der(&mutate(p.leaf.subject().to_der(), &mut rng));
        if round % 4 == 0 {
            let _ = cms::signed::verify(&mutate(&signed, &mut rng), None, &[], None, None);
            let _ = cms::decrypt(&mutate(&env, &mut rng), &p.leaf_key, None);
        }
    }
    assert!(started.elapsed().as_secs() < 60);
    // deep nesting and lying lengths
    let mut deep = vec![0x05, 0x00];
    for _ in 0..5000 {
        let mut outer = vec![0x30, 0x84];
        outer.extend_from_slice(&(deep.len() as u32).to_be_bytes());
        outer.extend_from_slice(&deep);
        deep = outer;
    }
    assert!(Certificate::from_der(&deep).is_err());
    assert!(cms::signed::verify(&deep, None, &[], None, None).is_err());
    assert!(Certificate::from_der(&[0x30, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]).is_err());
}

/// extnValue encodings as every CA writes them (RFC 5280 DER; the bytes of
/// `openssl x509 -text`'s usual CA profile), read and written back.
#[test]
fn typed_extensions_match_known_der() {
    let cases = [
        // keyUsage: digitalSignature, keyCertSign, cRLSign (1 unused bit).
        (oid::KEY_USAGE, "03020186", ExtValue::KeyUsage(0x61)),
        // basicConstraints: CA:TRUE, no path length.
        (oid::BASIC_CONSTRAINTS, "30030101ff", ExtValue::BasicConstraints(true, None)),
        // extKeyUsage: serverAuth (1.3.6.1.5.5.7.3.1).
        (
            oid::EXTENDED_KEY_USAGE,
            "300a06082b06010505070301",
            ExtValue::ExtendedKeyUsage(vec![x509::parse_oid("1.3.6.1.5.5.7.3.1").unwrap()]),
        ),
        // reasonCode: keyCompromise (1).
        (oid::CRL_REASON, "0a0101", ExtValue::CrlReason(1)),
    ];
    for (oid, der, value) in cases {
        let der = hex(der);
        assert_eq!(ExtValue::decode(&oid, &der).unwrap().as_ref(), Some(&value), "{oid}");
        assert_eq!(value.encode().unwrap(), der, "{oid}");
        assert!(ExtKind::for_encoding(&oid).is_ok());
    }
    assert!(ExtValue::decode(&oid::KEY_USAGE, &hex("0302")).is_err());
}

#[test]
fn cms_option_names() {
    for f in [Flavor::Rfc5652, Flavor::GmT0010] {
        assert_eq!(Flavor::from_options(f.name(), None), Ok(f));
    }
    assert_eq!(Flavor::from_options("rfc5652", Some("gmssl")), Ok(Flavor::Gmssl));
    assert!(Flavor::from_options("gmssl", None).is_err());
    for r in RecipientId::ALL {
        assert_eq!(RecipientId::from_name(r.name()), Ok(r));
    }
    assert!(RecipientId::from_name("IssuerAndSerial").is_err());
}
