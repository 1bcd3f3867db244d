//! SM4 and its modes. Argument conversion, GIL release and error mapping
//! only: every byte of cryptography happens in `shangmi::sm4`.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use shangmi::sm4::{self, Ccm, Gcm, Sm4, Xts, XtsStandard};

use crate::buffer::{batch, field, item_fields, Arg, Bytes, Name, Uint};
use crate::errors::IntoPyResult;
use crate::gil::{lock, maybe_detach};

fn iv16(iv: &[u8], what: &str) -> PyResult<[u8; 16]> {
    sm4::block16(iv, what).py_err()
}

/// The `(iv, data)` messages of a CBC batch; a bad one is named by index.
fn pairs<'py>(items: &Bound<'py, PyAny>) -> PyResult<Vec<(Bytes<'py>, Bytes<'py>)>> {
    batch(items, "(iv, data) tuples")?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let f = item_fields(item, "message", i, &[2], "(iv, data)")?;
            Ok((field(&f[0], "message", i)?, field(&f[1], "message", i)?))
        })
        .collect()
}

/// Copies `data` into a new bytes object and transforms it in place.
fn transform<'py>(
    py: Python<'py>,
    data: &[u8],
    f: impl FnOnce(&mut [u8]) -> shangmi::Result<()> + Send,
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, data.len(), |out| {
        out.copy_from_slice(data);
        maybe_detach(py, data.len(), || f(out)).py_err()
    })
}

fn vec_result<'py>(
    py: Python<'py>,
    len: usize,
    f: impl FnOnce() -> shangmi::Result<Vec<u8>> + Send,
) -> PyResult<Bound<'py, PyBytes>> {
    let v = maybe_detach(py, len, f).py_err()?;
    Ok(PyBytes::new(py, &v))
}

/// An expanded SM4 key; the block function and the unauthenticated modes.
#[pyclass(name = "Sm4Cipher", module = "shangmi._native", frozen)]
struct Sm4Cipher {
    c: Sm4,
}

#[pymethods]
impl Sm4Cipher {
    #[new]
    fn new(key: Bytes<'_>) -> PyResult<Self> {
        Ok(Sm4Cipher { c: Sm4::from_slice(key.as_slice()).py_err()? })
    }

    fn backend(&self) -> &'static str {
        self.c.backend().name()
    }

    fn encrypt_block<'py>(&self, py: Python<'py>, block: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let mut b = iv16(block.as_slice(), "block")?;
        self.c.encrypt_block(&mut b);
        Ok(PyBytes::new(py, &b))
    }

    fn decrypt_block<'py>(&self, py: Python<'py>, block: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let mut b = iv16(block.as_slice(), "block")?;
        self.c.decrypt_block(&mut b);
        Ok(PyBytes::new(py, &b))
    }

    fn ecb_encrypt<'py>(&self, py: Python<'py>, data: Bytes<'_>, padding: Arg<bool>) -> PyResult<Bound<'py, PyBytes>> {
        let d = data.as_slice();
        let n = sm4::encrypted_len(d.len(), padding.0).py_err()?;
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || sm4::ecb_encrypt_into(&self.c, d, padding.0, out)).py_err()
        })
    }

    fn ecb_decrypt<'py>(&self, py: Python<'py>, data: Bytes<'_>, padding: Arg<bool>) -> PyResult<Bound<'py, PyBytes>> {
        let d = data.as_slice();
        let n = sm4::decrypted_len(&self.c, None, d, padding.0).py_err()?;
        PyBytes::new_with(py, n, |out| maybe_detach(py, n, || sm4::ecb_decrypt_into(&self.c, d, out)).py_err())
    }

    fn cbc_encrypt<'py>(
        &self,
        py: Python<'py>,
        iv: Bytes<'_>,
        data: Bytes<'_>,
        padding: Arg<bool>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv.as_slice(), "IV")?;
        let d = data.as_slice();
        let n = sm4::encrypted_len(d.len(), padding.0).py_err()?;
        PyBytes::new_with(py, n, |out| {
            maybe_detach(py, n, || sm4::cbc_encrypt_into(&self.c, &iv, d, padding.0, out)).py_err()
        })
    }

    fn cbc_decrypt<'py>(
        &self,
        py: Python<'py>,
        iv: Bytes<'_>,
        data: Bytes<'_>,
        padding: Arg<bool>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv.as_slice(), "IV")?;
        let d = data.as_slice();
        let n = sm4::decrypted_len(&self.c, Some(&iv), d, padding.0).py_err()?;
        PyBytes::new_with(py, n, |out| maybe_detach(py, n, || sm4::cbc_decrypt_into(&self.c, &iv, d, out)).py_err())
    }

    fn cbc_encrypt_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        padding: Arg<bool>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let items = pairs(items)?;
        let slices: Vec<(&[u8], &[u8])> = items.iter().map(|(iv, d)| (iv.as_slice(), d.as_slice())).collect();
        let total = slices.iter().map(|s| s.1.len()).sum();
        let outs = maybe_detach(py, total, || sm4::cbc_encrypt_many(&self.c, &slices, padding.0)).py_err()?;
        Ok(outs.iter().map(|o| PyBytes::new(py, o)).collect())
    }

    fn cbc_decrypt_many<'py>(
        &self,
        py: Python<'py>,
        items: &Bound<'py, PyAny>,
        padding: Arg<bool>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let items = pairs(items)?;
        let slices: Vec<(&[u8], &[u8])> = items.iter().map(|(iv, d)| (iv.as_slice(), d.as_slice())).collect();
        let total = slices.iter().map(|s| s.1.len()).sum();
        let outs = maybe_detach(py, total, || sm4::cbc_decrypt_many(&self.c, &slices, padding.0)).py_err()?;
        // Plaintext is wiped once Python has its copy.
        Ok(outs
            .into_iter()
            .map(|mut o| {
                let b = PyBytes::new(py, &o);
                o.fill(0);
                std::hint::black_box(&o);
                b
            })
            .collect())
    }

    fn ctr<'py>(&self, py: Python<'py>, iv: Bytes<'_>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv.as_slice(), "IV")?;
        let d = data.as_slice();
        let n = d.len();
        PyBytes::new_with(py, n, |out| maybe_detach(py, n, || sm4::ctr_apply_into(&self.c, &iv, d, out)).py_err())
    }

    fn cfb_encrypt<'py>(&self, py: Python<'py>, iv: Bytes<'_>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv.as_slice(), "IV")?;
        transform(py, data.as_slice(), |b| {
            sm4::cfb_encrypt_in_place(&self.c, &iv, b);
            Ok(())
        })
    }

    fn cfb_decrypt<'py>(&self, py: Python<'py>, iv: Bytes<'_>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv.as_slice(), "IV")?;
        transform(py, data.as_slice(), |b| {
            sm4::cfb_decrypt_in_place(&self.c, &iv, b);
            Ok(())
        })
    }

    fn ofb<'py>(&self, py: Python<'py>, iv: Bytes<'_>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let iv = iv16(iv.as_slice(), "IV")?;
        transform(py, data.as_slice(), |b| {
            sm4::ofb_apply_in_place(&self.c, &iv, b);
            Ok(())
        })
    }

    fn cbc_encryptor(&self, iv: Bytes<'_>, padding: Arg<bool>) -> PyResult<Sm4Stream> {
        Sm4Stream::new(sm4::Stream::cbc_encryptor(&self.c, iv.as_slice(), padding.0))
    }

    fn cbc_decryptor(&self, iv: Bytes<'_>, padding: Arg<bool>) -> PyResult<Sm4Stream> {
        Sm4Stream::new(sm4::Stream::cbc_decryptor(&self.c, iv.as_slice(), padding.0))
    }

    fn ctr_stream(&self, iv: Bytes<'_>) -> PyResult<Sm4Stream> {
        Sm4Stream::new(sm4::Stream::ctr(&self.c, iv.as_slice()))
    }
}

/// A streaming context (CBC, CTR, GCM) over `shangmi::sm4::Stream`, which
/// owns the finalize-once state machine and the tag checks.
#[pyclass(name = "Sm4Stream", module = "shangmi._native", frozen)]
struct Sm4Stream {
    inner: Mutex<sm4::Stream>,
}

impl Sm4Stream {
    fn new(s: shangmi::Result<sm4::Stream>) -> PyResult<Self> {
        Ok(Sm4Stream { inner: Mutex::new(s.py_err()?) })
    }
}

#[pymethods]
impl Sm4Stream {
    fn update<'py>(&self, py: Python<'py>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let d = data.as_slice();
        let mut guard = lock(&self.inner);
        let s = &mut *guard;
        let v = maybe_detach(py, d.len(), || s.update(d)).py_err()?;
        Ok(PyBytes::new(py, &v))
    }

    /// Ends the stream: CBC returns the last block(s); GCM encryption returns
    /// the tag; GCM decryption checks the tag given at creation.
    fn finalize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let out = lock(&self.inner).finalize().py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    /// GCM decryption only: checks `tag` (constant time) and ends the stream.
    fn finalize_with_tag<'py>(&self, py: Python<'py>, tag: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        lock(&self.inner).finalize_with_tag(tag.as_slice()).py_err()?;
        Ok(PyBytes::new(py, b""))
    }
}

/// SM4-GCM with a fixed tag length.
#[pyclass(name = "Sm4Gcm", module = "shangmi._native", frozen)]
struct Sm4Gcm {
    g: Gcm,
}

#[pymethods]
impl Sm4Gcm {
    #[new]
    fn new(key: Bytes<'_>, tag_length: Uint<usize>) -> PyResult<Self> {
        let key = key.as_slice();
        // Report the key first: it is the argument users get wrong most.
        Sm4::from_slice(key).py_err()?;
        Ok(Sm4Gcm { g: Gcm::new(key, tag_length.0).py_err()? })
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes<'_>,
        data: Bytes<'_>,
        aad: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (n, d, a) = (nonce.as_slice(), data.as_slice(), aad.as_ref().map_or(&[][..], Bytes::as_slice));
        let tl = self.g.tag_len();
        PyBytes::new_with(py, d.len() + tl, |out| {
            let (body, tag_out) = out.split_at_mut(d.len());
            let tag = maybe_detach(py, d.len(), || self.g.encrypt_into_detached(n, a, d, body)).py_err()?;
            tag_out.copy_from_slice(&tag[..tl]);
            Ok(())
        })
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes<'_>,
        data: Bytes<'_>,
        aad: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (n, d, a) = (nonce.as_slice(), data.as_slice(), aad.as_ref().map_or(&[][..], Bytes::as_slice));
        let (ct, tag) = d.split_at(self.g.plaintext_len(n, d.len()).py_err()?);
        transform(py, ct, |b| self.g.decrypt_in_place_detached(n, a, b, tag))
    }

    fn encryptor(&self, nonce: Bytes<'_>, aad: Option<Bytes<'_>>) -> PyResult<Sm4Stream> {
        Sm4Stream::new(sm4::Stream::gcm_encryptor(
            &self.g,
            nonce.as_slice(),
            aad.as_ref().map_or(&[][..], Bytes::as_slice),
        ))
    }

    #[pyo3(signature = (nonce, tag, aad))]
    fn decryptor(&self, nonce: Bytes<'_>, tag: Option<Bytes<'_>>, aad: Option<Bytes<'_>>) -> PyResult<Sm4Stream> {
        let tag = tag.as_ref().map(Bytes::as_slice);
        Sm4Stream::new(sm4::Stream::gcm_decryptor(
            &self.g,
            nonce.as_slice(),
            tag,
            aad.as_ref().map_or(&[][..], Bytes::as_slice),
        ))
    }
}

/// SM4-CCM with a fixed tag length.
#[pyclass(name = "Sm4Ccm", module = "shangmi._native", frozen)]
struct Sm4Ccm {
    c: Ccm,
}

#[pymethods]
impl Sm4Ccm {
    #[new]
    fn new(key: Bytes<'_>, tag_length: Uint<usize>) -> PyResult<Self> {
        let key = key.as_slice();
        Sm4::from_slice(key).py_err()?;
        Ok(Sm4Ccm { c: Ccm::new(key, tag_length.0).py_err()? })
    }

    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes<'_>,
        data: Bytes<'_>,
        aad: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (n, d, a) = (nonce.as_slice(), data.as_slice(), aad.as_ref().map_or(&[][..], Bytes::as_slice));
        vec_result(py, d.len(), || self.c.encrypt(n, a, d))
    }

    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: Bytes<'_>,
        data: Bytes<'_>,
        aad: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (n, d, a) = (nonce.as_slice(), data.as_slice(), aad.as_ref().map_or(&[][..], Bytes::as_slice));
        vec_result(py, d.len(), || self.c.decrypt(n, a, d))
    }
}

/// SM4-XTS (32-byte key, GB/T 17964 or IEEE 1619 tweak rule).
#[pyclass(name = "Sm4Xts", module = "shangmi._native", frozen)]
struct Sm4Xts {
    x: Xts,
}

#[pymethods]
impl Sm4Xts {
    #[new]
    fn new(key: Bytes<'_>, standard: Name) -> PyResult<Self> {
        let std = XtsStandard::from_name(&standard.0).py_err()?;
        Ok(Sm4Xts { x: Xts::new(key.as_slice(), std).py_err()? })
    }

    fn encrypt<'py>(&self, py: Python<'py>, tweak: Bytes<'_>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let t = iv16(tweak.as_slice(), "tweak")?;
        transform(py, data.as_slice(), |b| self.x.encrypt_in_place(&t, b))
    }

    fn decrypt<'py>(&self, py: Python<'py>, tweak: Bytes<'_>, data: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let t = iv16(tweak.as_slice(), "tweak")?;
        transform(py, data.as_slice(), |b| self.x.decrypt_in_place(&t, b))
    }
}

/// Name of the SM4 backend in use ("aesni-avx512" or "portable").
#[pyfunction]
fn sm4_backend() -> &'static str {
    sm4::Backend::selected().name()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sm4Cipher>()?;
    m.add_class::<Sm4Stream>()?;
    m.add_class::<Sm4Gcm>()?;
    m.add_class::<Sm4Ccm>()?;
    m.add_class::<Sm4Xts>()?;
    m.add_function(wrap_pyfunction!(sm4_backend, m)?)?;
    Ok(())
}
