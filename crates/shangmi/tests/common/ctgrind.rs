//! The one constant-time harness (the approach of libsecp256k1's ctime
//! tests), used by `tests/ctgrind.rs`. A workload marks its secrets
//! *undefined* for valgrind's memcheck ([`secret`]), so any branch or memory
//! address computed from them is reported; the library, built with the
//! `ctime` feature, declassifies only what it publishes (signatures,
//! ciphertexts, public keys, pass/fail bits), and the workload declassifies
//! the rest of its outputs with [`publish`].
//!
//! One flag convention: the `ctime` feature (the test target requires it)
//! and one variable, `SHANGMI_CTGRIND`, which only the harness sets. A test
//! calls [`check`] with its own name and workload. Unset, the test is the
//! driver: it re-runs itself (exactly that test) under valgrind once per
//! mask in [`MASKS`] with `SHANGMI_CTGRIND=clean`, backends being reached
//! only through the library's `SHANGMI_CPU_DISABLE` (one process per mask),
//! and requires every run to be clean; then once with
//! `SHANGMI_CTGRIND=leak`, where the workload ends with [`control`] (a
//! branch and a table index steered by its secret key), and requires
//! valgrind to report both, which shows that the check can fail for this
//! workload: its secrets are still marked after it ran, and the errors do
//! reach the exit code. With `SHANGMI_CPU_DISABLE` set, the driver checks
//! that one mask instead of the list. Without valgrind the check fails
//! (set `SHANGMI_CTGRIND=skip` to skip it on purpose).
//!
//! Run: `cargo test --release -p shangmi --features ctime --test ctgrind`.

use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

const VAR: &str = "SHANGMI_CTGRIND";

/// Everything valgrind 3.19 cannot execute or hides from CPUID: AVX-512
/// (any width), GFNI, VAES, VPCLMULQDQ and SHA-NI. Masked explicitly so a
/// valgrind that advertised one of them would not change what is checked.
macro_rules! not_under_valgrind {
    () => {
        "avx512f,avx512bw,avx512vl,avx512dq,avx512ifma,gfni,vaes,vpclmulqdq,sha_ni"
    };
}

/// The `SHANGMI_CPU_DISABLE` values checked, each reaching other backends:
/// - AVX2 level: SM3's AVX2 inline-assembly compression and 8-lane
///   `hash_many`, SM4 aesni-avx2 with PCLMULQDQ GHASH, ZUC's AVX2 lanes,
///   SM2/SM9's MULX/ADCX/ADOX field assembly and AVX2 table scans (valgrind's
///   CPUID hides ADX; `ctime` builds add BMI2/ADX back, see `cpu.rs`);
/// - the same without ADX: the portable field arithmetic beside the AVX2
///   table scans;
/// - SSE level (AVX2 masked): SM4 aesni-sse, the SSE ZUC lanes, the portable
///   table scans beside the ADX field;
/// - `all`: the portable code everywhere.
///
/// The AVX-512, GFNI and VAES kernels cannot run under valgrind; their
/// constant-time argument is in their own comments (register-only S-box and
/// L steps, memory indexed by public lengths), and `scripts/ctime.sh`
/// checks the machine code of the SM2/SM9 scans for k-masked memory
/// operands.
pub const MASKS: [&str; 4] =
    [not_under_valgrind!(), concat!(not_under_valgrind!(), ",adx"), concat!(not_under_valgrind!(), ",avx2"), "all"];

/// Runs `work(leak)` in a valgrind child, else drives the children as the
/// module doc says. `test` is the `#[test]` function's name.
pub fn check(test: &str, work: fn(bool)) {
    check_naming(test, work, &[]);
}

/// [`check`], also requiring the negative control's report to name each
/// function in `culprits` (a workload's own deliberately variable-time
/// code, caught beside the key control).
pub fn check_naming(test: &str, work: fn(bool), culprits: &[&str]) {
    match std::env::var(VAR).as_deref() {
        Ok("clean") => {
            eprintln!("ctgrind features [{}]", shangmi::cpu::features().names().join(","));
            return work(false);
        }
        Ok("leak") => return work(true),
        Ok("skip") => return eprintln!("{VAR}=skip: constant-time check skipped"),
        _ => {}
    }
    assert!(
        Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success()),
        "valgrind is not installed (set {VAR}=skip to skip the constant-time check)"
    );
    let one = std::env::var(shangmi::cpu::DISABLE_VAR).ok();
    let masks: Vec<&str> = match &one {
        Some(m) => vec![m.as_str()],
        None => MASKS.to_vec(),
    };
    let mut seen = Vec::new();
    for mask in &masks {
        let t = Instant::now();
        let (code, log) = valgrind(test, "clean", mask);
        let features = log.lines().find_map(|l| l.strip_prefix("ctgrind features ")).unwrap_or("?").to_string();
        assert_eq!(code, 0, "{test}: valgrind found a secret-dependent branch or address (mask {mask:?}):\n{log}");
        eprintln!("{test}: clean under valgrind, features {features}, {:.1} s", t.elapsed().as_secs_f64());
        seen.push(features);
    }
    if one.is_none() {
        // The list reached the portable code, and valgrind ran the AVX2
        // level when this CPU has it (else the list checks less than it says).
        assert!(seen.iter().any(|f| f == "[]"), "{test}: no mask reached the portable code: {seen:?}");
        if std::is_x86_feature_detected!("avx2") {
            assert!(seen[0].contains("avx2"), "{test}: AVX2 not reached under valgrind: {seen:?}");
        }
    }
    let t = Instant::now();
    let (code, log) = valgrind(test, "leak", masks[masks.len() - 1]);
    assert_eq!(code, 42, "{test}: the negative control was not detected:\n{log}");
    for what in ["Conditional jump or move depends on uninitialised", "Use of uninitialised value of size"] {
        assert!(log.contains(what), "{test}: the negative control's {what:?} was not reported:\n{log}");
    }
    for f in culprits {
        assert!(log.contains(f), "{test}: the negative control {f} was not reported:\n{log}");
    }
    eprintln!("{test}: negative control detected, {:.1} s", t.elapsed().as_secs_f64());
}

fn valgrind(test: &str, mode: &str, mask: &str) -> (i32, String) {
    let exe = std::env::current_exe().expect("test executable");
    let out = Command::new("valgrind")
        .args(["-q", "--error-exitcode=42", "--track-origins=no", "--num-callers=30"])
        .arg(exe)
        .args(["--exact", test, "--test-threads=1", "--nocapture"])
        .env(VAR, mode)
        .env(shangmi::cpu::DISABLE_VAR, mask)
        .output()
        .expect("valgrind runs");
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The negative control, run last when `leak` is set: a branch on a bit of
/// `key` and a table load indexed by a byte of it, both of which valgrind
/// must report.
pub fn control(leak: bool, key: &[u8]) {
    if !leak {
        return;
    }
    if black_box(key[0]) & 1 == 1 {
        taken();
    }
    let table: [u8; 256] = black_box(core::array::from_fn(|i| i as u8));
    black_box(table[key[1] as usize]);
}

#[inline(never)]
fn taken() {
    black_box(());
}

/// Marks `bytes` secret (memcheck: undefined) for the rest of the run.
pub fn secret(bytes: &[u8]) {
    shangmi::ctime::make_undefined(bytes);
}

/// Declassifies a workload's outputs (digests, MACs, ciphertexts, shared
/// keys are public once computed) and uses them, so nothing is optimised
/// away.
pub fn publish(out: &[u8]) {
    shangmi::ctime::make_defined(out);
    black_box(out.iter().map(|&v| v as u32).sum::<u32>());
}
