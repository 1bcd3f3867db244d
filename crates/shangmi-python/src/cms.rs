//! CMS SignedData / EnvelopedData: thin wrappers over `shangmi::cms`.
//! Signing and key unwrapping go through Python objects (`sign_digest`,
//! `decrypt`), so hardware-held keys work; the core builds and parses.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::cms::{self, Flavor, RecipientId, SignRequest};
use shangmi::x509::Certificate;

use crate::buffer::{Arg, Bytes, Name};
use crate::errors::{invalid, IntoPyResult};
use crate::x509::X509Certificate;

/// The flavour the Python options `oids` and `compat` name (the core
/// parses them and owns the messages).
fn flavor(oids: &Name, compat: &Option<Name>) -> shangmi::Result<Flavor> {
    Flavor::from_options(&oids.0, compat.as_ref().map(|c| c.0.as_str()))
}

fn certs(list: &[PyRef<'_, X509Certificate>]) -> Vec<Certificate> {
    list.iter().map(|c| c.inner.clone()).collect()
}

fn wrap(list: Vec<Certificate>) -> Vec<X509Certificate> {
    list.into_iter().map(|inner| X509Certificate { inner }).collect()
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (data, signer, certificates, detached, oids, compat, signing_time, uid, signature=None))]
fn cms_sign<'py>(
    py: Python<'py>,
    data: Bytes<'_>,
    signer: Arg<PyRef<'_, X509Certificate>>,
    certificates: Arg<Vec<PyRef<'_, X509Certificate>>>,
    detached: Arg<bool>,
    oids: Name,
    compat: Option<Name>,
    signing_time: Arg<i64>,
    uid: Bytes<'_>,
    signature: Option<Bytes<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    // Without a signature: the digest e to sign. With one: the message.
    let extra = certs(&certificates.0);
    let req = SignRequest {
        content: data.as_slice(),
        signer: &signer.0.inner,
        certificates: &extra,
        detached: detached.0,
        flavor: flavor(&oids, &compat).py_err()?,
        signing_time: signing_time.0,
    };
    let (u, sig) = (uid.as_slice(), signature.as_ref().map(|s| s.as_slice()));
    let out = py
        .detach(|| match sig {
            None => req.digest(u).map(|e| e.to_vec()),
            Some(s) => req.finish(s),
        })
        .py_err()?;
    Ok(PyBytes::new(py, &out))
}

type VerifiedTuple<'py> = (Bound<'py, PyBytes>, Vec<X509Certificate>, Vec<X509Certificate>, &'static str);

#[pyfunction]
#[pyo3(signature = (message, data, extra, uid, roots, at))]
fn cms_verify<'py>(
    py: Python<'py>,
    message: Bytes<'_>,
    data: Option<Bytes<'_>>,
    extra: Arg<Vec<PyRef<'_, X509Certificate>>>,
    uid: Option<Bytes<'_>>,
    roots: Option<Arg<Vec<PyRef<'_, X509Certificate>>>>,
    at: Arg<i64>,
) -> PyResult<VerifiedTuple<'py>> {
    let (extra, at) = (certs(&extra.0), at.0);
    let roots = roots.map(|r| certs(&r.0));
    let (m, d, u) = (message.as_slice(), data.as_ref().map(|b| b.as_slice()), uid.as_ref().map(|b| b.as_slice()));
    let der = cms::from_pem_or_der(m).py_err()?;
    let v = py.detach(|| cms::signed::verify(&der, d, &extra, u, roots.as_deref().map(|r| (r, at)))).py_err()?;
    Ok((PyBytes::new(py, &v.content), wrap(v.signers), wrap(v.certificates), v.flavor.name()))
}

#[pyfunction]
fn cms_encrypt<'py>(
    py: Python<'py>,
    data: Bytes<'_>,
    recipients: Arg<Vec<PyRef<'_, X509Certificate>>>,
    oids: Name,
    compat: Option<Name>,
    recipient_id: Name,
) -> PyResult<Bound<'py, PyBytes>> {
    let rs = certs(&recipients.0);
    let f = flavor(&oids, &compat).py_err()?;
    let rid = RecipientId::from_name(&recipient_id.0).py_err()?;
    let d = data.as_slice();
    let out = py.detach(|| cms::encrypt(d, &rs, f, rid)).py_err()?;
    Ok(PyBytes::new(py, &out))
}

#[pyfunction]
#[pyo3(signature = (message, certificate=None))]
fn cms_recipient_keys<'py>(
    py: Python<'py>,
    message: Bytes<'_>,
    certificate: Option<Arg<PyRef<'_, X509Certificate>>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let der = cms::from_pem_or_der(message.as_slice()).py_err()?;
    let keys = cms::recipient_keys(&der, certificate.as_ref().map(|c| &c.0.inner)).py_err()?;
    Ok(keys.iter().map(|k| PyBytes::new(py, k)).collect())
}

#[pyfunction]
fn cms_decrypt_content<'py>(py: Python<'py>, message: Bytes<'_>, cek: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
    let der = cms::from_pem_or_der(message.as_slice()).py_err()?;
    let k = cek.as_slice();
    let pt = py.detach(|| cms::decrypt_content(&der, k)).py_err()?;
    Ok(PyBytes::new(py, &pt))
}

#[pyfunction]
fn cms_to_pem(der: Bytes<'_>) -> String {
    cms::to_pem(der.as_slice())
}

/// A message in the output `encoding` ("der" or "pem"); the one parser of
/// that option for CMS.
#[pyfunction]
fn cms_encode<'py>(py: Python<'py>, der: Bytes<'_>, encoding: Name) -> PyResult<Bound<'py, PyBytes>> {
    match encoding.0.as_str() {
        "der" => Ok(PyBytes::new(py, der.as_slice())),
        "pem" => Ok(PyBytes::new(py, cms::to_pem(der.as_slice()).as_bytes())),
        other => Err(invalid(format!("encoding must be 'der' or 'pem', got '{other}'"))),
    }
}

#[pyfunction]
fn cms_to_der<'py>(py: Python<'py>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &cms::from_pem_or_der(data.as_slice()).py_err()?))
}

type OpenedTuple<'py> = (Bound<'py, PyBytes>, Vec<X509Certificate>, Vec<X509Certificate>);

#[pyfunction]
#[pyo3(signature = (message, certificate=None))]
fn cms_sed_recipient_keys<'py>(
    py: Python<'py>,
    message: Bytes<'_>,
    certificate: Option<Arg<PyRef<'_, X509Certificate>>>,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let der = cms::from_pem_or_der(message.as_slice()).py_err()?;
    let keys = cms::signed_enveloped::recipient_keys(&der, certificate.as_ref().map(|c| &c.0.inner)).py_err()?;
    Ok(keys.iter().map(|k| PyBytes::new(py, k)).collect())
}

/// Decrypts a SignedAndEnvelopedData with the content-encryption key and
/// verifies its signatures: (content, signers, certificates).
#[pyfunction]
#[pyo3(signature = (message, cek, extra, uid, roots, at))]
fn cms_sed_open<'py>(
    py: Python<'py>,
    message: Bytes<'_>,
    cek: Bytes<'_>,
    extra: Arg<Vec<PyRef<'_, X509Certificate>>>,
    uid: Option<Bytes<'_>>,
    roots: Option<Arg<Vec<PyRef<'_, X509Certificate>>>>,
    at: Arg<i64>,
) -> PyResult<OpenedTuple<'py>> {
    let (extra, at) = (certs(&extra.0), at.0);
    let roots = roots.map(|r| certs(&r.0));
    let der = cms::from_pem_or_der(message.as_slice()).py_err()?;
    let (k, u) = (cek.as_slice(), uid.as_ref().map(|b| b.as_slice()));
    let o =
        py.detach(|| cms::signed_enveloped::open(&der, k, &extra, u, roots.as_deref().map(|r| (r, at)))).py_err()?;
    Ok((PyBytes::new(py, &o.content), wrap(o.signers), wrap(o.certificates)))
}

/// Without a signature: the digest e to sign. With one: the message.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (data, signer, certificates, recipients, oids, uid, signature=None))]
fn cms_sed_seal<'py>(
    py: Python<'py>,
    data: Bytes<'_>,
    signer: Arg<PyRef<'_, X509Certificate>>,
    certificates: Arg<Vec<PyRef<'_, X509Certificate>>>,
    recipients: Arg<Vec<PyRef<'_, X509Certificate>>>,
    oids: Name,
    uid: Bytes<'_>,
    signature: Option<Bytes<'_>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (extra, rs) = (certs(&certificates.0), certs(&recipients.0));
    let req = cms::signed_enveloped::SealRequest {
        content: data.as_slice(),
        signer: &signer.0.inner,
        certificates: &extra,
        recipients: &rs,
        flavor: Flavor::from_options(&oids.0, None).py_err()?,
    };
    let (u, sig) = (uid.as_slice(), signature.as_ref().map(|s| s.as_slice()));
    let out = py
        .detach(|| match sig {
            None => req.digest(u).map(|e| e.to_vec()),
            Some(s) => req.finish(s),
        })
        .py_err()?;
    Ok(PyBytes::new(py, &out))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(cms_sed_recipient_keys, m)?)?;
    m.add_function(wrap_pyfunction!(cms_sed_open, m)?)?;
    m.add_function(wrap_pyfunction!(cms_sed_seal, m)?)?;
    m.add_function(wrap_pyfunction!(cms_sign, m)?)?;
    m.add_function(wrap_pyfunction!(cms_verify, m)?)?;
    m.add_function(wrap_pyfunction!(cms_encrypt, m)?)?;
    m.add_function(wrap_pyfunction!(cms_recipient_keys, m)?)?;
    m.add_function(wrap_pyfunction!(cms_decrypt_content, m)?)?;
    m.add_function(wrap_pyfunction!(cms_to_pem, m)?)?;
    m.add_function(wrap_pyfunction!(cms_encode, m)?)?;
    m.add_function(wrap_pyfunction!(cms_to_der, m)?)?;
    Ok(())
}
