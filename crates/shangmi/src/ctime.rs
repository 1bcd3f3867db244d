//! Hooks for the valgrind constant-time check (`tests/ctgrind.rs`, built
//! with the `ctime` feature).
//!
//! The check marks secrets "undefined" for memcheck, so any branch or memory
//! address computed from them is reported. Values that are legitimately made
//! public (a signature, a ciphertext, a public key, a pass/fail bit) are
//! *declassified* at the point where the library publishes them, exactly as
//! libsecp256k1's `secp256k1_declassify` does. Without the `ctime` feature
//! [`classify`] and [`declassify`] compile to nothing, so library code can
//! call them on hot paths. [`make_undefined`] and [`make_defined`] always
//! issue the request (a few no-op instructions outside valgrind); they are
//! for test harnesses marking their own inputs.

/// Marks `v` as public (memcheck: defined).
#[inline(always)]
pub fn declassify<T: ?Sized>(v: &T) {
    #[cfg(all(feature = "ctime", target_arch = "x86_64"))]
    client_request(MAKE_MEM_DEFINED, v as *const T as *const u8 as usize, core::mem::size_of_val(v));
    #[cfg(not(all(feature = "ctime", target_arch = "x86_64")))]
    let _ = v;
}

/// Marks `v` as secret (memcheck: undefined).
#[inline(always)]
pub fn classify<T: ?Sized>(v: &T) {
    #[cfg(all(feature = "ctime", target_arch = "x86_64"))]
    client_request(MAKE_MEM_UNDEFINED, v as *const T as *const u8 as usize, core::mem::size_of_val(v));
    #[cfg(not(all(feature = "ctime", target_arch = "x86_64")))]
    let _ = v;
}

/// Marks `bytes` as secret for memcheck, whatever the features (harnesses).
#[doc(hidden)]
pub fn make_undefined(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    client_request(MAKE_MEM_UNDEFINED, bytes.as_ptr() as usize, bytes.len());
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// Marks `bytes` as public for memcheck, whatever the features (harnesses).
#[doc(hidden)]
pub fn make_defined(bytes: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    client_request(MAKE_MEM_DEFINED, bytes.as_ptr() as usize, bytes.len());
    #[cfg(not(target_arch = "x86_64"))]
    let _ = bytes;
}

/// Declassifies a boolean outcome and returns it.
#[inline(always)]
pub fn public_bool(c: subtle::Choice) -> bool {
    let v = c.unwrap_u8();
    declassify(&v);
    v == 1
}

#[cfg(target_arch = "x86_64")]
const MAKE_MEM_UNDEFINED: usize = 0x4d43_0001; // VG_USERREQ_TOOL_BASE('M','C') + 1
#[cfg(target_arch = "x86_64")]
const MAKE_MEM_DEFINED: usize = 0x4d43_0002; // VG_USERREQ_TOOL_BASE('M','C') + 2

/// Valgrind's client-request "magic sequence" (valgrind.h, amd64): four
/// rotations of rdi by 3+13+61+51 = 128 bits (a no-op natively) followed by
/// `xchg rbx, rbx`; under valgrind rax points to the request and its
/// arguments and rdx receives the result. Outside valgrind nothing happens.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn client_request(req: usize, addr: usize, len: usize) {
    let args: [usize; 6] = [req, addr, len, 0, 0, 0];
    // SAFETY: the instruction sequence only rotates rdi by a full 128 bits
    // (restoring it) and exchanges rbx with itself; it reads `args` through
    // rax and writes rdx, both declared. Memory is not otherwise touched.
    unsafe {
        core::arch::asm!(
            "rol rdi, 3",
            "rol rdi, 13",
            "rol rdi, 61",
            "rol rdi, 51",
            "xchg rbx, rbx",
            inout("rdi") 0usize => _,
            in("rax") args.as_ptr(),
            inout("rdx") 0usize => _,
            options(nostack),
        );
    }
}
