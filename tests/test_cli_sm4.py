"""``shangmi sm4``: keys from a file or the environment, password files that
cross both ways with ``openssl enc -sm4-cbc -pbkdf2 -md sm3`` (``Salted__``),
random IVs written with the output, and output modes that follow the umask."""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from conftest import requires_openssl, run_openssl
from shangmi import sm4
from shangmi.cli import main
from shangmi.cli._common import pbkdf2_sm3, pbkdf2_sm3_python

KEY = bytes(range(16))
IV = bytes(range(16, 32))


def _sm4(*args: str) -> int:
    return main(["sm4", *args])


@pytest.mark.parametrize("form", ["raw", "hex", "hex-newline"])
def test_key_file(tmp_path: Path, form: str) -> None:
    kf = tmp_path / "k"
    kf.write_bytes({"raw": KEY, "hex": KEY.hex().encode(), "hex-newline": KEY.hex().encode() + b"\n"}[form])
    src, out = tmp_path / "in", tmp_path / "out"
    src.write_bytes(b"hello")
    assert _sm4("encrypt", "--mode", "cbc", "--key-file", str(kf), "--iv", IV.hex(), "-i", str(src), "-o", str(out)) == 0
    assert out.read_bytes() == sm4.SM4CBC(KEY).encrypt(IV, b"hello")


def test_key_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SM4_TEST_KEY", KEY.hex())
    src, out = tmp_path / "in", tmp_path / "out"
    src.write_bytes(b"hello")
    assert _sm4("encrypt", "--mode", "ctr", "--key-env", "SM4_TEST_KEY", "--iv", IV.hex(), "-i", str(src), "-o", str(out)) == 0
    assert out.read_bytes() == sm4.SM4CTR(KEY).encrypt(IV, b"hello")


@pytest.mark.parametrize(
    "setup,needle",
    [
        (["--key-env", "SM4_UNSET_VAR_X"], "'SM4_UNSET_VAR_X' is not set"),
        (["--key-file", "/nonexistent/k"], "No such file"),
        (["--key-file", "SHORT"], "must be 16 bytes"),
        (["--key-file", "SHORT", "--pass", "pass:x"], "not both"),
    ],
)
def test_key_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str], setup: list[str], needle: str) -> None:
    (tmp_path / "SHORT").write_text("abcd")
    setup = [str(tmp_path / "SHORT") if a == "SHORT" else a for a in setup]
    src = tmp_path / "in"
    src.write_bytes(b"x")
    assert _sm4("encrypt", "--mode", "cbc", *setup, "-i", str(src), "-o", str(tmp_path / "o")) == 1
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


@pytest.mark.parametrize("mode,n", [("cbc", 16), ("ctr", 16), ("gcm", 12)])
def test_random_iv_written_with_output(tmp_path: Path, mode: str, n: int) -> None:
    kf, src, a, b, dec = (tmp_path / x for x in ("k", "in", "a", "b", "dec"))
    kf.write_bytes(KEY)
    data = os.urandom(3000)
    src.write_bytes(data)
    for out in (a, b):
        assert _sm4("encrypt", "--mode", mode, "--key-file", str(kf), "-i", str(src), "-o", str(out)) == 0
    ca, cb = a.read_bytes(), b.read_bytes()
    assert ca[:n] != cb[:n]  # a fresh IV each time
    iv, body = ca[:n], ca[n:]
    expected = {
        "cbc": lambda: sm4.SM4CBC(KEY).encrypt(iv, data),
        "ctr": lambda: sm4.SM4CTR(KEY).encrypt(iv, data),
        "gcm": lambda: sm4.SM4GCM(KEY).encrypt(iv, data),
    }[mode]()
    assert body == expected
    assert _sm4("decrypt", "--mode", mode, "--key-file", str(kf), "-i", str(a), "-o", str(dec)) == 0
    assert dec.read_bytes() == data


def test_pbkdf2_sm3_python_matches_hashlib() -> None:
    try:
        expected = hashlib.pbkdf2_hmac("sm3", b"password", b"saltsalt", 1000, 48)
    except ValueError:
        pytest.skip("this Python's OpenSSL has no SM3")
    assert pbkdf2_sm3_python(b"password", b"saltsalt", 1000, 48) == expected
    assert pbkdf2_sm3(b"password", b"saltsalt", 1000, 48) == expected


@requires_openssl
@pytest.mark.parametrize("mode", ["cbc", "ctr"])
@pytest.mark.parametrize("iters", [None, 1000])
def test_password_files_cross_openssl(tmp_path: Path, mode: str, iters: int | None) -> None:
    data = os.urandom(5000) + b"tail"
    src, ours, dec = tmp_path / "in", tmp_path / "ours", tmp_path / "dec"
    src.write_bytes(data)
    it = [] if iters is None else ["--iter", str(iters)]
    oit = [] if iters is None else ["-iter", str(iters)]
    assert _sm4("encrypt", "--mode", mode, "--pass", "pass:correct horse", *it, "-i", str(src), "-o", str(ours)) == 0
    blob = ours.read_bytes()
    assert blob[:8] == b"Salted__"
    # ours decrypts with openssl
    assert run_openssl(
        "enc", "-d", f"-sm4-{mode}", "-pbkdf2", "-md", "sm3", *oit, "-pass", "pass:correct horse", "-in", str(ours)
    ) == data
    # openssl's decrypts here
    theirs = tmp_path / "theirs"
    run_openssl("enc", f"-sm4-{mode}", "-pbkdf2", "-md", "sm3", *oit, "-pass", "pass:correct horse",
                "-in", str(src), "-out", str(theirs))
    assert _sm4("decrypt", "--mode", mode, "--pass", "pass:correct horse", *it, "-i", str(theirs), "-o", str(dec)) == 0
    assert dec.read_bytes() == data


def test_wrong_password_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    src, enc, dec = tmp_path / "in", tmp_path / "enc", tmp_path / "dec"
    src.write_bytes(b"secret text")
    monkeypatch.setenv("PW", "right")
    assert _sm4("encrypt", "--mode", "cbc", "--pass", "env:PW", "-i", str(src), "-o", str(enc)) == 0
    monkeypatch.setenv("PW", "wrong")
    rc = _sm4("decrypt", "--mode", "cbc", "--pass", "env:PW", "-i", str(enc), "-o", str(dec))
    # a wrong key gives bad padding (about 1 in 256 wrong keys pass the padding check)
    assert rc == 1 or dec.read_bytes() != b"secret text"
    (tmp_path / "plain").write_bytes(b"not salted at all")
    assert _sm4("decrypt", "--mode", "cbc", "--pass", "pass:x", "-i", str(tmp_path / "plain"), "-o", str(dec)) == 1
    assert "Salted__" in capsys.readouterr().err


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_output_mode_follows_umask(tmp_path: Path, umask: int) -> None:
    kf, src = tmp_path / "k", tmp_path / "in"
    kf.write_bytes(KEY)
    src.write_bytes(b"data")
    old = os.umask(umask)
    try:
        for mode in ("cbc", "gcm"):
            out = tmp_path / f"out-{mode}"
            assert _sm4("encrypt", "--mode", mode, "--key-file", str(kf), "-i", str(src), "-o", str(out)) == 0
            assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
            dec = tmp_path / f"dec-{mode}"
            assert _sm4("decrypt", "--mode", mode, "--key-file", str(kf), "-i", str(out), "-o", str(dec)) == 0
            assert stat.S_IMODE(dec.stat().st_mode) == 0o666 & ~umask
    finally:
        os.umask(old)
