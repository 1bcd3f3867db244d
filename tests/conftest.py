"""Shared test fixtures: vector loading and the OpenSSL CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from collections.abc import Callable
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


def assert_gil_released(call: Callable[[], object]) -> None:
    """Fails unless ``call`` lets other Python threads run while it works.

    ``call`` runs in a worker thread while this thread records timestamps in
    a tight loop. If the native code holds the GIL, this thread gets at most
    one switch interval (5 ms) inside the call's window; if it releases the
    GIL, stamps cover most of the window. ``call`` should take 100 ms or
    more; the threshold (a fifth of the window) leaves room for a busy
    machine's scheduler while staying far above one switch interval.
    """
    window: list[float] = []
    stamps: list[float] = []
    done = threading.Event()

    def work() -> None:
        try:
            t0 = time.perf_counter()
            call()
            window.extend([t0, time.perf_counter()])
        finally:
            done.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        stamps.append(time.perf_counter())
    worker.join()
    assert window, "the call raised"
    inside = [s for s in stamps if window[0] < s < window[1]]
    assert inside and inside[-1] - inside[0] > 0.2 * (window[1] - window[0]), (
        f"other threads ran for {inside[-1] - inside[0] if inside else 0:.3f} s "
        f"of a {window[1] - window[0]:.3f} s native call: the GIL was held"
    )
