//! SM2 keys, signatures, encryption, key exchange and the signature pool.
//!
//! Thin wrappers over `shangmi::sm2` and `shangmi::encoding::sm2`: argument
//! conversion, GIL release and error mapping. Option names (`"c1c3c2"`,
//! `"der"`, `"aes-256-cbc"`) are parsed by the core's enums, which own their
//! messages. Every operation does curve arithmetic well above the GIL
//! threshold, so every one releases the GIL. Secrets copied into Python objects (plaintext,
//! derived keys, the private scalar) are wiped here once copied.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use shangmi::encoding::sm2 as fmt;
use shangmi::encoding::sm2_modes::{self as modes, CiphertextMode, SignatureEncoding};
use shangmi::encoding::KeyEncryption;
use shangmi::sm2;

use crate::buffer::{batch, field, item_fields, type_name, Arg, Bytes, Name, Uint};
use crate::errors::{invalid, wrong_type, IntoPyResult};
use crate::gil::lock;
use crate::keys::{bytes_then_wipe, opt_slice};

fn digest32(e: &[u8]) -> shangmi::Result<[u8; 32]> {
    e.try_into().map_err(|_| shangmi::Error::invalid(format!("digest must be 32 bytes, got {}", e.len())))
}

/// Whether a private-key `format` option names SEC1 ("sec1") rather than
/// PKCS#8 ("pkcs8"); the one parser of that option.
fn is_sec1(format: &Name) -> PyResult<bool> {
    match format.0.as_str() {
        "pkcs8" => Ok(false),
        "sec1" => Ok(true),
        other => Err(invalid(format!("format must be one of 'pkcs8', 'sec1', got '{other}'"))),
    }
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

    #[staticmethod]
    fn from_pem_all(py: Python<'_>, data: Bytes<'_>) -> PyResult<Vec<Self>> {
        let data = data.as_slice();
        let keys = py.detach(|| fmt::public_keys_from_pem_all(data)).py_err()?;
        Ok(keys.into_iter().map(|inner| Sm2PublicKey { inner }).collect())
    }

    fn to_bytes<'py>(&self, py: Python<'py>, compressed: Arg<bool>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.inner.to_bytes(compressed.0))
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
        encoding: Name,
    ) -> PyResult<()> {
        let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
        let (sig, msg, uid) = (signature.as_slice(), message.as_slice(), uid.as_slice());
        py.detach(|| modes::verify(&self.inner, sig, msg, uid, enc)).py_err()
    }

    fn verify_digest(&self, py: Python<'_>, signature: Bytes<'_>, digest: Bytes<'_>, encoding: Name) -> PyResult<()> {
        let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
        let (sig, e) = (signature.as_slice(), digest32(digest.as_slice()).py_err()?);
        py.detach(|| enc.parse(sig).and_then(|s| self.inner.verify_digest(&e, &s))).py_err()
    }

    fn encrypt<'py>(&self, py: Python<'py>, plaintext: Bytes<'_>, mode: Name) -> PyResult<Bound<'py, PyBytes>> {
        let mode = CiphertextMode::from_name(&mode.0).py_err()?;
        let pt = plaintext.as_slice();
        let out = py.detach(|| self.inner.encrypt(pt).and_then(|ct| mode.encode(&ct))).py_err()?;
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
    pub(crate) inner: sm2::PrivateKey,
}

impl Sm2PrivateKey {
    /// The core key, for other bindings that take one (the channel engines).
    pub(crate) fn inner(&self) -> &sm2::PrivateKey {
        &self.inner
    }
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

    /// `max_iterations`: the most PBKDF2 iterations the file may ask for.
    #[staticmethod]
    fn from_der(
        py: Python<'_>,
        data: Bytes<'_>,
        password: Option<Bytes<'_>>,
        max_iterations: Uint<u32>,
    ) -> PyResult<Self> {
        let (data, pw) = (data.as_slice(), opt_slice(&password));
        let inner = py.detach(|| fmt::private_key_from_der_capped(data, pw, max_iterations.0)).py_err()?;
        Ok(Sm2PrivateKey { inner })
    }

    #[staticmethod]
    fn from_pem(
        py: Python<'_>,
        data: Bytes<'_>,
        password: Option<Bytes<'_>>,
        max_iterations: Uint<u32>,
    ) -> PyResult<Self> {
        let (data, pw) = (data.as_slice(), opt_slice(&password));
        let inner = py.detach(|| fmt::private_key_from_pem_capped(data, pw, max_iterations.0)).py_err()?;
        Ok(Sm2PrivateKey { inner })
    }

    fn to_bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.inner.to_bytes().as_ref())
    }

    /// `format`: "pkcs8" or "sec1" (no password allowed); `encryption`
    /// names the PBES2 profile for a password.
    fn to_der<'py>(
        &self,
        py: Python<'py>,
        password: Option<Bytes<'_>>,
        format: Name,
        encryption: Name,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let sec1 = is_sec1(&format)?;
        let scheme = KeyEncryption::from_name(&encryption.0).py_err()?;
        let pw = opt_slice(&password);
        let der = py.detach(|| modes::private_key_to_der(&self.inner, pw, sec1, scheme)).py_err()?;
        Ok(PyBytes::new(py, &der))
    }

    fn to_pem<'py>(
        &self,
        py: Python<'py>,
        password: Option<Bytes<'_>>,
        format: Name,
        sec1_label: Name,
        encryption: Name,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let sec1 = is_sec1(&format)?;
        let scheme = KeyEncryption::from_name(&encryption.0).py_err()?;
        let pw = opt_slice(&password);
        let label = sec1.then_some(sec1_label.0.as_str());
        let pem = py.detach(|| modes::private_key_to_pem(&self.inner, pw, label, scheme)).py_err()?;
        Ok(PyBytes::new(py, pem.as_bytes()))
    }

    fn public_key(&self, py: Python<'_>) -> Sm2PublicKey {
        // The first call converts d·G to affine (an inversion).
        Sm2PublicKey { inner: py.detach(|| self.inner.public_key().clone()) }
    }

    #[pyo3(signature = (message, uid, encoding, pool=None))]
    fn sign<'py>(
        &self,
        py: Python<'py>,
        message: Bytes<'_>,
        uid: Bytes<'_>,
        encoding: Name,
        pool: Option<Arg<PyRef<'_, Sm2SignaturePool>>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
        let (msg, uid) = (message.as_slice(), uid.as_slice());
        let pool = pool.as_ref().map(|p| &p.0.inner);
        let sig = py.detach(|| modes::sign(&self.inner, msg, uid, pool, enc)).py_err()?;
        Ok(PyBytes::new(py, &sig))
    }

    fn sign_digest<'py>(&self, py: Python<'py>, digest: Bytes<'_>, encoding: Name) -> PyResult<Bound<'py, PyBytes>> {
        let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
        let e = digest32(digest.as_slice()).py_err()?;
        let sig = py.detach(|| self.inner.sign_digest(&e)).py_err()?;
        Ok(PyBytes::new(py, &enc.encode(&sig)))
    }

    fn decrypt<'py>(&self, py: Python<'py>, ciphertext: Bytes<'_>, mode: Name) -> PyResult<Bound<'py, PyBytes>> {
        let mode = CiphertextMode::from_name(&mode.0).py_err()?;
        let data = ciphertext.as_slice();
        let pt = py.detach(|| mode.parse(data).and_then(|ct| self.inner.decrypt(&ct))).py_err()?;
        Ok(bytes_then_wipe(py, pt))
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
    fn new(py: Python<'_>, n: Uint<usize>) -> PyResult<Self> {
        let inner = py.detach(|| sm2::SignaturePool::new(n.0)).py_err()?;
        Ok(Sm2SignaturePool { inner })
    }

    fn remaining(&self) -> usize {
        self.inner.remaining()
    }

    fn refill(&self, py: Python<'_>, n: Uint<usize>) -> PyResult<()> {
        py.detach(|| self.inner.refill(n.0)).py_err()
    }

    fn __reduce__(&self) -> PyResult<()> {
        Err(wrong_type("a SignaturePool holds one-time secret nonces and cannot be pickled"))
    }

    fn __copy__(&self) -> PyResult<()> {
        Err(wrong_type("a SignaturePool holds one-time secret nonces and cannot be copied"))
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
        role: Name,
        own: Arg<PyRef<'_, Sm2PrivateKey>>,
        uid: Bytes<'_>,
        peer: Arg<PyRef<'_, Sm2PublicKey>>,
        peer_uid: Bytes<'_>,
    ) -> PyResult<Self> {
        let role = sm2::Role::from_name(&role.0).py_err()?;
        let (own_uid, peer_uid) = (uid.as_slice(), peer_uid.as_slice());
        let (own, peer) = (&own.0.inner, &peer.0.inner);
        let kx = py.detach(|| sm2::KeyExchange::new(role, own, own_uid, peer, peer_uid)).py_err()?;
        Ok(Sm2KeyExchange { inner: std::sync::Mutex::new(kx) })
    }

    fn ephemeral_public_key<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &lock(&self.inner).ephemeral_public())
    }

    /// (key, confirmation to send, confirmation expected from the peer); the
    /// core's copy of the key is wiped when `res` drops. `confirmation` (the
    /// peer's, when already at hand) is only converted here, before the
    /// exchange is spent; the caller compares it with the third value.
    #[pyo3(signature = (peer_ephemeral, length, confirmation=None))]
    fn compute<'py>(
        &self,
        py: Python<'py>,
        peer_ephemeral: Bytes<'_>,
        length: Uint<usize>,
        confirmation: Option<Bytes<'_>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = confirmation;
        let peer = peer_ephemeral.as_slice();
        let res = py.detach(|| lock(&self.inner).compute(peer, length.0)).py_err()?;
        let items =
            [PyBytes::new(py, &res.key), PyBytes::new(py, &res.confirm_out), PyBytes::new(py, &res.confirm_expected)];
        PyTuple::new(py, items)
    }
}

/// Signs every message with one key, in parallel over all cores.
#[pyfunction]
fn sm2_sign_many<'py>(
    py: Python<'py>,
    key: Arg<PyRef<'_, Sm2PrivateKey>>,
    messages: &Bound<'py, PyAny>,
    uid: Bytes<'_>,
    encoding: Name,
) -> PyResult<Bound<'py, PyList>> {
    let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
    let items = batch(messages, "messages (bytes-like)")?;
    let msgs: Vec<Bytes<'py>> =
        items.iter().enumerate().map(|(i, m)| field(m, "message", i)).collect::<PyResult<_>>()?;
    let uid = uid.as_slice();
    let slices: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    let key = &key.0.inner;
    let sigs = py.detach(|| sm2::sign_many(key, &slices, uid)).py_err()?;
    PyList::new(py, sigs.iter().map(|s| PyBytes::new(py, &enc.encode(s))))
}

/// Decrypts ciphertexts (bytes-like, in `mode`) with one key, in parallel;
/// a list of plaintexts, or the exception of the first item that does not
/// parse or decrypt, its message naming the index.
#[pyfunction]
fn sm2_decrypt_many<'py>(
    py: Python<'py>,
    key: Arg<PyRef<'_, Sm2PrivateKey>>,
    ciphertexts: &Bound<'py, PyAny>,
    mode: Name,
) -> PyResult<Bound<'py, PyList>> {
    let mode = CiphertextMode::from_name(&mode.0).py_err()?;
    let items = batch(ciphertexts, "ciphertexts (bytes-like)")?;
    let cts: Vec<Bytes<'py>> =
        items.iter().enumerate().map(|(i, c)| field(c, "ciphertext", i)).collect::<PyResult<_>>()?;
    let slices: Vec<&[u8]> = cts.iter().map(|c| c.as_slice()).collect();
    let key = &key.0.inner;
    match py.detach(|| modes::decrypt_many(key, &slices, mode)) {
        Ok(pts) => PyList::new(py, pts.into_iter().map(|m| bytes_then_wipe(py, m))),
        Err(e) => {
            // The core error's exception class and (Python) text, with the
            // item's index in front.
            let err = crate::errors::to_py(e.error);
            let text = format!("ciphertext {}: {}", e.index, err.value(py).str()?);
            Err(PyErr::from_type(err.get_type(py), text))
        }
    }
}

const VERIFY_SHAPE: &str = "(public_key, message, signature)";

/// Batch item `index` of `verify_many`, converted: the key is cloned (an
/// `Arc` bump) so the work can run without the GIL.
struct VerifyItem<'py> {
    key: sm2::PublicKey,
    message: Bytes<'py>,
    signature: Bytes<'py>,
}

fn verify_item<'py>(item: &Bound<'py, PyAny>, index: usize) -> PyResult<VerifyItem<'py>> {
    let f = item_fields(item, "item", index, &[3], VERIFY_SHAPE)?;
    let key = f[0]
        .cast::<Sm2PublicKey>()
        .map_err(|_| wrong_type(format!("item {index}: expected a PublicKey first, got {}", type_name(&f[0]))))?;
    let key = key.get().inner.clone();
    Ok(VerifyItem { key, message: field(&f[1], "item", index)?, signature: field(&f[2], "item", index)? })
}

/// Verifies (public key, message, signature) triples in parallel; a list of
/// bools. A malformed item names its index.
#[pyfunction]
fn sm2_verify_many<'py>(
    py: Python<'py>,
    items: &Bound<'py, PyAny>,
    uid: Bytes<'_>,
    encoding: Name,
) -> PyResult<Vec<bool>> {
    let enc = SignatureEncoding::from_name(&encoding.0).py_err()?;
    let items = batch(items, &format!("{VERIFY_SHAPE} tuples"))?;
    let items: Vec<VerifyItem<'py>> =
        items.iter().enumerate().map(|(i, item)| verify_item(item, i)).collect::<PyResult<_>>()?;
    let uid = uid.as_slice();
    py.detach(|| {
        let triples: Vec<(&sm2::PublicKey, &[u8], &[u8])> =
            items.iter().map(|it| (&it.key, it.message.as_slice(), it.signature.as_slice())).collect();
        modes::verify_many(&triples, uid, enc)
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
    m.add_function(wrap_pyfunction!(sm2_decrypt_many, m)?)?;
    m.add("SM2_DEFAULT_UID", PyBytes::new(m.py(), sm2::DEFAULT_UID))?;
    m.add("SM2_MODES", PyTuple::new(m.py(), CiphertextMode::ALL.map(CiphertextMode::name))?)?;
    m.add("SM2_ENCODINGS", PyTuple::new(m.py(), SignatureEncoding::ALL.map(SignatureEncoding::name))?)?;
    m.add("SM2_DEFAULT_MAX_ITERATIONS", shangmi::encoding::DEFAULT_MAX_ITERATIONS)?;
    Ok(())
}
