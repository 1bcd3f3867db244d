//! The handshake state machine of both roles (GB/T 38636-2020 section 6.4).
//!
//! Full handshake:
//! ```text
//! client                                server
//! ClientHello            -------->
//!                                       ServerHello
//!                                       Certificate (sign, enc, chain)
//!                                       ServerKeyExchange
//!                                       [CertificateRequest]
//!                        <--------      ServerHelloDone
//! [Certificate]
//! ClientKeyExchange
//! [CertificateVerify]
//! ChangeCipherSpec, Finished -------->
//!                        <--------      ChangeCipherSpec, Finished
//! ```
//! Session-ID resumption: ClientHello(id) → ServerHello(id), CCS, Finished
//! → CCS, Finished.
//!
//! What is signed and encrypted, as GmSSL 3 (src/tlcp.c) and Tongsuo
//! (ssl/statem_ntls) do it:
//! - ECC ServerKeyExchange: `signature<2-byte length>` = SM2 signature (DER,
//!   ID 1234567812345678) with the signing key over client_random ‖
//!   server_random ‖ enc_cert_length(3) ‖ enc_cert DER. GmSSL feeds exactly
//!   these four parts to `sm2_sign_update`; Tongsuo's `x509_to_asn1_ntls`
//!   builds the same 3-byte length ‖ DER and signs randoms ‖ that.
//! - ECDHE ServerKeyExchange: ECParameters ‖ ECPoint (03, 0x0029, 65-byte
//!   point, with a 1-byte length) then the signature over client_random ‖
//!   server_random ‖ those parameter bytes (both peers).
//! - ECC ClientKeyExchange: `<2-byte length>` GM/T 0009 DER SM2 ciphertext
//!   of the 48-byte pre-master secret (01 01 ‖ 46 random bytes) to the
//!   server's encryption certificate key.
//! - ECDHE ClientKeyExchange: ECParameters ‖ ECPoint as the standard and
//!   Tongsuo write it (GmSSL 3 puts a 2-byte length in front; we accept
//!   both). The pre-master is 48 bytes of the SM2 key exchange (GB/T
//!   32918.3) with the encryption keys as static keys, the server as
//!   initiator (Z_A) and the client as responder (Z_B), both IDs the
//!   default; no confirmation values (Tongsuo: "server is initiator(Z_A),
//!   client is responder(Z_B)"; GmSSL's client calls
//!   `sm2_key_exchange(0, ...)`).
//! - CertificateVerify: `<2-byte length>` SM2 signature with the default ID
//!   over SM3(handshake messages so far), i.e. e = SM3(Z ‖ SM3(messages)),
//!   as Tongsuo signs it (GM/T 0024's wording); GmSSL 3 signs the messages
//!   themselves (e = SM3(Z ‖ messages)). We send Tongsuo's form and accept
//!   either.
//! - Finished: PRF(master, "client finished" / "server finished",
//!   SM3(handshake messages))[..12].

use super::alert::{self, Fatal, HsResult};
use super::certs::{self, Check};
use super::config::Session;
use super::conn::{Connection, Side, State};
use super::messages::{self as m, ClientHello, Reader, ServerHello};
use super::prf;
use super::record::RecordCipher;
use super::suites::CipherSuite;
use super::VERSION;
use crate::encoding::sm2 as fmt;
use crate::sm2::{KeyExchange, PrivateKey, PublicKey, Role, DEFAULT_UID};
use crate::tls::VerifyMode;
use crate::x509::Certificate;
use crate::{sm3, Error};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

fn internal(e: Error) -> Fatal {
    Fatal::internal(e)
}

/// e = SM3(Z ‖ msg) under the default ID.
fn digest(pk: &PublicKey, msg: &[&[u8]]) -> HsResult<[u8; 32]> {
    let z = pk.z(DEFAULT_UID).map_err(internal)?;
    let mut h = sm3::Sm3::new();
    h.update(&z);
    for p in msg {
        h.update(p);
    }
    Ok(h.finalize())
}

fn parse_signature(bytes: &[u8], what: &str) -> HsResult<crate::sm2::Signature> {
    fmt::signature_from_der(bytes)
        .map_err(|_| Fatal::new(alert::DECRYPT_ERROR, format!("{what}: the signature is not a DER SM2 signature")))
}

fn key_of(c: &Certificate, what: &str) -> HsResult<PublicKey> {
    c.public_key()
        .cloned()
        .map_err(|e| Fatal::cert(alert::UNSUPPORTED_CERTIFICATE, format!("{what}: not an SM2 key: {e}")))
}

fn is_ca(c: &Certificate) -> bool {
    matches!(c.basic_constraints(), Ok(Some((true, _))))
}

impl Connection {
    /// Signs e with `key`, the hedging seeds drawn from the connection's generator.
    fn sign(&mut self, key: &PrivateKey, e: &[u8; 32]) -> HsResult<Vec<u8>> {
        let rng = &mut self.rng;
        let sig = key.sign_digest_seeded(e, &mut |b| rng.fill(b)).map_err(internal)?;
        Ok(fmt::signature_to_der(&sig))
    }

    fn transcript_hash(&self) -> [u8; 32] {
        sm3::hash(&self.transcript)
    }

    /// The key block split into the two directions' record ciphers, as
    /// pending read and write states.
    fn derive_keys(&mut self) -> HsResult<()> {
        let suite = self.suite.ok_or_else(|| internal(Error::invalid("no suite")))?;
        let master = self.master.as_ref().ok_or_else(|| internal(Error::invalid("no master secret")))?;
        let (client, server) = if suite.is_gcm() {
            let kb = prf::key_block(master, &self.client_random, &self.server_random, 40);
            (
                RecordCipher::gcm(&kb[0..16], &kb[32..36]).map_err(internal)?,
                RecordCipher::gcm(&kb[16..32], &kb[36..40]).map_err(internal)?,
            )
        } else {
            // mac 32 + 32, key 16 + 16, IV 16 + 16 (the fixed IVs are unused:
            // every record carries its own explicit IV).
            let kb = prf::key_block(master, &self.client_random, &self.server_random, 128);
            (
                RecordCipher::cbc(&kb[0..32], &kb[64..80]).map_err(internal)?,
                RecordCipher::cbc(&kb[32..64], &kb[80..96]).map_err(internal)?,
            )
        };
        if self.is_client() {
            self.pending_write = Some(client);
            self.pending_read = Some(server);
        } else {
            self.pending_write = Some(server);
            self.pending_read = Some(client);
        }
        Ok(())
    }

    fn send_finished(&mut self) -> HsResult<()> {
        let h = self.transcript_hash();
        let master = self.master.as_ref().ok_or_else(|| internal(Error::invalid("no master secret")))?;
        let vd = prf::verify_data(master, self.is_client(), &h);
        self.send_handshake(&m::handshake(m::FINISHED, &vd))
    }

    /// Dispatches one complete handshake message (header included).
    pub(crate) fn on_handshake(&mut self, typ: u8, msg: &[u8]) -> HsResult<()> {
        let body = &msg[4..];
        if self.state == State::Established {
            let renegotiation = if self.is_client() { typ == m::HELLO_REQUEST } else { typ == m::CLIENT_HELLO };
            return Err(if renegotiation {
                Fatal::new(alert::NO_RENEGOTIATION, "renegotiation refused: TLCP connections here never renegotiate")
            } else {
                Fatal::unexpected(format!("unexpected message: {} after the handshake", m::type_name(typ)))
            });
        }
        if typ == m::HELLO_REQUEST && self.is_client() {
            // During a handshake a HelloRequest is ignored (RFC 5246 7.4.1.1).
            return Ok(());
        }
        let expected: &[u8] = match self.state {
            State::ExpectServerHello => &[m::SERVER_HELLO],
            State::ExpectServerCertificate => &[m::CERTIFICATE],
            State::ExpectServerKeyExchange => &[m::SERVER_KEY_EXCHANGE],
            State::ExpectCertificateRequestOrDone => &[m::CERTIFICATE_REQUEST, m::SERVER_HELLO_DONE],
            State::ExpectServerHelloDone => &[m::SERVER_HELLO_DONE],
            State::ExpectClientHello => &[m::CLIENT_HELLO],
            State::ExpectClientCertificate => &[m::CERTIFICATE],
            State::ExpectClientKeyExchange => &[m::CLIENT_KEY_EXCHANGE],
            State::ExpectCertificateVerify => &[m::CERTIFICATE_VERIFY],
            State::ExpectFinished => &[m::FINISHED],
            State::ExpectChangeCipherSpec | State::Established => &[],
        };
        if !expected.contains(&typ) {
            return Err(Fatal::unexpected(format!(
                "unexpected message: {} while in state {:?}",
                m::type_name(typ),
                self.state
            )));
        }
        if typ == m::FINISHED {
            return self.on_finished(body, msg);
        }
        // CertificateVerify signs the transcript before itself.
        let before = if typ == m::CERTIFICATE_VERIFY { Some(self.transcript.clone()) } else { None };
        self.transcript.extend_from_slice(msg);
        match typ {
            m::SERVER_HELLO => self.on_server_hello(body),
            m::CERTIFICATE if self.is_client() => self.on_server_certificate(body),
            m::SERVER_KEY_EXCHANGE => self.on_server_key_exchange(body),
            m::CERTIFICATE_REQUEST => {
                m::parse_certificate_request(body)?;
                self.cert_requested = true;
                self.state = State::ExpectServerHelloDone;
                Ok(())
            }
            m::SERVER_HELLO_DONE => self.on_server_hello_done(body),
            m::CLIENT_HELLO => self.on_client_hello(body),
            m::CERTIFICATE => self.on_client_certificate(body),
            m::CLIENT_KEY_EXCHANGE => self.on_client_key_exchange(body),
            m::CERTIFICATE_VERIFY => self.on_certificate_verify(body, &before.unwrap_or_default()),
            _ => Err(Fatal::unexpected("unexpected handshake message")),
        }
    }

    // ---------------- client ----------------

    pub(crate) fn client_hello(&mut self) -> HsResult<()> {
        let Side::Client { cfg, resume } = &self.side else { return Err(internal(Error::invalid("not a client"))) };
        // ECDHE needs the client's encryption key (and GmSSL and Tongsuo
        // also require its signing certificate): offered only with both.
        let ecdhe_ok = cfg.sign_identity.is_some() && cfg.enc_identity.is_some();
        let suites: Vec<u16> = cfg.suites.iter().filter(|s| ecdhe_ok || !s.is_ecdhe()).map(|s| s.code()).collect();
        if suites.is_empty() {
            return Err(Fatal::new(
                alert::INTERNAL_ERROR,
                "no cipher suite to offer: ECDHE suites need the client's signing and encryption certificates \
                 (sign_identity, enc_identity)",
            ));
        }
        let session_id = resume.as_ref().map(|s| s.id.clone()).unwrap_or_default();
        let mut random = [0u8; 32];
        self.rng.fill(&mut random).map_err(internal)?;
        self.client_random = random;
        // SNI carries DNS names only (RFC 6066 section 3).
        let sni = self
            .server_name
            .clone()
            .filter(|n| n.trim_start_matches('[').trim_end_matches(']').parse::<std::net::IpAddr>().is_err());
        let hello = ClientHello { random, session_id, suites, server_name: sni };
        self.send_handshake(&hello.encode())
    }

    fn on_server_hello(&mut self, body: &[u8]) -> HsResult<()> {
        let sh = ServerHello::parse(body)?;
        if sh.version != VERSION {
            return Err(Fatal::new(
                alert::PROTOCOL_VERSION,
                format!("server chose protocol version 0x{:04x}; only TLCP 1.1 (0x0101) is supported", sh.version),
            ));
        }
        let Side::Client { cfg, resume } = &self.side else { return Err(internal(Error::invalid("not a client"))) };
        let ecdhe_ok = cfg.sign_identity.is_some() && cfg.enc_identity.is_some();
        let offered = |s: &CipherSuite| cfg.suites.contains(s) && (ecdhe_ok || !s.is_ecdhe());
        let suite = CipherSuite::from_code(sh.suite).filter(offered).ok_or_else(|| {
            Fatal::new(
                alert::ILLEGAL_PARAMETER,
                format!("server chose cipher suite 0x{:04x}, which was not offered", sh.suite),
            )
        })?;
        self.server_random = sh.random;
        self.suite = Some(suite);
        let resumed = match resume {
            Some(s) if !sh.session_id.is_empty() && sh.session_id == s.id => {
                if s.suite != suite {
                    return Err(Fatal::new(
                        alert::ILLEGAL_PARAMETER,
                        "server resumed a session with a different cipher suite",
                    ));
                }
                Some((s.master.clone(), s.peer_certificates.clone()))
            }
            _ => None,
        };
        self.session_id = sh.session_id;
        if let Some((master, certs)) = resumed {
            self.master = Some(master);
            self.peer_certs = certs;
            self.resumed = true;
            self.derive_keys()?;
            self.state = State::ExpectChangeCipherSpec;
        } else {
            self.state = State::ExpectServerCertificate;
        }
        Ok(())
    }

    fn on_server_certificate(&mut self, body: &[u8]) -> HsResult<()> {
        let ders = m::parse_certificate(body)?;
        if ders.len() < 2 {
            return Err(Fatal::cert(
                alert::BAD_CERTIFICATE,
                "server Certificate must carry the signing and the encryption certificate",
            ));
        }
        let certs = certs::parse_all(&ders)?;
        let Side::Client { cfg, .. } = &self.side else { return Err(internal(Error::invalid("not a client"))) };
        if cfg.verify_mode != VerifyMode::None {
            let host = if cfg.check_hostname { self.server_name.as_deref() } else { None };
            let check = Check { roots: &cfg.roots, uid: cfg.sm2_id.as_deref(), now: cfg.now, host };
            certs::validate(&certs[0], Some(&certs[1]), &certs[2..], &check)?;
        }
        self.peer_certs = certs;
        self.state = State::ExpectServerKeyExchange;
        Ok(())
    }

    fn on_server_key_exchange(&mut self, body: &[u8]) -> HsResult<()> {
        let suite = self.suite.ok_or_else(|| internal(Error::invalid("no suite")))?;
        let (Some(sign_cert), Some(enc_cert)) = (self.peer_certs.first(), self.peer_certs.get(1)) else {
            return Err(internal(Error::invalid("no server certificates")));
        };
        let sign_key = key_of(sign_cert, "server signing certificate")?;
        let mut r = Reader::new(body, "ServerKeyExchange");
        let e = if suite.is_ecdhe() {
            let start = body.len();
            let point = m::parse_ec_params(&mut r)?;
            let mut p = [0u8; 65];
            p.copy_from_slice(point);
            self.peer_ephemeral = Some(p);
            let params_len = start - r_remaining(&r);
            digest(&sign_key, &[&self.client_random, &self.server_random, &body[..params_len]])?
        } else {
            let enc = enc_cert.to_der();
            let mut len = Vec::new();
            m::put_u24(&mut len, enc.len());
            digest(&sign_key, &[&self.client_random, &self.server_random, &len, enc])?
        };
        let sig = r.vec16("signature")?;
        r.end()?;
        let sig = parse_signature(sig, "ServerKeyExchange")?;
        sign_key
            .verify_digest(&e, &sig)
            .map_err(|_| Fatal::new(alert::DECRYPT_ERROR, "ServerKeyExchange signature does not verify"))?;
        self.state = State::ExpectCertificateRequestOrDone;
        Ok(())
    }

    fn on_server_hello_done(&mut self, body: &[u8]) -> HsResult<()> {
        if !body.is_empty() {
            return Err(Fatal::decode("ServerHelloDone: body must be empty"));
        }
        let Side::Client { cfg, .. } = &self.side else { return Err(internal(Error::invalid("not a client"))) };
        let cfg = cfg.clone();
        let suite = self.suite.ok_or_else(|| internal(Error::invalid("no suite")))?;
        if suite.is_ecdhe() && (cfg.sign_identity.is_none() || cfg.enc_identity.is_none()) {
            return Err(Fatal::new(
                alert::HANDSHAKE_FAILURE,
                "handshake failure: ECDHE suites need the client's signing and encryption certificates",
            ));
        }
        // Certificate: sign, enc (when held), then the signing chain.
        let mut signs = false;
        if self.cert_requested {
            let mut ders: Vec<&[u8]> = Vec::new();
            if let Some(sign) = &cfg.sign_identity {
                ders.push(sign.chain[0].to_der());
                if let Some(enc) = &cfg.enc_identity {
                    ders.push(enc.chain[0].to_der());
                }
                ders.extend(sign.chain[1..].iter().map(|c| c.to_der()));
                signs = true;
            }
            self.send_handshake(&m::encode_certificate(&ders))?;
        }
        // ClientKeyExchange.
        let server_enc = key_of(
            self.peer_certs.get(1).ok_or_else(|| internal(Error::invalid("no server certificates")))?,
            "server encryption certificate",
        )?;
        let mut cke = Vec::new();
        let pms: Zeroizing<Vec<u8>> = if suite.is_ecdhe() {
            let enc = cfg.enc_identity.as_ref().ok_or_else(|| internal(Error::invalid("no enc identity")))?;
            let peer_point = self.peer_ephemeral.ok_or_else(|| internal(Error::invalid("no server ephemeral")))?;
            let rng = &mut self.rng;
            let mut kex =
                KeyExchange::new_from(Role::Responder, &enc.key, DEFAULT_UID, &server_enc, DEFAULT_UID, &mut |b| {
                    rng.fill(b)
                })
                .map_err(internal)?;
            let res = kex
                .compute(&peer_point, 48)
                .map_err(|e| Fatal::new(alert::ILLEGAL_PARAMETER, format!("ECDHE key exchange failed: {e}")))?;
            cke.extend_from_slice(&m::encode_ec_params(&kex.ephemeral_public()));
            Zeroizing::new(res.key.to_vec())
        } else {
            let mut pms = Zeroizing::new(vec![0u8; 48]);
            pms[0] = 0x01;
            pms[1] = 0x01;
            self.rng.fill(&mut pms[2..]).map_err(internal)?;
            let rng = &mut self.rng;
            let ct = server_enc.encrypt_from(&pms, &mut |b| rng.fill(b)).map_err(internal)?;
            let der = fmt::ciphertext_to_der(&ct).map_err(internal)?;
            m::put_vec16(&mut cke, &der);
            pms
        };
        self.send_handshake(&m::handshake(m::CLIENT_KEY_EXCHANGE, &cke))?;
        if signs {
            if let Some(sign) = &cfg.sign_identity {
                let h = self.transcript_hash();
                let e = digest(sign.key.public_key(), &[&h])?;
                let sig = self.sign(&sign.key, &e)?;
                let mut b = Vec::new();
                m::put_vec16(&mut b, &sig);
                self.send_handshake(&m::handshake(m::CERTIFICATE_VERIFY, &b))?;
            }
        }
        self.master = Some(prf::master_secret(&pms, &self.client_random, &self.server_random));
        self.derive_keys()?;
        self.send_change_cipher_spec()?;
        self.send_finished()?;
        self.state = State::ExpectChangeCipherSpec;
        Ok(())
    }

    fn on_finished(&mut self, body: &[u8], msg: &[u8]) -> HsResult<()> {
        let h = self.transcript_hash();
        let master = self.master.as_ref().ok_or_else(|| internal(Error::invalid("no master secret")))?;
        let expected = prf::verify_data(master, !self.is_client(), &h);
        if body.len() != 12 || !bool::from(expected.ct_eq(body)) {
            return Err(Fatal::new(
                alert::DECRYPT_ERROR,
                "Finished verify_data does not match: the handshake was tampered with or the keys differ",
            ));
        }
        self.transcript.extend_from_slice(msg);
        let client = self.is_client();
        if client == self.resumed {
            // Client of a resumption, server of a full handshake: our turn.
            self.send_change_cipher_spec()?;
            self.send_finished()?;
        }
        if !client && !self.resumed {
            if let (Side::Server { cfg }, Some(s)) = (&self.side, self.session_for_cache()) {
                cfg.session_cache.put(s);
            }
        }
        self.state = State::Established;
        self.transcript = Vec::new();
        Ok(())
    }

    fn session_for_cache(&self) -> Option<Session> {
        if self.session_id.is_empty() {
            return None;
        }
        Some(Session {
            id: self.session_id.clone(),
            master: self.master.clone()?,
            suite: self.suite?,
            peer_certificates: self.peer_certs.clone(),
            server_name: self.server_name.clone(),
        })
    }

    // ---------------- server ----------------

    fn on_client_hello(&mut self, body: &[u8]) -> HsResult<()> {
        let (version, ch) = ClientHello::parse(body)?;
        if version != VERSION {
            return Err(Fatal::new(
                alert::PROTOCOL_VERSION,
                format!("client offered protocol version 0x{version:04x}; only TLCP 1.1 (0x0101) is supported"),
            ));
        }
        let Side::Server { cfg } = &self.side else { return Err(internal(Error::invalid("not a server"))) };
        let cfg = cfg.clone();
        self.client_random = ch.random;
        self.server_name = ch.server_name;
        let mut random = [0u8; 32];
        self.rng.fill(&mut random).map_err(internal)?;
        self.server_random = random;
        // Resumption: a cached session whose suite the client still offers.
        let cached = if ch.session_id.is_empty() { None } else { cfg.session_cache.get(&ch.session_id) };
        if let Some(s) = cached.filter(|s| ch.suites.contains(&s.suite.code()) && cfg.suites.contains(&s.suite)) {
            self.suite = Some(s.suite);
            self.session_id = s.id.clone();
            self.master = Some(s.master.clone());
            self.peer_certs = s.peer_certificates.clone();
            self.resumed = true;
            let sh = ServerHello { version: VERSION, random, session_id: s.id.clone(), suite: s.suite.code() };
            self.send_handshake(&sh.encode())?;
            self.derive_keys()?;
            self.send_change_cipher_spec()?;
            self.send_finished()?;
            self.state = State::ExpectChangeCipherSpec;
            return Ok(());
        }
        let suite = cfg
            .suites
            .iter()
            .copied()
            .find(|s| ch.suites.contains(&s.code()))
            .ok_or_else(|| Fatal::new(alert::HANDSHAKE_FAILURE, "handshake failure: no common cipher suite"))?;
        self.suite = Some(suite);
        let mut id = vec![0u8; 32];
        self.rng.fill(&mut id).map_err(internal)?;
        self.session_id = id.clone();
        let sh = ServerHello { version: VERSION, random, session_id: id, suite: suite.code() };
        self.send_handshake(&sh.encode())?;
        // Certificate: sign, enc, then the signing certificate's chain.
        let mut ders: Vec<&[u8]> = vec![cfg.sign_identity.chain[0].to_der(), cfg.enc_identity.chain[0].to_der()];
        ders.extend(cfg.sign_identity.chain[1..].iter().map(|c| c.to_der()));
        self.send_handshake(&m::encode_certificate(&ders))?;
        // ServerKeyExchange.
        let mut ske = Vec::new();
        let e = if suite.is_ecdhe() {
            let mut seed = Zeroizing::new([0u8; 64]);
            self.rng.fill(&mut seed[..]).map_err(internal)?;
            let own = &cfg.enc_identity.key;
            let point = ephemeral_point(own, &seed)?;
            self.ephemeral_seed = Some(seed);
            ske = m::encode_ec_params(&point);
            digest(cfg.sign_identity.key.public_key(), &[&self.client_random, &self.server_random, &ske])?
        } else {
            let enc = cfg.enc_identity.chain[0].to_der();
            let mut len = Vec::new();
            m::put_u24(&mut len, enc.len());
            digest(cfg.sign_identity.key.public_key(), &[&self.client_random, &self.server_random, &len, enc])?
        };
        let sig = self.sign(&cfg.sign_identity.key, &e)?;
        m::put_vec16(&mut ske, &sig);
        self.send_handshake(&m::handshake(m::SERVER_KEY_EXCHANGE, &ske))?;
        self.cert_requested = cfg.verify_mode != VerifyMode::None || suite.is_ecdhe();
        if self.cert_requested {
            self.send_handshake(&m::encode_certificate_request())?;
        }
        self.send_handshake(&m::handshake(m::SERVER_HELLO_DONE, &[]))?;
        self.state = if self.cert_requested { State::ExpectClientCertificate } else { State::ExpectClientKeyExchange };
        Ok(())
    }

    fn on_client_certificate(&mut self, body: &[u8]) -> HsResult<()> {
        let Side::Server { cfg } = &self.side else { return Err(internal(Error::invalid("not a server"))) };
        let cfg = cfg.clone();
        let ecdhe = self.suite.is_some_and(|s| s.is_ecdhe());
        let ders = m::parse_certificate(body)?;
        if ders.is_empty() {
            if cfg.verify_mode == VerifyMode::Required || ecdhe {
                return Err(Fatal::cert(
                    alert::HANDSHAKE_FAILURE,
                    "peer did not return a certificate: a client certificate is required",
                ));
            }
            self.state = State::ExpectClientKeyExchange;
            return Ok(());
        }
        let certs = certs::parse_all(&ders)?;
        if ecdhe && certs.len() < 2 {
            return Err(Fatal::cert(
                alert::BAD_CERTIFICATE,
                "client Certificate must carry the signing and the encryption certificate in ECDHE suites",
            ));
        }
        // The second certificate is the encryption certificate when it is
        // not a CA (an ECC client may send its signing chain alone).
        let has_enc = certs.len() >= 2 && (ecdhe || !is_ca(&certs[1]));
        if cfg.verify_mode != VerifyMode::None {
            let check = Check { roots: &cfg.roots, uid: None, now: cfg.now, host: None };
            let (enc, rest) = if has_enc { (Some(&certs[1]), &certs[2..]) } else { (None, &certs[1..]) };
            certs::validate(&certs[0], enc, rest, &check)?;
        }
        self.peer_certs = certs;
        self.client_sent_cert = true;
        self.state = State::ExpectClientKeyExchange;
        Ok(())
    }

    fn on_client_key_exchange(&mut self, body: &[u8]) -> HsResult<()> {
        let Side::Server { cfg } = &self.side else { return Err(internal(Error::invalid("not a server"))) };
        let cfg = cfg.clone();
        let suite = self.suite.ok_or_else(|| internal(Error::invalid("no suite")))?;
        let pms: Zeroizing<Vec<u8>> = if suite.is_ecdhe() {
            // The standard's ECParameters ‖ ECPoint, or GmSSL's with a 2-byte length first.
            let inner = if body.first() == Some(&m::NAMED_CURVE) {
                body
            } else {
                let mut r = Reader::new(body, "ClientKeyExchange");
                let v = r.vec16("ECDHE parameters")?;
                r.end()?;
                v
            };
            let mut r = Reader::new(inner, "ClientKeyExchange");
            let point = m::parse_ec_params(&mut r)?;
            r.end()?;
            let client_enc = key_of(
                self.peer_certs
                    .get(1)
                    .ok_or_else(|| Fatal::new(alert::HANDSHAKE_FAILURE, "ECDHE: no client encryption certificate"))?,
                "client encryption certificate",
            )?;
            let seed = self.ephemeral_seed.take().ok_or_else(|| internal(Error::invalid("no ephemeral")))?;
            let mut kex = replay_kex(&cfg.enc_identity.key, &client_enc, &seed)?;
            let res = kex
                .compute(point, 48)
                .map_err(|e| Fatal::new(alert::ILLEGAL_PARAMETER, format!("ECDHE key exchange failed: {e}")))?;
            Zeroizing::new(res.key.to_vec())
        } else {
            let mut r = Reader::new(body, "ClientKeyExchange");
            let der = r.vec16("encrypted pre-master secret")?;
            r.end()?;
            // A failed decryption continues with a random pre-master, so the
            // handshake fails at Finished, indistinguishably (RFC 5246 7.4.7.1).
            let mut fake = Zeroizing::new(vec![0u8; 48]);
            self.rng.fill(&mut fake).map_err(internal)?;
            let got = fmt::ciphertext_from_der(der).ok().and_then(|ct| cfg.enc_identity.key.decrypt(&ct).ok());
            match got {
                Some(p) if p.len() == 48 => Zeroizing::new(p),
                _ => fake,
            }
        };
        self.master = Some(prf::master_secret(&pms, &self.client_random, &self.server_random));
        self.derive_keys()?;
        self.state = if self.client_sent_cert { State::ExpectCertificateVerify } else { State::ExpectChangeCipherSpec };
        Ok(())
    }

    fn on_certificate_verify(&mut self, body: &[u8], before: &[u8]) -> HsResult<()> {
        let mut r = Reader::new(body, "CertificateVerify");
        let sig = r.vec16("signature")?;
        r.end()?;
        let sig = parse_signature(sig, "CertificateVerify")?;
        let pk = key_of(
            self.peer_certs.first().ok_or_else(|| internal(Error::invalid("no client certificate")))?,
            "client signing certificate",
        )?;
        let h = sm3::hash(before);
        let tongsuo = digest(&pk, &[&h])?;
        let gmssl = digest(&pk, &[before])?;
        if pk.verify_digest(&tongsuo, &sig).is_err() && pk.verify_digest(&gmssl, &sig).is_err() {
            return Err(Fatal::new(alert::DECRYPT_ERROR, "CertificateVerify signature does not verify"));
        }
        self.state = State::ExpectChangeCipherSpec;
        Ok(())
    }
}

fn r_remaining(r: &Reader<'_>) -> usize {
    r.remaining()
}

/// The server's ECDHE ephemeral point from its 64-byte seed.
fn ephemeral_point(own: &PrivateKey, seed: &[u8; 64]) -> HsResult<[u8; 65]> {
    Ok(replay_kex(own, own.public_key(), seed)?.ephemeral_public())
}

/// The server's (initiator's) key exchange with the ephemeral drawn from
/// `seed`: the same scalar for the point sent in ServerKeyExchange and the
/// computation after the client's certificate arrived.
fn replay_kex(own: &PrivateKey, peer: &PublicKey, seed: &[u8; 64]) -> HsResult<KeyExchange> {
    let mut used = false;
    KeyExchange::new_from(Role::Initiator, own, DEFAULT_UID, peer, DEFAULT_UID, &mut |b| {
        if used || b.len() != 64 {
            return Err(Error::invalid("ephemeral seed gives a zero scalar"));
        }
        used = true;
        b.copy_from_slice(seed);
        Ok(())
    })
    .map_err(internal)
}
