//! A slow, simple SM2 reference (num-bigint, affine double-and-add, generic
//! over the short-Weierstrass curve) that
//! 1. reproduces the Fp-256 test-curve examples of tests/vectors/sm2.json
//!    (Z, e, r, s; C1, C2, C3, x2, y2, t; key exchange K, S_B, S_A), and
//! 2. checks the fast constant-time code on random and edge-case inputs for
//!    the recommended curve (differential tests).

use crate::common;

use common::{hexv, Value};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use shangmi::sm2::{testing, KeyExchange, PrivateKey, PublicKey, Role, Signature};
use shangmi::sm3;

#[derive(Clone)]
struct Curve {
    p: BigUint,
    a: BigUint,
    b: BigUint,
    gx: BigUint,
    gy: BigUint,
    n: BigUint,
}

type Pt = Option<(BigUint, BigUint)>;

fn hx(s: &str) -> BigUint {
    BigUint::parse_bytes(s.as_bytes(), 16).expect("hex")
}

fn be32(x: &BigUint) -> [u8; 32] {
    let b = x.to_bytes_be();
    assert!(b.len() <= 32);
    let mut out = [0u8; 32];
    out[32 - b.len()..].copy_from_slice(&b);
    out
}

impl Curve {
    fn from_json(c: &Value) -> Self {
        let f = |k: &str| hx(c[k].as_str().unwrap());
        Curve { p: f("p"), a: f("a"), b: f("b"), gx: f("gx"), gy: f("gy"), n: f("n") }
    }
    fn g(&self) -> Pt {
        Some((self.gx.clone(), self.gy.clone()))
    }
    fn inv(&self, x: &BigUint, m: &BigUint) -> BigUint {
        x.modpow(&(m - 2u32), m)
    }
    fn sub(&self, a: &BigUint, b: &BigUint) -> BigUint {
        ((a + &self.p) - (b % &self.p)) % &self.p
    }
    fn on_curve(&self, x: &BigUint, y: &BigUint) -> bool {
        (y * y) % &self.p == (x * x * x + &self.a * x + &self.b) % &self.p
    }
    fn add(&self, p1: &Pt, p2: &Pt) -> Pt {
        let (x1, y1) = match p1 {
            None => return p2.clone(),
            Some(v) => v,
        };
        let (x2, y2) = match p2 {
            None => return p1.clone(),
            Some(v) => v,
        };
        let p = &self.p;
        let lambda = if x1 == x2 {
            if (y1 + y2) % p == BigUint::zero() {
                return None;
            }
            (BigUint::from(3u32) * x1 * x1 + &self.a) * self.inv(&(BigUint::from(2u32) * y1), p) % p
        } else {
            self.sub(y2, y1) * self.inv(&self.sub(x2, x1), p) % p
        };
        let x3 = self.sub(&self.sub(&(&lambda * &lambda % p), x1), x2);
        let y3 = self.sub(&(&lambda * self.sub(x1, &x3) % p), y1);
        Some((x3, y3))
    }
    fn mul(&self, k: &BigUint, pt: &Pt) -> Pt {
        let mut acc: Pt = None;
        for i in (0..k.bits()).rev() {
            acc = self.add(&acc, &acc);
            if k.bit(i) {
                acc = self.add(&acc, pt);
            }
        }
        acc
    }
    fn z(&self, uid: &[u8], pt: &Pt) -> [u8; 32] {
        let (x, y) = pt.clone().unwrap();
        let entl = ((uid.len() * 8) as u16).to_be_bytes();
        sm3::hash_parts(&[
            &entl,
            uid,
            &be32(&self.a),
            &be32(&self.b),
            &be32(&self.gx),
            &be32(&self.gy),
            &be32(&x),
            &be32(&y),
        ])
    }
    /// (r, s) per GB/T 32918.2 with the textbook formula s = (1+d)⁻¹(k − r d).
    fn sign(&self, d: &BigUint, e: &[u8; 32], k: &BigUint) -> (BigUint, BigUint) {
        let n = &self.n;
        let (x1, _) = self.mul(k, &self.g()).unwrap();
        let r = (BigUint::from_bytes_be(e) + x1) % n;
        let rd = (&r * d) % n;
        let s = self.inv(&((BigUint::one() + d) % n), n) * ((k + n - rd) % n) % n;
        (r, s)
    }
    fn encrypt(&self, pk: &Pt, m: &[u8], k: &BigUint) -> (Vec<u8>, Vec<u8>, Vec<u8>, [u8; 64]) {
        let (x1, y1) = self.mul(k, &self.g()).unwrap();
        let (x2, y2) = self.mul(k, pk).unwrap();
        let mut x2y2 = [0u8; 64];
        x2y2[..32].copy_from_slice(&be32(&x2));
        x2y2[32..].copy_from_slice(&be32(&y2));
        let t = sm3::kdf(&x2y2, m.len());
        let c2: Vec<u8> = t.iter().zip(m).map(|(a, b)| a ^ b).collect();
        let c3 = sm3::hash_parts(&[&x2y2[..32], m, &x2y2[32..]]).to_vec();
        let mut c1 = vec![4u8];
        c1.extend_from_slice(&be32(&x1));
        c1.extend_from_slice(&be32(&y1));
        (c1, c2, c3, x2y2)
    }
    fn xbar(&self, x: &BigUint) -> BigUint {
        let two_w = BigUint::one() << 127u32;
        &two_w + (x % &two_w)
    }
    /// One side of GB/T 32918.3: returns (K, S_B, S_A) given own (d, r) and
    /// the peer's (P, R); `za`/`zb` and R_A/R_B in the initiator's order.
    #[allow(clippy::too_many_arguments)]
    fn kex(
        &self,
        d: &BigUint,
        r: &BigUint,
        own_r: &Pt,
        peer_p: &Pt,
        peer_r: &Pt,
        za: &[u8],
        zb: &[u8],
        initiator: bool,
        klen: usize,
    ) -> (Vec<u8>, [u8; 32], [u8; 32]) {
        let n = &self.n;
        let (ox, _) = own_r.clone().unwrap();
        let (px, _) = peer_r.clone().unwrap();
        let t = (d + self.xbar(&ox) * r) % n;
        let q = self.add(peer_p, &self.mul(&self.xbar(&px), peer_r));
        let (xu, yu) = self.mul(&t, &q).unwrap();
        let (ra, rb) = if initiator { (own_r, peer_r) } else { (peer_r, own_r) };
        let (x1, y1) = ra.clone().unwrap();
        let (x2, y2) = rb.clone().unwrap();
        let mut z = Vec::new();
        z.extend_from_slice(&be32(&xu));
        z.extend_from_slice(&be32(&yu));
        z.extend_from_slice(za);
        z.extend_from_slice(zb);
        let k = sm3::kdf(&z, klen);
        let inner = sm3::hash_parts(&[&be32(&xu), za, zb, &be32(&x1), &be32(&y1), &be32(&x2), &be32(&y2)]);
        let sb = sm3::hash_parts(&[&[2u8], &be32(&yu), &inner]);
        let sa = sm3::hash_parts(&[&[3u8], &be32(&yu), &inner]);
        (k, sb, sa)
    }
}

fn vectors() -> Value {
    common::json("sm2.json")
}

fn curve(name: &str) -> Curve {
    Curve::from_json(&vectors()["curves"][name])
}

fn hb(v: &Value) -> BigUint {
    hx(v.as_str().expect("hex string"))
}

fn fp256_examples(section: &str) -> Vec<Value> {
    common::on_curve(&vectors(), section, "Fp-256-test")
}

// ---------------------------------------------------------------- 1. Fp-256 test curve

#[test]
fn reference_fp256_sign_example() {
    let c = curve("Fp-256-test");
    assert!(c.on_curve(&c.gx, &c.gy));
    assert!(c.mul(&c.n, &c.g()).is_none(), "n·G must be infinity");
    for v in fp256_examples("sign") {
        let d = hb(&v["private_key"]);
        let pk = c.mul(&d, &c.g());
        assert_eq!(pk, Some((hb(&v["public_key_x"]), hb(&v["public_key_y"]))));
        let za = c.z(&hexv(&v["user_id"]), &pk);
        assert_eq!(za.to_vec(), hexv(&v["za"]));
        let e = sm3::hash_parts(&[&za, &hexv(&v["message"])]);
        assert_eq!(e.to_vec(), hexv(&v["e"]));
        let (r, s) = c.sign(&d, &e, &hb(&v["k"]));
        assert_eq!(r, hb(&v["r"]));
        assert_eq!(s, hb(&v["s"]));
    }
}

#[test]
fn reference_fp256_encrypt_example() {
    let c = curve("Fp-256-test");
    for v in fp256_examples("encrypt") {
        let d = hb(&v["private_key"]);
        let pk = c.mul(&d, &c.g());
        assert_eq!(pk, Some((hb(&v["public_key_x"]), hb(&v["public_key_y"]))));
        let (c1, c2, c3, x2y2) = c.encrypt(&pk, &hexv(&v["message"]), &hb(&v["k"]));
        assert_eq!(c1, hexv(&v["c1"]));
        assert_eq!(c2, hexv(&v["c2"]));
        assert_eq!(c3, hexv(&v["c3"]));
        assert_eq!(x2y2[..32].to_vec(), hexv(&v["x2"]));
        assert_eq!(x2y2[32..].to_vec(), hexv(&v["y2"]));
        assert_eq!(sm3::kdf(&x2y2, c2.len()), hexv(&v["kdf_t"]));
    }
}

#[test]
fn reference_fp256_key_exchange_example() {
    let c = curve("Fp-256-test");
    for v in fp256_examples("key_exchange") {
        let (da, db) = (hb(&v["private_key_a"]), hb(&v["private_key_b"]));
        let (ra, rb) = (hb(&v["ephemeral_private_a"]), hb(&v["ephemeral_private_b"]));
        let pa = c.mul(&da, &c.g());
        let pb = c.mul(&db, &c.g());
        assert_eq!(pa, Some((hb(&v["public_key_a_x"]), hb(&v["public_key_a_y"]))));
        assert_eq!(pb, Some((hb(&v["public_key_b_x"]), hb(&v["public_key_b_y"]))));
        let za = c.z(&hexv(&v["id_a"]), &pa);
        let zb = c.z(&hexv(&v["id_b"]), &pb);
        assert_eq!(za.to_vec(), hexv(&v["za"]));
        assert_eq!(zb.to_vec(), hexv(&v["zb"]));
        let ra_pt = c.mul(&ra, &c.g());
        let rb_pt = c.mul(&rb, &c.g());
        let klen = v["klen_bits"].as_u64().unwrap() as usize / 8;
        let (ka, sb_a, sa_a) = c.kex(&da, &ra, &ra_pt, &pb, &rb_pt, &za, &zb, true, klen);
        let (kb, sb_b, sa_b) = c.kex(&db, &rb, &rb_pt, &pa, &ra_pt, &za, &zb, false, klen);
        assert_eq!(ka, hexv(&v["shared_key"]));
        assert_eq!(kb, hexv(&v["shared_key"]));
        assert_eq!(sb_a.to_vec(), hexv(&v["s_b"]));
        assert_eq!(sb_b.to_vec(), hexv(&v["s_b"]));
        assert_eq!(sa_a.to_vec(), hexv(&v["s_a"]));
        assert_eq!(sa_b.to_vec(), hexv(&v["s_a"]));
    }
}

// ---------------------------------------------------------------- 2. differential tests

use crate::common::Rng;

/// A uniform-looking value below `m`.
fn below(rng: &mut Rng, m: &BigUint) -> BigUint {
    BigUint::from_bytes_be(&rng.bytes32()) % m
}

fn sm2c() -> Curve {
    curve("sm2p256v1")
}

fn pt_bytes(p: &Pt) -> Option<[u8; 65]> {
    p.as_ref().map(|(x, y)| {
        let mut out = [0u8; 65];
        out[0] = 4;
        out[1..33].copy_from_slice(&be32(x));
        out[33..].copy_from_slice(&be32(y));
        out
    })
}

fn pk_of(p: &Pt) -> PublicKey {
    PublicKey::from_bytes(&pt_bytes(p).unwrap()).unwrap()
}

#[test]
fn differential_field_and_scalar() {
    let c = sm2c();
    let mut rng = Rng(1);
    let specials = [BigUint::zero(), BigUint::one(), &c.p - 1u32, &c.p - 2u32, BigUint::one() << 255u32];
    for i in 0..400 {
        let a = if i < specials.len() { specials[i].clone() } else { below(&mut rng, &c.p) };
        let b = below(&mut rng, &c.p);
        let (ab, bb) = (be32(&a), be32(&b));
        assert_eq!(testing::fp_mul(&ab, &bb), be32(&(&a * &b % &c.p)));
        assert_eq!(testing::fp_mul(&ab, &ab), be32(&(&a * &a % &c.p)));
        let (s, d) = testing::fp_add_sub(&ab, &bb);
        assert_eq!(s, be32(&((&a + &b) % &c.p)));
        assert_eq!(d, be32(&c.sub(&a, &b)));
        let inv = if a.is_zero() { BigUint::zero() } else { c.inv(&a, &c.p) };
        assert_eq!(testing::fp_inv(&ab), be32(&inv));
        assert_eq!(testing::fp_inv_vartime(&ab), be32(&inv));
        // sqrt of a square is ± the root; of a non-residue, none.
        let sq = be32(&(&a * &a % &c.p));
        let r = BigUint::from_bytes_be(&testing::fp_sqrt(&sq).unwrap());
        assert!(r == a || (&r + &a) % &c.p == BigUint::zero());
        let euler = a.modpow(&((&c.p - 1u32) >> 1u32), &c.p);
        assert_eq!(testing::fp_sqrt(&ab).is_some(), a.is_zero() || euler.is_one());
        // Scalars mod n.
        let (x, y) = (below(&mut rng, &c.n), below(&mut rng, &c.n));
        assert_eq!(testing::fn_mul(&be32(&x), &be32(&y)), be32(&(&x * &y % &c.n)));
        let xinv = if x.is_zero() { BigUint::zero() } else { c.inv(&x, &c.n) };
        assert_eq!(testing::fn_inv(&be32(&x)), be32(&xinv));
        let mut wide = [0u8; 64];
        wide[..32].copy_from_slice(&rng.bytes32());
        wide[32..].copy_from_slice(&rng.bytes32());
        assert_eq!(testing::fn_reduce_wide(&wide), be32(&(BigUint::from_bytes_be(&wide) % &c.n)));
    }
}

fn edge_scalars(c: &Curve) -> Vec<BigUint> {
    let n = &c.n;
    let mut v: Vec<BigUint> =
        [1u32, 2, 3, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128].iter().map(|&x| BigUint::from(x)).collect();
    for d in 1u32..=40 {
        v.push(n - d);
    }
    v.push(BigUint::one() << 255u32);
    v.push((BigUint::one() << 252u32) * 16u32 % n);
    v.push(n >> 1u32);
    v.push((n >> 1u32) + 1u32);
    v
}

#[test]
fn differential_scalar_multiplication() {
    let c = sm2c();
    let mut rng = Rng(2);
    let g = c.g();
    let p_scalar = below(&mut rng, &c.n);
    let p = c.mul(&p_scalar, &g);
    let pk = pk_of(&p);
    let mut ks = edge_scalars(&c);
    for _ in 0..24 {
        ks.push(below(&mut rng, &c.n));
    }
    for k in &ks {
        let kb = be32(k);
        let expect_g = pt_bytes(&c.mul(k, &g));
        assert_eq!(testing::mul_g(&kb), expect_g, "k·G, k = {k:x}");
        let expect_p = pt_bytes(&c.mul(k, &p));
        assert_eq!(testing::mul_point(&pk, &kb), expect_p, "k·P, k = {k:x}");
        assert_eq!(testing::mul_point_prepared(&pk, &kb), expect_p, "prepared k·P, k = {k:x}");
    }
    // k·G with G as a variable base too (exercises tables built from G).
    let gk = pk_of(&g);
    for k in ks.iter().take(60) {
        assert_eq!(testing::mul_point(&gk, &be32(k)), pt_bytes(&c.mul(k, &g)));
    }
}

#[test]
fn differential_double_mul() {
    let c = sm2c();
    let mut rng = Rng(3);
    let g = c.g();
    let p = c.mul(&below(&mut rng, &c.n), &g);
    let pk = pk_of(&p);
    for i in 0..30 {
        let s = if i < 3 { BigUint::from(i as u32 + 1) } else { below(&mut rng, &c.n) };
        let t = if i % 5 == 0 { &c.n - 1u32 } else { below(&mut rng, &c.n) };
        let expect = pt_bytes(&c.add(&c.mul(&s, &g), &c.mul(&t, &p)));
        for prepared in [false, true] {
            assert_eq!(testing::double_mul(&be32(&s), &be32(&t), &pk, prepared), expect);
        }
    }
    // P = G: s = t doubles, s + t = n gives infinity.
    let gk = pk_of(&g);
    let s = below(&mut rng, &c.n);
    for prepared in [false, true] {
        assert_eq!(testing::double_mul(&be32(&s), &be32(&s), &gk, prepared), pt_bytes(&c.mul(&(&s * 2u32), &g)));
        assert_eq!(testing::double_mul(&be32(&s), &be32(&(&c.n - &s)), &gk, prepared), None);
    }
}

#[test]
fn differential_sign_encrypt_kex() {
    let c = sm2c();
    let mut rng = Rng(4);
    for i in 0..12 {
        let d = if i == 0 {
            BigUint::one()
        } else if i == 1 {
            &c.n - 2u32
        } else {
            below(&mut rng, &c.n)
        };
        let d = if d.is_zero() { BigUint::one() } else { d };
        let key = PrivateKey::from_bytes(&be32(&d)).unwrap();
        let p = c.mul(&d, &c.g());
        assert_eq!(key.public_key().to_bytes(false), pt_bytes(&p).unwrap().to_vec());
        let uid = format!("user{i}");
        let msg = format!("message number {i}");
        let k = below(&mut rng, &c.n);
        let za = c.z(uid.as_bytes(), &p);
        assert_eq!(key.public_key().z(uid.as_bytes()).unwrap(), za);
        let e = sm3::hash_parts(&[&za, msg.as_bytes()]);
        let (r, s) = c.sign(&d, &e, &k);
        let sig = testing::sign_with_k(&key, msg.as_bytes(), uid.as_bytes(), &be32(&k)).unwrap();
        assert_eq!(sig, Signature { r: be32(&r), s: be32(&s) });
        key.public_key().verify(msg.as_bytes(), uid.as_bytes(), &sig).unwrap();
        // Randomised signatures verify too, and differ.
        let sig2 = key.sign(msg.as_bytes(), uid.as_bytes()).unwrap();
        assert_ne!(sig2, sig);
        key.public_key().verify(msg.as_bytes(), uid.as_bytes(), &sig2).unwrap();
        // Encryption.
        let (c1, c2, c3, _) = c.encrypt(&p, msg.as_bytes(), &k);
        let ct = testing::encrypt_with_k(key.public_key(), msg.as_bytes(), &be32(&k)).unwrap();
        assert_eq!((ct.c1.to_vec(), ct.c2.clone(), ct.c3.to_vec()), (c1, c2, c3));
        assert_eq!(key.decrypt(&ct).unwrap(), msg.as_bytes());
    }
}

#[test]
fn differential_key_exchange() {
    let c = sm2c();
    let mut rng = Rng(5);
    for klen in [16usize, 32, 33, 70] {
        let (da, db, ra, rb) =
            (below(&mut rng, &c.n), below(&mut rng, &c.n), below(&mut rng, &c.n), below(&mut rng, &c.n));
        let ka = PrivateKey::from_bytes(&be32(&da)).unwrap();
        let kb = PrivateKey::from_bytes(&be32(&db)).unwrap();
        let (ida, idb) = (b"ALICE123@YAHOO.COM".as_slice(), b"BILL456@YAHOO.COM".as_slice());
        let mut a =
            testing::key_exchange_with_ephemeral(Role::Initiator, &ka, ida, kb.public_key(), idb, &be32(&ra)).unwrap();
        let mut b =
            testing::key_exchange_with_ephemeral(Role::Responder, &kb, idb, ka.public_key(), ida, &be32(&rb)).unwrap();
        let res_b = b.compute(&a.ephemeral_public(), klen).unwrap();
        let res_a = a.compute(&b.ephemeral_public(), klen).unwrap();
        let (pa, pb) = (c.mul(&da, &c.g()), c.mul(&db, &c.g()));
        let (ra_pt, rb_pt) = (c.mul(&ra, &c.g()), c.mul(&rb, &c.g()));
        assert_eq!(a.ephemeral_public().to_vec(), pt_bytes(&ra_pt).unwrap().to_vec());
        let (za, zb) = (c.z(ida, &pa), c.z(idb, &pb));
        let (k, sb, sa) = c.kex(&da, &ra, &ra_pt, &pb, &rb_pt, &za, &zb, true, klen);
        assert_eq!(*res_a.key, k);
        assert_eq!(*res_b.key, k);
        assert_eq!((res_a.confirm_expected, res_a.confirm_out), (sb, sa));
        assert_eq!((res_b.confirm_out, res_b.confirm_expected), (sb, sa));
        res_a.check_confirmation(&res_b.confirm_out).unwrap();
        res_b.check_confirmation(&res_a.confirm_out).unwrap();
        assert!(res_a.check_confirmation(&res_a.confirm_out).is_err());
        // One compute per exchange.
        assert!(a.compute(&b.ephemeral_public(), klen).is_err());
    }
    // Fresh random ephemerals agree too.
    let ka = PrivateKey::generate().unwrap();
    let kb = PrivateKey::generate().unwrap();
    let mut a = KeyExchange::new(Role::Initiator, &ka, b"a", kb.public_key(), b"b").unwrap();
    let mut b = KeyExchange::new(Role::Responder, &kb, b"b", ka.public_key(), b"a").unwrap();
    let rb = b.compute(&a.ephemeral_public(), 48).unwrap();
    let ra = a.compute(&b.ephemeral_public(), 48).unwrap();
    assert_eq!(*ra.key, *rb.key);
    ra.check_confirmation(&rb.confirm_out).unwrap();
    rb.check_confirmation(&ra.confirm_out).unwrap();
}
