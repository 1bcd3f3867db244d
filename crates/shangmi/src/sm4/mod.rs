//! SM4 block cipher (GB/T 32907) and its modes.
