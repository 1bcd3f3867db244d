//! `sm9::verify_many` (shared lines, one inversion per chunk) against
//! `SignMasterPublicKey::verify` one at a time: batches of several sizes
//! and identities with bad items of every kind at random positions, with
//! the master public key prepared and not.

use shangmi::sm9::g1::{self, G1Affine};
use shangmi::sm9::*;

use crate::common::Rng;

/// S + P1 (a valid curve point that is not the signature's S).
fn shifted(s: &G1Affine) -> G1Affine {
    s.to_jacobian().add(&g1::P1.to_jacobian()).to_affine_vartime().unwrap()
}

#[test]
fn verify_many_matches_one_at_a_time() {
    let mk = SignMasterKey::generate().unwrap();
    let mpk = mk.public_key().clone();
    let prepared = mpk.prepare();
    let uids: [&[u8]; 3] = [b"Alice", b"Bob", b"Carol"];
    let keys: Vec<SignPrivateKey> = uids.iter().map(|u| mk.extract(u, HID_SIGN).unwrap()).collect();
    let mut rng = Rng(0xfeed_beef_1234_5678);
    for (round, size) in [1usize, 2, 5, 17, 40].into_iter().enumerate() {
        let msgs: Vec<Vec<u8>> = (0..size).map(|i| format!("message {round}/{i}").into_bytes()).collect();
        // Runs of one identity (the H1 reuse) and changes of identity.
        let who: Vec<usize> = (0..size).map(|i| if i % 7 < 4 { 0 } else { rng.below(3) }).collect();
        let mut items: Vec<(Vec<u8>, &[u8], Option<Signature>)> =
            (0..size).map(|i| (msgs[i].clone(), uids[who[i]], Some(keys[who[i]].sign(&msgs[i]).unwrap()))).collect();
        let mut bad = vec![false; size];
        // About a third of the items spoiled, each once, in one of eight
        // ways (a second spoiling could meet a signature already removed).
        for _ in 0..size.div_ceil(3) {
            let i = rng.below(size);
            if bad[i] {
                continue;
            }
            bad[i] = true;
            let item = &mut items[i];
            match rng.below(8) {
                0 => item.2.as_mut().unwrap().h[31] ^= 1,
                1 => item.2.as_mut().unwrap().s = shifted(&item.2.unwrap().s),
                2 => item.0.push(b'!'),
                3 => item.1 = if item.1 == uids[0] { uids[1] } else { uids[0] },
                4 => item.2 = None,
                // h ≥ n: not a scalar.
                5 => item.2.as_mut().unwrap().h = [0xff; 32],
                // h = 0.
                6 => item.2.as_mut().unwrap().h = [0; 32],
                // Another item's valid signature.
                _ => {
                    let j = (i + 1) % size;
                    let other = keys[who[j]].sign(&msgs[j]).unwrap();
                    if j == i {
                        item.2.as_mut().unwrap().h[0] ^= 0x80;
                    } else {
                        item.2 = Some(other);
                    }
                }
            }
        }
        let refs: Vec<(&[u8], &[u8], Option<Signature>)> =
            items.iter().map(|(m, u, s)| (m.as_slice(), *u, *s)).collect();
        let one_by_one: Vec<bool> =
            refs.iter().map(|(m, u, s)| s.as_ref().is_some_and(|s| mpk.verify(m, u, HID_SIGN, s).is_ok())).collect();
        for (i, ok) in one_by_one.iter().enumerate() {
            assert_eq!(*ok, !bad[i], "item {i} of {size}");
        }
        assert_eq!(verify_many(&mpk, HID_SIGN, &refs), one_by_one, "unprepared, {size} items");
        assert_eq!(verify_many(&prepared, HID_SIGN, &refs), one_by_one, "prepared, {size} items");
        // Another hid: every item fails.
        assert!(verify_many(&prepared, 2, &refs).iter().all(|ok| !ok));
    }
    assert!(verify_many(&mpk, HID_SIGN, &[]).is_empty());
    assert_eq!(verify_many(&mpk, HID_SIGN, &[(b"m", b"Alice", None)]), vec![false]);
}

/// The standard's signature example through the batch, alone and among
/// spoiled copies.
#[test]
fn verify_many_standard_example() {
    let v: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/sm9.json")).unwrap(),
    )
    .unwrap();
    let hx = |x: &serde_json::Value| hex::decode(x.as_str().unwrap()).unwrap();
    let s = &v["sign"][0];
    let mpk = SignMasterPublicKey::from_bytes(&hx(&s["master_public_key_ppub_s"])).unwrap();
    let msg = hx(&s["message"]);
    let uid = hx(&s["user_id"]);
    let mut raw = hx(&s["h"]);
    raw.extend(hx(&s["s_uncompressed"]));
    let sig = Signature::from_raw(&raw).unwrap();
    let mut bad = sig;
    bad.h[5] ^= 4;
    let items = [(&msg[..], &uid[..], Some(bad)), (&msg[..], &uid[..], Some(sig)), (&msg[..], &uid[..], Some(bad))];
    for key in [mpk.clone(), mpk.prepare()] {
        assert_eq!(verify_many(&key, HID_SIGN, &items[1..2]), vec![true]);
        assert_eq!(verify_many(&key, HID_SIGN, &items), vec![false, true, false]);
    }
}
