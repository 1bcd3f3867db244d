//! The client's side of the handshake (see `handshake` for the flow and
//! the exact bytes signed and encrypted).

use super::alert::{self, Fatal, HsResult};
use super::certs::{self, Check};
use super::conn::{Connection, Side, State};
use super::handshake::{digest, internal, key_of, parse_signature};
use super::messages::{self as m, ClientHello, Reader, ServerHello};
use super::prf;
use super::suites::CipherSuite;
use super::VERSION;
use crate::encoding::sm2 as fmt;
use crate::sm2::{KeyExchange, Role, DEFAULT_UID};
use crate::tls::VerifyMode;
use crate::Error;
use zeroize::Zeroizing;

impl Connection {
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

    pub(super) fn on_server_hello(&mut self, body: &[u8]) -> HsResult<()> {
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

    pub(super) fn on_server_certificate(&mut self, body: &[u8]) -> HsResult<()> {
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
            let check = Check {
                roots: &cfg.roots,
                uid: cfg.sm2_id.as_deref(),
                now: cfg.now,
                host,
                cache: Some(&cfg.validated),
            };
            certs::validate(&certs[0], Some(&certs[1]), &certs[2..], &check)?;
        }
        self.peer_certs = certs;
        self.state = State::ExpectServerKeyExchange;
        Ok(())
    }

    pub(super) fn on_server_key_exchange(&mut self, body: &[u8]) -> HsResult<()> {
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
            let params_len = start - r.remaining();
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

    pub(super) fn on_server_hello_done(&mut self, body: &[u8]) -> HsResult<()> {
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
        // Certificate: sign, enc (when held, and always for ECDHE), then the
        // signing chain; GmSSL-shaped servers take an ECC client's signing
        // chain alone (they read a second certificate as a CA).
        let compat = self.compat;
        let mut signs = false;
        if self.cert_requested {
            let mut ders: Vec<&[u8]> = Vec::new();
            if let Some(sign) = &cfg.sign_identity {
                ders.push(sign.chain[0].to_der());
                if let Some(enc) = cfg.enc_identity.as_ref().filter(|_| suite.is_ecdhe() || !compat.ecc_single_chain())
                {
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
            let params = m::encode_ec_params(&kex.ephemeral_public());
            if compat.cke_length_prefix() {
                m::put_vec16(&mut cke, &params);
            } else {
                cke.extend_from_slice(&params);
            }
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
                let e = if compat.verify_raw_messages() {
                    digest(sign.key.public_key(), &[&self.transcript])?
                } else {
                    digest(sign.key.public_key(), &[&self.transcript_hash()])?
                };
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
}
