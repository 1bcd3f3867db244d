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
//! - ECDHE ClientKeyExchange: ECParameters ‖ ECPoint, with a 2-byte length
//!   first as GB/T 38636-2020 6.4.5.8 (`opaque ClientECDHEParams<1..2^16-1>`)
//!   and GmSSL 3 write it, or bare as Tongsuo writes it (see
//!   [`Compat`] for which a client sends; a server accepts both). The pre-master is 48 bytes of the SM2 key exchange (GB/T
//!   32918.3) with the encryption keys as static keys, the server as
//!   initiator (Z_A) and the client as responder (Z_B), both IDs the
//!   default; no confirmation values (Tongsuo: "server is initiator(Z_A),
//!   client is responder(Z_B)"; GmSSL's client calls
//!   `sm2_key_exchange(0, ...)`).
//! - CertificateVerify: `<2-byte length>` SM2 signature with the default ID
//!   over SM3(handshake messages so far), i.e. e = SM3(Z ‖ SM3(messages)),
//!   as Tongsuo signs it (GM/T 0024's wording); GmSSL 3 signs the messages
//!   themselves (e = SM3(Z ‖ messages)). A server accepts either; a client
//!   sends the standard's unless [`Compat`] selects GmSSL's.
//! - Finished: PRF(master, "client finished" / "server finished",
//!   SM3(handshake messages))[..12].

use super::alert::{self, Fatal, HsResult};
use super::config::{Compat, Session};
use super::conn::{Connection, Side, State};
use super::messages as m;
use super::prf;
use super::record::RecordCipher;
use crate::encoding::sm2 as fmt;
use crate::sm2::{PrivateKey, PublicKey, DEFAULT_UID};
use crate::x509::Certificate;
use crate::{sm3, Error};
use subtle::ConstantTimeEq;

pub(super) fn internal(e: Error) -> Fatal {
    Fatal::internal(e)
}

/// e = SM3(Z ‖ msg) under the default ID.
pub(super) fn digest(pk: &PublicKey, msg: &[&[u8]]) -> HsResult<[u8; 32]> {
    let z = pk.z(DEFAULT_UID).map_err(internal)?;
    let mut h = sm3::Sm3::new();
    h.update(&z);
    for p in msg {
        h.update(p);
    }
    Ok(h.finalize())
}

pub(super) fn parse_signature(bytes: &[u8], what: &str) -> HsResult<crate::sm2::Signature> {
    fmt::signature_from_der(bytes)
        .map_err(|_| Fatal::new(alert::DECRYPT_ERROR, format!("{what}: the signature is not a DER SM2 signature")))
}

pub(super) fn key_of(c: &Certificate, what: &str) -> HsResult<PublicKey> {
    c.public_key()
        .cloned()
        .map_err(|e| Fatal::cert(alert::UNSUPPORTED_CERTIFICATE, format!("{what}: not an SM2 key: {e}")))
}

pub(super) fn is_ca(c: &Certificate) -> bool {
    matches!(c.basic_constraints(), Ok(Some((true, _))))
}

impl Connection {
    /// Signs e with `key`, the hedging seeds drawn from the connection's generator.
    pub(super) fn sign(&mut self, key: &PrivateKey, e: &[u8; 32]) -> HsResult<Vec<u8>> {
        let rng = &mut self.rng;
        let sig = key.sign_digest_seeded(e, &mut |b| rng.fill(b)).map_err(internal)?;
        Ok(fmt::signature_to_der(&sig))
    }

    pub(super) fn transcript_hash(&self) -> [u8; 32] {
        sm3::hash(&self.transcript)
    }

    /// The key block split into the two directions' record ciphers, as
    /// pending read and write states.
    pub(super) fn derive_keys(&mut self) -> HsResult<()> {
        let suite = self.suite.ok_or_else(|| internal(Error::invalid("no suite")))?;
        let master = self.master.as_ref().ok_or_else(|| internal(Error::invalid("no master secret")))?;
        let (client, server) = if suite.is_gcm() {
            let kb = prf::key_block(master, &self.client_random, &self.server_random, 40);
            (
                RecordCipher::gcm(&kb[0..16], &kb[32..36]).map_err(internal)?,
                RecordCipher::gcm(&kb[16..32], &kb[36..40]).map_err(internal)?,
            )
        } else {
            // MAC keys 32 + 32, then SM4 keys 16 + 16. The standard's fixed
            // IVs would follow; every record carries its own explicit IV, so
            // they are not derived (GmSSL derives these 96 bytes too).
            let kb = prf::key_block(master, &self.client_random, &self.server_random, 96);
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

    pub(super) fn send_finished(&mut self) -> HsResult<()> {
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
                let types = m::parse_certificate_request(body)?;
                self.cert_requested = true;
                self.compat = match &self.side {
                    Side::Client { cfg, .. } if cfg.compat != Compat::Auto => cfg.compat,
                    _ if types == [m::CERT_TYPE_ECDSA_SIGN] => Compat::GmSsl,
                    _ => Compat::Tongsuo,
                };
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

    pub(super) fn on_finished(&mut self, body: &[u8], msg: &[u8]) -> HsResult<()> {
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

    pub(super) fn session_for_cache(&self) -> Option<Session> {
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
}
