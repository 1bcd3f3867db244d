"""Same-process A/B benchmarks against peer implementations.

Method (DESIGN.md, "Measuring"): every candidate of one comparison runs in
this process, after a warm-up, in alternating rounds (the order rotates each
round so no one always runs first); each round times a batch of calls sized
to take about ``batch_seconds``. We report the min and the median time per
operation and the ratio of medians against shangmi. Absolute figures on a
shared machine are noise; ratios from one run are what we quote.

The clock is chosen here, once per run (:func:`set_clock`, which
``shangmi bench --cpu-time`` calls): wall time by default, or this thread's
CPU time (``time.thread_time_ns``), which on a loaded machine leaves out the
time other processes held the core. Every candidate of a comparison runs in
the calling thread, so its CPU time is its cost, except for the calls that
hand their work to shangmi's thread pool (``hash_many``, ``verify_many``):
the calling thread only waits there, so those comparisons pass
``threads=True`` and keep wall time whatever the choice, and their header
says so. A module that must match a peer's clock passes ``clock=`` (the
SM2-vs-GmSSL rows always use thread CPU time).
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "PROCESS_CPU",
    "THREAD_CPU",
    "WALL",
    "Candidate",
    "Comparison",
    "clock_for",
    "compare",
    "report",
    "set_clock",
    "timer",
    "to_json",
]

#: Clock names, as shown in each comparison's header and in the JSON.
WALL = "wall time"
THREAD_CPU = "thread CPU time"
#: Used only by the comparisons interleaved with ``openssl speed``, which
#: divides by its process's CPU time (they time ours with ``time.process_time``).
PROCESS_CPU = "process CPU time"

#: The run's choice for single-thread comparisons (see :func:`set_clock`).
_chosen = WALL


def set_clock(cpu_time: bool) -> None:
    """Times every later single-thread comparison with this thread's CPU
    time (``cpu_time=True``) or with wall time (the default)."""
    global _chosen
    _chosen = THREAD_CPU if cpu_time else WALL


def clock_for(*, threads: bool = False, clock: str | None = None) -> str:
    """The clock a comparison uses: ``clock`` if given, else wall time for
    calls that run on shangmi's thread pool (``threads``), else the run's
    choice."""
    if clock is not None:
        if clock not in (WALL, THREAD_CPU):
            raise ValueError(f"unknown clock {clock!r}")
        if threads and clock != WALL:
            raise ValueError("a comparison of thread-pool calls must use wall time")
        return clock
    return WALL if threads else _chosen


def timer(clock: str) -> Callable[[], int]:
    """The nanosecond counter of ``clock``, looked up on :mod:`time` when
    called (so a test can monkeypatch it)."""
    if clock == THREAD_CPU:
        return time.thread_time_ns
    if clock == WALL:
        return time.perf_counter_ns
    raise ValueError(f"no timer for {clock!r}")


@dataclass
class Candidate:
    name: str
    fn: Callable[[], object]
    per_op_seconds: list[float] = field(default_factory=list)

    @property
    def min(self) -> float:
        return min(self.per_op_seconds)

    @property
    def median(self) -> float:
        return statistics.median(self.per_op_seconds)


@dataclass
class Comparison:
    name: str
    #: bytes processed by one call, for throughput figures (None: ops only)
    bytes_per_op: int | None
    candidates: list[Candidate]
    #: what ``per_op_seconds`` were measured with (WALL, THREAD_CPU, PROCESS_CPU)
    clock: str = WALL
    #: whether the calls ran on shangmi's thread pool (then the clock is WALL)
    threads: bool = False

    def ratio(self, peer: str, ours: str = "shangmi") -> float:
        """How many times faster ``ours`` is than ``peer`` (ratio of medians)."""
        by_name = {c.name: c for c in self.candidates}
        return by_name[peer].median / by_name[ours].median


def _calibrate(fn: Callable[[], object], batch_seconds: float, now: Callable[[], int]) -> int:
    n = 1
    while True:
        start = now()
        for _ in range(n):
            fn()
        elapsed = (now() - start) * 1e-9
        if elapsed >= batch_seconds / 4 or n >= 1 << 24:
            return max(1, int(n * batch_seconds / max(elapsed, 1e-9)))
        n *= 4


def compare(
    name: str,
    candidates: dict[str, Callable[[], object]],
    *,
    bytes_per_op: int | None = None,
    rounds: int = 11,
    batch_seconds: float = 0.05,
    threads: bool = False,
    clock: str | None = None,
) -> Comparison:
    """Times every candidate in alternating rounds; see the module docstring.

    ``threads``: some candidate runs on shangmi's thread pool, so the
    comparison is timed in wall time whatever :func:`set_clock` chose.
    ``clock``: force a clock (WALL or THREAD_CPU) regardless of the choice.
    """
    used = clock_for(threads=threads, clock=clock)
    now = timer(used)
    cands = [Candidate(n, f) for n, f in candidates.items()]
    # Warm-up doubles as calibration: caches, branch predictors, lazy tables.
    iterations = {c.name: _calibrate(c.fn, batch_seconds, now) for c in cands}
    for r in range(rounds):
        order = cands[r % len(cands) :] + cands[: r % len(cands)]
        for c in order:
            n = iterations[c.name]
            fn = c.fn
            start = now()
            for _ in range(n):
                fn()
            c.per_op_seconds.append((now() - start) * 1e-9 / n)
    return Comparison(name, bytes_per_op, cands, used, threads)


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:8.1f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} µs"
    return f"{seconds * 1e3:8.2f} ms"


def header_clock(comp: Comparison) -> str:
    """The clock note of a comparison's header line."""
    if comp.threads:
        return f"{comp.clock}: runs on shangmi's thread pool, so never thread CPU time"
    return comp.clock


def report(comp: Comparison, ours: str = "shangmi") -> str:
    """A small table: min, median, throughput or rate, and ratio vs ours."""
    lines = [f"{comp.name}  [{header_clock(comp)}]"]
    base = next((c for c in comp.candidates if c.name == ours), None)
    for c in comp.candidates:
        if comp.bytes_per_op:
            rate = f"{comp.bytes_per_op / c.median / 2**20:10.1f} MiB/s"
        else:
            rate = f"{1 / c.median:10.0f} op/s "
        ratio = ""
        if base is not None and c is not base:
            ratio = f"  shangmi is {c.median / base.median:6.2f}x faster"
        lines.append(f"  {c.name:<28} min {_fmt_time(c.min)}  median {_fmt_time(c.median)}  {rate}{ratio}")
    return "\n".join(lines)


def to_json(comparisons: list[Comparison]) -> str:
    out: list[dict[str, Any]] = []
    for comp in comparisons:
        d = asdict(comp)
        for c, cd in zip(comp.candidates, d["candidates"]):
            cd.pop("fn", None)
            cd["min"] = c.min
            cd["median"] = c.median
        out.append(d)
    return json.dumps(out, indent=2)
