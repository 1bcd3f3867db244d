//! SM3, HMAC-SM3 and the SM2/SM9 KDF.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::sm3;

use crate::buffer::{batch, field, Bytes, Uint};
use crate::errors::IntoPyResult;
use crate::gil::{lock, maybe_detach};

/// Incremental SM3 state behind `shangmi.sm3.SM3`.
#[pyclass(name = "Sm3Hasher", module = "shangmi._native", frozen)]
struct Sm3Hasher {
    inner: std::sync::Mutex<sm3::Sm3>,
}

#[pymethods]
impl Sm3Hasher {
    #[new]
    fn new() -> Self {
        Sm3Hasher { inner: std::sync::Mutex::new(sm3::Sm3::new()) }
    }

    fn update(&self, py: Python<'_>, data: Bytes<'_>) {
        let data = data.as_slice();
        maybe_detach(py, data.len(), || lock(&self.inner).update(data));
    }

    fn digest<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &lock(&self.inner).digest())
    }

    fn copy(&self) -> Self {
        Sm3Hasher { inner: std::sync::Mutex::new(lock(&self.inner).clone()) }
    }
}

/// Name of the SM3 compression variant in use.
#[pyfunction]
fn sm3_backend() -> &'static str {
    sm3::backend_name()
}

#[pyfunction]
fn sm3_hash<'py>(py: Python<'py>, data: Bytes<'_>) -> Bound<'py, PyBytes> {
    let data = data.as_slice();
    let d = maybe_detach(py, data.len(), || sm3::hash(data));
    PyBytes::new(py, &d)
}

#[pyfunction]
fn sm3_hash_many<'py>(py: Python<'py>, messages: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let messages: Vec<Bytes<'py>> = batch(messages, "messages (bytes-like)")?
        .iter()
        .enumerate()
        .map(|(i, m)| field(m, "message", i))
        .collect::<PyResult<_>>()?;
    let slices: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    let total: usize = slices.iter().map(|m| m.len()).sum();
    let digests = maybe_detach(py, total, || sm3::hash_many(&slices));
    Ok(digests.iter().map(|d| PyBytes::new(py, d)).collect())
}

#[pyfunction]
fn sm3_hmac_many<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    messages: &Bound<'py, PyAny>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let messages: Vec<Bytes<'py>> = batch(messages, "messages (bytes-like)")?
        .iter()
        .enumerate()
        .map(|(i, m)| field(m, "message", i))
        .collect::<PyResult<_>>()?;
    let slices: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    let total: usize = slices.iter().map(|m| m.len()).sum();
    let key = key.as_slice();
    let tags = maybe_detach(py, total, || sm3::hmac_many(key, &slices));
    Ok(tags.iter().map(|d| PyBytes::new(py, d)).collect())
}

#[pyfunction]
fn sm3_hmac<'py>(py: Python<'py>, key: Bytes<'_>, data: Bytes<'_>) -> Bound<'py, PyBytes> {
    let (key, data) = (key.as_slice(), data.as_slice());
    let d = maybe_detach(py, data.len(), || sm3::hmac(key, data));
    PyBytes::new(py, &d)
}

#[pyfunction]
fn sm3_kdf<'py>(py: Python<'py>, z: Bytes<'_>, length: Uint<usize>) -> PyResult<Bound<'py, PyBytes>> {
    let length = length.0;
    sm3::check_kdf_len(length).py_err()?;
    let z = z.as_slice();
    PyBytes::new_with(py, length, |out| {
        maybe_detach(py, length, || sm3::kdf_into(&[z], out));
        Ok(())
    })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sm3Hasher>()?;
    m.add_function(wrap_pyfunction!(sm3_backend, m)?)?;
    m.add_function(wrap_pyfunction!(sm3_hash, m)?)?;
    m.add_function(wrap_pyfunction!(sm3_hash_many, m)?)?;
    m.add_function(wrap_pyfunction!(sm3_hmac, m)?)?;
    m.add_function(wrap_pyfunction!(sm3_hmac_many, m)?)?;
    m.add_function(wrap_pyfunction!(sm3_kdf, m)?)?;
    m.add("SM3_MAX_KDF_LEN", sm3::MAX_KDF_LEN)?;
    Ok(())
}
