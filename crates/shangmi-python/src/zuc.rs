//! ZUC: ZUC-128/ZUC-256 keystream generators, 128-EEA3, 128-EIA3 and the
//! ZUC-256 MAC. Argument conversion, GIL release and error mapping only:
//! the core checks every value and schedules batches over its SIMD lanes.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::zuc;

use crate::buffer::{batch, disjoint_outputs, field, item_fields, Bytes, BytesMut, Uint};
use crate::errors::IntoPyResult;
use crate::gil::{lock, maybe_detach};

/// A keystream generator behind `shangmi.zuc.ZUC128` / `ZUC256`.
#[pyclass(name = "ZucKeystream", module = "shangmi._native", frozen)]
struct ZucKeystream {
    inner: Mutex<zuc::Keystream>,
}

#[pymethods]
impl ZucKeystream {
    #[staticmethod]
    fn zuc128(key: Bytes<'_>, iv: Bytes<'_>) -> PyResult<Self> {
        let ks = zuc::Keystream::zuc128(key.as_slice(), iv.as_slice()).py_err()?;
        Ok(ZucKeystream { inner: Mutex::new(ks) })
    }

    #[staticmethod]
    fn zuc256(key: Bytes<'_>, iv: Bytes<'_>) -> PyResult<Self> {
        let ks = zuc::Keystream::zuc256(key.as_slice(), iv.as_slice()).py_err()?;
        Ok(ZucKeystream { inner: Mutex::new(ks) })
    }

    /// The 128-EEA3 keystream of (key, COUNT, BEARER, DIRECTION).
    #[staticmethod]
    fn eea3(key: Bytes<'_>, count: Uint<u64>, bearer: Uint<u32>, direction: Uint<u32>) -> PyResult<Self> {
        let ks = zuc::Keystream::eea3(key.as_slice(), count.0, bearer.0, direction.0).py_err()?;
        Ok(ZucKeystream { inner: Mutex::new(ks) })
    }

    /// `data` XOR the next len(data) keystream bytes.
    fn xor<'py>(&self, py: Python<'py>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let data = data.as_slice();
        PyBytes::new_with(py, data.len(), |out| {
            maybe_detach(py, data.len(), || lock(&self.inner).xor(data, out)).py_err()
        })
    }

    /// The next `nbytes` keystream bytes.
    fn keystream<'py>(&self, py: Python<'py>, nbytes: Uint<u64>) -> PyResult<Bound<'py, PyBytes>> {
        let n = zuc::keystream_request(nbytes.0).py_err()?;
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || lock(&self.inner).fill(out));
            Ok(())
        })
    }

    /// The next `n` keystream words (32-bit, big-endian reading of the bytes).
    fn keystream_words(&self, py: Python<'_>, n: Uint<u64>) -> PyResult<Vec<u32>> {
        let n = zuc::keystream_words_request(n.0).py_err()?;
        let mut words = vec![0u32; n];
        maybe_detach(py, 4 * n, || lock(&self.inner).words(&mut words));
        Ok(words)
    }
}

#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, length_bits=None))]
fn zuc_eea3<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    count: Uint<u64>,
    bearer: Uint<u32>,
    direction: Uint<u32>,
    data: Bytes<'_>,
    length_bits: Option<Uint<u64>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, data, length_bits) = (key.as_slice(), data.as_slice(), length_bits.map(|l| l.0));
    let len = zuc::eea3_output_len(data.len(), length_bits).py_err()?;
    PyBytes::new_with(py, len, |out| {
        maybe_detach(py, len, || zuc::eea3_into(key, count.0, bearer.0, direction.0, data, length_bits, out)).py_err()
    })
}

#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, length_bits=None))]
fn zuc_eia3<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    count: Uint<u64>,
    bearer: Uint<u32>,
    direction: Uint<u32>,
    data: Bytes<'_>,
    length_bits: Option<Uint<u64>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, data, length_bits) = (key.as_slice(), data.as_slice(), length_bits.map(|l| l.0));
    let mac =
        maybe_detach(py, data.len(), || zuc::eia3(key, count.0, bearer.0, direction.0, data, length_bits)).py_err()?;
    Ok(PyBytes::new(py, &mac))
}

#[pyfunction]
#[pyo3(signature = (key, iv, data, tag_bits, length_bits=None))]
fn zuc256_mac<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    iv: Bytes<'_>,
    data: Bytes<'_>,
    tag_bits: Uint<u32>,
    length_bits: Option<Uint<u64>>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, iv, data, length_bits) = (key.as_slice(), iv.as_slice(), data.as_slice(), length_bits.map(|l| l.0));
    let tag = maybe_detach(py, data.len(), || zuc::zuc256_mac(key, iv, data, tag_bits.0, length_bits)).py_err()?;
    Ok(PyBytes::new(py, &tag))
}

/// One converted message of eea3_many / eia3_many.
struct Arg<'py> {
    key: Bytes<'py>,
    count: u64,
    bearer: u32,
    direction: u32,
    data: Bytes<'py>,
    length_bits: Option<u64>,
}

const SHAPE: &str = "(key, count, bearer, direction, data[, length_bits])";

/// Converts the batch; a malformed message names its index.
fn messages_in<'py>(messages: &Bound<'py, PyAny>) -> PyResult<Vec<Arg<'py>>> {
    let items = batch(messages, &format!("{SHAPE} tuples"))?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let f = item_fields(item, "message", i, &[5, 6], SHAPE)?;
        let length_bits = match f.get(5) {
            Some(l) if !l.is_none() => Some(field::<Uint<u64>>(l, "message", i)?.0),
            _ => None,
        };
        out.push(Arg {
            key: field(&f[0], "message", i)?,
            count: field::<Uint<u64>>(&f[1], "message", i)?.0,
            bearer: field::<Uint<u32>>(&f[2], "message", i)?.0,
            direction: field::<Uint<u32>>(&f[3], "message", i)?.0,
            data: field(&f[4], "message", i)?,
            length_bits,
        });
    }
    Ok(out)
}

fn messages<'a>(args: &'a [Arg<'_>]) -> (Vec<zuc::Message<'a>>, usize) {
    let msgs: Vec<zuc::Message<'a>> = args
        .iter()
        .map(|a| zuc::Message {
            key: a.key.as_slice(),
            count: a.count,
            bearer: a.bearer,
            direction: a.direction,
            data: a.data.as_slice(),
            length_bits: a.length_bits,
        })
        .collect();
    let total = msgs.iter().map(|m| m.data.len()).sum();
    (msgs, total)
}

/// New bytes objects of the given sizes and their buffers, to be filled
/// before they are handed to Python (conversion of the core's outputs:
/// fresh intermediate buffers would cost a copy and page faults on large
/// outputs).
fn bytes_out<'py>(py: Python<'py>, lens: &[usize]) -> PyResult<Vec<(Bound<'py, PyBytes>, &'py mut [u8])>> {
    lens.iter()
        .map(|&n| {
            let b = PyBytes::new_with(py, n, |_| Ok(()))?;
            // SAFETY: `b` was created just above with exactly `n` bytes and is
            // referenced only here until returned (not yet hashed or shared),
            // so writing its buffer before handing it to Python is what
            // CPython's own PyBytes_FromStringAndSize(NULL, n) callers do. A
            // zero-length object may be CPython's shared empty bytes, for which
            // the slice is empty. The callers drop the slices before returning
            // the objects.
            let p = unsafe { pyo3::ffi::PyBytes_AsString(b.as_ptr()) } as *mut u8;
            let p = std::ptr::NonNull::new(p).ok_or_else(|| PyErr::fetch(py))?;
            // SAFETY: see above; `p` points to `n` writable bytes that live as
            // long as `b`.
            let buf = unsafe { std::slice::from_raw_parts_mut(p.as_ptr(), n) };
            Ok((b, buf))
        })
        .collect()
}

/// Every ciphertext is written straight into its new bytes object, in one
/// core call that sizes the outputs and schedules the messages over its lanes.
#[pyfunction]
fn zuc_eea3_many<'py>(py: Python<'py>, messages_: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let args = messages_in(messages_)?;
    let (msgs, total) = messages(&args);
    let lens = zuc::eea3_many_output_lens(&msgs).py_err()?;
    let (outs, mut bufs): (Vec<_>, Vec<_>) = bytes_out(py, &lens)?.into_iter().unzip();
    maybe_detach(py, total, || zuc::eea3_many_into(&msgs, &mut bufs)).py_err()?;
    drop(bufs);
    Ok(outs)
}

/// The batch of output buffers of eea3_many_into; a wrong item names its index.
fn outputs_in(outputs: &Bound<'_, PyAny>) -> PyResult<Vec<BytesMut>> {
    batch(outputs, "writable buffers")?.iter().enumerate().map(|(i, o)| field(o, "output", i)).collect()
}

/// eea3_many writing into the caller's buffers (reused across calls, so no
/// allocation and no page faults); the core checks the count and lengths.
#[pyfunction]
fn zuc_eea3_many_into(py: Python<'_>, messages_: &Bound<'_, PyAny>, outputs: &Bound<'_, PyAny>) -> PyResult<()> {
    let args = messages_in(messages_)?;
    let (msgs, total) = messages(&args);
    let mut outs = outputs_in(outputs)?;
    let inputs: Vec<&[u8]> = args.iter().flat_map(|a| [a.key.as_slice(), a.data.as_slice()]).collect();
    let mut bufs = disjoint_outputs(&mut outs, &inputs)?;
    maybe_detach(py, total, || zuc::eea3_many_into(&msgs, &mut bufs)).py_err()
}

#[pyfunction]
fn zuc_eia3_many<'py>(py: Python<'py>, messages_: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let args = messages_in(messages_)?;
    let (msgs, total) = messages(&args);
    let tags = maybe_detach(py, total, || zuc::eia3_many(&msgs)).py_err()?;
    Ok(tags.iter().map(|t| PyBytes::new(py, t)).collect())
}

/// The one-stream kernel in use, e.g. "gfni-avx512-128" or "portable-32" (see SHANGMI_CPU_DISABLE).
#[pyfunction]
fn zuc_backend() -> &'static str {
    zuc::backend_name()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ZucKeystream>()?;
    m.add_function(wrap_pyfunction!(zuc_eea3, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eia3, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eea3_many, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eea3_many_into, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eia3_many, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_mac, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_backend, m)?)?;
    m.add("ZUC_KEY_SIZE_128", zuc::KEY_SIZE_128)?;
    m.add("ZUC_KEY_SIZE_256", zuc::KEY_SIZE_256)?;
    Ok(())
}
