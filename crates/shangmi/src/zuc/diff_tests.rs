//! Every kernel this CPU allows against the portable one, on long,
//! odd-sized and random inputs: the one-message functions (chunk boundaries
//! of the batch generator and of the MAC's sliding keystream buffer) and
//! the many-message ones (every lane kernel, and one at a time).

use super::kernel::{Kernel, Lanes};
use super::many::{eea3_many_on, eia3_many_on};
use super::ops::{eea3_on, eia3_on, zuc256_mac_on};
use super::stream::Keystream;
use super::Message;

/// Key, COUNT, BEARER, DIRECTION, data and bit length of one message.
type Owned = (Vec<u8>, u64, u32, u32, Vec<u8>, Option<u64>);

#[test]
fn kernels_agree_on_long_inputs() {
    let data: Vec<u8> = (0..70_001u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect();
    let key = [7u8; 16];
    let p = Kernel::Portable;
    for len in [0u64, 1, 31, 32, 33, 8 * 4095 + 5, 8 * 70_001] {
        let want = (
            eea3_on(p, &key, 0x1234_5678, 3, 1, &data, Some(len)).unwrap(),
            eia3_on(p, &key, 0x1234_5678, 3, 1, &data, Some(len)).unwrap(),
            zuc256_mac_on(p, &[9u8; 32], &[1u8; 23], &data, 128, Some(len)).unwrap(),
        );
        for k in Kernel::available() {
            let got = (
                eea3_on(k, &key, 0x1234_5678, 3, 1, &data, Some(len)).unwrap(),
                eia3_on(k, &key, 0x1234_5678, 3, 1, &data, Some(len)).unwrap(),
                zuc256_mac_on(k, &[9u8; 32], &[1u8; 23], &data, 128, Some(len)).unwrap(),
            );
            assert_eq!(got, want, "{} at length {len}", k.name());
        }
    }
}

/// Random messages (empty, shorter than a word, block edges, several KiB,
/// bit lengths not a multiple of 8) through every lane kernel, against the
/// portable one-message functions.
#[test]
fn lane_kernels_agree_with_portable() {
    let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
    let sizes = [0usize, 1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 1000, 4096, 5003, 70, 2, 300, 64 * 16 + 1, 9, 33];
    for trial in 0..3 {
        let owned: Vec<Owned> = sizes
            .iter()
            .map(|&n| {
                let data: Vec<u8> = (0..n + trial).map(|_| next() as u8).collect();
                let length_bits = match next() % 3 {
                    0 => None,
                    _ => Some(next() % (8 * data.len() as u64 + 1)),
                };
                let key = (0..16).map(|_| next() as u8).collect();
                (key, next() & 0xffff_ffff, (next() % 32) as u32, (next() % 2) as u32, data, length_bits)
            })
            .collect();
        let msgs: Vec<Message<'_>> = owned
            .iter()
            .map(|(key, count, bearer, direction, data, length_bits)| Message {
                key,
                count: *count,
                bearer: *bearer,
                direction: *direction,
                data,
                length_bits: *length_bits,
            })
            .collect();
        let p = Kernel::Portable;
        let want_ct: Vec<Vec<u8>> = msgs
            .iter()
            .map(|m| eea3_on(p, m.key, m.count, m.bearer, m.direction, m.data, m.length_bits).unwrap())
            .collect();
        let want_mac: Vec<[u8; 4]> = msgs
            .iter()
            .map(|m| eia3_on(p, m.key, m.count, m.bearer, m.direction, m.data, m.length_bits).unwrap())
            .collect();
        let mut lanes: Vec<Lanes> = Kernel::available().into_iter().map(Kernel::lanes).collect();
        lanes.push(Lanes::One(Kernel::auto()));
        for l in lanes {
            assert_eq!(eea3_many_on(l, &msgs).unwrap(), want_ct, "EEA3 on {}, trial {trial}", l.name());
            assert_eq!(eia3_many_on(l, &msgs).unwrap(), want_mac, "EIA3 on {}, trial {trial}", l.name());
        }
    }
}

/// Every SIMD kernel this CPU runs (x86-64 or aarch64, after
/// `SHANGMI_CPU_DISABLE`) against the portable one: 128-EEA3 and 128-EIA3 on random keys, COUNTs,
/// bearers, directions and bit lengths (not multiples of 32, on either
/// side of the 64-word batch), and ZUC-128 / ZUC-256 keystreams drawn in
/// pieces of random sizes across many batches.
#[test]
fn simd_streams_match_portable() {
    let mut next = crate::test_rng(0x2545_f491_4f6c_dd1d);
    let simd: Vec<Kernel> = Kernel::available().into_iter().skip(1).collect();
    let lens = [0usize, 1, 3, 4, 5, 31, 63, 64, 65, 127, 252, 255, 256, 257, 259, 260, 511, 513, 1021, 4099];
    for round in 0..40 {
        let key: Vec<u8> = (0..16).map(|_| next() as u8).collect();
        let (count, bearer, direction) = (next() & 0xffff_ffff, (next() % 32) as u32, (next() % 2) as u32);
        let n = lens[round % lens.len()] + (next() % 3) as usize;
        let data: Vec<u8> = (0..n).map(|_| next() as u8).collect();
        let bits = if n == 0 { 0 } else { 8 * n as u64 - next() % 8 };
        let p = Kernel::Portable;
        let want = eea3_on(p, &key, count, bearer, direction, &data, Some(bits)).unwrap();
        let want_mac = eia3_on(p, &key, count, bearer, direction, &data, Some(bits)).unwrap();
        for &k in &simd {
            let got = eea3_on(k, &key, count, bearer, direction, &data, Some(bits)).unwrap();
            assert_eq!(got, want, "EEA3 on {}, {n} bytes, {bits} bits", k.name());
            let got = eia3_on(k, &key, count, bearer, direction, &data, Some(bits)).unwrap();
            assert_eq!(got, want_mac, "EIA3 on {}, {n} bytes, {bits} bits", k.name());
        }
        let iv: Vec<u8> = (0..16).map(|_| next() as u8).collect();
        let key256: Vec<u8> = (0..32).map(|_| next() as u8).collect();
        let iv256: Vec<u8> = (0..25).map(|_| next() as u8 & 0x3f).collect();
        let mut reference =
            [Keystream::zuc128_on(p, &key, &iv).unwrap(), Keystream::zuc256_on(p, &key256, &iv256).unwrap()];
        let mut streams: Vec<[Keystream; 2]> = simd
            .iter()
            .map(|&k| [Keystream::zuc128_on(k, &key, &iv).unwrap(), Keystream::zuc256_on(k, &key256, &iv256).unwrap()])
            .collect();
        for _ in 0..8 {
            let piece = (next() % 700) as usize;
            for which in 0..2 {
                let mut want = vec![0u8; piece];
                reference[which].fill(&mut want);
                for (s, k) in streams.iter_mut().zip(&simd) {
                    let mut got = vec![0u8; piece];
                    s[which].fill(&mut got);
                    assert_eq!(got, want, "keystream {which} piece of {piece} bytes on {}", k.name());
                }
            }
        }
    }
}
