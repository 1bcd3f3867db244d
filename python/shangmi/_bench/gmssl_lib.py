"""GmSSL's C library (``libgmssl.so``) through ctypes, for benchmarks only.

Nothing of GmSSL ships with shangmi: this module loads a library the user
built or installed and wraps the few functions the benchmarks time
(``sm4_set_encrypt_key``, ``sm4_cbc_encrypt_blocks``,
``sm4_ctr_encrypt_blocks``, ``sm3_init/update/finish``, as declared in
GmSSL 3's ``gmssl/sm4.h`` and ``gmssl/sm3.h``).

Other benchmark modules use :func:`load`; ``shangmi bench --gmssl-lib PATH``
sets the path through :func:`set_default_path`.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

__all__ = ["DEFAULT_PATH", "load", "set_default_path", "sm4_cbc_encrypt", "sm4_ctr", "sm3_hash"]

#: Where the peers build of this machine puts it; used only if it exists.
DEFAULT_PATH = "/work/peers/GmSSL/build/bin/libgmssl.so"

_chosen: str | None = None
_cache: dict[str, ctypes.CDLL | None] = {}

# SM4_KEY is uint32_t rk[32]; SM3_CTX is 32 + 8 + 64 + 8 bytes on LP64.
# Both are given generous, aligned room so a later GmSSL that grows them by
# a field cannot write past our buffer.
_SM4_KEY_SIZE = 256
_SM3_CTX_SIZE = 512


def set_default_path(path: str | None) -> None:
    """Makes ``path`` what :func:`load` opens when called without one."""
    global _chosen
    _chosen = path


def load(path: str | None = None) -> ctypes.CDLL | None:
    """GmSSL's shared library, or None when it is absent or lacks SM3/SM4.

    ``path`` defaults to the one given to :func:`set_default_path`, else
    :data:`DEFAULT_PATH` if that file exists. A library that cannot be
    loaded, or misses one of the functions wrapped here, gives None.
    """
    path = path or _chosen or (DEFAULT_PATH if os.path.exists(DEFAULT_PATH) else None)
    if path is None:
        return None
    if path not in _cache:
        try:
            lib = ctypes.CDLL(path)
            for name in ("sm4_set_encrypt_key", "sm4_cbc_encrypt_blocks", "sm4_ctr_encrypt_blocks", "sm3_init", "sm3_update", "sm3_finish"):
                getattr(lib, name).restype = None
            _cache[path] = lib
        except (OSError, AttributeError):
            _cache[path] = None
    return _cache[path]


def _key(lib: ctypes.CDLL, key: bytes) -> ctypes.Array[ctypes.c_char]:
    if len(key) != 16:
        raise ValueError(f"SM4 key must be 16 bytes, got {len(key)}")
    k = ctypes.create_string_buffer(_SM4_KEY_SIZE)
    lib.sm4_set_encrypt_key(k, key)
    return k


def sm4_cbc_encrypt(lib: ctypes.CDLL, key: bytes, iv: bytes, data: bytes) -> Callable[[], object]:
    """A call that CBC-encrypts ``data`` (whole blocks) from ``iv`` each time
    (the ciphertext is left in a reused buffer, which the call returns)."""
    if len(data) % 16 or len(iv) != 16:
        raise ValueError("CBC data must be whole 16-byte blocks and the IV 16 bytes")
    k, out, chain = _key(lib, key), ctypes.create_string_buffer(len(data)), ctypes.create_string_buffer(16)

    def run() -> object:
        ctypes.memmove(chain, iv, 16)
        lib.sm4_cbc_encrypt_blocks(k, chain, data, ctypes.c_size_t(len(data) // 16), out)
        return out

    return run


def sm4_ctr(lib: ctypes.CDLL, key: bytes, iv: bytes, data: bytes) -> Callable[[], object]:
    """A call that applies SM4-CTR (128-bit counter) from ``iv`` to ``data`` (whole blocks)."""
    if len(data) % 16 or len(iv) != 16:
        raise ValueError("CTR data must be whole 16-byte blocks here and the IV 16 bytes")
    k, out, ctr = _key(lib, key), ctypes.create_string_buffer(len(data)), ctypes.create_string_buffer(16)

    def run() -> object:
        ctypes.memmove(ctr, iv, 16)
        lib.sm4_ctr_encrypt_blocks(k, ctr, data, ctypes.c_size_t(len(data) // 16), out)
        return out

    return run


def sm3_hash(lib: ctypes.CDLL, data: bytes) -> Callable[[], object]:
    """A call that computes SM3(``data``) into a buffer it returns, through ``sm3_init/update/finish``."""
    ctx, dgst = ctypes.create_string_buffer(_SM3_CTX_SIZE), ctypes.create_string_buffer(32)

    def run() -> object:
        lib.sm3_init(ctx)
        lib.sm3_update(ctx, data, ctypes.c_size_t(len(data)))
        lib.sm3_finish(ctx, dgst)
        return dgst

    return run
