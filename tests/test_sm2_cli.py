"""``shangmi sm2 keygen|pubkey|sign|verify|encrypt|decrypt``."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from conftest import requires_openssl, run_openssl
from shangmi import sm2
from shangmi.cli import main


def run(*args: str) -> int:
    return main(["sm2", *args])


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    key, pub = tmp_path / "key.pem", tmp_path / "pub.pem"
    assert run("keygen", "-o", str(key), "--pubout", str(pub)) == 0
    return key, pub


def test_keygen_writes_pkcs8_and_public_key(keys: tuple[Path, Path]) -> None:
    key, pub = keys
    assert key.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    k = sm2.PrivateKey.from_pem(key.read_bytes())
    assert sm2.PublicKey.from_pem(pub.read_bytes()) == k.public_key()


def test_keygen_over_an_existing_file_makes_it_owner_only(tmp_path: Path) -> None:
    key = tmp_path / "old.pem"
    key.write_bytes(b"old contents")
    key.chmod(0o644)
    assert run("keygen", "-o", str(key)) == 0
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    sm2.PrivateKey.from_pem(key.read_bytes())


def test_keygen_encrypted_and_sec1(tmp_path: Path) -> None:
    enc = tmp_path / "enc.pem"
    assert run("keygen", "-o", str(enc), "--passout", "pass:pw") == 0
    assert enc.read_bytes().startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    sm2.PrivateKey.from_pem(enc.read_bytes(), password="pw")
    sec1 = tmp_path / "sec1.pem"
    assert run("keygen", "-o", str(sec1), "--format", "sec1") == 0
    assert sec1.read_bytes().startswith(b"-----BEGIN SM2 PRIVATE KEY-----")


def test_pubkey_forms(keys: tuple[Path, Path], tmp_path: Path) -> None:
    key, pub = keys
    out = tmp_path / "out"
    assert run("pubkey", "-k", str(key), "-o", str(out)) == 0
    assert out.read_bytes() == pub.read_bytes()
    assert run("pubkey", "-k", str(key), "-o", str(out), "--outform", "der") == 0
    assert sm2.PublicKey.from_der(out.read_bytes()) == sm2.PublicKey.from_pem(pub.read_bytes())
    assert run("pubkey", "-k", str(key), "-o", str(out), "--outform", "hex", "--compressed") == 0
    assert len(bytes.fromhex(out.read_text().strip())) == 33


def test_sign_verify(keys: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, pub = keys
    msg = tmp_path / "msg"
    msg.write_bytes(b"cli message" * 1000)
    sig = tmp_path / "sig"
    assert run("sign", "-k", str(key), "-i", str(msg), "-o", str(sig)) == 0
    sm2.PublicKey.from_pem(pub.read_bytes()).verify(sig.read_bytes(), msg.read_bytes())
    assert run("verify", "-p", str(pub), "-s", str(sig), "-i", str(msg)) == 0
    assert "Verified Successfully" in capsys.readouterr().out
    assert run("verify", "-p", str(pub), "-s", str(sig), "-i", str(msg), "--uid", "") == 1
    assert "Failure" in capsys.readouterr().err
    # uid, raw encoding and hex output; verification with the private key file.
    assert run("sign", "-k", str(key), "-i", str(msg), "-o", str(sig), "--uid", "ALICE", "--encoding", "raw", "--hex") == 0
    assert len(bytes.fromhex(sig.read_text().strip())) == 64
    assert run("verify", "-k", str(key), "-s", str(sig), "-i", str(msg), "--uid-hex", b"ALICE".hex(), "--encoding", "raw") == 0
    msg.write_bytes(b"tampered")
    assert run("verify", "-p", str(pub), "-s", str(sig), "-i", str(msg), "--uid", "ALICE", "--encoding", "raw") == 1


@pytest.mark.parametrize("mode", sm2.MODES)
def test_encrypt_decrypt(keys: tuple[Path, Path], tmp_path: Path, mode: str) -> None:
    key, pub = keys
    pt, ct, back = tmp_path / "pt", tmp_path / "ct", tmp_path / "back"
    pt.write_bytes(b"secret file contents")
    assert run("encrypt", "-p", str(pub), "-i", str(pt), "-o", str(ct), "--mode", mode) == 0
    assert sm2.PrivateKey.from_pem(key.read_bytes()).decrypt(ct.read_bytes(), mode=mode) == pt.read_bytes()  # type: ignore[arg-type]
    assert run("decrypt", "-k", str(key), "-i", str(ct), "-o", str(back), "--mode", mode) == 0
    assert back.read_bytes() == pt.read_bytes()


def test_errors_are_one_line(keys: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    key, pub = keys
    enc = tmp_path / "enc.pem"
    enc.write_bytes(sm2.PrivateKey.from_pem(key.read_bytes()).to_pem(password="right"))
    assert run("pubkey", "-k", str(enc), "--passin", "pass:wrong") == 1
    err = capsys.readouterr().err
    assert "wrong password" in err and err.count("\n") == 1
    assert run("pubkey", "-k", str(enc)) == 1
    assert "password is required" in capsys.readouterr().err
    os.environ["SHANGMI_TEST_PW"] = "right"
    try:
        assert run("pubkey", "-k", str(enc), "--passin", "env:SHANGMI_TEST_PW", "-o", str(tmp_path / "p")) == 0
    finally:
        del os.environ["SHANGMI_TEST_PW"]
    pwfile = tmp_path / "pw.txt"
    pwfile.write_text("right\n")
    assert run("pubkey", "-k", str(enc), "--passin", f"file:{pwfile}", "-o", str(tmp_path / "p")) == 0
    ct = tmp_path / "ct"
    ct.write_bytes(b"\x04" + bytes(200))
    assert run("decrypt", "-k", str(key), "-i", str(ct), "-o", str(tmp_path / "x")) == 1
    assert run("encrypt", "-p", str(key), "-i", str(ct)) == 1
    assert "private key" in capsys.readouterr().err
    assert run("pubkey", "-k", str(tmp_path / "missing.pem")) == 1


@requires_openssl
def test_cli_interop_with_openssl(keys: tuple[Path, Path], tmp_path: Path) -> None:
    key, pub = keys
    msg, sig = tmp_path / "msg", tmp_path / "sig"
    msg.write_bytes(b"to openssl")
    assert run("sign", "-k", str(key), "-i", str(msg), "-o", str(sig)) == 0
    out = run_openssl(
        "pkeyutl", "-verify", "-rawin", "-digest", "sm3", "-pubin", "-inkey", str(pub), "-in", str(msg),
        "-sigfile", str(sig), "-pkeyopt", "distid:1234567812345678",
    )
    assert b"Signature Verified Successfully" in out
    sig.write_bytes(run_openssl("pkeyutl", "-sign", "-rawin", "-digest", "sm3", "-inkey", str(key), "-in", str(msg)))
    assert run("verify", "-p", str(pub), "-s", str(sig), "-i", str(msg), "--uid", "") == 0
    ct, back = tmp_path / "ct", tmp_path / "back"
    ct.write_bytes(run_openssl("pkeyutl", "-encrypt", "-pubin", "-inkey", str(pub), "-in", str(msg)))
    assert run("decrypt", "-k", str(key), "-i", str(ct), "-o", str(back), "--mode", "der") == 0
    assert back.read_bytes() == msg.read_bytes()
    assert run("encrypt", "-p", str(pub), "-i", str(msg), "-o", str(ct), "--mode", "der") == 0
    assert run_openssl("pkeyutl", "-decrypt", "-inkey", str(key), "-in", str(ct)) == msg.read_bytes()


@requires_openssl
def test_keygen_aes_cipher_is_readable_by_openssl(tmp_path: Path) -> None:
    key = tmp_path / "k.pem"
    assert run("keygen", "-o", str(key), "--passout", "pass:pw", "--cipher", "aes-256-cbc") == 0
    plain = run_openssl("pkey", "-in", str(key), "-passin", "pass:pw")
    assert sm2.PrivateKey.from_pem(plain).to_bytes() == sm2.PrivateKey.from_pem(key.read_bytes(), "pw").to_bytes()
