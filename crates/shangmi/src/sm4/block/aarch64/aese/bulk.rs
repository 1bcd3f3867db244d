//! The parallel modes, sixteen blocks at a time, byte-sliced: register
//! `m[w][r]` holds byte `r` (0 the least significant) of state word `w` of
//! all sixteen blocks, one block per lane, in the domain of
//! [`super::cbc`] (`M` on every byte). A round's S-box input byte `r` is then `M(X1 ^ X2 ^ X3)`
//! byte `r` with `pre(rk)` byte `r` as `AESE`'s key, after one `TBL` that
//! undoes ShiftRows in advance (it moves bytes between lanes, i.e. between
//! blocks); the round's output, `M(L(post(z)))`, is byte `q`:
//! `T0(z_q) ^ T1(z_q-1) ^ T1(z_q-2) ^ T3(z_q-3)`, so `L`'s byte rotations
//! are which register is read, not instructions. Per 16 bytes of S-box
//! input and round: two XORs, one `TBL`, `AESE`, a nibble split, six
//! nibble `TBL`s and seven XORs, against twenty-five instructions for the
//! word-sliced engine.
//!
//! Constant time: as [`super::cbc`]: register lookups and `AESE` only;
//! lengths are public.

use core::arch::aarch64::*;

use zeroize::Zeroize;

use super::cbc::{domain_keys, nib, x, Tab, M, MINV, T0, T1, T3};
use super::{isr_rol, reg};

/// Bytes per step.
pub(super) const STEP: usize = 256;

#[derive(Clone, Copy)]
struct Tables {
    m0f: uint8x16_t,
    t0: Tab,
    t1: Tab,
    t3: Tab,
    isr: uint8x16_t,
}

/// A byte-wise affine map from its nibble tables, the nibbles split.
#[inline(always)]
fn nib2(t: Tab, lo: uint8x16_t, hi: uint8x16_t) -> uint8x16_t {
    // SAFETY: NEON is baseline on aarch64.
    unsafe { x(vqtbl1q_u8(t.0, lo), vqtbl1q_u8(t.1, hi)) }
}

/// Sixteen blocks from `src` into sixteen registers per word byte:
/// `LD4` gathers byte `j` of every word of four blocks, two rounds of
/// `UZP` sort them by word; lane `b` is block `b`.
#[inline(always)]
fn load(src: &[u8], dom: Tab, m0f: uint8x16_t) -> [[uint8x16_t; 4]; 4] {
    let src = &src[..STEP];
    let zero = reg(&[0; 16]);
    let mut m = [[zero; 4]; 4];
    // SAFETY: 256 readable bytes (sliced above); NEON.
    unsafe {
        let g = [0, 1, 2, 3].map(|i| vld4q_u8(src.as_ptr().add(64 * i)));
        let part = |r: &uint8x16x4_t, j: usize| [r.0, r.1, r.2, r.3][j];
        for j in 0..4 {
            let (r0, r1, r2, r3) = (part(&g[0], j), part(&g[1], j), part(&g[2], j), part(&g[3], j));
            let (a, b) = (vuzp1q_u8(r0, r1), vuzp2q_u8(r0, r1));
            let (c, d) = (vuzp1q_u8(r2, r3), vuzp2q_u8(r2, r3));
            // Byte j of a big-endian word is its byte 3 - j.
            m[0][3 - j] = nib(m0f, vuzp1q_u8(a, c), dom);
            m[1][3 - j] = nib(m0f, vuzp1q_u8(b, d), dom);
            m[2][3 - j] = nib(m0f, vuzp2q_u8(a, c), dom);
            m[3][3 - j] = nib(m0f, vuzp2q_u8(b, d), dom);
        }
    }
    m
}

/// The inverse of [`load`] for the output words X35..X32 (`m` holds
/// X32..X35).
#[inline(always)]
fn store(m: &[[uint8x16_t; 4]; 4], undo: Tab, m0f: uint8x16_t, dst: &mut [u8]) {
    let dst = &mut dst[..STEP];
    // SAFETY: 256 writable bytes (sliced above); NEON.
    unsafe {
        let zero = vdupq_n_u8(0);
        let mut g = [uint8x16x4_t(zero, zero, zero, zero); 4];
        for j in 0..4 {
            let w = [0, 1, 2, 3].map(|i| nib(m0f, m[3 - i][3 - j], undo));
            let (a, c) = (vzip1q_u8(w[0], w[2]), vzip2q_u8(w[0], w[2]));
            let (b, d) = (vzip1q_u8(w[1], w[3]), vzip2q_u8(w[1], w[3]));
            let r = [vzip1q_u8(a, b), vzip2q_u8(a, b), vzip1q_u8(c, d), vzip2q_u8(c, d)];
            for (gi, v) in g.iter_mut().zip(r) {
                match j {
                    0 => gi.0 = v,
                    1 => gi.1 = v,
                    2 => gi.2 = v,
                    _ => gi.3 = v,
                }
            }
        }
        for (i, v) in g.into_iter().enumerate() {
            vst4q_u8(dst.as_mut_ptr().add(64 * i), v);
        }
    }
}

/// `AESE`: ShiftRows and SubBytes of `p ^ k`.
#[inline]
#[target_feature(enable = "neon,aes")]
fn aese(p: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(p, k)
}

/// The 32 rounds on sixteen byte-sliced blocks in the domain (inlined
/// into the entry points, which carry the `aes` feature).
#[inline(always)]
fn rounds(t: Tables, kd: &[u32; 33], m: &mut [[uint8x16_t; 4]; 4]) {
    // `pre(rk_i)` byte `r` in every lane.
    let key = |i: usize, r: usize| {
        // SAFETY: byte 4i + r of the 132 bytes of `kd`.
        unsafe { vld1q_dup_u8(kd.as_ptr().cast::<u8>().add(4 * i + r)) }
    };
    macro_rules! round {
        ($i:literal, $k:expr) => {{
            for r in 0..4 {
                let p = x(x(m[($i + 1) % 4][r], m[($i + 2) % 4][r]), m[($i + 3) % 4][r]);
                // SAFETY: the entry points that inline this carry the
                // `aes` feature (proved by the caller's token); NEON.
                let (z, m0f) = unsafe { (aese(vqtbl1q_u8(p, t.isr), key($k, r)), t.m0f) };
                // SAFETY: NEON is baseline on aarch64.
                let (lo, hi) = unsafe { (vandq_u8(z, m0f), vshrq_n_u8::<4>(z)) };
                let (a, c, d) = (nib2(t.t0, lo, hi), nib2(t.t1, lo, hi), nib2(t.t3, lo, hi));
                let w = &mut m[$i];
                w[r] = x(w[r], a);
                w[(r + 1) % 4] = x(w[(r + 1) % 4], c);
                w[(r + 2) % 4] = x(w[(r + 2) % 4], c);
                w[(r + 3) % 4] = x(w[(r + 3) % 4], d);
            }
        }};
    }
    for r in 0..8 {
        round!(0, 4 * r);
        round!(1, 4 * r + 1);
        round!(2, 4 * r + 2);
        round!(3, 4 * r + 3);
    }
}

/// Encrypts (or, with reversed round keys, decrypts) the whole steps of
/// `dst` from `src` (or in place); returns the bytes done.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) fn crypt(rk: &[u32; 32], src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    let steps = dst.len() / STEP;
    if steps == 0 {
        return 0;
    }
    let (t, dom, undo) = tables();
    let mut kd = domain_keys(rk);
    for o in (0..steps).map(|n| n * STEP) {
        let mut m = load(src.map_or(&dst[o..], |s| &s[o..]), dom, t.m0f);
        rounds(t, &kd, &mut m);
        store(&m, undo, t.m0f, &mut dst[o..]);
    }
    kd.zeroize();
    steps * STEP
}

/// CTR with a 32-bit counter over the whole steps of `dst` (see
/// [`crate::sm4::block::simd::ctr32`]); returns the bytes done.
#[inline]
#[target_feature(enable = "neon,aes")]
pub(super) fn ctr32(rk: &[u32; 32], prefix: [u32; 3], ctr: u32, src: Option<&[u8]>, dst: &mut [u8]) -> usize {
    let steps = dst.len() / STEP;
    if steps == 0 {
        return 0;
    }
    let (t, dom, undo) = tables();
    let mut kd = domain_keys(rk);
    let mut buf = [0u8; STEP];
    let mut c = ctr;
    for o in (0..steps).map(|n| n * STEP) {
        for b in buf.chunks_exact_mut(16) {
            for (w, v) in b.chunks_exact_mut(4).zip([prefix[0], prefix[1], prefix[2], c]) {
                w.copy_from_slice(&v.to_be_bytes());
            }
            c = c.wrapping_add(1);
        }
        let mut m = load(&buf, dom, t.m0f);
        rounds(t, &kd, &mut m);
        store(&m, undo, t.m0f, &mut buf);
        let inp = src.map_or(&dst[o..o + STEP], |s| &s[o..o + STEP]);
        for (d, s) in buf.iter_mut().zip(inp) {
            *d ^= s;
        }
        dst[o..o + STEP].copy_from_slice(&buf);
    }
    buf.zeroize();
    kd.zeroize();
    steps * STEP
}

#[inline(always)]
fn tables() -> (Tables, Tab, Tab) {
    // SAFETY: NEON is baseline on aarch64.
    let m0f = unsafe { vdupq_n_u8(0x0f) };
    let t = Tables {
        m0f,
        t0: (reg(&T0.0), reg(&T0.1)),
        t1: (reg(&T1.0), reg(&T1.1)),
        t3: (reg(&T3.0), reg(&T3.1)),
        isr: reg(&isr_rol(0)),
    };
    (t, (reg(&M.0), reg(&M.1)), (reg(&MINV.0), reg(&MINV.1)))
}
