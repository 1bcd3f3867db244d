"""The one CPU override, SHANGMI_CPU_DISABLE: masks select lesser backends,
bad values give a clear error at import (never a panic), and the old
per-algorithm variables are gone."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

import shangmi

PROBE = (
    "import json, shangmi\n"
    "from shangmi import sm2, sm3, sm4\n"
    "assert sm3.hash(b'abc').hex() == '66c7f0f462eeedd9d1f2d46bdc10e4e24167c4875cf2f7a2297da02b8f4ba8e0'\n"
    "k = sm2.PrivateKey.generate(); k.public_key().verify(k.sign(b'm'), b'm')\n"
    "print(json.dumps(shangmi.cpu_features()))\n"
)


def run(env_value: str | None, code: str = PROBE) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("SHANGMI_CPU_DISABLE", None)
    if env_value is not None:
        env["SHANGMI_CPU_DISABLE"] = env_value
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)


def test_report_shape() -> None:
    info = shangmi.cpu_features()
    assert set(info) == {"detected", "enabled", "masked", "backends"}
    assert set(info["enabled"]) <= set(info["detected"])
    assert set(info["backends"]) == {
        "montgomery",
        "table-scan",
        "sm2-comb",
        "sm3",
        "sm3-lanes",
        "sm4",
        "ghash",
        "zuc",
        "zuc-lanes",
    }


def test_backend_names_are_engine_dash_width() -> None:
    # One naming scheme for every algorithm: "<engine>-<register width in
    # bits>", where the engine may name two extensions ("gfni-avx512-128": ZUC's
    # S-boxes on GFNI, its F step on AVX-512 VL, in 128-bit registers).
    for alg, name in shangmi.cpu_features()["backends"].items():
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)?-(32|64|128|256|512)", name), (alg, name)


def test_all_masks_everything_and_selects_portable() -> None:
    import json

    out = run("all")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["enabled"] == []
    assert all(v.startswith("portable") for v in info["backends"].values()), info["backends"]


@pytest.mark.parametrize("mask", ["avx512f", "avx512f,avx2", "adx", " AVX2 , ,gfni", "sse4.1,sha", "vaes"])
def test_masks_are_subtracted(mask: str) -> None:
    import json

    out = run(mask)
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    names = {m.strip().lower() for m in mask.split(",") if m.strip()}
    names = {"sse4_1" if n == "sse4.1" else "sha_ni" if n == "sha" else n for n in names}
    assert not names & set(info["enabled"])
    if "avx512f" in names:
        # Backends are named <engine>-<width>: no 512-bit kernel without AVX-512F.
        assert not [v for v in info["backends"].values() if v.endswith("-512")], info["backends"]
    if "adx" in names:
        assert info["backends"]["montgomery"] == "portable-64"
    if "vaes" in names:
        assert not info["backends"]["sm4"].startswith("vaes-")


def test_vaes_avx2_is_chosen_without_avx512_or_gfni() -> None:
    # The SM4 backends named by what the CPU has: VAES on ymm is the choice
    # exactly when AVX-512F and GFNI are absent (or masked) and VAES is there.
    import json

    out = run("avx512f,gfni")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    enabled = set(info["enabled"])
    want_vaes = {"vaes", "avx2", "aes"} <= enabled
    assert (info["backends"]["sm4"] == "vaes-256") == want_vaes, info


@pytest.mark.parametrize(
    "value",
    ["avx1024", "all,bogus", "avx2;rm -rf /", "x" * 5000, "\u4e2d\u6587", "avx2 avx512f", "-1", "%s%s%n"],
)
def test_hostile_values_give_a_clear_error_not_a_panic(value: str) -> None:
    out = run(value, "import shangmi")
    assert out.returncode == 1
    assert "InvalidInputError" in out.stderr and "SHANGMI_CPU_DISABLE" in out.stderr, out.stderr
    assert "PanicException" not in out.stderr and "panicked" not in out.stderr


@pytest.mark.parametrize("old", ["SM2_GW=4", "SHANGMI_SM4_BACKEND=portable", "SHANGMI_CTIME_FIELD=adx"])
def test_old_variables_have_no_effect(old: str) -> None:
    import json

    name, value = old.split("=")
    env = dict(os.environ, **{name: value})
    env.pop("SHANGMI_CPU_DISABLE", None)
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["backends"] == shangmi.cpu_features()["backends"] or os.environ.get(
        "SHANGMI_CPU_DISABLE"
    )
