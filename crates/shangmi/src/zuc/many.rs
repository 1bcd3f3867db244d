//! 128-EEA3 and 128-EIA3 over many independent messages at once, the way
//! base stations process many bearers (Intel's multi-buffer library does the
//! same): on x86-64 with AVX2 and AES-NI, eight messages run in the eight
//! 32-bit lanes of one register set (see x86_many.rs), which removes the
//! serial R1/R2 chain that bounds a single stream. Elsewhere, and for the
//! portable backend, the messages are processed one after the other.
//!
//! Results are exactly those of [`super::eea3`] / [`super::eia3`] on each
//! message (the tests check this against the single-stream code and the
//! standard's vectors).

// The lanes (x86-64 only) wipe their key schedules and windows.
#[cfg(target_arch = "x86_64")]
use zeroize::Zeroize;

use super::core::State;
use super::kernel::{Kernel, Lanes};
use super::params::{check_out_len, Alg, Checked, Message};
use super::{mac, ops};
#[cfg(target_arch = "x86_64")]
use super::{spec, x86};
use crate::{Error, Result};

/// Validates every message first (nothing is computed if one is invalid);
/// errors name the message's index.
fn check_all(msgs: &[Message<'_>], alg: Alg) -> Result<Vec<Checked>> {
    msgs.iter()
        .enumerate()
        .map(|(i, m)| {
            Checked::new(m, alg).map_err(|e| match e {
                Error::InvalidKey(s) => Error::InvalidKey(format!("message {i}: {s}")),
                Error::InvalidInput(s) => Error::InvalidInput(format!("message {i}: {s}")),
                e => e,
            })
        })
        .collect()
}

/// Message indices in groups of up to `lanes`, longest messages first, so
/// that each group's messages have similar lengths (a group runs as long as
/// its longest message).
#[cfg(target_arch = "x86_64")]
fn groups(lens: &[usize], lanes: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..lens.len()).collect();
    order.sort_by_key(|&i| core::cmp::Reverse(lens[i]));
    order.chunks(lanes).map(|g| g.to_vec()).collect()
}

/// 128-EEA3 of every message: `out[i]` is `eea3(msgs[i]...)`.
pub fn eea3_many(msgs: &[Message<'_>]) -> Result<Vec<Vec<u8>>> {
    eea3_many_on(Kernel::auto().lanes(), msgs)
}

/// [`eea3_many`] on `lanes`.
pub(crate) fn eea3_many_on(lanes: Lanes, msgs: &[Message<'_>]) -> Result<Vec<Vec<u8>>> {
    let lens = eea3_many_output_lens(msgs)?;
    let mut outs: Vec<Vec<u8>> = lens.iter().map(|&n| vec![0u8; n]).collect();
    let mut refs: Vec<&mut [u8]> = outs.iter_mut().map(|o| o.as_mut_slice()).collect();
    eea3_many_into_on(lanes, msgs, &mut refs)?;
    Ok(outs)
}

/// The output size of [`eea3_many`] for each message (ceil(length_bits / 8)),
/// after checking every message's parameters.
pub fn eea3_many_output_lens(msgs: &[Message<'_>]) -> Result<Vec<usize>> {
    Ok(check_all(msgs, Alg::Eea3)?.iter().map(Checked::out_len).collect())
}

/// [`eea3_many`] writing message i's output into `outs[i]`, which must have
/// [`eea3_many_output_lens`]`[i]` bytes (so callers can write straight into
/// buffers they own).
pub fn eea3_many_into(msgs: &[Message<'_>], outs: &mut [&mut [u8]]) -> Result<()> {
    eea3_many_into_on(Kernel::auto().lanes(), msgs, outs)
}

/// [`eea3_many_into`] on `lanes`.
pub(crate) fn eea3_many_into_on(lanes: Lanes, msgs: &[Message<'_>], outs: &mut [&mut [u8]]) -> Result<()> {
    let checked = check_all(msgs, Alg::Eea3)?;
    if outs.len() != msgs.len() {
        return Err(Error::invalid(format!("{} output buffers for {} messages", outs.len(), msgs.len())));
    }
    for (i, (c, o)) in checked.iter().zip(outs.iter()).enumerate() {
        check_out_len(c.out_len(), o.len()).map_err(|e| Error::invalid(format!("message {i}: {e}")))?;
    }
    match lanes {
        #[cfg(target_arch = "x86_64")]
        Lanes::Gfni512(t, _) => eea3_x16(t, msgs, &checked, outs),
        #[cfg(target_arch = "x86_64")]
        Lanes::Avx2(sbox) => eea3_x8(sbox, msgs, &checked, outs),
        Lanes::One(kernel) => {
            for (m, out) in msgs.iter().zip(outs.iter_mut()) {
                ops::eea3_into_on(kernel, m.key, m.count, m.bearer, m.direction, m.data, m.length_bits, out)?;
            }
        }
    }
    Ok(())
}

/// [`eea3_many_into`] in eight lanes of ymm registers, two register sets
/// interleaved. `outs` have been checked against `checked`.
#[cfg(target_arch = "x86_64")]
fn eea3_x8(sbox: x86::Sbox, msgs: &[Message<'_>], checked: &[Checked], outs: &mut [&mut [u8]]) {
    use super::x86::{xor_be, Lanes as X8, BLOCK, LANES};
    let token = match sbox {
        x86::Sbox::Aesni(t) | x86::Sbox::Gfni(t, _) => t,
    };
    let lens: Vec<usize> = outs.iter().map(|o| o.len()).collect();
    // Groups of two register sets of eight lanes (see Lanes::block_pair).
    for group in groups(&lens, 2 * LANES) {
        let mut keys = [[[0u8; 16]; LANES]; 2];
        let mut ivs = [[[0u8; 16]; LANES]; 2];
        for (l, &i) in group.iter().enumerate() {
            keys[l / LANES][l % LANES] = checked[i].key;
            ivs[l / LANES][l % LANES] = checked[i].iv;
        }
        let pair = group.len() > LANES;
        let mut la = X8::new_128(sbox, &keys[0], &ivs[0]);
        let mut lb = pair.then(|| X8::new_128(sbox, &keys[1], &ivs[1]));
        keys.zeroize();
        let mut ks = [[[0u32; BLOCK]; LANES]; 2];
        let longest = group.iter().map(|&i| lens[i]).max().unwrap_or(0);
        let mut off = 0;
        while off < longest {
            let (ka, kb) = ks.split_at_mut(1);
            match lb.as_mut() {
                Some(lb) => X8::block_pair(sbox, &mut la, lb, &mut ka[0], &mut kb[0]),
                None => la.block(sbox, &mut ka[0]),
            }
            for (l, &i) in group.iter().enumerate() {
                if off < lens[i] {
                    let end = (off + 4 * BLOCK).min(lens[i]);
                    xor_be(token, &ks[l / LANES][l % LANES], &msgs[i].data[off..end], &mut outs[i][off..end]);
                }
            }
            off += 4 * BLOCK;
        }
        ks.zeroize();
    }
    for (c, out) in checked.iter().zip(outs.iter_mut()) {
        spec::clear_tail_bits(out, c.length_bits);
    }
}

/// [`eea3_many_into`] in sixteen lanes of zmm registers: groups of sixteen
/// messages of similar lengths. `outs` have been checked against `checked`.
#[cfg(target_arch = "x86_64")]
fn eea3_x16(t: crate::cpu::GfniAvx512, msgs: &[Message<'_>], checked: &[Checked], outs: &mut [&mut [u8]]) {
    use super::x86::{eea3_x16, LANES16 as LANES};
    let lens: Vec<usize> = outs.iter().map(|o| o.len()).collect();
    // Each output is taken out of `outs` once (the groups are disjoint).
    let mut slots: Vec<Option<&mut [u8]>> = outs.iter_mut().map(|o| Some(&mut **o)).collect();
    for group in groups(&lens, LANES) {
        let mut keys = [[0u8; 16]; LANES];
        let mut ivs = [[0u8; 16]; LANES];
        for (l, &i) in group.iter().enumerate() {
            keys[l] = checked[i].key;
            ivs[l] = checked[i].iv;
        }
        let src: Vec<&[u8]> = group.iter().map(|&i| msgs[i].data).collect();
        let mut dst: Vec<&mut [u8]> = group.iter().filter_map(|&i| slots[i].take()).collect();
        eea3_x16(t, &keys, &ivs, &src, &mut dst);
        keys.zeroize();
    }
    for (c, out) in checked.iter().zip(outs.iter_mut()) {
        spec::clear_tail_bits(out, c.length_bits);
    }
}

/// The end of an EIA3 tag once every whole message word has been folded in:
/// the last partial word, the window right after the message and the final
/// keystream word. `win` holds keystream words `base ..` (base <= the number
/// of whole message words, and 3 words past it available).
#[cfg(target_arch = "x86_64")]
fn eia3_tail(win: &[u32], base: usize, data: &[u8], length_bits: usize) -> u32 {
    let full = length_bits / 32;
    debug_assert!(base <= full && length_bits.div_ceil(32) + 1 < base + win.len());
    let at = |w: usize| win[w - base];
    let mut t = 0u32;
    let rem = length_bits % 32;
    if let Some(m) = spec::last_partial_word(data, length_bits) {
        t ^= spec::window_word(m, at(full), at(full + 1));
    }
    t ^= spec::window_at(&win[full - base..], rem);
    // MAC = T ^ z_{L-1}, L = ceil(LENGTH/32) + 2 words
    t ^= at(length_bits.div_ceil(32) + 1);
    t
}

/// 128-EIA3 of every message: `out[i]` is `eia3(msgs[i]...)`.
pub fn eia3_many(msgs: &[Message<'_>]) -> Result<Vec<[u8; 4]>> {
    eia3_many_on(Kernel::auto().lanes(), msgs)
}

/// [`eia3_many`] on `lanes`.
pub(crate) fn eia3_many_on(lanes: Lanes, msgs: &[Message<'_>]) -> Result<Vec<[u8; 4]>> {
    let checked = check_all(msgs, Alg::Eia3)?;
    match lanes {
        #[cfg(target_arch = "x86_64")]
        Lanes::Gfni512(_, sbox) | Lanes::Avx2(sbox) => Ok(eia3_x8(sbox, msgs, &checked)),
        Lanes::One(kernel) => checked
            .iter()
            .zip(msgs)
            .map(|(c, m)| {
                let st = State::new_128(&c.key, &c.iv, kernel);
                Ok(mac::mac_words(st, kernel, m.data, c.length_bits, 1, 0)[0].to_be_bytes())
            })
            .collect(),
    }
}

/// [`eia3_many`] in eight lanes of ymm registers.
#[cfg(target_arch = "x86_64")]
fn eia3_x8(sbox: x86::Sbox, msgs: &[Message<'_>], checked: &[Checked]) -> Vec<[u8; 4]> {
    {
        use super::x86::{Lanes, BLOCK, LANES};
        // A lane has all it needs once 16 words past its last whole message
        // word were generated (the tail reads up to 2 words past it), and at
        // least two blocks (so that `win` is full).
        let needed: Vec<usize> = checked.iter().map(|c| (c.length_bits / 32 + BLOCK).max(2 * BLOCK)).collect();
        let mut tags = vec![[0u8; 4]; msgs.len()];
        let steps = match sbox {
            x86::Sbox::Aesni(t) | x86::Sbox::Gfni(t, _) => super::kernel::Steps::Simd(t),
        };
        for group in groups(&needed, LANES) {
            let mut keys = [[0u8; 16]; LANES];
            let mut ivs = [[0u8; 16]; LANES];
            for (l, &i) in group.iter().enumerate() {
                keys[l] = checked[i].key;
                ivs[l] = checked[i].iv;
            }
            let mut lanes = Lanes::new_128(sbox, &keys, &ivs);
            keys.zeroize();
            let longest = group.iter().map(|&i| needed[i]).max().unwrap_or(0);
            // Per lane: the last two blocks of keystream and the running tag.
            let mut win = [[0u32; 2 * BLOCK]; LANES];
            let mut acc = [0u32; LANES];
            let mut ks = [[0u32; BLOCK]; LANES];
            let mut have = 0;
            while have < longest {
                lanes.block(sbox, &mut ks);
                have += BLOCK;
                for (l, &i) in group.iter().enumerate() {
                    if have - BLOCK >= needed[i] {
                        continue; // this lane was finished by an earlier block
                    }
                    win[l].copy_within(BLOCK.., 0);
                    win[l][BLOCK..].copy_from_slice(&ks[l]);
                    // win holds words have-32 .. have; message words have-32 ..
                    // have-16 have their two keystream words now.
                    let full = checked[i].length_bits / 32;
                    if have >= 2 * BLOCK {
                        let j0 = have - 2 * BLOCK;
                        let j1 = (have - BLOCK).min(full);
                        if j0 < j1 {
                            let msg = &msgs[i].data[4 * j0..4 * j1];
                            acc[l] ^= steps.window_xor(msg, &win[l][..j1 - j0 + 1]);
                        }
                    }
                    if have >= needed[i] {
                        let tail = eia3_tail(&win[l], have - 2 * BLOCK, msgs[i].data, checked[i].length_bits);
                        tags[i] = (acc[l] ^ tail).to_be_bytes();
                    }
                }
            }
            ks.zeroize();
            win.zeroize();
            acc.zeroize();
        }
        tags
    }
}
