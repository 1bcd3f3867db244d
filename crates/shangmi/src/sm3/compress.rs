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
    for block in blocks.chunks_exact(64) {
        compress_one(state, block.try_into().expect("64-byte chunk"));
    }
}

#[inline(always)]
fn compress_one(state: &mut [u32; 8], block: &[u8; 64]) {
    let mut w = [0u32; 68];
    for (i, word) in block.chunks_exact(4).enumerate() {
        w[i] = u32::from_be_bytes(word.try_into().expect("4 bytes"));
    }
    for j in 16..68 {
        w[j] = p1(w[j - 16] ^ w[j - 9] ^ w[j - 3].rotate_left(15)) ^ w[j - 13].rotate_left(7) ^ w[j - 6];
    }

    let [mut a, mut b, mut c, mut d, mut e, mut f, mut g, mut h] = *state;

    // Rounds are written so that the variables rotate by renaming instead of
    // moving: two rounds per macro call would still move; one round with
    // explicit renaming lets the compiler keep everything in registers.
    macro_rules! round {
        ($j:expr, $a:ident, $b:ident, $c:ident, $d:ident, $e:ident, $f:ident, $g:ident, $h:ident, $ff:expr, $gg:expr) => {{
            let a12 = $a.rotate_left(12);
            let ss1 = a12.wrapping_add($e).wrapping_add(T[$j]).rotate_left(7);
            let ss2 = ss1 ^ a12;
            let tt1 = $ff($a, $b, $c).wrapping_add($d).wrapping_add(ss2).wrapping_add(w[$j] ^ w[$j + 4]);
            let tt2 = $gg($e, $f, $g).wrapping_add($h).wrapping_add(ss1).wrapping_add(w[$j]);
            $b = $b.rotate_left(9);
            $f = $f.rotate_left(19);
            $d = tt1;
            $h = p0(tt2);
        }};
    }
    let ff0 = |x: u32, y: u32, z: u32| x ^ y ^ z;
    let gg0 = ff0;
    let ff1 = |x: u32, y: u32, z: u32| (x & y) | (x & z) | (y & z);
    let gg1 = |x: u32, y: u32, z: u32| (x & y) | (!x & z);

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
