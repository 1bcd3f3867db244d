"""``shangmi sm4 encrypt|decrypt``: round trips, OpenSSL-compatible output,
GCM files that fail authentication leave no output, one-line errors."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shangmi import sm4
from shangmi.cli import main
from conftest import requires_openssl, run_openssl

KEY = bytes(range(16))
IV = bytes(range(16, 32))


def _run(*args: str) -> int:
    return main(["sm4", *args])


@pytest.mark.parametrize("mode", ["cbc", "ctr", "ecb", "gcm"])
@pytest.mark.parametrize("size", [0, 5, 16, 100, (1 << 20) + 7])
def test_round_trip_and_format(tmp_path: Path, mode: str, size: int) -> None:
    data = os.urandom(size)
    src, enc, dec = tmp_path / "in", tmp_path / "enc", tmp_path / "dec"
    src.write_bytes(data)
    iv = [] if mode == "ecb" else ["--iv", (IV[:12] if mode == "gcm" else IV).hex()]
    aad = ["--aad", "a1b2"] if mode == "gcm" else []
    common = ["--mode", mode, "--key", KEY.hex(), *iv, *aad]
    assert _run("encrypt", *common, "-i", str(src), "-o", str(enc)) == 0
    out = enc.read_bytes()
    # The file format is exactly what the library produces in one shot.
    if mode == "gcm":
        assert out == sm4.SM4GCM(KEY).encrypt(IV[:12], data, bytes.fromhex("a1b2"))
    elif mode == "cbc":
        assert out == sm4.SM4CBC(KEY).encrypt(IV, data)
    elif mode == "ctr":
        assert out == sm4.SM4CTR(KEY).encrypt(IV, data)
    else:
        assert out == sm4.SM4ECB(KEY).encrypt(data)
    assert _run("decrypt", *common, "-i", str(enc), "-o", str(dec)) == 0
    assert dec.read_bytes() == data


@requires_openssl
@pytest.mark.parametrize("mode", ["cbc", "ctr", "ecb"])
def test_matches_openssl_enc(tmp_path: Path, mode: str) -> None:
    data = os.urandom(70000)
    src, enc, dec = tmp_path / "in", tmp_path / "enc", tmp_path / "dec"
    src.write_bytes(data)
    iv = [] if mode == "ecb" else ["--iv", IV.hex()]
    oiv = [] if mode == "ecb" else ["-iv", IV.hex()]
    assert _run("encrypt", "--mode", mode, "--key", KEY.hex(), *iv, "-i", str(src), "-o", str(enc)) == 0
    assert enc.read_bytes() == run_openssl("enc", f"-sm4-{mode}", "-K", KEY.hex(), *oiv, input=data)
    theirs = run_openssl("enc", f"-sm4-{mode}", "-K", KEY.hex(), *oiv, input=data)
    enc.write_bytes(theirs)
    assert _run("decrypt", "--mode", mode, "--key", KEY.hex(), *iv, "-i", str(enc), "-o", str(dec)) == 0
    assert dec.read_bytes() == data


@pytest.mark.parametrize("where", [0, 1000, -1])
def test_gcm_tampered_file_writes_nothing(tmp_path: Path, where: int, capsys: pytest.CaptureFixture[str]) -> None:
    data = os.urandom(5000)
    src, enc, dec = tmp_path / "in", tmp_path / "enc", tmp_path / "dec"
    src.write_bytes(data)
    args = ["--mode", "gcm", "--key", KEY.hex(), "--iv", IV[:12].hex()]
    assert _run("encrypt", *args, "-i", str(src), "-o", str(enc)) == 0
    bad = bytearray(enc.read_bytes())
    bad[where] ^= 0x01
    enc.write_bytes(bytes(bad))
    assert _run("decrypt", *args, "-i", str(enc), "-o", str(dec)) == 1
    assert not dec.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["enc", "in"]  # no temp file left
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tag" in err


def test_gcm_tampered_to_existing_output_keeps_it(tmp_path: Path) -> None:
    enc, dec = tmp_path / "enc", tmp_path / "dec"
    enc.write_bytes(bytes(40))
    dec.write_bytes(b"previous")
    assert _run("decrypt", "--mode", "gcm", "--key", KEY.hex(), "--iv", "00" * 12, "-i", str(enc), "-o", str(dec)) == 1
    assert dec.read_bytes() == b"previous"


@pytest.mark.parametrize(
    "args,needle",
    [
        (["--mode", "cbc"], "SM4 key is required"),
        (["--mode", "ctr", "--key", KEY.hex(), "--iv", "00" * 8], "IV must be 16 bytes"),
        (["--mode", "ecb", "--key", KEY.hex(), "--iv", IV.hex()], "ECB takes no IV"),
        (["--mode", "ctr", "--key", KEY.hex(), "--iv", IV.hex(), "--nopad"], "--nopad"),
        (["--mode", "cbc", "--key", KEY.hex(), "--iv", IV.hex(), "--nopad"], "multiple of 16"),
    ],
)
def test_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], needle: str) -> None:
    src = tmp_path / "in"
    src.write_bytes(b"abc")
    assert _run("encrypt", *args, "-i", str(src), "-o", str(tmp_path / "out")) == 1
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_bad_key_hex_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        _run("encrypt", "--mode", "ctr", "--key", "abcd", "--iv", IV.hex())
    assert info.value.code == 2
    assert "key must be 16 bytes" in capsys.readouterr().err


def test_help_mentions_gcm_guarantee(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sm4", "--help"])
    assert "NOTHING" in capsys.readouterr().out
