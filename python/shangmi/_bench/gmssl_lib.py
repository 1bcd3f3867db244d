"""GmSSL's C library (``libgmssl.so``) through ctypes, for benchmarks only.

Nothing of GmSSL ships with shangmi: this module loads a library the user
built or installed and wraps the few functions the benchmarks time
(``sm4_set_encrypt_key``, ``sm4_cbc_encrypt_blocks``,
``sm4_ctr_encrypt_blocks``, ``sm3_init/update/finish``, as declared in
GmSSL 3's ``gmssl/sm4.h`` and ``gmssl/sm3.h``; and for SM2, through
:func:`sm2_peer`, ``sm2_key_generate``, ``sm2_sign``/``sm2_verify`` on a
digest, the ``SM2_SIGN_CTX``/``SM2_VERIFY_CTX`` init/update/finish/reset
calls and ``sm2_encrypt``/``sm2_decrypt`` of ``gmssl/sm2.h``).

Other benchmark modules use :func:`load`; ``shangmi bench --gmssl-lib PATH``
sets the path through :func:`set_default_path`.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable

__all__ = ["ENV", "default_path", "load", "set_default_path", "sm2_peer", "sm4_cbc_encrypt", "sm4_ctr", "sm3_hash"]

#: The environment variable naming a GmSSL build to measure (``--gmssl-lib`` overrides it).
ENV = "SHANGMI_GMSSL_LIB"

_chosen: str | None = None
_cache: dict[str, ctypes.CDLL | None] = {}

# SM4_KEY is uint32_t rk[32]; SM3_CTX is 32 + 8 + 64 + 8 bytes on LP64.
# Both are given generous, aligned room so a later GmSSL that grows them by
# a field cannot write past our buffer.
_SM4_KEY_SIZE = 256
_SM3_CTX_SIZE = 512
# SM2_KEY is a Jacobian point and a scalar (128 bytes); SM2_SIGN_CTX holds
# two SM3 contexts, the key, 32 precomputed (k, x1) pairs and a 16-point
# table (about 4 KB); SM2_VERIFY_CTX about 1.9 KB. Room to spare again.
_SM2_KEY_SIZE = 512
_SM2_SIGN_CTX_SIZE = 16384
_SM2_VERIFY_CTX_SIZE = 8192
#: GmSSL's default signer ID (GB/T 32918's "1234567812345678", as ours).
_SM2_DEFAULT_ID = b"1234567812345678"


def set_default_path(path: str | None) -> None:
    """Makes ``path`` what :func:`load` opens when called without one."""
    global _chosen
    _chosen = path


def default_path() -> str | None:
    """The library to measure: the one given to :func:`set_default_path`
    (``--gmssl-lib``), else ``$SHANGMI_GMSSL_LIB``, else None (GmSSL is then
    skipped: nothing of it ships with shangmi, and no path is guessed)."""
    return _chosen or os.environ.get(ENV) or None


def load(path: str | None = None) -> ctypes.CDLL | None:
    """GmSSL's shared library, or None when it is absent or lacks SM3/SM4.

    ``path`` defaults to :func:`default_path`. A library that cannot be
    loaded, or misses one of the functions wrapped here, gives None.
    """
    path = path or default_path()
    if path is None or not os.path.exists(path):
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


def sm2_peer(lib: ctypes.CDLL, msg: bytes, pt: bytes) -> dict[str, Callable[[], object]] | None:
    """GmSSL's SM2 operations as calls, or None if the library lacks them.

    A fresh GmSSL key (``sm2_key_generate``) signs ``msg`` and encrypts
    ``pt``; the calls are ``keygen``, ``sign_digest`` (``sm2_sign``: one
    k·G, DER), ``sign_ctx`` (a reused ``SM2_SIGN_CTX``: reset, update with
    ``msg``, finish; its init precomputed the signer ID's Z and it draws
    (k, x1) pairs 32 at a time with one shared inversion), ``sign_oneshot``
    (init + update + finish, Z and the 32-pair precomputation every call),
    ``verify_digest`` (``sm2_verify``), ``verify_ctx`` (a reused
    ``SM2_VERIFY_CTX``), ``encrypt`` and ``decrypt`` (``sm2_encrypt`` /
    ``sm2_decrypt``, DER). Each call checks GmSSL's return value.
    """
    size_p = ctypes.POINTER(ctypes.c_size_t)
    protos: dict[str, list[object]] = {
        "sm2_key_generate": [ctypes.c_char_p],
        "sm2_sign": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, size_p],
        "sm2_verify": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
        "sm2_sign_init": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
        "sm2_sign_update": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
        "sm2_sign_finish": [ctypes.c_char_p, ctypes.c_char_p, size_p],
        "sm2_sign_reset": [ctypes.c_char_p],
        "sm2_verify_init": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
        "sm2_verify_update": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
        "sm2_verify_finish": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t],
        "sm2_verify_reset": [ctypes.c_char_p],
        "sm2_encrypt": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, size_p],
        "sm2_decrypt": [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, size_p],
    }
    try:
        f = {name: getattr(lib, name) for name in protos}
    except AttributeError:
        return None
    for name, args in protos.items():
        f[name].argtypes = args
        f[name].restype = ctypes.c_int

    def ok(rc: int, what: str) -> None:
        if rc != 1:
            raise RuntimeError(f"GmSSL {what} failed ({rc})")

    key = ctypes.create_string_buffer(_SM2_KEY_SIZE)
    ok(f["sm2_key_generate"](key), "sm2_key_generate")
    uid = _SM2_DEFAULT_ID
    dgst = ctypes.create_string_buffer(32)
    # A fixed digest for the digest forms (their time doesn't depend on it).
    sig, siglen = ctypes.create_string_buffer(80), ctypes.c_size_t(0)
    ok(f["sm2_sign"](key, dgst, sig, ctypes.byref(siglen)), "sm2_sign")
    dsig = sig.raw[: siglen.value]
    sctx = ctypes.create_string_buffer(_SM2_SIGN_CTX_SIZE)
    ok(f["sm2_sign_init"](sctx, key, uid, len(uid)), "sm2_sign_init")
    ok(f["sm2_sign_update"](sctx, msg, len(msg)), "sm2_sign_update")
    msig, msiglen = ctypes.create_string_buffer(80), ctypes.c_size_t(0)
    ok(f["sm2_sign_finish"](sctx, msig, ctypes.byref(msiglen)), "sm2_sign_finish")
    msg_sig = msig.raw[: msiglen.value]
    vctx = ctypes.create_string_buffer(_SM2_VERIFY_CTX_SIZE)
    ok(f["sm2_verify_init"](vctx, key, uid, len(uid)), "sm2_verify_init")
    ct, ctlen = ctypes.create_string_buffer(512), ctypes.c_size_t(0)
    ok(f["sm2_encrypt"](key, pt, len(pt), ct, ctypes.byref(ctlen)), "sm2_encrypt")
    ciphertext = ct.raw[: ctlen.value]
    out, outlen = ctypes.create_string_buffer(512), ctypes.c_size_t(0)
    ok(f["sm2_decrypt"](key, ciphertext, len(ciphertext), out, ctypes.byref(outlen)), "sm2_decrypt")
    if out.raw[: outlen.value] != pt:
        raise RuntimeError("GmSSL sm2_decrypt did not return the plaintext")
    k2 = ctypes.create_string_buffer(_SM2_KEY_SIZE)
    ctx2 = ctypes.create_string_buffer(_SM2_SIGN_CTX_SIZE)

    def keygen() -> object:
        return f["sm2_key_generate"](k2)

    def sign_digest() -> object:
        ok(f["sm2_sign"](key, dgst, sig, ctypes.byref(siglen)), "sm2_sign")
        return sig

    def sign_ctx() -> object:
        f["sm2_sign_reset"](sctx)
        f["sm2_sign_update"](sctx, msg, len(msg))
        ok(f["sm2_sign_finish"](sctx, msig, ctypes.byref(msiglen)), "sm2_sign_finish")
        return msig

    def sign_oneshot() -> object:
        f["sm2_sign_init"](ctx2, key, uid, len(uid))
        f["sm2_sign_update"](ctx2, msg, len(msg))
        ok(f["sm2_sign_finish"](ctx2, msig, ctypes.byref(msiglen)), "sm2_sign_finish")
        return msig

    def verify_digest() -> object:
        ok(f["sm2_verify"](key, dgst, dsig, len(dsig)), "sm2_verify")
        return None

    def verify_ctx() -> object:
        f["sm2_verify_reset"](vctx)
        f["sm2_verify_update"](vctx, msg, len(msg))
        ok(f["sm2_verify_finish"](vctx, msg_sig, len(msg_sig)), "sm2_verify_finish")
        return None

    def encrypt() -> object:
        ok(f["sm2_encrypt"](key, pt, len(pt), ct, ctypes.byref(ctlen)), "sm2_encrypt")
        return ct

    def decrypt() -> object:
        ok(f["sm2_decrypt"](key, ciphertext, len(ciphertext), out, ctypes.byref(outlen)), "sm2_decrypt")
        return out

    verify_ctx()  # the message signature verifies under the verify context
    return {
        "keygen": keygen, "sign_digest": sign_digest, "sign_ctx": sign_ctx, "sign_oneshot": sign_oneshot,
        "verify_digest": verify_digest, "verify_ctx": verify_ctx, "encrypt": encrypt, "decrypt": decrypt,
    }
