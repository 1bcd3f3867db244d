//! The valgrind driver the constant-time tests share (the approach of
//! libsecp256k1's ctime tests). A test binary's check function calls
//! [`check`] with its own name and its secret workload: outside valgrind it
//! re-runs itself under valgrind once per `SHANGMI_CPU_DISABLE` mask in
//! [`MASKS`] (each reaching another backend), requires every run clean and
//! at least one to reach the portable path, then runs the workload with the
//! deliberate secret-indexed lookup ([`leak_control`]) and requires valgrind
//! to catch it, which shows the check can fail. Skipped when valgrind is not
//! installed.

use std::process::Command;

use shangmi::ctime::make_defined;

const CHILD: &str = "SHANGMI_CTGRIND_CHILD";

/// Masks that step through the backends valgrind can run.
pub const MASKS: [&str; 3] = ["", "avx2", "all"];

/// Runs `work(leak)` when this process is a valgrind child, else drives the
/// children as described in the module doc. `test` is the `#[test]`
/// function's name (the children run exactly it).
pub fn check(test: &str, work: fn(bool)) {
    match std::env::var(CHILD).as_deref() {
        Ok("clean") => return work(false),
        Ok("leak") => return work(true),
        _ => {}
    }
    let mut seen = Vec::new();
    for mask in MASKS {
        let Some((clean, log)) = run_under_valgrind(test, "clean", mask) else {
            eprintln!("valgrind not installed: constant-time check skipped");
            return;
        };
        let backend = log.lines().find_map(|l| l.strip_prefix("ctgrind backend ")).unwrap_or("?").to_string();
        assert_eq!(clean, 0, "valgrind found a secret-dependent branch or address (mask {mask:?}, {backend}):\n{log}");
        seen.push(backend);
    }
    eprintln!("checked under valgrind: {seen:?}");
    assert!(seen.iter().any(|b| b.starts_with("portable")), "{seen:?}");
    let (leak, log) = run_under_valgrind(test, "leak", "all").expect("valgrind ran once already");
    assert_eq!(leak, 42, "the control with a secret-indexed lookup was not detected:\n{log}");
}

fn run_under_valgrind(test: &str, mode: &str, mask: &str) -> Option<(i32, String)> {
    Command::new("valgrind").arg("--version").output().ok()?;
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args(["-q", "--error-exitcode=42", "--track-origins=no"])
        .arg(exe)
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .env(CHILD, mode)
        .env("SHANGMI_CPU_DISABLE", mask)
        .output()
        .ok()?;
    Some((out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned()))
}

/// The negative control: a table lookup indexed by the secret-derived `out[0]`.
pub fn leak_control(out: &mut Vec<u8>) {
    let table: Vec<u8> = (0..=255).collect();
    out.push(table[out[0] as usize]);
}

/// Declassifies the workload's outputs (digests, MACs and ciphertexts are
/// public) and uses them, so the computation cannot be optimised away.
pub fn publish(out: &[u8]) {
    make_defined(out);
    let sum: u32 = out.iter().map(|&v| v as u32).sum();
    std::hint::black_box(sum);
}
