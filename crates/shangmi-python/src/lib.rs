//! PyO3 bindings for the shangmi core: argument conversion, GIL release and
//! error mapping only. No cryptographic logic lives here.
//!
//! # Where arguments are checked
//!
//! Every check happens once, in Rust: this crate converts (types), the core
//! validates (lengths, ranges, encodings, option names). The Python package
//! keeps names, defaults, docstrings and shapes only: it never tests a type
//! or a value the binding or the core tests again, and passes its arguments
//! through unchanged. (Its pure-Python parts, such as the pyca-shaped X.509
//! value classes or `batch.hash_files`, check what only they handle, and
//! unwrapping the package's own wrapper objects is a shape.)
//!
//! - Conversion: every parameter is one of the types of `buffer.rs`
//!   (`Bytes`, `BytesMut`, `Uint`, `Name`, batches through `batch` /
//!   `item_fields` / `field`) or `Arg<T>`, which runs PyO3's extraction of
//!   `T` (a `bool`, an `i64`, a pyclass, a list) and hands its errors to
//!   `errors::retype`. No parameter is a bare PyO3 type, so a wrong type is
//!   always `ShangmiTypeError` (a `ShangmiError` and a `TypeError`) and an
//!   out-of-range int `InvalidInputError`, never a foreign exception.
//! - Option strings (`"der"`, `"c1c3c2"`, `"gb"`, `"pkcs8"`, ...) are parsed
//!   once, by the core's `from_name` (or, for the few options the core has
//!   no enum for, by one function here), which owns the message.
//! - Errors: `errors::to_py` is the one table from core errors to Python
//!   classes; the core's messages are language-neutral ("padding disabled")
//!   and that table adds the Python spelling ("padding=False") once.
//! - `tests/test_foreign_exceptions.py` calls every public callable with
//!   wrong-typed arguments and fails on any exception that is not a
//!   `ShangmiError`.
//!
//! The native module is flat (`shangmi._native`); each algorithm registers its
//! functions and classes with a name prefix (`sm3_`, `Sm4...`) from its own
//! file, and the Python package in `python/shangmi/` gives them their face.

use pyo3::prelude::*;

mod buffer;
mod cfca;
mod cms;
mod cpu;
mod errors;
mod gil;
mod keys;
mod ocsp;
mod pkcs12;
mod sm2;
mod sm3;
mod sm4;
mod sm9;
mod tls;
mod x509;
mod zuc;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // A SHANGMI_CPU_DISABLE that does not parse is reported at import.
    shangmi::cpu::status().map_err(errors::to_py)?;
    cpu::register(m)?;
    sm3::register(m)?;
    sm4::register(m)?;
    zuc::register(m)?;
    sm2::register(m)?;
    x509::register(m)?;
    ocsp::register(m)?;
    cms::register(m)?;
    pkcs12::register(m)?;
    cfca::register(m)?;
    sm9::register(m)?;
    tls::register(m)?;
    Ok(())
}
