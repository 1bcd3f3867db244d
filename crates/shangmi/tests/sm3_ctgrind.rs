//! Constant-time check of SM3 and HMAC-SM3 with valgrind, as
//! `sm4_ctgrind.rs` does for SM4: the HMAC key and the messages are marked
//! "undefined" with a memcheck client request, so any branch or memory
//! address that depends on them is reported. The test re-runs itself under
//! valgrind once per `SHANGMI_CPU_DISABLE` mask in [`MASKS`]; a control run
//! with a deliberate secret-indexed table lookup must fail, which shows the
//! check can fail. Skipped when valgrind is not installed.
//!
//! Covered: one-shot and incremental HMAC-SM3 (short and long keys), SM3
//! one-shot and incremental, the KDF, and `hash_many` (the multi-buffer
//! kernel with its gathers at public offsets). Valgrind executes AVX2 and
//! BMI2 but not AVX-512, which its CPUID hides, so mask "" checks the BMI2
//! compression (the portable one where valgrind's CPUID also hides BMI2;
//! `ctime` builds add it back, see `cpu.rs`) and the 8-lane AVX2
//! `hash_many`; `avx2` and `all` check the portable paths alone. The test
//! prints the backends it reached.
//! The AVX-512 variant runs the same scalar rounds as the BMI2 one, with
//! the message expansion in registers stored to fixed stack offsets: no
//! secret-dependent branch or address.

use std::process::Command;

use shangmi::ctime::{make_defined, make_undefined};
use shangmi::sm3::{self, HmacSm3, Sm3};

const CHILD: &str = "SHANGMI_CTGRIND_CHILD";

fn secret_work(leak: bool) {
    let mut key = [0x5au8; 100]; // longer than a block: hashed first
    let mut msg = [0xa5u8; 300];
    make_undefined(&key);
    make_undefined(&msg);
    eprintln!("ctgrind backend {}", sm3::backend_name());
    let mut out = Vec::new();
    out.extend(sm3::hmac(&key[..16], &msg));
    out.extend(sm3::hmac(&key, &msg[..70]));
    let mut h = HmacSm3::new(&key[..40]);
    h.update(&msg[..13]);
    h.update(&msg[13..]);
    out.extend(h.finalize());
    out.extend(sm3::hash(&msg));
    let mut s = Sm3::new();
    s.update(&msg[..1]);
    s.update(&msg[1..200]);
    out.extend(s.digest());
    out.extend(sm3::kdf(&msg[..64], 100));
    let msgs: Vec<&[u8]> = (0..9).map(|i| &msg[i..i + 200]).collect();
    for d in sm3::hash_many(&msgs) {
        out.extend(d);
    }
    if leak {
        // Control: a table lookup indexed by a secret byte.
        let table: Vec<u8> = (0..=255).collect();
        out.push(table[out[0] as usize]);
    }
    // Declassify the outputs (digests and MACs are public), then use them.
    make_defined(&out);
    let sum: u32 = out.iter().map(|&v| v as u32).sum();
    std::hint::black_box(sum);
    key.fill(0);
    msg.fill(0);
}

/// Masks that step through the paths valgrind can run.
const MASKS: [&str; 3] = ["", "avx2", "all"];

fn run_under_valgrind(mode: &str, mask: &str) -> Option<(i32, String)> {
    Command::new("valgrind").arg("--version").output().ok()?;
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["-q", "--error-exitcode=42", "--track-origins=no"])
        .arg(exe)
        .args(["--exact", "sm3_hmac_is_constant_time_under_valgrind", "--test-threads=1", "--nocapture"])
        .env(CHILD, mode)
        .env("SHANGMI_CPU_DISABLE", mask)
        .output()
        .ok()?;
    Some((out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned()))
}

#[test]
#[cfg(target_arch = "x86_64")]
fn sm3_hmac_is_constant_time_under_valgrind() {
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
