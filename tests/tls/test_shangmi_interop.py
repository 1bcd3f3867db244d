"""shangmi's TLCP client and server against real peers.

Tongsuo's NTLS (PyPI's tongsuopy library over ctypes) runs everywhere,
CI included; GmSSL 3's and Tongsuo's command line tools run when
``$SHANGMI_GMSSL`` / ``$SHANGMI_TONGSUO`` name them (scripts/peers.sh).
The PKI is tests/vectors/tlcp, made by Tongsuo, not by shangmi.
"""

from __future__ import annotations

import socket
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import pytest

import peer_cli as pc
from shangmi import tls
from shangmi.exceptions import InvalidInputError

SUITES = ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"]
ECC = SUITES[:2]
PASSWORD = "shangmi-test"


def openssl_name(suite: str) -> str:
    return suite.replace("_SM4", "-SM2-SM4").replace("_", "-")


def client_ctx(pki: Path, suite: str, *, certs: bool | None = None, sign_only: bool = False,
               compat: str | None = None) -> tls.TLSContext:
    ctx = tls.TLSContext("tlcp")
    ctx.load_verify_locations(pki / "root-ca.pem")
    ctx.set_ciphers(suite)
    if compat is not None:
        ctx.tlcp_compat = compat
    if certs if certs is not None else suite.startswith("ECDHE"):
        # The encrypted keys are GmSSL's own output (PBKDF2-HMAC-SM3, SM4-CBC).
        ctx.load_cert_chain(pki / "client-sign-chain.pem", pki / "client-sign.enc-key.pem", PASSWORD)
        if not sign_only:
            ctx.load_enc_cert_chain(pki / "client-enc.pem", pki / "client-enc.enc-key.pem", PASSWORD)
    return ctx


# Client certificate variants: "none"; "single" = the signing identity alone
# (ECC suites); "double" = signing and encryption identities (what ECDHE
# needs everywhere).
def cases(single: bool = True) -> list[Any]:
    out = []
    for suite in SUITES:
        for certs in ("none", "single", "double"):
            if suite.startswith("ECDHE") and certs != "double":
                continue  # ECDHE needs the client's double certificate in every implementation
            if certs == "single" and not single:
                continue
            out.append(pytest.param(suite, certs, id=f"{suite}-{certs}"))
    return out


def variant_ctx(pki: Path, suite: str, certs: str, compat: str | None = None) -> tls.TLSContext:
    return client_ctx(pki, suite, certs=certs != "none", sign_only=certs == "single", compat=compat)


def server_ctx(pki: Path, *, sign: str = "server-sign", enc: str = "server-enc", verify: int = tls.CERT_NONE) -> tls.TLSContext:
    ctx = tls.TLSContext("tlcp", server_side=True)
    # The signing certificate followed by the intermediate, as a CA delivers it.
    chained = Path(tempfile.mkdtemp()) / f"{sign}-with-chain.pem"
    chained.write_bytes((pki / f"{sign}.pem").read_bytes() + (pki / "chain.pem").read_bytes())
    ctx.load_cert_chain(chained, pki / f"{sign}.key.pem")
    ctx.load_enc_cert_chain(pki / f"{enc}.pem", pki / f"{enc}.key.pem")
    # Tongsuo's client sends its certificates without the intermediate.
    ctx.load_verify_locations(pki / "ca-bundle.pem")
    ctx.verify_mode = verify
    return ctx


def shangmi_server(ctx: tls.TLSContext, connections: int = 1) -> tuple[int, list[Any], threading.Thread]:
    """A shangmi server answering ``connections`` connections with one
    request each: it echoes what it reads, then closes. Results per
    connection: (cipher, version, reused, peer subject) or the exception."""
    listener = socket.create_server(("127.0.0.1", 0))
    results: list[Any] = []

    def run() -> None:
        with listener:
            for _ in range(connections):
                raw, _ = listener.accept()
                raw.settimeout(10)
                try:
                    with ctx.wrap_socket(raw, server_side=True) as s:
                        data = s.recv(65536)
                        s.sendall(data)
                        cert = s.getpeercert()
                        results.append((s.cipher()[0], s.version(), s.session_reused, cert and cert["subject"]))
                except Exception as e:  # noqa: BLE001 - reported to the test
                    results.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return listener.getsockname()[1], results, t


def talk(ctx: tls.TLSContext, port: int, payload: bytes = b"ping from shangmi\n", **kw: Any) -> tuple[bytes, tls.TLSSocket]:
    raw = socket.create_connection(("127.0.0.1", port), timeout=10)
    s = ctx.wrap_socket(raw, server_hostname=kw.pop("server_hostname", "localhost"), **kw)
    with s:
        s.sendall(payload)
        got = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            got += chunk
            if got.endswith(b"\n") and b"HTTP/" not in got:
                break
    return got, s


# -- Tongsuo (ctypes) -------------------------------------------------------


# Tongsuo's client cannot send a single chain (configured sign-only, it sends
# an empty Certificate) and its server reads a second certificate as the
# encryption certificate: "single" is not a case with Tongsuo.
@pytest.mark.parametrize("suite, certs", cases(single=False))
def test_shangmi_client_to_tongsuo_server(tongsuo_server: Callable[..., Any], tlcp_pki: Path, suite: str,
                                          certs: str) -> None:
    auth = certs != "none"
    srv = tongsuo_server(tlcp_pki, openssl_name(suite), mode="echo", tickets=False, client_auth=auth,
                         ca=tlcp_pki / "ca-bundle.pem")
    got, s = talk(variant_ctx(tlcp_pki, suite, certs), srv.port)
    assert got == b"ping from shangmi\n"
    assert s.cipher() == (suite, "TLCP", 128)
    assert len(s.get_peer_certificates()) >= 2
    (rec,) = srv.wait_for(1)
    assert rec.ok and rec.cipher == openssl_name(suite), rec.error
    if auth:
        assert rec.peer_subject and "tlcp client" in rec.peer_subject


@pytest.mark.parametrize("suite, certs", cases(single=False))
def test_tongsuo_client_to_shangmi_server(tongsuo: ModuleType, tlcp_pki: Path, suite: str, certs: str) -> None:
    auth = certs != "none"
    port, results, t = shangmi_server(server_ctx(tlcp_pki, verify=tls.CERT_REQUIRED if auth else tls.CERT_NONE))
    client_certs = tongsuo.CertSet.from_dir(tlcp_pki, "client") if auth else None
    r = tongsuo.tongsuo_client("127.0.0.1", port, openssl_name(suite), ca=tlcp_pki / "root-ca.pem",
                               client_certs=client_certs, send=b"ping from tongsuo\n", server_name="localhost",
                               tickets=False, check=False)
    t.join(15)
    assert r.ok, (r.error, results)
    assert r.data == b"ping from tongsuo\n" and r.verified and r.cipher == openssl_name(suite)
    assert results and not isinstance(results[0], Exception), results
    assert results[0][:2] == (suite, "TLCP")
    assert ("tlcp client" in repr(results[0][3])) == auth


def test_client_certificates_both_ways(tongsuo_server: Callable[..., Any], tongsuo: ModuleType, tlcp_pki: Path) -> None:
    # Tongsuo's server asks for and validates the double chain of an ECC client.
    srv = tongsuo_server(tlcp_pki, "ECC-SM2-SM4-GCM-SM3", client_auth=True, mode="echo", ca=tlcp_pki / "ca-bundle.pem",
                         tickets=False)
    got, _ = talk(client_ctx(tlcp_pki, "ECC_SM4_GCM_SM3", certs=True), srv.port)
    assert got == b"ping from shangmi\n"
    (rec,) = srv.wait_for(1)
    assert rec.ok and rec.peer_subject and "tlcp client" in rec.peer_subject

    # shangmi's server requires and validates Tongsuo's.
    port, results, t = shangmi_server(server_ctx(tlcp_pki, verify=tls.CERT_REQUIRED))
    r = tongsuo.tongsuo_client("127.0.0.1", port, "ECC-SM2-SM4-GCM-SM3", ca=tlcp_pki / "root-ca.pem",
                               client_certs=tongsuo.CertSet.from_dir(tlcp_pki, "client"), server_name="localhost",
                               tickets=False, check=False)
    t.join(15)
    assert r.ok, (r.error, results)
    assert "tlcp client" in repr(results[0][3])


def test_resumption_with_tongsuo(tongsuo_server: Callable[..., Any], tongsuo: ModuleType, tlcp_pki: Path) -> None:
    srv = tongsuo_server(tlcp_pki, "ECC-SM2-SM4-GCM-SM3", mode="echo", tickets=False)
    ctx = client_ctx(tlcp_pki, "ECC_SM4_GCM_SM3")
    _, first = talk(ctx, srv.port)
    _, second = talk(ctx, srv.port, session=first.session)
    assert second.session_reused
    assert [r.session_reused for r in srv.wait_for(2)] == [False, True]

    port, results, t = shangmi_server(server_ctx(tlcp_pki), connections=2)
    kw: dict[str, Any] = dict(ca=tlcp_pki / "root-ca.pem", server_name="localhost", tickets=False, check=False)
    a = tongsuo.tongsuo_client("127.0.0.1", port, "ECC-SM2-SM4-GCM-SM3", **kw)
    b = tongsuo.tongsuo_client("127.0.0.1", port, "ECC-SM2-SM4-GCM-SM3", session=a.session, **kw)
    t.join(15)
    assert a.ok and b.ok, (a.error, b.error, results)
    assert (a.session_reused, b.session_reused) == (False, True)
    assert [r[2] for r in results] == [False, True]


@pytest.mark.parametrize(
    "sign, enc, reason",
    [
        ("server-sign-expired", "server-enc", "expired"),
        ("server-sign-wrong-host", "server-enc-wrong-host", "(?i)host ?name"),
        ("server-sign-untrusted", "server-enc-untrusted", "(?i)issuer|trust"),
        ("server-sign", "server-enc-other-ca", "(?i)issuer|trust"),
    ],
)
def test_shangmi_client_refuses_bad_servers(tongsuo: ModuleType, tongsuo_server: Callable[..., Any], tlcp_pki: Path,
                                            sign: str, enc: str, reason: str) -> None:
    certs = tongsuo.CertSet(tlcp_pki / f"{sign}.pem", tlcp_pki / f"{sign}.key.pem", tlcp_pki / f"{enc}.pem",
                            tlcp_pki / f"{enc}.key.pem", chain=[tlcp_pki / "chain.pem"])
    srv = tongsuo_server(None, "ECC-SM2-SM4-GCM-SM3", certs=certs, mode="echo", tickets=False)
    with pytest.raises(tls.CertificateVerifyError, match=reason):
        talk(client_ctx(tlcp_pki, "ECC_SM4_GCM_SM3"), srv.port)


def test_wrong_key_usage_is_refused(tlcp_pki: Path) -> None:
    # Tongsuo will not serve a signing certificate without digitalSignature,
    # so shangmi's server does (it loads what it is given).
    port, results, t = shangmi_server(server_ctx(tlcp_pki, sign="server-sign-wrong-ku"))
    with pytest.raises(tls.CertificateVerifyError, match="(?i)key ?usage"):
        talk(client_ctx(tlcp_pki, "ECC_SM4_GCM_SM3"), port)
    t.join(15)


# -- GmSSL and Tongsuo command line tools, when built ------------------------


def check_shangmi_server(results: list[Any], suite: str, certs: str, err: str) -> None:
    assert results and not isinstance(results[0], Exception), (results, err[-500:])
    assert results[0][:2] == (suite, "TLCP")
    assert ("tlcp client" in repr(results[0][3])) == (certs != "none"), results


@pytest.mark.parametrize("suite, certs", cases())
def test_shangmi_client_to_gmssl_server(gmssl_bin: str, tlcp_pki: Path, suite: str, certs: str) -> None:
    # "double" in ECC: tlcp_compat "auto" recognises GmSSL's CertificateRequest
    # and sends the signing chain alone, as GmSSL's server expects.
    port = pc.free_port()
    with pc.PeerProcess(pc.gmssl_server_cmd(gmssl_bin, tlcp_pki, openssl_name(suite), port, certs != "none"), port):
        got, s = talk(variant_ctx(tlcp_pki, suite, certs), port, b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
    assert b"200 OK" in got and s.cipher()[0] == suite


# GmSSL's client sends a single chain in ECC suites and a double one in ECDHE.
@pytest.mark.parametrize("suite, certs", [c for c in cases() if c.values[1] != "double" or "ECDHE" in c.values[0]])
def test_gmssl_client_to_shangmi_server(gmssl_bin: str, tlcp_pki: Path, suite: str, certs: str) -> None:
    auth = certs != "none"
    port, results, t = shangmi_server(server_ctx(tlcp_pki, verify=tls.CERT_REQUIRED if auth else tls.CERT_NONE))
    rc, out, err = pc.run_client(pc.gmssl_client_cmd(gmssl_bin, tlcp_pki, openssl_name(suite), port, auth))
    t.join(15)
    check_shangmi_server(results, suite, certs, err)
    assert rc == 0 and "GET / HTTP" in out, (rc, out[-300:], err[-300:])


@pytest.mark.parametrize("suite, certs", cases(single=False))
def test_shangmi_client_to_tongsuo_cli_server(tongsuo_bin: str, tlcp_pki: Path, suite: str, certs: str) -> None:
    port = pc.free_port()
    cmd = pc.tongsuo_server_cmd(tongsuo_bin, tlcp_pki, openssl_name(suite), port, certs != "none", ca="ca-bundle.pem")
    with pc.PeerProcess(cmd, port):
        got, s = talk(variant_ctx(tlcp_pki, suite, certs), port, b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n")
    assert b"HTTP/1.0 200" in got and s.cipher()[0] == suite


@pytest.mark.parametrize("suite, certs", cases(single=False))
def test_tongsuo_cli_client_to_shangmi_server(tongsuo_bin: str, tlcp_pki: Path, suite: str, certs: str) -> None:
    auth = certs != "none"
    port, results, t = shangmi_server(server_ctx(tlcp_pki, verify=tls.CERT_REQUIRED if auth else tls.CERT_NONE))
    rc, out, err = pc.run_client(pc.tongsuo_client_cmd(tongsuo_bin, tlcp_pki, openssl_name(suite), port, auth),
                                 b"GET / HTTP/1.0\r\n\r\n")
    t.join(15)
    check_shangmi_server(results, suite, certs, err)


# -- tlcp_compat: the explicit modes select the forms each peer takes ---------


@pytest.mark.parametrize("suite", ["ECDHE_SM4_GCM_SM3", "ECC_SM4_CBC_SM3"])
def test_explicit_compat_against_gmssl(gmssl_bin: str, tlcp_pki: Path, suite: str) -> None:
    port = pc.free_port()
    request = b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n"
    with pc.PeerProcess(pc.gmssl_server_cmd(gmssl_bin, tlcp_pki, openssl_name(suite), port, True), port):
        got, _ = talk(variant_ctx(tlcp_pki, suite, "double", compat="gmssl"), port, request)
        assert b"200 OK" in got
        # Tongsuo's forms (bare ECDHE parameters; sign + enc certificates and
        # SM3-of-messages CertificateVerify in ECC) are what GmSSL refuses.
        with pytest.raises(tls.TLSError):
            talk(variant_ctx(tlcp_pki, suite, "double", compat="tongsuo"), port, request)


@pytest.mark.parametrize("suite", ["ECDHE_SM4_GCM_SM3", "ECC_SM4_GCM_SM3"])
def test_explicit_compat_against_tongsuo(tongsuo_server: Callable[..., Any], tlcp_pki: Path, suite: str) -> None:
    srv = tongsuo_server(tlcp_pki, openssl_name(suite), mode="echo", tickets=False, client_auth=True,
                         ca=tlcp_pki / "ca-bundle.pem")
    got, _ = talk(variant_ctx(tlcp_pki, suite, "double", compat="tongsuo"), srv.port)
    assert got == b"ping from shangmi\n"
    # GmSSL's forms: the length-prefixed ECDHE parameters (Tongsuo 8.3:
    # "length mismatch"); in ECC the signing chain alone (no enc certificate).
    with pytest.raises(tls.TLSError):
        talk(variant_ctx(tlcp_pki, suite, "double", compat="gmssl"), srv.port)


def test_compat_modes_with_shangmi_server(tlcp_pki: Path) -> None:
    # shangmi's server takes every mode's forms, ECDHE and ECC with client certificates.
    for suite in ("ECDHE_SM4_CBC_SM3", "ECC_SM4_CBC_SM3"):
        for compat in tls.TLCP_COMPAT:
            port, results, t = shangmi_server(server_ctx(tlcp_pki, verify=tls.CERT_REQUIRED))
            got, s = talk(variant_ctx(tlcp_pki, suite, "double", compat=compat), port)
            t.join(15)
            assert got == b"ping from shangmi\n" and s.cipher()[0] == suite, compat
            check_shangmi_server(results, suite, "double", "")


def test_compat_attribute(tlcp_pki: Path) -> None:
    ctx = tls.TLSContext("tlcp")
    assert ctx.tlcp_compat == "auto" and tls.TLCP_COMPAT == ("auto", "standard", "gmssl", "tongsuo")
    ctx.tlcp_compat = "GmSSL"
    assert ctx.tlcp_compat == "gmssl"
    with pytest.raises(InvalidInputError, match="tlcp_compat"):
        ctx.tlcp_compat = "openssl"
