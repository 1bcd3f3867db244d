//! Unit tests of the tower, curves and pairing against the standard's values.

use super::fp::*;
use super::fp12::*;
use super::g1::{self, P1};
use super::g2::{self, P2};
use super::pairing::*;

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn vectors() -> serde_json::Value {
    let s = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/vectors/sm9.json")).unwrap();
    serde_json::from_str(&s).unwrap()
}

#[test]
fn generators_on_curves() {
    assert!(bool::from(P1.is_on_curve::<g1::G1Curve>()));
    assert!(bool::from(P2.is_on_curve::<g2::G2Curve>()));
    assert!(g2::in_subgroup_vartime(&P2));
}

#[test]
fn pairing_g_vector() {
    let v = vectors();
    let s = &v["sign"][0];
    let ppub = g2::decode(&hex(s["master_public_key_ppub_s"].as_str().unwrap()), "Ppub").unwrap();
    let g = pairing(&P1, &ppub);
    let expect: String = s["g_pairing"].as_array().unwrap().iter().map(|x| x.as_str().unwrap()).collect();
    assert_eq!(g.to_bytes().to_vec(), hex(&expect));
}
