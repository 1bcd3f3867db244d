"""What the native core detected about this CPU, which backend each algorithm runs,
and how many threads its batch calls use."""

from __future__ import annotations

from typing import TypedDict

from shangmi import _native


class CpuFeatures(TypedDict):
    """The result of :func:`cpu_features`."""

    detected: list[str]
    enabled: list[str]
    masked: list[str]
    backends: dict[str, str]


def cpu_features() -> CpuFeatures:
    """The CPU features the core detected, those it may use, and each algorithm's backend.

    ``detected`` lists what the CPU reports (``/proc/cpuinfo`` names such as
    ``"avx512f"``, ``"gfni"``, ``"adx"``; on aarch64 ``"neon"``, ``"aes"``,
    ``"pmull"``, ``"sm3"``, ``"sm4"``, ``"sha3"``), ``masked`` what the environment
    variable ``SHANGMI_CPU_DISABLE`` took away (a comma-separated list of
    those names, or ``all``, read once before the first import), ``enabled``
    the rest, and ``backends`` maps each algorithm (``"montgomery"``: the
    shared Montgomery products of SM2 and SM9, ``"table-scan"``: the
    constant-time table lookups, ``"sm2-comb"``, ``"sm3"``, ``"sm3-lanes"``:
    :func:`shangmi.sm3.hash_many`, ``"sm4"``, ``"ghash"``, ``"zuc"``,
    ``"zuc-lanes"``: the ``*_many`` calls) to the backend it chose, named ``<engine>-<width>``
    (``"sm2-comb"``: ``"ifma-512"`` for k·G on eight AVX-512 IFMA lanes,
    else ``"portable-64"``: the one-lane comb, whose field products follow
    ``"montgomery"``).
    An unknown name in ``SHANGMI_CPU_DISABLE`` makes ``import shangmi`` raise
    :class:`shangmi.InvalidInputError`.
    """
    info = _native.cpu_info()
    return CpuFeatures(
        detected=list(info["detected"]),
        enabled=list(info["enabled"]),
        masked=list(info["masked"]),
        backends=dict(info["backends"]),
    )


def set_num_threads(n: int) -> None:
    """Caps the threads shangmi's batch calls (``verify_many``, ``sign_many``,
    ``hash_many``, pool refills) use in this process at ``n``; ``0`` restores
    one thread per logical CPU (the default).

    On a machine running several worker processes (Dask, multiprocessing),
    give each its share of the cores so they do not oversubscribe them. The
    pool is rebuilt in a forked child, so batch calls work after ``fork()``.
    """
    _native.set_num_threads(n)


def num_threads() -> int:
    """The number of threads the next batch call will use."""
    return _native.num_threads()
