//! Constant-time check of the portable SM4 backend with valgrind (the
//! approach of libsecp256k1's ctime tests): key and plaintext are marked
//! "undefined" with a memcheck client request, so any branch or memory
//! address that depends on them is reported as an error. The test re-runs
//! itself under valgrind; a control run with a deliberate secret-indexed
//! table lookup must fail, which shows the check can fail. Skipped when
//! valgrind is not installed. Valgrind cannot run AVX-512 code, so this
//! covers the portable backend (the AES-NI path uses no tables at all: its
//! S-box lookups are `pshufb` register permutes).

use std::process::Command;

use shangmi::ctime::{make_defined, make_undefined};
use shangmi::sm4::{self, Backend, Ccm, Gcm, Sm4, Xts, XtsStandard};

const CHILD: &str = "SHANGMI_CTGRIND_CHILD";

#[cfg(target_arch = "x86_64")]
fn secret_work(leak: bool) {
    let mut key = [0x3cu8; 32];
    let mut msg = [0xa5u8; 48];
    make_undefined(&key);
    make_undefined(&msg);
    let k16: [u8; 16] = key[..16].try_into().unwrap();
    let c = Sm4::with_backend(&k16, Backend::Portable).unwrap();
    let mut out = Vec::new();
    let mut b = [0u8; 16];
    b.copy_from_slice(&msg[..16]);
    c.encrypt_block(&mut b);
    c.decrypt_block(&mut b);
    out.extend_from_slice(&b);
    out.extend(sm4::ecb_encrypt(&c, &msg, false).unwrap());
    out.extend(sm4::cbc_encrypt_with(&c, &[1; 16], &msg, false).unwrap());
    out.extend(sm4::cbc_decrypt_with(&c, &[1; 16], &msg, false).unwrap());
    let mut x = msg;
    sm4::ctr_apply_in_place(&c, &[2; 16], &mut x);
    sm4::cfb_encrypt_in_place(&c, &[3; 16], &mut x);
    sm4::cfb_decrypt_in_place(&c, &[3; 16], &mut x);
    sm4::ofb_apply_in_place(&c, &[4; 16], &mut x);
    out.extend_from_slice(&x);
    out.extend(Gcm::with_cipher(c.clone(), 16).encrypt(&[5; 12], &msg[..8], &msg[8..20]).unwrap());
    out.extend(Ccm::with_cipher(c.clone(), 16).unwrap().encrypt(&[6; 12], &msg[..8], &msg[8..20]).unwrap());
    let xts = Xts::new(&key, XtsStandard::Gb).unwrap();
    let mut y = msg;
    xts.encrypt_in_place(&[7; 16], &mut y[..40]).unwrap();
    let xts = Xts::new(&key, XtsStandard::Ieee).unwrap();
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

fn run_under_valgrind(mode: &str) -> Option<(i32, String)> {
    Command::new("valgrind").arg("--version").output().ok()?;
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["-q", "--error-exitcode=42", "--track-origins=no"])
        .arg(exe)
        .args(["--exact", "portable_backend_is_constant_time_under_valgrind", "--test-threads=1", "--nocapture"])
        .env(CHILD, mode)
        .env("SHANGMI_CPU_DISABLE", "all")
        .output()
        .ok()?;
    Some((out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned()))
}

#[test]
#[cfg(target_arch = "x86_64")]
fn portable_backend_is_constant_time_under_valgrind() {
    match std::env::var(CHILD).as_deref() {
        Ok("clean") => return secret_work(false),
        Ok("leak") => return secret_work(true),
        _ => {}
    }
    let Some((clean, log)) = run_under_valgrind("clean") else {
        eprintln!("valgrind not installed: constant-time check skipped");
        return;
    };
    assert_eq!(clean, 0, "valgrind found a secret-dependent branch or address in the portable SM4 backend:\n{log}");
    let (leak, log) = run_under_valgrind("leak").expect("valgrind ran once already");
    assert_eq!(leak, 42, "the control with a secret-indexed lookup was not detected:\n{log}");
}
