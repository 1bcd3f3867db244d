//! Conversion helpers shared by the key bindings (SM2, SM9): optional byte
//! arguments and secret results copied into Python and wiped here.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroize;

use crate::buffer::Bytes;

/// The slice of an optional bytes-like argument (a password, a uid).
pub(crate) fn opt_slice<'a>(b: &'a Option<Bytes<'_>>) -> Option<&'a [u8]> {
    b.as_ref().map(|b| b.as_slice())
}

/// A new bytes object holding `secret`, which is wiped afterwards.
pub(crate) fn bytes_then_wipe<'py>(py: Python<'py>, mut secret: Vec<u8>) -> Bound<'py, PyBytes> {
    let b = PyBytes::new(py, &secret);
    secret.zeroize();
    b
}
