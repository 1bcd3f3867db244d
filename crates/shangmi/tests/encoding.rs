//! SM2 key, signature and ciphertext formats against files written by the
//! OpenSSL 3 CLI (tests/vectors/sm2_formats, see generate.py there for
//! provenance). Expected values come from `openssl ec -text` / `asn1parse`.

use crate::common;

use shangmi::encoding::{self, PrivateKeyFormat};
use shangmi::Error;

fn read(name: &str) -> Vec<u8> {
    common::read(&format!("sm2_formats/{name}"))
}

fn expected_file() -> common::Value {
    common::json("sm2_formats/expected.json")
}

fn expected(field: &str) -> Vec<u8> {
    common::hex_field(&expected_file(), field)
}

fn password() -> Vec<u8> {
    expected_file()["password"].as_str().expect("password string").as_bytes().to_vec()
}

fn arr32(v: &[u8]) -> [u8; 32] {
    common::arr(v)
}

const N_HEX: &str = "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123";
const P_HEX: &str = "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF";

fn key_message(e: Error) -> String {
    match e {
        Error::InvalidKey(m) | Error::InvalidInput(m) => m,
        other => panic!("expected InvalidKey/InvalidInput, got {other:?}"),
    }
}

// ---- signatures -----------------------------------------------------------

#[test]
fn openssl_signature_parses_and_reencodes_identically() {
    let der = read("signature.der");
    let (r, s) = encoding::signature_from_der(&der).unwrap();
    assert_eq!(r.to_vec(), expected("signature_r"));
    assert_eq!(s.to_vec(), expected("signature_s"));
    assert_eq!(encoding::signature_to_der(&r, &s), der);
}

fn sig_der(r: &[u8], s: &[u8]) -> Vec<u8> {
    let mut body = vec![0x02, r.len() as u8];
    body.extend_from_slice(r);
    body.extend_from_slice(&[0x02, s.len() as u8]);
    body.extend_from_slice(s);
    let mut out = vec![0x30, body.len() as u8];
    out.extend(body);
    out
}

#[test]
fn signature_encoding_is_minimal() {
    // Small values: one byte each; a high bit gets a 00 prefix.
    let mut one = [0u8; 32];
    one[31] = 1;
    let mut high = [0u8; 32];
    high[0] = 0x80;
    assert_eq!(encoding::signature_to_der(&one, &one), vec![0x30, 6, 2, 1, 1, 2, 1, 1]);
    let der = encoding::signature_to_der(&high, &one);
    assert_eq!(&der[..5], &[0x30, 38, 2, 33, 0]);
    assert_eq!(encoding::signature_from_der(&der).unwrap(), (high, one));
}

#[test]
fn malformed_signatures_are_invalid_signature() {
    let good = read("signature.der");
    let n = common::hex(N_HEX);
    let mut n_minus_1 = n.clone();
    n_minus_1[31] -= 1;
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("truncated", good[..good.len() - 1].to_vec()),
        ("trailing garbage", [good.clone(), vec![0]].concat()),
        ("r = 0", sig_der(&[0], &[1])),
        ("s = 0", sig_der(&[1], &[0])),
        ("negative r", sig_der(&[0x80], &[1])),
        ("non-minimal r", sig_der(&[0, 1], &[1])),
        ("r = n", sig_der(&[&[0u8][..], &n].concat(), &[1])),
        ("s = n", sig_der(&[1], &[&[0u8][..], &n].concat())),
        ("r too long", sig_der(&[1u8; 33], &[1])),
        ("one integer", vec![0x30, 3, 2, 1, 1]),
        ("three integers", vec![0x30, 9, 2, 1, 1, 2, 1, 1, 2, 1, 1]),
        ("SET instead of SEQUENCE", vec![0x31, 6, 2, 1, 1, 2, 1, 1]),
        ("long-form length", vec![0x30, 0x81, 6, 2, 1, 1, 2, 1, 1]),
        ("octet strings", vec![0x30, 6, 4, 1, 1, 4, 1, 1]),
    ];
    for (what, der) in cases {
        assert_eq!(encoding::signature_from_der(&der), Err(Error::InvalidSignature), "{what}");
    }
    // n - 1 is the largest valid value.
    let der = sig_der(&[&[0u8][..], &n_minus_1].concat(), &[1]);
    assert!(encoding::signature_from_der(&der).is_ok());
}

// ---- SM2Cipher --------------------------------------------------------------

#[test]
fn openssl_ciphertext_parses_and_reencodes_identically() {
    let der = read("ciphertext.der");
    let (c1, c3, c2) = encoding::cipher_from_der(&der).unwrap();
    assert_eq!(c1[0], 4);
    assert_eq!(c1[1..33].to_vec(), expected("ciphertext_x"));
    assert_eq!(c1[33..].to_vec(), expected("ciphertext_y"));
    assert_eq!(c3.to_vec(), expected("ciphertext_c3"));
    assert_eq!(c2, expected("ciphertext_c2"));
    assert_eq!(encoding::cipher_to_der(&c1, &c3, &c2).unwrap(), der);
}

fn cipher_der(x: &[u8], y: &[u8], h: &[u8], c: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    for (tag, v) in [(2u8, x), (2, y), (4, h), (4, c)] {
        body.push(tag);
        body.push(v.len() as u8);
        body.extend_from_slice(v);
    }
    let mut out = if body.len() < 128 { vec![0x30, body.len() as u8] } else { vec![0x30, 0x81, body.len() as u8] };
    out.extend(body);
    out
}

#[test]
fn malformed_ciphertexts_are_rejected_clearly() {
    let good = read("ciphertext.der");
    let p = common::hex(P_HEX);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated", good[..good.len() - 1].to_vec(), "truncated"),
        ("trailing", [good.clone(), vec![0]].concat(), "trailing"),
        ("short hash", cipher_der(&[1], &[2], &[0; 31], &[1]), "32 bytes"),
        ("x = p", cipher_der(&[&[0u8][..], &p].concat(), &[2], &[0; 32], &[1]), "below p"),
        ("negative x", cipher_der(&[0x80], &[2], &[0; 32], &[1]), "SM2Cipher"),
    ];
    for (what, der, needle) in cases {
        let m = key_message(encoding::cipher_from_der(&der).unwrap_err());
        assert!(m.contains(needle), "{what}: {m}");
    }
}

// ---- public keys -------------------------------------------------------------

#[test]
fn openssl_spki_roundtrips_byte_for_byte() {
    let der = read("public.der");
    let point = encoding::public_key_from_der(&der).unwrap();
    assert_eq!(point, expected("public_key"));
    assert_eq!(encoding::public_key_to_spki_der(&point).unwrap(), der);
    assert_eq!(encoding::public_key_from_pem(&read("public.pem")).unwrap(), point);
}

#[test]
fn spki_with_sm2_algorithm_oid_is_accepted() {
    // AlgorithmIdentifier { 1.2.156.10197.1.301 } without parameters, as some tools write.
    let point = expected("public_key");
    let alg = [0x30, 0x0a, 0x06, 0x08, 0x2a, 0x81, 0x1c, 0xcf, 0x55, 0x01, 0x82, 0x2d];
    let mut bits = vec![0x03, 66, 0];
    bits.extend_from_slice(&point);
    let mut der = vec![0x30, (alg.len() + bits.len()) as u8];
    der.extend_from_slice(&alg);
    der.extend(bits);
    assert_eq!(encoding::public_key_from_der(&der).unwrap(), point);
}

#[test]
fn wrong_curve_and_malformed_spki_are_rejected() {
    let m = key_message(encoding::public_key_from_pem(&read("p256_public.pem")).unwrap_err());
    assert!(m.contains("not an SM2 key") && m.contains("1.2.840.10045.3.1.7"), "{m}");
    let der = read("public.der");
    let m = key_message(encoding::public_key_from_der(&der[..der.len() - 1]).unwrap_err());
    assert!(m.contains("truncated"), "{m}");
    let m = key_message(encoding::public_key_from_der(&[der.clone(), vec![0]].concat()).unwrap_err());
    assert!(m.contains("trailing"), "{m}");
    // Flip the id-ecPublicKey OID's last byte.
    let mut bad = der.clone();
    let pos = bad.windows(7).position(|w| w == [0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01]).unwrap();
    bad[pos + 6] = 0x02;
    let m = key_message(encoding::public_key_from_der(&bad).unwrap_err());
    assert!(m.contains("not an SM2 key"), "{m}");
    let m = key_message(encoding::public_key_from_pem(&read("pkcs8.pem")).unwrap_err());
    assert!(m.contains("PUBLIC KEY"), "{m}");
}

// ---- private keys --------------------------------------------------------------

#[test]
fn openssl_pkcs8_and_sec1_roundtrip_byte_for_byte() {
    let d = expected("private_key");
    let public = expected("public_key");
    let k = encoding::private_key_from_der(&read("pkcs8.der"), None).unwrap();
    assert_eq!(k.secret.to_vec(), d);
    assert_eq!(k.public.as_deref(), Some(&public[..]));
    assert_eq!(k.format, PrivateKeyFormat::Pkcs8);
    assert_eq!(encoding::private_key_to_pkcs8_der(&arr32(&d), &public).unwrap().to_vec(), read("pkcs8.der"));

    let k = encoding::private_key_from_der(&read("sec1.der"), None).unwrap();
    assert_eq!(k.secret.to_vec(), d);
    assert_eq!(k.format, PrivateKeyFormat::Sec1);
    assert_eq!(encoding::private_key_to_sec1_der(&arr32(&d), &public).unwrap().to_vec(), read("sec1.der"));

    for name in ["pkcs8.pem", "sec1.pem"] {
        let k = encoding::private_key_from_pem(&read(name), None).unwrap();
        assert_eq!(k.secret.to_vec(), d, "{name}");
        assert_eq!(k.public.as_deref(), Some(&public[..]), "{name}");
    }
    assert!(String::from_utf8(read("sec1.pem")).unwrap().starts_with("-----BEGIN SM2 PRIVATE KEY-----"));
}

#[test]
fn ecparam_genkey_output_skips_the_parameters_block() {
    let k = encoding::private_key_from_pem(&read("ecparam_genkey.pem"), None).unwrap();
    assert_eq!(k.secret.to_vec(), expected("ecparam_genkey_private_key"));
}

#[test]
fn pem_writer_matches_openssl_layout() {
    let der = read("pkcs8.der");
    let pem = encoding::pem::encode("PRIVATE KEY", &[], &der);
    assert_eq!(pem.as_bytes(), &read("pkcs8.pem")[..]);
}

#[test]
fn openssl_encrypted_keys_load_with_the_password() {
    let d = expected("private_key");
    let pw = password();
    for name in ["pkcs8_aes256.pem", "pkcs8_aes128.pem", "pkcs8_aes256_sha1.pem", "sec1_aes256.pem", "sec1_aes128.pem"]
    {
        let k = encoding::private_key_from_pem(&read(name), Some(&pw)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(k.secret.to_vec(), d, "{name}");
        let m = key_message(encoding::private_key_from_pem(&read(name), Some(b"wrong")).unwrap_err());
        assert!(m.contains("wrong password"), "{name}: {m}");
        let m = key_message(encoding::private_key_from_pem(&read(name), None).unwrap_err());
        assert!(m.contains("password is required"), "{name}: {m}");
    }
    let k = encoding::private_key_from_der(&read("pkcs8_aes256.der"), Some(&pw)).unwrap();
    assert_eq!(k.secret.to_vec(), d);
}

#[test]
fn password_for_a_plain_key_is_an_error() {
    let m = key_message(encoding::private_key_from_pem(&read("pkcs8.pem"), Some(b"x")).unwrap_err());
    assert!(m.contains("not encrypted"), "{m}");
}

#[test]
fn wrong_curve_and_malformed_private_keys_are_rejected() {
    let m = key_message(encoding::private_key_from_pem(&read("p256.pem"), None).unwrap_err());
    assert!(m.contains("not an SM2 key"), "{m}");
    let der = read("pkcs8.der");
    for (what, bad) in [
        ("truncated", der[..der.len() - 1].to_vec()),
        ("trailing", [der.clone(), vec![0]].concat()),
        ("empty", vec![]),
        ("garbage", b"hello world".to_vec()),
    ] {
        assert!(matches!(encoding::private_key_from_der(&bad, None), Err(Error::InvalidKey(_))), "{what}");
    }
    let m = key_message(
        encoding::private_key_from_pem(b"-----BEGIN FOO-----\nAAAA\n-----END FOO-----\n", None).unwrap_err(),
    );
    assert!(m.contains("unsupported PEM label"), "{m}");
    let m = key_message(encoding::private_key_from_pem(b"not pem at all", None).unwrap_err());
    assert!(m.contains("PEM"), "{m}");
    let m = key_message(
        encoding::private_key_from_pem(b"-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n", None)
            .unwrap_err(),
    );
    assert!(m.contains("base64"), "{m}");
}

// ---- PBES2 with SM3 + SM4  -------------------------

#[test]
fn gmssl_style_sm3_sm4_key_loads() {
    let k = encoding::private_key_from_pem(&read("pkcs8_sm3_sm4.pem"), Some(&password())).unwrap();
    assert_eq!(k.secret.to_vec(), expected("private_key"));
    let m = key_message(encoding::private_key_from_pem(&read("pkcs8_sm3_sm4.pem"), Some(b"nope")).unwrap_err());
    assert!(m.contains("wrong password"), "{m}");
}

#[test]
fn sm3_sm4_encryption_roundtrips() {
    let d = expected("private_key");
    let plain = encoding::private_key_to_pkcs8_der(&arr32(&d), &expected("public_key")).unwrap();
    let params = encoding::Pbes2Params { iterations: 1000, salt: [7; 16], iv: [9; 16] };
    for scheme in [encoding::KeyEncryption::Sm3Sm4, encoding::KeyEncryption::Sha256Aes256] {
        let enc = encoding::encrypt_pkcs8_der(&plain, b"pw", scheme, Some(&params)).unwrap();
        let k = encoding::private_key_from_der(&enc, Some(b"pw")).unwrap();
        assert_eq!(k.secret.to_vec(), d);
        assert!(encoding::private_key_from_der(&enc, Some(b"pW")).is_err());
    }
}

#[test]
fn excessive_iteration_counts_are_refused() {
    let d = expected("private_key");
    let plain = encoding::private_key_to_pkcs8_der(&arr32(&d), &expected("public_key")).unwrap();
    // 65536 = INTEGER 02 03 01 00 00; raising its top byte asks for 8,323,072
    // iterations, above the limit.
    let params = encoding::Pbes2Params { iterations: 65536, salt: [7; 16], iv: [9; 16] };
    let enc = encoding::encrypt_pkcs8_der(&plain, b"pw", encoding::KeyEncryption::Sm3Sm4, Some(&params)).unwrap();
    let at = enc.windows(5).position(|w| w == [2, 3, 1, 0, 0]).expect("iteration count in the DER");
    let mut crafted = enc.clone();
    crafted[at + 2] = 0x7f;
    let m = key_message(encoding::private_key_from_der(&crafted, Some(b"pw")).unwrap_err());
    assert!(m.contains("asks for 8323072 PBKDF2 iterations, above the cap of 100000"), "{m}");
    assert!(m.contains("raise the iteration cap to 8323072"), "{m}");
    assert_eq!(encoding::private_key_from_der(&enc, Some(b"pw")).unwrap().secret.to_vec(), d);
    // The caller's cap is the parameter: the default one, one below the
    // file's count, and exactly the file's count (the cap is inclusive).
    let capped = |max| encoding::private_key_from_der_capped(&enc, Some(b"pw"), max);
    let m = key_message(capped(65535).unwrap_err());
    assert!(m.contains("asks for 65536 PBKDF2 iterations, above the cap of 65535"), "{m}");
    assert_eq!(capped(65536).unwrap().secret.to_vec(), d);
    assert_eq!(encoding::DEFAULT_MAX_ITERATIONS, 100_000);
}

// ---- robustness: every truncation and single-byte change of real files --------------

/// Parsers must return an error (or a value) for any input, never panic.
#[test]
fn mutated_files_never_panic() {
    let pw = password();
    let files = ["pkcs8.der", "sec1.der", "public.der", "signature.der", "ciphertext.der", "pkcs8_aes256.der"];
    for name in files {
        let data = read(name);
        let mut variants: Vec<Vec<u8>> = (0..data.len()).map(|n| data[..n].to_vec()).collect();
        for i in 0..data.len() {
            for v in [0x00u8, 0xff, data[i] ^ 0x80, data[i].wrapping_add(1)] {
                let mut m = data.clone();
                m[i] = v;
                variants.push(m);
            }
        }
        for v in &variants {
            let _ = encoding::signature_from_der(v);
            let _ = encoding::cipher_from_der(v);
            let _ = encoding::public_key_from_der(v);
            let _ = encoding::private_key_from_der(v, None);
            if name == "pkcs8_aes256.der" {
                let _ = encoding::private_key_from_der(v, Some(&pw));
            }
            let _ = shangmi::encoding::sm2::public_key_from_der(v);
            let _ = shangmi::encoding::sm2::private_key_from_der(v, None);
        }
    }
}

#[test]
fn pem_with_crlf_and_whitespace_loads() {
    let pem = String::from_utf8(read("pkcs8.pem")).unwrap();
    let crlf = format!("\r\n  {}\r\n\t\r\n", pem.replace('\n', "\r\n"));
    let k = encoding::private_key_from_pem(crlf.as_bytes(), None).unwrap();
    assert_eq!(k.secret.to_vec(), expected("private_key"));
    let legacy = String::from_utf8(read("sec1_aes256.pem")).unwrap().replace('\n', "\r\n");
    let k = encoding::private_key_from_pem(legacy.as_bytes(), Some(&password())).unwrap();
    assert_eq!(k.secret.to_vec(), expected("private_key"));
}

#[test]
fn pem_with_anything_but_whitespace_around_one_block_is_refused() {
    let pem = String::from_utf8(read("pkcs8.pem")).unwrap();
    for (data, expect) in [
        (format!("Bag Attributes: none\n{pem}"), "unexpected text before the PEM block"),
        (format!("{pem}trailing text\n"), "unexpected text after the PEM block"),
        (format!("{pem}{pem}"), "expected one PEM block, found 2"),
    ] {
        let m = key_message(encoding::private_key_from_pem(data.as_bytes(), None).unwrap_err());
        assert!(m.contains(expect), "{m}");
    }
    // openssl ecparam -genkey: a parameters block, then the key, still loads.
    encoding::private_key_from_pem(&read("ecparam_genkey.pem"), None).unwrap();
    // Bundles of public keys are read with the *_all call.
    let key = shangmi::sm2::PrivateKey::from_bytes(&expected("private_key")).unwrap();
    let one = shangmi::encoding::sm2::public_key_to_pem(key.public_key()).unwrap();
    let two = format!("{one}\n{one}");
    assert!(shangmi::encoding::sm2::public_key_from_pem(two.as_bytes()).is_err());
    let all = shangmi::encoding::sm2::public_keys_from_pem_all(two.as_bytes()).unwrap();
    assert_eq!(all.len(), 2);
    assert_eq!(all[1].to_bytes(false), key.public_key().to_bytes(false));
}

#[test]
fn typed_adapters_roundtrip_with_the_sm2_types() {
    use shangmi::encoding::sm2 as fmt;
    use shangmi::sm2::PrivateKey;
    let key = fmt::private_key_from_der(&read("pkcs8.der"), None).unwrap();
    assert_eq!(key.to_bytes().to_vec(), expected("private_key"));
    assert_eq!(fmt::private_key_to_der(&key, None, Default::default()).unwrap().to_vec(), read("pkcs8.der"));
    assert_eq!(fmt::private_key_to_sec1_der(&key).unwrap().to_vec(), read("sec1.der"));
    assert_eq!(fmt::public_key_to_der(key.public_key()).unwrap(), read("public.der"));
    let sig = fmt::signature_from_der(&read("signature.der")).unwrap();
    let msg = read("message.bin");
    key.public_key().verify(&msg, b"1234567812345678", &sig).unwrap();
    assert_eq!(fmt::signature_to_der(&sig), read("signature.der"));
    let ct = fmt::ciphertext_from_der(&read("ciphertext.der")).unwrap();
    assert_eq!(key.decrypt(&ct).unwrap(), msg);
    assert_eq!(fmt::ciphertext_to_der(&ct).unwrap(), read("ciphertext.der"));
    // Encrypted export and import.
    let other = PrivateKey::generate().unwrap();
    let pem = fmt::private_key_to_pem(&other, Some(b"pw"), encoding::KeyEncryption::default()).unwrap();
    assert!(pem.starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----\n"));
    let back = fmt::private_key_from_pem(pem.as_bytes(), Some(b"pw")).unwrap();
    assert_eq!(back.to_bytes(), other.to_bytes());
}
