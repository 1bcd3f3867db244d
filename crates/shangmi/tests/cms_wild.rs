//! CMS as CAs and other toolkits write it: EnvelopedData naming SM4-CBC by
//! the bare SM4 OID (gmsm), recipients by subject key identifier from the
//! extension or RFC 5280 method 1, GM/T 0010 SignedAndEnvelopedData from
//! gmcert.org's key management centre (SM4-ECB content, a placeholder
//! issuer), BER framing, and every refusal. Provenance of each file:
//! tests/vectors/README.md.

use crate::common;

use shangmi::cms::{self, signed_enveloped, Flavor};
use shangmi::encoding::der::{self, Reader};
use shangmi::encoding::{oid, sm2 as fmt};
use shangmi::sm2::PrivateKey;
use shangmi::x509::{Certificate, SignedObject};
use shangmi::Error;

fn pem_der(rel: &str) -> Vec<u8> {
    cms::from_pem_or_der(&common::read(&format!("cms_wild/{rel}"))).unwrap()
}

fn cert(rel: &str) -> Certificate {
    Certificate::from_pem(&common::read(&format!("cms_wild/{rel}"))).unwrap()
}

fn hex_key(rel: &str) -> PrivateKey {
    let text = String::from_utf8(common::read(&format!("cms_wild/{rel}"))).unwrap();
    PrivateKey::from_bytes(&common::hex(text.trim())).unwrap()
}

fn pkcs8_key(rel: &str) -> PrivateKey {
    fmt::private_key_from_pem(&common::read(&format!("cms_wild/{rel}")), None).unwrap()
}

/// An independent BER re-encoding of DER (not the crate's normaliser):
/// every constructed element gets an indefinite length, and every OCTET
/// STRING longer than 8 bytes becomes a constructed one of 8-byte segments
/// (X.690 8.7.3), as streaming encoders write them.
fn to_ber(der_in: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut r = Reader::new(der_in, "t");
    while !r.is_empty() {
        let t = r.any().unwrap();
        if t.tag & 0x20 != 0 {
            out.extend([t.tag, 0x80]);
            out.extend(to_ber(t.value));
            out.extend([0, 0]);
        } else if t.tag == der::OCTET_STRING && t.value.len() > 8 {
            out.extend([0x24, 0x80]);
            for c in t.value.chunks(8) {
                out.extend(der::octets(c));
            }
            out.extend([0, 0]);
        } else {
            out.extend_from_slice(t.raw);
        }
    }
    out
}

#[test]
fn bare_sm4_oid_and_ski_from_the_extension() {
    let msg = pem_der("gmsm_enveloped_ski_extension.pem");
    let (c, k) = (cert("gmsm_enveloped_ski_extension_cert.pem"), hex_key("gmsm_enveloped_ski_extension_key.hex"));
    assert!(c.subject_key_id().unwrap().is_some());
    assert_eq!(cms::decrypt(&msg, &k, Some(&c)).unwrap().as_slice(), b"Hello World!");
    assert_eq!(cms::decrypt(&msg, &k, None).unwrap().as_slice(), b"Hello World!");
}

#[test]
fn ski_by_rfc5280_method_1_when_the_certificate_has_none() {
    let msg = pem_der("gmsm_enveloped_ski_method1.pem");
    let (c, k) = (cert("gmsm_enveloped_ski_method1_cert.pem"), hex_key("gmsm_enveloped_ski_method1_key.hex"));
    assert!(c.subject_key_id().unwrap().is_none());
    // `openssl x509 -pubkey | openssl pkey -pubin -outform DER | tail -c 65 | openssl sha1`
    let want = common::hex("b69b62daa47c226e4de839b1a0e7e2510e70ca3c");
    assert_eq!(cms::key_identifier(&c).unwrap(), want);
    assert_eq!(cms::recipient_keys(&msg, Some(&c)).unwrap().len(), 1);
    assert_eq!(cms::decrypt(&msg, &k, Some(&c)).unwrap().as_slice(), b"Hello World!");
    // Written the same way, read back by certificate.
    let ours =
        cms::encrypt(b"again", std::slice::from_ref(&c), Flavor::GmT0010, cms::RecipientId::SubjectKeyIdentifier)
            .unwrap();
    assert_eq!(cms::decrypt(&ours, &k, Some(&c)).unwrap().as_slice(), b"again");
    // Another certificate is not named.
    let other = cert("gmsm_enveloped_ski_extension_cert.pem");
    let e = cms::recipient_keys(&msg, Some(&other)).unwrap_err().to_string();
    assert!(e.contains("no SM2 recipient info for certificate"), "{e}");
}

#[test]
fn ber_input_everywhere() {
    let msg = pem_der("gmsm_enveloped_ski_method1.pem");
    let (c, k) = (cert("gmsm_enveloped_ski_method1_cert.pem"), hex_key("gmsm_enveloped_ski_method1_key.hex"));
    let ber = to_ber(&msg);
    assert_ne!(ber, msg);
    assert!(ber.windows(2).any(|w| w == [0x24, 0x80]));
    assert_eq!(cms::decrypt(&ber, &k, Some(&c)).unwrap().as_slice(), b"Hello World!");
    // The normaliser gives back exactly the DER it came from.
    assert_eq!(der::normalize_ber(&ber, "t").unwrap().as_ref(), msg.as_slice());

    // (gmcert.org's SignedAndEnvelopedData cannot be re-encoded as BER:
    // its placeholder issuer 00 00 would read as end-of-contents.)

    // SignedData in BER: the message's certificate keeps its DER (its
    // signature still checks after normalisation).
    let (sc, sk) =
        (cert("gmcert_signed_enveloped_signer_cert.pem"), pkcs8_key("gmcert_signed_enveloped_recipient_key.pem"));
    let req = cms::SignRequest {
        content: b"signed in BER",
        signer: &sc,
        certificates: &[],
        detached: false,
        flavor: Flavor::Rfc5652,
        signing_time: 1_700_000_000,
    };
    let e = req.digest(b"1234567812345678").unwrap();
    let sig = fmt::signature_to_der(&sk.sign_digest(&e).unwrap());
    let signed = req.finish(&sig).unwrap();
    let v = cms::signed::verify(&to_ber(&signed), None, &[], None, None).unwrap();
    assert_eq!(v.content, b"signed in BER");
    assert_eq!(v.certificates[0].to_der(), sc.to_der());
    // SignedAndEnvelopedData in BER.
    let seal = signed_enveloped::SealRequest {
        content: b"sealed in BER",
        signer: &sc,
        certificates: &[],
        recipients: std::slice::from_ref(&sc),
        flavor: Flavor::GmT0010,
    };
    let sig = fmt::signature_to_der(&sk.sign_digest(&seal.digest(b"1234567812345678").unwrap()).unwrap());
    let sealed = to_ber(&seal.finish(&sig).unwrap());
    let got = signed_enveloped::decrypt_and_verify(&sealed, &sk, Some(&sc), &[], None, None).unwrap();
    assert_eq!(got.content.as_slice(), b"sealed in BER");
}

#[test]
fn gmcert_kmc_signed_and_enveloped_key_delivery() {
    let sed = pem_der("gmcert_signed_enveloped.pem");
    let key = pkcs8_key("gmcert_signed_enveloped_recipient_key.pem");
    let got = signed_enveloped::decrypt_and_verify(&sed, &key, None, &[], None, None).unwrap();
    // The delivered encryption key is the one gmsm's test expects, as a
    // GM/T 0016 blob: 64 bytes, zero-padded on the left, SM4-ECB unpadded.
    let want = pkcs8_key("gmcert_signed_enveloped_expected_key.pem");
    assert_eq!(got.content.len(), 64);
    assert_eq!(&got.content[..32], &[0u8; 32]);
    assert_eq!(&got.content[32..], want.to_bytes().as_slice());
    assert_eq!(got.signers.len(), 1);
    assert_eq!(got.signers[0], got.certificates[0]);
    // The CA's own certificate signed it; it is self-signed.
    got.signers[0].verify_directly_issued_by(&got.signers[0], None).unwrap();
    // The placeholder issuer (00 00) names no certificate: by certificate,
    // nothing is found, and the message says what was looked for.
    let enc_cert = cert("gmcert_signed_enveloped_signer_cert.pem");
    let e = signed_enveloped::recipient_keys(&sed, Some(&enc_cert)).unwrap_err().to_string();
    assert!(e.contains("no SM2 recipient info"), "{e}");
    // As an EnvelopedData it is refused with a pointer to the right reader.
    let e = cms::decrypt(&sed, &key, None).unwrap_err().to_string();
    assert!(e.contains("signed-and-enveloped"), "{e}");
}

#[test]
fn signed_and_enveloped_written_and_read_back() {
    let (c, k) =
        (cert("gmcert_signed_enveloped_signer_cert.pem"), pkcs8_key("gmcert_signed_enveloped_recipient_key.pem"));
    for flavor in [Flavor::GmT0010, Flavor::Rfc5652] {
        let req = signed_enveloped::SealRequest {
            content: b"an encryption key pair",
            signer: &c,
            certificates: &[],
            recipients: std::slice::from_ref(&c),
            flavor,
        };
        let sig = fmt::signature_to_der(&k.sign_digest(&req.digest(b"1234567812345678").unwrap()).unwrap());
        let msg = req.finish(&sig).unwrap();
        let got = signed_enveloped::decrypt_and_verify(&msg, &k, Some(&c), &[], None, None).unwrap();
        assert_eq!(got.content.as_slice(), b"an encryption key pair");
        assert_eq!(got.signers, vec![c.clone()]);
        // A signature over something else is refused after decryption.
        let req2 = signed_enveloped::SealRequest { content: b"another content", ..req.clone() };
        let sig2 = fmt::signature_to_der(&k.sign_digest(&req2.digest(b"1234567812345678").unwrap()).unwrap());
        let swapped = {
            let mut m = req.finish(&sig2).unwrap();
            // keep the length: the signature DER may differ by a byte, so rebuild instead
            if m.len() != msg.len() {
                m = req.finish(&sig2).unwrap();
            }
            m
        };
        assert!(matches!(
            signed_enveloped::decrypt_and_verify(&swapped, &k, Some(&c), &[], None, None),
            Err(Error::InvalidSignature)
        ));
    }
}

#[test]
fn refusals() {
    let msg = pem_der("gmsm_enveloped_ski_extension.pem");
    let k = hex_key("gmsm_enveloped_ski_extension_key.hex");
    // Truncated and trailing data.
    for bad in [&msg[..msg.len() - 1], &[msg.as_slice(), &[0u8]].concat()[..]] {
        assert!(matches!(cms::decrypt(bad, &k, None), Err(Error::InvalidInput(_))));
    }
    // Wrong key: one opaque error.
    let other = hex_key("gmsm_enveloped_ski_method1_key.hex");
    assert!(matches!(cms::decrypt(&msg, &other, None), Err(Error::DecryptionFailed)));
    // An unknown content cipher (the bare SM4 OID's last arc changed to 105).
    let sm4 = der::oid(&oid::SM4);
    let pos = msg.windows(sm4.len()).position(|w| w == sm4.as_slice()).unwrap();
    let mut unknown = msg.clone();
    unknown[pos + sm4.len() - 1] = 105;
    match cms::decrypt(&unknown, &k, None) {
        Err(Error::UnsupportedAlgorithm(m)) => assert!(m.contains("1.2.156.10197.1.105"), "{m}"),
        other => panic!("{other:?}"),
    }
    // Certs-only PKCS#7 given to verify: the message says what it is.
    let p7b = cms::from_pem_or_der(&common::read("pkcs12/chain.p7b.pem")).unwrap();
    let e = cms::signed::verify(&p7b, None, &[], None, None).unwrap_err().to_string();
    assert!(e.contains("signed-data has no signers") && e.contains("load_der_pkcs7_certificates"), "{e}");
    // Tampered SignedAndEnvelopedData signature.
    let sed = pem_der("gmcert_signed_enveloped.pem");
    let key = pkcs8_key("gmcert_signed_enveloped_recipient_key.pem");
    let mut bad = sed.clone();
    let n = bad.len();
    bad[n - 3] ^= 1;
    assert!(matches!(
        signed_enveloped::decrypt_and_verify(&bad, &key, None, &[], None, None),
        Err(Error::InvalidSignature)
    ));
    // Tampered ciphertext: ECB padding breaks, one opaque error.
    let mut bad = sed.clone();
    bad[290] ^= 0x55;
    assert!(signed_enveloped::decrypt_and_verify(&bad, &key, None, &[], None, None).is_err());
}

/// A CSR with two extensionRequest attributes, as Alibaba Cloud KMS writes
/// (tests/vectors/cms_wild/csr_two_extension_requests.cnf, built with
/// `openssl asn1parse -genconf`; its signature is a placeholder).
/// `openssl req -text` (3.0.19) shows only the first attribute's
/// extensions ("X509v3 Basic Constraints: CA:FALSE"); so do we.
#[test]
fn csr_with_two_extension_requests_reads_as_openssl_does() {
    use shangmi::x509::CertificateRequest;
    let der_in = common::read("cms_wild/csr_two_extension_requests.der");
    let csr = CertificateRequest::from_der(&der_in).unwrap();
    let exts = csr.extensions();
    assert_eq!(exts.len(), 1);
    assert_eq!(exts[0].oid, oid::BASIC_CONSTRAINTS);
    let reqs = csr.attributes().iter().filter(|(o, _)| *o == oid::EXTENSION_REQUEST).count();
    assert_eq!(reqs, 2);
    assert!(csr.verify(None).is_err());
    // Refusals name what is wrong: a version other than 0.
    let pos = der_in.windows(3).position(|w| w == [0x02, 0x01, 0x00]).unwrap();
    let mut v2 = der_in.clone();
    v2[pos + 2] = 1;
    let e = CertificateRequest::from_der(&v2).unwrap_err().to_string();
    assert!(e.contains("version 1 is unknown"), "{e}");
    // An extensionRequest whose value is not a SEQUENCE.
    let pos = der_in.windows(3).position(|w| w == [0x31, 0x0d, 0x30]).unwrap();
    let mut bad = der_in.clone();
    bad[pos + 2] = 0x31;
    let e = CertificateRequest::from_der(&bad).unwrap_err().to_string();
    assert!(e.contains("extensionRequest attribute's value is not an Extensions SEQUENCE"), "{e}");
}
