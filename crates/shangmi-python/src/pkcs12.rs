//! PKCS#12 / PFX and certs-only PKCS#7: thin wrappers over `shangmi::pkcs12`
//! and `shangmi::x509::pkcs7` (conversion only).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::pkcs12;
use shangmi::x509::{pkcs7, Certificate};

use crate::buffer::{Arg, Bytes, Name, Uint};
use crate::errors::IntoPyResult;
use crate::keys::opt_slice;
use crate::sm2::Sm2PrivateKey;
use crate::x509::X509Certificate;

type Attrs = (Option<String>, Option<Py<PyBytes>>);
type Loaded = (Option<(Sm2PrivateKey, Attrs)>, Vec<(X509Certificate, Attrs)>, Option<usize>);

fn attrs(py: Python<'_>, friendly_name: Option<String>, local_key_id: Option<Vec<u8>>) -> Attrs {
    (friendly_name, local_key_id.map(|id| PyBytes::new(py, &id).unbind()))
}

/// The key with its (friendly name, local key ID), the certificates with
/// theirs, and the index of the key's own certificate.
#[pyfunction]
fn pkcs12_load(
    py: Python<'_>,
    data: Bytes<'_>,
    password: Option<Bytes<'_>>,
    max_iterations: Uint<u32>,
) -> PyResult<Loaded> {
    let (d, pw, max) = (data.as_slice(), opt_slice(&password), max_iterations.0);
    let p = py.detach(|| pkcs12::parse(d, pw, max)).py_err()?;
    let index = p.key_certificate();
    let key = p.key.map(|k| (Sm2PrivateKey { inner: k.key }, attrs(py, k.friendly_name, k.local_key_id)));
    let certs = p
        .certificates
        .into_iter()
        .map(|c| (X509Certificate { inner: c.certificate }, attrs(py, c.friendly_name, c.local_key_id)))
        .collect();
    Ok((key, certs, index))
}

#[pyfunction]
#[pyo3(signature = (name, key, cert, cas, encryption, password))]
fn pkcs12_serialize<'py>(
    py: Python<'py>,
    name: Option<Bytes<'_>>,
    key: Option<Arg<PyRef<'_, Sm2PrivateKey>>>,
    cert: Option<Arg<PyRef<'_, X509Certificate>>>,
    cas: Arg<Vec<PyRef<'_, X509Certificate>>>,
    encryption: Option<Name>,
    password: Option<Bytes<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let cas: Vec<Certificate> = cas.iter().map(|c| c.inner.clone()).collect();
    let key = key.as_ref().map(|k| &k.inner);
    let cert = cert.as_ref().map(|c| &c.inner);
    let (name, pw, enc) = (opt_slice(&name), opt_slice(&password), encryption.as_ref().map(|e| e.0.as_str()));
    let out = py.detach(|| pkcs12::serialize_named(name, key, cert, &cas, enc, pw)).py_err()?;
    Ok(PyBytes::new(py, &out))
}

fn wrap_all(list: Vec<Certificate>) -> Vec<X509Certificate> {
    list.into_iter().map(|inner| X509Certificate { inner }).collect()
}

#[pyfunction]
fn pkcs7_certificates_from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Vec<X509Certificate>> {
    let d = data.as_slice();
    Ok(wrap_all(py.detach(|| pkcs7::certificates_from_der(d)).py_err()?))
}

#[pyfunction]
fn pkcs7_certificates_from_pem(py: Python<'_>, data: Bytes<'_>) -> PyResult<Vec<X509Certificate>> {
    let d = data.as_slice();
    Ok(wrap_all(py.detach(|| pkcs7::certificates_from_pem(d)).py_err()?))
}

#[pyfunction]
fn pkcs7_serialize<'py>(
    py: Python<'py>,
    certs: Arg<Vec<PyRef<'_, X509Certificate>>>,
    encoding: Name,
) -> PyResult<Bound<'py, PyBytes>> {
    let certs: Vec<Certificate> = certs.iter().map(|c| c.inner.clone()).collect();
    Ok(PyBytes::new(py, &pkcs7::serialize(&certs, &encoding.0).py_err()?))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("PKCS12_DEFAULT_MAX_ITERATIONS", pkcs12::DEFAULT_MAX_ITERATIONS)?;
    m.add_function(wrap_pyfunction!(pkcs12_load, m)?)?;
    m.add_function(wrap_pyfunction!(pkcs12_serialize, m)?)?;
    m.add_function(wrap_pyfunction!(pkcs7_certificates_from_der, m)?)?;
    m.add_function(wrap_pyfunction!(pkcs7_certificates_from_pem, m)?)?;
    m.add_function(wrap_pyfunction!(pkcs7_serialize, m)?)?;
    Ok(())
}
