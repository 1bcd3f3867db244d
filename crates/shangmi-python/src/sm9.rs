//! SM9 master keys, user keys, signatures, encryption, KEM and key exchange.
//!
//! Thin wrappers over `shangmi::sm9` and its key files (`shangmi::encoding::sm9::keys`):
//! conversion, GIL release (every call here does curve, pairing or PBKDF2
//! work) and error mapping. Option names (`"der"`, `"c1c3c2"`, `"hmac-sm3"`,
//! `"initiator"`) are parsed by the core's enums, which own their messages.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList};
use shangmi::encoding::SignatureEncoding;
use shangmi::sm9;
use std::sync::Mutex;

use crate::buffer::{batch, field, item_fields, Arg, Bytes, Name, Uint};
use crate::errors::IntoPyResult;
use crate::gil::lock;
use crate::keys::opt_slice;

fn hid(h: Uint<u32>) -> PyResult<u8> {
    sm9::hid_from_u32(h.0).py_err()
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

    #[staticmethod]
    fn from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9SignMasterPublicKey { inner: py.detach(|| sm9::SignMasterPublicKey::from_der(d)).py_err()? })
    }

    #[staticmethod]
    fn from_pem(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9SignMasterPublicKey { inner: py.detach(|| sm9::SignMasterPublicKey::from_pem(d)).py_err()? })
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_der())
    }

    fn to_pem<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_pem().as_bytes())
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
        hid: Uint<u32>,
        encoding: Name,
    ) -> PyResult<()> {
        let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
        let (sig, msg, uid) = (signature.as_slice(), message.as_slice(), uid.as_slice());
        let hid = self::hid(hid)?;
        py.detach(|| enc.parse(sig).and_then(|s| self.inner.verify(msg, uid, hid, &s))).py_err()
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

/// A master key class (signing or encryption: the same surface over
/// `shangmi::sm9`'s two master key types): `$class` named `$name` in Python,
/// wrapping `$core`, its public key class `$public` and user key class `$user`.
macro_rules! master_key_class {
    ($class:ident, $name:tt, $core:path, $public:ident, $user:ident) => {
        #[pyclass(name = $name, module = "shangmi._native", frozen)]
        pub(crate) struct $class {
            inner: $core,
        }

        #[pymethods]
        impl $class {
            #[staticmethod]
            fn generate(py: Python<'_>) -> PyResult<Self> {
                Ok($class { inner: py.detach(<$core>::generate).py_err()? })
            }

            #[staticmethod]
            fn from_bytes(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
                let d = data.as_slice();
                Ok($class { inner: py.detach(|| <$core>::from_bytes(d)).py_err()? })
            }

            #[staticmethod]
            #[pyo3(signature = (data, password=None))]
            fn from_der(py: Python<'_>, data: Bytes<'_>, password: Option<Bytes<'_>>) -> PyResult<Self> {
                let (d, pw) = (data.as_slice(), opt_slice(&password));
                Ok($class { inner: py.detach(|| <$core>::from_der(d, pw)).py_err()? })
            }

            #[staticmethod]
            #[pyo3(signature = (data, password=None))]
            fn from_pem(py: Python<'_>, data: Bytes<'_>, password: Option<Bytes<'_>>) -> PyResult<Self> {
                let (d, pw) = (data.as_slice(), opt_slice(&password));
                Ok($class { inner: py.detach(|| <$core>::from_pem(d, pw)).py_err()? })
            }

            #[pyo3(signature = (password=None))]
            fn to_der<'py>(&self, py: Python<'py>, password: Option<Bytes<'_>>) -> PyResult<Bound<'py, PyBytes>> {
                let pw = opt_slice(&password);
                Ok(PyBytes::new(py, &py.detach(|| self.inner.to_der(pw)).py_err()?))
            }

            #[pyo3(signature = (password=None))]
            fn to_pem<'py>(&self, py: Python<'py>, password: Option<Bytes<'_>>) -> PyResult<Bound<'py, PyBytes>> {
                let pw = opt_slice(&password);
                Ok(PyBytes::new(py, py.detach(|| self.inner.to_pem(pw)).py_err()?.as_bytes()))
            }

            fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
                PyBytes::new(py, self.inner.to_bytes().as_ref())
            }

            fn public_key(&self) -> $public {
                $public { inner: self.inner.public_key().clone() }
            }

            fn extract(&self, py: Python<'_>, uid: Bytes<'_>, hid: Uint<u32>) -> PyResult<$user> {
                let uid = uid.as_slice();
                let hid = self::hid(hid)?;
                Ok($user { inner: py.detach(|| self.inner.extract(uid, hid)).py_err()? })
            }
        }
    };
}

master_key_class!(Sm9SignMasterKey, "Sm9SignMasterKey", sm9::SignMasterKey, Sm9SignMasterPublicKey, Sm9SignPrivateKey);

#[pyclass(name = "Sm9SignPrivateKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9SignPrivateKey {
    inner: sm9::SignPrivateKey,
}

#[pymethods]
impl Sm9SignPrivateKey {
    #[staticmethod]
    fn from_bytes(py: Python<'_>, data: Bytes<'_>, master: Arg<Py<Sm9SignMasterPublicKey>>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9SignPrivateKey { inner: py.detach(|| sm9::SignPrivateKey::from_bytes(d, &master.get().inner)).py_err()? })
    }

    #[staticmethod]
    #[pyo3(signature = (data, password=None, master=None))]
    fn from_der(
        py: Python<'_>,
        data: Bytes<'_>,
        password: Option<Bytes<'_>>,
        master: Option<Arg<Py<Sm9SignMasterPublicKey>>>,
    ) -> PyResult<Self> {
        let (d, pw, m) = (data.as_slice(), opt_slice(&password), master.as_ref().map(|m| &m.get().inner));
        Ok(Sm9SignPrivateKey { inner: py.detach(|| sm9::SignPrivateKey::from_der(d, pw, m)).py_err()? })
    }

    #[staticmethod]
    #[pyo3(signature = (data, password=None, master=None))]
    fn from_pem(
        py: Python<'_>,
        data: Bytes<'_>,
        password: Option<Bytes<'_>>,
        master: Option<Arg<Py<Sm9SignMasterPublicKey>>>,
    ) -> PyResult<Self> {
        let (d, pw, m) = (data.as_slice(), opt_slice(&password), master.as_ref().map(|m| &m.get().inner));
        Ok(Sm9SignPrivateKey { inner: py.detach(|| sm9::SignPrivateKey::from_pem(d, pw, m)).py_err()? })
    }

    #[pyo3(signature = (password=None))]
    fn to_der<'py>(&self, py: Python<'py>, password: Option<Bytes<'_>>) -> PyResult<Bound<'py, PyBytes>> {
        let pw = opt_slice(&password);
        Ok(PyBytes::new(py, &py.detach(|| self.inner.to_der(pw)).py_err()?))
    }

    #[pyo3(signature = (password=None))]
    fn to_pem<'py>(&self, py: Python<'py>, password: Option<Bytes<'_>>) -> PyResult<Bound<'py, PyBytes>> {
        let pw = opt_slice(&password);
        Ok(PyBytes::new(py, py.detach(|| self.inner.to_pem(pw)).py_err()?.as_bytes()))
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    fn master_public_key(&self) -> Sm9SignMasterPublicKey {
        Sm9SignMasterPublicKey { inner: self.inner.master_public_key().clone() }
    }

    fn sign<'py>(&self, py: Python<'py>, message: Bytes<'_>, encoding: Name) -> PyResult<Bound<'py, PyBytes>> {
        let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
        let msg = message.as_slice();
        let sig = py.detach(|| self.inner.sign(msg).map(|s| enc.encode(&s))).py_err()?;
        Ok(PyBytes::new(py, &sig))
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

    #[staticmethod]
    fn from_der(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9EncMasterPublicKey { inner: py.detach(|| sm9::EncMasterPublicKey::from_der(d)).py_err()? })
    }

    #[staticmethod]
    fn from_pem(py: Python<'_>, data: Bytes<'_>) -> PyResult<Self> {
        let d = data.as_slice();
        Ok(Sm9EncMasterPublicKey { inner: py.detach(|| sm9::EncMasterPublicKey::from_pem(d)).py_err()? })
    }

    fn to_der<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_der())
    }

    fn to_pem<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_pem().as_bytes())
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
        hid: Uint<u32>,
        mode: Name,
        cipher: Name,
        mac: Name,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (pt, uid) = (plaintext.as_slice(), uid.as_slice());
        let hid = self::hid(hid)?;
        let opts = sm9::Options::from_names(&mode.0, &cipher.0, &mac.0).py_err()?;
        let out = py.detach(|| sm9::encrypt(&self.inner, pt, uid, hid, opts)).py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    fn encapsulate<'py>(
        &self,
        py: Python<'py>,
        uid: Bytes<'_>,
        hid: Uint<u32>,
        length: Uint<usize>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let uid = uid.as_slice();
        let hid = self::hid(hid)?;
        let (k, c) = py.detach(|| self.inner.encapsulate(uid, hid, length.0)).py_err()?;
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

master_key_class!(Sm9EncMasterKey, "Sm9EncMasterKey", sm9::EncMasterKey, Sm9EncMasterPublicKey, Sm9EncPrivateKey);

#[pyclass(name = "Sm9EncPrivateKey", module = "shangmi._native", frozen)]
pub(crate) struct Sm9EncPrivateKey {
    inner: sm9::EncPrivateKey,
}

#[pymethods]
impl Sm9EncPrivateKey {
    #[staticmethod]
    #[pyo3(signature = (data, master, uid=None))]
    fn from_bytes(
        py: Python<'_>,
        data: Bytes<'_>,
        master: Arg<Py<Sm9EncMasterPublicKey>>,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Self> {
        let (d, uid) = (data.as_slice(), opt_slice(&uid));
        Ok(Sm9EncPrivateKey {
            inner: py.detach(|| sm9::EncPrivateKey::from_bytes(d, &master.get().inner, uid)).py_err()?,
        })
    }

    #[staticmethod]
    #[pyo3(signature = (data, password=None, master=None, uid=None))]
    fn from_der(
        py: Python<'_>,
        data: Bytes<'_>,
        password: Option<Bytes<'_>>,
        master: Option<Arg<Py<Sm9EncMasterPublicKey>>>,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Self> {
        let (d, pw, m, u) =
            (data.as_slice(), opt_slice(&password), master.as_ref().map(|m| &m.get().inner), opt_slice(&uid));
        Ok(Sm9EncPrivateKey { inner: py.detach(|| sm9::EncPrivateKey::from_der(d, pw, m, u)).py_err()? })
    }

    #[staticmethod]
    #[pyo3(signature = (data, password=None, master=None, uid=None))]
    fn from_pem(
        py: Python<'_>,
        data: Bytes<'_>,
        password: Option<Bytes<'_>>,
        master: Option<Arg<Py<Sm9EncMasterPublicKey>>>,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Self> {
        let (d, pw, m, u) =
            (data.as_slice(), opt_slice(&password), master.as_ref().map(|m| &m.get().inner), opt_slice(&uid));
        Ok(Sm9EncPrivateKey { inner: py.detach(|| sm9::EncPrivateKey::from_pem(d, pw, m, u)).py_err()? })
    }

    #[pyo3(signature = (password=None))]
    fn to_der<'py>(&self, py: Python<'py>, password: Option<Bytes<'_>>) -> PyResult<Bound<'py, PyBytes>> {
        let pw = opt_slice(&password);
        Ok(PyBytes::new(py, &py.detach(|| self.inner.to_der(pw)).py_err()?))
    }

    #[pyo3(signature = (password=None))]
    fn to_pem<'py>(&self, py: Python<'py>, password: Option<Bytes<'_>>) -> PyResult<Bound<'py, PyBytes>> {
        let pw = opt_slice(&password);
        Ok(PyBytes::new(py, py.detach(|| self.inner.to_pem(pw)).py_err()?.as_bytes()))
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
        mode: Name,
        cipher: Name,
        mac: Name,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (ct, uid) = (ciphertext.as_slice(), opt_slice(&uid));
        let opts = sm9::Options::from_names(&mode.0, &cipher.0, &mac.0).py_err()?;
        let out = py.detach(|| sm9::decrypt(&self.inner, ct, uid, opts)).py_err()?;
        Ok(PyBytes::new(py, &out))
    }

    #[pyo3(signature = (ciphertext, length, uid))]
    fn decapsulate<'py>(
        &self,
        py: Python<'py>,
        ciphertext: Bytes<'_>,
        length: Uint<usize>,
        uid: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let (c, uid) = (ciphertext.as_slice(), opt_slice(&uid));
        let k = py.detach(|| self.inner.decapsulate(c, length.0, uid)).py_err()?;
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
        role: Name,
        key: Arg<Py<Sm9EncPrivateKey>>,
        master: Arg<Py<Sm9EncMasterPublicKey>>,
        uid: Bytes<'_>,
        peer_uid: Bytes<'_>,
    ) -> PyResult<Self> {
        let role = sm9::Role::from_name(&role.0).py_err()?;
        let (uid, peer_uid) = (uid.as_slice(), peer_uid.as_slice());
        let kx =
            py.detach(|| sm9::KeyExchange::new(role, &key.get().inner, &master.get().inner, uid, peer_uid)).py_err()?;
        Ok(Sm9KeyExchange { inner: Mutex::new(kx) })
    }

    fn ephemeral_public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &lock(&self.inner).ephemeral_public())
    }

    /// As `Sm2KeyExchange.compute`: `confirmation` is only converted here.
    #[pyo3(signature = (peer_ephemeral, length, confirmation=None))]
    fn compute<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes<'_>,
        length: Uint<usize>,
        confirmation: Option<Bytes<'_>>,
    ) -> PyResult<(Bound<'py, PyBytes>, Bound<'py, PyBytes>, Bound<'py, PyBytes>)> {
        let _ = confirmation;
        let peer = peer_ephemeral.as_slice();
        let r = py.detach(|| lock(&self.inner).compute(peer, length.0)).py_err()?;
        Ok((PyBytes::new(py, &r.key), PyBytes::new(py, &r.confirm_out), PyBytes::new(py, &r.confirm_expected)))
    }
}

/// Signs every message with one key, in parallel over all cores.
#[pyfunction]
fn sm9_sign_many<'py>(
    py: Python<'py>,
    key: Arg<Py<Sm9SignPrivateKey>>,
    messages: &Bound<'py, PyAny>,
    encoding: Name,
) -> PyResult<Bound<'py, PyList>> {
    let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
    let messages: Vec<Bytes<'py>> = batch(messages, "messages (bytes-like)")?
        .iter()
        .enumerate()
        .map(|(i, m)| field(m, "message", i))
        .collect::<PyResult<_>>()?;
    let slices: Vec<&[u8]> = messages.iter().map(|m| m.as_slice()).collect();
    let sigs = py.detach(|| enc.encode_many(&key.get().inner, &slices)).py_err()?;
    PyList::new(py, sigs.iter().map(|s| PyBytes::new(py, s)))
}

/// Verifies (message, uid, signature) triples under one master public key in parallel.
#[pyfunction]
fn sm9_verify_many<'py>(
    py: Python<'py>,
    master: Arg<Py<Sm9SignMasterPublicKey>>,
    items: &Bound<'py, PyAny>,
    hid: Uint<u32>,
    encoding: Name,
) -> PyResult<Vec<bool>> {
    let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
    let hid = self::hid(hid)?;
    let items = batch(items, "(message, uid, signature) tuples")?
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let f = item_fields(item, "item", i, &[3], "(message, uid, signature)")?;
            Ok((field(&f[0], "item", i)?, field(&f[1], "item", i)?, field(&f[2], "item", i)?))
        })
        .collect::<PyResult<Vec<(Bytes<'py>, Bytes<'py>, Bytes<'py>)>>>()?;
    let slices: Vec<(&[u8], &[u8], &[u8])> =
        items.iter().map(|(m, u, s)| (m.as_slice(), u.as_slice(), s.as_slice())).collect();
    Ok(py.detach(|| enc.verify_many(&master.get().inner, hid, &slices)))
}

/// e(P, Q) on encoded G1 and G2 points (384-byte GT encoding).
#[pyfunction]
fn sm9_pairing<'py>(py: Python<'py>, p: Bytes<'_>, q: Bytes<'_>) -> PyResult<Bound<'py, PyBytes>> {
    let (p, q) = (p.as_slice(), q.as_slice());
    let gt = py.detach(|| sm9::pairing_encoded(p, q)).py_err()?;
    Ok(PyBytes::new(py, &gt))
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sm9_pairing, m)?)?;
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
