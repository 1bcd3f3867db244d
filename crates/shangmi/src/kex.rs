//! What the SM2 (GB/T 32918.3) and SM9 (GM/T 0044.3) key exchanges share:
//! the two roles, the initiator-first ordering of every value both sides
//! hash, the result with its two confirmation values, and the
//! constant-time check of the peer's confirmation.
//!
//! Both protocols derive two confirmation values from the same shared
//! secret: one the responder sends (S_B, called S1 by the initiator), one the
//! initiator sends (S_A, called S2 by the responder). [`Role::confirmations`]
//! assigns them to "send" and "expect" once, for both algorithms.

use crate::{Error, Result};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

/// Which side of a key exchange this party is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A: sends its ephemeral point first, receives the responder's point and
    /// S_B, sends S_A.
    Initiator,
    /// B: answers with its ephemeral point and S_B, checks S_A.
    Responder,
}

impl Role {
    /// Both roles, initiator first.
    pub const ALL: [Role; 2] = [Role::Initiator, Role::Responder];

    /// The name callers pass: "initiator" or "responder".
    pub fn name(self) -> &'static str {
        match self {
            Role::Initiator => "initiator",
            Role::Responder => "responder",
        }
    }

    /// The role called `name`, or an [`Error::InvalidInput`] listing both.
    pub fn from_name(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|r| r.name() == name)
            .ok_or_else(|| Error::invalid(format!("role must be one of 'initiator', 'responder', got '{name}'")))
    }

    /// [`Role::Initiator`] when `initiator` is true, else [`Role::Responder`].
    pub fn from_initiator(initiator: bool) -> Self {
        if initiator {
            Role::Initiator
        } else {
            Role::Responder
        }
    }

    /// `(initiator's, responder's)` from this party's value and its peer's:
    /// the order in which both protocols hash identities, Z values and
    /// ephemeral points. Roles are public, so this branch is too.
    pub fn order<T>(self, own: T, peer: T) -> (T, T) {
        match self {
            Role::Initiator => (own, peer),
            Role::Responder => (peer, own),
        }
    }

    /// `(to send, to expect)` from S_A (the initiator's confirmation) and
    /// S_B (the responder's).
    pub fn confirmations(self, s_a: [u8; 32], s_b: [u8; 32]) -> ([u8; 32], [u8; 32]) {
        self.order(s_a, s_b)
    }
}

/// The outcome of one exchange: the shared key and both confirmation values.
pub struct KeyExchangeResult {
    /// The shared key (the requested number of bytes); wiped on drop.
    pub key: Zeroizing<Vec<u8>>,
    /// The confirmation this party sends: S_A for the initiator, S_B for the
    /// responder.
    pub confirm_out: [u8; 32],
    /// The confirmation this party expects from its peer: S_B (S1 in the
    /// standards) for the initiator, S_A (S2) for the responder.
    pub confirm_expected: [u8; 32],
}

impl core::fmt::Debug for KeyExchangeResult {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "KeyExchangeResult {{ key: [{} bytes], .. }}", self.key.len())
    }
}

impl KeyExchangeResult {
    /// The result for `role` from the key and the two confirmation values
    /// S_A (initiator's) and S_B (responder's).
    pub fn new(role: Role, key: Zeroizing<Vec<u8>>, s_a: [u8; 32], s_b: [u8; 32]) -> Self {
        let (confirm_out, confirm_expected) = role.confirmations(s_a, s_b);
        KeyExchangeResult { key, confirm_out, confirm_expected }
    }

    /// Checks the peer's confirmation value in constant time: `Ok` when
    /// `received` is the 32 bytes of [`Self::confirm_expected`], else
    /// [`Error::InvalidTag`] (a wrong length is a mismatch too).
    pub fn check_confirmation(&self, received: &[u8]) -> Result<()> {
        if received.len() == 32 && bool::from(received.ct_eq(&self.confirm_expected)) {
            Ok(())
        } else {
            Err(Error::InvalidTag)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_an_error() {
        for r in Role::ALL {
            assert_eq!(Role::from_name(r.name()), Ok(r));
        }
        let err = Role::from_name("Initiator").unwrap_err();
        assert!(err.to_string().contains("'initiator', 'responder'"), "{err}");
        assert_eq!(Role::from_initiator(true), Role::Initiator);
        assert_eq!(Role::from_initiator(false), Role::Responder);
    }

    #[test]
    fn order_puts_the_initiator_first() {
        assert_eq!(Role::Initiator.order(1, 2), (1, 2));
        assert_eq!(Role::Responder.order(1, 2), (2, 1));
    }

    #[test]
    fn each_side_sends_what_the_other_expects() {
        let (sa, sb) = ([0xaa; 32], [0xbb; 32]);
        let a = KeyExchangeResult::new(Role::Initiator, Zeroizing::new(vec![1]), sa, sb);
        let b = KeyExchangeResult::new(Role::Responder, Zeroizing::new(vec![1]), sa, sb);
        assert_eq!(a.confirm_out, sa);
        assert_eq!(b.confirm_out, sb);
        b.check_confirmation(&a.confirm_out).unwrap();
        a.check_confirmation(&b.confirm_out).unwrap();
        assert_eq!(a.check_confirmation(&sa), Err(Error::InvalidTag));
        assert_eq!(a.check_confirmation(&sb[..31]), Err(Error::InvalidTag));
    }
}
