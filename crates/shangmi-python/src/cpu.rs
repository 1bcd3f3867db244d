//! `shangmi.cpu_features()`: what the core detected and chose.

use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyDict};

use crate::buffer::Uint;
use crate::errors::IntoPyResult;

/// {"detected": [...], "enabled": [...], "masked": [...], "backends": {algorithm: name}}
/// from [`shangmi::cpu_report`].
#[pyfunction]
fn cpu_info<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let r = shangmi::cpu_report();
    let d = PyDict::new(py);
    d.set_item("detected", r.detected)?;
    d.set_item("enabled", r.enabled)?;
    d.set_item("masked", r.masked)?;
    d.set_item("backends", r.backends.into_py_dict(py)?)?;
    Ok(d)
}

/// Caps the threads of shangmi's batch pool (0 = one per CPU).
#[pyfunction]
fn set_num_threads(n: Uint<usize>) -> PyResult<()> {
    shangmi::par::set_num_threads(n.0).py_err()
}

/// The threads the next batch call will use.
#[pyfunction]
fn num_threads() -> usize {
    shangmi::par::num_threads()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cpu_info, m)?)?;
    m.add_function(wrap_pyfunction!(set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(num_threads, m)?)?;
    Ok(())
}
