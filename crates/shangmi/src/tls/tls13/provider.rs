//! The rustls `CryptoProvider` made of shangmi's primitives (RFC 8998):
//! SM3 as the transcript hash, HKDF over HMAC-SM3 for the key schedule,
//! SM4-GCM and SM4-CCM as the record AEADs, curveSM2 ECDHE, sm2sig_sm3
//! signatures, and the OS random source.

use super::rng::Source;
use super::suites::CipherSuite;
use crate::encoding::sm2::{signature_from_der, signature_to_der};
use crate::sm2::{PrivateKey, PublicKey};
use crate::sm3::{HmacSm3, Sm3};
use crate::sm4::{Ccm, Gcm};
use rustls::crypto::cipher::{
    make_tls13_aad, AeadKey, InboundOpaqueMessage, InboundPlainMessage, Iv, MessageDecrypter, MessageEncrypter, Nonce,
    OutboundOpaqueMessage, OutboundPlainMessage, PrefixedPayload, Tls13AeadAlgorithm, UnsupportedOperationError,
};
use rustls::crypto::hash::HashAlgorithm;
use rustls::crypto::tls13::HkdfUsingHmac;
use rustls::crypto::{
    hash, hmac, ActiveKeyExchange, CipherSuiteCommon, CryptoProvider, GetRandomFailed, KeyProvider, SecureRandom,
    SharedSecret, SupportedKxGroup, WebPkiSupportedAlgorithms,
};
use rustls::pki_types::PrivateKeyDer;
use rustls::{
    ConnectionTrafficSecrets, ContentType, NamedGroup, ProtocolVersion, SignatureAlgorithm, SignatureScheme,
    SupportedCipherSuite, Tls13CipherSuite,
};
use std::sync::Arc;
use zeroize::Zeroizing;

/// curveSM2 (RFC 8998 §2), not named by rustls 0.23.
pub const CURVE_SM2: NamedGroup = NamedGroup::Unknown(0x0029);
/// sm2sig_sm3 (RFC 8998 §2), not named by rustls 0.23.
pub const SM2SIG_SM3: SignatureScheme = SignatureScheme::Unknown(0x0708);
/// The SM2 user ID of every TLS 1.3 CertificateVerify signature (RFC 8998
/// §3.2.1); GmSSL (`TLS13_SM2_ID`), Tongsuo (`HANDSHAKE_SM2_ID`) and OpenSSL
/// 4 use the same 23 bytes, without a terminating NUL.
pub const TLS13_SM2_ID: &[u8] = b"TLSv1.3+GM+Cipher+Suite";

/// SM3 has no `HashAlgorithm` code point (it is never signed with in the
/// TLS 1.2 sense); rustls only compares it for resumption compatibility.
const SM3_HASH_ALG: HashAlgorithm = HashAlgorithm::Unknown(0x07);

fn err(msg: impl Into<String>) -> rustls::Error {
    rustls::Error::General(msg.into())
}

// ---- SM3 ----

struct Sm3Hash;

struct Sm3Context(Sm3);

impl hash::Hash for Sm3Hash {
    fn start(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context(Sm3::new()))
    }
    fn hash(&self, data: &[u8]) -> hash::Output {
        hash::Output::new(&crate::sm3::hash(data))
    }
    fn output_len(&self) -> usize {
        32
    }
    fn algorithm(&self) -> HashAlgorithm {
        SM3_HASH_ALG
    }
}

impl hash::Context for Sm3Context {
    fn fork_finish(&self) -> hash::Output {
        hash::Output::new(&self.0.digest())
    }
    fn fork(&self) -> Box<dyn hash::Context> {
        Box::new(Sm3Context(self.0.clone()))
    }
    fn finish(self: Box<Self>) -> hash::Output {
        hash::Output::new(&self.0.finalize())
    }
    fn update(&mut self, data: &[u8]) {
        self.0.update(data)
    }
}

// ---- HMAC-SM3 and HKDF ----

/// HMAC-SM3 as rustls's `Hmac` (HKDF-SM3 is rustls's `HkdfUsingHmac` over it).
pub(crate) struct HmacSm3Alg;

struct HmacSm3Key(HmacSm3);

impl hmac::Hmac for HmacSm3Alg {
    fn with_key(&self, key: &[u8]) -> Box<dyn hmac::Key> {
        Box::new(HmacSm3Key(HmacSm3::new(key)))
    }
    fn hash_output_len(&self) -> usize {
        32
    }
}

impl hmac::Key for HmacSm3Key {
    fn sign_concat(&self, first: &[u8], middle: &[&[u8]], last: &[u8]) -> hmac::Tag {
        let mut m = self.0.clone();
        m.update(first);
        for part in middle {
            m.update(part);
        }
        m.update(last);
        let mut t = m.finalize();
        let tag = hmac::Tag::new(&t);
        zeroize::Zeroize::zeroize(&mut t);
        tag
    }
    fn tag_len(&self) -> usize {
        32
    }
}

pub(crate) static HMAC_SM3: HmacSm3Alg = HmacSm3Alg;
/// HKDF-SM3 (RFC 5869 over HMAC-SM3).
pub(crate) static HKDF_SM3: HkdfUsingHmac<'static> = HkdfUsingHmac(&HMAC_SM3);
static SM3_HASH: Sm3Hash = Sm3Hash;

// ---- SM4-GCM / SM4-CCM records ----

#[derive(Clone, Copy)]
enum Mode {
    Gcm,
    Ccm,
}

struct Sm4Aead(Mode);

enum Sealer {
    // Boxed: the expanded keys (and GCM's GHASH tables) are large.
    Gcm(Box<Gcm>),
    Ccm(Box<Ccm>),
}

/// One direction's record protection: the key, the 12-byte static IV (the
/// per-record nonce is IV XOR the 64-bit sequence number, RFC 8446 §5.3)
/// and a 16-byte tag.
struct Sm4Record {
    sealer: Sealer,
    iv: Iv,
}

const TAG_LEN: usize = 16;

impl Sm4Record {
    fn new(mode: Mode, key: &AeadKey, iv: Iv) -> Self {
        // The key schedule hands out exactly key_len() = 16 bytes.
        let sealer = match mode {
            Mode::Gcm => Gcm::new(key.as_ref(), TAG_LEN).map(|g| Sealer::Gcm(Box::new(g))),
            Mode::Ccm => Ccm::new(key.as_ref(), TAG_LEN).map(|c| Sealer::Ccm(Box::new(c))),
        };
        let sealer = sealer.unwrap_or_else(|_| unreachable!("SM4 record keys are 16 bytes, tags 16 bytes"));
        Sm4Record { sealer, iv }
    }
}

impl Tls13AeadAlgorithm for Sm4Aead {
    fn encrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageEncrypter> {
        Box::new(Sm4Record::new(self.0, &key, iv))
    }
    fn decrypter(&self, key: AeadKey, iv: Iv) -> Box<dyn MessageDecrypter> {
        Box::new(Sm4Record::new(self.0, &key, iv))
    }
    fn key_len(&self) -> usize {
        16
    }
    fn extract_keys(&self, _key: AeadKey, _iv: Iv) -> Result<ConnectionTrafficSecrets, UnsupportedOperationError> {
        // rustls's secret-extraction enum has no SM4 variant (kTLS cannot take SM4 keys this way).
        Err(UnsupportedOperationError)
    }
}

impl MessageEncrypter for Sm4Record {
    fn encrypt(&mut self, msg: OutboundPlainMessage<'_>, seq: u64) -> Result<OutboundOpaqueMessage, rustls::Error> {
        let total_len = self.encrypted_payload_len(msg.payload.len());
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls13_aad(total_len);
        let mut payload = PrefixedPayload::with_capacity(total_len);
        match &self.sealer {
            Sealer::Gcm(g) => {
                payload.extend_from_chunks(&msg.payload);
                payload.extend_from_slice(&msg.typ.to_array());
                let tag = g
                    .encrypt_in_place_detached(&nonce, &aad, payload.as_mut())
                    .map_err(|_| rustls::Error::EncryptError)?;
                payload.extend_from_slice(&tag);
            }
            Sealer::Ccm(c) => {
                let mut inner = Zeroizing::new(msg.payload.to_vec());
                inner.extend_from_slice(&msg.typ.to_array());
                let ct = c.encrypt(&nonce, &aad, &inner).map_err(|_| rustls::Error::EncryptError)?;
                payload.extend_from_slice(&ct);
            }
        }
        Ok(OutboundOpaqueMessage::new(ContentType::ApplicationData, ProtocolVersion::TLSv1_2, payload))
    }

    fn encrypted_payload_len(&self, payload_len: usize) -> usize {
        payload_len + 1 + TAG_LEN
    }
}

impl MessageDecrypter for Sm4Record {
    fn decrypt<'a>(
        &mut self,
        mut msg: InboundOpaqueMessage<'a>,
        seq: u64,
    ) -> Result<InboundPlainMessage<'a>, rustls::Error> {
        let payload = &mut msg.payload;
        let len = payload.len();
        if len < TAG_LEN {
            return Err(rustls::Error::DecryptError);
        }
        let nonce = Nonce::new(&self.iv, seq).0;
        let aad = make_tls13_aad(len);
        let plain_len = len - TAG_LEN;
        match &self.sealer {
            Sealer::Gcm(g) => {
                let (body, tag) = payload.split_at_mut(plain_len);
                g.decrypt_in_place_detached(&nonce, &aad, body, tag).map_err(|_| rustls::Error::DecryptError)?;
            }
            Sealer::Ccm(c) => {
                let plain = Zeroizing::new(c.decrypt(&nonce, &aad, payload).map_err(|_| rustls::Error::DecryptError)?);
                payload[..plain_len].copy_from_slice(&plain);
            }
        }
        payload.truncate(plain_len);
        msg.into_tls13_unpadded_message()
    }
}

static SM4_GCM: Sm4Aead = Sm4Aead(Mode::Gcm);
static SM4_CCM: Sm4Aead = Sm4Aead(Mode::Ccm);

/// TLS_SM4_GCM_SM3 (0x00C6).
pub static TLS_SM4_GCM_SM3: Tls13CipherSuite = Tls13CipherSuite {
    common: CipherSuiteCommon {
        suite: rustls::CipherSuite::Unknown(0x00C6),
        hash_provider: &SM3_HASH,
        // A 128-bit block cipher in GCM: the AES-GCM bound (2^24 full records).
        confidentiality_limit: 1 << 24,
    },
    hkdf_provider: &HKDF_SM3,
    aead_alg: &SM4_GCM,
    quic: None,
};

/// TLS_SM4_CCM_SM3 (0x00C7).
pub static TLS_SM4_CCM_SM3: Tls13CipherSuite = Tls13CipherSuite {
    common: CipherSuiteCommon {
        suite: rustls::CipherSuite::Unknown(0x00C7),
        hash_provider: &SM3_HASH,
        // The AES-CCM bound of RFC 9147 appendix B (2^23 full records).
        confidentiality_limit: 1 << 23,
    },
    hkdf_provider: &HKDF_SM3,
    aead_alg: &SM4_CCM,
    quic: None,
};

/// The rustls suite of `s`.
pub(crate) fn rustls_suite(s: CipherSuite) -> SupportedCipherSuite {
    match s {
        CipherSuite::Sm4GcmSm3 => SupportedCipherSuite::Tls13(&TLS_SM4_GCM_SM3),
        CipherSuite::Sm4CcmSm3 => SupportedCipherSuite::Tls13(&TLS_SM4_CCM_SM3),
    }
}

// ---- curveSM2 key exchange ----

/// curveSM2 ECDHE (RFC 8998 §3.1): uncompressed 65-byte key shares, the
/// shared secret is the x-coordinate of d·Q.
#[derive(Debug)]
pub(crate) struct CurveSm2(Source);

struct CurveSm2Active {
    key: PrivateKey,
    public: [u8; 65],
}

/// x(d·Q) for our key d and the peer's point Q (any encoding
/// [`PublicKey::from_bytes`] accepts is refused unless uncompressed:
/// TLS 1.3 key shares are 04‖x‖y). The point is validated (coordinates
/// below p, on the curve, not infinity) and the multiplication is the
/// constant-time variable-base one; the shared point is never infinity
/// for a valid Q (prime order, d in [1, n−2]) but is checked anyway.
pub fn ecdh_x(own: &PrivateKey, peer: &[u8]) -> crate::Result<Zeroizing<[u8; 32]>> {
    if peer.len() != 65 || peer[0] != 4 {
        return Err(crate::Error::Tls(format!(
            "curveSM2 key share must be 65 bytes 04||x||y (RFC 8998), got {} bytes",
            peer.len()
        )));
    }
    let q = PublicKey::from_bytes(peer).map_err(|e| crate::Error::Tls(format!("curveSM2 key share: {e}")))?;
    let d = Zeroizing::new(own.scalar().to_canonical());
    let s = crate::sm2::ecmult_const::mul(q.point(), &d);
    drop(d);
    let (a, inf) = s.to_affine_masked();
    if crate::ctime::public_bool(inf) {
        return Err(crate::Error::Tls("curveSM2 shared point is the point at infinity".into()));
    }
    Ok(Zeroizing::new(a.x.to_be_bytes()))
}

impl SupportedKxGroup for CurveSm2 {
    fn start(&self) -> Result<Box<dyn ActiveKeyExchange>, rustls::Error> {
        let key = self.0.sm2_key().map_err(|_| rustls::Error::FailedToGetRandomBytes)?;
        let mut public = [0u8; 65];
        public.copy_from_slice(&key.public_key().to_bytes(false));
        Ok(Box::new(CurveSm2Active { key, public }))
    }
    fn name(&self) -> NamedGroup {
        CURVE_SM2
    }
    fn usable_for_version(&self, v: ProtocolVersion) -> bool {
        v == ProtocolVersion::TLSv1_3
    }
}

impl ActiveKeyExchange for CurveSm2Active {
    fn complete(self: Box<Self>, peer_pub_key: &[u8]) -> Result<SharedSecret, rustls::Error> {
        let x = ecdh_x(&self.key, peer_pub_key)
            .map_err(|_| rustls::Error::PeerMisbehaved(rustls::PeerMisbehaved::InvalidKeyShare))?;
        Ok(SharedSecret::from(x.to_vec()))
    }
    fn pub_key(&self) -> &[u8] {
        &self.public
    }
    fn group(&self) -> NamedGroup {
        CURVE_SM2
    }
}

pub(crate) static CURVE_SM2_KX: CurveSm2 = CurveSm2(Source::Os);

// ---- signatures ----

/// An SM2 key signing CertificateVerify as sm2sig_sm3 (DER-encoded r, s;
/// the RFC 8998 SM2 ID), its hedging seeds from the source.
#[derive(Debug)]
pub(crate) struct Sm2SigningKey(pub(crate) Arc<PrivateKey>, pub(crate) Source);

#[derive(Debug)]
struct Sm2Signer(Arc<PrivateKey>, Source);

impl rustls::sign::SigningKey for Sm2SigningKey {
    fn choose_scheme(&self, offered: &[SignatureScheme]) -> Option<Box<dyn rustls::sign::Signer>> {
        offered
            .contains(&SM2SIG_SM3)
            .then(|| Box::new(Sm2Signer(self.0.clone(), self.1.clone())) as Box<dyn rustls::sign::Signer>)
    }
    fn algorithm(&self) -> SignatureAlgorithm {
        SignatureAlgorithm::ECDSA
    }
}

impl rustls::sign::Signer for Sm2Signer {
    fn sign(&self, message: &[u8]) -> Result<Vec<u8>, rustls::Error> {
        let sig = if self.1.is_os() {
            self.0.sign(message, TLS13_SM2_ID)
        } else {
            self.0.public_key().z(TLS13_SM2_ID).and_then(|z| {
                let e = crate::sm3::hash_parts(&[&z, message]);
                self.0.sign_digest_seeded(&e, &mut |b| self.1.fill(b))
            })
        };
        let sig = sig.map_err(|e| err(format!("SM2 signing failed: {e}")))?;
        Ok(signature_to_der(&sig))
    }
    fn scheme(&self) -> SignatureScheme {
        SM2SIG_SM3
    }
}

/// Checks an sm2sig_sm3 CertificateVerify signature (DER r, s) by `key`
/// over `message` with the RFC 8998 ID.
pub(crate) fn verify_sm2sig(key: &PublicKey, message: &[u8], der: &[u8]) -> crate::Result<()> {
    let sig = signature_from_der(der)
        .map_err(|e| crate::Error::Tls(format!("CertificateVerify: malformed SM2 signature: {e}")))?;
    key.verify(message, TLS13_SM2_ID, &sig)
        .map_err(|_| crate::Error::Tls("CertificateVerify: the SM2 signature does not verify".into()))
}

// ---- random, keys, the provider ----

#[derive(Debug)]
struct SourceRandom(Source);

impl SecureRandom for SourceRandom {
    fn fill(&self, buf: &mut [u8]) -> Result<(), GetRandomFailed> {
        self.0.fill(buf).map_err(|_| GetRandomFailed)
    }
}

#[derive(Debug)]
struct Sm2KeyProvider;

impl KeyProvider for Sm2KeyProvider {
    fn load_private_key(
        &self,
        key_der: PrivateKeyDer<'static>,
    ) -> Result<Arc<dyn rustls::sign::SigningKey>, rustls::Error> {
        let key = crate::encoding::sm2::private_key_from_der(key_der.secret_der(), None)
            .map_err(|e| err(format!("not an SM2 private key: {e}")))?;
        Ok(Arc::new(Sm2SigningKey(Arc::new(key), Source::Os)))
    }
}

static OS_RANDOM: SourceRandom = SourceRandom(Source::Os);
static SM2_KEYS: Sm2KeyProvider = Sm2KeyProvider;

/// The provider offering `suites` (in order), curveSM2 only, and no
/// webpki signature algorithms (certificates are checked by shangmi's own
/// verifiers, never by webpki).
pub fn provider(suites: &[CipherSuite]) -> CryptoProvider {
    provider_with(suites, &Source::Os)
}

/// [`provider`] drawing every random byte from `source`.
pub(crate) fn provider_with(suites: &[CipherSuite], source: &Source) -> CryptoProvider {
    let (secure_random, kx): (&'static dyn SecureRandom, &'static dyn SupportedKxGroup) = match source {
        Source::Os => (&OS_RANDOM, &CURVE_SM2_KX),
        // rustls takes a provider's generator and groups by `&'static`: an
        // injected source (test builds only, one per test connection) is leaked.
        #[cfg(feature = "test-rng")]
        Source::Injected(_) => {
            (Box::leak(Box::new(SourceRandom(source.clone()))), Box::leak(Box::new(CurveSm2(source.clone()))))
        }
    };
    CryptoProvider {
        cipher_suites: suites.iter().map(|s| rustls_suite(*s)).collect(),
        kx_groups: vec![kx],
        signature_verification_algorithms: WebPkiSupportedAlgorithms { all: &[], mapping: &[] },
        secure_random,
        key_provider: &SM2_KEYS,
    }
}
