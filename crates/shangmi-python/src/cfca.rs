//! CFCA key formats and GB/T 35276 key envelopes: thin wrappers over
//! `shangmi::cfca` (conversion only).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::cfca;
use shangmi::sm2::PublicKey;

use crate::buffer::{Arg, Bytes};
use crate::errors::IntoPyResult;
use crate::sm2::Sm2PrivateKey;
use crate::x509::X509Certificate;

#[pyfunction]
fn cfca_load_sm2(py: Python<'_>, data: Bytes<'_>, password: Bytes<'_>) -> PyResult<(Sm2PrivateKey, X509Certificate)> {
    let (d, pw) = (data.as_slice(), password.as_slice());
    let (key, cert) = py.detach(|| cfca::load_sm2(d, pw)).py_err()?;
    Ok((Sm2PrivateKey { inner: key }, X509Certificate { inner: cert }))
}

#[pyfunction]
fn cfca_save_sm2<'py>(
    py: Python<'py>,
    key: Arg<PyRef<'_, Sm2PrivateKey>>,
    cert: Arg<PyRef<'_, X509Certificate>>,
    password: Bytes<'_>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (k, c, pw) = (&key.0.inner, &cert.0.inner, password.as_slice());
    let out = py.detach(|| cfca::save_sm2(k, c, pw)).py_err()?;
    Ok(PyBytes::new(py, &out))
}

#[pyfunction]
fn cfca_decrypt_escrowed_key(
    py: Python<'_>,
    data: Bytes<'_>,
    temporary_key: Arg<PyRef<'_, Sm2PrivateKey>>,
) -> PyResult<Sm2PrivateKey> {
    let (d, k) = (data.as_slice(), &temporary_key.0.inner);
    let inner = py.detach(|| cfca::decrypt_escrowed_key(d, k)).py_err()?;
    Ok(Sm2PrivateKey { inner })
}

/// `recipient` is the recipient's public key as an encoded point.
#[pyfunction]
fn sm2_wrap_enveloped_key<'py>(
    py: Python<'py>,
    key: Arg<PyRef<'_, Sm2PrivateKey>>,
    recipient: Bytes<'_>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (k, r) = (&key.0.inner, recipient.as_slice());
    let out = py.detach(|| PublicKey::from_bytes(r).and_then(|p| cfca::wrap_enveloped_key(k, &p))).py_err()?;
    Ok(PyBytes::new(py, &out))
}

#[pyfunction]
fn sm2_unwrap_enveloped_key(
    py: Python<'_>,
    data: Bytes<'_>,
    recipient_key: Arg<PyRef<'_, Sm2PrivateKey>>,
) -> PyResult<Sm2PrivateKey> {
    let (d, k) = (data.as_slice(), &recipient_key.0.inner);
    let inner = py.detach(|| cfca::unwrap_enveloped_key(d, k)).py_err()?;
    Ok(Sm2PrivateKey { inner })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cfca_load_sm2, m)?)?;
    m.add_function(wrap_pyfunction!(cfca_save_sm2, m)?)?;
    m.add_function(wrap_pyfunction!(cfca_decrypt_escrowed_key, m)?)?;
    m.add_function(wrap_pyfunction!(sm2_wrap_enveloped_key, m)?)?;
    m.add_function(wrap_pyfunction!(sm2_unwrap_enveloped_key, m)?)?;
    Ok(())
}
