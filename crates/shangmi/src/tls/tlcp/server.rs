//! The server's side of the handshake (see `handshake` for the flow and
//! the exact bytes signed and encrypted).

use super::alert::{self, Fatal, HsResult};
use super::certs::{self, Check};
use super::conn::{Connection, Side, State};
use super::handshake::{digest, internal, is_ca, key_of, parse_signature};
use super::messages::{self as m, ClientHello, Reader, ServerHello};
use super::prf;
use super::VERSION;
use crate::encoding::sm2 as fmt;
use crate::sm2::{KeyExchange, PrivateKey, PublicKey, Role, DEFAULT_UID};
use crate::tls::VerifyMode;
use crate::{sm3, Error};
use zeroize::Zeroizing;

impl Connection {
    pub(super) fn on_client_hello(&mut self, body: &[u8]) -> HsResult<()> {
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
            // The trust anchors' subjects, as OpenSSL's client CA list:
            // GmSSL's client answers only when its issuer is named.
            let names: Vec<&[u8]> = cfg.roots.iter().map(|c| c.subject().to_der()).collect();
            self.send_handshake(&m::encode_certificate_request(&names))?;
        }
        self.send_handshake(&m::handshake(m::SERVER_HELLO_DONE, &[]))?;
        self.state = if self.cert_requested { State::ExpectClientCertificate } else { State::ExpectClientKeyExchange };
        Ok(())
    }

    pub(super) fn on_client_certificate(&mut self, body: &[u8]) -> HsResult<()> {
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
            let check = Check { roots: &cfg.roots, uid: None, now: cfg.now, host: None, cache: Some(&cfg.validated) };
            let (enc, rest) = if has_enc { (Some(&certs[1]), &certs[2..]) } else { (None, &certs[1..]) };
            certs::validate(&certs[0], enc, rest, &check)?;
        }
        self.peer_certs = certs;
        self.client_sent_cert = true;
        self.state = State::ExpectClientKeyExchange;
        Ok(())
    }

    pub(super) fn on_client_key_exchange(&mut self, body: &[u8]) -> HsResult<()> {
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

    pub(super) fn on_certificate_verify(&mut self, body: &[u8], before: &[u8]) -> HsResult<()> {
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
