"""Same-process A/B benchmarks against peer implementations.

Method (DESIGN.md, "Measuring"): every candidate of one comparison runs in
this process, after a warm-up, in alternating rounds (the order rotates each
round so no one always runs first); each round times a batch of calls sized
to take about ``batch_seconds``. We report the min and the median time per
operation and the ratio of medians against shangmi. Absolute figures on a
shared machine are noise; ratios from one run are what we quote.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["Candidate", "Comparison", "compare", "report", "to_json"]


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

    def ratio(self, peer: str, ours: str = "shangmi") -> float:
        """How many times faster ``ours`` is than ``peer`` (ratio of medians)."""
        by_name = {c.name: c for c in self.candidates}
        return by_name[peer].median / by_name[ours].median


def _calibrate(fn: Callable[[], object], batch_seconds: float) -> int:
    n = 1
    while True:
        start = time.perf_counter()
        for _ in range(n):
            fn()
        elapsed = time.perf_counter() - start
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
) -> Comparison:
    """Times every candidate in alternating rounds; see the module docstring."""
    cands = [Candidate(n, f) for n, f in candidates.items()]
    # Warm-up doubles as calibration: caches, branch predictors, lazy tables.
    iterations = {c.name: _calibrate(c.fn, batch_seconds) for c in cands}
    for r in range(rounds):
        order = cands[r % len(cands) :] + cands[: r % len(cands)]
        for c in order:
            n = iterations[c.name]
            fn = c.fn
            start = time.perf_counter()
            for _ in range(n):
                fn()
            c.per_op_seconds.append((time.perf_counter() - start) / n)
    return Comparison(name, bytes_per_op, cands)


def _fmt_time(seconds: float) -> str:
    if seconds < 1e-6:
        return f"{seconds * 1e9:8.1f} ns"
    if seconds < 1e-3:
        return f"{seconds * 1e6:8.2f} µs"
    return f"{seconds * 1e3:8.2f} ms"


def report(comp: Comparison, ours: str = "shangmi") -> str:
    """A small table: min, median, throughput or rate, and ratio vs ours."""
    lines = [comp.name]
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
