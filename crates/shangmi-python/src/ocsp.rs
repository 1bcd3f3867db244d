//! OCSP requests and responses: thin wrappers over `shangmi::x509::ocsp`.
//! CertIDs cross as `(hash OID, issuerNameHash, issuerKeyHash, serial)`
//! tuples, answers as tuples, names as DER; signing is two-step like the
//! certificate builders (ResponseData DER out, DER signature in).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::x509::ocsp::{
    self, CertId, CertStatus, HashAlgorithm, OcspRequest, OcspResponse, ResponderId, ResponseData, ResponseStatus,
    SingleResponse,
};
use shangmi::x509::{self, Extension};
use shangmi::Result;

use crate::buffer::{Arg, Bytes, Name as Text};
use crate::errors::IntoPyResult;
use crate::x509::X509Certificate;

type ExtTuple = (String, bool, Vec<u8>);
type IdTuple = (String, Vec<u8>, Vec<u8>, Vec<u8>);
/// (CertID, "good" | "revoked" | "unknown", revocationTime, reason, thisUpdate, nextUpdate, extensions)
type SingleTuple = (IdTuple, String, Option<i64>, Option<u8>, i64, Option<i64>, Vec<ExtTuple>);

fn exts_in(list: Vec<ExtTuple>) -> Result<Vec<Extension>> {
    list.into_iter().map(|(o, c, v)| Ok(Extension::new(x509::parse_oid(&o)?, c, v))).collect()
}

fn exts_out(list: &[Extension]) -> Vec<ExtTuple> {
    list.iter().map(|e| (e.oid.to_string(), e.critical, e.value.clone())).collect()
}

/// The hash crosses as its name ("sha1", "sha256", "sm3") when supported,
/// else as its dotted OID.
fn id_out(id: &CertId) -> IdTuple {
    let h = HashAlgorithm::text_of(&id.hash_algorithm);
    (h, id.issuer_name_hash.clone(), id.issuer_key_hash.clone(), id.serial.clone())
}

fn id_in(t: IdTuple) -> Result<CertId> {
    let (h, name, key, serial) = t;
    Ok(CertId { hash_algorithm: HashAlgorithm::oid_of(&h)?, issuer_name_hash: name, issuer_key_hash: key, serial })
}

fn single_out(s: &SingleResponse) -> SingleTuple {
    let (st, time, reason) = s.status.to_parts();
    (id_out(&s.cert_id), st.to_string(), time, reason, s.this_update, s.next_update, exts_out(&s.extensions))
}

fn single_in(t: SingleTuple) -> Result<SingleResponse> {
    let (id, st, time, reason, this_update, next_update, exts) = t;
    let status = CertStatus::from_name(&st, time, reason)?;
    Ok(SingleResponse { cert_id: id_in(id)?, status, this_update, next_update, extensions: exts_in(exts)? })
}

#[pyclass(name = "OcspRequest", module = "shangmi._native", frozen)]
pub(crate) struct PyOcspRequest {
    inner: OcspRequest,
}

#[pymethods]
impl PyOcspRequest {
    #[staticmethod]
    fn from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(PyOcspRequest { inner: py.detach(|| OcspRequest::from_der(d)).py_err()? })
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_der())
    }

    fn cert_ids(&self) -> Vec<IdTuple> {
        self.inner.cert_ids().iter().map(id_out).collect()
    }

    fn extensions(&self) -> Vec<ExtTuple> {
        exts_out(self.inner.extensions())
    }

    fn single_extensions(&self) -> Vec<Vec<ExtTuple>> {
        self.inner.single_extensions().iter().map(|e| exts_out(e)).collect()
    }

    fn nonce(&self) -> Option<Vec<u8>> {
        self.inner.nonce()
    }
}

#[pyclass(name = "OcspResponse", module = "shangmi._native", frozen)]
pub(crate) struct PyOcspResponse {
    pub(crate) inner: OcspResponse,
}

#[pymethods]
impl PyOcspResponse {
    #[staticmethod]
    fn from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(PyOcspResponse { inner: py.detach(|| OcspResponse::from_der(d)).py_err()? })
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_der())
    }

    fn status(&self) -> u8 {
        self.inner.status() as u8
    }

    /// ("name", Name DER) or ("key", SHA-1 key hash).
    fn responder_id(&self) -> PyResult<(&'static str, Vec<u8>)> {
        Ok(self.inner.data().py_err()?.responder_id.to_kind())
    }

    fn produced_at(&self) -> PyResult<i64> {
        Ok(self.inner.data().py_err()?.produced_at)
    }

    fn responses(&self) -> PyResult<Vec<SingleTuple>> {
        Ok(self.inner.data().py_err()?.responses.iter().map(single_out).collect())
    }

    fn extensions(&self) -> PyResult<Vec<ExtTuple>> {
        Ok(exts_out(&self.inner.data().py_err()?.extensions))
    }

    fn certificates(&self) -> PyResult<Vec<X509Certificate>> {
        Ok(self.inner.certificates().py_err()?.iter().map(|c| X509Certificate { inner: c.clone() }).collect())
    }

    fn tbs_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.inner.tbs_der().py_err()?))
    }

    fn signature<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, self.inner.signature().py_err()?))
    }

    fn signature_algorithm(&self) -> PyResult<String> {
        Ok(self.inner.signature_algorithm().py_err()?.to_string())
    }

    fn nonce(&self) -> Option<Vec<u8>> {
        self.inner.nonce()
    }

    /// Checks who signed (the issuer or a responder it delegated to) and the
    /// signature; returns the delegated responder's certificate, if any.
    #[pyo3(signature = (issuer, responders, at, uid=None))]
    fn verify(
        &self,
        py: Python<'_>,
        issuer: Arg<Py<X509Certificate>>,
        responders: Arg<Vec<PyRef<'_, X509Certificate>>>,
        at: Arg<i64>,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Option<X509Certificate>> {
        let extra: Vec<x509::Certificate> = responders.iter().map(|c| c.inner.clone()).collect();
        let u = uid.as_ref().map(|b| b.as_slice());
        let at = at.0;
        let signer = py.detach(|| self.inner.verify(&issuer.get().inner, &extra, at, u)).py_err()?;
        Ok(signer.map(|inner| X509Certificate { inner }))
    }
}

#[pyfunction]
fn ocsp_cert_id(cert: Arg<Py<X509Certificate>>, issuer: Arg<Py<X509Certificate>>, hash: Text) -> PyResult<IdTuple> {
    let h = HashAlgorithm::from_name(&hash.0).py_err()?;
    Ok(id_out(&CertId::new(&cert.get().inner, &issuer.get().inner, h).py_err()?))
}

#[pyfunction]
fn ocsp_cert_id_by_serial(issuer: Arg<Py<X509Certificate>>, serial: Arg<Vec<u8>>, hash: Text) -> PyResult<IdTuple> {
    let h = HashAlgorithm::from_name(&hash.0).py_err()?;
    Ok(id_out(&CertId::from_issuer(&issuer.get().inner, &serial.0, h).py_err()?))
}

/// Whether a CertID tuple names `cert` issued by `issuer`.
#[pyfunction]
fn ocsp_cert_id_matches(
    id: Arg<IdTuple>,
    cert: Arg<Py<X509Certificate>>,
    issuer: Arg<Py<X509Certificate>>,
) -> PyResult<bool> {
    Ok(id_in(id.0).py_err()?.matches(&cert.get().inner, &issuer.get().inner))
}

#[pyfunction]
fn ocsp_request_build(ids: Arg<Vec<IdTuple>>, extensions: Arg<Vec<ExtTuple>>) -> PyResult<PyOcspRequest> {
    let ids = ids.0.into_iter().map(id_in).collect::<Result<Vec<_>>>().py_err()?;
    Ok(PyOcspRequest { inner: OcspRequest::build(&ids, &exts_in(extensions.0).py_err()?).py_err()? })
}

#[pyfunction]
fn ocsp_nonce_extension(nonce: Bytes<'_>) -> PyResult<ExtTuple> {
    let e = ocsp::nonce_extension(nonce.as_slice()).py_err()?;
    Ok((e.oid.to_string(), e.critical, e.value))
}

#[pyfunction]
fn ocsp_responder_key_hash<'py>(py: Python<'py>, cert: Arg<Py<X509Certificate>>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &ocsp::responder_key_hash(&cert.get().inner).py_err()?))
}

/// The DER ResponseData to sign. `responder` is ("name", Name DER) or ("key", key hash).
#[pyfunction]
fn ocsp_response_data<'py>(
    py: Python<'py>,
    responder: Arg<(String, Vec<u8>)>,
    produced_at: Arg<i64>,
    responses: Arg<Vec<SingleTuple>>,
    extensions: Arg<Vec<ExtTuple>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (kind, value) = responder.0;
    let responder_id = ResponderId::from_kind(&kind, value).py_err()?;
    let responses = responses.0.into_iter().map(single_in).collect::<Result<Vec<_>>>().py_err()?;
    let data = ResponseData {
        responder_id,
        produced_at: produced_at.0,
        responses,
        extensions: exts_in(extensions.0).py_err()?,
    };
    Ok(PyBytes::new(py, &data.to_der().py_err()?))
}

#[pyfunction]
fn ocsp_assemble_response(
    tbs: Bytes<'_>,
    signature: Bytes<'_>,
    certs: Arg<Vec<PyRef<'_, X509Certificate>>>,
) -> PyResult<PyOcspResponse> {
    let certs: Vec<x509::Certificate> = certs.iter().map(|c| c.inner.clone()).collect();
    Ok(PyOcspResponse { inner: OcspResponse::assemble(tbs.as_slice(), signature.as_slice(), &certs).py_err()? })
}

#[pyfunction]
fn ocsp_unsuccessful(status: Arg<u64>) -> PyResult<PyOcspResponse> {
    let st = ResponseStatus::from_code(status.0).py_err()?;
    Ok(PyOcspResponse { inner: OcspResponse::unsuccessful(st).py_err()? })
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyOcspRequest>()?;
    m.add_class::<PyOcspResponse>()?;
    for f in [
        wrap_pyfunction!(ocsp_cert_id, m)?,
        wrap_pyfunction!(ocsp_cert_id_by_serial, m)?,
        wrap_pyfunction!(ocsp_cert_id_matches, m)?,
        wrap_pyfunction!(ocsp_request_build, m)?,
        wrap_pyfunction!(ocsp_nonce_extension, m)?,
        wrap_pyfunction!(ocsp_responder_key_hash, m)?,
        wrap_pyfunction!(ocsp_response_data, m)?,
        wrap_pyfunction!(ocsp_assemble_response, m)?,
        wrap_pyfunction!(ocsp_unsuccessful, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
