//! Argument conversion with shangmi's own errors: read-only views of any
//! object with the buffer protocol (bytes, bytearray, memoryview, array,
//! numpy) without copying, unsigned integers and names. A wrong type raises
//! `ShangmiTypeError` (not PyO3's plain `TypeError`), an int outside the
//! native type's range `InvalidInputError` (not `OverflowError`); range
//! rules of the algorithms themselves are the core's.

use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyInt, PyString};

use crate::errors::{invalid, retype, wrong_type};

/// The name of `obj`'s type, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

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
        if obj.is_instance_of::<PyString>() {
            return Err(wrong_type(
                "expected a bytes-like object (bytes, bytearray, memoryview), got str; encode it first",
            ));
        }
        let buf = PyBuffer::<u8>::get(&obj).map_err(|_| {
            wrong_type(format!("expected a bytes-like object (bytes, bytearray, memoryview), got {}", type_name(&obj)))
        })?;
        if !buf.is_c_contiguous() {
            return Err(invalid("buffer must be C-contiguous"));
        }
        let (ptr, len) = (buf.buf_ptr() as *const u8, buf.len_bytes());
        Ok(Bytes { _owner: Owner::Buffer(buf), ptr, len })
    }
}

/// A writable, contiguous byte view (bytearray, a writable memoryview,
/// array, numpy) that the core can fill with the GIL released. Read-only
/// exporters (bytes, a read-only memoryview) are refused. Holding the export
/// keeps the memory alive and stops a bytearray from being resized.
pub(crate) struct BytesMut {
    _owner: PyBuffer<u8>,
    ptr: *mut u8,
    len: usize,
}

// SAFETY: as for `Bytes`: the export keeps the memory alive; a concurrent
// Python writer is a data race of the same kind as with any C extension that
// releases the GIL, never a use-after-free.
unsafe impl Send for BytesMut {}
unsafe impl Sync for BytesMut {}

impl<'a, 'py> FromPyObject<'a, 'py> for BytesMut {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let expected = "expected a writable bytes-like object (bytearray, memoryview of one)";
        let buf = PyBuffer::<u8>::get(&obj).map_err(|_| wrong_type(format!("{expected}, got {}", type_name(&obj))))?;
        if buf.readonly() {
            return Err(wrong_type(format!("{expected}, got read-only {}", type_name(&obj))));
        }
        if !buf.is_c_contiguous() {
            return Err(invalid("buffer must be C-contiguous"));
        }
        let (ptr, len) = (buf.buf_ptr() as *mut u8, buf.len_bytes());
        Ok(BytesMut { _owner: buf, ptr, len })
    }
}

/// The outputs as mutable slices, once it is checked that none overlaps
/// another output or any of `inputs` (two `&mut` views of one byte, or a
/// `&` and a `&mut`, would be undefined behaviour; the core's contract has
/// distinct buffers). Overlap is refused with an error naming the output.
pub(crate) fn disjoint_outputs<'a>(outs: &'a mut [BytesMut], inputs: &[&[u8]]) -> PyResult<Vec<&'a mut [u8]>> {
    // (start, end, output index or None for an input), empty views skipped.
    let mut spans: Vec<(usize, usize, Option<usize>)> = outs
        .iter()
        .enumerate()
        .filter(|(_, o)| o.len > 0)
        .map(|(i, o)| (o.ptr as usize, o.ptr as usize + o.len, Some(i)))
        .collect();
    spans.extend(
        inputs.iter().filter(|s| !s.is_empty()).map(|s| (s.as_ptr() as usize, s.as_ptr() as usize + s.len(), None)),
    );
    spans.sort_unstable();
    // Sweep in address order: an output may not start before the end of any
    // earlier span, an input not before the end of any earlier output.
    let (mut any_end, mut out_end) = (0usize, 0usize);
    for &(start, end, out) in &spans {
        let clash = match out {
            Some(_) => start < any_end,
            None => start < out_end,
        };
        if clash {
            return Err(invalid("output buffers must not overlap each other or the inputs"));
        }
        any_end = any_end.max(end);
        if out.is_some() {
            out_end = out_end.max(end);
        }
    }
    Ok(outs
        .iter_mut()
        .map(|o| {
            if o.len == 0 {
                return &mut [][..];
            }
            // SAFETY: ptr/len describe a live, writable, contiguous buffer held
            // by the export in `o`, and the sweep above proved it disjoint
            // from every other slice handed out or read in this call.
            unsafe { std::slice::from_raw_parts_mut(o.ptr, o.len) }
        })
        .collect())
}

/// An unsigned integer argument of native type `T` (`u32`, `u64`, `usize`).
/// `bool` is refused: `True` as a count or length is always a mistake.
pub(crate) struct Uint<T>(pub(crate) T);

impl<'a, 'py, T> FromPyObject<'a, 'py> for Uint<T>
where
    T: TryFrom<u128> + Bounded,
{
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
            return Err(wrong_type(format!("expected an int, got {}", type_name(&obj))));
        }
        let out_of_range = || invalid(format!("expected an int in [0, {}], got {}", T::MAX_TEXT, &*obj));
        let v: u128 = obj.extract().map_err(|_| out_of_range())?;
        T::try_from(v).map(Uint).map_err(|_| out_of_range())
    }
}

/// The largest value of an integer type, for messages.
pub(crate) trait Bounded {
    const MAX_TEXT: &'static str;
}

impl Bounded for u32 {
    const MAX_TEXT: &'static str = "2^32 - 1";
}

impl Bounded for u64 {
    const MAX_TEXT: &'static str = "2^64 - 1";
}

impl Bounded for usize {
    const MAX_TEXT: &'static str = if usize::BITS == 64 { "2^64 - 1" } else { "2^32 - 1" };
}

/// A `str` argument (an option name such as `"c1c3c2"`); the core decides
/// which names are valid.
pub(crate) struct Name(pub(crate) String);

impl<'a, 'py> FromPyObject<'a, 'py> for Name {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        match obj.cast::<PyString>() {
            // Text that is not valid UTF-8 (lone surrogates) matches no option.
            Ok(s) => Ok(Name(s.to_str().map(str::to_owned).unwrap_or_default())),
            Err(_) => Err(wrong_type(format!("expected a str, got {}", type_name(&obj)))),
        }
    }
}

/// The items of an iterable argument (a batch). A `str` or bytes-like object
/// is refused: iterating it would give characters or ints, never items.
pub(crate) fn batch<'py>(obj: &Bound<'py, PyAny>, expected: &str) -> PyResult<Vec<Bound<'py, PyAny>>> {
    if obj.is_instance_of::<PyString>() || obj.is_instance_of::<PyBytes>() || PyBuffer::<u8>::get(obj).is_ok() {
        return Err(wrong_type(format!("expected an iterable of {expected}, got {}", type_name(obj))));
    }
    let iter = obj
        .try_iter()
        .map_err(|_| wrong_type(format!("expected an iterable of {expected}, got {}", type_name(obj))))?;
    iter.collect()
}

/// The fields of batch item `index` (called `label` in messages: "message",
/// "item"): a tuple of one of the `sizes`.
pub(crate) fn item_fields<'py>(
    item: &Bound<'py, PyAny>,
    label: &str,
    index: usize,
    sizes: &[usize],
    shape: &str,
) -> PyResult<Vec<Bound<'py, PyAny>>> {
    match item.cast::<pyo3::types::PyTuple>() {
        Ok(t) if sizes.contains(&t.len()) => Ok(t.iter().collect()),
        _ => Err(wrong_type(format!("{label} {index}: expected a {shape} tuple, got {}", describe(item)))),
    }
}

fn describe(obj: &Bound<'_, PyAny>) -> String {
    match obj.cast::<pyo3::types::PyTuple>() {
        Ok(t) => format!("a tuple of {}", t.len()),
        Err(_) => type_name(obj),
    }
}

/// Field conversion for batch item `index`: the error keeps its class and
/// gains a "{label} {index}: " prefix.
pub(crate) fn field<'py, T>(obj: &Bound<'py, PyAny>, label: &str, index: usize) -> PyResult<T>
where
    T: for<'a> FromPyObject<'a, 'py, Error = PyErr>,
{
    obj.extract::<T>().map_err(|e| at_item(obj.py(), e, label, index))
}

/// `err` with "{label} {index}: " before its message, same exception class.
pub(crate) fn at_item(py: Python<'_>, err: PyErr, label: &str, index: usize) -> PyErr {
    let msg = format!("{label} {index}: {}", err.value(py));
    PyErr::from_type(err.get_type(py), msg)
}

/// Any other argument type `T` (`bool`, `i64`, a pyclass reference, a list
/// of those, a tuple), extracted by PyO3 and its errors given shangmi's
/// classes by [`retype`]: a binding parameter is `Arg<T>` or one of the
/// types above, never a bare PyO3 type, so no argument can raise a foreign
/// exception.
pub(crate) struct Arg<T>(pub(crate) T);

impl<T> std::ops::Deref for Arg<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<'a, 'py, T> FromPyObject<'a, 'py> for Arg<T>
where
    T: FromPyObject<'a, 'py>,
    T::Error: Into<PyErr>,
{
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        let py = obj.py();
        T::extract(obj).map(Arg).map_err(|e| retype(py, e.into()))
    }
}
