//! PKCS#12 through the public core API: files written by the OpenSSL 3 CLI
//! (tests/vectors/pkcs12/generate.sh) under every protection it offers,
//! BER, our own writer's profiles read back, every refusal, and mutation
//! fuzzing (no panic).

use crate::common;

use shangmi::encoding::der::Reader;
use shangmi::encoding::{der, oid};
use shangmi::pkcs12::{self, Pkcs12, Protection, DEFAULT_MAX_ITERATIONS};
use shangmi::sm2::PrivateKey;
use shangmi::x509::{Certificate, SignedObject};
use shangmi::Error;

fn p12(name: &str) -> Vec<u8> {
    common::read(&format!("pkcs12/{name}"))
}

fn key() -> PrivateKey {
    shangmi::encoding::sm2::private_key_from_pem(&p12("key.pem"), None).unwrap()
}

fn leaf() -> Certificate {
    Certificate::from_pem(&p12("leaf.pem")).unwrap()
}

fn ca() -> Certificate {
    Certificate::from_pem(&p12("ca.pem")).unwrap()
}

fn open(data: &[u8], pw: &str) -> shangmi::Result<Pkcs12> {
    pkcs12::parse(data, Some(pw.as_bytes()), DEFAULT_MAX_ITERATIONS)
}

/// The key, its certificate with friendly name and local key ID, and the CA.
fn check_openssl_file(p: &Pkcs12) {
    let k = p.key.as_ref().expect("a key");
    assert_eq!(k.key.to_bytes(), key().to_bytes());
    assert_eq!(k.friendly_name.as_deref(), Some("leaf key"));
    let i = p.key_certificate().expect("the key's certificate");
    let c = &p.certificates[i];
    assert_eq!(c.certificate, leaf());
    assert_eq!(c.friendly_name.as_deref(), Some("leaf key"));
    assert!(k.local_key_id.is_some());
    assert_eq!(c.local_key_id, k.local_key_id);
    assert_eq!(p.certificates.len(), 2);
    assert!(p.certificates.iter().any(|c| c.certificate == ca()));
}

#[test]
fn reads_every_openssl_protection() {
    for f in [
        "openssl-default.p12",
        "openssl-legacy.p12",
        "openssl-rc2-128.p12",
        "openssl-sm4-sm3mac.p12",
        "openssl-aes128-sha1mac.p12",
        "openssl-noenc.p12",
    ] {
        let p = open(&p12(f), "test").unwrap_or_else(|e| panic!("{f}: {e}"));
        check_openssl_file(&p);
    }
    check_openssl_file(&open(&p12("openssl-empty-password.p12"), "").unwrap());
    check_openssl_file(&pkcs12::parse(&p12("openssl-empty-password.p12"), None, DEFAULT_MAX_ITERATIONS).unwrap());
    check_openssl_file(&open(&p12("openssl-nonascii-password.p12"), "密码Ä").unwrap());
    check_openssl_file(&open(&p12("openssl-legacy-nonascii-password.p12"), "密码Ä").unwrap());
}

/// BouncyCastle 1.72's BER PFX (MakePfx.java): PBES2 AES-256 bags, SM3 MAC.
#[test]
fn reads_bouncycastle_ber_with_sm3_mac() {
    let data = p12("bc-aes256-sm3mac.p12");
    assert_eq!(&data[..2], &[0x30, 0x80]); // indefinite length
    let p = open(&data, "bc密码").unwrap();
    assert_eq!(p.key.as_ref().unwrap().key.to_bytes(), key().to_bytes());
    assert_eq!(p.key.as_ref().unwrap().friendly_name.as_deref(), Some("bc leaf"));
    let i = p.key_certificate().unwrap();
    assert_eq!(p.certificates[i].certificate, leaf());
    assert_eq!(p.certificates[i].local_key_id, p.key.as_ref().unwrap().local_key_id);
    assert!(p.certificates.iter().any(|c| c.certificate == ca()));
    assert_eq!(open(&data, "bc").unwrap_err(), Error::InvalidKey(pkcs12::WRONG_PASSWORD.into()));
}

#[test]
fn wrong_password_is_one_error() {
    for f in ["openssl-default.p12", "openssl-legacy.p12", "openssl-noenc.p12", "openssl-empty-password.p12"] {
        match open(&p12(f), "wrong") {
            Err(Error::InvalidKey(m)) => assert_eq!(m, pkcs12::WRONG_PASSWORD, "{f}"),
            other => panic!("{f}: {other:?}"),
        }
    }
}

#[test]
fn iteration_cap_needs_opt_in() {
    let data = p12("openssl-iter200k.p12");
    match open(&data, "test") {
        Err(Error::InvalidKey(m)) => assert!(m.contains("200000") && m.contains("cap of 100000"), "{m}"),
        other => panic!("{other:?}"),
    }
    check_openssl_file(&pkcs12::parse(&data, Some(b"test"), 200_000).unwrap());
}

#[test]
fn rsa_key_is_unsupported_after_the_mac() {
    let data = p12("openssl-rsa.p12");
    match open(&data, "test") {
        Err(Error::UnsupportedAlgorithm(m)) => assert!(m.contains("RSA"), "{m}"),
        other => panic!("{other:?}"),
    }
    // With a wrong password the MAC fails first.
    assert_eq!(open(&data, "nope").unwrap_err(), Error::InvalidKey(pkcs12::WRONG_PASSWORD.into()));
}

#[test]
fn tampered_truncated_trailing() {
    let data = p12("openssl-default.p12");
    // A byte inside the MAC'd contents (the middle of the file).
    let mut t = data.clone();
    let mid = t.len() / 2;
    t[mid] ^= 1;
    assert_eq!(open(&t, "test").unwrap_err(), Error::InvalidKey(pkcs12::WRONG_PASSWORD.into()));
    // The last byte is in the MAC's iteration count or salt; the MAC digest itself:
    for cut in [1, 10, data.len() / 2, data.len() - 1] {
        match open(&data[..cut], "test") {
            Err(Error::InvalidInput(m)) => assert!(m.contains("PKCS#12"), "{m}"),
            other => panic!("truncated to {cut}: {other:?}"),
        }
    }
    let mut long = data.clone();
    long.push(0);
    match open(&long, "test") {
        Err(Error::InvalidInput(m)) => assert!(m.contains("trailing data"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(open(b"", "test").is_err());
}

/// The outer layers re-encoded as BER: indefinite lengths and the MAC'd
/// contents as a constructed OCTET STRING of 100-byte segments (the MAC
/// covers the concatenation).
fn ber_outer(data: &[u8]) -> Vec<u8> {
    let mut r = Reader::new(data, "t");
    let pfx = r.expect(der::SEQUENCE, "pfx").unwrap();
    let mut inner = Reader::new(pfx.value, "t");
    let version = inner.any().unwrap().raw;
    let ci = inner.expect(der::SEQUENCE, "ci").unwrap();
    let mac = inner.any().unwrap().raw;
    let mut cr = Reader::new(ci.value, "t");
    let ct = cr.any().unwrap().raw;
    let explicit = cr.expect(der::ctx(0), "x").unwrap();
    let os = Reader::new(explicit.value, "t").expect(der::OCTET_STRING, "os").unwrap().value;
    let mut chunked = vec![0x24, 0x80];
    for c in os.chunks(100) {
        chunked.extend(der::tlv(der::OCTET_STRING, c));
    }
    chunked.extend([0, 0]);
    let wrap = |tag: u8, parts: &[&[u8]]| {
        let mut v = vec![tag, 0x80];
        parts.iter().for_each(|p| v.extend_from_slice(p));
        v.extend([0, 0]);
        v
    };
    let ci_ber = wrap(0x30, &[ct, &wrap(0xA0, &[&chunked])]);
    wrap(0x30, &[version, &ci_ber, mac])
}

#[test]
fn reads_ber() {
    for f in ["openssl-default.p12", "openssl-legacy.p12"] {
        let ber = ber_outer(&p12(f));
        check_openssl_file(&open(&ber, "test").unwrap());
        assert!(open(&ber[..ber.len() - 2], "test").is_err());
    }
}

#[test]
fn round_trips_every_profile() {
    let (k, c, a) = (key(), leaf(), ca());
    for prot in [Some(Protection::Sm), Some(Protection::OpenSsl), None] {
        let pw: &[u8] = "pässword".as_bytes();
        let data = pkcs12::serialize(Some("名字"), Some(&k), Some(&c), std::slice::from_ref(&a), prot.map(|p| (p, pw)))
            .unwrap();
        let p = pkcs12::parse(&data, prot.map(|_| pw), DEFAULT_MAX_ITERATIONS).unwrap();
        let key_entry = p.key.as_ref().unwrap();
        assert_eq!(key_entry.key.to_bytes(), k.to_bytes());
        assert_eq!(key_entry.friendly_name.as_deref(), Some("名字"));
        let i = p.key_certificate().unwrap();
        assert_eq!(p.certificates[i].certificate, c);
        assert_eq!(p.certificates[i].local_key_id, key_entry.local_key_id);
        assert_eq!(p.certificates.len(), 2);
        if prot.is_some() {
            assert_eq!(
                pkcs12::parse(&data, Some(b"other"), DEFAULT_MAX_ITERATIONS).unwrap_err(),
                Error::InvalidKey(pkcs12::WRONG_PASSWORD.into())
            );
        }
    }
    // Certificates only, and a key without certificate.
    let only = pkcs12::serialize(None, None, None, std::slice::from_ref(&a), Some((Protection::Sm, b""))).unwrap();
    let p = pkcs12::parse(&only, None, DEFAULT_MAX_ITERATIONS).unwrap();
    assert!(p.key.is_none() && p.certificates.len() == 1 && p.key_certificate().is_none());
    let bare = pkcs12::serialize(None, Some(&k), None, &[], Some((Protection::OpenSsl, b"x"))).unwrap();
    assert_eq!(
        pkcs12::parse(&bare, Some(b"x"), DEFAULT_MAX_ITERATIONS).unwrap().key.unwrap().key.to_bytes(),
        k.to_bytes()
    );
    // A certificate that is not the key's.
    assert!(matches!(
        pkcs12::serialize(None, Some(&k), Some(&a), &[], Some((Protection::Sm, b"x"))),
        Err(Error::InvalidInput(_))
    ));
    assert!(Protection::from_name("des").is_err());
    assert_eq!(Protection::from_name("sm").unwrap(), Protection::Sm);
}

use crate::common::Rng;

#[test]
fn mutations_never_panic() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Unprotected files reach the bag parsers; the MAC'd ones stop at the MAC.
    let plain = pkcs12::serialize(Some("n"), Some(&key()), Some(&leaf()), &[ca()], None).unwrap();
    for seed in [plain, p12("openssl-legacy.p12")] {
        for _ in 0..300 {
            let mut v = seed.clone();
            for _ in 0..1 + rng.next() % 3 {
                if v.is_empty() {
                    break;
                }
                let i = (rng.next() as usize) % v.len();
                match rng.next() % 4 {
                    0 => v[i] ^= 1 << (rng.next() % 8),
                    1 => v[i] = rng.next() as u8,
                    2 => v.truncate(i),
                    _ => v.insert(i, rng.next() as u8),
                }
            }
            let _ = pkcs12::parse(&v, Some(b"test"), 4096);
        }
    }
}

/// Real SM2 PFX files nobody here wrote (tests/vectors/README.md has their
/// provenance): gmcert.org's (RC2-40 certificates, 3DES key, SHA-1 MAC) and
/// Ping An's test CA's, BER with indefinite lengths and a chunked
/// constructed OCTET STRING. Expected keys and certificates were extracted
/// by `openssl pkcs12 -legacy -nodes` (the .key.pem / .certs.pem files).
#[test]
fn reads_third_party_files() {
    for (name, pw, certs) in
        [("gmcert-withca", "123456", 2), ("gmcert-withoutca", "123456", 1), ("cryptobin-ber-sm2", "12345678", 1)]
    {
        let p = open(&p12(&format!("{name}.p12")), pw).unwrap_or_else(|e| panic!("{name}: {e}"));
        let want_key = shangmi::encoding::sm2::private_key_from_pem(&p12(&format!("{name}.key.pem")), None).unwrap();
        let k = p.key.as_ref().unwrap();
        assert_eq!(k.key.to_bytes(), want_key.to_bytes(), "{name}");
        let want_certs = Certificate::from_pem_bundle(&p12(&format!("{name}.certs.pem"))).unwrap();
        assert_eq!(want_certs.len(), certs);
        let got: Vec<Certificate> = p.certificates.iter().map(|c| c.certificate.clone()).collect();
        assert_eq!(got, want_certs, "{name}");
        let i = p.key_certificate().expect("the key's certificate");
        assert!(p.certificates[i].local_key_id.is_some(), "{name}");
        assert_eq!(
            open(&p12(&format!("{name}.p12")), "wrong").unwrap_err(),
            Error::InvalidKey(pkcs12::WRONG_PASSWORD.into())
        );
    }
    let p = open(&p12("cryptobin-ber-sm2.p12"), "12345678").unwrap();
    assert_eq!(p.key.unwrap().friendly_name.as_deref(), Some("A Key"));
}

/// A PBMAC1 MAC (RFC 9579, what gmsm's all-ShangMi encoder writes) is named
/// in the refusal rather than reported as a wrong password.
#[test]
fn pbmac1_is_refused_by_name() {
    let plain = pkcs12::serialize(None, Some(&key()), None, &[], None).unwrap();
    let body = Reader::new(&plain, "t").expect(der::SEQUENCE, "pfx").unwrap().value.to_vec();
    let alg = der::seq(&[&der::oid(&oid::PBMAC1), &der::seq(&[])]);
    let mac = der::seq(&[&der::seq(&[&alg, &der::octets(&[0; 32])]), &der::octets(&[1; 8]), &der::small_int(1)]);
    let pfx = der::seq(&[&body, &mac]);
    match open(&pfx, "x") {
        Err(Error::UnsupportedAlgorithm(m)) => assert!(m.contains("PBMAC1"), "{m}"),
        other => panic!("{other:?}"),
    }
}

/// friendlyName as UTF8String (written by some tools instead of BMPString)
/// is read; in another string type it is skipped, not fatal.
#[test]
fn friendly_name_string_types() {
    let plain = pkcs12::serialize(Some("n"), Some(&key()), None, &[], None).unwrap();
    let bmp = [0x1E, 0x02, 0x00, b'n'];
    let at = plain.windows(4).position(|w| w == bmp).unwrap();
    let mut utf8 = plain.clone();
    utf8[at] = 0x0C;
    let p = pkcs12::parse(&utf8, None, DEFAULT_MAX_ITERATIONS).unwrap();
    assert_eq!(p.key.unwrap().friendly_name.as_deref(), Some("\0n"));
    let mut other = plain.clone();
    other[at] = 0x13; // PrintableString
    let p = pkcs12::parse(&other, None, DEFAULT_MAX_ITERATIONS).unwrap();
    assert!(p.key.unwrap().friendly_name.is_none());
}
