"""CLI and start-up basics: ``shangmi --version``, ``__version__`` without
importlib.metadata, private keys 0600 while other outputs follow the umask."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

import shangmi
from shangmi.cli import main

ROOT = Path(__file__).resolve().parent.parent


def test_version_matches_cargo_and_metadata(capsys: pytest.CaptureFixture[str]) -> None:
    cargo = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]["version"]
    assert shangmi.__version__ == cargo == version("shangmi")
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"shangmi {cargo}\n"


def test_import_does_not_load_importlib_metadata() -> None:
    code = "import sys, shangmi; print('importlib.metadata' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_private_key_0600_public_key_umask(tmp_path: Path) -> None:
    key, pub = tmp_path / "key.pem", tmp_path / "pub.pem"
    old = os.umask(0o022)
    try:
        assert main(["sm2", "keygen", "-o", str(key), "--pubout", str(pub)]) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE(pub.stat().st_mode) == 0o644


def test_readme_states_rust_and_cli_extra() -> None:
    text = (ROOT / "README.md").read_text()
    assert re.search(r"Rust\s*(≥|>=)\s*1\.89", text)
    assert "shangmi[cli]" in text
