"""shangmi.tls: TLCP channels between shangmi's own client and server over
real sockets, asyncio streams and HTTP clients. (Interop with Tongsuo and
GmSSL lives in test_tls_interop.py; the protocol's refusals at the byte
level are tested in the Rust engine's own tests.)"""

from __future__ import annotations

import asyncio
import datetime as dt
import os
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable

import pytest

from shangmi import ShangmiError, sm2, tls, x509
from shangmi.exceptions import InvalidInputError
from tests._pki import DAY, NOW, issue, ku, name

SUITES = ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"]


def _leaf(cn: str, ca_name: Any, ca_key: sm2.PrivateKey, usage: Any, *, sans: tuple[str, ...] = ("localhost",),
          before: dt.datetime | None = None, after: dt.datetime | None = None) -> tuple[x509.Certificate, sm2.PrivateKey]:
    key = sm2.PrivateKey.generate()
    b = (
        x509.CertificateBuilder()
        .subject_name(name(cn))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(before or NOW - DAY)
        .not_valid_after(after or NOW + 30 * DAY)
        .add_extension(usage, critical=True)
    )
    if sans:
        b = b.add_extension(x509.SubjectAlternativeName([x509.DNSName(s) for s in sans]), critical=False)
    return b.sign(ca_key), key


class TlcpPki:
    """A root CA, a server's signing and encryption pairs and a client's."""

    def __init__(self, directory: Path) -> None:
        self.dir = directory
        self.root_key = sm2.PrivateKey.generate()
        self.root_name = name("TLCP Test Root", o="shangmi tests", country="CN")
        self.root = issue(self.root_name, self.root_key.public_key(), self.root_name, self.root_key, ca=True,
                          key_usage=ku(key_cert_sign=True, crl_sign=True))
        sign_ku = ku(digital_signature=True)
        enc_ku = ku(key_encipherment=True, data_encipherment=True, key_agreement=True)
        self.write("root.pem", self.root.to_pem())
        for who in ("server", "client"):
            for role, usage in (("sign", sign_ku), ("enc", enc_ku)):
                cert, key = _leaf(f"{who} {role}", self.root_name, self.root_key, usage)
                self.write(f"{who}_{role}.pem", cert.to_pem())
                self.write(f"{who}_{role}.key", key.to_pem())

    def write(self, file: str, data: bytes) -> Path:
        path = self.dir / file
        path.write_bytes(data)
        return path

    def path(self, file: str) -> str:
        return str(self.dir / file)

    def server_context(self, **kw: Any) -> tls.TLSContext:
        ctx = tls.TLSContext("tlcp", server_side=True)
        ctx.load_cert_chain(kw.pop("sign", self.path("server_sign.pem")), kw.pop("sign_key", self.path("server_sign.key")))
        ctx.load_enc_cert_chain(kw.pop("enc", self.path("server_enc.pem")), kw.pop("enc_key", self.path("server_enc.key")))
        ctx.load_verify_locations(self.path("root.pem"))
        for k, v in kw.items():
            setattr(ctx, k, v)
        return ctx

    def client_context(self, *, with_certs: bool = False) -> tls.TLSContext:
        ctx = tls.TLSContext("tlcp")
        ctx.load_verify_locations(self.path("root.pem"))
        if with_certs:
            ctx.load_cert_chain(self.path("client_sign.pem"), self.path("client_sign.key"))
            ctx.load_enc_cert_chain(self.path("client_enc.pem"), self.path("client_enc.key"))
        return ctx


@pytest.fixture(scope="module")
def pki(tmp_path_factory: pytest.TempPathFactory) -> TlcpPki:
    return TlcpPki(tmp_path_factory.mktemp("tlcp"))


def _serve(server_ctx: tls.TLSContext, handler: Callable[[tls.TLSSocket], None]) -> tuple[socket.socket, list[BaseException], threading.Thread]:
    """A listening socket whose one connection runs ``handler`` in a thread;
    the thread's exceptions end up in the returned list."""
    listener = socket.create_server(("127.0.0.1", 0))
    errors: list[BaseException] = []

    def run() -> None:
        try:
            raw, _ = listener.accept()
            raw.settimeout(10)
            with server_ctx.wrap_socket(raw, server_side=True) as s:
                handler(s)
        except BaseException as e:  # noqa: BLE001 - reported to the test
            errors.append(e)
        finally:
            listener.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return listener, errors, t


def _echo(s: tls.TLSSocket) -> None:
    while True:
        data = s.recv(65536)
        if not data:
            return
        s.sendall(data)


def _connect(listener: socket.socket, ctx: tls.TLSContext, server_hostname: str | None = "localhost", **kw: Any) -> tls.TLSSocket:
    raw = socket.create_connection(listener.getsockname(), timeout=10)
    return ctx.wrap_socket(raw, server_hostname=server_hostname, **kw)


@pytest.mark.parametrize("suite", SUITES)
def test_every_suite_both_ways(pki: TlcpPki, suite: str) -> None:
    server = pki.server_context()
    client = pki.client_context(with_certs=suite.startswith("ECDHE"))
    client.set_ciphers(suite)
    listener, errors, t = _serve(server, _echo)
    with _connect(listener, client) as s:
        assert s.version() == "TLCP"
        assert s.cipher() == (suite, "TLCP", 128)
        for size in (0, 1, 100, 16384, 16385, 100_000):
            payload = os.urandom(size)
            s.sendall(payload)
            got = b""
            while len(got) < size:
                got += s.recv(65536)
            assert got == payload
        peer = s.getpeercert()
        assert ("DNS", "localhost") in peer["subjectAltName"]
        assert peer["subject"] == ((("commonName", "server sign"),),)
        certs = s.get_peer_certificates()
        assert [c.subject.rfc4514_string() for c in certs[:2]] == ["CN=server sign", "CN=server enc"]
        assert s.getpeercert(binary_form=True) == certs[0].to_der()
    t.join(10)
    assert not errors, errors


def test_cipher_names_in_every_spelling(pki: TlcpPki) -> None:
    ctx = pki.client_context()
    ctx.set_ciphers("ECC-SM2-SM4-GCM-SM3:TLS_ECC_SM4_CBC_SM3")
    assert [c["name"] for c in ctx.get_ciphers()] == ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3"]
    assert set(tls.cipher_names()) == set(SUITES)
    with pytest.raises(InvalidInputError, match="RC4"):
        ctx.set_ciphers("ECC_SM4_GCM_SM3:RC4-MD5")


def test_untrusted_server_is_refused(pki: TlcpPki, tmp_path: Path) -> None:
    other = sm2.PrivateKey.generate()
    other_name = name("Another Root")
    other_root = issue(other_name, other.public_key(), other_name, other, ca=True, key_usage=ku(key_cert_sign=True))
    ctx = tls.TLSContext("tlcp")
    ctx.load_verify_locations(cadata=other_root.to_pem().decode())
    listener, errors, t = _serve(pki.server_context(), _echo)
    with pytest.raises(tls.CertificateVerifyError) as e:
        _connect(listener, ctx)
    assert isinstance(e.value, ssl.SSLCertVerificationError) and isinstance(e.value, ShangmiError)
    t.join(10)
    assert errors and isinstance(errors[0], tls.TLSError)  # the server saw our alert


def test_host_name_mismatch(pki: TlcpPki) -> None:
    listener, errors, t = _serve(pki.server_context(), _echo)
    with pytest.raises(tls.CertificateVerifyError, match="(?i)host ?name"):
        _connect(listener, pki.client_context(), server_hostname="bank.example")
    t.join(10)


def test_no_verification_when_asked(pki: TlcpPki) -> None:
    ctx = tls.TLSContext("tlcp")
    ctx.check_hostname = False
    ctx.verify_mode = tls.CERT_NONE
    listener, errors, t = _serve(pki.server_context(), _echo)
    with _connect(listener, ctx, server_hostname=None) as s:
        s.sendall(b"ping")
        assert s.recv(10) == b"ping"
        assert s.getpeercert() == {}
    t.join(10)
    assert not errors


def test_client_certificate_required(pki: TlcpPki) -> None:
    server = pki.server_context(verify_mode=tls.CERT_REQUIRED)
    client = pki.client_context()
    client.set_ciphers("ECC_SM4_GCM_SM3")
    listener, errors, t = _serve(server, _echo)
    with pytest.raises(tls.TLSError):
        with _connect(listener, client) as s:
            s.recv(1)
    t.join(10)
    assert errors and isinstance(errors[0], tls.TLSError)

    listener, errors, t = _serve(server, lambda s: s.sendall(repr(s.getpeercert()["subject"]).encode()))
    client = pki.client_context(with_certs=True)
    with _connect(listener, client) as s:
        assert b"client sign" in s.recv(1000)
    t.join(10)
    assert not errors, errors


def test_session_resumption(pki: TlcpPki) -> None:
    server = pki.server_context()
    client = pki.client_context()
    client.set_ciphers("ECC_SM4_GCM_SM3")
    listener, errors, t = _serve(server, _echo)
    with _connect(listener, client) as s:
        s.sendall(b"one")
        assert s.recv(3) == b"one"
        assert not s.session_reused
        session = s.session
    t.join(10)
    listener, errors, t = _serve(server, _echo)
    with _connect(listener, client, session=session) as s:
        s.sendall(b"two")
        assert s.recv(3) == b"two"
        assert s.session_reused
    t.join(10)
    assert not errors, errors


def test_non_blocking_reads_raise_want_read(pki: TlcpPki) -> None:
    got_data = threading.Event()
    listener, errors, t = _serve(pki.server_context(), lambda s: (got_data.wait(10), s.sendall(b"late")))
    with _connect(listener, pki.client_context()) as s:
        s.setblocking(False)
        with pytest.raises(tls.TLSWantReadError) as e:
            s.recv(10)
        assert isinstance(e.value, ssl.SSLWantReadError)
        got_data.set()
        s.settimeout(10)
        assert s.recv(10) == b"late"
    t.join(10)


def test_timeout_is_honoured(pki: TlcpPki) -> None:
    listener, errors, t = _serve(pki.server_context(), lambda s: s.recv(1))
    with _connect(listener, pki.client_context()) as s:
        s.settimeout(0.2)
        with pytest.raises(socket.timeout):
            s.recv(10)
    t.join(10)


def test_makefile_and_unwrap(pki: TlcpPki) -> None:
    def handler(s: tls.TLSSocket) -> None:
        f = s.makefile("rwb")
        line = f.readline()
        f.write(line.upper())
        f.flush()
        f.close()
        s.unwrap().close()

    listener, errors, t = _serve(pki.server_context(), handler)
    with _connect(listener, pki.client_context()) as s:
        s.sendall(b"hello over tlcp\n")
        assert s.makefile("rb").readline() == b"HELLO OVER TLCP\n"
        assert s.recv(10) == b""  # close_notify
    t.join(10)
    assert not errors, errors


def test_asyncio_streams(pki: TlcpPki) -> None:
    async def main() -> bytes:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            data = await reader.readline()
            cipher = writer.get_extra_info("cipher")
            writer.write(data.upper() + cipher[0].encode())
            await writer.drain()
            writer.close()

        server = await tls.start_server(handle, "127.0.0.1", 0, context=pki.server_context())
        port = server.sockets[0].getsockname()[1]
        async with server:
            reader, writer = await tls.open_connection("127.0.0.1", port, context=pki.client_context(),
                                                       server_hostname="localhost")
            writer.write(b"async tlcp\n")
            await writer.drain()
            data = await reader.read()
            writer.close()
            return data

    # A client without certificates cannot do ECDHE (it needs the client's
    # encryption key), so the first ECC suite is chosen.
    assert asyncio.run(main()) == b"ASYNC TLCP\nECC_SM4_GCM_SM3"


def _http_server(pki: TlcpPki, requests_served: int) -> tuple[socket.socket, threading.Thread]:
    listener = socket.create_server(("127.0.0.1", 0))
    ctx = pki.server_context()

    def run() -> None:
        with listener:
            for _ in range(requests_served):
                raw, _ = listener.accept()
                raw.settimeout(10)
                try:
                    with ctx.wrap_socket(raw, server_side=True) as s:
                        req = b""
                        while b"\r\n\r\n" not in req:
                            chunk = s.recv(4096)
                            if not chunk:
                                break
                            req += chunk
                        body = b"tlcp says hi: " + req.split(b" ")[1]
                        s.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body))
                except (tls.TLSError, OSError):
                    pass

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return listener, t


def test_requests_adapter(pki: TlcpPki) -> None:
    requests = pytest.importorskip("requests")
    listener, t = _http_server(pki, 1)
    port = listener.getsockname()[1]
    session = requests.Session()
    session.mount("https://", tls.RequestsAdapter(pki.client_context()))
    r = session.get(f"https://localhost:{port}/hello", timeout=10)
    assert r.status_code == 200 and r.text == "tlcp says hi: /hello"
    t.join(10)


def test_httpx_transport(pki: TlcpPki) -> None:
    httpx = pytest.importorskip("httpx")
    listener, t = _http_server(pki, 2)
    port = listener.getsockname()[1]
    with httpx.Client(transport=tls.httpx_transport(pki.client_context())) as client:
        r = client.get(f"https://localhost:{port}/sync")
        assert r.text == "tlcp says hi: /sync"

    async def main() -> str:
        async with httpx.AsyncClient(transport=tls.httpx_async_transport(pki.client_context())) as client:
            r = await client.get(f"https://localhost:{port}/async")
            return r.text

    assert asyncio.run(main()) == "tlcp says hi: /async"
    t.join(10)


def test_errors_are_ssl_shaped() -> None:
    assert issubclass(tls.TLSError, ssl.SSLError) and issubclass(tls.TLSError, ShangmiError)
    assert issubclass(tls.CertificateVerifyError, ssl.SSLCertVerificationError)
    assert str(tls.TLSError("bad record MAC")) == "bad record MAC"
    with pytest.raises(InvalidInputError, match="protocol"):
        tls.TLSContext("sslv3")
    ctx = tls.TLSContext("tlcp")
    assert ctx.verify_mode == tls.CERT_REQUIRED and ctx.check_hostname
    with pytest.raises(InvalidInputError, match="check_hostname"):
        ctx.verify_mode = tls.CERT_NONE
    with pytest.raises(InvalidInputError, match="server_hostname"):
        ctx.wrap_socket(socket.socket())
    assert tls.TLSContext("tlcp", server_side=True).verify_mode == tls.CERT_NONE


def test_server_needs_both_certificates(pki: TlcpPki) -> None:
    ctx = tls.TLSContext("tlcp", server_side=True)
    ctx.load_cert_chain(pki.path("server_sign.pem"), pki.path("server_sign.key"))
    a, b = socket.socketpair()
    with a, b, pytest.raises(InvalidInputError, match="encryption"):
        ctx.wrap_socket(a, server_side=True)


def test_cli_client_and_server(pki: TlcpPki) -> None:
    port_holder = socket.create_server(("127.0.0.1", 0))
    port = port_holder.getsockname()[1]
    port_holder.close()
    server = subprocess.Popen(
        [sys.executable, "-m", "shangmi", "tls", "server", "--port", str(port), "--cert", pki.path("server_sign.pem"),
         "--key", pki.path("server_sign.key"), "--enc-cert", pki.path("server_enc.pem"), "--enc-key",
         pki.path("server_enc.key"), "--www", "--count", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        assert server.stdout is not None
        assert b"listening" in server.stdout.readline()
        out = subprocess.run(
            [sys.executable, "-m", "shangmi", "tls", "client", f"127.0.0.1:{port}", "--CAfile", pki.path("root.pem"),
             "--servername", "localhost", "--cipher", "ECC-SM2-SM4-CBC-SM3", "--get", "/index.html"],
            capture_output=True, timeout=60, check=True,
        ).stdout.decode()
        assert "Protocol: TLCP" in out and "Cipher: ECC_SM4_CBC_SM3" in out and "Verification: OK" in out
        assert "CN=server sign" in out and "request: GET /index.html HTTP/1.1" in out
        server.wait(30)
    finally:
        server.kill()


# -- TLS 1.3 with the RFC 8998 suites (the same Python surface) -------------

VECTORS = Path(__file__).parent / "vectors" / "tlcp"


def _tls13_contexts(tmp_path: Path) -> tuple[tls.TLSContext, tls.TLSContext]:
    chained = tmp_path / "server-with-chain.pem"
    chained.write_bytes((VECTORS / "server-sign.pem").read_bytes() + (VECTORS / "chain.pem").read_bytes())
    server = tls.TLSContext("tls1.3", server_side=True)
    server.load_cert_chain(chained, VECTORS / "server-sign.key.pem")
    client = tls.TLSContext("tls1.3")
    client.load_verify_locations(VECTORS / "root-ca.pem")
    return server, client


@pytest.mark.parametrize("suite", ["TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"])
def test_tls13_both_suites_and_resumption(tmp_path: Path, suite: str) -> None:
    server, client = _tls13_contexts(tmp_path)
    client.set_ciphers(suite)
    assert [c["protocol"] for c in client.get_ciphers()] == ["TLSv1.3"]
    session = None
    for attempt in range(2):
        listener, errors, t = _serve(server, _echo)
        with _connect(listener, client, session=session) as s:
            payload = os.urandom(40_000)
            s.sendall(payload)
            got = b""
            while len(got) < len(payload):
                got += s.recv(65536)
            assert got == payload
            assert s.version() == "TLSv1.3" and s.cipher() == (suite, "TLSv1.3", 128)
            assert s.session_reused == (attempt == 1)
            assert ("DNS", "localhost") in s.getpeercert()["subjectAltName"]
            session = s.session
        t.join(10)
        assert not errors, errors


def test_tls13_refusals(tmp_path: Path) -> None:
    server, client = _tls13_contexts(tmp_path)
    with pytest.raises(InvalidInputError, match="encryption certificate"):
        server.load_enc_cert_chain(VECTORS / "server-enc.pem", VECTORS / "server-enc.key.pem")
        a, b = socket.socketpair()
        with a, b:
            server.wrap_socket(a, server_side=True)
    listener, errors, t = _serve(_tls13_contexts(tmp_path)[0], _echo)
    with pytest.raises(tls.CertificateVerifyError, match="(?i)host ?name|not valid for"):
        _connect(listener, client, server_hostname="bank.example")
    t.join(10)
    with pytest.raises(InvalidInputError, match="ECC_SM4"):
        client.set_ciphers("ECC_SM4_GCM_SM3")
