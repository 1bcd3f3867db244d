"""``shangmi sm3``: sha256sum-style output, ``--tag``, ``-c`` check mode, HMAC keys from files."""

from __future__ import annotations

import hmac
from pathlib import Path

import pytest

from shangmi import sm3
from shangmi.cli import main

ABC = "66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0"  # GB/T 32905 example 1


@pytest.fixture
def files(tmp_path: Path) -> list[Path]:
    a, b = tmp_path / "a.txt", tmp_path / "b b.txt"
    a.write_bytes(b"abc")
    b.write_bytes(b"abcd" * 16)
    return [a, b]


def test_plain_and_tag(files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sm3", str(files[0])]) == 0
    assert capsys.readouterr().out == f"{ABC}  {files[0]}\n"
    assert main(["sm3", "--tag", str(files[0])]) == 0
    assert capsys.readouterr().out == f"SM3 ({files[0]}) = {ABC}\n"


@pytest.mark.parametrize("tag", [False, True])
def test_check_round_trip(tmp_path: Path, files: list[Path], capsys: pytest.CaptureFixture[str], tag: bool) -> None:
    assert main(["sm3", *(["--tag"] if tag else []), *map(str, files)]) == 0
    sums = tmp_path / "SM3SUMS"
    sums.write_text(capsys.readouterr().out)
    assert main(["sm3", "-c", str(sums)]) == 0
    assert capsys.readouterr().out == "".join(f"{f}: OK\n" for f in files)
    files[1].write_bytes(b"changed")
    assert main(["sm3", "-c", str(sums)]) == 1
    out = capsys.readouterr()
    assert out.out == f"{files[0]}: OK\n{files[1]}: FAILED\n"
    assert "1 computed checksum did NOT match" in out.err
    assert main(["sm3", "-c", "--status", str(sums)]) == 1
    assert capsys.readouterr().out == ""


def test_check_binary_marker_missing_and_malformed(tmp_path: Path, files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    sums = tmp_path / "sums"
    sums.write_text(f"{ABC} *{files[0]}\n{ABC}  {tmp_path / 'gone'}\nnot a checksum line\n")
    assert main(["sm3", "-c", str(sums)]) == 1
    out = capsys.readouterr()
    assert f"{files[0]}: OK" in out.out and "gone: FAILED open or read" in out.out
    assert "1 line is improperly formatted" in out.err
    sums.write_text("junk\n")
    assert main(["sm3", "-c", str(sums)]) == 1
    assert "no properly formatted" in capsys.readouterr().err


def test_hmac_key_file_and_check(tmp_path: Path, files: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    kf = tmp_path / "key"
    kf.write_text("6b6579\n")  # "key" as hex text
    assert main(["sm3", "--hmac-key-file", str(kf), "--tag", str(files[0])]) == 0
    line = capsys.readouterr().out
    assert line == f"HMAC-SM3 ({files[0]}) = {hmac.new(b'key', b'abc', sm3.SM3).hexdigest()}\n"
    sums = tmp_path / "sums"
    sums.write_text(line)
    assert main(["sm3", "--hmac-key-file", str(kf), "-c", str(sums)]) == 0
    assert main(["sm3", "-c", str(sums)]) == 1  # an HMAC line is not a plain SM3 line
