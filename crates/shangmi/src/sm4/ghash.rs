//! GHASH (the universal hash of GCM, NIST SP 800-38D).
//!
//! Two implementations: a portable constant-time one (the bit-serial
//! algorithm of SP 800-38D with masks instead of branches; slow but no table
//! indexed by secret data) and one with PCLMULQDQ that multiplies four blocks
//! by H^4..H^1 and reduces once per four blocks (aggregated reduction).

use super::Backend;

/// Multiplies two field elements in GCM's bit-reflected big-endian form.
fn gf_mul_portable(x: u128, y: u128) -> u128 {
    let mut z = 0u128;
    let mut v = y;
    for i in 0..128 {
        let bit = (x >> (127 - i)) & 1;
        z ^= v & 0u128.wrapping_sub(bit);
        let lsb = v & 1;
        v = (v >> 1) ^ (0u128.wrapping_sub(lsb) & (0xE1u128 << 120));
    }
    z
}

/// Hash key and running state.
#[derive(Clone)]
pub(crate) struct Ghash {
    h: u128,
    acc: u128,
    /// H^1..H^8 in the byte-reversed layout used by the PCLMULQDQ code.
    #[cfg(target_arch = "x86_64")]
    powers: Option<[[u8; 16]; 8]>,
}

impl Drop for Ghash {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.h);
        zeroize::Zeroize::zeroize(&mut self.acc);
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = self.powers.as_mut() {
            zeroize::Zeroize::zeroize(p);
        }
    }
}

impl Ghash {
    pub(crate) fn new(h: &[u8; 16], backend: Backend) -> Ghash {
        let hv = u128::from_be_bytes(*h);
        #[cfg(target_arch = "x86_64")]
        let powers = if backend == Backend::AesniAvx512 {
            let mut p = [[0u8; 16]; 8];
            let mut acc = hv;
            for slot in p.iter_mut() {
                *slot = acc.to_le_bytes();
                acc = gf_mul_portable(acc, hv);
            }
            Some(p)
        } else {
            None
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = backend;
        Ghash {
            h: hv,
            acc: 0,
            #[cfg(target_arch = "x86_64")]
            powers,
        }
    }

    /// Absorbs `data`, zero-padding a final partial block.
    pub(crate) fn update_padded(&mut self, data: &[u8]) {
        let whole = data.len() - data.len() % 16;
        self.update_blocks(&data[..whole]);
        if whole < data.len() {
            let mut b = [0u8; 16];
            b[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(&b);
        }
    }

    /// Absorbs whole 16-byte blocks.
    pub(crate) fn update_blocks(&mut self, data: &[u8]) {
        debug_assert!(data.len().is_multiple_of(16));
        #[cfg(target_arch = "x86_64")]
        if let Some(p) = &self.powers {
            // SAFETY: powers exist only for the AES-NI backend, whose
            // construction checked PCLMULQDQ and SSSE3 support.
            self.acc = unsafe { clmul::update(self.acc, p, data) };
            return;
        }
        for b in data.chunks_exact(16) {
            let mut x = [0u8; 16];
            x.copy_from_slice(b);
            self.acc = gf_mul_portable(self.acc ^ u128::from_be_bytes(x), self.h);
        }
    }

    /// The hash so far.
    pub(crate) fn value(&self) -> [u8; 16] {
        self.acc.to_be_bytes()
    }
}

#[cfg(target_arch = "x86_64")]
mod clmul {
    use core::arch::x86_64::*;

    /// Carry-less product of two byte-reversed elements as (lo, mid, hi)
    /// 128-bit pieces, the middle not yet folded in (so that sums of several
    /// products fold once).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn mul3(a: __m128i, b: __m128i) -> (__m128i, __m128i, __m128i) {
        let lo = _mm_clmulepi64_si128::<0x00>(a, b);
        let m = _mm_xor_si128(_mm_clmulepi64_si128::<0x10>(a, b), _mm_clmulepi64_si128::<0x01>(a, b));
        let hi = _mm_clmulepi64_si128::<0x11>(a, b);
        (lo, m, hi)
    }

    /// Folds the middle term into (hi, lo).
    #[inline]
    #[target_feature(enable = "sse2")]
    fn fold(lo: __m128i, m: __m128i, hi: __m128i) -> (__m128i, __m128i) {
        (_mm_xor_si128(hi, _mm_srli_si128::<8>(m)), _mm_xor_si128(lo, _mm_slli_si128::<8>(m)))
    }

    /// Shifts the reflected 256-bit product left by one and reduces it modulo
    /// x^128 + x^7 + x^2 + x + 1 (Intel's carry-less multiplication white paper).
    #[inline]
    #[target_feature(enable = "pclmulqdq,sse2")]
    fn reduce(hi: __m128i, lo: __m128i) -> __m128i {
        let t7 = _mm_srli_epi32::<31>(lo);
        let t8 = _mm_srli_epi32::<31>(hi);
        let lo = _mm_slli_epi32::<1>(lo);
        let hi = _mm_slli_epi32::<1>(hi);
        let t9 = _mm_srli_si128::<12>(t7);
        let t8 = _mm_slli_si128::<4>(t8);
        let t7 = _mm_slli_si128::<4>(t7);
        let lo = _mm_or_si128(lo, t7);
        let hi = _mm_or_si128(_mm_or_si128(hi, t8), t9);
        let a =
            _mm_xor_si128(_mm_xor_si128(_mm_slli_epi32::<31>(lo), _mm_slli_epi32::<30>(lo)), _mm_slli_epi32::<25>(lo));
        let t8 = _mm_srli_si128::<4>(a);
        let lo = _mm_xor_si128(lo, _mm_slli_si128::<12>(a));
        let b = _mm_xor_si128(
            _mm_xor_si128(_mm_srli_epi32::<1>(lo), _mm_srli_epi32::<2>(lo)),
            _mm_xor_si128(_mm_srli_epi32::<7>(lo), t8),
        );
        _mm_xor_si128(hi, _mm_xor_si128(lo, b))
    }

    #[inline]
    #[target_feature(enable = "ssse3")]
    fn load_rev(b: &[u8]) -> __m128i {
        let rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        // SAFETY: callers pass slices of exactly 16 bytes.
        _mm_shuffle_epi8(unsafe { _mm_loadu_si128(b.as_ptr().cast()) }, rev)
    }

    #[target_feature(enable = "pclmulqdq,ssse3,sse2")]
    fn update_impl(acc: u128, powers: &[[u8; 16]; 8], data: &[u8]) -> u128 {
        // Byte-reversed big-endian block == the u128's little-endian bytes.
        let load = |b: &[u8; 16]| {
            // SAFETY: 16 readable bytes.
            unsafe { _mm_loadu_si128(b.as_ptr().cast()) }
        };
        let h: [__m128i; 8] = core::array::from_fn(|i| load(&powers[i]));
        let mut x = load(&acc.to_le_bytes());
        let mut octets = data.chunks_exact(128);
        for q in &mut octets {
            // x' = (x + B0)·H^8 + B1·H^7 + ... + B7·H: eight products, one
            // middle fold and one reduction.
            let (mut lo, mut m, mut hi) = mul3(_mm_xor_si128(x, load_rev(&q[..16])), h[7]);
            for i in 1..8 {
                let (l, mm, hh) = mul3(load_rev(&q[16 * i..16 * i + 16]), h[7 - i]);
                lo = _mm_xor_si128(lo, l);
                m = _mm_xor_si128(m, mm);
                hi = _mm_xor_si128(hi, hh);
            }
            let (hi, lo) = fold(lo, m, hi);
            x = reduce(hi, lo);
        }
        for b in octets.remainder().chunks_exact(16) {
            let (lo, m, hi) = mul3(_mm_xor_si128(x, load_rev(b)), h[0]);
            let (hi, lo) = fold(lo, m, hi);
            x = reduce(hi, lo);
        }
        let mut out = [0u8; 16];
        // SAFETY: 16 writable bytes.
        unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), x) };
        u128::from_le_bytes(out)
    }

    /// # Safety
    /// The CPU must support PCLMULQDQ and SSSE3.
    pub(super) unsafe fn update(acc: u128, powers: &[[u8; 16]; 8], data: &[u8]) -> u128 {
        // SAFETY: the caller guarantees the target features.
        unsafe { update_impl(acc, powers, data) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clmul_matches_portable() {
        let mut h = [0u8; 16];
        let mut data = vec![0u8; 16 * 27];
        let mut s = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s as u8
        };
        h.iter_mut().for_each(|b| *b = next());
        data.iter_mut().for_each(|b| *b = next());
        let mut p = Ghash::new(&h, Backend::Portable);
        p.update_blocks(&data);
        for b in Backend::available() {
            for split in [0, 16, 48, 64, 80, 128, 144, 176, 256, 432] {
                let mut g = Ghash::new(&h, b);
                g.update_blocks(&data[..split]);
                g.update_blocks(&data[split..]);
                assert_eq!(g.value(), p.value(), "{b:?} split {split}");
            }
        }
    }
}
