"""``shangmi zuc``: keys from files and the environment; EEA3 streamed in chunks
gives the one-shot bytes (3GPP vectors) for inputs larger than the chunk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import load_vectors, unhex
from shangmi import zuc
from shangmi.cli import main
from shangmi.cli._common import CHUNK

V = load_vectors("zuc.json")


def test_eea3_cli_has_no_iv_code_of_its_own() -> None:
    # the streaming path uses the library's EEA3 stream, not an IV built in Python
    import shangmi.cli.zuc as cli_zuc

    assert not hasattr(cli_zuc, "eea3_iv")


@pytest.mark.parametrize("size", [0, 1, CHUNK - 1, CHUNK + 5, 2 * CHUNK + 3])
def test_eea3_streamed_equals_one_shot(tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch) -> None:
    key = os.urandom(16)
    kf, src, out = tmp_path / "k", tmp_path / "in", tmp_path / "out"
    kf.write_bytes(key)
    data = os.urandom(size)
    src.write_bytes(data)
    args = ["--count", "38a6f056", "--bearer", "24", "--direction", "1", "-i", str(src), "-o", str(out)]
    assert main(["zuc", "eea3", "--key-file", str(kf), *args]) == 0
    assert out.read_bytes() == zuc.eea3(key, 0x38A6F056, 24, 1, data)
    monkeypatch.setenv("ZUC_KEY", key.hex())
    assert main(["zuc", "eea3", "--key-env", "ZUC_KEY", *args]) == 0
    assert out.read_bytes() == zuc.eea3(key, 0x38A6F056, 24, 1, data)


def test_eea3_3gpp_vectors_streamed(tmp_path: Path) -> None:
    whole_bytes = [v for v in V["eea3"] if v["length_bits"] % 8 == 0]
    assert whole_bytes
    for v in whole_bytes:
        kf, src, out = tmp_path / "k", tmp_path / "in", tmp_path / "out"
        kf.write_text(v["key"])
        src.write_bytes(unhex(v["plaintext"]))
        args = ["--count", v["count"], "--bearer", str(v["bearer"]), "--direction", str(v["direction"])]
        assert main(["zuc", "eea3", "--key-file", str(kf), *args, "-i", str(src), "-o", str(out)]) == 0
        assert out.read_bytes() == unhex(v["ciphertext"])


def _peak_rss_kib(src: Path, out: Path) -> int:
    code = (
        "import resource, sys; from shangmi.cli import main; "
        "rc = main(sys.argv[1:]); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss); sys.exit(rc)"
    )
    args = ["zuc", "eea3", "--key", "00" * 16, "--count", "0", "--bearer", "0", "--direction", "0",
            "-i", str(src), "-o", str(out)]
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True)
    return int(proc.stdout.split()[-1])


def test_eea3_memory_is_bounded(tmp_path: Path) -> None:
    # 64 MiB through the CLI: peak RSS grows by a few chunks over a 1-byte input, not by the input size
    # (reading it whole, as before, costs at least twice the input).
    small, big, out = tmp_path / "small", tmp_path / "big", tmp_path / "out"
    small.write_bytes(b"x")
    with open(big, "wb") as f:
        f.truncate(64 << 20)
    base = _peak_rss_kib(small, out)
    peak = _peak_rss_kib(big, out)
    assert out.stat().st_size == 64 << 20
    assert peak - base < 24 * 1024, f"peak RSS {peak} KiB for 64 MiB, {base} KiB for 1 byte"
