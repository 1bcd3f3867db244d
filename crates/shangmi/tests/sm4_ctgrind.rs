//! Constant-time check of SM4 (every mode, and GHASH) with valgrind (the
//! approach of libsecp256k1's ctime tests): key and plaintext are marked
//! "undefined" with a memcheck client request, so any branch or memory
//! address that depends on them is reported as an error. The test re-runs
//! itself under valgrind once per `SHANGMI_CPU_DISABLE` mask in [`MASKS`],
//! each selecting another backend; a control run with a deliberate
//! secret-indexed table lookup must fail, which shows the check can fail.
//! Skipped when valgrind is not installed.
//!
//! Valgrind (3.19) executes AES-NI, PCLMULQDQ, SSE and AVX2 but not GFNI,
//! VAES or AVX-512, and its CPUID hides those, so under it the masks reach
//! aesni-avx2 (with PCLMULQDQ GHASH), aesni-sse and portable (with the
//! portable GHASH). The GFNI, VAES and AVX-512 engines share the kernels
//! checked here (`sm4/simd.rs`: memory indexed only by public lengths) and
//! differ only in the S-box and L instructions, which are register-only
//! (`gf2p8affine*`, `aesenclast`, `pshufb` with data as the shuffle index,
//! `vprold`, `vpternlogd`): no secret-dependent branch or address.

use std::process::Command;

use shangmi::ctime::{make_defined, make_undefined};
use shangmi::sm4::{self, Ccm, Gcm, Sm4, Xts, XtsStandard};

const CHILD: &str = "SHANGMI_CTGRIND_CHILD";

#[cfg(target_arch = "x86_64")]
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
        // Control: a table lookup indexed by a secret byte.
        let table: Vec<u8> = (0..=255).collect();
        out.push(table[out[0] as usize]);
    }
    // Declassify the outputs (ciphertexts are public), then use them.
    make_defined(&out);
    let sum: u32 = out.iter().map(|&v| v as u32).sum();
    std::hint::black_box(sum);
    key.fill(0);
    msg.fill(0);
}

/// Masks that step through the backends valgrind can run.
const MASKS: [&str; 3] = ["", "avx2", "all"];

fn run_under_valgrind(mode: &str, mask: &str) -> Option<(i32, String)> {
    Command::new("valgrind").arg("--version").output().ok()?;
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["-q", "--error-exitcode=42", "--track-origins=no"])
        .arg(exe)
        .args(["--exact", "sm4_is_constant_time_under_valgrind", "--test-threads=1", "--nocapture"])
        .env(CHILD, mode)
        .env("SHANGMI_CPU_DISABLE", mask)
        .output()
        .ok()?;
    Some((out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned()))
}

#[test]
#[cfg(target_arch = "x86_64")]
fn sm4_is_constant_time_under_valgrind() {
    match std::env::var(CHILD).as_deref() {
        Ok("clean") => return secret_work(false),
        Ok("leak") => return secret_work(true),
        _ => {}
    }
    let mut seen = Vec::new();
    for mask in MASKS {
        let Some((clean, log)) = run_under_valgrind("clean", mask) else {
            eprintln!("valgrind not installed: constant-time check skipped");
            return;
        };
        let backend = log.lines().find_map(|l| l.strip_prefix("ctgrind backend ")).unwrap_or("?").to_string();
        assert_eq!(clean, 0, "valgrind found a secret-dependent branch or address (mask {mask:?}, {backend}):\n{log}");
        seen.push(backend);
    }
    eprintln!("checked under valgrind: {seen:?}");
    assert!(seen.iter().any(|b| b == "portable"), "{seen:?}");
    let (leak, log) = run_under_valgrind("leak", "all").expect("valgrind ran once already");
    assert_eq!(leak, 42, "the control with a secret-indexed lookup was not detected:\n{log}");
}
