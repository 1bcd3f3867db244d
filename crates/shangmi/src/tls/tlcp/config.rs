//! Client and server configuration, the server's session cache and the
//! client's resumable sessions.

use super::suites::CipherSuite;
use crate::tls::validated::ValidatedChains;
use crate::tls::{Identity, VerifyMode};
use crate::x509::Certificate;
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use zeroize::Zeroizing;

/// A client's configuration (share one `Arc` between connections).
#[derive(Clone, Debug)]
pub struct ClientConfig {
    /// Suites offered, in preference order.
    pub suites: Vec<CipherSuite>,
    /// Trust anchors for the server's certificates.
    pub roots: Vec<Certificate>,
    /// Default [`VerifyMode::Required`].
    pub verify_mode: VerifyMode,
    /// Check the server name against the signing certificate (default true;
    /// only when a server name is given and certificates are validated).
    pub check_hostname: bool,
    /// The client's signing certificate and key (sent when asked).
    pub sign_identity: Option<Identity>,
    /// The client's encryption certificate and key (ECDHE suites need it).
    pub enc_identity: Option<Identity>,
    /// The SM2 user ID certificate signatures are checked with; `None`
    /// accepts both deployed conventions (GM/T 0009's default ID and the
    /// empty ID).
    pub sm2_id: Option<Vec<u8>>,
    /// Unix seconds at which validity is checked; `None` = the system clock.
    pub now: Option<i64>,
    /// Which wire forms the client writes where deployed implementations
    /// disagree (default [`Compat::Auto`]).
    pub compat: Compat,
    /// Server certificate lists that passed validation (see `validated`).
    pub(crate) validated: ValidatedChains,
}

/// The wire forms a client writes where GmSSL, Tongsuo and GB/T 38636-2020
/// disagree. A server accepts every form whatever this says.
///
/// | | ECDHE ClientKeyExchange | CertificateVerify signs | ECC client Certificate with both identities |
/// |---|---|---|---|
/// | `Standard` | `opaque ClientECDHEParams<1..2^16-1>`: 2-byte length first | SM3(handshake messages) | sign, enc, chain |
/// | `GmSsl` | 2-byte length first (as the standard) | the handshake messages themselves | sign, chain |
/// | `Tongsuo` | ECParameters ‖ ECPoint, no length | SM3(handshake messages) (as the standard) | sign, enc, chain |
///
/// GB/T 38636-2020 section 6.4.5.8 defines the ECDHE exchange_keys as
/// `opaque ClientECDHEParams<1..2^16-1>` (a vector, so with a 2-byte
/// length), which GmSSL 3 follows; Tongsuo (and gotlcp by default, with
/// its `ClientECDHEParamsAsVector` switch) writes the structure bare, and
/// Tongsuo 8.3's server refuses the vector. Section 6.4.5.9 signs
/// `digitally-signed struct { opaque sm3_hash[32]; }`, sm3_hash being
/// SM3 of the handshake messages so far: Tongsuo follows it, GmSSL 3 signs
/// the messages themselves (SM2 hashes Z ‖ messages). Neither standard
/// text says whether an ECC client sends its encryption certificate;
/// Tongsuo's server requires it, GmSSL's server reads a second certificate
/// as a CA.
///
/// `Auto` decides from the server's CertificateRequest, the first message
/// where the forms matter: GmSSL 3 asks for certificate_types
/// `{ecdsa_sign}` alone, Tongsuo (and shangmi) for `{rsa_sign,
/// ecdsa_sign}` (measured 2026-12-07, GmSSL 3.3.0-dev, Tongsuo 8.3.2 and
/// 8.5.0-pre2); `{ecdsa_sign}` alone selects `GmSsl`, anything else
/// `Tongsuo`. Without a CertificateRequest no disputed form is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Compat {
    #[default]
    Auto,
    Standard,
    GmSsl,
    Tongsuo,
}

impl Compat {
    /// Every mode, as [`Compat::name`] spells them.
    pub const ALL: [Compat; 4] = [Compat::Auto, Compat::Standard, Compat::GmSsl, Compat::Tongsuo];

    /// "auto", "standard", "gmssl" or "tongsuo".
    pub fn name(self) -> &'static str {
        match self {
            Compat::Auto => "auto",
            Compat::Standard => "standard",
            Compat::GmSsl => "gmssl",
            Compat::Tongsuo => "tongsuo",
        }
    }

    /// The mode named `name` (case-insensitive).
    pub fn from_name(name: &str) -> crate::Result<Self> {
        Compat::ALL.into_iter().find(|c| c.name().eq_ignore_ascii_case(name)).ok_or_else(|| {
            crate::Error::invalid(format!(
                "unknown TLCP compatibility mode {name:?}: expected auto, standard, gmssl or tongsuo"
            ))
        })
    }

    /// The ECDHE ClientKeyExchange carries a 2-byte length first.
    pub(crate) fn cke_length_prefix(self) -> bool {
        matches!(self, Compat::Standard | Compat::GmSsl)
    }

    /// CertificateVerify signs the handshake messages, not their SM3 hash.
    pub(crate) fn verify_raw_messages(self) -> bool {
        self == Compat::GmSsl
    }

    /// An ECC client Certificate leaves out the encryption certificate.
    pub(crate) fn ecc_single_chain(self) -> bool {
        self == Compat::GmSsl
    }
}

impl ClientConfig {
    /// Every suite, no roots, [`VerifyMode::Required`], host names checked.
    pub fn new() -> Self {
        ClientConfig {
            suites: CipherSuite::ALL.to_vec(),
            roots: Vec::new(),
            verify_mode: VerifyMode::Required,
            check_hostname: true,
            sign_identity: None,
            enc_identity: None,
            sm2_id: None,
            now: None,
            validated: ValidatedChains::default(),
            compat: Compat::Auto,
        }
    }
}

impl Default for ClientConfig {
    fn default() -> Self {
        Self::new()
    }
}

/// A server's configuration (share one `Arc` between connections).
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// Suites accepted, in the server's preference order (the server picks
    /// its most preferred suite the client offers).
    pub suites: Vec<CipherSuite>,
    /// The signing certificate (leaf first, then its chain) and key.
    pub sign_identity: Identity,
    /// The encryption certificate (leaf first) and key.
    pub enc_identity: Identity,
    /// Trust anchors for client certificates; their subjects are the
    /// CertificateRequest's certificate_authorities (GmSSL's client sends
    /// nothing unless its issuer is named).
    pub roots: Vec<Certificate>,
    /// Default [`VerifyMode::None`] (no CertificateRequest in ECC suites).
    pub verify_mode: VerifyMode,
    /// Session-ID resumption.
    pub session_cache: Arc<SessionCache>,
    /// Unix seconds at which validity is checked; `None` = the system clock.
    pub now: Option<i64>,
    /// Client certificate lists that passed validation (see `validated`).
    pub(crate) validated: ValidatedChains,
}

impl ServerConfig {
    /// Every suite, no client certificates, a cache of 256 sessions.
    pub fn new(sign: Identity, enc: Identity) -> Self {
        ServerConfig {
            suites: CipherSuite::ALL.to_vec(),
            sign_identity: sign,
            enc_identity: enc,
            roots: Vec::new(),
            verify_mode: VerifyMode::None,
            session_cache: Arc::new(SessionCache::new(256)),
            now: None,
            validated: ValidatedChains::default(),
        }
    }
}

/// What resumption needs: the session ID, master secret (wiped on drop),
/// suite, and the peer's certificates as first received.
#[derive(Clone)]
pub struct Session {
    pub(crate) id: Vec<u8>,
    pub(crate) master: Zeroizing<[u8; 48]>,
    pub(crate) suite: CipherSuite,
    pub(crate) peer_certificates: Vec<Certificate>,
    pub(crate) server_name: Option<String>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("suite", &self.suite).field("id_len", &self.id.len()).finish_non_exhaustive()
    }
}

impl Session {
    /// The session ID (1 to 32 bytes).
    pub fn id(&self) -> &[u8] {
        &self.id
    }

    /// The suite the session was made with.
    pub fn cipher_suite(&self) -> CipherSuite {
        self.suite
    }
}

/// A server's bounded cache of sessions by ID (oldest evicted first);
/// shared between threads.
#[derive(Debug)]
pub struct SessionCache {
    capacity: usize,
    inner: Mutex<CacheInner>,
}

#[derive(Debug, Default)]
struct CacheInner {
    map: HashMap<Vec<u8>, Session>,
    order: VecDeque<Vec<u8>>,
}

impl SessionCache {
    /// A cache holding at most `capacity` sessions (0 disables resumption).
    pub fn new(capacity: usize) -> Self {
        SessionCache { capacity, inner: Mutex::new(CacheInner::default()) }
    }

    /// Sessions held now.
    pub fn len(&self) -> usize {
        self.inner.lock().map(|g| g.map.len()).unwrap_or(0)
    }

    /// No sessions held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(crate) fn put(&self, s: Session) {
        if self.capacity == 0 {
            return;
        }
        let Ok(mut g) = self.inner.lock() else { return };
        if g.map.insert(s.id.clone(), s.clone()).is_none() {
            g.order.push_back(s.id);
        }
        while g.map.len() > self.capacity {
            let Some(old) = g.order.pop_front() else { break };
            g.map.remove(&old);
        }
    }

    pub(crate) fn get(&self, id: &[u8]) -> Option<Session> {
        self.inner.lock().ok()?.map.get(id).cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(id: u8) -> Session {
        Session {
            id: vec![id; 32],
            master: Zeroizing::new([id; 48]),
            suite: CipherSuite::EccSm4GcmSm3,
            peer_certificates: Vec::new(),
            server_name: None,
        }
    }

    #[test]
    fn the_cache_is_bounded_and_evicts_the_oldest() {
        let c = SessionCache::new(2);
        for i in 1..=3 {
            c.put(session(i));
        }
        assert_eq!(c.len(), 2);
        assert!(c.get(&[1; 32]).is_none());
        assert_eq!(c.get(&[3; 32]).map(|s| s.master[0]), Some(3));
        let off = SessionCache::new(0);
        off.put(session(1));
        assert!(off.is_empty());
    }
}
