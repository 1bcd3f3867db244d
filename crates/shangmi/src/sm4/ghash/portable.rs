//! Portable constant-time GHASH: 64x64 carry-less products from integer
//! multiplications of bit-sparse operands (one bit in four, so carries never
//! reach a bit that is kept), Karatsuba, and the high halves from the
//! bit-reversed operands (BearSSL's `ghash_ctmul64` construction); four
//! blocks times H^4..H^1 per reduction. No branch or table depends on H or
//! the data.

/// Bit-sparse masks: part i of a word keeps the bits at positions i mod 4.
const M: [u64; 4] = [0x1111_1111_1111_1111, 0x2222_2222_2222_2222, 0x4444_4444_4444_4444, 0x8888_8888_8888_8888];

#[inline(always)]
fn parts(x: u64) -> [u64; 4] {
    [x & M[0], x & M[1], x & M[2], x & M[3]]
}

/// The carry-less product of `x` and `y` (given as [`parts`]), low 64 bits,
/// before masking: part k of the result is `z[k] & M[k]`. The integer
/// product of two parts has at most 15 contributions per kept position
/// below bit 60 and 16 at bit 60, whose carry leaves the word, so masking
/// keeps exactly the carry-less result; and masking is linear, so unmasked
/// products may be XORed first and masked once.
#[inline(always)]
fn bmul64_acc(z: &mut [u64; 4], x: u64, y: &[u64; 4]) {
    let xs = parts(x);
    for (k, zk) in z.iter_mut().enumerate() {
        for (i, xi) in xs.iter().enumerate() {
            *zk ^= xi.wrapping_mul(y[(k + 4 - i) % 4]);
        }
    }
}

#[inline(always)]
fn masked(z: &[u64; 4]) -> u64 {
    (z[0] & M[0]) | (z[1] & M[1]) | (z[2] & M[2]) | (z[3] & M[3])
}

/// A multiplier prepared for [`Product::add`]: the parts of its halves, of
/// their XOR (Karatsuba) and of their bit reversals (the high halves of
/// the 64x64 products are the reversed low halves of the reversed
/// operands: BearSSL's `ghash_ctmul64` construction).
#[derive(Clone, Copy, Default)]
pub(super) struct Multiplier(pub(super) [[u64; 4]; 6]);

impl Multiplier {
    pub(super) fn new(h: u128) -> Multiplier {
        let (h1, h0) = ((h >> 64) as u64, h as u64);
        let w = [h0, h1, h0 ^ h1, h0.reverse_bits(), h1.reverse_bits(), (h0 ^ h1).reverse_bits()];
        Multiplier(w.map(parts))
    }
}

/// A sum of unreduced products x·H (the six 64x64 products of Karatsuba,
/// unmasked): sums of products are reduced once.
#[derive(Default)]
struct Product([[u64; 4]; 6]);

impl Product {
    #[inline(always)]
    fn add(&mut self, x: u128, h: &Multiplier) {
        let (y1, y0) = ((x >> 64) as u64, x as u64);
        let w = [y0, y1, y0 ^ y1, y0.reverse_bits(), y1.reverse_bits(), (y0 ^ y1).reverse_bits()];
        for ((z, y), hp) in self.0.iter_mut().zip(w).zip(h.0.iter()) {
            bmul64_acc(z, y, hp);
        }
    }

    /// The sum reduced modulo the GCM polynomial.
    #[inline(always)]
    fn reduce(&self) -> u128 {
        let [z0, z1, mut z2, z0h, z1h, mut z2h] = self.0.each_ref().map(masked);
        z2 ^= z0 ^ z1;
        z2h ^= z0h ^ z1h;
        let (z0h, z1h, z2h) = (z0h.reverse_bits() >> 1, z1h.reverse_bits() >> 1, z2h.reverse_bits() >> 1);
        let (mut v0, mut v1, mut v2, mut v3) = (z0, z0h ^ z2, z1 ^ z2h, z1h);
        // The reflected product is one bit short: shift left, then reduce
        // modulo x^128 + x^7 + x^2 + x + 1 in the reflected representation.
        v3 = (v3 << 1) | (v2 >> 63);
        v2 = (v2 << 1) | (v1 >> 63);
        v1 = (v1 << 1) | (v0 >> 63);
        v0 <<= 1;
        v2 ^= v0 ^ (v0 >> 1) ^ (v0 >> 2) ^ (v0 >> 7);
        v1 ^= (v0 << 63) ^ (v0 << 62) ^ (v0 << 57);
        v3 ^= v1 ^ (v1 >> 1) ^ (v1 >> 2) ^ (v1 >> 7);
        v2 ^= (v1 << 63) ^ (v1 << 62) ^ (v1 << 57);
        ((v3 as u128) << 64) | v2 as u128
    }
}

impl Drop for Product {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

/// Multiplies two field elements in GCM's bit-reflected big-endian form
/// (`x` as `u128::from_be_bytes` of its block), in constant time.
pub(super) fn gf_mul(x: u128, h: u128) -> u128 {
    let mut p = Product::default();
    p.add(x, &Multiplier::new(h));
    p.reduce()
}

/// Blocks per reduction on the portable path (times H^4..H^1).
pub(super) const PORTABLE_AGG: usize = 4;

/// Portable GHASH of whole blocks: Horner's rule four blocks at a time,
/// `acc' = (acc + x1)·H^4 + x2·H^3 + x3·H^2 + x4·H`, one reduction each.
pub(super) fn update_portable(mut acc: u128, pows: &[Multiplier; PORTABLE_AGG], data: &[u8]) -> u128 {
    let block = |b: &[u8]| u128::from_be_bytes(b.try_into().expect("16-byte block"));
    let mut quads = data.chunks_exact(16 * PORTABLE_AGG);
    for q in &mut quads {
        let mut p = Product::default();
        for (j, b) in q.chunks_exact(16).enumerate() {
            let x = if j == 0 { acc ^ block(b) } else { block(b) };
            p.add(x, &pows[PORTABLE_AGG - 1 - j]);
        }
        acc = p.reduce();
    }
    for b in quads.remainder().chunks_exact(16) {
        let mut p = Product::default();
        p.add(acc ^ block(b), &pows[0]);
        acc = p.reduce();
    }
    acc
}
