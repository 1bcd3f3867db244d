"""The Tongsuo TLCP test peer against itself, and the test PKI against Tongsuo.

These tests need no part of shangmi: they prove the peer and the certificates
that shangmi's TLCP tests rely on (a failure here is a broken fixture, not a
shangmi bug).
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

SUITES = ["ECC-SM2-SM4-CBC-SM3", "ECC-SM2-SM4-GCM-SM3", "ECDHE-SM2-SM4-CBC-SM3", "ECDHE-SM2-SM4-GCM-SM3"]


@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("client_auth", [False, True])
def test_tongsuo_to_tongsuo(
    tongsuo: ModuleType, tongsuo_server: Callable[..., Any], tlcp_pki: Path, suite: str, client_auth: bool
) -> None:
    srv = tongsuo_server(tlcp_pki, suite, client_auth=client_auth)
    ecdhe = suite.startswith("ECDHE")
    # ECDHE needs the client's encryption key (SM2 key exchange) in every implementation.
    certs = tongsuo.CertSet.from_dir(tlcp_pki, "client") if (client_auth or ecdhe) else None
    r = tongsuo.tongsuo_client(
        "127.0.0.1", srv.port, suite, tlcp_pki / "root-ca.pem", certs, send=b"ping\n" * 1000,
        server_name="localhost", check_hostname="localhost",
    )
    assert r.ok and r.data == b"ping\n" * 1000
    assert r.cipher == suite and r.version == "NTLSv1.1" and r.verified
    # sign cert, enc cert, intermediate, as the Certificate message carries them
    assert len(r.peer_certs) == 3
    (rec,) = srv.wait_for(1)
    assert rec.ok and rec.cipher == suite and rec.server_name == "localhost"
    assert (rec.peer_subject is not None) == (client_auth or ecdhe)


def test_http_response(tongsuo: ModuleType, tongsuo_server: Callable[..., Any], tlcp_pki: Path) -> None:
    srv = tongsuo_server(tlcp_pki, "ECC-SM2-SM4-GCM-SM3", http_body=b"tlcp ok\n")
    r = tongsuo.tongsuo_client("127.0.0.1", srv.port, "ECC_SM4_GCM_SM3", tlcp_pki / "root-ca.pem",
                               send=b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
    assert r.data.startswith(b"HTTP/1.0 200 OK\r\n") and r.data.endswith(b"\r\n\r\ntlcp ok\n")


@pytest.mark.parametrize("suite", SUITES)
def test_session_resumption(tongsuo: ModuleType, tongsuo_server: Callable[..., Any], tlcp_pki: Path,
                            suite: str) -> None:
    srv = tongsuo_server(tlcp_pki, suite)
    certs = tongsuo.CertSet.from_dir(tlcp_pki, "client")
    first = tongsuo.tongsuo_client("127.0.0.1", srv.port, suite, tlcp_pki / "root-ca.pem", certs, tickets=False)
    again = tongsuo.tongsuo_client("127.0.0.1", srv.port, suite, tlcp_pki / "root-ca.pem", certs,
                                   session=first.session, tickets=False)
    assert not first.session_reused and again.session_reused
    assert [r.session_reused for r in srv.wait_for(2)] == [False, True]


@pytest.mark.parametrize(
    ("sign", "enc", "expect"),
    [
        ("server-sign-expired", "server-enc", "certificate has expired"),
        ("server-sign-untrusted", "server-enc-untrusted", "unable to get local issuer certificate"),
        ("server-sign-wrong-host", "server-enc-wrong-host", "Hostname mismatch"),
        # The encryption certificate's chain is verified too.
        ("server-sign", "server-enc-other-ca", "unable to get local issuer certificate"),
    ],
)
def test_refusal_material(tongsuo: ModuleType, tongsuo_server: Callable[..., Any], tlcp_pki: Path,
                          sign: str, enc: str, expect: str) -> None:
    """Tongsuo itself refuses the bad server certificates for the reason each is named after."""
    certs = tongsuo.CertSet(tlcp_pki / f"{sign}.pem", tlcp_pki / f"{sign}.key.pem", tlcp_pki / f"{enc}.pem",
                            tlcp_pki / f"{enc}.key.pem", (tlcp_pki / "chain.pem",))
    srv = tongsuo_server(None, "ECC-SM2-SM4-GCM-SM3", certs=certs)
    r = tongsuo.tongsuo_client("127.0.0.1", srv.port, "ECC-SM2-SM4-GCM-SM3", tlcp_pki / "root-ca.pem",
                               check_hostname="localhost", check=False, timeout=5)
    assert not r.ok and r.verify_error == expect


def test_wrong_key_usage_not_loadable(tongsuo: ModuleType, tlcp_pki: Path) -> None:
    """Tongsuo will not even load a signing certificate without digitalSignature, so that
    refusal case has to be served by another peer (GmSSL, or shangmi's own server)."""
    certs = tongsuo.CertSet(tlcp_pki / "server-sign-wrong-ku.pem", tlcp_pki / "server-sign-wrong-ku.key.pem",
                            tlcp_pki / "server-enc.pem", tlcp_pki / "server-enc.key.pem")
    with pytest.raises(tongsuo.TongsuoError, match="sign cert"):
        tongsuo.TongsuoServer(None, "ECC-SM2-SM4-GCM-SM3", certs=certs)


def test_no_hang_on_silent_peer(tongsuo: ModuleType) -> None:
    """A server that accepts and never answers: the client fails within its timeout."""
    import socket
    import time

    with socket.socket() as lst:
        lst.bind(("127.0.0.1", 0))
        lst.listen(1)
        t0 = time.monotonic()
        r = tongsuo.tongsuo_client("127.0.0.1", lst.getsockname()[1], "ECC-SM2-SM4-GCM-SM3", None,
                                   verify=False, timeout=0.5, check=False)
    assert not r.ok and "timed out" in (r.error or "")
    assert time.monotonic() - t0 < 5


@pytest.mark.parametrize("suite", ["ECC-SM2-SM4-GCM-SM3", "ECDHE-SM2-SM4-CBC-SM3"])
def test_wire_signature_forms(tongsuo: ModuleType, tongsuo_server: Callable[..., Any], tlcp_pki: Path,
                              suite: str) -> None:
    """What Tongsuo signs, checked on the wire with OpenSSL's SM2 verifier: the
    ServerKeyExchange and the CertificateVerify (over SM3 of the handshake messages)
    both use the SM2 ID 1234567812345678."""
    import shutil

    import tlcp_wire

    if shutil.which("openssl") is None:
        pytest.skip("needs an openssl command (3.x) as the independent SM2 verifier")
    srv = tongsuo_server(tlcp_pki, suite, client_auth=True)
    with tlcp_wire.RecordingProxy(srv.port) as proxy:
        tongsuo.tongsuo_client("127.0.0.1", proxy.port, suite, tlcp_pki / "root-ca.pem",
                               tongsuo.CertSet.from_dir(tlcp_pki, "client"))
    found = tlcp_wire.check_signatures(proxy.captures[0])
    assert found == {
        "ServerKeyExchange": "verifies with ID 1234567812345678",
        "CertificateVerify": "signs SM3(handshake messages) with ID 1234567812345678",
    }
