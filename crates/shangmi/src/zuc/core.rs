//! The ZUC state machine: LFSR over GF(2³¹−1), bit reorganisation, the
//! nonlinear function F, key/IV loading for ZUC-128 and ZUC-256.
//!
//! Keystream is produced in batches: the LFSR in work mode does not depend on
//! F, so a batch first runs the LFSR alone (a short dependency chain of
//! shifts and adds with lazy reduction), and then runs F over the whole batch
//! with a backend (portable, or SIMD with AES-NI S-boxes on x86-64).

use zeroize::{Zeroize, ZeroizeOnDrop};

use super::sbox;
use super::Backend;

const P: u64 = 0x7fff_ffff;

/// Keystream words produced per batch.
pub(crate) const BATCH: usize = 64;

/// The 15-bit constants d_i of ZUC-128.
pub(crate) const D128: [u32; 16] = [
    0x44d7, 0x26bc, 0x626b, 0x135e, 0x5789, 0x35e2, 0x7135, 0x09af, 0x4d78, 0x2f13, 0x6bc4, 0x1af1, 0x5e26, 0x3c4d,
    0x789a, 0x47ac,
];

/// The 7-bit constants d of ZUC-256: keystream, then MAC with 32/64/128-bit
/// tags (ZUC-256 specification, 2018 revision).
pub(crate) const D256_KEYSTREAM: [u8; 16] =
    [0x22, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];
pub(crate) const D256_MAC32: [u8; 16] =
    [0x22, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];
pub(crate) const D256_MAC64: [u8; 16] =
    [0x23, 0x2f, 0x24, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];
pub(crate) const D256_MAC128: [u8; 16] =
    [0x23, 0x2f, 0x25, 0x2a, 0x6d, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x40, 0x52, 0x10, 0x30];

/// s16 from s0..s15: (2^15 s15 + 2^17 s13 + 2^21 s10 + 2^20 s4 + (1+2^8) s0 + extra) mod (2^31−1).
///
/// The sum is formed in 64 bits and folded twice (lazy reduction); inputs are
/// in [1, p] and the sum is never 0, so the result lands in [1, p], which is
/// exactly the representation the standard requires (0 is written as p).
#[inline(always)]
pub(crate) fn lfsr_next(s: &[u32], extra: u32) -> u32 {
    let v = ((s[15] as u64) << 15)
        + ((s[13] as u64) << 17)
        + ((s[10] as u64) << 21)
        + ((s[4] as u64) << 20)
        + ((s[0] as u64) << 8)
        + s[0] as u64
        + extra as u64;
    let v = (v & P) + (v >> 31);
    ((v & P) + (v >> 31)) as u32
}

#[inline(always)]
fn l1(x: u32) -> u32 {
    x ^ x.rotate_left(2) ^ x.rotate_left(10) ^ x.rotate_left(18) ^ x.rotate_left(24)
}

#[inline(always)]
fn l2(x: u32) -> u32 {
    x ^ x.rotate_left(8) ^ x.rotate_left(14) ^ x.rotate_left(22) ^ x.rotate_left(30)
}

/// Bit reorganisation: (X0, X1, X2, X3) from the 16 LFSR cells `s`.
#[inline(always)]
pub(crate) fn bit_reorg(s: &[u32]) -> [u32; 4] {
    [
        ((s[15] & 0x7fff_8000) << 1) | (s[14] & 0xffff),
        ((s[11] & 0xffff) << 16) | (s[9] >> 15),
        ((s[7] & 0xffff) << 16) | (s[5] >> 15),
        ((s[2] & 0xffff) << 16) | (s[0] >> 15),
    ]
}

/// One step of F's memory update (portable, constant time): new (R1, R2).
#[inline(always)]
pub(crate) fn f_update(r1: u32, r2: u32, x1: u32, x2: u32) -> (u32, u32) {
    let w1 = r1.wrapping_add(x1);
    let w2 = r2 ^ x2;
    let u = l1((w1 << 16) | (w2 >> 16));
    let v = l2((w2 << 16) | (w1 >> 16));
    sbox::sbox_pair(u, v)
}

/// The ZUC state: 16 LFSR cells and F's two registers. Wiped on drop.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub(crate) struct State {
    lfsr: [u32; 16],
    r1: u32,
    r2: u32,
    #[zeroize(skip)]
    backend: Backend,
    /// The SIMD backend's own stream state (it runs the LFSR a batch ahead).
    #[zeroize(skip)] // wiped by its own ZeroizeOnDrop
    #[cfg(target_arch = "x86_64")]
    simd: Option<Box<super::x86::Stream>>,
}

impl State {
    fn from_lfsr(lfsr: [u32; 16], backend: Backend) -> State {
        let mut st = State {
            lfsr,
            r1: 0,
            r2: 0,
            backend,
            #[cfg(target_arch = "x86_64")]
            simd: None,
        };
        st.initialise();
        #[cfg(target_arch = "x86_64")]
        if backend.is_x86_simd() {
            // SAFETY: the SIMD backends are only used once their CPU features were detected.
            st.simd = Some(unsafe { super::x86::Stream::new(&st.lfsr, st.r1, st.r2, backend == Backend::Avx512) });
            st.lfsr.zeroize();
        }
        st
    }

    /// ZUC-128 key/IV loading: s_i = k_i ‖ d_i ‖ iv_i (8 + 15 + 8 bits).
    pub(crate) fn new_128(key: &[u8; 16], iv: &[u8; 16], backend: Backend) -> State {
        let mut lfsr = [0u32; 16];
        for i in 0..16 {
            lfsr[i] = ((key[i] as u32) << 23) | (D128[i] << 8) | iv[i] as u32;
        }
        let st = State::from_lfsr(lfsr, backend);
        lfsr.zeroize();
        st
    }

    /// ZUC-256 key/IV loading. `iv` is the 23-byte packed form (IV0..IV16 as
    /// bytes, then IV17..IV24 as eight 6-bit values packed big-endian).
    pub(crate) fn new_256(key: &[u8; 32], iv: &[u8; 23], d: &[u8; 16], backend: Backend) -> State {
        let k = |i: usize| key[i] as u32;
        let v = |i: usize| iv[i] as u32;
        let mut i6 = [0u32; 8];
        // unpack IV17..IV24 (6 bits each) from iv[17..23]
        let mut bits: u64 = 0;
        for &b in &iv[17..23] {
            bits = (bits << 8) | b as u64;
        }
        for (j, slot) in i6.iter_mut().enumerate() {
            *slot = ((bits >> (42 - 6 * j)) & 0x3f) as u32;
        }
        let d = |i: usize| d[i] as u32;
        let cell = |a: u32, b: u32, c: u32, e: u32| (a << 23) | (b << 16) | (c << 8) | e;
        let mut lfsr = [
            cell(k(0), d(0), k(21), k(16)),
            cell(k(1), d(1), k(22), k(17)),
            cell(k(2), d(2), k(23), k(18)),
            cell(k(3), d(3), k(24), k(19)),
            cell(k(4), d(4), k(25), k(20)),
            cell(v(0), d(5) | i6[0], k(5), k(26)),
            cell(v(1), d(6) | i6[1], k(6), k(27)),
            cell(v(10), d(7) | i6[2], k(7), v(2)),
            cell(k(8), d(8) | i6[3], v(3), v(11)),
            cell(k(9), d(9) | i6[4], v(12), v(4)),
            cell(v(5), d(10) | i6[5], k(10), k(28)),
            cell(k(11), d(11) | i6[6], v(6), v(13)),
            cell(k(12), d(12) | i6[7], v(7), v(14)),
            cell(k(13), d(13), v(15), v(8)),
            cell(k(14), d(14) | (k(31) >> 4), v(16), v(9)),
            cell(k(15), d(15) | (k(31) & 0x0f), k(30), k(29)),
        ];
        let st = State::from_lfsr(lfsr, backend);
        lfsr.zeroize();
        i6.zeroize();
        bits.zeroize();
        st
    }

    /// 32 rounds in initialisation mode, then one round of work mode whose
    /// output is discarded (as the standard says).
    fn initialise(&mut self) {
        // The 33 new cells are appended to a linear buffer (no shifting).
        let mut s = [0u32; 16 + 33];
        s[..16].copy_from_slice(&self.lfsr);
        for t in 0..33 {
            let cells = &s[t..t + 16];
            let x = bit_reorg(cells);
            let w = (x[0] ^ self.r1).wrapping_add(self.r2);
            (self.r1, self.r2) = self.f_update(x[1], x[2]);
            // Initialisation mode feeds W >> 1 back; the last round is work mode.
            let extra = if t < 32 { w >> 1 } else { 0 };
            s[16 + t] = lfsr_next(cells, extra);
        }
        self.lfsr.copy_from_slice(&s[33..49]);
        s.zeroize();
    }

    /// F's register update on this state's backend.
    fn f_update(&self, x1: u32, x2: u32) -> (u32, u32) {
        #[cfg(target_arch = "x86_64")]
        if self.backend.is_x86_simd() {
            // SAFETY: the SIMD backends are only used once their CPU features were detected.
            return unsafe { super::x86::f_update(self.r1, self.r2, x1, x2) };
        }
        f_update(self.r1, self.r2, x1, x2)
    }

    /// `dst = src ^ keystream` with the keystream words written big-endian
    /// (the byte order of EEA3 and of the standards' printouts). `src` and
    /// `dst` have the same length, a multiple of 4 (checked).
    pub(crate) fn xor_be(&mut self, src: &[u8], dst: &mut [u8]) {
        assert!(src.len() == dst.len() && src.len().is_multiple_of(4), "xor_be needs whole words");
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = self.simd.as_mut() {
            // SAFETY: `simd` exists only for the SIMD backends, whose features were detected.
            unsafe { simd.xor_be(src, dst) };
            return;
        }
        let mut words = [0u32; BATCH];
        for (s, d) in src.chunks(4 * BATCH).zip(dst.chunks_mut(4 * BATCH)) {
            let n = s.len() / 4;
            self.generate(&mut words[..n]);
            for ((s, d), w) in s.chunks_exact(4).zip(d.chunks_exact_mut(4)).zip(&words) {
                let k = w.to_be_bytes();
                for b in 0..4 {
                    d[b] = s[b] ^ k[b];
                }
            }
        }
        words.zeroize();
    }

    /// Fills `out` with the next keystream words.
    pub(crate) fn generate(&mut self, out: &mut [u32]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(simd) = self.simd.as_mut() {
            // SAFETY: `simd` exists only for the SIMD backends, whose features were detected.
            unsafe { simd.generate(out) };
            return;
        }
        let mut s = [0u32; 16 + BATCH];
        for chunk in out.chunks_mut(BATCH) {
            let n = chunk.len();
            s[..16].copy_from_slice(&self.lfsr);
            // s15 is chained through a register rather than re-read from the
            // cell just stored (store-to-load forwarding would lengthen the chain).
            let mut last = s[15] as u64;
            for i in 0..n {
                let v = (last << 15)
                    + ((s[i + 13] as u64) << 17)
                    + ((s[i + 10] as u64) << 21)
                    + ((s[i + 4] as u64) << 20)
                    + ((s[i] as u64) << 8)
                    + s[i] as u64;
                let v = (v & P) + (v >> 31);
                last = (v & P) + (v >> 31);
                s[16 + i] = last as u32;
            }
            f_batch_portable(&s[..16 + n], &mut self.r1, &mut self.r2, chunk);
            self.lfsr.copy_from_slice(&s[n..n + 16]);
        }
        s.zeroize();
    }
}

/// F over a batch: `s` holds 16 + out.len() LFSR cells, already advanced.
fn f_batch_portable(s: &[u32], r1: &mut u32, r2: &mut u32, out: &mut [u32]) {
    let (mut a, mut b) = (*r1, *r2);
    for (i, z) in out.iter_mut().enumerate() {
        let x = bit_reorg(&s[i..i + 16]);
        *z = ((x[0] ^ a).wrapping_add(b)) ^ x[3];
        (a, b) = f_update(a, b, x[1], x[2]);
    }
    (*r1, *r2) = (a, b);
}

impl std::fmt::Debug for State {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("State").field("backend", &self.backend).finish_non_exhaustive()
    }
}
