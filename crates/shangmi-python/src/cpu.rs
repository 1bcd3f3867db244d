//! `shangmi.cpu_features()`: what the core detected and chose.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use shangmi::cpu;

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

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cpu_info, m)?)?;
    Ok(())
}
