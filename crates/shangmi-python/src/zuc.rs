//! ZUC: ZUC-128/ZUC-256 keystream generators, 128-EEA3, 128-EIA3 and the
//! ZUC-256 MAC. Argument conversion and GIL release only.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::zuc;

use crate::buffer::Bytes;
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

    /// The next `n` keystream bytes.
    fn keystream<'py>(&self, py: Python<'py>, n: usize) -> PyResult<Bound<'py, PyBytes>> {
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || lock(&self.inner).fill(out));
            Ok(())
        })
    }

    /// The next `n` keystream words (32-bit, big-endian reading of the bytes).
    fn keystream_words(&self, py: Python<'_>, n: usize) -> Vec<u32> {
        let mut words = vec![0u32; n];
        maybe_detach(py, 4 * n, || lock(&self.inner).words(&mut words));
        words
    }
}

#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, length_bits=None))]
fn zuc_eea3<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    count: u64,
    bearer: u32,
    direction: u32,
    data: Bytes<'_>,
    length_bits: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, data) = (key.as_slice(), data.as_slice());
    let len = zuc::eea3_output_len(data.len(), length_bits).py_err()?;
    PyBytes::new_with(py, len, |out| {
        maybe_detach(py, len, || {
            zuc::eea3_into(zuc::Backend::auto(), key, count, bearer, direction, data, length_bits, out)
        })
        .py_err()
    })
}

#[pyfunction]
#[pyo3(signature = (key, count, bearer, direction, data, length_bits=None))]
fn zuc_eia3<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    count: u64,
    bearer: u32,
    direction: u32,
    data: Bytes<'_>,
    length_bits: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, data) = (key.as_slice(), data.as_slice());
    let mac = maybe_detach(py, data.len(), || zuc::eia3(key, count, bearer, direction, data, length_bits)).py_err()?;
    Ok(PyBytes::new(py, &mac))
}

#[pyfunction]
#[pyo3(signature = (key, iv, data, tag_bits=32, length_bits=None))]
fn zuc256_mac<'py>(
    py: Python<'py>,
    key: Bytes<'_>,
    iv: Bytes<'_>,
    data: Bytes<'_>,
    tag_bits: u32,
    length_bits: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, iv, data) = (key.as_slice(), iv.as_slice(), data.as_slice());
    let tag = maybe_detach(py, data.len(), || zuc::zuc256_mac(key, iv, data, tag_bits, length_bits)).py_err()?;
    Ok(PyBytes::new(py, &tag))
}

/// One message of eea3_many / eia3_many: (key, count, bearer, direction, data, length_bits).
type ManyArg<'py> = (Bytes<'py>, u64, u32, u32, Bytes<'py>, Option<u64>);

fn messages<'a>(args: &'a [ManyArg<'_>]) -> (Vec<zuc::Message<'a>>, usize) {
    let msgs: Vec<zuc::Message<'a>> = args
        .iter()
        .map(|(key, count, bearer, direction, data, length_bits)| zuc::Message {
            key: key.as_slice(),
            count: *count,
            bearer: *bearer,
            direction: *direction,
            data: data.as_slice(),
            length_bits: *length_bits,
        })
        .collect();
    let total = msgs.iter().map(|m| m.data.len()).sum();
    (msgs, total)
}

/// Messages whose outputs are written in one native call (the core's SIMD
/// lanes take eight at a time).
const EEA3_MANY_CHUNK: usize = 8;

#[pyfunction]
fn zuc_eea3_many<'py>(py: Python<'py>, messages_: Vec<ManyArg<'py>>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let (msgs, _) = messages(&messages_);
    let lens = zuc::eea3_many_output_lens(&msgs).py_err()?;
    // Longest first, so that each chunk's messages have similar lengths; the
    // ciphertexts are written straight into the new bytes objects (fresh
    // intermediate buffers cost page faults each call on large outputs).
    let mut order: Vec<usize> = (0..msgs.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(lens[i]));
    let mut out: Vec<Option<Bound<'py, PyBytes>>> = vec![None; msgs.len()];
    for chunk in order.chunks(EEA3_MANY_CHUNK) {
        let chunk_msgs: Vec<zuc::Message<'_>> = chunk.iter().map(|&i| msgs[i]).collect();
        let chunk_lens: Vec<usize> = chunk.iter().map(|&i| lens[i]).collect();
        let mut made = Vec::with_capacity(chunk.len());
        eea3_nested(py, &chunk_msgs, &chunk_lens, Vec::new(), &mut made)?;
        // `made` holds the innermost (last) message's bytes first
        for (&i, b) in chunk.iter().zip(made.into_iter().rev()) {
            out[i] = Some(b);
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// Creates the bytes objects of `msgs` one inside the other's initialiser,
/// so that all their buffers are writable at once, then encrypts into them.
fn eea3_nested<'py>(
    py: Python<'py>,
    msgs: &[zuc::Message<'_>],
    lens: &[usize],
    bufs: Vec<&mut [u8]>,
    made: &mut Vec<Bound<'py, PyBytes>>,
) -> PyResult<()> {
    let k = bufs.len();
    if k == msgs.len() {
        let mut bufs = bufs;
        let total = lens.iter().sum();
        return maybe_detach(py, total, || zuc::eea3_many_into(zuc::Backend::auto(), msgs, &mut bufs)).py_err();
    }
    let b = PyBytes::new_with(py, lens[k], |buf| {
        let mut bufs = bufs;
        bufs.push(buf);
        eea3_nested(py, msgs, lens, bufs, made)
    })?;
    made.push(b);
    Ok(())
}

#[pyfunction]
fn zuc_eia3_many<'py>(py: Python<'py>, messages_: Vec<ManyArg<'py>>) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let (msgs, total) = messages(&messages_);
    let tags = maybe_detach(py, total, || zuc::eia3_many(&msgs)).py_err()?;
    Ok(tags.iter().map(|t| PyBytes::new(py, t)).collect())
}

/// The backend in use: "avx512", "simd" or "portable" (see SHANGMI_CPU_DISABLE).
#[pyfunction]
fn zuc_backend() -> &'static str {
    zuc::Backend::auto().name()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ZucKeystream>()?;
    m.add_function(wrap_pyfunction!(zuc_eea3, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eia3, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eea3_many, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_eia3_many, m)?)?;
    m.add_function(wrap_pyfunction!(zuc256_mac, m)?)?;
    m.add_function(wrap_pyfunction!(zuc_backend, m)?)?;
    Ok(())
}
