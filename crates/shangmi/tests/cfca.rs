//! CFCA's key formats with files CFCA's SADK and gmsm wrote (provenance in
//! tests/vectors/README.md): `.sm2` containers and escrowed encryption keys,
//! and every refusal.

use crate::common;

use shangmi::cfca;
use shangmi::encoding::{der, oid};
use shangmi::sm2::PrivateKey;
use shangmi::x509::{Certificate, SignedObject};
use shangmi::Error;

fn read(rel: &str) -> Vec<u8> {
    common::read(&format!("cfca/{rel}"))
}

fn pem_body(rel: &str) -> Vec<u8> {
    // The base64 between the PEM lines, as `.sm2` files carry it.
    let text = String::from_utf8(read(rel)).unwrap();
    text.lines().filter(|l| !l.starts_with("-----")).collect::<Vec<_>>().join("\n").into_bytes()
}

#[test]
fn loads_sadk_sm2_containers() {
    // gmsm's ExampleParseSM2 prints this d and issuer for the file.
    let (key, cert) = cfca::load_sm2(&read("gmsm_oca1_123456.sm2.pem"), b"123456").unwrap();
    assert_eq!(
        key.to_bytes().as_slice(),
        common::hex("d3f24d61bb2816882b8474b778dd7c3166d665f9455dc9d551c989c161e76ab0")
    );
    assert!(cert.issuer().to_string().contains("CFCA TEST SM2 OCA1"), "{}", cert.issuer());
    // Its certificate is signed by the CFCA test OCA1.
    let oca1 = Certificate::from_pem(&read("cfca_test_sm2_oca1.pem")).unwrap();
    cert.verify_directly_issued_by(&oca1, None).unwrap();
    // The same file as bare base64 and as DER.
    let b64 = pem_body("gmsm_oca1_123456.sm2.pem");
    let (k2, c2) = cfca::load_sm2(&b64, b"123456").unwrap();
    assert_eq!((k2.to_bytes(), c2.clone()), (key.to_bytes(), cert.clone()));
    let der = shangmi::encoding::pem::decode(&read("gmsm_oca1_123456.sm2.pem")).unwrap().der.to_vec();
    cfca::load_sm2(&der, b"123456").unwrap();
    // The second file (another password, the ACS OCA31).
    let (k3, c3) = cfca::load_sm2(&read("gmsm_oca31_ys123456.sm2.pem"), b"ys123456").unwrap();
    assert_eq!(c3.public_key().unwrap(), k3.public_key());
}

#[test]
fn written_the_way_sadk_writes_and_with_the_sm4_cbc_oid() {
    let (key, cert) = cfca::load_sm2(&read("gmsm_oca1_123456.sm2.pem"), b"123456").unwrap();
    let der = shangmi::encoding::pem::decode(&read("gmsm_oca1_123456.sm2.pem")).unwrap().der.to_vec();
    // SADK's container of this key under this password is deterministic
    // (no salt, no IV of its own): ours is byte for byte the same.
    assert_eq!(cfca::save_sm2(&key, &cert, b"123456").unwrap(), der);
    let again = cfca::save_sm2(&key, &cert, "口令".as_bytes()).unwrap();
    assert_eq!(cfca::load_sm2(&again, "口令".as_bytes()).unwrap().0.to_bytes(), key.to_bytes());
    // The OID .104.2 (SM4-CBC) in place of the bare one.
    let (bare, cbc) = (der::oid(&oid::SM4), der::oid(&oid::SM4_CBC));
    let pos = der.windows(bare.len()).position(|w| w == bare.as_slice()).unwrap();
    let mut body = der[4..].to_vec(); // 30 82 03 49
    body.splice(pos - 4..pos - 4 + bare.len(), cbc.iter().copied());
    // The key SEQUENCE's length grows by one.
    let kpos = body.iter().position(|&b| b == 0x30).unwrap();
    body[kpos + 1] += 1;
    let patched = der::tlv(der::SEQUENCE, &body);
    assert_eq!(cfca::load_sm2(&patched, b"123456").unwrap().0.to_bytes(), key.to_bytes());
}

#[test]
fn sm2_refusals() {
    let der = shangmi::encoding::pem::decode(&read("gmsm_oca1_123456.sm2.pem")).unwrap().der.to_vec();
    // Wrong password: one clear InvalidKey.
    match cfca::load_sm2(&der, b"wrongpwd") {
        Err(Error::InvalidKey(m)) => assert!(m.contains("wrong password"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert!(matches!(cfca::load_sm2(&der, b""), Err(Error::InvalidKey(_))));
    // gmsm's files with a changed content type or cipher OID.
    for i in 0..3 {
        let bad = common::hex(String::from_utf8(read(&format!("gmsm_invalid_oid_{i}.der.hex"))).unwrap().trim());
        let e = cfca::load_sm2(&bad, b"123456").unwrap_err();
        assert!(matches!(e, Error::InvalidInput(_) | Error::UnsupportedAlgorithm(_)), "{i}: {e:?}");
    }
    // Truncated, trailing data, garbage.
    assert!(matches!(cfca::load_sm2(&der[..der.len() - 1], b"123456"), Err(Error::InvalidInput(_))));
    assert!(matches!(cfca::load_sm2(&[der.as_slice(), &[0]].concat(), b"123456"), Err(Error::InvalidInput(_))));
    assert!(matches!(cfca::load_sm2(b"not base64 at all!", b"123456"), Err(Error::InvalidInput(_))));
    // Another certificate spliced in: the key does not belong to it.
    let oca1 = Certificate::from_pem(&read("cfca_test_sm2_oca1.pem")).unwrap();
    let spliced = {
        // version and key part kept, the certificate part replaced by OCA1's.
        let body = der::Reader::new(&der, "t").expect(der::SEQUENCE, "s").unwrap().value;
        let mut rr = der::Reader::new(body, "t");
        let (v, k) = (rr.any().unwrap().raw.to_vec(), rr.any().unwrap().raw.to_vec());
        let c = der::seq(&[&der::oid(&oid::GM_DATA), &der::octets(oca1.to_der())]);
        der::seq(&[&v, &k, &c])
    };
    match cfca::load_sm2(&spliced, b"123456") {
        Err(Error::InvalidKey(m)) => assert!(m.contains("does not belong"), "{m}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn escrowed_keys_from_gmsm() {
    let cases = common::json("cfca/gmsm_escrowed_keys.json");
    let mut ok = 0;
    for c in cases.as_array().unwrap() {
        let tmp = PrivateKey::from_bytes(&common::hexv(&c["tmp_key"])).unwrap();
        let data = c["data"].as_str().unwrap().as_bytes();
        let got = cfca::decrypt_escrowed_key(data, &tmp);
        if c["error"].as_bool().unwrap() {
            let e = got.err().unwrap_or_else(|| panic!("accepted {}", c["gmsm_error"]));
            assert!(
                matches!(e, Error::InvalidInput(_) | Error::InvalidKey(_) | Error::DecryptionFailed),
                "{e:?} for {}",
                c["gmsm_error"]
            );
        } else {
            assert_eq!(got.unwrap().to_bytes().as_slice(), common::hexv(&c["enc_key"]));
            ok += 1;
        }
    }
    assert_eq!(ok, 3);
}

#[test]
fn escrowed_key_refusals_say_what_is_wrong() {
    let cases = common::json("cfca/gmsm_escrowed_keys.json");
    let tmp = PrivateKey::from_bytes(&common::hexv(&cases[0]["tmp_key"])).unwrap();
    let msg = |i: usize| {
        let d = cases[i]["data"].as_str().unwrap().as_bytes();
        cfca::decrypt_escrowed_key(d, &tmp).unwrap_err().to_string()
    };
    assert!(msg(4).contains("declared length 273"), "{}", msg(4));
    assert!(msg(8).contains("must be 192 bytes"), "{}", msg(8));
    let bad_len = b"0000000000000001000000000000000100000000000000000000000000000000000000000000/273MIHG";
    let e = cfca::decrypt_escrowed_key(bad_len, &tmp).unwrap_err().to_string();
    assert!(e.contains("16-digit decimal length"), "{e}");
    assert!(msg(11).contains("does not match the public key"), "{}", msg(11));
    // Wrong temporary key: the opaque decryption error.
    let other = PrivateKey::from_bytes(&[7u8; 32]).unwrap();
    let d = cases[0]["data"].as_str().unwrap().as_bytes();
    assert!(matches!(cfca::decrypt_escrowed_key(d, &other), Err(Error::DecryptionFailed)));
}

/// tests/vectors/cfca/gbt35276_enveloped_key.der: made without shangmi —
/// the SM4 key SM2-encrypted by `gmssl sm2encrypt`, d encrypted by
/// `openssl enc -sm4-ecb -nopad`, assembled by `openssl asn1parse -genconf`
/// (tests/vectors/README.md).
#[test]
fn enveloped_key_from_gmssl_and_openssl() {
    let data = read("gbt35276_enveloped_key.der");
    let recip = shangmi::encoding::sm2::private_key_from_pem(&read("gbt35276_recipient_key.pem"), None).unwrap();
    let want = common::hex(String::from_utf8(read("gbt35276_enveloped_d.hex")).unwrap().trim());
    let got = cfca::unwrap_enveloped_key(&data, &recip).unwrap();
    assert_eq!(got.to_bytes().as_slice(), want);
    // Written and read back; another recipient cannot open it.
    let again = cfca::wrap_enveloped_key(&got, recip.public_key()).unwrap();
    assert_eq!(cfca::unwrap_enveloped_key(&again, &recip).unwrap().to_bytes(), got.to_bytes());
    let other = PrivateKey::from_bytes(&[9u8; 32]).unwrap();
    assert!(matches!(cfca::unwrap_enveloped_key(&again, &other), Err(Error::DecryptionFailed)));
}

#[test]
fn enveloped_key_refusals() {
    let data = read("gbt35276_enveloped_key.der");
    let recip = shangmi::encoding::sm2::private_key_from_pem(&read("gbt35276_recipient_key.pem"), None).unwrap();
    // Truncated, trailing.
    assert!(matches!(cfca::unwrap_enveloped_key(&data[..data.len() - 1], &recip), Err(Error::InvalidInput(_))));
    assert!(matches!(
        cfca::unwrap_enveloped_key(&[data.as_slice(), &[0]].concat(), &recip),
        Err(Error::InvalidInput(_))
    ));
    // Another public key beside it: mismatch named.
    let other_pub = PrivateKey::from_bytes(&[5u8; 32]).unwrap().public_key().to_bytes(false);
    let pos = data.len() - 35 - 68;
    assert_eq!(&data[pos..pos + 3], &[0x03, 0x42, 0x00]);
    let mut swapped = data.clone();
    swapped[pos + 3..pos + 68].copy_from_slice(&other_pub);
    match cfca::unwrap_enveloped_key(&swapped, &recip) {
        Err(Error::InvalidKey(m)) => assert!(m.contains("does not match the sm2PublicKey"), "{m}"),
        other => panic!("{other:?}"),
    }
    // A modified encrypted key: decrypts to another d, which does not match.
    let mut bad = data.clone();
    let n = bad.len();
    bad[n - 1] ^= 1;
    assert!(matches!(cfca::unwrap_enveloped_key(&bad, &recip), Err(Error::InvalidKey(_))));
    // An unknown symmetric algorithm (SM4-CBC's OID).
    let mut cbc = data.clone();
    cbc[12] = 2; // 1.2.156.10197.1.104.1 -> .104.2
    assert!(matches!(cfca::unwrap_enveloped_key(&cbc, &recip), Err(Error::UnsupportedAlgorithm(_))));
    // gmsm's refusal vectors (sm2/sm2_envelopedkey_test.go) with its key.
    let gk = PrivateKey::from_bytes(&common::hex("5cbd96822bb1491ec835ae9c09d4d3825e30bd9955e3c7031fbbe0e72d6fddf6"))
        .unwrap();
    let invalid_oid = common::hex("3081ef300c06082a811ccf55016802050030780220760c5d4eb80f7ec4bb12026586e4badcd41c293b416618575894d9278214aa6c02203fea869801f94f1cf3839e9b666482703c86cef160af8a540daf9c6b9adff5b20420685f05616055daf4948e44d76c366b16745f7a487614c0542d16871baa34be8704104abfcab6cea65caf2c130b222ebe519903420004944a5887f6fad9808516755e81c62f41566dab0f56ca55ad7909880acc051ce157694b11557eba725291166508868e6988c596a30472bef32e03a3dcef6866270321003ec6b59fece00ca37336c12f6d529aa84be07597e315eda1b7b58b0bef2fead9");
    assert!(matches!(cfca::unwrap_enveloped_key(&invalid_oid, &gk), Err(Error::UnsupportedAlgorithm(_))));
    let invalid_asn1 = common::hex("3081ea06082a811ccf550168013079022003858a7ca681c2e7034804d2bcece2d1c200e128ca973f3ad12541b59ec639cd022100bcf5834c775d5d43615abc27d3aeee399985d30942c65cdbe95afc87d96b12860420f84efafe256413fb28af65a57d815cb9a2fc64f754ab29adc1a78e81c433cfe90410fd485762e9c5714a6ee008e76675a14c0441049355f3009f1db15d6a6f751531f3c4741a36a43d1146fc1b0f660314e5fc3b825ed2fda18cb2f624ac6afb370b3755bb267b5747dd8f15836c830b52d4a74d2c04206fd2ef53be43aaa7f0440e96aafd846096f993e254e2a79a9a5b583204487183");
    assert!(matches!(cfca::unwrap_enveloped_key(&invalid_asn1, &gk), Err(Error::InvalidInput(_))));
}
