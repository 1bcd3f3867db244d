"""Package-level promises: exception hierarchy, typing, CLI behaviour."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import shangmi
from shangmi import exceptions
from shangmi.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_exception_hierarchy() -> None:
    for name in exceptions.__all__:
        cls = getattr(exceptions, name)
        assert issubclass(cls, shangmi.ShangmiError)
        assert getattr(shangmi, name) is cls
    for cls in (exceptions.InvalidInputError, exceptions.InvalidKey, exceptions.DecryptionError):
        assert issubclass(cls, ValueError)
    for cls in (exceptions.InvalidTag, exceptions.InvalidSignature):
        assert not issubclass(cls, ValueError)


def test_native_errors_map_to_package_exceptions() -> None:
    with pytest.raises(shangmi.InvalidInputError, match="length: expected an int in"):
        shangmi.sm3.kdf(b"", -5)


@pytest.mark.skipif(shutil.which("mypy") is None and not __import__("os").environ.get("CI"), reason="mypy not installed")
def test_mypy_strict_passes() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", str(ROOT / "python" / "shangmi")],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_stubtest_is_clean() -> None:
    """python/shangmi/_native.pyi matches the extension (``mypy.stubtest``), with
    only the justified entries of python/stubtest-allowlist.txt; run here so that
    the README's ``python -m pytest`` runs it."""
    pytest.importorskip("mypy.stubtest")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy.stubtest",
            "shangmi._native",
            "--allowlist",
            str(ROOT / "python" / "stubtest-allowlist.txt"),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Success" in proc.stdout, proc.stdout


def test_cli_sm3_matches_library(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "data.bin"
    f.write_bytes(b"abc")
    assert main(["sm3", str(f)]) == 0
    out = capsys.readouterr().out
    assert out == f"66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0  {f}\n"


def test_cli_hmac(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    f = tmp_path / "data.bin"
    f.write_bytes(b"message")
    assert main(["sm3", "--hmac-key", "6b6579", str(f)]) == 0
    assert capsys.readouterr().out.split()[0] == shangmi.sm3.hmac(b"key", b"message").hex()


def test_cli_missing_file_is_one_line_error(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "shangmi", "sm3", str(tmp_path / "nope")], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "No such file" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_bad_hex_is_clean_error() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "shangmi", "sm3", "--hmac-key", "zz", "-"], capture_output=True, text=True, input=""
    )
    assert proc.returncode != 0
    assert "must be hex" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_gil_check_detects_a_held_gil() -> None:
    """The GIL assertion used by every algorithm's tests can fail: bytes.count
    is C code that never releases the GIL."""
    from conftest import assert_gil_released

    big = bytes(400 << 20)
    with pytest.raises(AssertionError, match="GIL was held"):
        assert_gil_released(lambda: big.count(b"\x01"))
