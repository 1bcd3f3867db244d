//! Constant-time check of SM3 and HMAC-SM3 with valgrind, as
//! `sm4_ctgrind.rs` does for SM4: the HMAC key and the messages are marked
//! "undefined" with a memcheck client request, so any branch or memory
//! address that depends on them is reported. The test re-runs itself under
//! valgrind once per `SHANGMI_CPU_DISABLE` mask in [`ctgrind::MASKS`](common::ctgrind::MASKS); a control run
//! with a deliberate secret-indexed table lookup must fail, which shows the
//! check can fail. Skipped when valgrind is not installed.
//!
//! Covered: one-shot and incremental HMAC-SM3 (short and long keys), SM3
//! one-shot and incremental, the KDF, and `hash_many` (the multi-buffer
//! kernel: loads and transposes at public offsets, 8 and 16 lanes). Valgrind executes AVX2 and
//! BMI2 but not AVX-512, which its CPUID hides, so mask "" checks the
//! AVX2 inline-assembly compression (`sm3/x86/avx2.rs`; it needs BMI2 too, so the
//! portable one runs where valgrind's CPUID also hides BMI2; `ctime` builds
//! add it back, see `cpu.rs`) and the 8-lane AVX2 `hash_many`; `avx2` and `all` check the portable paths alone. The test
//! prints the backends it reached.
//! The AVX-512 variant (`sm3/x86/avx512.rs`), which valgrind cannot execute,
//! runs inline-assembly rounds of the same form as the AVX2 kernel checked
//! here, with the message expansion in AVX-512VL registers stored to fixed
//! stack offsets: straight-line code, no secret-dependent branch or
//! address.

// The valgrind client requests that mark secrets are x86-64 code.
#![cfg(target_arch = "x86_64")]

mod common;

use common::ctgrind;
use shangmi::ctime::make_undefined;
use shangmi::sm3::{self, HmacSm3, Sm3};

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
        ctgrind::leak_control(&mut out);
    }
    ctgrind::publish(&out);
    key.fill(0);
    msg.fill(0);
}

#[test]
fn sm3_hmac_is_constant_time_under_valgrind() {
    ctgrind::check("sm3_hmac_is_constant_time_under_valgrind", secret_work);
}
