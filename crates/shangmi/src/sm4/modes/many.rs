//! Many independent SM4-CBC messages under one key.
//!
//! CBC encryption is serial within a message, so one message runs at the
//! latency of the block function. Independent messages are not: on the
//! SIMD backends, batches of 1, 2 or 4 register groups' worth of messages
//! (16 per group on 512-bit registers) run side by side with their chains
//! kept in registers; the few messages left over run interleaved, up to
//! [`LANES`] in flight through the backend's parallel path (the one ECB
//! uses). Decryption is parallel within a message already and runs message
//! by message.

use zeroize::Zeroize;

use super::{self as modes, cbc_decrypt_expanded};
use crate::sm4::{Sm4, BLOCK_SIZE};
use crate::{Error, Result};

/// Messages in flight: the 64 blocks the widest backend keeps in flight.
const LANES: usize = 64;

fn iv_of(i: usize, iv: &[u8]) -> Result<[u8; 16]> {
    iv.try_into().map_err(|_| Error::invalid(format!("message {i}: IV must be 16 bytes, got {}", iv.len())))
}

/// Prefixes an error about message `i` with its index.
fn at(i: usize, e: Error) -> Error {
    match e {
        Error::InvalidInput(m) => Error::InvalidInput(format!("message {i}: {m}")),
        e => e,
    }
}

/// SM4-CBC encryption of independent `(iv, data)` messages under one key,
/// with PKCS#7 padding when `padding` (else every message must be whole
/// blocks). Returns the ciphertexts in order; an error names the index of
/// the first bad message. The result equals encrypting each message alone.
pub fn cbc_encrypt_many(c: &Sm4, items: &[(&[u8], &[u8])], padding: bool) -> Result<Vec<Vec<u8>>> {
    let mut chains = Vec::with_capacity(items.len());
    let mut outs = Vec::with_capacity(items.len());
    for (i, (iv, data)) in items.iter().enumerate() {
        chains.push(iv_of(i, iv)?);
        modes::encrypted_len(data.len(), padding).map_err(|e| at(i, e))?;
        outs.push(if padding { modes::pad(data) } else { data.to_vec() });
    }
    cbc_encrypt_many_in_place(c, &mut chains, &mut outs);
    chains.zeroize();
    Ok(outs)
}

/// SM4-CBC encryption in place of independent messages of whole blocks
/// (no padding), each chained from `chains[i]`, which ends holding the
/// message's last ciphertext block. The engine of [`cbc_encrypt_many`],
/// for callers that lay out and pad their messages themselves (the TLCP
/// record layer).
///
/// # Panics
/// If the lists differ in length or a message is not whole blocks.
pub fn cbc_encrypt_many_in_place<T: AsMut<[u8]>>(c: &Sm4, chains: &mut [[u8; 16]], msgs: &mut [T]) {
    assert_eq!(chains.len(), msgs.len(), "one chaining value per message");
    assert!(msgs.iter_mut().all(|m| m.as_mut().len().is_multiple_of(BLOCK_SIZE)), "whole blocks only");
    let rest = lanes(c, chains, msgs);
    interleaved(c, chains, msgs, &rest);
}

/// Runs the backend's side-by-side kernel on batches of messages of similar
/// length (by public lengths only): each batch runs in lockstep for as many
/// blocks as its shortest message has, and the rest of each message goes
/// through the serial path. Returns the messages left for [`interleaved`]
/// (fewer than a batch, or all of them when the backend has no kernel).
fn lanes<T: AsMut<[u8]>>(c: &Sm4, chains: &mut [[u8; 16]], outs: &mut [T]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..outs.len()).filter(|&i| !outs[i].as_mut().is_empty()).collect();
    let width = match c.cbc_lanes_width() {
        Some(w) if order.len() >= w => w,
        _ => return order,
    };
    order.sort_by_key(|&i| outs[i].as_mut().len());
    let mut slots: Vec<Option<(&mut [u8], &mut [u8; 16])>> =
        outs.iter_mut().zip(chains.iter_mut()).map(|(o, ch)| Some((o.as_mut(), ch))).collect();
    let mut at = 0;
    while order.len() - at >= width {
        let left = order.len() - at;
        let n = width
            * if left >= 4 * width {
                4
            } else if left >= 2 * width {
                2
            } else {
                1
            };
        let mut bufs = Vec::with_capacity(n);
        let mut links = Vec::with_capacity(n);
        for &m in &order[at..at + n] {
            let (b, ch) = slots[m].take().expect("each message is in one batch");
            bufs.push(b);
            links.push(ch);
        }
        let blocks = bufs.iter().map(|b| b.len()).min().unwrap_or(0) / BLOCK_SIZE;
        let mut ch: Vec<[u8; 16]> = links.iter().map(|l| **l).collect();
        c.cbc_encrypt_lanes(&mut ch, &mut bufs, blocks);
        for ((b, l), v) in bufs.iter_mut().zip(links.iter_mut()).zip(ch.iter_mut()) {
            c.cbc_encrypt_serial(v, &mut b[blocks * BLOCK_SIZE..]);
            **l = *v;
        }
        ch.zeroize();
        at += n;
    }
    order.split_off(at)
}

/// Keeps up to [`LANES`] of the messages `which` in flight, one block of
/// each per step through the backend's parallel path; a message that ends
/// makes room for the next one.
fn interleaved<T: AsMut<[u8]>>(c: &Sm4, chains: &mut [[u8; 16]], outs: &mut [T], which: &[usize]) {
    // (message, offset of its next block)
    let mut active: Vec<(usize, usize)> = Vec::with_capacity(LANES);
    let mut next = 0;
    let mut buf = [0u8; LANES * BLOCK_SIZE];
    loop {
        while active.len() < LANES && next < which.len() {
            if !outs[which[next]].as_mut().is_empty() {
                active.push((which[next], 0));
            }
            next += 1;
        }
        if active.is_empty() {
            break;
        }
        for (b, &(m, off)) in buf.chunks_exact_mut(BLOCK_SIZE).zip(active.iter()) {
            for ((d, p), k) in b.iter_mut().zip(&outs[m].as_mut()[off..off + BLOCK_SIZE]).zip(chains[m].iter()) {
                *d = p ^ k;
            }
        }
        let n = active.len() * BLOCK_SIZE;
        c.encrypt_blocks(&mut buf[..n]);
        for (b, (m, off)) in buf.chunks_exact(BLOCK_SIZE).zip(active.iter_mut()) {
            outs[*m].as_mut()[*off..*off + BLOCK_SIZE].copy_from_slice(b);
            chains[*m].copy_from_slice(b);
            *off += BLOCK_SIZE;
        }
        active.retain(|&(m, off)| off < outs[m].as_mut().len());
    }
    buf.zeroize();
}

/// SM4-CBC decryption of independent `(iv, ciphertext)` messages under one
/// key (PKCS#7 padding removed and checked when `padding`). An error names
/// the index of the first bad message.
pub fn cbc_decrypt_many(c: &Sm4, items: &[(&[u8], &[u8])], padding: bool) -> Result<Vec<Vec<u8>>> {
    let mut ivs = Vec::with_capacity(items.len());
    for (i, (iv, _)) in items.iter().enumerate() {
        ivs.push(iv_of(i, iv)?);
    }
    let out = items
        .iter()
        .zip(ivs.iter())
        .enumerate()
        .map(|(i, ((_, data), iv))| cbc_decrypt_expanded(c, iv, data, padding).map_err(|e| at(i, e)))
        .collect();
    ivs.zeroize();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sm4::{cbc_encrypt_expanded, Backend};

    #[test]
    fn many_equals_one_by_one_on_every_backend() {
        let key = [9u8; 16];
        // Lengths that end at different steps, empty ones, and more
        // messages than lanes so that refilling is exercised.
        let lens: Vec<usize> = (0..150).map(|i| (i * 37) % 300).collect();
        let msgs: Vec<Vec<u8>> = lens.iter().map(|&n| (0..n).map(|j| (j * 7 + n) as u8).collect()).collect();
        let ivs: Vec<[u8; 16]> = (0..lens.len()).map(|i| [i as u8; 16]).collect();
        let items: Vec<(&[u8], &[u8])> = ivs.iter().zip(msgs.iter()).map(|(iv, m)| (&iv[..], &m[..])).collect();
        for b in Backend::available() {
            let c = Sm4::with_backend(&key, b).unwrap();
            let got = cbc_encrypt_many(&c, &items, true).unwrap();
            for (i, (iv, m)) in ivs.iter().zip(msgs.iter()).enumerate() {
                assert_eq!(got[i], cbc_encrypt_expanded(&c, iv, m, true).unwrap(), "{b:?} message {i}");
            }
            let back: Vec<(&[u8], &[u8])> = ivs.iter().zip(got.iter()).map(|(iv, m)| (&iv[..], &m[..])).collect();
            assert_eq!(cbc_decrypt_many(&c, &back, true).unwrap(), msgs, "{b:?}");
        }
    }

    #[test]
    fn batches_of_every_size_equal_one_by_one() {
        // 16, 32 and 64 equal messages fill one, two and four groups of the
        // widest kernel; 83 leaves some for the interleaved loop; a mix of
        // lengths makes the lockstep part stop before the longest ends.
        let key = [3u8; 16];
        for (count, len) in [(16usize, 16 * 40), (32, 48), (64, 32), (83, 16 * 5), (20, 0)] {
            let msgs: Vec<Vec<u8>> =
                (0..count).map(|i| (0..len + 16 * (i % 3)).map(|j| (i * 31 + j) as u8).collect()).collect();
            let ivs: Vec<[u8; 16]> = (0..count).map(|i| [(i * 7) as u8; 16]).collect();
            let items: Vec<(&[u8], &[u8])> = ivs.iter().zip(msgs.iter()).map(|(iv, m)| (&iv[..], &m[..])).collect();
            for b in Backend::available() {
                let c = Sm4::with_backend(&key, b).unwrap();
                let got = cbc_encrypt_many(&c, &items, false).unwrap();
                for (i, (iv, m)) in ivs.iter().zip(msgs.iter()).enumerate() {
                    assert_eq!(
                        got[i],
                        cbc_encrypt_expanded(&c, iv, m, false).unwrap(),
                        "{b:?} {count}x{len} message {i}"
                    );
                }
            }
        }
    }

    #[test]
    fn errors_name_the_message() {
        let c = Sm4::new(&[1; 16]);
        let e = cbc_encrypt_many(&c, &[(&[0; 16], b"x"), (&[0; 15], b"y")], true).unwrap_err();
        assert!(e.to_string().contains("message 1: IV must be 16 bytes, got 15"), "{e}");
        let e = cbc_encrypt_many(&c, &[(&[0; 16], &[0; 16]), (&[0; 16], b"abc")], false).unwrap_err();
        assert!(e.to_string().contains("message 1:"), "{e}");
        let e = cbc_decrypt_many(&c, &[(&[0; 16], &[0; 16])], true).unwrap_err();
        assert!(e.to_string().contains("message 0:"), "{e}");
    }
}
