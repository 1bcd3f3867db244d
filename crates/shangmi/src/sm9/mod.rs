//! SM9 (GB/T 38635): identity-based cryptography on a BN curve (not yet written).
