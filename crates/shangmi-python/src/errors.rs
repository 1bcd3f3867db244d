//! Maps core errors to the exception classes defined in
//! `python/shangmi/exceptions.py`, so that Python code sees one hierarchy
//! whether an error was raised in Python or in Rust.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use shangmi::Error;

fn exception(py: Python<'_>, class: &str, message: String) -> PyErr {
    let made =
        py.import("shangmi.exceptions").and_then(|m| m.getattr(class)).and_then(|cls| cls.call1((message.clone(),)));
    match made {
        Ok(instance) => PyErr::from_value(instance),
        // Only reachable if the package is broken; still never a panic.
        Err(_) => PyValueError::new_err(message),
    }
}

/// The Python exception for a core error.
pub(crate) fn to_py(err: Error) -> PyErr {
    Python::attach(|py| match err {
        Error::InvalidInput(m) => exception(py, "InvalidInputError", m),
        Error::InvalidKey(m) => exception(py, "InvalidKey", m),
        Error::InvalidTag => exception(py, "InvalidTag", err_text(&Error::InvalidTag)),
        Error::InvalidSignature => exception(py, "InvalidSignature", err_text(&Error::InvalidSignature)),
        Error::DecryptionFailed => exception(py, "DecryptionError", err_text(&Error::DecryptionFailed)),
        Error::InvalidCertificate(m) => exception(py, "InvalidCertificate", m),
    })
}

fn err_text(e: &Error) -> String {
    e.to_string()
}

/// Extension so call sites can write `core_call().map_err(to_py)?` as `.py()?`.
#[allow(dead_code)]
pub(crate) trait IntoPyResult<T> {
    fn py_err(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for shangmi::Result<T> {
    fn py_err(self) -> PyResult<T> {
        self.map_err(to_py)
    }
}

/// A `ValueError`-family exception raised by the binding itself (argument
/// shapes the core never sees, such as a wrong output-length type).
pub(crate) fn invalid(msg: impl Into<String>) -> PyErr {
    to_py(Error::InvalidInput(msg.into()))
}
