//! `shangmi.cpu_features()`: what the core detected and chose.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use shangmi::cpu;

use crate::errors::IntoPyResult;

/// {"detected": [...], "enabled": [...], "masked": [...], "backends": {algorithm: name}}.
#[pyfunction]
fn cpu_info<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("detected", cpu::detected().names())?;
    d.set_item("enabled", cpu::features().names())?;
    d.set_item("masked", cpu::detected().without(cpu::features()).names())?;
    let b = PyDict::new(py);
    for (alg, name) in shangmi::backends() {
        b.set_item(alg, name)?;
    }
    d.set_item("backends", b)?;
    Ok(d)
}

/// Caps the threads of shangmi's batch pool (0 = one per CPU).
#[pyfunction]
fn set_num_threads(n: usize) -> PyResult<()> {
    shangmi::par::set_num_threads(n).py_err()
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
