//! The one table from core errors to Python exceptions.
//!
//! The classes are those of `python/shangmi/exceptions.py`, imported once
//! per process (`import_exception!` caches the type object), so Python code
//! sees one hierarchy whether an error was raised in Python or in Rust.

use pyo3::prelude::*;
use shangmi::Error;

pyo3::import_exception!(shangmi.exceptions, InvalidInputError);
pyo3::import_exception!(shangmi.exceptions, ShangmiTypeError);
pyo3::import_exception!(shangmi.exceptions, InvalidKey);
pyo3::import_exception!(shangmi.exceptions, InvalidTag);
pyo3::import_exception!(shangmi.exceptions, InvalidSignature);
pyo3::import_exception!(shangmi.exceptions, DecryptionError);
pyo3::import_exception!(shangmi.exceptions, AlreadyFinalized);
pyo3::import_exception!(shangmi.exceptions, InvalidCertificate);
pyo3::import_exception!(shangmi.exceptions, TLSError);
pyo3::import_exception!(shangmi.exceptions, CertificateVerifyError);
pyo3::import_exception!(shangmi.exceptions, UnsupportedAlgorithm);

/// Python spellings of the options the core's messages name in words: the
/// core speaks no host language, and this table is the one place where a
/// message gains Python advice (each phrase is replaced where it occurs).
const PYTHON_ADVICE: &[(&str, &str)] = &[
    ("when padding is disabled", "when padding=False"),
    ("when padding is enabled", "when padding=True"),
    ("use the DER mode", "pass mode='der'"),
    ("prepend the 04 byte and use the C1C2C3 mode", "pass b'\\x04' + ciphertext with mode='c1c2c3'"),
    ("use the C1C3C2 or C1C2C3 mode", "pass mode='c1c3c2' or mode='c1c2c3'"),
    ("uid \"1234567812345678\"", "uid=b'1234567812345678'"),
    ("the empty uid", "uid=b''"),
    ("use PKCS#8 with a password instead", "use format='pkcs8' with a password"),
    ("needs cA true", "needs ca=True"),
    ("give a uid", "pass uid="),
    ("raise the iteration cap to ", "pass max_iterations="),
    ("needs a signing identity and an encryption identity", "needs load_cert_chain() and load_enc_cert_chain()"),
    ("pass a staleness allowance", "pass crl_max_staleness="),
];

/// The core's message with the Python advice of [`PYTHON_ADVICE`].
fn python_text(err: &Error) -> String {
    let mut text = err.to_string();
    for (neutral, python) in PYTHON_ADVICE {
        if text.contains(neutral) {
            text = text.replace(neutral, python);
        }
    }
    text
}

/// The Python exception for a core error (the core's message, with the
/// Python spelling of any option it names).
pub(crate) fn to_py(err: Error) -> PyErr {
    let text = python_text(&err);
    match err {
        Error::InvalidInput(_) => InvalidInputError::new_err(text),
        Error::InvalidKey(_) => InvalidKey::new_err(text),
        Error::InvalidTag => InvalidTag::new_err(text),
        Error::InvalidSignature | Error::InvalidSignatureHint(_) => InvalidSignature::new_err(text),
        Error::DecryptionFailed => DecryptionError::new_err(text),
        Error::AlreadyFinalized => AlreadyFinalized::new_err(text),
        Error::InvalidCertificate(_) => InvalidCertificate::new_err(text),
        Error::Tls(_) => TLSError::new_err(text),
        Error::CertificateVerify(_) => CertificateVerifyError::new_err(text),
        Error::UnsupportedAlgorithm(_) => UnsupportedAlgorithm::new_err(text),
    }
}

/// Call sites write `core_call().py_err()?`.
pub(crate) trait IntoPyResult<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for shangmi::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// `InvalidInputError` for an argument shape the binding converts (a
/// negative count, a non-contiguous buffer); the core never sees those.
pub(crate) fn invalid(msg: impl Into<String>) -> PyErr {
    InvalidInputError::new_err(msg.into())
}

/// `ShangmiTypeError` (both `ShangmiError` and `TypeError`) for an argument
/// of the wrong type.
pub(crate) fn wrong_type(msg: impl Into<String>) -> PyErr {
    ShangmiTypeError::new_err(msg.into())
}

/// The one conversion of PyO3's own extraction errors: a plain `TypeError`
/// becomes `ShangmiTypeError`, an `OverflowError` or plain `ValueError`
/// (an int out of range, a bad str) `InvalidInputError`, same message.
/// Anything already a `ShangmiError` (or raised by user code, such as an
/// iterator's own exception) passes unchanged.
pub(crate) fn retype(py: Python<'_>, err: PyErr) -> PyErr {
    use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
    use pyo3::PyTypeInfo;
    let ty = err.get_type(py);
    let msg = || err.value(py).to_string();
    if ty.is(PyTypeError::type_object(py)) {
        wrong_type(msg())
    } else if ty.is(PyOverflowError::type_object(py)) || ty.is(PyValueError::type_object(py)) {
        invalid(msg())
    } else {
        err
    }
}
