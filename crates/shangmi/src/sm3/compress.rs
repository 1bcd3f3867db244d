//! The SM3 compression function, fully unrolled.
//!
//! Each round's constant T_j <<< j is precomputed, and the message expansion
//! is computed four words ahead inside the round loop so that the working set
//! stays in registers (what libgcrypt's and GmSSL's fast C code does).

#[inline(always)]
fn p0(x: u32) -> u32 {
    x ^ x.rotate_left(9) ^ x.rotate_left(17)
}

#[inline(always)]
fn p1(x: u32) -> u32 {
    x ^ x.rotate_left(15) ^ x.rotate_left(23)
}

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

const T: [u32; 64] = round_constants();

/// Compresses every whole 64-byte block of `blocks` into `state`.
///
/// `blocks.len()` must be a multiple of 64 (checked in debug builds).
pub fn compress_blocks(state: &mut [u32; 8], blocks: &[u8]) {
    debug_assert!(blocks.len() % 64 == 0);
    #[cfg(target_arch = "x86_64")]
    {
        if bmi2_available() {
            // SAFETY: the CPU supports BMI2 and AVX2 (checked just above).
            unsafe { compress_blocks_bmi2(state, blocks) };
            return;
        }
    }
    compress_blocks_portable(state, blocks);
}

/// The same code compiled for the baseline x86-64 (or any other) target.
pub(crate) fn compress_blocks_portable(state: &mut [u32; 8], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        compress_one(state, block.try_into().expect("64-byte chunk"));
    }
}

#[cfg(target_arch = "x86_64")]
fn bmi2_available() -> bool {
    use std::sync::OnceLock;
    static HAS: OnceLock<bool> = OnceLock::new();
    *HAS.get_or_init(|| std::is_x86_feature_detected!("bmi2") && std::is_x86_feature_detected!("avx2"))
}

/// The same code again, compiled with BMI2 and AVX2 enabled: `rorx` rotates
/// without clobbering its source and `pshufb`/`vpshufb` byte-swap the message,
/// which removes about a fifth of the instructions of a round.
///
/// # Safety
/// The CPU must support BMI2 and AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi2,avx2")]
unsafe fn compress_blocks_bmi2(state: &mut [u32; 8], blocks: &[u8]) {
    for block in blocks.chunks_exact(64) {
        compress_one(state, block.try_into().expect("64-byte chunk"));
    }
}
#[inline(always)]
fn compress_one(state: &mut [u32; 8], block: &[u8; 64]) {
    let mut w = [0u32; 72];
    for (i, word) in block.chunks_exact(4).enumerate() {
        w[i] = u32::from_be_bytes(word.try_into().expect("4 bytes"));
    }
    rounds(state, &mut w);
}

/// The 64 rounds over the message `w` (W0..W15 filled in). The expansion
/// W16..W67 is computed inside the rounds, four words ahead of use: it does
/// not depend on the state, so the out-of-order core runs it in the slack
/// of the rounds' long dependency chain instead of before them.
#[inline(always)]
fn rounds(state: &mut [u32; 8], w: &mut [u32; 72]) {
    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;

    // Rounds are written so that the variables rotate by renaming instead of
    // moving: two rounds per macro call would still move; one round with
    // explicit renaming lets the compiler keep everything in registers.
    macro_rules! round {
        ($j:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $ff:expr, $gg:expr) => {{
            // Additions are grouped so that the terms known early (d, h,
            // the message words, the constant) are summed off the critical
            // path, and the late ones (a, e from the previous round) last.
            if $j + 4 >= 16 && $j + 4 < 68 {
                let k = $j + 4;
                w[k] = p1(w[k - 16] ^ w[k - 9] ^ w[k - 3].rotate_left(15)) ^ w[k - 13].rotate_left(7) ^ w[k - 6];
            }
            let a12 = $a.rotate_left(12);
            let ss1 = a12.wrapping_add(T[$j]).wrapping_add($e).rotate_left(7);
            let ss2 = ss1 ^ a12;
            let tt1 = $d.wrapping_add(w[$j] ^ w[$j + 4]).wrapping_add($ff($a, $b, $c)).wrapping_add(ss2);
            let tt2 = $h.wrapping_add(w[$j]).wrapping_add($gg($e, $f, $g)).wrapping_add(ss1);
            $b = $b.rotate_left(9);
            $f = $f.rotate_left(19);
            $d = tt1;
            $h = p0(tt2);
        }};
    }
    let ff0 = |x: u32, y: u32, z: u32| x ^ y ^ z;
    let gg0 = ff0;
    // Majority and choice in their cheapest forms (3-4 operations instead of 5).
    let ff1 = |x: u32, y: u32, z: u32| (x & y) | (z & (x | y));
    let gg1 = |x: u32, y: u32, z: u32| ((y ^ z) & x) ^ z;

    // After a round, the new A is what was computed into D, and so on: the
    // register roles rotate by one position each round.
    macro_rules! four_rounds {
        ($j:expr, $ff:expr, $gg:expr) => {
            round!($j, a, b, c, d, e, f, g, h, $ff, $gg);
            round!($j + 1, d, a, b, c, h, e, f, g, $ff, $gg);
            round!($j + 2, c, d, a, b, g, h, e, f, $ff, $gg);
            round!($j + 3, b, c, d, a, f, g, h, e, $ff, $gg);
        };
    }
    four_rounds!(0, ff0, gg0);
    four_rounds!(4, ff0, gg0);
    four_rounds!(8, ff0, gg0);
    four_rounds!(12, ff0, gg0);
    four_rounds!(16, ff1, gg1);
    four_rounds!(20, ff1, gg1);
    four_rounds!(24, ff1, gg1);
    four_rounds!(28, ff1, gg1);
    four_rounds!(32, ff1, gg1);
    four_rounds!(36, ff1, gg1);
    four_rounds!(40, ff1, gg1);
    four_rounds!(44, ff1, gg1);
    four_rounds!(48, ff1, gg1);
    four_rounds!(52, ff1, gg1);
    four_rounds!(56, ff1, gg1);
    four_rounds!(60, ff1, gg1);

    state[0] ^= a;
    state[1] ^= b;
    state[2] ^= c;
    state[3] ^= d;
    state[4] ^= e;
    state[5] ^= f;
    state[6] ^= g;
    state[7] ^= h;
}
