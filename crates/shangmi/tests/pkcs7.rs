//! Certs-only PKCS#7: OpenSSL's `crl2pkcs7 -nocrl` output read (in order),
//! our output read back and compared byte for byte with OpenSSL's, BER and
//! GM/T 0010 content types, refusals.

use crate::common;

use shangmi::encoding::{der, oid};
use shangmi::x509::pkcs7;
use shangmi::x509::{Certificate, SignedObject};

fn cert(name: &str) -> Certificate {
    Certificate::from_pem(&common::read(&format!("pkcs12/{name}"))).unwrap()
}

/// `openssl crl2pkcs7 -nocrl -certfile leaf.pem -certfile ca.pem -outform DER`
/// on tests/vectors/pkcs12's certificates (OpenSSL 3.0.19), base64.
const OPENSSL_P7B_PEM: &str = include_str!("../../../tests/vectors/pkcs12/chain.p7b.pem");

#[test]
fn reads_openssl_and_writes_the_same_bytes() {
    let (leaf, ca) = (cert("leaf.pem"), cert("ca.pem"));
    let got = pkcs7::certificates_from_pem(OPENSSL_P7B_PEM.as_bytes()).unwrap();
    assert_eq!(got, vec![leaf.clone(), ca.clone()]);
    let ours = pkcs7::certificates_to_pem(&[leaf, ca]).unwrap();
    assert_eq!(ours.trim(), OPENSSL_P7B_PEM.trim());
}

#[test]
fn ber_and_gm_content_type_and_refusals() {
    let (leaf, ca) = (cert("leaf.pem"), cert("ca.pem"));
    let d = pkcs7::certificates_to_der(&[leaf.clone(), ca.clone()]).unwrap();
    // Outer ContentInfo as BER with an indefinite length.
    let inner = der::Reader::new(&d, "t").expect(der::SEQUENCE, "ci").unwrap().value;
    let mut ber = vec![0x30, 0x80];
    ber.extend_from_slice(inner);
    ber.extend([0, 0]);
    assert_eq!(pkcs7::certificates_from_der(&ber).unwrap(), vec![leaf.clone(), ca.clone()]);
    // GM/T 0010's signedData OID.
    let (rfc, gm) = (der::oid(&oid::SIGNED_DATA), der::oid(&oid::GM_SIGNED_DATA));
    let pos = d.windows(rfc.len()).position(|w| w == rfc.as_slice()).unwrap();
    let body: Vec<u8> = gm.iter().chain(d[pos + rfc.len()..].iter()).copied().collect();
    assert_eq!(pkcs7::certificates_from_der(&der::tlv(der::SEQUENCE, &body)).unwrap().len(), 2);
    assert!(pkcs7::certificates_from_der(&d[..d.len() - 1]).is_err());
    let mut long = d.clone();
    long.push(0);
    assert!(pkcs7::certificates_from_der(&long).is_err());
    assert!(pkcs7::certificates_to_der(&[]).is_err());
    assert!(pkcs7::certificates_from_der(leaf.to_der()).is_err());
}
