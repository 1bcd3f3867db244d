//! SM9 master keys, user keys, signatures, encryption, KEM and key exchange.
//!
//! Thin wrappers over `shangmi::sm9`: conversion, GIL release (every call
//! here does at least tens of µs of curve or pairing work) and error
//! mapping. Option names are validated in `python/shangmi/sm9.py` and
//! arrive as small integers.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use shangmi::sm9;
use shangmi::{Error, Result};
use std::sync::Mutex;

use crate::buffer::Bytes;
use crate::errors::IntoPyResult;
use crate::gil::lock;

fn options(layout: u8, cipher: u8, mac: u8) -> Result<sm9::Options> {
    let layout = match layout {
        0 => sm9::Layout::C1C3C2,
        1 => sm9::Layout::C1C2C3,
        2 => sm9::Layout::Der,
        _ => return Err(Error::invalid(format!("unknown SM9 ciphertext mode {layout}"))),
    };
    let cipher = match cipher {
        0 => sm9::Cipher::Xor,
        1 => sm9::Cipher::Sm4Ecb,
        2 => sm9::Cipher::Sm4Cbc,
        _ => return Err(Error::invalid(format!("unknown SM9 cipher {cipher}"))),
    };
    let mac = match mac {
        0 => sm9::Mac::Sm3,
        1 => sm9::Mac::HmacSm3,
        _ => return Err(Error::invalid(format!("unknown SM9 MAC {mac}"))),
    };
    Ok(sm9::Options { cipher, mac, layout })
}

fn hid(h: u32) -> Result<u8> {
    u8::try_from(h).map_err(|_| Error::invalid(format!("hid must be one byte (0..255), got {h}")))
}

/// A signature's bytes in GmSSL's DER or raw h ‖ 04‖x‖y; any defect is `InvalidSignature`.
fn parse_signature(data: &[u8], der: bool) -> Result<sm9::Signature> {
    let s = if der { sm9::Signature::from_der(data) } else { sm9::Signature::from_raw(data) };
    s.map_err(|_| Error::InvalidSignature)
}

#[pyclass(name = "Sm9SignMasterPublicKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9SignMasterPublicKey {
    inner: sm9::SignMasterPublicKey,
}

#[pymethods]
impl Sm9SignMasterPublicKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9SignMasterPublicKey { inner: py.detach(|| sm9::SignMasterPublicKey::from_bytes(d)).py_err()? })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    fn verify(
        &self,
        py: Python<'_>,
        signature: Bytes<'_>,
        message: Bytes<'_>,
        uid: Bytes<'_>,
        hid: u32,
        der: bool,
    ) -> PyResult<()> {
        let (sig, msg, uid) = (signature.as_slice(), message.as_slice(), uid.as_slice());
        let hid = self::hid(hid).py_err()?;
        py.detach(|| parse_signature(sig, der).and_then(|s| self.inner.verify(msg, uid, hid, &s))).py_err()
    }

    fn prepare(&self, py: Python<'_>) -> Self {
        Sm9SignMasterPublicKey { inner: py.detach(|| self.inner.prepare()) }
    }

    fn is_prepared(&self) -> bool {
        self.inner.is_prepared()
    }

    fn prepared_memory(&self) -> usize {
        self.inner.prepared_memory()
    }
}

#[pyclass(name = "Sm9SignMasterKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9SignMasterKey {
    inner: sm9::SignMasterKey,
}

#[pymethods]
impl Sm9SignMasterKey {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        Ok(Sm9SignMasterKey { inner: py.detach(sm9::SignMasterKey::generate).py_err()? })
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9SignMasterKey { inner: py.detach(|| sm9::SignMasterKey::from_bytes(d)).py_err()? })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    fn public_key(&self) -> Sm9SignMasterPublicKey {
        Sm9SignMasterPublicKey { inner: self.inner.public_key().clone() }
    }

    fn extract(&self, py: Python<'_>, uid: Bytes<'_>, hid: u32) -> PyResult<Sm9SignPrivateKey> {
        let uid = uid.as_slice();
        let hid = self::hid(hid).py_err()?;
        Ok(Sm9SignPrivateKey { inner: py.detach(|| self.inner.extract(uid, hid)).py_err()? })
    }
}

#[pyclass(name = "Sm9SignPrivateKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9SignPrivateKey {
    inner: sm9::SignPrivateKey,
}

#[pymethods]
impl Sm9SignPrivateKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>, master: &Sm9SignMasterPublicKey) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9SignPrivateKey { inner: py.detach(|| sm9::SignPrivateKey::from_bytes(d, &master.inner)).py_err()? })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    fn master_public_key(&self) -> Sm9SignMasterPublicKey {
        Sm9SignMasterPublicKey { inner: self.inner.master_public_key().clone() }
    }

    fn sign<'py>(&self, py: Python<'py>, message: Bytes<'_>, der: bool) -> PyResult<Bound<'py, PyBytes>> {
        let msg = message.as_slice();
        let sig = py.detach(|| self.inner.sign(msg)).py_err()?;
        Ok(if der { PyBytes::new(py, &sig.to_der()) } else { PyBytes::new(py, &sig.to_raw()) })
    }

    fn prepare(&self, py: Python<'_>) -> Self {
        Sm9SignPrivateKey { inner: py.detach(|| self.inner.prepare()) }
    }

    fn prepared_memory(&self) -> usize {
        self.inner.prepared_memory()
    }
}

#[pyclass(name = "Sm9EncMasterPublicKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9EncMasterPublicKey {
    inner: sm9::EncMasterPublicKey,
}

#[pymethods]
impl Sm9EncMasterPublicKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9EncMasterPublicKey { inner: py.detach(|| sm9::EncMasterPublicKey::from_bytes(d)).py_err()? })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes())
    }

    #[allow(clippy::too_many_arguments)]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        plaintext: Bytes<'_>,
        uid: Bytes<'_>,
        hid: u32,
        mode: u8,
        cipher: u8,
        mac: u8,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (pt, uid) = (plaintext.as_slice(), uid.as_slice());
        let hid = self::hid(hid).py_err()?;
        let opts = options(mode, cipher, mac).py_err()?;
        let out = py.detach(|| sm9::encrypt(&self.inner, pt, uid, hid, opts)).py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        uid: Bytes<'_>,
        hid: u32,
        length: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let uid = uid.as_slice();
        let hid = self::hid(hid).py_err()?;
        let (k, c) = py.detach(|| self.inner.encapsulate(uid, hid, length)).py_err()?;
        Ok((PyBytes::new(py, &k), PyBytes::new(py, &c)))
    }

    fn prepare(&self, py: Python<'_>) -> Self {
        Sm9EncMasterPublicKey { inner: py.detach(|| self.inner.prepare()) }
    }

    fn is_prepared(&self) -> bool {
        self.inner.is_prepared()
    }

    fn prepared_memory(&self) -> usize {
        self.inner.prepared_memory()
    }
}

#[pyclass(name = "Sm9EncMasterKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9EncMasterKey {
    inner: sm9::EncMasterKey,
}

#[pymethods]
impl Sm9EncMasterKey {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        Ok(Sm9EncMasterKey { inner: py.detach(sm9::EncMasterKey::generate).py_err()? })
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9EncMasterKey { inner: py.detach(|| sm9::EncMasterKey::from_bytes(d)).py_err()? })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    fn public_key(&self) -> Sm9EncMasterPublicKey {
        Sm9EncMasterPublicKey { inner: self.inner.public_key().clone() }
    }

    fn extract(&self, py: Python<'_>, uid: Bytes<'_>, hid: u32) -> PyResult<Sm9EncPrivateKey> {
        let uid = uid.as_slice();
        let hid = self::hid(hid).py_err()?;
        Ok(Sm9EncPrivateKey { inner: py.detach(|| self.inner.extract(uid, hid)).py_err()? })
    }
}

#[pyclass(name = "Sm9EncPrivateKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9EncPrivateKey {
    inner: sm9::EncPrivateKey,
}

fn opt<'a>(b: &'a Option<Bytes<'_>>) -> Option<&'a [u8]> {
    b.as_ref().map(|b| b.as_slice())
}

#[pymethods]
impl Sm9EncPrivateKey {
    #[staticmethod]
    #[pyo3(signature = (data, master, uid=None))]
    fn from_bytes(
        py: Python<'_>,
        data: Bytes<'_>,
        master: &Sm9EncMasterPublicKey,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Self> {
        let (d, uid) = (data.as_slice(), opt(&uid));
        Ok(Sm9EncPrivateKey { inner: py.detach(|| sm9::EncPrivateKey::from_bytes(d, &master.inner, uid)).py_err()? })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    fn master_public_key(&self) -> Sm9EncMasterPublicKey {
        Sm9EncMasterPublicKey { inner: self.inner.master_public_key().clone() }
    }

    fn uid<'py>(&self, py: Python<'py>) -> Option<Bound<'py, PyBytes>> {
        self.inner.uid().map(|u| PyBytes::new(py, u))
    }

    #[pyo3(signature = (ciphertext, uid, mode, cipher, mac))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        ciphertext: Bytes<'_>,
        uid: Option<Bytes<'_>>,
        mode: u8,
        cipher: u8,
        mac: u8,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (ct, uid) = (ciphertext.as_slice(), opt(&uid));
        let opts = options(mode, cipher, mac).py_err()?;
        let out = py.detach(|| sm9::decrypt(&self.inner, ct, uid, opts)).py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    #[pyo3(signature = (ciphertext, length, uid))]
    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        ciphertext: Bytes<'_>,
        length: usize,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (c, uid) = (ciphertext.as_slice(), opt(&uid));
        let k = py.detach(|| self.inner.decapsulate(c, length, uid)).py_err()?;
        Ok(PyBytes::new(py, &k))
    }

    fn prepare(&self, py: Python<'_>) -> Self {
        Sm9EncPrivateKey { inner: py.detach(|| self.inner.prepare()) }
    }

    fn prepared_memory(&self) -> usize {
        self.inner.prepared_memory()
    }
}

#[pyclass(name = "Sm9KeyExchange", module = "shangmi._native", frozen)]
pub(crate) struct Sm9KeyExchange {
    inner: Mutex<sm9::KeyExchange>,
}

#[pymethods]
impl Sm9KeyExchange {
    #[new]
    fn new(
        py: Python<'_>,
        initiator: bool,
        key: &Sm9EncPrivateKey,
        master: &Sm9EncMasterPublicKey,
        uid: Bytes<'_>,
        peer_uid: Bytes<'_>,
    ) -> PyResult<Self> {
        let (uid, peer_uid) = (uid.as_slice(), peer_uid.as_slice());
        let role = if initiator { sm9::Role::Initiator } else { sm9::Role::Responder };
        let kx = py.detach(|| sm9::KeyExchange::new(role, &key.inner, &master.inner, uid, peer_uid)).py_err()?;
        Ok(Sm9KeyExchange { inner: Mutex::new(kx) })
    }

    fn ephemeral_public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &lock(&self.inner).ephemeral_public())
    }

    fn compute<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes<'_>,
        length: usize,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let peer = peer_ephemeral.as_slice();
        let r = py.detach(|| lock(&self.inner).compute(peer, length)).py_err()?;
        Ok((PyBytes::new(py, &r.key), PyBytes::new(py, &r.confirm_out), PyBytes::new(py, &r.confirm_expected)))
    }
}

/// Signs every message with one key, in parallel over all cores.
#[pyfunction]
fn sm9_sign_many<'py>(
    py: Python<'py>,
    key: &Sm9SignPrivateKey,
    messages: Vec<Bytes<'_>>,
    der: bool,
) -> PyResult<Bound<'py, PyList>> {
    let slices: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    let sigs = py.detach(|| sm9::sign_many(&key.inner, &slices)).py_err()?;
    PyList::new(
        py,
        sigs.iter().map(|s| if der { PyBytes::new(py, &s.to_der()) } else { PyBytes::new(py, &s.to_raw()) }),
    )
}

/// Verifies (message, uid, signature) triples under one master public key in parallel.
#[pyfunction]
fn sm9_verify_many(
    py: Python<'_>,
    master: &Sm9SignMasterPublicKey,
    items: Vec<(Bytes<'_>, Bytes<'_>, Bytes<'_>)>,
    hid: u32,
    der: bool,
) -> PyResult<Vec<bool>> {
    let hid = self::hid(hid).py_err()?;
    Ok(py.detach(|| {
        let parsed: Vec<(&[u8], &[u8], Option<sm9::Signature>)> = items
            .iter()
            .map(|(m, u, s)| (m.as_slice(), u.as_slice(), parse_signature(s.as_slice(), der).ok()))
            .collect();
        sm9::verify_many(&master.inner, hid, &parsed)
    }))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sm9_sign_many, m)?)?;
    m.add_function(wrap_pyfunction!(sm9_verify_many, m)?)?;
    m.add_class::<Sm9SignMasterKey>()?;
    m.add_class::<Sm9SignMasterPublicKey>()?;
    m.add_class::<Sm9SignPrivateKey>()?;
    m.add_class::<Sm9EncMasterKey>()?;
    m.add_class::<Sm9EncMasterPublicKey>()?;
    m.add_class::<Sm9EncPrivateKey>()?;
    m.add_class::<Sm9KeyExchange>()?;
    Ok(())
}
