//! TLCP (GB/T 38636-2020) through the public engine: in-memory client ↔
//! server handshakes for every suite, resumption, SNI, client
//! certificates, and every refusal (certificates, versions, tampering,
//! renegotiation, record limits); the PRF against an independent
//! computation; the record layer's round trips and refusals.
//!
//! Certificates are made here with shangmi's own X.509 builder (loopback
//! tests; interoperability with GmSSL and Tongsuo is checked separately).

use shangmi::encoding::oid;
use shangmi::sm2::{PrivateKey, DEFAULT_UID};
use shangmi::tls::tlcp::testing::{prf, RecordCipher, MAX_CIPHERTEXT};
use shangmi::tls::tlcp::RngFn;
use shangmi::tls::{CipherSuite, ClientConfig, Connection, Identity, ServerConfig, SessionCache, VerifyMode};
use shangmi::x509::extensions::{self as ext, key_usage as ku};
use shangmi::x509::{self, Certificate, Extension, GeneralName, Name, TbsCertificate};
use shangmi::{Error, Result};
use std::sync::Arc;

const NOW: i64 = 1_800_000_000;
const DAY: i64 = 86_400;
const HOST: &str = "tlcp.example";

fn name(cn: &str) -> Name {
    let cn_oid = x509::parse_oid("2.5.4.3").unwrap();
    Name::from_rdns(&[vec![(cn_oid, cn.to_string(), 0)]]).unwrap()
}

fn cert(subject: &str, key: &PrivateKey, issuer: &str, signer: &PrivateKey, exts: Vec<Extension>) -> Certificate {
    let tbs = TbsCertificate {
        serial: vec![0x01, subject.len() as u8, subject.as_bytes()[0]],
        issuer: name(issuer),
        subject: name(subject),
        not_before: NOW - DAY,
        not_after: NOW + 30 * DAY,
        public_key: key.public_key().clone(),
        extensions: exts,
    };
    x509::sign_certificate(&tbs, signer, DEFAULT_UID).unwrap()
}

fn ca_exts() -> Vec<Extension> {
    vec![
        Extension::new(oid::BASIC_CONSTRAINTS, true, ext::encode_basic_constraints(true, None).unwrap()),
        Extension::new(oid::KEY_USAGE, true, ext::encode_key_usage(ku::KEY_CERT_SIGN | ku::CRL_SIGN).unwrap()),
    ]
}

fn leaf_exts(usage: u16, dns: &[&str]) -> Vec<Extension> {
    let mut v = vec![Extension::new(oid::KEY_USAGE, true, ext::encode_key_usage(usage).unwrap())];
    if !dns.is_empty() {
        let names: Vec<GeneralName> = dns.iter().map(|d| GeneralName::Dns(d.to_string())).collect();
        v.push(Extension::new(oid::SUBJECT_ALT_NAME, false, ext::encode_general_names(&names).unwrap()));
    }
    v
}

const SIGN_KU: u16 = ku::DIGITAL_SIGNATURE;
const ENC_KU: u16 = ku::KEY_ENCIPHERMENT | ku::DATA_ENCIPHERMENT | ku::KEY_AGREEMENT;

/// Root → intermediate → server and client leaves, plus a second,
/// unrelated root with its own leaves.
struct Pki {
    root: Certificate,
    inter: Certificate,
    inter_key: PrivateKey,
    other_root: Certificate,
    other_key: PrivateKey,
}

fn pki() -> Pki {
    let rk = PrivateKey::generate().unwrap();
    let ik = PrivateKey::generate().unwrap();
    let ok = PrivateKey::generate().unwrap();
    Pki {
        root: cert("Test Root", &rk, "Test Root", &rk, ca_exts()),
        inter: cert("Test Intermediate", &ik, "Test Root", &rk, ca_exts()),
        inter_key: ik,
        other_root: cert("Other Root", &ok, "Other Root", &ok, ca_exts()),
        other_key: ok,
    }
}

impl Pki {
    /// A leaf under the intermediate, as an identity with the chain.
    fn leaf(&self, cn: &str, usage: u16, dns: &[&str]) -> Identity {
        let k = PrivateKey::generate().unwrap();
        let c = cert(cn, &k, "Test Intermediate", &self.inter_key, leaf_exts(usage, dns));
        Identity::new(vec![c, self.inter.clone()], k).unwrap()
    }

    fn other_leaf(&self, cn: &str, usage: u16) -> Identity {
        let k = PrivateKey::generate().unwrap();
        let c = cert(cn, &k, "Other Root", &self.other_key, leaf_exts(usage, &[]));
        Identity::new(vec![c], k).unwrap()
    }

    fn server(&self) -> ServerConfig {
        let mut s = ServerConfig::new(
            self.leaf("server sign", SIGN_KU, &[HOST, "*.wild.example"]),
            self.leaf("server enc", ENC_KU, &[]),
        );
        s.roots = vec![self.root.clone()];
        s.now = Some(NOW);
        s
    }

    fn client(&self) -> ClientConfig {
        let mut c = ClientConfig::new();
        c.roots = vec![self.root.clone()];
        c.now = Some(NOW);
        c
    }

    fn client_with_certs(&self) -> ClientConfig {
        let mut c = self.client();
        c.sign_identity = Some(self.leaf("client sign", SIGN_KU, &[]));
        c.enc_identity = Some(self.leaf("client enc", ENC_KU, &[]));
        c
    }
}

fn suite_only(s: CipherSuite) -> Vec<CipherSuite> {
    vec![s]
}

/// Moves everything `from` queued into `to`; false when nothing moved.
fn deliver(from: &mut Connection, to: &mut Connection, res: &mut Result<()>) -> bool {
    let mut buf = Vec::new();
    from.write_tls(&mut buf);
    deliver_bytes(&buf, to, res)
}

fn deliver_bytes(buf: &[u8], to: &mut Connection, res: &mut Result<()>) -> bool {
    if buf.is_empty() || res.is_err() {
        return false;
    }
    let mut off = 0;
    while off < buf.len() {
        match to.read_tls(&buf[off..]) {
            Ok(0) => panic!("read_tls took nothing with the buffer processed"),
            Ok(n) => off += n,
            Err(e) => {
                *res = Err(e);
                return true;
            }
        }
        if let Err(e) = to.process_new_packets() {
            *res = Err(e);
            return true;
        }
    }
    true
}

/// Runs both sides until nothing moves: (client result, server result).
fn run(c: &mut Connection, s: &mut Connection) -> (Result<()>, Result<()>) {
    let (mut cr, mut sr) = (Ok(()), Ok(()));
    for _ in 0..20 {
        let a = deliver(c, s, &mut sr);
        let b = deliver(s, c, &mut cr);
        if !a && !b {
            break;
        }
    }
    (cr, sr)
}

fn connect(
    ccfg: ClientConfig,
    scfg: ServerConfig,
    host: Option<&str>,
) -> (Connection, Connection, Result<()>, Result<()>) {
    let mut c = Connection::client(Arc::new(ccfg), host).unwrap();
    let mut s = Connection::server(Arc::new(scfg)).unwrap();
    let (cr, sr) = run(&mut c, &mut s);
    (c, s, cr, sr)
}

fn exchange_data(c: &mut Connection, s: &mut Connection) {
    let big: Vec<u8> = (0..40_000u32).map(|i| (i * 7) as u8).collect();
    c.write_plaintext(b"ping").unwrap();
    s.write_plaintext(&big).unwrap();
    let (cr, sr) = run(c, s);
    cr.unwrap();
    sr.unwrap();
    let mut buf = vec![0u8; 50_000];
    assert_eq!(s.read_plaintext(&mut buf).unwrap(), 4);
    assert_eq!(&buf[..4], b"ping");
    assert_eq!(c.plaintext_available(), big.len());
    let mut got = Vec::new();
    let mut small = [0u8; 1000];
    loop {
        let n = c.read_plaintext(&mut small).unwrap();
        if n == 0 {
            break;
        }
        got.extend_from_slice(&small[..n]);
    }
    assert_eq!(got, big);
}

fn tls_msg(r: &Result<()>) -> String {
    match r {
        Err(Error::Tls(m)) | Err(Error::CertificateVerify(m)) => m.clone(),
        other => panic!("expected a TLS error, got {other:?}"),
    }
}

fn cert_err(r: &Result<()>) -> String {
    match r {
        Err(Error::CertificateVerify(m)) => m.clone(),
        other => panic!("expected a CertificateVerify error, got {other:?}"),
    }
}

#[test]
fn every_suite_handshakes_and_carries_data_both_ways() {
    let p = pki();
    for suite in CipherSuite::ALL {
        let mut ccfg = if suite.is_ecdhe() { p.client_with_certs() } else { p.client() };
        ccfg.suites = suite_only(suite);
        let (mut c, mut s, cr, sr) = connect(ccfg, p.server(), Some(HOST));
        cr.unwrap_or_else(|e| panic!("{suite:?} client: {e}"));
        sr.unwrap_or_else(|e| panic!("{suite:?} server: {e}"));
        assert!(!c.is_handshaking() && !s.is_handshaking());
        assert_eq!(c.cipher_suite(), Some(suite));
        assert_eq!(s.cipher_suite(), Some(suite));
        assert_eq!(c.protocol_version(), Some("TLCP"));
        assert_eq!(c.peer_certificates().len(), 3, "sign, enc, intermediate");
        assert_eq!(s.peer_certificates().len(), if suite.is_ecdhe() { 3 } else { 0 });
        assert_eq!(s.server_name(), Some(HOST));
        exchange_data(&mut c, &mut s);
        c.send_close_notify();
        assert!(c.write_plaintext(b"late").is_err());
        let (cr, sr) = run(&mut c, &mut s);
        cr.unwrap();
        sr.unwrap();
        assert!(s.peer_closed());
        let mut b = [0u8; 4];
        assert_eq!(s.read_plaintext(&mut b).unwrap(), 0);
    }
}

#[test]
fn the_server_picks_its_preference_among_the_offered_suites() {
    let p = pki();
    let mut scfg = p.server();
    scfg.suites = vec![CipherSuite::EccSm4CbcSm3, CipherSuite::EccSm4GcmSm3];
    let (c, _, cr, sr) = connect(p.client(), scfg, Some(HOST));
    cr.unwrap();
    sr.unwrap();
    assert_eq!(c.cipher_suite(), Some(CipherSuite::EccSm4CbcSm3));
}

#[test]
fn client_certificates_are_requested_validated_and_reported() {
    let p = pki();
    for suite in [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3] {
        // Signing certificate only (ECC) and both.
        for both in [false, true] {
            let mut ccfg = p.client_with_certs();
            if !both {
                ccfg.enc_identity = None;
            }
            ccfg.suites = suite_only(suite);
            let mut scfg = p.server();
            scfg.verify_mode = VerifyMode::Required;
            let (mut c, mut s, cr, sr) = connect(ccfg, scfg, Some(HOST));
            cr.unwrap();
            sr.unwrap();
            assert_eq!(s.peer_certificates().len(), if both { 3 } else { 2 });
            assert_eq!(s.peer_certificates()[0].subject().rfc4514(), "CN=client sign");
            exchange_data(&mut c, &mut s);
        }
    }
}

#[test]
fn a_missing_client_certificate_is_refused_when_required_and_accepted_when_optional() {
    let p = pki();
    let mut scfg = p.server();
    scfg.verify_mode = VerifyMode::Required;
    let (_, _, cr, sr) = connect(p.client(), scfg, Some(HOST));
    assert!(cert_err(&sr).contains("client certificate is required"), "{sr:?}");
    assert_eq!(tls_msg(&cr), "received fatal alert: handshake_failure (40)");

    let mut scfg = p.server();
    scfg.verify_mode = VerifyMode::Optional;
    let (_, s, cr, sr) = connect(p.client(), scfg, Some(HOST));
    cr.unwrap();
    sr.unwrap();
    assert!(s.peer_certificates().is_empty());
}

#[test]
fn an_untrusted_client_certificate_is_refused() {
    let p = pki();
    let mut ccfg = p.client();
    ccfg.sign_identity = Some(p.other_leaf("rogue client", SIGN_KU));
    let mut scfg = p.server();
    scfg.verify_mode = VerifyMode::Optional;
    let (_, _, cr, sr) = connect(ccfg, scfg, Some(HOST));
    assert!(cert_err(&sr).contains("untrusted issuer"), "{sr:?}");
    assert_eq!(tls_msg(&cr), "received fatal alert: unknown_ca (48)");
}

#[test]
fn sessions_resume_with_an_abbreviated_handshake() {
    let p = pki();
    for suite in CipherSuite::ALL {
        let mut ccfg = if suite.is_ecdhe() { p.client_with_certs() } else { p.client() };
        ccfg.suites = suite_only(suite);
        let ccfg = Arc::new(ccfg);
        let scfg = Arc::new(p.server());
        let mut c = Connection::client(ccfg.clone(), Some(HOST)).unwrap();
        let mut s = Connection::server(scfg.clone()).unwrap();
        let (cr, sr) = run(&mut c, &mut s);
        cr.unwrap();
        sr.unwrap();
        assert!(!c.session_resumed());
        let session = c.session().expect("a session after the handshake");
        assert_eq!(scfg.session_cache.len(), 1);

        let mut c2 = Connection::client_resume(ccfg.clone(), Some(HOST), session.clone()).unwrap();
        let mut s2 = Connection::server(scfg.clone()).unwrap();
        let (cr, sr) = run(&mut c2, &mut s2);
        cr.unwrap();
        sr.unwrap();
        assert!(c2.session_resumed() && s2.session_resumed(), "{suite:?}");
        assert_eq!(c2.peer_certificates().len(), 3);
        exchange_data(&mut c2, &mut s2);

        // A server with an empty cache falls back to a full handshake.
        let mut fresh = p.server();
        fresh.session_cache = Arc::new(SessionCache::new(4));
        let mut c3 = Connection::client_resume(ccfg.clone(), Some(HOST), session.clone()).unwrap();
        let mut s3 = Connection::server(Arc::new(fresh)).unwrap();
        let (cr, sr) = run(&mut c3, &mut s3);
        cr.unwrap();
        sr.unwrap();
        assert!(!c3.session_resumed() && !s3.session_resumed());

        // A session is not offered to another server name.
        let mut c4 = Connection::client_resume(ccfg.clone(), Some("x.wild.example"), session).unwrap();
        let mut s4 = Connection::server(scfg.clone()).unwrap();
        let (cr, sr) = run(&mut c4, &mut s4);
        cr.unwrap();
        sr.unwrap();
        assert!(!c4.session_resumed());
    }
}

#[test]
fn host_names_are_checked_against_the_signing_certificate() {
    let p = pki();
    let (_, _, cr, sr) = connect(p.client(), p.server(), Some("a.wild.example"));
    cr.unwrap();
    sr.unwrap();
    let (_, _, cr, sr) = connect(p.client(), p.server(), Some("other.example"));
    let m = cert_err(&cr);
    assert!(m.contains("host name mismatch") && m.contains("other.example") && m.contains(HOST), "{m}");
    assert_eq!(tls_msg(&sr), "received fatal alert: bad_certificate (42)");
    let (_, _, cr, _) = connect(p.client(), p.server(), Some("a.b.wild.example"));
    assert!(cert_err(&cr).contains("host name mismatch"));
    // check_hostname off, or no name given: accepted.
    let mut ccfg = p.client();
    ccfg.check_hostname = false;
    let (_, _, cr, _) = connect(ccfg, p.server(), Some("other.example"));
    cr.unwrap();
    let (_, _, cr, _) = connect(p.client(), p.server(), None);
    cr.unwrap();
}

#[test]
fn certificate_refusals_name_what_failed_and_send_the_right_alert() {
    let p = pki();
    // Untrusted root.
    let mut ccfg = p.client();
    ccfg.roots = vec![p.other_root.clone()];
    let (_, _, cr, sr) = connect(ccfg, p.server(), Some(HOST));
    assert!(cert_err(&cr).contains("untrusted issuer"), "{cr:?}");
    assert_eq!(tls_msg(&sr), "received fatal alert: unknown_ca (48)");
    // No roots at all with CERT_REQUIRED.
    let mut ccfg = p.client();
    ccfg.roots.clear();
    let (_, _, cr, _) = connect(ccfg, p.server(), Some(HOST));
    assert!(cert_err(&cr).contains("untrusted issuer"), "{cr:?}");
    // ...but CERT_NONE accepts anything.
    let mut ccfg = p.client();
    ccfg.roots.clear();
    ccfg.verify_mode = VerifyMode::None;
    let (_, _, cr, _) = connect(ccfg, p.server(), Some("wrong.example"));
    cr.unwrap();
    // Expired.
    let mut ccfg = p.client();
    ccfg.now = Some(NOW + 365 * DAY);
    let (_, _, cr, sr) = connect(ccfg, p.server(), Some(HOST));
    assert!(cert_err(&cr).contains("expired"), "{cr:?}");
    assert_eq!(tls_msg(&sr), "received fatal alert: certificate_expired (45)");
    // Signing certificate without digitalSignature.
    let mut scfg = p.server();
    scfg.sign_identity = p.leaf("server sign", ku::KEY_ENCIPHERMENT, &[HOST]);
    let (_, _, cr, sr) = connect(p.client(), scfg, Some(HOST));
    let m = cert_err(&cr);
    assert!(m.contains("key usage") && m.contains("digitalSignature"), "{m}");
    assert_eq!(tls_msg(&sr), "received fatal alert: unsupported_certificate (43)");
    // Encryption certificate without an encipherment usage.
    let mut scfg = p.server();
    scfg.enc_identity = p.leaf("server enc", ku::DIGITAL_SIGNATURE, &[]);
    let (_, _, cr, _) = connect(p.client(), scfg, Some(HOST));
    let m = cert_err(&cr);
    assert!(m.contains("encryption certificate key usage"), "{m}");
    // Encryption certificate from another issuer.
    let mut scfg = p.server();
    scfg.enc_identity = p.other_leaf("rogue enc", ENC_KU);
    let (_, _, cr, sr) = connect(p.client(), scfg, Some(HOST));
    let m = cert_err(&cr);
    assert!(m.contains("encryption certificate untrusted issuer"), "{m}");
    assert_eq!(tls_msg(&sr), "received fatal alert: unknown_ca (48)");
    // Both roots trusted, but the two certificates under different anchors.
    let mut ccfg = p.client();
    ccfg.roots.push(p.other_root.clone());
    let mut scfg = p.server();
    scfg.enc_identity = p.other_leaf("rogue enc", ENC_KU);
    let (_, _, cr, _) = connect(ccfg, scfg, Some(HOST));
    assert!(cert_err(&cr).contains("different trust anchor"), "{cr:?}");
}

#[test]
fn no_common_suite_and_ecdhe_without_client_keys_fail_cleanly() {
    let p = pki();
    let mut ccfg = p.client();
    ccfg.suites = vec![CipherSuite::EccSm4CbcSm3];
    let mut scfg = p.server();
    scfg.suites = vec![CipherSuite::EccSm4GcmSm3];
    let (_, _, cr, sr) = connect(ccfg, scfg, Some(HOST));
    assert_eq!(tls_msg(&sr), "handshake failure: no common cipher suite");
    assert_eq!(tls_msg(&cr), "received fatal alert: handshake_failure (40)");

    // ECDHE is offered only with the client's two certificates.
    let mut ccfg = p.client();
    ccfg.suites = vec![CipherSuite::EcdheSm4GcmSm3];
    let e = Connection::client(Arc::new(ccfg), Some(HOST)).map(|_| ());
    assert!(tls_msg(&e).contains("ECDHE suites need the client's signing and encryption certificates"));
    // A server preferring ECDHE picks ECC for a client without them.
    let (c, _, cr, sr) = connect(p.client(), p.server(), Some(HOST));
    cr.unwrap();
    sr.unwrap();
    assert_eq!(c.cipher_suite(), Some(CipherSuite::EccSm4GcmSm3));
}

/// The client's first flight with the ClientHello's version changed; and a
/// record header with another version.
#[test]
fn other_protocol_versions_are_refused() {
    let p = pki();
    for (offset, what) in [(9usize, "client offered protocol version 0x0303"), (1, "in a record header")] {
        let mut c = Connection::client(Arc::new(p.client()), Some(HOST)).unwrap();
        let mut s = Connection::server(Arc::new(p.server())).unwrap();
        let mut hello = Vec::new();
        c.write_tls(&mut hello);
        hello[offset] = 0x03;
        hello[offset + 1] = 0x03;
        let mut sr = Ok(());
        deliver_bytes(&hello, &mut s, &mut sr);
        assert!(tls_msg(&sr).contains(what), "{sr:?}");
        let mut cr = Ok(());
        deliver(&mut s, &mut c, &mut cr);
        assert_eq!(tls_msg(&cr), "received fatal alert: protocol_version (70)");
        // Every later call reports the same error.
        assert_eq!(s.process_new_packets(), sr);
        assert_eq!(s.write_plaintext(b"x").unwrap_err(), sr.unwrap_err());
    }
}

/// A changed byte in the server's (unencrypted) session ID leaves the keys
/// alone but changes the client's transcript: the server refuses the
/// client's Finished. A changed byte of an encrypted Finished record is a
/// bad record MAC.
#[test]
fn a_tampered_handshake_fails_at_finished() {
    let p = pki();
    for suite in [CipherSuite::EccSm4GcmSm3, CipherSuite::EccSm4CbcSm3] {
        let mut ccfg = p.client();
        ccfg.suites = suite_only(suite);
        let mut c = Connection::client(Arc::new(ccfg.clone()), Some(HOST)).unwrap();
        let mut s = Connection::server(Arc::new(p.server())).unwrap();
        let (mut cr, mut sr) = (Ok(()), Ok(()));
        deliver(&mut c, &mut s, &mut sr);
        let mut flight = Vec::new();
        s.write_tls(&mut flight);
        // header 5 + handshake header 4 + version 2 + random 32 + id length 1.
        flight[44] ^= 1;
        deliver_bytes(&flight, &mut c, &mut cr);
        cr.as_ref().unwrap();
        deliver(&mut c, &mut s, &mut sr);
        assert!(tls_msg(&sr).contains("Finished verify_data does not match"), "{sr:?}");
        deliver(&mut s, &mut c, &mut cr);
        assert_eq!(tls_msg(&cr), "received fatal alert: decrypt_error (51)");

        // The client's Finished record itself changed (its last byte).
        let mut c = Connection::client(Arc::new(ccfg.clone()), Some(HOST)).unwrap();
        let mut s = Connection::server(Arc::new(p.server())).unwrap();
        let (mut cr, mut sr) = (Ok(()), Ok(()));
        deliver(&mut c, &mut s, &mut sr);
        deliver(&mut s, &mut c, &mut cr);
        let mut flight = Vec::new();
        c.write_tls(&mut flight);
        let last = flight.len() - 1;
        flight[last] ^= 0x80;
        deliver_bytes(&flight, &mut s, &mut sr);
        assert_eq!(tls_msg(&sr), "bad record MAC");
        deliver(&mut s, &mut c, &mut cr);
        assert_eq!(tls_msg(&cr), "received fatal alert: bad_record_mac (20)");
    }
}

#[test]
fn renegotiation_is_refused() {
    let p = pki();
    // The client sends a second ClientHello.
    let (mut c, mut s, cr, sr) = connect(p.client(), p.server(), Some(HOST));
    cr.unwrap();
    sr.unwrap();
    let hello = [1u8, 0, 0, 0];
    c.test_send_handshake_record(&hello).unwrap();
    let (cr, sr) = run(&mut c, &mut s);
    assert!(tls_msg(&sr).contains("renegotiation refused"), "{sr:?}");
    assert_eq!(tls_msg(&cr), "received fatal alert: no_renegotiation (100)");
    // The server sends a HelloRequest.
    let (mut c, mut s, cr, sr) = connect(p.client(), p.server(), Some(HOST));
    cr.unwrap();
    sr.unwrap();
    s.test_send_handshake_record(&[0u8, 0, 0, 0]).unwrap();
    let (cr, sr) = run(&mut c, &mut s);
    assert!(tls_msg(&cr).contains("renegotiation refused"), "{cr:?}");
    assert_eq!(tls_msg(&sr), "received fatal alert: no_renegotiation (100)");
}

#[test]
fn oversized_records_are_refused_with_record_overflow() {
    let p = pki();
    // Before encryption: more than 2^14 bytes.
    let mut s = Connection::server(Arc::new(p.server())).unwrap();
    let hdr = [22u8, 1, 1, 0x40, 0x01];
    assert_eq!(s.read_tls(&hdr).unwrap(), 5);
    let e = s.process_new_packets().unwrap_err();
    assert!(tls_msg(&Err(e)).contains("record overflow"));
    // Encrypted: more than 2^14 + 2048 bytes.
    let (mut c, mut s, cr, sr) = connect(p.client(), p.server(), Some(HOST));
    cr.unwrap();
    sr.unwrap();
    let len = (MAX_CIPHERTEXT + 1) as u16;
    let hdr = [23u8, 1, 1, (len >> 8) as u8, len as u8];
    let mut sr = Ok(());
    deliver_bytes(&hdr, &mut s, &mut sr);
    assert!(tls_msg(&sr).contains("record overflow"));
    let mut cr = Ok(());
    deliver(&mut s, &mut c, &mut cr);
    assert_eq!(tls_msg(&cr), "received fatal alert: record_overflow (22)");
}

#[test]
fn read_tls_buffers_at_most_sixteen_records_and_truncated_records_wait() {
    let p = pki();
    let (mut c, mut s, cr, sr) = connect(p.client(), p.server(), Some(HOST));
    cr.unwrap();
    sr.unwrap();
    // 40 full records, more than the engine buffers ahead.
    let total = 40 * 16384;
    c.write_plaintext(&vec![9u8; total]).unwrap();
    let mut wire = Vec::new();
    c.write_tls(&mut wire);
    // A truncated record is held, not processed.
    assert_eq!(s.read_tls(&wire[..100]).unwrap(), 100);
    s.process_new_packets().unwrap();
    assert_eq!(s.plaintext_available(), 0);
    let n = s.read_tls(&wire[100..]).unwrap();
    // Bounded: 16 records' worth (header + largest ciphertext each).
    assert_eq!(100 + n, 16 * (5 + 16384 + 2048), "took {n}");
    let mut off = 100 + n;
    s.process_new_packets().unwrap();
    while off < wire.len() {
        off += s.read_tls(&wire[off..]).unwrap();
        s.process_new_packets().unwrap();
    }
    assert_eq!(s.plaintext_available(), total);
    let mut got = vec![0u8; total];
    assert_eq!(s.read_plaintext(&mut got).unwrap(), total);
    assert!(got.iter().all(|&b| b == 9));
}

/// Every random byte comes from the injected generator: two runs with the
/// same seeds produce the same bytes on the wire, for every suite.
#[test]
fn transcripts_replay_byte_for_byte_with_an_injected_generator() {
    fn gen(seed: u64) -> RngFn {
        let mut s = seed | 1;
        Box::new(move |buf: &mut [u8]| {
            for b in buf.iter_mut() {
                s ^= s >> 12;
                s ^= s << 25;
                s ^= s >> 27;
                *b = (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 56) as u8;
            }
        })
    }
    let p = pki();
    let scfg = Arc::new({
        let mut s = p.server();
        s.verify_mode = VerifyMode::Optional;
        s
    });
    let ccfg = Arc::new(p.client_with_certs());
    for suite in CipherSuite::ALL {
        let mut wires = Vec::new();
        for _ in 0..2 {
            let mut cc = (*ccfg).clone();
            cc.suites = suite_only(suite);
            let mut c = Connection::client_with_rng(Arc::new(cc), Some(HOST), gen(1)).unwrap();
            let mut s = Connection::server_with_rng(scfg.clone(), gen(2)).unwrap();
            let mut wire = Vec::new();
            let (mut cr, mut sr) = (Ok(()), Ok(()));
            for _ in 0..10 {
                let mut b = Vec::new();
                c.write_tls(&mut b);
                wire.extend_from_slice(&b);
                deliver_bytes(&b, &mut s, &mut sr);
                let mut b = Vec::new();
                s.write_tls(&mut b);
                wire.extend_from_slice(&b);
                deliver_bytes(&b, &mut c, &mut cr);
            }
            cr.unwrap();
            sr.unwrap();
            c.write_plaintext(b"replay").unwrap();
            c.write_tls(&mut wire);
            wires.push(wire);
        }
        assert_eq!(wires[0], wires[1], "{suite:?}");
        assert!(wires[0].len() > 1000);
    }
}

/// Changed bytes anywhere in the first flights: each side ends with an
/// error or completes, never panics or hangs.
#[test]
fn mutated_flights_never_panic() {
    let p = pki();
    let ccfg = Arc::new(p.client_with_certs());
    let mut scfg = p.server();
    scfg.verify_mode = VerifyMode::Optional;
    let scfg = Arc::new(scfg);
    let mut x = 0x1234_5678_9abc_def1u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for round in 0..120 {
        let mut c = Connection::client(ccfg.clone(), Some(HOST)).unwrap();
        let mut s = Connection::server(scfg.clone()).unwrap();
        let (mut cr, mut sr) = (Ok(()), Ok(()));
        let target = round % 3;
        for step in 0..6 {
            let mut b = Vec::new();
            if step % 2 == 0 {
                c.write_tls(&mut b);
            } else {
                s.write_tls(&mut b);
            }
            if step / 2 == target && !b.is_empty() {
                let i = (next() as usize) % b.len();
                b[i] ^= 1 << (next() % 8);
                if next() % 4 == 0 {
                    b.truncate(i);
                }
            }
            if step % 2 == 0 {
                deliver_bytes(&b, &mut s, &mut sr);
            } else {
                deliver_bytes(&b, &mut c, &mut cr);
            }
        }
    }
}

// ---------------------------------------------------------------- PRF

/// Expected values from an independent computation: HMAC-SM3 and P_SM3
/// written out in Python over the pure-Python `gmssl` package's SM3
/// (gmssl 3.2.2 from PyPI, `sm3.sm3_hash`), 2026-12-07.
#[test]
fn prf_matches_an_independent_p_sm3() {
    let h = |s: &str| -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    };
    let secret: Vec<u8> = (0..48).collect();
    let seed: Vec<u8> = (100..164).collect();
    let mut out = [0u8; 48];
    prf(&secret, b"master secret", &seed, &mut out);
    assert_eq!(
        out.to_vec(),
        h("4fc7a4b89820b6ef1730d7dafae003942c6ebb295625b52185d44bd6795929b097fad16395314380566789fd6899437c")
    );
    let mut kb = [0u8; 128];
    prf(&secret, b"key expansion", &seed, &mut kb);
    assert_eq!(
        kb.to_vec(),
        h(concat!(
            "fe4a9c00a86f511c59f7142115b32d7e2bee11679e21da752690974e941bb1f199ab78bae5757bf54341bf361875a5af",
            "134e98af8226d5e0dddf665afc052ec49a1be6a1ad6d3ac5ae8f3d49bc4b4f5265f410c38b7cdea721ac838461029f4b",
            "e7b985bb644f23bf4cd539cf5a3b491549a214aedfe93ef36a79cf567ae6bce7"
        ))
    );
    let mut fin = [0u8; 12];
    let hash: Vec<u8> = (0..32).collect();
    prf(&secret, b"client finished", &hash, &mut fin);
    assert_eq!(fin.to_vec(), h("9fec9fb0592f942381ef80a5"));
    let mut long = [0u8; 100];
    prf(&[b'k'; 100], b"test label", b"seed", &mut long);
    assert_eq!(
        long.to_vec(),
        h(concat!(
            "401bd34ea12ffde955abff0c6f5b69b31905331da94af713627027476ca5a67bed836ff313e7978b2c5eaeb8d0aae65e",
            "495bb1be2fe7ac712b3b9c5005d6a475497c365808bb9f9cf78ea6410c21315b1faf9eb4740388c636014f154ce5a089",
            "bb01ce03"
        ))
    );
}

// ---------------------------------------------------------------- records

fn ciphers() -> Vec<(&'static str, RecordCipher)> {
    let mac: Vec<u8> = (0..32).collect();
    let key: Vec<u8> = (32..48).collect();
    vec![("cbc", RecordCipher::cbc(&mac, &key).unwrap()), ("gcm", RecordCipher::gcm(&key, &[1, 2, 3, 4]).unwrap())]
}

#[test]
fn records_round_trip_at_every_small_length_and_the_largest() {
    for (what, c) in ciphers() {
        let iv = [0x5au8; 16];
        for n in (0..=100).chain([1000, 16_383, 16_384]) {
            let pt: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let f = c.seal(7, 23, &pt, &iv).unwrap();
            assert_eq!(c.open(7, 23, &f).unwrap(), pt, "{what} {n}");
            // Another sequence number or type is refused.
            assert_eq!(c.open(8, 23, &f).unwrap_err(), Error::Tls("bad record MAC".into()));
            assert_eq!(c.open(7, 22, &f).unwrap_err(), Error::Tls("bad record MAC".into()));
        }
        assert!(c.seal(0, 23, &vec![0u8; 16_385], &iv).is_err());
    }
}

#[test]
fn every_changed_byte_and_every_truncation_is_a_bad_record_mac() {
    for (what, c) in ciphers() {
        let pt = b"forty bytes of application data, exactly";
        let f = c.seal(3, 23, pt, &[0x11; 16]).unwrap();
        for i in 0..f.len() {
            for bit in [0x01u8, 0x80] {
                let mut g = f.clone();
                g[i] ^= bit;
                assert_eq!(c.open(3, 23, &g).unwrap_err(), Error::Tls("bad record MAC".into()), "{what} byte {i}");
            }
        }
        for n in 0..f.len() {
            assert_eq!(c.open(3, 23, &f[..n]).unwrap_err(), Error::Tls("bad record MAC".into()), "{what} len {n}");
        }
    }
}

/// CBC records built by hand (SM4-CBC from the sm4 module, HMAC-SM3 from
/// the sm3 module): long valid padding is accepted; bad padding under a
/// valid MAC is the same "bad record MAC".
#[test]
fn cbc_padding_is_checked_and_long_padding_accepted() {
    let mac: Vec<u8> = (0..32).collect();
    let key: [u8; 16] = core::array::from_fn(|i| 32 + i as u8);
    let c = RecordCipher::cbc(&mac, &key).unwrap();
    let iv = [0x33u8; 16];
    let build = |pt: &[u8], pad: &[u8]| -> Vec<u8> {
        let mut hdr = vec![0u8, 0, 0, 0, 0, 0, 0, 9, 23, 1, 1];
        hdr.extend_from_slice(&(pt.len() as u16).to_be_bytes());
        let tag = shangmi::sm3::hmac(&mac, &[&hdr[..], pt].concat());
        let body = [pt, &tag[..], pad].concat();
        let mut out = iv.to_vec();
        out.extend(shangmi::sm4::cbc_encrypt(&key, &iv, &body, false).unwrap());
        out
    };
    let pt = b"0123456789abcdef0123456789ab"; // 28 + 32 = 60 bytes before padding
                                              // p = 3 (minimal) and p = 243 (60 + 244 = 304, a block multiple): accepted.
    assert_eq!(c.open(9, 23, &build(pt, &[3; 4])).unwrap(), pt);
    assert_eq!(c.open(9, 23, &build(pt, &[243; 244])).unwrap(), pt);
    // Right length, wrong padding bytes: refused like a bad MAC.
    let mut bad = vec![243u8; 244];
    bad[100] = 0;
    assert_eq!(c.open(9, 23, &build(pt, &bad)).unwrap_err(), Error::Tls("bad record MAC".into()));
    let mut bad = [3u8; 4];
    bad[0] = 2;
    assert_eq!(c.open(9, 23, &build(pt, &bad)).unwrap_err(), Error::Tls("bad record MAC".into()));
}

/// Writes the fuzz targets' seeds and the server fixture when
/// `SHANGMI_TLCP_FUZZ_DIR` names the repository's `fuzz/` folder (run by
/// hand; otherwise a no-op): `corpus/tlcp_handshake/` holds servers' first
/// flights (what a client parses), `corpus/tlcp_record/` clients' whole
/// handshakes (what a server parses, records encrypted under the recorded
/// keys), `tlcp/` the server's certificates and keys.
#[test]
fn write_fuzz_seeds() {
    let Ok(dir) = std::env::var("SHANGMI_TLCP_FUZZ_DIR") else { return };
    let dir = std::path::PathBuf::from(dir);
    let p = pki();
    let scfg = p.server();
    let fix = dir.join("tlcp");
    std::fs::create_dir_all(&fix).unwrap();
    let pem_chain = |id: &Identity| -> String {
        id.chain.iter().map(|c| shangmi::encoding::pem::encode("CERTIFICATE", &[], c.to_der()).to_string()).collect()
    };
    let key_pem = |id: &Identity| -> String {
        shangmi::encoding::sm2::private_key_to_pem(&id.key, None, Default::default()).unwrap().to_string()
    };
    std::fs::write(fix.join("sign.pem"), pem_chain(&scfg.sign_identity)).unwrap();
    std::fs::write(fix.join("sign.key"), key_pem(&scfg.sign_identity)).unwrap();
    std::fs::write(fix.join("enc.pem"), pem_chain(&scfg.enc_identity)).unwrap();
    std::fs::write(fix.join("enc.key"), key_pem(&scfg.enc_identity)).unwrap();
    let scfg = Arc::new(scfg);
    for suite in CipherSuite::ALL {
        let mut cc = p.client_with_certs();
        cc.suites = suite_only(suite);
        let mut c = Connection::client(Arc::new(cc), Some(HOST)).unwrap();
        let mut s = Connection::server(scfg.clone()).unwrap();
        let (mut cr, mut sr) = (Ok(()), Ok(()));
        let mut client_bytes = Vec::new();
        let mut server_first = Vec::new();
        for step in 0..4 {
            let mut b = Vec::new();
            c.write_tls(&mut b);
            client_bytes.extend_from_slice(&b);
            deliver_bytes(&b, &mut s, &mut sr);
            let mut b = Vec::new();
            s.write_tls(&mut b);
            if step == 0 {
                server_first = b.clone();
            }
            deliver_bytes(&b, &mut c, &mut cr);
        }
        c.write_plaintext(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        c.write_tls(&mut client_bytes);
        let name = suite.name().to_lowercase();
        for (sub, bytes) in [("tlcp_handshake", &server_first), ("tlcp_record", &client_bytes)] {
            std::fs::create_dir_all(dir.join("corpus").join(sub)).unwrap();
            std::fs::write(dir.join("corpus").join(sub).join(format!("{name}.bin")), bytes).unwrap();
        }
    }
}

/// RFC 6125 checks on certificates made here: SAN first, CN only without
/// any SAN dNSName, never for IP addresses.
#[test]
fn host_name_rules_on_certificates() {
    let k = PrivateKey::generate().unwrap();
    let with = |cn: &str, sans: Vec<GeneralName>| {
        let mut exts = vec![];
        if !sans.is_empty() {
            exts.push(Extension::new(oid::SUBJECT_ALT_NAME, false, ext::encode_general_names(&sans).unwrap()));
        }
        cert(cn, &k, "issuer", &k, exts)
    };
    let ok = |c: &Certificate, h: &str| x509::verify_hostname(c, h).is_ok();
    let san = with("cn.example", vec![GeneralName::Dns(HOST.into()), GeneralName::Ip(vec![192, 0, 2, 1])]);
    assert!(ok(&san, HOST) && ok(&san, "TLCP.Example.") && ok(&san, "192.0.2.1"));
    assert!(!ok(&san, "cn.example"), "no CN fallback when a dNSName exists");
    assert!(!ok(&san, "192.0.2.2") && !ok(&san, "[::1]") && !ok(&san, "x.tlcp.example"));
    let cn_only = with("cn.example", vec![]);
    assert!(ok(&cn_only, "cn.example") && !ok(&cn_only, HOST));
    let ip_cn = with("192.0.2.1", vec![]);
    assert!(!ok(&ip_cn, "192.0.2.1"), "IP addresses never match a CN");
    let ip_only = with("cn.example", vec![GeneralName::Ip(vec![192, 0, 2, 1])]);
    assert!(ok(&ip_only, "cn.example"), "CN is used when the SAN has no dNSName");
    match x509::verify_hostname(&san, "cn.example") {
        Err(Error::CertificateVerify(m)) => {
            assert_eq!(m, "host name mismatch: certificate is valid for tlcp.example, 192.0.2.1, not 'cn.example'")
        }
        other => panic!("{other:?}"),
    }
}

/// The plaintext handshake messages (header included) in `buf`'s records
/// up to the first ChangeCipherSpec.
fn handshake_messages(buf: &[u8]) -> Vec<Vec<u8>> {
    let mut hs = Vec::new();
    let mut off = 0;
    while off + 5 <= buf.len() {
        let (typ, len) = (buf[off], usize::from(u16::from_be_bytes([buf[off + 3], buf[off + 4]])));
        if typ == 20 {
            break;
        }
        assert_eq!(typ, 22, "handshake records before ChangeCipherSpec");
        hs.extend_from_slice(&buf[off + 5..off + 5 + len]);
        off += 5 + len;
    }
    let mut msgs = Vec::new();
    let mut p = 0;
    while p + 4 <= hs.len() {
        let len = usize::from(hs[p + 1]) << 16 | usize::from(hs[p + 2]) << 8 | usize::from(hs[p + 3]);
        msgs.push(hs[p..p + 4 + len].to_vec());
        p += 4 + len;
    }
    msgs
}

/// The client's second flight in each compatibility mode, checked against
/// the forms the peers' sources define, parsed and verified here (not by
/// the engine's decoder), then fed to shangmi's server, which takes every
/// form.
/// - ECDHE ClientKeyExchange: GmSSL 3 (`tlcp_send_client_key_exchange`,
///   `tls_uint16array_to_bytes` around the parameters) and GB/T 38636-2020
///   6.4.5.8 write `00 45 ‖ 03 00 29 ‖ 41 ‖ 04 X Y` (71 bytes); Tongsuo
///   (`ntls_construct_cke_sm2dhe`) writes `03 00 29 ‖ 41 ‖ 04 X Y` (69).
/// - CertificateVerify `<2-byte length>` DER SM2 signature with ID
///   1234567812345678: GmSSL over the handshake messages themselves,
///   Tongsuo and the standard over SM3 of them.
/// - ECC Certificate with both identities: GmSSL's shape is the signing
///   certificate and its chain (no encryption certificate).
#[test]
fn compat_modes_write_the_peers_forms_and_the_server_takes_them_all() {
    use shangmi::tls::Compat;
    let p = pki();
    for suite in [CipherSuite::EcdheSm4GcmSm3, CipherSuite::EccSm4CbcSm3] {
        for compat in [Compat::GmSsl, Compat::Tongsuo, Compat::Standard, Compat::Auto] {
            let mut ccfg = p.client_with_certs();
            ccfg.suites = suite_only(suite);
            ccfg.compat = compat;
            let client_enc = ccfg.enc_identity.as_ref().unwrap().chain[0].to_der().to_vec();
            let client_sign = ccfg.sign_identity.as_ref().unwrap().key.public_key().clone();
            let mut scfg = p.server();
            scfg.verify_mode = VerifyMode::Required;
            let mut c = Connection::client(Arc::new(ccfg), Some(HOST)).unwrap();
            let mut s = Connection::server(Arc::new(scfg)).unwrap();
            let (mut cr, mut sr) = (Ok(()), Ok(()));
            let mut transcript = Vec::new();
            let mut hello = Vec::new();
            c.write_tls(&mut hello);
            transcript.extend(handshake_messages(&hello));
            deliver_bytes(&hello, &mut s, &mut sr);
            let mut buf = Vec::new();
            s.write_tls(&mut buf);
            transcript.extend(handshake_messages(&buf));
            deliver_bytes(&buf, &mut c, &mut cr);
            let mut flight = Vec::new();
            c.write_tls(&mut flight);
            let msgs = handshake_messages(&flight);
            let types: Vec<u8> = msgs.iter().map(|m| m[0]).collect();
            assert_eq!(types, [11, 16, 15], "{compat:?}: Certificate, ClientKeyExchange, CertificateVerify");
            // shangmi's server asks like Tongsuo ({rsa_sign, ecdsa_sign}): Auto takes Tongsuo's forms.
            let gmssl = compat == Compat::GmSsl;
            let prefixed = matches!(compat, Compat::GmSsl | Compat::Standard);
            let cert_body = &msgs[0][4..];
            let has_enc = cert_body.windows(client_enc.len()).any(|w| w == client_enc);
            assert_eq!(has_enc, suite.is_ecdhe() || !gmssl, "{compat:?} {suite:?}: encryption certificate sent");
            let cke = &msgs[1][4..];
            if suite.is_ecdhe() {
                let params: &[u8] = if prefixed {
                    assert_eq!((cke.len(), &cke[..2]), (71, &[0x00, 0x45][..]), "{compat:?}");
                    &cke[2..]
                } else {
                    assert_eq!(cke.len(), 69, "{compat:?}");
                    cke
                };
                assert_eq!(&params[..5], &[0x03, 0x00, 0x29, 0x41, 0x04], "{compat:?}");
            }
            let signed: Vec<u8> = transcript.iter().chain(&msgs[..2]).flatten().copied().collect();
            let cv = &msgs[2][4..];
            assert_eq!(usize::from(u16::from_be_bytes([cv[0], cv[1]])), cv.len() - 2);
            let sig = shangmi::encoding::sm2::signature_from_der(&cv[2..]).unwrap();
            let raw = client_sign.verify(&signed, DEFAULT_UID, &sig).is_ok();
            let hashed = client_sign.verify(&shangmi::sm3::hash(&signed), DEFAULT_UID, &sig).is_ok();
            assert_eq!((raw, hashed), (gmssl, !gmssl), "{compat:?}: CertificateVerify input");
            deliver_bytes(&flight, &mut s, &mut sr);
            let (cr2, sr2) = run(&mut c, &mut s);
            cr.and(cr2).unwrap();
            sr.and(sr2).unwrap();
            exchange_data(&mut c, &mut s);
        }
    }
}

/// shangmi's CertificateRequest names its trust anchors' subjects, as
/// GmSSL's client needs (it answers only when its issuer is named).
#[test]
fn the_certificate_request_names_the_trust_anchors() {
    let p = pki();
    let mut scfg = p.server();
    scfg.verify_mode = VerifyMode::Required;
    let mut c = Connection::client(Arc::new(p.client_with_certs()), Some(HOST)).unwrap();
    let mut s = Connection::server(Arc::new(scfg)).unwrap();
    let mut res = Ok(());
    deliver(&mut c, &mut s, &mut res);
    let mut buf = Vec::new();
    s.write_tls(&mut buf);
    let msgs = handshake_messages(&buf);
    let cr = msgs.iter().find(|m| m[0] == 13).expect("a CertificateRequest");
    let root = p.root.subject().to_der();
    let mut expected = vec![0x02, 0x01, 0x40];
    expected.extend_from_slice(&((root.len() + 2) as u16).to_be_bytes());
    expected.extend_from_slice(&(root.len() as u16).to_be_bytes());
    expected.extend_from_slice(root);
    assert_eq!(&cr[4..], &expected[..]);
}
