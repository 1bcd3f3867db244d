"""The documentation: every ```python and ```sh block in docs/*.md runs (each
page's blocks in order, in one namespace / one shell, in a fresh directory),
and the site builds with ``mkdocs build --strict`` (warnings are errors).
```console blocks are shown, not run (installs, long benchmarks, GmSSL's CLI)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import openssl_available

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.S | re.M)
PAGES = sorted(DOCS.glob("*.md"))


def blocks(page: Path, lang: str) -> list[str]:
    return [body for kind, body in FENCE.findall(page.read_text()) if kind == lang]


def test_every_block_is_python_sh_or_console() -> None:
    kinds = {kind for page in PAGES for kind, _ in FENCE.findall(page.read_text())}
    assert kinds <= {"python", "sh", "console"}, kinds
    assert sum(len(blocks(p, "python")) for p in PAGES) >= 15


@pytest.fixture
def shim(tmp_path: Path) -> dict[str, str]:
    """An environment whose PATH has a ``shangmi`` that runs this interpreter's package."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "shangmi"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m shangmi "$@"\n')
    exe.chmod(0o755)
    return {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_page_examples_run(page: Path, tmp_path: Path, shim: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    text = page.read_text()
    needs_openssl = "openssl " in "".join(blocks(page, "sh"))
    if needs_openssl and not openssl_available():
        if os.environ.get("CI"):
            pytest.fail("CI must have the openssl CLI")
        pytest.skip("openssl CLI not installed")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    namespace: dict[str, object] = {"__name__": f"docs_{page.stem}"}
    for kind, body in FENCE.findall(text):
        if kind == "python":
            exec(compile(body, f"{page.name} (python block)", "exec"), namespace)  # noqa: S102
        elif kind == "sh":
            proc = subprocess.run(["bash", "-euo", "pipefail", "-c", body], cwd=work, env=shim,
                                  capture_output=True, text=True)
            assert proc.returncode == 0, f"{page.name} sh block failed:\n{body}\n{proc.stdout}\n{proc.stderr}"


def test_site_builds_strict(tmp_path: Path) -> None:
    try:
        import mkdocstrings  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("CI installs the docs extra (mkdocs, mkdocstrings[python]) in .ci/run")
        pytest.skip("the docs extra (mkdocs, mkdocstrings[python]) is not installed")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(ROOT / "mkdocs.yml"), "-d", str(tmp_path / "site")],
        capture_output=True, text=True, cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "WARNING" not in proc.stderr
    assert (tmp_path / "site" / "api" / "index.html").read_text().count("verify_many") >= 1
