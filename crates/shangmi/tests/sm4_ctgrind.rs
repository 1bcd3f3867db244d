//! Constant-time check of SM4 (every mode, and GHASH) with valgrind (the
//! approach of libsecp256k1's ctime tests): key and plaintext are marked
//! "undefined" with a memcheck client request, so any branch or memory
//! address that depends on them is reported as an error. The test re-runs
//! itself under valgrind once per `SHANGMI_CPU_DISABLE` mask in [`ctgrind::MASKS`](common::ctgrind::MASKS),
//! each selecting another backend; a control run with a deliberate
//! secret-indexed table lookup must fail, which shows the check can fail.
//! Skipped when valgrind is not installed.
//!
//! Valgrind (3.19) executes AES-NI, PCLMULQDQ, SSE and AVX2 but not GFNI,
//! VAES or AVX-512, and its CPUID hides those, so under it the masks reach
//! aesni-256 (with pclmul-128 GHASH), aesni-128 and portable-64 (with the
//! portable-64 GHASH). The GFNI, VAES and AVX-512 engines share the kernels
//! checked here (`sm4/block/simd.rs`: memory indexed only by public lengths) and
//! differ only in the S-box and L instructions, which are register-only
//! (`gf2p8affine*`, `aesenclast`, `pshufb` with data as the shuffle index,
//! `vprold`, `vpternlogd`): no secret-dependent branch or address.

// The valgrind client requests that mark secrets are x86-64 code.
#![cfg(target_arch = "x86_64")]

mod common;

use common::ctgrind;
use shangmi::ctime::{make_defined, make_undefined};
use shangmi::sm4::{self, Ccm, Gcm, Sm4, Xts, XtsStandard};

fn secret_work(leak: bool) {
    let mut key = [0x3cu8; 32];
    key[16..].fill(0xc3); // XTS refuses equal halves
    let mut msg = [0xa5u8; 160]; // 10 blocks: the bitsliced portable path too
    make_undefined(&key);
    make_undefined(&msg);
    let k16: [u8; 16] = key[..16].try_into().unwrap();
    let c = Sm4::new(&k16);
    eprintln!("ctgrind backend {}", c.backend().name());
    let mut out = Vec::new();
    let mut b = [0u8; 16];
    b.copy_from_slice(&msg[..16]);
    c.encrypt_block(&mut b);
    c.decrypt_block(&mut b);
    out.extend_from_slice(&b);
    out.extend(sm4::ecb_encrypt(&c, &msg, false).unwrap());
    out.extend(sm4::cbc_encrypt_expanded(&c, &[1; 16], &msg, false).unwrap());
    out.extend(sm4::cbc_decrypt_expanded(&c, &[1; 16], &msg, false).unwrap());
    let mut x = msg;
    sm4::ctr_apply_in_place(&c, &[2; 16], &mut x);
    sm4::cfb_encrypt_in_place(&c, &[3; 16], &mut x);
    sm4::cfb_decrypt_in_place(&c, &[3; 16], &mut x);
    sm4::ofb_apply_in_place(&c, &[4; 16], &mut x);
    out.extend_from_slice(&x);
    // encrypt_many: 17 messages fill the side-by-side kernel (two groups
    // on 256-bit registers) and leave one for the interleaved loop.
    let ivs = [[9u8; 16]; 17];
    let items: Vec<(&[u8], &[u8])> = (0..17).map(|i| (&ivs[i][..], &msg[8 * i..8 * i + 32])).collect();
    for ct in sm4::cbc_encrypt_many(&c, &items, false).unwrap() {
        out.extend(ct);
    }
    out.extend(Gcm::with_cipher(c.clone(), 16).encrypt(&[5; 12], &msg[..8], &msg[8..20]).unwrap());
    out.extend(Ccm::with_cipher(c.clone(), 16).unwrap().encrypt(&[6; 12], &msg[..8], &msg[8..20]).unwrap());
    // Xts::new publishes one bit of its key (whether the halves are equal,
    // which it must refuse); without the `ctime` feature the library cannot
    // declassify it, so the XTS keys are built from a defined copy. The key
    // schedule and block function are the ones checked above with a secret
    // key; here the data stays secret.
    let xkey = key;
    make_defined(&xkey);
    let xts = Xts::new(&xkey, XtsStandard::Gb).unwrap();
    let mut y = msg;
    xts.encrypt_in_place(&[7; 16], &mut y[..40]).unwrap();
    let xts = Xts::new(&xkey, XtsStandard::Ieee).unwrap();
    xts.decrypt_in_place(&[7; 16], &mut y[..40]).unwrap();
    out.extend_from_slice(&y);
    if leak {
        ctgrind::leak_control(&mut out);
    }
    ctgrind::publish(&out);
    key.fill(0);
    msg.fill(0);
}

#[test]
fn sm4_is_constant_time_under_valgrind() {
    ctgrind::check("sm4_is_constant_time_under_valgrind", secret_work);
}
