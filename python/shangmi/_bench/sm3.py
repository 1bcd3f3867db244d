"""SM3 benchmarks: shangmi vs OpenSSL (hashlib / cryptography); with
``peers``, also libgcrypt (ctypes), GmSSL's C library and gmssl; ``hash_many`` of 16 x 64 KiB
against hashing the same bytes as one stream."""

from __future__ import annotations

import ctypes
import hashlib
import os
from collections.abc import Callable

from shangmi import sm3
from shangmi._bench import Comparison, compare, gmssl_lib
from shangmi._bench.sm4 import gcrypt

_GCRY_MD_SM3 = 326


def run(quick: bool = False, peers: bool = False) -> list[Comparison]:
    out = []
    lib = gcrypt() if peers else None
    gm_lib = gmssl_lib.load() if peers else None
    label = f"[backend {sm3.backend()}]"
    for size in [1 << 20] if quick else [64, 1 << 14, 1 << 20]:
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
        if lib is not None:
            digest = ctypes.create_string_buffer(32)
            cands["libgcrypt"] = lambda: lib.gcry_md_hash_buffer(_GCRY_MD_SM3, digest, data, len(data))
        if gm_lib is not None:
            cands["GmSSL (libgmssl)"] = gmssl_lib.sm3_hash(gm_lib, data)
        if peers and size <= 1 << 14:
            try:
                from gmssl import sm3 as gm_sm3  # type: ignore[import-untyped]

                lst = list(data)
                cands["gmssl (pure Python)"] = lambda: gm_sm3.sm3_hash(lst)
            except ImportError:
                pass
        out.append(compare(f"SM3 hash, {size} bytes {label}", cands, bytes_per_op=size, rounds=5 if quick else 11))
    msgs = [os.urandom(1 << 16) for _ in range(16)]
    whole = b"".join(msgs)
    out.append(
        compare(
            f"SM3 hash_many 16 x 64 KiB vs one stream of 1 MiB {label}",
            {"shangmi": lambda: sm3.hash_many(msgs), "shangmi one stream": lambda: sm3.hash(whole)},
            bytes_per_op=len(whole),
            rounds=5 if quick else 11,
            threads=True,  # hash_many spreads 1 MiB over shangmi's thread pool
        )
    )
    return out
