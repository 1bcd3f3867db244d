//! A bounded memory of certificate lists that passed validation, so that a
//! client reconnecting to the same server (or a server seeing the same
//! client) does not repeat the same SM2 signature checks on every full
//! handshake; one per configuration, for TLCP and TLS 1.3 alike.
//!
//! Contract: an entry is keyed by SM3 over everything the result depends on
//! besides the time and the host name — the trust anchors, the SM2 ID rule
//! and the peer's certificate list as sent — so a configuration cloned and
//! given other anchors can never reuse another's result. It stores the
//! window in which every certificate of the validated paths was valid; a hit
//! counts only inside that window. The host name is checked on every
//! handshake regardless (and, in TLS 1.3, keyUsage and CertificateVerify).
//! Only successes are stored; public data only.

use crate::sm3::Sm3;
use crate::x509::Certificate;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// How many validated certificate lists are remembered.
pub(crate) const CAPACITY: usize = 64;

/// Validity windows by key, and the keys in insertion order (for eviction).
type Entries = (HashMap<[u8; 32], (i64, i64)>, VecDeque<[u8; 32]>);

#[derive(Debug, Default)]
pub struct ValidatedChains {
    inner: Mutex<Entries>,
}

impl Clone for ValidatedChains {
    /// A clone starts empty: the copy may be given other trust anchors.
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// The key of a validation: anchors, ID rule and the certificates as sent
/// (their DER).
pub(crate) fn key(roots: &[Certificate], uid: Option<&[u8]>, sent: &[&[u8]]) -> [u8; 32] {
    let mut h = Sm3::new();
    let mut item = |tag: u8, data: &[u8]| {
        h.update(&[tag]);
        h.update(&(data.len() as u64).to_be_bytes());
        h.update(data);
    };
    for r in roots {
        item(0, r.to_der());
    }
    match uid {
        Some(u) => item(1, u),
        None => item(2, &[]),
    }
    for c in sent {
        item(3, c);
    }
    h.finalize()
}

/// The window `[not_before, not_after]` in which every certificate of `paths` is valid.
pub(crate) fn window<'a>(paths: impl IntoIterator<Item = &'a Certificate>) -> (i64, i64) {
    paths
        .into_iter()
        .fold((i64::MIN, i64::MAX), |(from, until), c| (from.max(c.not_before()), until.min(c.not_after())))
}

impl ValidatedChains {
    /// Whether `key` was validated and `at` falls in its window.
    pub(crate) fn hit(&self, key: &[u8; 32], at: i64) -> bool {
        let guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        guard.0.get(key).is_some_and(|&(from, until)| from <= at && at <= until)
    }

    pub(crate) fn insert(&self, key: [u8; 32], window: (i64, i64)) {
        let mut guard = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let (map, order) = &mut *guard;
        if map.insert(key, window).is_none() {
            order.push_back(key);
            while order.len() > CAPACITY {
                if let Some(old) = order.pop_front() {
                    map.remove(&old);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_only_inside_the_window_and_forgets_the_oldest() {
        let v = ValidatedChains::default();
        let k = [7u8; 32];
        assert!(!v.hit(&k, 100));
        v.insert(k, (50, 150));
        assert!(v.hit(&k, 50) && v.hit(&k, 150));
        assert!(!v.hit(&k, 49) && !v.hit(&k, 151));
        for i in 0..CAPACITY as u32 {
            let mut other = [0u8; 32];
            other[..4].copy_from_slice(&i.to_be_bytes());
            v.insert(other, (0, 1000));
        }
        assert!(!v.hit(&k, 100), "the oldest entry is evicted at capacity");
        assert!(!v.clone().hit(&[0u8; 32], 10), "a clone starts empty");
    }

    #[test]
    fn the_key_depends_on_anchors_id_rule_and_every_certificate() {
        let ders = crate::encoding::pem::decode_all(include_bytes!("../../../../tests/vectors/tlcp/ca-bundle.pem"))
            .expect("PEM");
        let certs: Vec<Certificate> = ders.iter().map(|b| Certificate::from_der(&b.der).expect("cert")).collect();
        let (a, b) = (certs[0].to_der(), certs[1].to_der());
        let base = key(&certs[1..], None, &[a]);
        assert_ne!(base, key(&certs[..1], None, &[a]), "anchors");
        assert_ne!(base, key(&certs[1..], Some(b"1234567812345678"), &[a]), "ID rule");
        assert_ne!(base, key(&certs[1..], Some(b""), &[a]), "empty ID");
        assert_ne!(base, key(&certs[1..], None, &[a, b]), "certificates sent");
        assert_eq!(base, key(&certs[1..], None, &[a]));
        let (a, b) = (&certs[0], &certs[1]);
        assert_eq!(window([a, b]), (a.not_before().max(b.not_before()), a.not_after().min(b.not_after())));
    }
}
