//! TLS 1.3 with the RFC 8998 suites: shangmi client ↔ shangmi server in
//! memory (both suites, client certificates, HelloRetryRequest, ticket
//! resumption), the refusals (host name, untrusted chain, key usage,
//! expiry, tampered records), and the provider's primitives against
//! independent computations.
//!
//! Certificates: `tests/vectors/tlcp` (made by Tongsuo, see its README).
//! Independent values: the pure-Python `gmssl` 3.2.2 package from PyPI
//! (its `sm3.sm3_hash` for HMAC-SM3/HKDF written out from RFC 2104 and RFC
//! 5869, its `CryptSM2._kg` for the curve multiplications), computed
//! 2026-12-07.

use crate::common;

use shangmi::encoding::sm2::private_key_from_pem;
use shangmi::sm2::PrivateKey;
use shangmi::tls::tls13::{self, CipherSuite, ClientConfig, Connection, ServerConfig};
use shangmi::tls::{Identity, Protocol, VerifyMode};
use shangmi::x509::Certificate;
use shangmi::Error;
use std::sync::Arc;

fn certs(name: &str) -> Vec<Certificate> {
    Certificate::from_pem_bundle(&common::read(&format!("tlcp/{name}"))).unwrap()
}

fn identity(cert: &str, key: &str, chain: bool) -> Identity {
    let mut c = certs(cert);
    if chain {
        c.extend(certs("chain.pem"));
    }
    let k = private_key_from_pem(&common::read(&format!("tlcp/{key}")), None).unwrap();
    Identity::new(c, k).unwrap()
}

fn server_cfg() -> ServerConfig {
    ServerConfig::new(identity("server-sign.pem", "server-sign.key.pem", true))
}

fn client_cfg() -> ClientConfig {
    let mut c = ClientConfig::new();
    c.roots = certs("root-ca.pem");
    c
}

fn client_identity() -> Identity {
    identity("client-sign.pem", "client-sign.key.pem", true)
}

/// Moves bytes both ways until neither side has anything to send;
/// the first error either side reports.
fn pump(c: &mut Connection, s: &mut Connection) -> Result<(), Error> {
    for _ in 0..20 {
        let a = flow(c, s)?;
        let b = flow(s, c)?;
        if !a && !b {
            return Ok(());
        }
    }
    panic!("handshake did not settle");
}

/// Everything `from` has queued, into `to`; whether anything moved.
fn flow(from: &mut Connection, to: &mut Connection) -> Result<bool, Error> {
    let mut buf = Vec::new();
    from.write_tls(&mut buf);
    let mut off = 0;
    while off < buf.len() {
        let n = to.read_tls(&buf[off..])?;
        to.process_new_packets()?;
        if n == 0 {
            // Closed, or its plaintext buffer is full: the rest is dropped
            // here (tests read plaintext between pumps).
            break;
        }
        off += n;
    }
    Ok(!buf.is_empty())
}

fn exchange(c: &mut Connection, s: &mut Connection) {
    c.write_plaintext(b"ping from the client").unwrap();
    pump(c, s).unwrap();
    let mut buf = vec![0u8; 64];
    assert_eq!(s.plaintext_available(), 20);
    let n = s.read_plaintext(&mut buf).unwrap();
    assert_eq!(&buf[..n], b"ping from the client");
    // More than rustls buffers at once: written in pieces the reader keeps up with.
    let mut got = Vec::new();
    for _ in 0..10 {
        s.write_plaintext(&[0x5a; 4_000]).unwrap();
        pump(c, s).unwrap();
        let mut b = vec![0u8; 8_192];
        while c.plaintext_available() > 0 {
            let n = c.read_plaintext(&mut b).unwrap();
            got.extend_from_slice(&b[..n]);
        }
    }
    assert_eq!(got.len(), 40_000);
    assert!(got.iter().all(|&b| b == 0x5a));
}

fn connect(ccfg: ClientConfig, scfg: &Arc<ServerConfig>) -> (Connection, Connection) {
    let mut c = Connection::client(Arc::new(ccfg), Some("localhost")).unwrap();
    let mut s = Connection::server(scfg.clone()).unwrap();
    pump(&mut c, &mut s).unwrap();
    (c, s)
}

#[test]
fn protocol_names() {
    assert_eq!(Protocol::from_name("TLS1.3").unwrap(), Protocol::Tls13);
    assert!(Protocol::NAMES.contains(&"tls1.3"));
    assert_eq!(Protocol::Tls13.name(), "TLSv1.3");
}

#[test]
fn both_suites_without_and_with_client_certificates() {
    for suite in CipherSuite::ALL {
        for client_auth in [false, true] {
            let mut scfg = server_cfg();
            scfg.suites = vec![suite];
            if client_auth {
                scfg.verify_mode = VerifyMode::Required;
                scfg.roots = certs("root-ca.pem");
            }
            let scfg = Arc::new(scfg);
            let mut ccfg = client_cfg();
            if client_auth {
                ccfg.sign_identity = Some(client_identity());
            }
            let (mut c, mut s) = connect(ccfg, &scfg);
            for side in [&c, &s] {
                assert!(!side.is_handshaking());
                assert_eq!(side.protocol_version(), Some("TLSv1.3"));
                assert_eq!(side.cipher_suite(), Some(suite));
                assert!(!side.session_resumed());
            }
            assert_eq!(c.peer_certificates().len(), 2, "leaf and intermediate");
            assert_eq!(s.server_name(), Some("localhost"));
            assert_eq!(c.server_name(), Some("localhost"));
            assert_eq!(s.peer_certificates().len(), if client_auth { 2 } else { 0 });
            exchange(&mut c, &mut s);
            c.send_close_notify();
            pump(&mut c, &mut s).unwrap();
            let mut b = [0u8; 8];
            assert_eq!(s.read_plaintext(&mut b).unwrap(), 0);
            assert!(s.peer_closed());
        }
    }
}

#[test]
fn required_client_certificate_missing_is_refused() {
    let mut scfg = server_cfg();
    scfg.verify_mode = VerifyMode::Required;
    scfg.roots = certs("root-ca.pem");
    let mut c = Connection::client(Arc::new(client_cfg()), Some("localhost")).unwrap();
    let mut s = Connection::server(Arc::new(scfg)).unwrap();
    let e = pump(&mut c, &mut s).unwrap_err();
    assert!(matches!(e, Error::CertificateVerify(_)), "{e:?}");
}

#[test]
fn resumption_by_ticket() {
    let scfg = Arc::new(server_cfg());
    let ccfg = Arc::new(client_cfg());
    let mut c = Connection::client(ccfg.clone(), Some("localhost")).unwrap();
    let mut s = Connection::server(scfg.clone()).unwrap();
    pump(&mut c, &mut s).unwrap();
    let session = c.session().expect("tickets after the handshake");
    assert_eq!(session.tickets_left(), 2);
    assert_eq!(session.cipher_suite(), CipherSuite::Sm4GcmSm3);
    assert!(s.session().is_none());

    let mut c2 = Connection::client_resume(ccfg.clone(), Some("localhost"), session.clone()).unwrap();
    let mut s2 = Connection::server(scfg.clone()).unwrap();
    pump(&mut c2, &mut s2).unwrap();
    assert!(c2.session_resumed() && s2.session_resumed());
    assert_eq!(session.tickets_left(), 1);
    assert_eq!(c2.peer_certificates().len(), 2, "the certificates of the resumed session");
    exchange(&mut c2, &mut s2);

    // Another server configuration (other ticket keys) declines: a full handshake.
    let other = Arc::new(server_cfg());
    let mut c3 = Connection::client_resume(ccfg.clone(), Some("localhost"), session.clone()).unwrap();
    let mut s3 = Connection::server(other).unwrap();
    pump(&mut c3, &mut s3).unwrap();
    assert!(!c3.session_resumed() && !s3.session_resumed());

    // A session is only offered to the name it was made for.
    let mut c4 = Connection::client_resume(ccfg, Some("tlcp.test"), c2.session().unwrap()).unwrap();
    let mut s4 = Connection::server(scfg).unwrap();
    pump(&mut c4, &mut s4).unwrap();
    assert!(!c4.session_resumed());
}

#[test]
fn host_name_mismatch_is_refused() {
    let scfg = Arc::new(server_cfg());
    let mut c = Connection::client(Arc::new(client_cfg()), Some("wrong.example")).unwrap();
    let mut s = Connection::server(scfg).unwrap();
    let e = pump(&mut c, &mut s).unwrap_err();
    let Error::CertificateVerify(m) = &e else { panic!("{e:?}") };
    assert!(m.contains("wrong.example"), "{m}");
    // The server hears why.
    let mut out = Vec::new();
    c.write_tls(&mut out);
    assert!(!c.is_handshaking() && c.protocol_version().is_none());
    // Without host name checking the same certificate is accepted.
    let mut ccfg = client_cfg();
    ccfg.check_hostname = false;
    let mut c = Connection::client(Arc::new(ccfg), Some("wrong.example")).unwrap();
    let mut s = Connection::server(Arc::new(server_cfg())).unwrap();
    pump(&mut c, &mut s).unwrap();
}

/// A configuration remembers chains it validated (no SM2 checks of the
/// same chain on the next handshake), but the host name is still checked
/// on every handshake, and another configuration remembers nothing.
#[test]
fn a_remembered_chain_still_has_its_host_name_checked() {
    let scfg = Arc::new(server_cfg());
    let ccfg = Arc::new(client_cfg());
    let mut c = Connection::client(ccfg.clone(), Some("localhost")).unwrap();
    let mut s = Connection::server(scfg.clone()).unwrap();
    pump(&mut c, &mut s).unwrap();
    let mut c = Connection::client(ccfg.clone(), Some("localhost")).unwrap();
    let mut s = Connection::server(scfg.clone()).unwrap();
    pump(&mut c, &mut s).unwrap();
    let mut c = Connection::client(ccfg, Some("wrong.example")).unwrap();
    let mut s = Connection::server(scfg.clone()).unwrap();
    let e = pump(&mut c, &mut s).unwrap_err();
    assert!(matches!(&e, Error::CertificateVerify(m) if m.contains("wrong.example")), "{e:?}");
    let mut other = client_cfg();
    other.roots = certs("other-ca.pem");
    let mut c = Connection::client(Arc::new(other), Some("localhost")).unwrap();
    let mut s = Connection::server(scfg).unwrap();
    assert!(matches!(pump(&mut c, &mut s).unwrap_err(), Error::CertificateVerify(_)));
}

#[test]
fn server_hears_the_alert() {
    let mut c = Connection::client(Arc::new(client_cfg()), Some("wrong.example")).unwrap();
    let mut s = Connection::server(Arc::new(server_cfg())).unwrap();
    let mut buf = Vec::new();
    c.write_tls(&mut buf);
    s.read_tls(&buf).unwrap();
    s.process_new_packets().unwrap();
    buf.clear();
    s.write_tls(&mut buf);
    c.read_tls(&buf).unwrap();
    assert!(matches!(c.process_new_packets(), Err(Error::CertificateVerify(_))));
    buf.clear();
    c.write_tls(&mut buf);
    s.read_tls(&buf).unwrap();
    let e = s.process_new_packets().unwrap_err();
    assert!(e.to_string().starts_with("received fatal alert: bad_certificate"), "{e}");
    // The same error from then on.
    assert_eq!(s.process_new_packets().unwrap_err().to_string(), e.to_string());
    assert!(s.write_plaintext(b"x").is_err());
}

fn refused(cert: &str, key: &str, chain: bool, want: &str) {
    let scfg = Arc::new(ServerConfig::new(identity(cert, key, chain)));
    let mut c = Connection::client(Arc::new(client_cfg()), Some("localhost")).unwrap();
    let mut s = Connection::server(scfg).unwrap();
    let e = pump(&mut c, &mut s).unwrap_err();
    let Error::CertificateVerify(m) = &e else { panic!("{cert}: {e:?}") };
    assert!(m.contains(want), "{cert}: {m}");
}

#[test]
fn untrusted_expired_and_wrong_key_usage_are_refused() {
    refused("server-sign-untrusted.pem", "server-sign-untrusted.key.pem", false, "untrusted issuer");
    refused("server-sign-expired.pem", "server-sign-expired.key.pem", true, "expired");
    refused("server-sign-wrong-ku.pem", "server-sign-wrong-ku.key.pem", true, "digitalSignature");
    // No intermediate sent and only the root trusted: no path.
    refused("server-sign.pem", "server-sign.key.pem", false, "untrusted issuer");
}

#[test]
fn verify_none_accepts_an_untrusted_server() {
    let scfg =
        Arc::new(ServerConfig::new(identity("server-sign-untrusted.pem", "server-sign-untrusted.key.pem", false)));
    let mut ccfg = client_cfg();
    ccfg.verify_mode = VerifyMode::None;
    let (c, _s) = connect(ccfg, &scfg);
    assert_eq!(c.protocol_version(), Some("TLSv1.3"));
}

#[test]
fn tampered_records_are_refused() {
    let scfg = Arc::new(server_cfg());
    for suite in CipherSuite::ALL {
        let mut ccfg = client_cfg();
        ccfg.suites = vec![suite];
        let (mut c, mut s) = connect(ccfg, &scfg);
        c.write_plaintext(b"application data").unwrap();
        let mut buf = Vec::new();
        c.write_tls(&mut buf);
        let last = buf.len() - 1;
        buf[last] ^= 1;
        s.read_tls(&buf).unwrap();
        let e = s.process_new_packets().unwrap_err();
        assert!(matches!(&e, Error::Tls(m) if m.contains("bad_record_mac")), "{e:?}");
        let mut b = [0u8; 32];
        assert!(s.read_plaintext(&mut b).is_err(), "no plaintext from a tampered record");
    }
}

#[test]
fn tampered_handshake_is_refused() {
    // Flip a byte of the server's encrypted flight (EncryptedExtensions
    // .. Finished): the client must refuse, never complete.
    let mut c = Connection::client(Arc::new(client_cfg()), Some("localhost")).unwrap();
    let mut s = Connection::server(Arc::new(server_cfg())).unwrap();
    let mut buf = Vec::new();
    c.write_tls(&mut buf);
    s.read_tls(&buf).unwrap();
    s.process_new_packets().unwrap();
    buf.clear();
    s.write_tls(&mut buf);
    let n = buf.len();
    buf[n - 5] ^= 0x80;
    c.read_tls(&buf).unwrap();
    assert!(c.process_new_packets().is_err());
    assert!(c.protocol_version().is_none());
}

#[test]
fn truncated_stream_is_not_data() {
    let scfg = Arc::new(server_cfg());
    let (mut c, mut s) = connect(client_cfg(), &scfg);
    c.write_plaintext(b"0123456789").unwrap();
    let mut buf = Vec::new();
    c.write_tls(&mut buf);
    s.read_tls(&buf[..buf.len() - 3]).unwrap();
    s.process_new_packets().unwrap();
    assert_eq!(s.plaintext_available(), 0);
    let mut b = [0u8; 16];
    assert_eq!(s.read_plaintext(&mut b).unwrap(), 0);
    assert!(!s.peer_closed());
}

/// A key exchange group the server does not support (X25519's code point
/// with a random share), so a client listing it first gets a
/// HelloRetryRequest for curveSM2.
#[derive(Debug)]
struct FakeX25519;

struct FakeShare([u8; 32]);

impl rustls::crypto::SupportedKxGroup for FakeX25519 {
    fn start(&self) -> Result<Box<dyn rustls::crypto::ActiveKeyExchange>, rustls::Error> {
        let mut b = [0u8; 32];
        shangmi::rand::fill(&mut b).unwrap();
        Ok(Box::new(FakeShare(b)))
    }
    fn name(&self) -> rustls::NamedGroup {
        rustls::NamedGroup::X25519
    }
}

impl rustls::crypto::ActiveKeyExchange for FakeShare {
    fn complete(self: Box<Self>, _peer: &[u8]) -> Result<rustls::crypto::SharedSecret, rustls::Error> {
        Err(rustls::Error::General("never chosen".into()))
    }
    fn pub_key(&self) -> &[u8] {
        &self.0
    }
    fn group(&self) -> rustls::NamedGroup {
        rustls::NamedGroup::X25519
    }
}

#[derive(Debug)]
struct AcceptAny;

impl rustls::client::danger::ServerCertVerifier for AcceptAny {
    fn verify_server_cert(
        &self,
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &[rustls::pki_types::CertificateDer<'_>],
        _: &rustls::pki_types::ServerName<'_>,
        _: &[u8],
        _: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        unreachable!()
    }
    fn verify_tls13_signature(
        &self,
        _: &[u8],
        _: &rustls::pki_types::CertificateDer<'_>,
        _: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        Ok(rustls::client::danger::HandshakeSignatureValid::assertion())
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        vec![tls13::SM2SIG_SM3]
    }
}

static FAKE_X25519: FakeX25519 = FakeX25519;

#[test]
fn hello_retry_request_when_another_group_comes_first() {
    let mut p = tls13::provider(&CipherSuite::ALL);
    p.kx_groups.insert(0, &FAKE_X25519);
    let rc = rustls::ClientConfig::builder_with_provider(Arc::new(p))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AcceptAny))
        .with_no_client_auth();
    let mut c = rustls::ClientConnection::new(Arc::new(rc), "localhost".try_into().unwrap()).unwrap();
    let mut s = Connection::server(Arc::new(server_cfg())).unwrap();
    let mut flights = 0;
    while c.is_handshaking() || c.wants_write() {
        let mut buf = Vec::new();
        while c.wants_write() {
            c.write_tls(&mut buf).unwrap();
        }
        if !buf.is_empty() {
            flights += 1;
            s.read_tls(&buf).unwrap();
            s.process_new_packets().unwrap();
        }
        let mut back = Vec::new();
        s.write_tls(&mut back);
        if back.is_empty() && buf.is_empty() {
            break;
        }
        if !back.is_empty() {
            c.read_tls(&mut &back[..]).unwrap();
            c.process_new_packets().unwrap();
        }
    }
    assert!(!c.is_handshaking() && !s.is_handshaking());
    // ClientHello, second ClientHello, Finished.
    assert_eq!(flights, 3);
    assert_eq!(c.negotiated_key_exchange_group().unwrap().name(), tls13::CURVE_SM2);
    assert_eq!(c.handshake_kind(), Some(rustls::HandshakeKind::FullWithHelloRetryRequest));
}

#[test]
fn hkdf_sm3_matches_an_independent_computation() {
    let h = common::hex;
    // RFC 5869 test cases 1, 2 and 3's inputs, with SM3 (values: see the file header).
    let ikm = [0x0bu8; 22];
    let salt: Vec<u8> = (0..13).collect();
    let info: Vec<u8> = (0xf0..0xfa).collect();
    assert_eq!(
        tls13::testing::hkdf_sm3(&salt, &ikm, &info, 42),
        h("c69fe91b7aaee2dd5718d72dcaee0cce93f1b8e41f792da51261b6a517e68b36ed2c595572b01dfa359b")
    );
    let ikm2: Vec<u8> = (0x00..0x50).collect();
    let salt2: Vec<u8> = (0x60..0xb0).collect();
    let info2: Vec<u8> = (0xb0..=0xff).collect();
    assert_eq!(
        tls13::testing::hkdf_sm3(&salt2, &ikm2, &info2, 82),
        h("c1226236bbdefa7921f9febe27b864f33e449201b436d8844ea53f58170dd6426defbd22ed1f3c5960f35523e62e3b6c0d657f2c61893436f539013199bfaef25aafd1e7726ede927623a9f5cbb8885c7e5d")
    );
    assert_eq!(
        tls13::testing::hkdf_sm3(&[], &ikm, &[], 42),
        h("c8c91a38ae2fb3b023a7c38ce9f0748f28230d59b6b950ba3ba949bf0d713a5774815778801741cb2034")
    );
}

#[test]
fn curve_sm2_shared_secret_matches_an_independent_computation() {
    let h = common::hex;
    let da = PrivateKey::from_bytes(&h("6fcba2ef9ae0ab902bc3bde3ff915d44ba4cc78f88e2f8e7f8996d3b8cceedee")).unwrap();
    let db = PrivateKey::from_bytes(&h("5e35d7d3f3c54dbac72e61819e730b019a84208ca3a35e4c2e353dfccb2a3b53")).unwrap();
    let pa = [&[4u8][..], &h("26f1f3ef122785d17d3870c2434650363fdf4b2f450e8ed1b60fdc1fc6f019abd9198bdbefa58476ec8225125b8ce3e10a100dc6976cc189d96da6889ebcd37a")].concat();
    let pb = [&[4u8][..], &h("9eafb2cef3c95526c686a6c961a247a1aee7fc2e802454227a012b083ac553f5e30eb411162cd81274bdaff97896f264171cad0743dfa5ad39dfe0d924b167f9")].concat();
    assert_eq!(da.public_key().to_bytes(false), pa);
    assert_eq!(db.public_key().to_bytes(false), pb);
    let want = h("f69a845f371a32d8bc3d9ee3ca1ef4a9477fe4338c54c771b35cbf653617d6ce");
    assert_eq!(&tls13::ecdh_x(&da, &pb).unwrap()[..], &want[..]);
    assert_eq!(&tls13::ecdh_x(&db, &pa).unwrap()[..], &want[..]);
    // Refused: compressed shares, off-curve points, the point at infinity's encoding.
    let compressed = db.public_key().to_bytes(true);
    assert!(tls13::ecdh_x(&da, &compressed).is_err());
    let mut off = pb.clone();
    off[64] ^= 1;
    assert!(tls13::ecdh_x(&da, &off).is_err());
    assert!(tls13::ecdh_x(&da, &[0u8]).is_err());
    assert!(tls13::ecdh_x(&da, &[0u8; 65]).is_err());
}
