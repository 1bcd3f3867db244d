//! Runs the ZUC constant-time check (examples/zuc_ctgrind.rs) under Valgrind
//! when it is installed: no secret-dependent branch or address may be found,
//! and the deliberately leaky variant must be caught.

// The valgrind client requests that mark secrets are x86-64 code.
#![cfg(target_arch = "x86_64")]

use std::path::PathBuf;
use std::process::Command;

fn example() -> Option<PathBuf> {
    // target/<profile>/deps/<this test> -> target/<profile>/examples/zuc_ctgrind
    let exe = std::env::current_exe().ok()?;
    let path = exe.parent()?.parent()?.join("examples").join("zuc_ctgrind");
    path.exists().then_some(path)
}

/// Runs `args` under valgrind; with `mask`, under that `SHANGMI_CPU_DISABLE`
/// (the kernel is chosen once per process), else the inherited one.
fn valgrind(mask: Option<&str>, args: &[&str]) -> Option<i32> {
    let mut cmd = Command::new("valgrind");
    if let Some(m) = mask {
        cmd.env(shangmi::cpu::DISABLE_VAR, m);
    }
    let out = cmd.args(["--error-exitcode=42", "--quiet", "--track-origins=no"]).args(args).output().ok()?;
    if out.status.code() != Some(0) {
        eprintln!("{}", String::from_utf8_lossy(&out.stderr));
    }
    out.status.code()
}

#[test]
fn zuc_is_constant_time_under_valgrind() {
    let Some(bin) = example() else {
        eprintln!("skipped: examples/zuc_ctgrind not built (cargo test builds it)");
        return;
    };
    if Command::new("valgrind").arg("--version").output().is_err() {
        eprintln!("skipped: valgrind not installed");
        return;
    }
    let bin = bin.to_str().unwrap();
    // The best kernel valgrind shows (AES-NI/AVX2), then the portable one.
    for mask in [None, Some("all")] {
        assert_eq!(valgrind(mask, &[bin]), Some(0), "secret-dependent branch or memory access in ZUC ({mask:?})");
    }
    assert_eq!(valgrind(None, &[bin, "--leak"]), Some(42), "the check failed to catch a deliberate leak");
}
