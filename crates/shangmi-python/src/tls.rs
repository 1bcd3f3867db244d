//! Bindings of the channel engines (`shangmi::tls`): conversion and GIL
//! release only. The engine is sans-I/O; `python/shangmi/tls/` moves its
//! bytes to sockets and memory buffers.

use std::sync::Mutex;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyTuple};
use shangmi::tls::{
    self, Channel, ChannelSession, ClientChannelConfig, ClientSettings, Identity, ServerChannelConfig, ServerSettings,
    VerifyMode,
};
use shangmi::x509::Certificate;

use crate::buffer::{Arg, Bytes, Name, Uint};
use crate::errors::{invalid, IntoPyResult};
use crate::gil::lock;
use crate::sm2::Sm2PrivateKey;

fn protocol(name: &Name) -> PyResult<tls::Protocol> {
    tls::Protocol::from_name(&name.0).py_err()
}

fn certificates(ders: &[Vec<u8>]) -> PyResult<Vec<Certificate>> {
    ders.iter().map(|d| Certificate::from_der(d)).collect::<shangmi::Result<Vec<_>>>().py_err()
}

/// A chain and its key, converted (both or neither: a shape the binding
/// owns, since the two arrive as separate arguments).
fn identity(
    chain: Option<Arg<Vec<Vec<u8>>>>,
    key: Option<Arg<PyRef<'_, Sm2PrivateKey>>>,
) -> PyResult<Option<Identity>> {
    match (chain, key) {
        (None, None) => Ok(None),
        (Some(chain), Some(key)) => Identity::new(certificates(&chain.0)?, key.0.inner().clone()).py_err().map(Some),
        _ => Err(invalid("a certificate chain and its key go together")),
    }
}

/// A client configuration (immutable once built; shared by connections).
#[pyclass(name = "TlsClientConfig", module = "shangmi._native", frozen)]
pub(crate) struct TlsClientConfig {
    inner: ClientChannelConfig,
}

#[pymethods]
impl TlsClientConfig {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        protocol_name: Name,
        suite_names: Option<Arg<Vec<String>>>,
        sign_chain: Option<Arg<Vec<Vec<u8>>>>,
        sign_key: Option<Arg<PyRef<'_, Sm2PrivateKey>>>,
        enc_chain: Option<Arg<Vec<Vec<u8>>>>,
        enc_key: Option<Arg<PyRef<'_, Sm2PrivateKey>>>,
        roots: Arg<Vec<Vec<u8>>>,
        mode: Uint<u32>,
        check_hostname: Arg<bool>,
        compat_name: Name,
    ) -> PyResult<Self> {
        let settings = ClientSettings {
            protocol: protocol(&protocol_name)?,
            suites: suite_names.map(|n| n.0),
            roots: certificates(&roots.0)?,
            verify_mode: VerifyMode::from_index(mode.0).py_err()?,
            check_hostname: check_hostname.0,
            sign_identity: identity(sign_chain, sign_key)?,
            enc_identity: identity(enc_chain, enc_key)?,
            compat: compat_name.0,
        };
        Ok(TlsClientConfig { inner: ClientChannelConfig::new(settings).py_err()? })
    }
}

/// A server configuration, with the resumption state its connections share.
#[pyclass(name = "TlsServerConfig", module = "shangmi._native", frozen)]
pub(crate) struct TlsServerConfig {
    inner: ServerChannelConfig,
}

#[pymethods]
impl TlsServerConfig {
    #[new]
    #[allow(clippy::too_many_arguments)]
    fn new(
        protocol_name: Name,
        suite_names: Option<Arg<Vec<String>>>,
        sign_chain: Option<Arg<Vec<Vec<u8>>>>,
        sign_key: Option<Arg<PyRef<'_, Sm2PrivateKey>>>,
        enc_chain: Option<Arg<Vec<Vec<u8>>>>,
        enc_key: Option<Arg<PyRef<'_, Sm2PrivateKey>>>,
        roots: Arg<Vec<Vec<u8>>>,
        mode: Uint<u32>,
        session_cache_size: Uint<usize>,
    ) -> PyResult<Self> {
        let settings = ServerSettings {
            protocol: protocol(&protocol_name)?,
            suites: suite_names.map(|n| n.0),
            roots: certificates(&roots.0)?,
            verify_mode: VerifyMode::from_index(mode.0).py_err()?,
            sign_identity: identity(sign_chain, sign_key)?,
            enc_identity: identity(enc_chain, enc_key)?,
            resumption: session_cache_size.0,
        };
        Ok(TlsServerConfig { inner: ServerChannelConfig::new(settings).py_err()? })
    }
}

/// A resumable session (opaque to Python).
#[pyclass(name = "TlsSession", module = "shangmi._native", frozen)]
pub(crate) struct TlsSession {
    inner: ChannelSession,
}

/// One connection's sans-I/O engine. Calls that run handshake cryptography
/// or bulk record work release the GIL.
#[pyclass(name = "TlsConnection", module = "shangmi._native", frozen)]
pub(crate) struct TlsConnection {
    inner: Mutex<Channel>,
}

#[pymethods]
impl TlsConnection {
    #[staticmethod]
    fn client(
        py: Python<'_>,
        config: Arg<PyRef<'_, TlsClientConfig>>,
        server_name: Option<Arg<String>>,
        session: Option<Arg<PyRef<'_, TlsSession>>>,
    ) -> PyResult<Self> {
        let (cfg, name) = (&config.0.inner, server_name.map(|n| n.0));
        let sess = session.map(|s| s.0.inner.clone());
        let conn = py.detach(|| Channel::client(cfg, name.as_deref(), sess)).py_err()?;
        Ok(TlsConnection { inner: Mutex::new(conn) })
    }

    #[staticmethod]
    fn server(py: Python<'_>, config: Arg<PyRef<'_, TlsServerConfig>>) -> PyResult<Self> {
        let cfg = &config.0.inner;
        let conn = py.detach(|| Channel::server(cfg)).py_err()?;
        Ok(TlsConnection { inner: Mutex::new(conn) })
    }

    fn read_tls(&self, data: Bytes<'_>) -> PyResult<usize> {
        lock(&self.inner).read_tls(data.as_slice()).py_err()
    }

    fn process_new_packets(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| lock(&self.inner).process_new_packets()).py_err()
    }

    fn write_tls<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let mut out = Vec::new();
        lock(&self.inner).write_tls(&mut out);
        PyBytes::new(py, &out)
    }

    fn wants_write(&self) -> bool {
        lock(&self.inner).wants_write()
    }

    fn wants_read(&self) -> bool {
        lock(&self.inner).wants_read()
    }

    fn is_handshaking(&self) -> bool {
        lock(&self.inner).is_handshaking()
    }

    fn write_plaintext(&self, py: Python<'_>, data: Bytes<'_>) -> PyResult<usize> {
        let d = data.as_slice();
        py.detach(|| lock(&self.inner).write_plaintext(d)).py_err()
    }

    fn read_plaintext<'py>(&self, py: Python<'py>, max: Uint<usize>) -> PyResult<Bound<'py, PyBytes>> {
        let mut conn = lock(&self.inner);
        let n = conn.plaintext_available().min(max.0);
        if n == 0 {
            // Ok(0) or the connection's error.
            conn.read_plaintext(&mut []).py_err()?;
            return Ok(PyBytes::new(py, b""));
        }
        // Straight into the bytes object: `n` bytes are waiting (an engine
        // that hands over fewer gets a shorter copy).
        let mut got = 0;
        let bytes = PyBytes::new_with(py, n, |out| {
            got = conn.read_plaintext(out).py_err()?;
            Ok(())
        })?;
        if got == n {
            return Ok(bytes);
        }
        Ok(PyBytes::new(py, &bytes.as_bytes()[..got]))
    }

    fn plaintext_available(&self) -> usize {
        lock(&self.inner).plaintext_available()
    }

    fn send_close_notify(&self) {
        lock(&self.inner).send_close_notify()
    }

    fn peer_closed(&self) -> bool {
        lock(&self.inner).peer_closed()
    }

    fn protocol_version(&self) -> Option<&'static str> {
        lock(&self.inner).protocol_version()
    }

    fn cipher_suite(&self) -> Option<&'static str> {
        lock(&self.inner).cipher_suite_name()
    }

    fn peer_certificates<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let conn = lock(&self.inner);
        PyList::new(py, conn.peer_certificates().iter().map(|c| PyBytes::new(py, c.to_der())))
    }

    fn session(&self) -> Option<TlsSession> {
        lock(&self.inner).session().map(|inner| TlsSession { inner })
    }

    fn session_resumed(&self) -> bool {
        lock(&self.inner).session_resumed()
    }

    fn server_name(&self) -> Option<String> {
        lock(&self.inner).server_name().map(str::to_owned)
    }
}

/// (standard name, OpenSSL/Tongsuo name, code) of each suite of `protocol`,
/// in the default preference order.
#[pyfunction]
fn tls_cipher_suites<'py>(py: Python<'py>, protocol_name: Name) -> PyResult<Bound<'py, PyList>> {
    let rows: PyResult<Vec<Bound<'py, PyTuple>>> =
        tls::channel::cipher_suites(protocol(&protocol_name)?).into_iter().map(|r| r.into_pyobject(py)).collect();
    PyList::new(py, rows?)
}

/// The standard names of `names` (any accepted spelling), in order.
#[pyfunction]
fn tls_parse_cipher_suites(protocol_name: Name, names: Arg<Vec<String>>) -> PyResult<Vec<&'static str>> {
    tls::channel::parse_cipher_suites(protocol(&protocol_name)?, &names.0).py_err()
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<TlsClientConfig>()?;
    m.add_class::<TlsServerConfig>()?;
    m.add_class::<TlsSession>()?;
    m.add_class::<TlsConnection>()?;
    m.add_function(wrap_pyfunction!(tls_cipher_suites, m)?)?;
    m.add_function(wrap_pyfunction!(tls_parse_cipher_suites, m)?)?;
    m.add("TLS_PROTOCOLS", tls::Protocol::NAMES.to_vec())?;
    Ok(())
}
