"""The ``shangmi x509`` and ``shangmi cms`` commands end to end."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import requires_openssl, run_openssl

from shangmi import cms, sm2, x509
from shangmi.cli import main


def _key(path: Path) -> str:
    path.write_bytes(sm2.PrivateKey.generate().to_pem(password=b"pw"))
    return str(path)


@pytest.fixture()
def ca(tmp_path: Path) -> dict[str, str]:
    k = _key(tmp_path / "ca.key")
    out = str(tmp_path / "ca.pem")
    assert main(["x509", "selfsign", "-k", k, "--passin", "pass:pw", "--subj", "/C=CN/O=测试/CN=CLI Root",
                 "--days", "30", "--ca", "--pathlen", "1", "-o", out]) == 0
    return {"key": k, "cert": out, "dir": str(tmp_path)}


def test_req_sign_show_verify(ca: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lk = _key(tmp_path / "leaf.key")
    csr, leaf = str(tmp_path / "leaf.csr"), str(tmp_path / "leaf.pem")
    assert main(["x509", "req", "-k", lk, "--passin", "pass:pw", "--subj", "/CN=cli leaf+OU=多值",
                 "--san", "dns:cli.example", "--san", "ip:10.1.2.3", "-o", csr]) == 0
    assert main(["x509", "sign", "--csr", csr, "--CA", ca["cert"], "--CAkey", ca["key"], "--passin", "pass:pw",
                 "--days", "10", "-o", leaf]) == 0
    cert = x509.load_pem_x509_certificate(Path(leaf).read_bytes())
    assert cert.subject == x509.load_pem_x509_csr(Path(csr).read_bytes()).subject
    assert cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value.get_values_for_type(
        x509.DNSName) == ["cli.example"]
    capsys.readouterr()
    assert main(["x509", "show", "-i", leaf]) == 0
    out = capsys.readouterr().out
    assert "OU=多值" in out and "CN=cli leaf" in out and "cli.example" in out and "Issuer: CN=CLI Root,O=测试,C=CN" in out
    assert main(["x509", "verify", "--CAfile", ca["cert"], leaf]) == 0
    assert f"{leaf}: OK" in capsys.readouterr().out
    assert main(["x509", "verify", "--CAfile", ca["cert"], "--uid", "", leaf]) == 2
    assert "verification failed" in capsys.readouterr().out
    assert main(["x509", "show", "-i", csr]) == 0
    assert "Signature valid (either ID): True" in capsys.readouterr().out


@requires_openssl
def test_cli_output_passes_openssl(ca: dict[str, str], tmp_path: Path) -> None:
    run_openssl("x509", "-in", ca["cert"], "-noout", "-text")
    lk = _key(tmp_path / "leaf.key")
    leaf_csr = str(tmp_path / "l.csr")
    main(["x509", "req", "-k", lk, "--passin", "pass:pw", "--subj", "/CN=ossl check", "-o", leaf_csr])
    run_openssl("req", "-in", leaf_csr, "-verify", "-noout", "-vfyopt", "distid:1234567812345678")
    leaf = str(tmp_path / "l.pem")
    main(["x509", "sign", "--csr", leaf_csr, "--CA", ca["cert"], "--CAkey", ca["key"], "--passin", "pass:pw",
          "-o", leaf])
    run_openssl("verify", "-partial_chain", "-vfyopt", "distid:1234567812345678", "-CAfile", ca["cert"], leaf)


def test_cms_commands(ca: dict[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data.txt"
    data.write_bytes("报文 content".encode())
    signed, content = str(tmp_path / "s.cms"), str(tmp_path / "content")
    for extra in ([], ["--compat", "gmssl"], ["--oids", "rfc5652", "--outform", "der"]):
        assert main(["cms", "sign", "-k", ca["key"], "--passin", "pass:pw", "--cert", ca["cert"], "-i", str(data),
                     "-o", signed, *extra]) == 0
        assert main(["cms", "verify", "-i", signed, "--CAfile", ca["cert"], "-o", content]) == 0
        assert Path(content).read_bytes() == data.read_bytes()
    assert main(["cms", "sign", "-k", ca["key"], "--passin", "pass:pw", "--cert", ca["cert"], "-i", str(data),
                 "-o", signed, "--detached"]) == 0
    assert main(["cms", "verify", "-i", signed, "--content", str(data)]) == 0
    other = tmp_path / "other.txt"
    other.write_bytes(b"other")
    assert main(["cms", "verify", "-i", signed, "--content", str(other)]) == 2
    env, plain = str(tmp_path / "e.cms"), str(tmp_path / "plain")
    assert main(["cms", "encrypt", "--recip", ca["cert"], "-i", str(data), "-o", env]) == 0
    assert main(["cms", "decrypt", "-k", ca["key"], "--passin", "pass:pw", "--cert", ca["cert"], "-i", env,
                 "-o", plain]) == 0
    assert Path(plain).read_bytes() == data.read_bytes()
    assert cms.decrypt(Path(env).read_bytes(), sm2.PrivateKey.from_pem(Path(ca["key"]).read_bytes(), b"pw")) \
        == data.read_bytes()


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_bytes(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
    assert main(["x509", "show", "-i", str(bad)]) == 1
    assert "error:" in capsys.readouterr().err
    assert main(["x509", "selfsign", "-k", str(bad), "--subj", "CN=x"]) == 1
