//! SM4 against every entry of tests/vectors/sm4.json and the Wycheproof
//! SM4-GCM/CCM files, on every backend this CPU can run (each backend is
//! selected explicitly, whatever SHANGMI_CPU_DISABLE masks).

use crate::common;

use common::Value;
use shangmi::sm4::{self, Backend, Ccm, Gcm, Sm4, Xts, XtsStandard};
use shangmi::Error;

fn load(rel: &str) -> Value {
    common::json(rel)
}

/// Field `k` as hex bytes; an absent field (no AAD, empty message) is empty.
fn hx(v: &Value, k: &str) -> Vec<u8> {
    v.get(k).map_or_else(Vec::new, common::hexv)
}

fn key16(v: &[u8]) -> [u8; 16] {
    common::arr(v)
}

fn entries<'a>(d: &'a Value, k: &str) -> &'a Vec<Value> {
    d[k].as_array().unwrap()
}

fn cipher(key: &[u8], b: Backend) -> Sm4 {
    Sm4::with_backend(&key16(key), b).unwrap()
}

#[test]
fn block_and_key_schedule() {
    let d = load("sm4.json");
    for b in Backend::available() {
        for e in entries(&d, "block") {
            let c = cipher(&hx(e, "key"), b);
            let mut x = key16(&hx(e, "plaintext"));
            let n = e["iterations"].as_u64().unwrap_or(1);
            for _ in 0..n {
                c.encrypt_block(&mut x);
            }
            assert_eq!(x.to_vec(), hx(e, "ciphertext"), "{b:?} {}", e["id"]);
            for _ in 0..n {
                c.decrypt_block(&mut x);
            }
            assert_eq!(x.to_vec(), hx(e, "plaintext"), "{b:?} {}", e["id"]);
        }
        for e in entries(&d, "key_schedule") {
            let c = cipher(&hx(e, "key"), b);
            let want: Vec<u32> = e["round_keys"]
                .as_array()
                .unwrap()
                .iter()
                .map(|w| u32::from_str_radix(w.as_str().unwrap(), 16).unwrap())
                .collect();
            assert_eq!(c.round_keys().to_vec(), want);
        }
    }
}

#[test]
fn backends_agree_on_many_blocks() {
    // Every length from 0 to 40 blocks exercises the 16-block kernel and its tail.
    let key = [7u8; 16];
    let data: Vec<u8> = (0..40 * 16).map(|i| (i * 31 + 5) as u8).collect();
    let p = Sm4::with_backend(&key, Backend::Portable).unwrap();
    for b in Backend::available() {
        let c = cipher(&key, b);
        for n in 0..=40 {
            let mut want = data[..16 * n].to_vec();
            for blk in want.chunks_exact_mut(16) {
                let blk: &mut [u8; 16] = blk.try_into().unwrap();
                p.encrypt_block(blk);
            }
            let mut got = data[..16 * n].to_vec();
            c.encrypt_blocks(&mut got);
            assert_eq!(got, want, "{b:?} {n} blocks");
            c.decrypt_blocks(&mut got);
            assert_eq!(got, data[..16 * n], "{b:?} {n} blocks");
        }
    }
}

#[test]
fn ecb_cbc_ctr_cfb_ofb() {
    let d = load("sm4.json");
    for b in Backend::available() {
        for e in entries(&d, "ecb") {
            let c = cipher(&hx(e, "key"), b);
            let (p, ct) = (hx(e, "plaintext"), hx(e, "ciphertext"));
            assert_eq!(sm4::ecb_encrypt(&c, &p, false).unwrap(), ct, "{}", e["id"]);
            assert_eq!(sm4::ecb_decrypt(&c, &ct, false).unwrap(), p, "{}", e["id"]);
        }
        for e in entries(&d, "cbc") {
            let c = cipher(&hx(e, "key"), b);
            let iv = key16(&hx(e, "iv"));
            let (p, ct) = (hx(e, "plaintext"), hx(e, "ciphertext"));
            assert_eq!(sm4::cbc_encrypt_expanded(&c, &iv, &p, false).unwrap(), ct, "{}", e["id"]);
            assert_eq!(sm4::cbc_decrypt_expanded(&c, &iv, &ct, false).unwrap(), p, "{}", e["id"]);
            // Streaming, one byte at a time.
            let mut enc = sm4::CbcEncryptor::new(c.clone(), &iv, false);
            let mut out: Vec<u8> = p.iter().flat_map(|x| enc.update(&[*x])).collect();
            out.extend(enc.finalize().unwrap());
            assert_eq!(out, ct);
            let mut dec = sm4::CbcDecryptor::new(c.clone(), &iv, false);
            let mut out: Vec<u8> = ct.iter().flat_map(|x| dec.update(&[*x])).collect();
            out.extend(dec.finalize().unwrap());
            assert_eq!(out, p);
        }
        for e in entries(&d, "ctr") {
            let c = cipher(&hx(e, "key"), b);
            let iv = key16(&hx(e, "iv"));
            let (p, ct) = (hx(e, "plaintext"), hx(e, "ciphertext"));
            let mut x = p.clone();
            sm4::ctr_apply_in_place(&c, &iv, &mut x);
            assert_eq!(x, ct, "{}", e["id"]);
            let mut s = sm4::CtrStream::new(c.clone(), &iv);
            let mut y = ct.clone();
            for piece in y.chunks_mut(7) {
                s.apply(piece);
            }
            assert_eq!(y, p, "{}", e["id"]);
        }
        for e in entries(&d, "cfb") {
            let c = cipher(&hx(e, "key"), b);
            let iv = key16(&hx(e, "iv"));
            let (p, ct) = (hx(e, "plaintext"), hx(e, "ciphertext"));
            let mut x = p.clone();
            sm4::cfb_encrypt_in_place(&c, &iv, &mut x);
            assert_eq!(x, ct, "{}", e["id"]);
            sm4::cfb_decrypt_in_place(&c, &iv, &mut x);
            assert_eq!(x, p, "{}", e["id"]);
        }
        for e in entries(&d, "ofb") {
            let c = cipher(&hx(e, "key"), b);
            let iv = key16(&hx(e, "iv"));
            let (p, ct) = (hx(e, "plaintext"), hx(e, "ciphertext"));
            let mut x = p.clone();
            sm4::ofb_apply_in_place(&c, &iv, &mut x);
            assert_eq!(x, ct, "{}", e["id"]);
        }
    }
}

#[test]
fn ctr_counter_wraps_all_128_bits() {
    // Independent check: the block after ff..ff is 00..00, computed with ECB.
    for b in Backend::available() {
        let c = cipher(&[1u8; 16], b);
        let mut x = vec![0u8; 48];
        sm4::ctr_apply_in_place(&c, &[0xff; 16], &mut x);
        let mut blocks = [[0xffu8; 16], [0u8; 16], [0u8; 16]];
        blocks[2][15] = 1;
        for blk in &mut blocks {
            c.encrypt_block(blk);
        }
        assert_eq!(x, blocks.concat());
    }
}

#[test]
fn cbc_decrypt_long_matches_block_by_block() {
    // P_i = D(C_i) xor C_{i-1}, computed here one block at a time.
    for b in Backend::available() {
        let c = cipher(&[0x61u8; 16], b);
        for n in [1usize, 31, 32, 33, 64, 65, 100, 130, 193] {
            let ct: Vec<u8> = (0..16 * n).map(|i| (i * 131 + 7) as u8).collect();
            let iv = [0x0fu8; 16];
            let mut want = Vec::new();
            let mut prev = iv;
            for blk in ct.chunks_exact(16) {
                let mut x: [u8; 16] = blk.try_into().unwrap();
                c.decrypt_block(&mut x);
                want.extend(x.iter().zip(prev.iter()).map(|(a, b)| a ^ b));
                prev.copy_from_slice(blk);
            }
            assert_eq!(sm4::cbc_decrypt_expanded(&c, &iv, &ct, false).unwrap(), want, "{b:?} {n}");
            // Out of place: the fused kernel reads `ct` directly.
            let mut out = vec![0u8; ct.len()];
            sm4::cbc_decrypt_into(&c, &iv, &ct, &mut out).unwrap();
            assert_eq!(out, want, "{b:?} {n} into");
            // ECB out of place against the block-by-block decryption.
            let mut ecb_want = ct.clone();
            for blk in ecb_want.chunks_exact_mut(16) {
                c.decrypt_block(blk.try_into().unwrap());
            }
            sm4::ecb_decrypt_into(&c, &ct, &mut out).unwrap();
            assert_eq!(out, ecb_want, "{b:?} {n} ecb into");
            // Streaming in uneven pieces crosses the fused groups' boundaries.
            let mut d = sm4::CbcDecryptor::new(c.clone(), &iv, false);
            let mut got = Vec::new();
            for piece in ct.chunks(700) {
                got.extend(d.update(piece));
            }
            got.extend(d.finalize().unwrap());
            assert_eq!(got, want, "{b:?} {n} streaming");
        }
    }
}

#[test]
fn ctr_long_runs_across_word_and_full_wraps() {
    // Counter blocks computed independently with u128 arithmetic and ECB;
    // long enough for the 32-block SIMD path, starting near each carry.
    let starts = [0u128, 0xffff_fff0, (1u128 << 64) - 3, u128::MAX - 40, 0x1234_5678_9abc_def0_0000_0000_ffff_ffe7];
    for b in Backend::available() {
        let c = cipher(&[9u8; 16], b);
        for &s in &starts {
            for nblocks in [1usize, 31, 32, 33, 64, 100, 129, 200] {
                let mut want: Vec<u8> = (0..nblocks).flat_map(|i| s.wrapping_add(i as u128).to_be_bytes()).collect();
                for blk in want.chunks_exact_mut(16) {
                    let blk: &mut [u8; 16] = blk.try_into().unwrap();
                    c.encrypt_block(blk);
                }
                let mut got = vec![0u8; 16 * nblocks];
                sm4::ctr_apply_in_place(&c, &s.to_be_bytes(), &mut got);
                assert_eq!(got, want, "{b:?} start {s:#x} {nblocks} blocks");
                // Out of place, with a partial last block, on nonzero data.
                let data: Vec<u8> = (0..16 * nblocks - 5).map(|i| (i * 7 + 3) as u8).collect();
                let mut out = vec![0u8; data.len()];
                sm4::ctr_apply_into(&c, &s.to_be_bytes(), &data, &mut out).unwrap();
                let xored: Vec<u8> = data.iter().zip(&want).map(|(d, k)| d ^ k).collect();
                assert_eq!(out, xored, "{b:?} start {s:#x} {nblocks} blocks into");
            }
        }
    }
}

#[test]
fn gcm_vectors() {
    let d = load("sm4.json");
    for b in Backend::available() {
        for e in entries(&d, "gcm") {
            let tl = e["tag_bytes"].as_u64().unwrap() as usize;
            let g = Gcm::with_cipher(cipher(&hx(e, "key"), b), tl);
            let (iv, aad, p) = (hx(e, "iv"), hx(e, "aad"), hx(e, "plaintext"));
            let mut want = hx(e, "ciphertext");
            want.extend(hx(e, "tag"));
            assert_eq!(g.encrypt(&iv, &aad, &p).unwrap(), want, "{b:?} {}", e["id"]);
            assert_eq!(g.decrypt(&iv, &aad, &want).unwrap(), p, "{b:?} {}", e["id"]);
            let mut out = vec![0u8; p.len()];
            let tag = g.encrypt_into_detached(&iv, &aad, &p, &mut out).unwrap();
            assert_eq!([&out[..], &tag[..tl]].concat(), want, "{b:?} {} into", e["id"]);
            // Streaming in odd pieces.
            let mut enc = g.encryptor(&iv, &aad).unwrap();
            let mut ct = p.clone();
            for piece in ct.chunks_mut(5) {
                enc.update_in_place(piece).unwrap();
            }
            ct.extend(enc.finalize());
            assert_eq!(ct, want);
            let mut dec = g.decryptor(&iv, &aad).unwrap();
            let mut pt = hx(e, "ciphertext");
            for piece in pt.chunks_mut(3) {
                dec.update_in_place(piece).unwrap();
            }
            dec.finalize(&hx(e, "tag")).unwrap();
            assert_eq!(pt, p);
        }
    }
}

#[test]
fn ccm_vectors() {
    let d = load("sm4.json");
    for b in Backend::available() {
        for e in entries(&d, "ccm") {
            let tl = e["tag_bytes"].as_u64().unwrap() as usize;
            let c = Ccm::with_cipher(cipher(&hx(e, "key"), b), tl).unwrap();
            let (iv, aad, p) = (hx(e, "iv"), hx(e, "aad"), hx(e, "plaintext"));
            let mut want = hx(e, "ciphertext");
            want.extend(hx(e, "tag"));
            assert_eq!(c.encrypt(&iv, &aad, &p).unwrap(), want, "{b:?} {}", e["id"]);
            assert_eq!(c.decrypt(&iv, &aad, &want).unwrap(), p, "{b:?} {}", e["id"]);
        }
    }
}

#[test]
fn xts_vectors() {
    let d = load("sm4.json");
    for e in entries(&d, "xts") {
        let std =
            if e["xts_variant"].as_str().unwrap().starts_with("IEEE") { XtsStandard::Ieee } else { XtsStandard::Gb };
        let x = Xts::new(&hx(e, "key"), std).unwrap();
        let tw = key16(&hx(e, "tweak"));
        let (p, ct) = (hx(e, "plaintext"), hx(e, "ciphertext"));
        let mut buf = p.clone();
        x.encrypt_in_place(&tw, &mut buf).unwrap();
        assert_eq!(buf, ct, "{}", e["id"]);
        x.decrypt_in_place(&tw, &mut buf).unwrap();
        assert_eq!(buf, p, "{}", e["id"]);
    }
}

/// Multiplication of a tweak by x, written independently of the library:
/// IEEE 1619 on little-endian bytes, GB/T 17964 bit-reflected big-endian.
fn times_x(t: [u8; 16], ieee: bool) -> [u8; 16] {
    let mut out = [0u8; 16];
    if ieee {
        let carry = t[15] >> 7;
        for i in (1..16).rev() {
            out[i] = (t[i] << 1) | (t[i - 1] >> 7);
        }
        out[0] = (t[0] << 1) ^ (0x87 * carry);
    } else {
        let carry = t[15] & 1;
        for i in (1..16).rev() {
            out[i] = (t[i] >> 1) | (t[i - 1] << 7);
        }
        out[0] = (t[0] >> 1) ^ (0xe1 * carry);
    }
    out
}

#[test]
fn xts_long_matches_block_by_block() {
    let key: Vec<u8> = (0..32).map(|i| (i * 7 + 1) as u8).collect();
    let (k1, k2) = (Sm4::from_slice(&key[..16]).unwrap(), Sm4::from_slice(&key[16..]).unwrap());
    for (std, ieee) in [(XtsStandard::Gb, false), (XtsStandard::Ieee, true)] {
        let x = Xts::new(&key, std).unwrap();
        for len in [16 * 100, 16 * 100 + 5, 16 * 70 + 15] {
            let p: Vec<u8> = (0..len).map(|i| (i * 13 + 3) as u8).collect();
            let mut t = [0x42u8; 16];
            k2.encrypt_block(&mut t);
            let whole = len / 16;
            let mut want = p.clone();
            let mut tweaks = Vec::new();
            for _ in 0..whole + 1 {
                tweaks.push(t);
                t = times_x(t, ieee);
            }
            let xex = |b: &mut [u8], tw: &[u8; 16]| {
                let mut v: [u8; 16] = b.try_into().unwrap();
                v.iter_mut().zip(tw).for_each(|(a, b)| *a ^= b);
                k1.encrypt_block(&mut v);
                v.iter_mut().zip(tw).for_each(|(a, b)| *a ^= b);
                b.copy_from_slice(&v);
            };
            for (i, blk) in want.chunks_exact_mut(16).enumerate() {
                xex(blk, &tweaks[i]);
            }
            let r = len % 16;
            if r != 0 {
                // IEEE 1619 ciphertext stealing on the last whole block.
                let last = 16 * (whole - 1);
                let cc: Vec<u8> = want[last..last + 16].to_vec();
                let mut pp = [0u8; 16];
                pp[..r].copy_from_slice(&p[len - r..]);
                pp[r..].copy_from_slice(&cc[r..]);
                xex(&mut pp, &tweaks[whole]);
                want[len - r..].copy_from_slice(&cc[..r]);
                want[last..last + 16].copy_from_slice(&pp);
            }
            let mut got = p.clone();
            x.encrypt_in_place(&[0x42; 16], &mut got).unwrap();
            assert_eq!(got, want, "{std:?} {len}");
            x.decrypt_in_place(&[0x42; 16], &mut got).unwrap();
            assert_eq!(got, p, "{std:?} {len}");
        }
    }
}

#[test]
fn xts_stealing_round_trips() {
    for std in [XtsStandard::Gb, XtsStandard::Ieee] {
        let key: Vec<u8> = (0..32u8).collect();
        let x = Xts::new(&key, std).unwrap();
        for n in 16..100 {
            let p: Vec<u8> = (0..n).map(|i| i as u8).collect();
            let mut buf = p.clone();
            x.encrypt_in_place(&[9; 16], &mut buf).unwrap();
            assert_ne!(buf, p);
            x.decrypt_in_place(&[9; 16], &mut buf).unwrap();
            assert_eq!(buf, p, "{std:?} {n}");
        }
        assert!(x.encrypt_in_place(&[0; 16], &mut [0u8; 15]).is_err());
    }
}

fn wycheproof(file: &str, ccm: bool) {
    let d = load(&format!("wycheproof/{file}"));
    let mut seen = (0, 0);
    for b in Backend::available() {
        for g in d["testGroups"].as_array().unwrap() {
            let tl = g["tagSize"].as_u64().unwrap() as usize / 8;
            for t in g["tests"].as_array().unwrap() {
                let (key, iv, aad, msg) = (hx(t, "key"), hx(t, "iv"), hx(t, "aad"), hx(t, "msg"));
                let mut ct = hx(t, "ct");
                ct.extend(hx(t, "tag"));
                let valid = t["result"] == "valid";
                let (enc, dec) = if ccm {
                    match Ccm::new(&key, tl) {
                        Ok(c) => {
                            let c = Ccm::with_cipher(cipher(&key, b), c.tag_len()).unwrap();
                            (c.encrypt(&iv, &aad, &msg), c.decrypt(&iv, &aad, &ct))
                        }
                        Err(e) => (Err(e.clone()), Err(e)),
                    }
                } else {
                    match Gcm::new(&key, tl) {
                        Ok(_) => {
                            let g = Gcm::with_cipher(cipher(&key, b), tl);
                            (g.encrypt(&iv, &aad, &msg), g.decrypt(&iv, &aad, &ct))
                        }
                        Err(e) => (Err(e.clone()), Err(e)),
                    }
                };
                if valid {
                    assert_eq!(enc.unwrap(), ct, "{file} {b:?} tc {}", t["tcId"]);
                    assert_eq!(dec.unwrap(), msg, "{file} {b:?} tc {}", t["tcId"]);
                    seen.0 += 1;
                } else {
                    assert!(dec.is_err(), "{file} {b:?} tc {} accepted", t["tcId"]);
                    let flags = t["flags"].to_string();
                    if flags.contains("ModifiedTag") {
                        assert_eq!(dec.unwrap_err(), Error::InvalidTag);
                    } else {
                        assert!(matches!(dec.unwrap_err(), Error::InvalidInput(_)), "tc {}", t["tcId"]);
                    }
                    seen.1 += 1;
                }
            }
        }
    }
    assert!(seen.0 > 0 && seen.1 > 0);
}

#[test]
fn wycheproof_gcm() {
    wycheproof("sm4_gcm_test.json", false);
}

#[test]
fn wycheproof_ccm() {
    wycheproof("sm4_ccm_test.json", true);
}

#[test]
fn cbc_padding_and_errors() {
    let key = [0x42u8; 16];
    let iv = [0x24u8; 16];
    for n in 0..40 {
        let p: Vec<u8> = (0..n).map(|i| i as u8).collect();
        let ct = sm4::cbc_encrypt(&key, &iv, &p, true).unwrap();
        assert_eq!(ct.len(), (n / 16 + 1) * 16);
        assert_eq!(sm4::cbc_decrypt(&key, &iv, &ct, true).unwrap(), p);
        // The padding bytes are visible without padding: n % 16 filler bytes of value 16 - n % 16.
        let raw = sm4::cbc_decrypt(&key, &iv, &ct, false).unwrap();
        let k = 16 - n % 16;
        assert!(raw[n..].iter().all(|&b| b as usize == k));
    }
    let e = sm4::cbc_encrypt(&key, &iv, &[0u8; 15], false).unwrap_err();
    assert_eq!(e.to_string(), "data must be a multiple of 16 bytes when padding is disabled, got 15");
    // A last block whose padding byte is 0 or > 16, or inconsistent, is rejected.
    for bad in [[0u8; 16], [17u8; 16], {
        let mut b = [3u8; 16];
        b[13] = 4;
        b
    }] {
        let ct = sm4::cbc_encrypt(&key, &iv, &bad, false).unwrap();
        assert!(matches!(sm4::cbc_decrypt(&key, &iv, &ct, true), Err(Error::InvalidInput(_))));
    }
    assert_eq!(Sm4::from_slice(&[0u8; 15]).unwrap_err().to_string(), "SM4 key must be 16 bytes, got 15");
}

#[test]
fn xts_refuses_equal_halves() {
    for std in [XtsStandard::Gb, XtsStandard::Ieee] {
        for half in [[0u8; 16], [0xa5; 16], *b"0123456789abcdef"] {
            let key = [half, half].concat();
            let e = Xts::new(&key, std).unwrap_err();
            assert!(e.to_string().contains("halves must differ"), "{e}");
            let mut k2 = key.clone();
            k2[31] ^= 1;
            assert!(Xts::new(&k2, std).is_ok());
        }
    }
}
