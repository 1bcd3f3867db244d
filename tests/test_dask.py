"""The Dask example: 100,000 SM2 signatures verified on a LocalCluster give the
serial result and find the planted bad signature at its index; files hashed on
the cluster match serial; the per-worker native thread cap reaches the workers
and caps the native pool."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

pytest.importorskip("distributed", reason="dask[distributed] is in the test extra")

from distributed import Client, LocalCluster  # noqa: E402

from shangmi import sm3  # noqa: E402
from shangmi.batch import chunks, hash_files, verify_chunk  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
N = 100_000


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dask_verify", ROOT / "examples" / "dask_verify.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


EX = _example()


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(
        cluster
    ) as c:
        EX.cap_native_threads(c, 1)
        yield c


@pytest.mark.filterwarnings("ignore:Sending large graph")
def test_100k_signatures_match_serial_and_find_the_bad_one(client: Any) -> None:
    t0 = time.perf_counter()
    items, bad = EX.make_batch(N, keys=100)
    serial = verify_chunk(items)
    t1 = time.perf_counter()
    dist = EX.verify_on_dask(client, items, 5_000)
    t2 = time.perf_counter()
    assert len(dist) == N
    assert dist == serial
    assert [i for i, ok in enumerate(dist) if not ok] == [bad]
    print(f"\nsign+serial verify {t1 - t0:.1f} s, dask verify {t2 - t1:.1f} s for {N}")


def test_bad_signature_at_chunk_edges(client: Any) -> None:
    items, _ = EX.make_batch(3_000, keys=3, seed=7)
    items = [(p, m, s) for p, m, s in items]
    good = verify_chunk(items)
    for planted in (0, 999, 1000, 2999):
        fixed = list(items)
        pub, msg, sig = fixed[planted]
        fixed[planted] = (pub, msg + b"!", sig)
        result = EX.verify_on_dask(client, fixed, 1000)
        assert [i for i, ok in enumerate(result) if not ok] == sorted({planted} | {i for i, g in enumerate(good) if not g})


def test_hash_files_on_cluster(client: Any, tmp_path: Path) -> None:
    paths = []
    for i in range(200):
        p = tmp_path / f"f{i}"
        p.write_bytes(os.urandom(i * 37))
        paths.append(str(p))
    paths.append(str(ROOT / "tests" / "vectors" / "sm3.json"))
    dist = EX.hash_files_on_dask(client, paths, 16)
    assert dist == hash_files(paths) == [sm3.hash(Path(p).read_bytes()).hex() for p in paths]
    assert hash_files([str(tmp_path / "f0")]) == ["1ab21d8355cfa17f8e61194831e81a8f22bec8c728fefb747ed035eb5082aa2b"]  # SM3("")


def test_worker_native_cap_is_set(client: Any) -> None:
    import shangmi

    assert set(client.run(shangmi.num_threads).values()) == {1}


@pytest.mark.parametrize("threads", [1, 3])
def test_set_num_threads_caps_the_native_pool(threads: int) -> None:
    # A fresh process: count its OS threads before and after the first batch call.
    code = (
        "import os, shangmi; from shangmi import sm2, sm3\n"
        f"shangmi.set_num_threads({threads})\n"
        "before = len(os.listdir('/proc/self/task'))\n"
        "sm3.hash_many([b'x'] * 10000)\n"
        "print(len(os.listdir('/proc/self/task')) - before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # One thread allowed: the batch runs on the calling thread and no pool
    # thread starts; otherwise the pool starts exactly the cap.
    assert int(out.stdout) == (0 if threads == 1 else threads)


def test_chunks_and_item_errors() -> None:
    assert [list(c) for c in chunks([1, 2, 3, 4, 5], 2)] == [[1, 2], [3, 4], [5]]
    from shangmi import sm2
    from shangmi.exceptions import InvalidInputError, ShangmiTypeError

    pub = sm2.PrivateKey.generate().public_key().to_bytes()

    with pytest.raises(InvalidInputError):
        list(chunks([1], 0))
    # An item of the wrong shape is a wrong type (also a TypeError), named by index.
    with pytest.raises(ShangmiTypeError, match="item 1"):
        verify_chunk([(pub, b"m", b"s"), (pub, b"m")])  # type: ignore[list-item]
