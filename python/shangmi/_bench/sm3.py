"""SM3 benchmarks: shangmi vs OpenSSL (hashlib / cryptography) vs gmssl."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable

from shangmi import sm3
from shangmi._bench import Comparison, compare


def run(quick: bool = False) -> list[Comparison]:
    out = []
    for size in ([1 << 20] if quick else [64, 1 << 14, 1 << 20]):
        data = os.urandom(size)
        cands: dict[str, Callable[[], object]] = {"shangmi": lambda: sm3.hash(data)}
        try:
            from cryptography.hazmat.primitives import hashes

            def crypto_sm3() -> object:
                h = hashes.Hash(hashes.SM3())
                h.update(data)
                return h.finalize()

            cands["cryptography (OpenSSL)"] = crypto_sm3
        except Exception:
            pass
        try:
            hashlib.new("sm3")
            cands["hashlib (OpenSSL)"] = lambda: hashlib.new("sm3", data).digest()
        except ValueError:
            pass
        if size <= 1 << 14:
            try:
                from gmssl import sm3 as gm_sm3  # type: ignore[import-untyped]

                lst = list(data)
                cands["gmssl (pure Python)"] = lambda: gm_sm3.sm3_hash(lst)
            except ImportError:
                pass
        out.append(compare(f"SM3 hash, {size} bytes", cands, bytes_per_op=size, rounds=5 if quick else 11))
    return out
