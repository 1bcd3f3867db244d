//! SM9 (GB/T 38635, GM/T 0044): identity-based signatures, encryption, key
//! encapsulation and key exchange on the BN256 curve with t = 0x600000000058F98A.
//!
//! Layers, bottom up: [`fp`] (Fp, Fn on `arith`), [`fp2`], [`fp4`], [`fp12`]
//! (the standard's tower, so its byte order needs no conversion), [`curve`]
//! (a = 0 point formulas over Fp and Fp2), [`g1`], [`g2`], [`pairing`] and
//! [`final_exp`], then the schemes.

pub mod curve;
pub mod final_exp;
pub mod fp;
pub mod fp12;
pub mod fp2;
pub mod fp4;
pub mod g1;
pub mod g2;
pub mod pairing;
pub mod window;

#[cfg(test)]
mod tests;
