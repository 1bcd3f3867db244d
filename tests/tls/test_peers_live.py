"""The peers built from source, against each other and against the Tongsuo ctypes peer.

Run when ``$SHANGMI_GMSSL`` / ``$SHANGMI_TONGSUO`` name the binaries
(scripts/peers.sh), skipped otherwise.  These pin the combinations that work
between the peers themselves, so a failure of shangmi against a peer later can
be told apart from a broken peer or PKI; scripts/tls_interop_matrix.py prints
the whole matrix, failures included.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

import peer_cli as pc

ECC = ["ECC-SM2-SM4-CBC-SM3", "ECC-SM2-SM4-GCM-SM3"]
ALL = ECC + ["ECDHE-SM2-SM4-CBC-SM3", "ECDHE-SM2-SM4-GCM-SM3"]
REQUEST = b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n"


@pytest.mark.parametrize("suite", ALL)
def test_gmssl_to_gmssl_with_client_certs(gmssl_bin: str, tlcp_pki: Path, suite: str) -> None:
    """GmSSL accepts the test PKI for both roles (its own rules are the strictest)."""
    port = pc.free_port()
    with pc.PeerProcess(pc.gmssl_server_cmd(gmssl_bin, tlcp_pki, suite, port, True), port):
        rc, out, err = pc.run_client(pc.gmssl_client_cmd(gmssl_bin, tlcp_pki, suite, port, True))
    assert rc == 0 and "HTTP/1.0 200 OK" in out, err[-500:]


@pytest.mark.parametrize("suite", ALL)
def test_tongsuo_cli_to_tongsuo_cli_with_client_certs(tongsuo_bin: str, tlcp_pki: Path, suite: str) -> None:
    port = pc.free_port()
    cmd = pc.tongsuo_server_cmd(tongsuo_bin, tlcp_pki, suite, port, True, ca="ca-bundle.pem")
    with pc.PeerProcess(cmd, port):
        rc, out, err = pc.run_client(pc.tongsuo_client_cmd(tongsuo_bin, tlcp_pki, suite, port, True), REQUEST)
    assert "HTTP/1.0 200 ok" in out and f"Cipher is {suite}" in out, err[-500:]


@pytest.mark.parametrize("suite", ECC)
def test_gmssl_client_to_tongsuo_server(gmssl_bin: str, tongsuo_server: Callable[..., Any], tlcp_pki: Path,
                                        suite: str) -> None:
    srv = tongsuo_server(tlcp_pki, suite)
    rc, out, err = pc.run_client(pc.gmssl_client_cmd(gmssl_bin, tlcp_pki, suite, srv.port, False))
    assert rc == 0 and out.startswith("HTTP/1.0 200 OK"), err[-500:]
    (rec,) = srv.wait_for(1)
    assert rec.ok and rec.cipher == suite and rec.server_name == "localhost"
    assert rec.received.startswith(b"GET / HTTP/1.1\r\n")


@pytest.mark.parametrize("suite", ECC)
def test_tongsuo_client_to_gmssl_server(gmssl_bin: str, tongsuo: ModuleType, tlcp_pki: Path, suite: str) -> None:
    port = pc.free_port()
    with pc.PeerProcess(pc.gmssl_server_cmd(gmssl_bin, tlcp_pki, suite, port, False), port):
        # tickets=False: GmSSL's server drops a ClientHello with session_ticket without an alert.
        r = tongsuo.tongsuo_client("127.0.0.1", port, suite, tlcp_pki / "root-ca.pem", send=REQUEST,
                                   server_name="localhost", check_hostname="localhost", tickets=False, timeout=5)
    assert r.cipher == suite and r.verified and r.data.startswith(b"HTTP/1.0 200 OK")


def test_gmssl_server_drops_session_ticket_hello(gmssl_bin: str, tongsuo: ModuleType, tlcp_pki: Path) -> None:
    """Tongsuo's default ClientHello (with session_ticket) gets no answer from GmSSL's server."""
    port = pc.free_port()
    suite = "ECC-SM2-SM4-GCM-SM3"
    with pc.PeerProcess(pc.gmssl_server_cmd(gmssl_bin, tlcp_pki, suite, port, False), port):
        r = tongsuo.tongsuo_client("127.0.0.1", port, suite, tlcp_pki / "root-ca.pem", send=REQUEST,
                                   tickets=True, timeout=2, check=False)
    assert not r.ok and r.cipher is None


@pytest.mark.parametrize("suite", ALL)
@pytest.mark.parametrize("client_cert", [False, True])
def test_tongsuo_ctypes_and_cli(tongsuo_bin: str, tongsuo: ModuleType, tongsuo_server: Callable[..., Any],
                                tlcp_pki: Path, suite: str, client_cert: bool) -> None:
    """Tongsuo 8.3 (tongsuopy) and Tongsuo 8.5 (built) talk both ways, ECDHE with client certificates."""
    certs = client_cert or suite.startswith("ECDHE")
    srv = tongsuo_server(tlcp_pki, suite, client_auth=client_cert, ca=tlcp_pki / "ca-bundle.pem")
    rc, out, err = pc.run_client(pc.tongsuo_client_cmd(tongsuo_bin, tlcp_pki, suite, srv.port, certs), REQUEST)
    assert out.count("HTTP/1.0 200 OK") == 1, err[-500:]
    port = pc.free_port()
    with pc.PeerProcess(pc.tongsuo_server_cmd(tongsuo_bin, tlcp_pki, suite, port, client_cert), port):
        r = tongsuo.tongsuo_client("127.0.0.1", port, suite, tlcp_pki / "root-ca.pem",
                                   tongsuo.CertSet.from_dir(tlcp_pki, "client") if certs else None,
                                   send=REQUEST, server_name="localhost", check_hostname="localhost", timeout=5)
    assert r.cipher == suite and r.data.startswith(b"HTTP/1.0 200 ok")


@pytest.mark.parametrize("suite", ["ECC-SM2-SM4-GCM-SM3", "ECDHE-SM2-SM4-GCM-SM3"])
def test_gmssl_wire_signature_forms(gmssl_bin: str, tlcp_pki: Path, suite: str) -> None:
    """GmSSL signs ServerKeyExchange like Tongsuo, but its CertificateVerify signs the
    handshake messages themselves, where Tongsuo signs SM3 of them: a server that wants
    both as clients has to accept both forms."""
    import shutil

    import tlcp_wire

    if shutil.which("openssl") is None:
        pytest.skip("needs an openssl command (3.x) as the independent SM2 verifier")
    port = pc.free_port()
    with pc.PeerProcess(pc.gmssl_server_cmd(gmssl_bin, tlcp_pki, suite, port, True), port), \
            tlcp_wire.RecordingProxy(port) as proxy:
        rc, _, err = pc.run_client(pc.gmssl_client_cmd(gmssl_bin, tlcp_pki, suite, proxy.port, True))
    assert rc == 0, err[-300:]
    assert tlcp_wire.check_signatures(proxy.captures[0]) == {
        "ServerKeyExchange": "verifies with ID 1234567812345678",
        "CertificateVerify": "signs the handshake messages with ID 1234567812345678",
    }


@pytest.mark.parametrize("suite", ["ECC-SM2-SM4-GCM-SM3", "ECDHE-SM2-SM4-GCM-SM3"])
def test_tongsuo_cli_wire_signature_forms(tongsuo_bin: str, tlcp_pki: Path, suite: str) -> None:
    import shutil

    import tlcp_wire

    if shutil.which("openssl") is None:
        pytest.skip("needs an openssl command (3.x) as the independent SM2 verifier")
    port = pc.free_port()
    cmd = pc.tongsuo_server_cmd(tongsuo_bin, tlcp_pki, suite, port, True, ca="ca-bundle.pem")
    with pc.PeerProcess(cmd, port), tlcp_wire.RecordingProxy(port) as proxy:
        pc.run_client(pc.tongsuo_client_cmd(tongsuo_bin, tlcp_pki, suite, proxy.port, True), REQUEST)
    assert tlcp_wire.check_signatures(proxy.captures[0]) == {
        "ServerKeyExchange": "verifies with ID 1234567812345678",
        "CertificateVerify": "signs SM3(handshake messages) with ID 1234567812345678",
    }
