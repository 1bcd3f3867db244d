//! PyO3 bindings for the shangmi core: argument conversion, GIL release and
//! error mapping only. No cryptographic logic lives here.
//!
//! The native module is flat (`shangmi._native`); each algorithm registers its
//! functions and classes with a name prefix (`sm3_`, `Sm4...`) from its own
//! file, and the Python package in `python/shangmi/` gives them their face.

use pyo3::prelude::*;

mod buffer;
mod cms;
mod cpu;
mod errors;
mod gil;
mod keys;
mod sm2;
mod sm3;
mod sm4;
mod sm9;
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
    cms::register(m)?;
    sm9::register(m)?;
    Ok(())
}
