//! SM2 (GB/T 32918): curve arithmetic, signatures, encryption, key exchange.
