"""Shared test fixtures: vector loading and the OpenSSL CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

VECTORS = Path(__file__).parent / "vectors"

settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


def load_vectors(name: str) -> dict[str, Any]:
    """A KAT file from tests/vectors/ (copied from shared/vectors with sources)."""
    with open(VECTORS / name) as f:
        data: dict[str, Any] = json.load(f)
    return data


def unhex(s: str) -> bytes:
    return bytes.fromhex(s)


def openssl_available() -> bool:
    return shutil.which("openssl") is not None


def run_openssl(*args: str, input: bytes | None = None) -> bytes:
    """Runs the OpenSSL 3 CLI and returns stdout; fails the test on error."""
    proc = subprocess.run(["openssl", *args], input=input, capture_output=True, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"openssl {' '.join(args)} failed: {proc.stderr.decode(errors='replace')}")
    return proc.stdout


requires_openssl = pytest.mark.skipif(
    not openssl_available() and not os.environ.get("CI"),
    reason="openssl CLI not installed (CI installs it; there this test never skips)",
)
