//! SM2 keys, signatures, encryption, key exchange and the signature pool.
//!
//! Thin wrappers over `shangmi::sm2` and `shangmi::encoding::sm2`. Every
//! operation here costs at least ~10 µs of curve arithmetic, so every one
//! releases the GIL. Names of modes and encodings are validated in Python
//! (`python/shangmi/sm2.py`); here they arrive as small integers.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use shangmi::encoding::sm2 as fmt;
use shangmi::encoding::KeyEncryption;
use shangmi::sm2;
use shangmi::{Error, Result};

use crate::buffer::Bytes;
use crate::errors::IntoPyResult;
use crate::gil::lock;

/// Ciphertext layouts (python/shangmi/sm2.py maps the names).
const MODE_C1C3C2: u8 = 0;
const MODE_C1C2C3: u8 = 1;
const MODE_DER: u8 = 2;

fn parse_ciphertext(data: &[u8], mode: u8) -> Result<sm2::Ciphertext> {
    match mode {
        MODE_C1C3C2 => sm2::Ciphertext::from_c1c3c2(data),
        MODE_C1C2C3 => sm2::Ciphertext::from_c1c2c3(data),
        MODE_DER => fmt::ciphertext_from_der(data),
        _ => Err(Error::invalid(format!("unknown ciphertext mode {mode}"))),
    }
}

fn encode_ciphertext(ct: &sm2::Ciphertext, mode: u8) -> Result<Vec<u8>> {
    match mode {
        MODE_C1C3C2 => Ok(ct.to_c1c3c2()),
        MODE_C1C2C3 => Ok(ct.to_c1c2c3()),
        MODE_DER => fmt::ciphertext_to_der(ct),
        _ => Err(Error::invalid(format!("unknown ciphertext mode {mode}"))),
    }
}

/// Signature bytes in DER (`der = true`) or raw 64-byte r||s. Any defect in a
/// signature is `InvalidSignature`, never a format error.
fn parse_signature(data: &[u8], der: bool) -> Result<sm2::Signature> {
    if der {
        fmt::signature_from_der(data)
    } else {
        sm2::Signature::from_bytes(data).map_err(|_| Error::InvalidSignature)
    }
}

fn encode_signature(sig: &sm2::Signature, der: bool) -> Vec<u8> {
    if der {
        fmt::signature_to_der(sig)
    } else {
        sig.to_bytes().to_vec()
    }
}

fn digest32(e: &[u8]) -> Result<[u8; 32]> {
    e.try_into().map_err(|_| Error::invalid(format!("digest e must be 32 bytes, got {}", e.len())))
}

fn scheme(aes: bool) -> KeyEncryption {
    if aes {
        KeyEncryption::Sha256Aes256
    } else {
        KeyEncryption::Sm3Sm4
    }
}

fn opt_slice<'a>(b: &'a Option<Bytes<'_>>) -> Option<&'a [u8]> {
    b.as_ref().map(|b| b.as_slice())
}

/// An SM2 public key (immutable; cheap to share between threads).
#[pyclass(name = "Sm2PublicKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm2PublicKey {
    inner: sm2::PublicKey,
}

#[pymethods]
impl Sm2PublicKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let data = data.as_slice();
        let inner = py.detach(|| sm2::PublicKey::from_bytes(data)).py_err()?;
        Ok(Sm2PublicKey { inner })
    }

    #[staticmethod]
    fn from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let data = data.as_slice();
        let inner = py.detach(|| fmt::public_key_from_der(data)).py_err()?;
        Ok(Sm2PublicKey { inner })
    }

    #[staticmethod]
    fn from_pem(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let data = data.as_slice();
        let inner = py.detach(|| fmt::public_key_from_pem(data)).py_err()?;
        Ok(Sm2PublicKey { inner })
    }

    fn to_bytes<'py>(&self, py: Python<'py>, compressed: bool) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes(compressed))
    }

    fn to_der<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, &fmt::public_key_to_der(&self.inner).py_err()?))
    }

    fn to_pem<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        Ok(PyBytes::new(py, fmt::public_key_to_pem(&self.inner).py_err()?.as_bytes()))
    }

    fn z<'py>(&self, py: Python<'py>, uid: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
        let uid = uid.as_slice();
        let z = py.detach(|| self.inner.z(uid)).py_err()?;
        Ok(PyBytes::new(py, &z))
    }

    fn verify(
        &self,
        py: Python<'_>,
        signature: Bytes<'_>,
        message: Bytes<'_>,
        uid: Bytes<'_>,
        der: bool,
    ) -> PyResult<()> {
        let (sig, msg, uid) = (signature.as_slice(), message.as_slice(), uid.as_slice());
        py.detach(|| parse_signature(sig, der).and_then(|s| self.inner.verify(msg, uid, &s))).py_err()
    }

    fn verify_digest(&self, py: Python<'_>, signature: Bytes<'_>, digest: Bytes<'_>, der: bool) -> PyResult<()> {
        let (sig, e) = (signature.as_slice(), digest.as_slice());
        let e = digest32(e).py_err()?;
        py.detach(|| parse_signature(sig, der).and_then(|s| self.inner.verify_digest(&e, &s))).py_err()
    }

    fn encrypt<'py>(&self, py: Python<'py>, plaintext: Bytes<'_>, mode: u8) -> PyResult<Bound<'py, PyBytes>> {
        let pt = plaintext.as_slice();
        let out = py.detach(|| self.inner.encrypt(pt).and_then(|ct| encode_ciphertext(&ct, mode))).py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    fn prepare(&self, py: Python<'_>) -> Self {
        Sm2PublicKey { inner: py.detach(|| self.inner.prepare()) }
    }

    fn is_prepared(&self) -> bool {
        self.inner.is_prepared()
    }

    fn prepared_memory_bytes(&self) -> usize {
        self.inner.prepared_memory_bytes()
    }
}

/// An SM2 private key. Its secret leaves only through explicit
/// `to_bytes` / `to_der` / `to_pem`; it has no pickle or copy support.
#[pyclass(name = "Sm2PrivateKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm2PrivateKey {
    inner: sm2::PrivateKey,
}

#[pymethods]
impl Sm2PrivateKey {
    #[staticmethod]
    fn generate(py: Python<'_>) -> PyResult<Self> {
        let inner = py.detach(sm2::PrivateKey::generate).py_err()?;
        Ok(Sm2PrivateKey { inner })
    }

    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        let inner = py.detach(|| sm2::PrivateKey::from_bytes(d)).py_err()?;
        Ok(Sm2PrivateKey { inner })
    }

    #[staticmethod]
    #[pyo3(signature = (data, password=None))]
    fn from_der(py: Python<'_>, data: Bytes<'_>, password: Option<Bytes<'_>>) -> PyResult<Self> {
        let (data, pw) = (data.as_slice(), opt_slice(&password));
        let inner = py.detach(|| fmt::private_key_from_der(data, pw)).py_err()?;
        Ok(Sm2PrivateKey { inner })
    }

    #[staticmethod]
    #[pyo3(signature = (data, password=None))]
    fn from_pem(py: Python<'_>, data: Bytes<'_>, password: Option<Bytes<'_>>) -> PyResult<Self> {
        let (data, pw) = (data.as_slice(), opt_slice(&password));
        let inner = py.detach(|| fmt::private_key_from_pem(data, pw)).py_err()?;
        Ok(Sm2PrivateKey { inner })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    /// `sec1`: SEC1 instead of PKCS#8 (no password allowed); `aes`: encrypt
    /// with OpenSSL's PBKDF2-HMAC-SHA256 + AES-256-CBC instead of SM3 + SM4.
    #[pyo3(signature = (password=None, sec1=false, aes=false))]
    fn to_der<'py>(
        &self,
        py: Python<'py>,
        password: Option<Bytes<'_>>,
        sec1: bool,
        aes: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let pw = opt_slice(&password);
        let der = py
            .detach(|| {
                if sec1 {
                    fmt::private_key_to_sec1_der(&self.inner)
                } else {
                    fmt::private_key_to_der(&self.inner, pw, scheme(aes))
                }
            })
            .py_err()?;
        Ok(PyBytes::new(py, &der))
    }

    #[pyo3(signature = (password=None, sec1_label=None, aes=false))]
    fn to_pem<'py>(
        &self,
        py: Python<'py>,
        password: Option<Bytes<'_>>,
        sec1_label: Option<&str>,
        aes: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let pw = opt_slice(&password);
        let pem = py
            .detach(|| match sec1_label {
                Some(label) => fmt::private_key_to_sec1_pem(&self.inner, label),
                None => fmt::private_key_to_pem(&self.inner, pw, scheme(aes)),
            })
            .py_err()?;
        Ok(PyBytes::new(py, pem.as_bytes()))
    }

    fn public_key(&self) -> Sm2PublicKey {
        Sm2PublicKey { inner: self.inner.public_key().clone() }
    }

    #[pyo3(signature = (message, uid, der, pool=None))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        message: Bytes<'_>,
        uid: Bytes<'_>,
        der: bool,
        pool: Option<&Sm2SignaturePool>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (msg, uid) = (message.as_slice(), uid.as_slice());
        let sig = py
            .detach(|| match pool {
                Some(p) => self.inner.sign_with_pool(msg, uid, &p.inner),
                None => self.inner.sign(msg, uid),
            })
            .py_err()?;
        Ok(PyBytes::new(py, &encode_signature(&sig, der)))
    }

    fn sign_digest<'py>(&self, py: Python<'py>, digest: Bytes<'_>, der: bool) -> PyResult<Bound<'py, PyBytes>> {
        let e = digest32(digest.as_slice()).py_err()?;
        let sig = py.detach(|| self.inner.sign_digest(&e)).py_err()?;
        Ok(PyBytes::new(py, &encode_signature(&sig, der)))
    }

    fn decrypt<'py>(&self, py: Python<'py>, ciphertext: Bytes<'_>, mode: u8) -> PyResult<Bound<'py, PyBytes>> {
        let data = ciphertext.as_slice();
        // A ciphertext that cannot even be parsed is reported like any other
        // failed decryption for the DER and fixed layouts alike: one opaque error
        // (length problems say so, since lengths are public).
        let pt = py.detach(|| parse_ciphertext(data, mode).and_then(|ct| self.inner.decrypt(&ct))).py_err()?;
        Ok(PyBytes::new(py, &pt))
    }
}

/// One-time precomputed signing nonces. Not copyable, not picklable.
#[pyclass(name = "Sm2SignaturePool", module = "shangmi._native", frozen)]
pub(crate) struct Sm2SignaturePool {
    inner: sm2::SignaturePool,
}

#[pymethods]
impl Sm2SignaturePool {
    #[new]
    fn new(py: Python<'_>, n: usize) -> PyResult<Self> {
        let inner = py.detach(|| sm2::SignaturePool::new(n)).py_err()?;
        Ok(Sm2SignaturePool { inner })
    }

    fn remaining(&self) -> usize {
        self.inner.remaining()
    }

    fn refill(&self, py: Python<'_>, n: usize) -> PyResult<()> {
        py.detach(|| self.inner.refill(n)).py_err()
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err("a SignaturePool holds one-time secret nonces and cannot be pickled"))
    }

    fn __copy__(&self) -> PyResult<()> {
        Err(PyTypeError::new_err("a SignaturePool holds one-time secret nonces and cannot be copied"))
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> PyResult<()> {
        self.__copy__()
    }
}

/// One side of a GB/T 32918.3 key exchange.
#[pyclass(name = "Sm2KeyExchange", module = "shangmi._native", frozen)]
pub(crate) struct Sm2KeyExchange {
    inner: std::sync::Mutex<sm2::KeyExchange>,
}

#[pymethods]
impl Sm2KeyExchange {
    #[new]
    fn new(
        py: Python<'_>,
        initiator: bool,
        own: &Sm2PrivateKey,
        own_uid: Bytes<'_>,
        peer: &Sm2PublicKey,
        peer_uid: Bytes<'_>,
    ) -> PyResult<Self> {
        let role = if initiator { sm2::Role::Initiator } else { sm2::Role::Responder };
        let (own_uid, peer_uid) = (own_uid.as_slice(), peer_uid.as_slice());
        let kx = py.detach(|| sm2::KeyExchange::new(role, &own.inner, own_uid, &peer.inner, peer_uid)).py_err()?;
        Ok(Sm2KeyExchange { inner: std::sync::Mutex::new(kx) })
    }

    fn ephemeral_public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &lock(&self.inner).ephemeral_public())
    }

    /// (key, confirmation to send, confirmation expected from the peer).
    fn compute<'py>(&self, py: Python<'py>, peer_ephemeral: Bytes<'_>, length: usize) -> PyResult<Bound<'py, PyTuple>> {
        let peer = peer_ephemeral.as_slice();
        let res = py.detach(|| lock(&self.inner).compute(peer, length)).py_err()?;
        let items =
            [PyBytes::new(py, &res.key), PyBytes::new(py, &res.confirm_out), PyBytes::new(py, &res.confirm_expected)];
        PyTuple::new(py, items)
    }
}

/// Signs every message with one key, in parallel over all cores.
#[pyfunction]
fn sm2_sign_many<'py>(
    py: Python<'py>,
    key: &Sm2PrivateKey,
    messages: Vec<Bytes<'_>>,
    uid: Bytes<'_>,
    der: bool,
) -> PyResult<Bound<'py, PyList>> {
    let uid = uid.as_slice();
    let slices: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    let sigs = py.detach(|| sm2::sign_many(&key.inner, &slices, uid)).py_err()?;
    PyList::new(py, sigs.iter().map(|s| PyBytes::new(py, &encode_signature(s, der))))
}

/// Verifies (public key, message, signature) triples in parallel; a list of bools.
#[pyfunction]
fn sm2_verify_many(
    py: Python<'_>,
    items: Vec<(PyRef<'_, Sm2PublicKey>, Bytes<'_>, Bytes<'_>)>,
    uid: Bytes<'_>,
    der: bool,
) -> PyResult<Vec<bool>> {
    let uid = uid.as_slice();
    // Clone the keys (an Arc bump each) and drop the Python references so the
    // work can run without the GIL.
    let mut keys = Vec::with_capacity(items.len());
    let mut data = Vec::with_capacity(items.len());
    for (k, m, s) in items {
        keys.push(k.inner.clone());
        data.push((m, s));
    }
    py.detach(|| -> shangmi::Result<Vec<bool>> {
        // A signature that does not even parse is simply invalid.
        let parsed: Vec<Option<sm2::Signature>> =
            data.iter().map(|(_, s)| parse_signature(s.as_slice(), der).ok()).collect();
        let mut batch = Vec::with_capacity(data.len());
        let mut index = Vec::with_capacity(data.len());
        for (i, ((m, _), sig)) in data.iter().zip(parsed.iter()).enumerate() {
            if let Some(sig) = sig {
                batch.push((&keys[i], m.as_slice(), sig));
                index.push(i);
            }
        }
        let ok = sm2::verify_many(&batch, uid)?;
        let mut out = vec![false; data.len()];
        for (i, good) in index.into_iter().zip(ok) {
            out[i] = good;
        }
        Ok(out)
    })
    .py_err()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Sm2PublicKey>()?;
    m.add_class::<Sm2PrivateKey>()?;
    m.add_class::<Sm2SignaturePool>()?;
    m.add_class::<Sm2KeyExchange>()?;
    m.add_function(wrap_pyfunction!(sm2_sign_many, m)?)?;
    m.add_function(wrap_pyfunction!(sm2_verify_many, m)?)?;
    Ok(())
}
