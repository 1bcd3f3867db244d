//! Constants the x86-64 engines share: `pshufb` indices and the affine
//! constants of the S-box maps.

use super::sbox::GFNI_PRE_C;
use crate::sm4::block::sbox::SM4_C;

/// `pshufb` index that undoes AES ShiftRows: with ShiftRows
/// `out[r + 4c] = in[r + 4((c + r) % 4)]`, the result byte p must be taken
/// from position sigma^-1(p).
pub(super) const INV_SHIFT_ROWS: [u8; 16] = {
    let mut inv = [0u8; 16];
    let mut p = 0;
    while p < 16 {
        let (r, c) = (p % 4, p / 4);
        let sigma = r + 4 * ((c + r) % 4);
        inv[sigma] = p as u8;
        p += 1;
    }
    inv
};

/// Byte-swaps every 32-bit word (SM4 words are big-endian).
pub(super) const BSWAP32: [u8; 16] = [3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12];

pub(super) const PRE_C: i32 = GFNI_PRE_C as i32;
pub(super) const POST_C: i32 = SM4_C as i32;

/// `pshufb` index: `ISR` then a left rotation of every 32-bit lane by `8·r`.
pub(super) const fn isr_rol(isr: bool, r: usize) -> [u8; 16] {
    let mut out = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        // Rotating a little-endian lane left by 8r bytes takes byte k from k - r.
        let from = (i & !3) + ((i & 3) + 4 - r) % 4;
        out[i] = if isr { INV_SHIFT_ROWS[from] } else { from as u8 };
        i += 1;
    }
    out
}

pub(super) const ROL0: [u8; 16] = isr_rol(false, 0);
pub(super) const ROL8: [u8; 16] = isr_rol(false, 1);
pub(super) const ROL16: [u8; 16] = isr_rol(false, 2);
pub(super) const ROL24: [u8; 16] = isr_rol(false, 3);
pub(super) const ISR8: [u8; 16] = isr_rol(true, 1);
pub(super) const ISR16: [u8; 16] = isr_rol(true, 2);
pub(super) const ISR24: [u8; 16] = isr_rol(true, 3);
