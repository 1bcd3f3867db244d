"""Verify a large batch of SM2 signatures (and hash a set of files) on a Dask
``LocalCluster``, with the same results as one process.

Run::

    python examples/dask_verify.py --signatures 400000 --workers 2

It signs a batch (one key per 1000 messages), plants one bad signature,
verifies the batch once serially with ``sm2.verify_many`` and once on the
cluster in chunks with :func:`shangmi.batch.verify_chunk`, checks that both
agree and find the planted index, and prints both throughputs.

Each worker process caps shangmi's native thread pool at its share of the
cores (``client.run(shangmi.set_num_threads, n)``) so that the pool and Dask's
workers together use each core once.
"""

from __future__ import annotations

import argparse
import os
import random
import time
import warnings
from collections.abc import Sequence

from shangmi import sm2
from shangmi.batch import Item, chunks, hash_files, verify_chunk


def make_batch(n: int, keys: int, seed: int = 1) -> tuple[list[Item], int]:
    """``n`` (public key bytes, message, DER signature) items and the index of the one bad signature."""
    rng = random.Random(seed)
    privs = [sm2.PrivateKey.generate() for _ in range(keys)]
    items: list[Item] = []
    per_key = -(-n // keys)
    for k, priv in enumerate(privs):
        msgs = [rng.randbytes(32) for _ in range(min(per_key, n - k * per_key))]
        pub = priv.public_key().to_bytes()
        items.extend((pub, m, s) for m, s in zip(msgs, sm2.sign_many(priv, msgs)))
    bad = rng.randrange(n)
    pub, msg, _ = items[bad]
    items[bad] = (pub, msg, items[(bad + 1) % n][2])  # a valid signature, of another message
    return items, bad


def cap_native_threads(client: object, threads_per_worker_native: int) -> None:
    """Caps shangmi's native batch pool in each worker process of ``client``."""
    import shangmi

    client.run(shangmi.set_num_threads, threads_per_worker_native)  # type: ignore[attr-defined]


def verify_on_dask(client: object, items: Sequence[Item], chunk: int) -> list[bool]:
    """Scatter ``items`` in chunks, verify each on a worker, gather in order."""
    # The chunks travel inside the task graph (Dask warns above ~10 MiB; scattering
    # them first costs more here, as Dask then tokenizes every item).
    futures = client.map(verify_chunk, list(chunks(items, chunk)), pure=False)  # type: ignore[attr-defined]
    results: list[bool] = []
    for part in client.gather(futures):  # type: ignore[attr-defined]
        results.extend(part)
    return results


def hash_files_on_dask(client: object, paths: Sequence[str], chunk: int) -> list[str]:
    futures = client.map(hash_files, list(chunks(paths, chunk)), pure=False)  # type: ignore[attr-defined]
    return [d for part in client.gather(futures) for d in part]  # type: ignore[attr-defined]


def main(argv: Sequence[str] | None = None) -> int:
    from distributed import Client, LocalCluster

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--signatures", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--chunk", type=int, default=5_000)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    items, bad = make_batch(args.signatures, keys=max(1, args.signatures // 1000))
    t_make = time.perf_counter() - t0

    t0 = time.perf_counter()
    serial = verify_chunk(items)
    t_serial = time.perf_counter() - t0

    native = max(1, (os.cpu_count() or 1) // args.workers)
    warnings.filterwarnings("ignore", "Sending large graph")  # the chunks travel in the graph on purpose
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True) as cluster, Client(cluster) as client:
        cap_native_threads(client, native)
        verify_on_dask(client, items[: args.chunk], args.chunk)  # warm-up: imports, key tables
        t0 = time.perf_counter()
        dist = verify_on_dask(client, items, args.chunk)
        t_dask = time.perf_counter() - t0
    assert dist == serial
    assert [i for i, ok in enumerate(dist) if not ok] == [bad]
    n = args.signatures
    print(f"signed {n} in {t_make:.1f} s; bad signature found at index {bad} by both")
    print(f"verify_many, one process: {t_serial:.2f} s ({n / t_serial:,.0f}/s)")
    print(f"Dask, {args.workers} workers x {native} native threads: {t_dask:.2f} s ({n / t_dask:,.0f}/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
