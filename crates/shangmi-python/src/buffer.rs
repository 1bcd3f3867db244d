//! Read-only views of any object with the buffer protocol (bytes, bytearray,
//! memoryview, array, numpy), without copying.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::errors::invalid;

/// A borrowed, contiguous byte view that can be read with the GIL released.
///
/// For `bytes` it points into the immutable object; for other exporters it
/// holds the buffer export, which keeps the memory alive and (for bytearray)
/// prevents resizing while we read it.
pub(crate) struct Bytes<'py> {
    _owner: Owner<'py>,
    ptr: *const u8,
    len: usize,
}

enum Owner<'py> {
    Bytes(#[allow(dead_code)] Bound<'py, PyBytes>),
    Buffer(#[allow(dead_code)] PyBuffer<u8>),
}

// SAFETY: the pointed-to memory is kept alive by `_owner` for the lifetime of
// this value; we only ever read it. Reading while another thread mutates a
// bytearray is a data race in the same sense as for any C extension that
// releases the GIL (hashlib does the same), never a use-after-free.
unsafe impl Send for Bytes<'_> {}
unsafe impl Sync for Bytes<'_> {}

impl Bytes<'_> {
    pub(crate) fn as_slice(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: ptr/len describe a live, contiguous, initialised buffer.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    #[allow(dead_code)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl<'a, 'py> FromPyObject<'a, 'py> for Bytes<'py> {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if let Ok(b) = obj.cast::<PyBytes>() {
            let b = b.to_owned();
            let s = b.as_bytes();
            let (ptr, len) = (s.as_ptr(), s.len());
            return Ok(Bytes { _owner: Owner::Bytes(b), ptr, len });
        }
        if obj.is_instance_of::<pyo3::types::PyString>() {
            return Err(pyo3::exceptions::PyTypeError::new_err(
                "expected a bytes-like object (bytes, bytearray, memoryview), got str; encode it first",
            ));
        }
        let buf = PyBuffer::<u8>::get(&obj).map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!(
                "expected a bytes-like object (bytes, bytearray, memoryview), got {}",
                obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
            ))
        })?;
        if !buf.is_c_contiguous() {
            return Err(invalid("buffer must be C-contiguous"));
        }
        let (ptr, len) = (buf.buf_ptr() as *const u8, buf.len_bytes());
        Ok(Bytes { _owner: Owner::Buffer(buf), ptr, len })
    }
}
