//! X.509 certificates, CSRs, CRLs and path validation: thin wrappers over
//! `shangmi::x509`. Names and extensions cross as plain tuples (DER stays in
//! the core); keys cross as encoded points; signing is two-step (digest out,
//! DER signature in) so any Python object with `sign_digest` can sign.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use shangmi::sm2::PublicKey;
use shangmi::x509::{
    self, Certificate, CertificateRequest, Crl, ExtKind, ExtValue, Extension, GeneralName, Name, SignedObject,
};
use shangmi::Result;

use crate::buffer::{Arg, Bytes, Name as Text, Uint};
use crate::errors::{retype, IntoPyResult};

type ExtTuple = (String, bool, Vec<u8>);
type GnTuple = (String, Py<PyAny>);
type AkiIn<'py> = (Option<Vec<u8>>, Option<Bound<'py, PyAny>>, Option<Vec<u8>>);

fn oid(s: &str) -> Result<x509::ObjectIdentifier> {
    x509::parse_oid(s)
}

fn exts_in(list: Vec<ExtTuple>) -> Result<Vec<Extension>> {
    list.into_iter().map(|(o, c, v)| Ok(Extension::new(oid(&o)?, c, v))).collect()
}

fn exts_out(list: &[Extension]) -> Vec<ExtTuple> {
    list.iter().map(|e| (e.oid.to_string(), e.critical, e.value.clone())).collect()
}

fn point(b: &[u8]) -> Result<PublicKey> {
    PublicKey::from_bytes(b)
}

fn opt_uid<'a>(u: &'a Option<Bytes<'_>>) -> Option<&'a [u8]> {
    u.as_ref().map(|b| b.as_slice())
}

/// One `#[pymethods]` block for a signed X.509 object (certificate,
/// request, CRL): the methods all three share, written once over
/// [`SignedObject`] (parsing with the GIL released, the envelope accessors,
/// the extensions), followed by the type's own methods given in braces.
/// `scripts/binding_inventory.py` lists the shared methods under each type.
macro_rules! signed_object_pymethods {
    ($py_type:ident, $core:ty, { $($own:tt)* }) => {
        #[pymethods]
        impl $py_type {
            #[staticmethod]
            fn from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
                let d = data.as_slice();
                Ok($py_type { inner: py.detach(|| <$core as SignedObject>::from_der(d)).py_err()? })
            }

            #[staticmethod]
            fn from_pem(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
                let d = data.as_slice();
                Ok($py_type { inner: py.detach(|| <$core as SignedObject>::from_pem(d)).py_err()? })
            }

            fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, SignedObject::to_der(&self.inner))
            }

            fn to_pem(&self) -> String {
                self.inner.to_pem()
            }

            fn tbs_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, self.inner.tbs_der())
            }

            fn signature_algorithm(&self) -> String {
                self.inner.signature_algorithm().to_string()
            }

            fn signature<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, self.inner.signature())
            }

            fn extensions(&self) -> Vec<ExtTuple> {
                exts_out(self.inner.extensions())
            }

            $($own)*
        }
    };
}

#[pyclass(name = "X509Certificate", module = "shangmi._native", frozen)]
pub(crate) struct X509Certificate {
    pub(crate) inner: Certificate,
}

signed_object_pymethods!(X509Certificate, Certificate, {
    #[staticmethod]
    fn from_pem_bundle(py: Python<'_>, data: Bytes<'_>) -> PyResult<Vec<Self>> {
        let d = data.as_slice();
        let certs = py.detach(|| Certificate::from_pem_bundle(d)).py_err()?;
        Ok(certs.into_iter().map(|inner| X509Certificate { inner }).collect())
    }

    fn version(&self) -> u8 {
        self.inner.version()
    }

    fn serial<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.serial())
    }

    fn issuer_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.issuer().to_der())
    }

    fn subject_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.subject().to_der())
    }

    fn not_before(&self) -> i64 {
        self.inner.not_before()
    }

    fn not_after(&self) -> i64 {
        self.inner.not_after()
    }

    fn spki_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.spki_der())
    }

    fn public_key_point<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.inner.public_key().py_err()?.to_bytes(false)))
    }

    fn fingerprint<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.fingerprint())
    }

    #[pyo3(signature = (issuer, uid=None))]
    fn verify_directly_issued_by(
        &self,
        py: Python<'_>,
        issuer: Arg<Py<X509Certificate>>,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<()> {
        let u = opt_uid(&uid);
        py.detach(|| self.inner.verify_directly_issued_by(&issuer.get().inner, u)).py_err()
    }

    /// Checks the signature with an issuer key given as an encoded point.
    #[pyo3(signature = (key_point, uid=None))]
    fn verify_signature(&self, py: Python<'_>, key_point: Bytes<'_>, uid: Option<Bytes<'_>>) -> PyResult<()> {
        let (k, u) = (key_point.as_slice(), opt_uid(&uid));
        py.detach(|| point(k).and_then(|k| self.inner.verify_signature(&k, u))).py_err()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<X509Certificate>().map(|o| o.get().inner == self.inner).unwrap_or(false)
    }

    fn __hash__(&self) -> u64 {
        let f = self.inner.fingerprint();
        u64::from_le_bytes(f[..8].try_into().unwrap_or_default())
    }
});

#[pyclass(name = "X509Csr", module = "shangmi._native", frozen)]
pub(crate) struct X509Csr {
    inner: CertificateRequest,
}

signed_object_pymethods!(X509Csr, CertificateRequest, {
    fn subject_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.subject().to_der())
    }

    fn public_key_point<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &self.inner.public_key().py_err()?.to_bytes(false)))
    }

    #[pyo3(signature = (uid=None))]
    fn verify(&self, py: Python<'_>, uid: Option<Bytes<'_>>) -> PyResult<()> {
        let u = opt_uid(&uid);
        py.detach(|| self.inner.verify(u)).py_err()
    }
});

type RevokedTuple = (Vec<u8>, i64, Vec<ExtTuple>);

#[pyclass(name = "X509Crl", module = "shangmi._native", frozen)]
pub(crate) struct X509Crl {
    inner: Crl,
}

signed_object_pymethods!(X509Crl, Crl, {
    fn issuer_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.issuer().to_der())
    }

    fn this_update(&self) -> i64 {
        self.inner.this_update()
    }

    fn next_update(&self) -> Option<i64> {
        self.inner.next_update()
    }

    fn revoked(&self) -> Vec<RevokedTuple> {
        self.inner.revoked().iter().map(|r| (r.serial.clone(), r.revocation_date, exts_out(&r.extensions))).collect()
    }

    #[pyo3(signature = (key_point, uid=None))]
    fn verify_signature(&self, py: Python<'_>, key_point: Bytes<'_>, uid: Option<Bytes<'_>>) -> PyResult<()> {
        let (k, u) = (key_point.as_slice(), opt_uid(&uid));
        py.detach(|| point(k).and_then(|k| self.inner.verify_signature(&k, u))).py_err()
    }
});

// ---------------------------------------------------------------- names

type AttrOut = (String, u8, Option<String>, Vec<u8>);

#[pyfunction]
fn x509_name_parse(der: Bytes<'_>) -> PyResult<Vec<Vec<AttrOut>>> {
    let n = Name::from_der(der.as_slice()).py_err()?;
    Ok(n.rdns()
        .iter()
        .map(|rdn| rdn.iter().map(|a| (a.oid.to_string(), a.tag, a.text.clone(), a.value_der.clone())).collect())
        .collect())
}

#[pyfunction]
fn x509_name_encode<'py>(py: Python<'py>, rdns: Arg<Vec<Vec<(String, String, u8)>>>) -> PyResult<Bound<'py, PyBytes>> {
    let conv = rdns
        .0
        .into_iter()
        .map(|rdn| rdn.into_iter().map(|(o, t, tag)| Ok((oid(&o)?, t, tag))).collect::<Result<Vec<_>>>())
        .collect::<Result<Vec<_>>>()
        .py_err()?;
    let n = Name::from_rdns(&conv).py_err()?;
    Ok(PyBytes::new(py, n.to_der()))
}

#[pyfunction]
fn x509_name_rfc4514(der: Bytes<'_>) -> PyResult<String> {
    Ok(Name::from_der(der.as_slice()).py_err()?.rfc4514())
}

#[pyfunction]
fn x509_name_matches(a: Bytes<'_>, b: Bytes<'_>) -> PyResult<bool> {
    let (a, b) = (Name::from_der(a.as_slice()).py_err()?, Name::from_der(b.as_slice()).py_err()?);
    Ok(a.matches(&b))
}

// ---------------------------------------------------------------- extensions

fn gn_out(py: Python<'_>, g: &GeneralName) -> PyResult<GnTuple> {
    Ok(match g {
        GeneralName::Email(s) => ("email".into(), s.clone().into_pyobject(py)?.into_any().unbind()),
        GeneralName::Dns(s) => ("dns".into(), s.clone().into_pyobject(py)?.into_any().unbind()),
        GeneralName::Uri(s) => ("uri".into(), s.clone().into_pyobject(py)?.into_any().unbind()),
        GeneralName::Ip(b) => ("ip".into(), PyBytes::new(py, b).into_any().unbind()),
        GeneralName::Directory(n) => ("dirname".into(), PyBytes::new(py, n.to_der()).into_any().unbind()),
        GeneralName::RegisteredId(o) => ("rid".into(), o.to_string().into_pyobject(py)?.into_any().unbind()),
        GeneralName::Other(raw) => ("other".into(), PyBytes::new(py, raw).into_any().unbind()),
    })
}

fn gn_in(kind: &str, value: &Bound<'_, PyAny>) -> PyResult<GeneralName> {
    Ok(match kind {
        "email" => GeneralName::Email(value.extract()?),
        "dns" => GeneralName::Dns(value.extract()?),
        "uri" => GeneralName::Uri(value.extract()?),
        "ip" => GeneralName::Ip(value.extract()?),
        "dirname" => GeneralName::Directory(Name::from_der(&value.extract::<Vec<u8>>()?).py_err()?),
        "rid" => GeneralName::RegisteredId(oid(&value.extract::<String>()?).py_err()?),
        "other" => GeneralName::Other(value.extract()?),
        _ => return Err(crate::errors::invalid(format!("unknown general name kind {kind:?}"))),
    })
}

fn gns_in(list: &Bound<'_, PyAny>) -> PyResult<Vec<GeneralName>> {
    let mut out = Vec::new();
    for item in list.try_iter()? {
        let item = item?;
        let (k, v): (String, Bound<'_, PyAny>) = item.extract()?;
        out.push(gn_in(&k, &v)?);
    }
    Ok(out)
}

fn gns_out<'py>(py: Python<'py>, list: &[GeneralName]) -> PyResult<Bound<'py, PyList>> {
    let items = list.iter().map(|g| gn_out(py, g)).collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// The Python shapes of an [`ExtValue`], which `_x509_ext.py` builds its
/// objects from: `(ca, path_length)`, an int mask, `[oid]`, bytes,
/// `(key_id, [general name] | None, serial)`, `[general name]`,
/// `[[general name]]`, bytes, an int.
fn ext_value_out<'py>(py: Python<'py>, v: &ExtValue) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        ExtValue::BasicConstraints(ca, path_length) => (*ca, *path_length).into_pyobject(py)?.into_any(),
        ExtValue::KeyUsage(mask) => mask.into_pyobject(py)?.into_any(),
        ExtValue::ExtendedKeyUsage(purposes) => {
            purposes.iter().map(|o| o.to_string()).collect::<Vec<_>>().into_pyobject(py)?.into_any()
        }
        ExtValue::SubjectKeyIdentifier(id) | ExtValue::CrlNumber(id) => PyBytes::new(py, id).into_any(),
        ExtValue::AuthorityKeyIdentifier((kid, issuer, serial)) => {
            let kid = kid.as_ref().map(|k| PyBytes::new(py, k));
            let issuer = issuer.as_ref().map(|l| gns_out(py, l)).transpose()?;
            let serial = serial.as_ref().map(|s| PyBytes::new(py, s));
            (kid, issuer, serial).into_pyobject(py)?.into_any()
        }
        ExtValue::AltName(names) => gns_out(py, names)?.into_any(),
        ExtValue::CrlDistributionPoints(points) => {
            PyList::new(py, points.iter().map(|p| gns_out(py, p)).collect::<PyResult<Vec<_>>>()?)?.into_any()
        }
        ExtValue::CrlReason(code) => code.into_pyobject(py)?.into_any(),
    })
}

/// The [`ExtValue`] of shape `kind` from the Python shapes of
/// [`ext_value_out`].
fn ext_value_in(kind: ExtKind, value: &Bound<'_, PyAny>) -> PyResult<ExtValue> {
    Ok(match kind {
        ExtKind::BasicConstraints => {
            let (ca, path_length): (bool, Option<u64>) = value.extract()?;
            ExtValue::BasicConstraints(ca, path_length)
        }
        ExtKind::KeyUsage => ExtValue::KeyUsage(value.extract()?),
        ExtKind::ExtendedKeyUsage => {
            let l: Vec<String> = value.extract()?;
            ExtValue::ExtendedKeyUsage(l.iter().map(|s| oid(s)).collect::<Result<Vec<_>>>().py_err()?)
        }
        ExtKind::SubjectKeyIdentifier => ExtValue::SubjectKeyIdentifier(value.extract()?),
        ExtKind::AuthorityKeyIdentifier => {
            let (kid, issuer, serial): AkiIn<'_> = value.extract()?;
            ExtValue::AuthorityKeyIdentifier((kid, issuer.map(|l| gns_in(&l)).transpose()?, serial))
        }
        ExtKind::AltName => ExtValue::AltName(gns_in(value)?),
        ExtKind::CrlDistributionPoints => {
            ExtValue::CrlDistributionPoints(value.try_iter()?.map(|p| gns_in(&p?)).collect::<PyResult<Vec<_>>>()?)
        }
        ExtKind::CrlNumber => ExtValue::CrlNumber(value.extract()?),
        ExtKind::CrlReason => ExtValue::CrlReason(value.extract()?),
    })
}

/// The typed content of a known extension, as plain Python values
/// ([`ext_value_out`]); `None` for extensions the core does not interpret.
#[pyfunction]
fn x509_ext_decode<'py>(py: Python<'py>, oid_str: Text, value: Bytes<'_>) -> PyResult<Option<Bound<'py, PyAny>>> {
    let o = oid(&oid_str.0).py_err()?;
    let typed = ExtValue::decode(&o, value.as_slice()).py_err()?;
    typed.map(|v| ext_value_out(py, &v)).transpose()
}

/// The extnValue DER of a known extension from plain Python values
/// (the same shapes [`x509_ext_decode`] returns).
#[pyfunction]
fn x509_ext_encode<'py>(py: Python<'py>, oid_str: Text, value: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
    let kind = ExtKind::for_encoding(&oid(&oid_str.0).py_err()?).py_err()?;
    // The shapes are extracted field by field: PyO3's errors get shangmi's classes.
    let der = ext_value_in(kind, value).map_err(|e| retype(py, e))?.encode().py_err()?;
    Ok(PyBytes::new(py, &der))
}

#[pyfunction]
fn x509_key_identifier<'py>(py: Python<'py>, key_point: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(PyBytes::new(py, &x509::key_identifier(&point(key_point.as_slice()).py_err()?)))
}

// ---------------------------------------------------------------- building

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn x509_tbs_certificate<'py>(
    py: Python<'py>,
    serial: Arg<Vec<u8>>,
    issuer: Bytes<'_>,
    subject: Bytes<'_>,
    not_before: Arg<i64>,
    not_after: Arg<i64>,
    key_point: Bytes<'_>,
    extensions: Arg<Vec<ExtTuple>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let tbs = x509::TbsCertificate {
        serial: serial.0,
        issuer: Name::from_der(issuer.as_slice()).py_err()?,
        subject: Name::from_der(subject.as_slice()).py_err()?,
        not_before: not_before.0,
        not_after: not_after.0,
        public_key: point(key_point.as_slice()).py_err()?,
        extensions: exts_in(extensions.0).py_err()?,
    };
    Ok(PyBytes::new(py, &tbs.to_der().py_err()?))
}

#[pyfunction]
fn x509_signing_digest<'py>(
    py: Python<'py>,
    key_point: Bytes<'_>,
    uid: Bytes<'_>,
    tbs: Bytes<'_>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (k, u, t) = (key_point.as_slice(), uid.as_slice(), tbs.as_slice());
    let e = py.detach(|| point(k).and_then(|k| x509::signing_digest(&k, u, t))).py_err()?;
    Ok(PyBytes::new(py, &e))
}

#[pyfunction]
fn x509_assemble_certificate(tbs: Bytes<'_>, signature: Bytes<'_>) -> PyResult<X509Certificate> {
    Ok(X509Certificate { inner: x509::assemble_certificate(tbs.as_slice(), signature.as_slice()).py_err()? })
}

#[pyfunction]
fn x509_request_info<'py>(
    py: Python<'py>,
    subject: Bytes<'_>,
    key_point: Bytes<'_>,
    extensions: Arg<Vec<ExtTuple>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let name = Name::from_der(subject.as_slice()).py_err()?;
    let key = point(key_point.as_slice()).py_err()?;
    let info = x509::csr::encode_request_info(&name, &key, &exts_in(extensions.0).py_err()?).py_err()?;
    Ok(PyBytes::new(py, &info))
}

#[pyfunction]
fn x509_assemble_request(info: Bytes<'_>, signature: Bytes<'_>) -> PyResult<X509Csr> {
    Ok(X509Csr { inner: x509::csr::assemble(info.as_slice(), signature.as_slice()).py_err()? })
}

#[pyfunction]
fn x509_tbs_crl<'py>(
    py: Python<'py>,
    issuer: Bytes<'_>,
    this_update: Arg<i64>,
    next_update: Arg<Option<i64>>,
    revoked: Arg<Vec<RevokedTuple>>,
    extensions: Arg<Vec<ExtTuple>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let issuer = Name::from_der(issuer.as_slice()).py_err()?;
    let (this_update, next_update) = (this_update.0, next_update.0);
    let revoked = revoked
        .0
        .into_iter()
        .map(|(serial, revocation_date, e)| {
            Ok(x509::RevokedCertificate { serial, revocation_date, extensions: exts_in(e)? })
        })
        .collect::<Result<Vec<_>>>()
        .py_err()?;
    let tbs = x509::crl::encode_tbs_crl(&issuer, this_update, next_update, &revoked, &exts_in(extensions.0).py_err()?)
        .py_err()?;
    Ok(PyBytes::new(py, &tbs))
}

#[pyfunction]
fn x509_assemble_crl(tbs: Bytes<'_>, signature: Bytes<'_>) -> PyResult<X509Crl> {
    Ok(X509Crl { inner: x509::crl::assemble(tbs.as_slice(), signature.as_slice()).py_err()? })
}

// ---------------------------------------------------------------- validation

#[pyfunction]
#[allow(clippy::too_many_arguments)]
#[pyo3(signature = (leaf, intermediates, roots, crls, at, uid=None, crl_max_staleness=Uint(0), ocsp_responses=None))]
fn x509_verify_chain(
    py: Python<'_>,
    leaf: Arg<Py<X509Certificate>>,
    intermediates: Arg<Vec<PyRef<'_, X509Certificate>>>,
    roots: Arg<Vec<PyRef<'_, X509Certificate>>>,
    crls: Arg<Vec<PyRef<'_, X509Crl>>>,
    at: Arg<i64>,
    uid: Option<Bytes<'_>>,
    crl_max_staleness: Uint<u64>,
    ocsp_responses: Option<Arg<Vec<PyRef<'_, crate::ocsp::PyOcspResponse>>>>,
) -> PyResult<Vec<X509Certificate>> {
    let inter: Vec<Certificate> = intermediates.iter().map(|c| c.inner.clone()).collect();
    let roots: Vec<Certificate> = roots.iter().map(|c| c.inner.clone()).collect();
    let crls: Vec<Crl> = crls.iter().map(|c| c.inner.clone()).collect();
    let ocsp: Vec<x509::ocsp::OcspResponse> =
        ocsp_responses.map(|l| l.iter().map(|r| r.inner.clone()).collect()).unwrap_or_default();
    let opts = x509::Options { at: at.0, uid: opt_uid(&uid), crl_max_staleness: crl_max_staleness.0 };
    let chain =
        py.detach(|| x509::verify_chain_with_ocsp(&leaf.get().inner, &inter, &roots, &crls, &ocsp, opts)).py_err()?;
    Ok(chain.into_iter().map(|inner| X509Certificate { inner }).collect())
}

#[pyfunction]
fn x509_format_time(secs: Arg<i64>) -> String {
    let secs = secs.0;
    x509::format_time(secs)
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<X509Certificate>()?;
    m.add_class::<X509Csr>()?;
    m.add_class::<X509Crl>()?;
    m.add("X509_MIN_TIME", x509::MIN_TIME)?;
    m.add("X509_MAX_TIME", x509::MAX_TIME)?;
    for f in [
        wrap_pyfunction!(x509_name_parse, m)?,
        wrap_pyfunction!(x509_name_encode, m)?,
        wrap_pyfunction!(x509_name_rfc4514, m)?,
        wrap_pyfunction!(x509_name_matches, m)?,
        wrap_pyfunction!(x509_ext_decode, m)?,
        wrap_pyfunction!(x509_ext_encode, m)?,
        wrap_pyfunction!(x509_key_identifier, m)?,
        wrap_pyfunction!(x509_tbs_certificate, m)?,
        wrap_pyfunction!(x509_signing_digest, m)?,
        wrap_pyfunction!(x509_assemble_certificate, m)?,
        wrap_pyfunction!(x509_request_info, m)?,
        wrap_pyfunction!(x509_assemble_request, m)?,
        wrap_pyfunction!(x509_tbs_crl, m)?,
        wrap_pyfunction!(x509_assemble_crl, m)?,
        wrap_pyfunction!(x509_verify_chain, m)?,
        wrap_pyfunction!(x509_format_time, m)?,
    ] {
        m.add_function(f)?;
    }
    Ok(())
}
