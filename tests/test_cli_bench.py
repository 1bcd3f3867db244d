"""``shangmi bench --cpu-time``: the option parses, the clock each comparison
claims is the one it was timed with (fake clocks with different steps, and
a real sleep that costs wall time but almost no CPU time), thread-pool rows
keep wall time, and the tables still print."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from shangmi import sm2
from shangmi._bench import THREAD_CPU, WALL, compare, report, set_clock
from shangmi._bench import sm2 as bench_sm2
from shangmi.cli import build_parser, main

#: Steps of the fake clocks, in ns per reading: one reading pair around a
#: batch gives one of these per operation (calibration settles on one call
#: per batch, since a step exceeds the 50 ms batch), so a per-op time of
#: 0.1 s means thread CPU time and 0.3 s wall time.
CPU_STEP = 100_000_000
WALL_STEP = 300_000_000


class FakeClock:
    def __init__(self, step: int) -> None:
        self.step, self.now, self.calls = step, 0, 0

    def __call__(self) -> int:
        self.calls += 1
        self.now += self.step
        return self.now


@pytest.fixture(autouse=True)
def _reset_clock() -> Iterator[None]:
    yield
    set_clock(False)


@pytest.fixture
def fakes(monkeypatch: pytest.MonkeyPatch) -> tuple[FakeClock, FakeClock]:
    cpu, wall = FakeClock(CPU_STEP), FakeClock(WALL_STEP)
    monkeypatch.setattr(time, "thread_time_ns", cpu)
    monkeypatch.setattr(time, "perf_counter_ns", wall)
    return cpu, wall


def _per_op(comp_seconds: list[float], step: int, n: int = 1) -> bool:
    return all(t == pytest.approx(step * 1e-9 / n) for t in comp_seconds)


def test_option_parses(capsys: pytest.CaptureFixture[str]) -> None:
    p = build_parser()
    assert p.parse_args(["bench", "sm3"]).cpu_time is False
    assert p.parse_args(["bench", "--cpu-time", "sm3", "sm4"]).cpu_time is True
    with pytest.raises(SystemExit):
        p.parse_args(["bench", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--cpu-time" in text and "thread_time_ns" in text
    assert "keep wall time" in text and "thread pool" in text and "process CPU time" in text


def test_default_is_wall_time(fakes: tuple[FakeClock, FakeClock]) -> None:
    cpu, wall = fakes
    comp = compare("x", {"shangmi": lambda: None, "peer": lambda: None}, rounds=3)
    assert comp.clock == WALL and not comp.threads
    assert cpu.calls == 0 and wall.calls > 0
    for c in comp.candidates:
        assert len(c.per_op_seconds) == 3 and _per_op(c.per_op_seconds, WALL_STEP)
    assert report(comp).splitlines()[0] == "x  [wall time]"


def test_cpu_time_for_single_thread_rows(fakes: tuple[FakeClock, FakeClock]) -> None:
    cpu, wall = fakes
    set_clock(True)
    comp = compare("x", {"shangmi": lambda: None, "peer": lambda: None}, rounds=3)
    assert comp.clock == THREAD_CPU
    assert wall.calls == 0 and cpu.calls > 0
    for c in comp.candidates:
        assert _per_op(c.per_op_seconds, CPU_STEP)
    lines = report(comp).splitlines()
    assert lines[0] == "x  [thread CPU time]"
    assert len(lines) == 3 and "shangmi is" in lines[2]


def test_thread_pool_rows_keep_wall_time(fakes: tuple[FakeClock, FakeClock]) -> None:
    cpu, wall = fakes
    set_clock(True)
    comp = compare("many", {"shangmi": lambda: None}, rounds=2, threads=True)
    assert comp.clock == WALL and comp.threads
    assert cpu.calls == 0 and _per_op(comp.candidates[0].per_op_seconds, WALL_STEP)
    assert report(comp).splitlines()[0] == "many  [wall time: runs on shangmi's thread pool, so never thread CPU time]"
    with pytest.raises(ValueError, match="wall time"):
        compare("bad", {"shangmi": lambda: None}, threads=True, clock=THREAD_CPU)
    with pytest.raises(ValueError, match="unknown clock"):
        compare("bad", {"shangmi": lambda: None}, clock="sundial")


def test_gmssl_rows_always_thread_cpu_time(fakes: tuple[FakeClock, FakeClock]) -> None:
    cpu, wall = fakes
    set_clock(False)
    comp = bench_sm2._compare_cpu("SM2 sign vs GmSSL", {"shangmi": lambda: None, "GmSSL": lambda: None}, 2)
    assert comp.clock == THREAD_CPU and wall.calls == 0
    assert all(_per_op(c.per_op_seconds, CPU_STEP) for c in comp.candidates)


def test_sm2_pool_and_batch_rows(fakes: tuple[FakeClock, FakeClock]) -> None:
    """The pool-hit row follows the choice (its refill is outside the timed
    calls); verify_many's row keeps wall time."""
    cpu, wall = fakes
    set_clock(True)
    key = sm2.PrivateKey.generate()
    pool = bench_sm2._pool_comparison(key, 2, 4)
    assert pool.clock == THREAD_CPU and not pool.threads and wall.calls == 0
    assert all(_per_op(c.per_op_seconds, CPU_STEP, 4) for c in pool.candidates)
    batch = bench_sm2._batch_comparison(key, 1, 4)
    assert batch.clock == WALL and batch.threads and wall.calls > 0
    # Per signature: one batch of 4 per fake step.
    assert all(_per_op(c.per_op_seconds, WALL_STEP, 4) for c in batch.candidates)


def test_real_clocks_measure_what_they_claim() -> None:
    """A 2 ms sleep costs at least 2 ms of wall time and almost no CPU time
    (tiny batches: one call per batch)."""
    nap: dict[str, Callable[[], object]] = {"sleep": lambda: time.sleep(0.002)}
    wall = compare("nap", nap, rounds=3, batch_seconds=1e-6)
    assert wall.clock == WALL and wall.candidates[0].min >= 0.002
    set_clock(True)
    cpu = compare("nap", nap, rounds=3, batch_seconds=1e-6)
    assert cpu.clock == THREAD_CPU and cpu.candidates[0].median < 0.001


def test_bench_cpu_time_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "b.json"
    assert main(["bench", "--quick", "--cpu-time", "sm3", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    headers = [line for line in text.splitlines() if line.startswith("SM3")]
    assert headers and all(h.endswith("]") for h in headers)
    single = [h for h in headers if "hash_many" not in h]
    many = [h for h in headers if "hash_many" in h]
    assert single and all(h.endswith("  [thread CPU time]") for h in single)
    assert len(many) == 1 and "[wall time: runs on shangmi's thread pool" in many[0]
    assert "  shangmi " in text and "MiB/s" in text
    figures = json.loads(out.read_text())
    assert {(f["clock"], f["threads"]) for f in figures} == {(THREAD_CPU, False), (WALL, True)}
    assert all(c["median"] > 0 for f in figures for c in f["candidates"])


def test_all_backends_passes_cpu_time_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--all-backends`` re-runs the bench in subprocesses: each gets ``--cpu-time``."""
    import subprocess
    from types import SimpleNamespace

    from shangmi.cli import bench as cli_bench

    calls: list[list[str]] = []

    def fake_run(argv: list[str], env: dict[str, str], **kw: object) -> SimpleNamespace:
        calls.append(argv)
        mask = env["SHANGMI_CPU_DISABLE"]
        return SimpleNamespace(returncode=0, stdout=f'["{mask}"]')  # every mask "new"

    monkeypatch.setattr(subprocess, "run", fake_run)
    assert cli_bench.run(build_parser().parse_args(["bench", "--all-backends", "--cpu-time", "--quick", "sm4"])) == 0
    runs = [c for c in calls if "bench" in c]
    assert len(runs) == len(cli_bench.MASKS)
    assert all(c.count("--cpu-time") == 1 and "--quick" in c and "sm4" in c for c in runs)
