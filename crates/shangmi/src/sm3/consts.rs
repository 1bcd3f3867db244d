//! SM3's round constants, shared by every compression variant.

const fn round_constants() -> [u32; 64] {
    let mut t = [0u32; 64];
    let mut j = 0;
    while j < 64 {
        let base: u32 = if j < 16 { 0x79cc4519 } else { 0x7a879d8a };
        t[j] = base.rotate_left((j % 32) as u32);
        j += 1;
    }
    t
}

/// T_j <<< (j mod 32), for rounds j = 0..64 (GB/T 32905-2016, 4.2 and 5.3.3).
pub(super) const T: [u32; 64] = round_constants();
