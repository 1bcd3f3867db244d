"""SM2 public-key cryptography (GB/T 32918): signatures, encryption, key exchange."""
