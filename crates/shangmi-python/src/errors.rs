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

/// The Python exception for a core error (its message is the core's).
pub(crate) fn to_py(err: Error) -> PyErr {
    let text = err.to_string();
    match err {
        Error::InvalidInput(_) => InvalidInputError::new_err(text),
        Error::InvalidKey(_) => InvalidKey::new_err(text),
        Error::InvalidTag => InvalidTag::new_err(text),
        Error::InvalidSignature | Error::InvalidSignatureHint(_) => InvalidSignature::new_err(text),
        Error::DecryptionFailed => DecryptionError::new_err(text),
        Error::AlreadyFinalized => AlreadyFinalized::new_err(text),
        Error::InvalidCertificate(_) => InvalidCertificate::new_err(text),
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
