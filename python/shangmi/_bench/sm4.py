"""SM4 benchmarks on 1 MiB: shangmi vs cryptography (OpenSSL) per mode; with
``peers``, also libgcrypt (through ctypes, where ``libgcrypt.so.20`` is
installed), GmSSL's C library (``gmssl_lib``: SM4-CBC encryption and
SM4-CTR) and the pure-Python gmssl on a small input. ``encrypt_many`` of
16 x 64 KiB is compared with one-stream CBC encryption of the same bytes."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Callable
from typing import Any

from shangmi import sm4
from shangmi._bench import Comparison, compare, gmssl_lib

_GCRY_SM4 = 318
_MODE = {"ecb": 1, "cbc": 3, "ctr": 6, "gcm": 9}


def gcrypt() -> Any:
    """libgcrypt through ctypes, or None when it is not installed."""
    name = ctypes.util.find_library("gcrypt") or "libgcrypt.so.20"
    try:
        lib = ctypes.CDLL(name)
        lib.gcry_check_version.restype = ctypes.c_char_p
        if lib.gcry_check_version(None) is None:
            return None
    except OSError:
        return None
    return lib


def _gcrypt_cipher(lib: Any, mode: str, key: bytes, iv: bytes, data: bytes, decrypt: bool) -> Callable[[], object] | None:
    h = ctypes.c_void_p()
    if lib.gcry_cipher_open(ctypes.byref(h), _GCRY_SM4, _MODE[mode], 0) != 0:
        return None
    if lib.gcry_cipher_setkey(h, key, len(key)) != 0:
        return None
    out = ctypes.create_string_buffer(len(data))
    tag = ctypes.create_string_buffer(16)
    op = lib.gcry_cipher_decrypt if decrypt else lib.gcry_cipher_encrypt

    def run() -> object:
        if mode == "ctr":
            lib.gcry_cipher_setctr(h, iv, 16)
        elif mode in ("cbc", "gcm"):
            lib.gcry_cipher_setiv(h, iv, len(iv))
        err = op(h, out, len(data), data, len(data))
        if err:
            raise RuntimeError(f"libgcrypt error {err}")
        if mode == "gcm":
            lib.gcry_cipher_gettag(h, tag, 16)
        return out

    run()
    return run


def _ossl(mode: Any, key: bytes, data: bytes, decrypt: bool = False) -> Callable[[], object] | None:
    try:
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

        cipher = Cipher(algorithms.SM4(key), mode)

        def run() -> object:
            ctx = cipher.decryptor() if decrypt else cipher.encryptor()
            return ctx.update(data) + ctx.finalize()

        run()
        return run
    except Exception:  # noqa: BLE001 - cryptography missing or built without SM4
        return None


def run(quick: bool = False, peers: bool = False) -> list[Comparison]:
    size = 1 << 20
    key, iv, nonce = os.urandom(16), os.urandom(16), os.urandom(12)
    data = os.urandom(size)
    rounds = 5 if quick else 11
    out: list[Comparison] = []
    try:
        from cryptography.hazmat.primitives.ciphers import modes
    except ImportError:
        modes = None  # type: ignore[assignment]
    lib = gcrypt() if peers else None
    gm_lib = gmssl_lib.load() if peers else None
    label = f"[backend {sm4.backend()}]"

    cbc, ctr, ecb, gcm = sm4.SM4CBC(key), sm4.SM4CTR(key), sm4.SM4ECB(key), sm4.SM4GCM(key)
    cbc_ct = cbc.encrypt(iv, data, padding=False)
    cases: list[tuple[str, str, Callable[[], object], Any, bytes, bool]] = [
        ("SM4-CTR", "ctr", lambda: ctr.encrypt(iv, data), modes and modes.CTR(iv), data, False),
        ("SM4-CBC encrypt", "cbc", lambda: cbc.encrypt(iv, data, padding=False), modes and modes.CBC(iv), data, False),
        ("SM4-CBC decrypt", "cbc", lambda: cbc.decrypt(iv, cbc_ct, padding=False), modes and modes.CBC(iv), cbc_ct, True),
        ("SM4-ECB encrypt", "ecb", lambda: ecb.encrypt(data, padding=False), modes and modes.ECB(), data, False),
        ("SM4-GCM encrypt", "gcm", lambda: gcm.encrypt(nonce, data), modes and modes.GCM(nonce), data, False),
    ]
    for name, short, ours, mode, peer_data, dec in cases:
        cands: dict[str, Callable[[], object]] = {"shangmi": ours}
        peer = _ossl(mode, key, peer_data, dec) if mode is not None else None
        if peer is not None:
            cands["cryptography (OpenSSL)"] = peer
        if lib is not None:
            g = _gcrypt_cipher(lib, short, key, nonce if short == "gcm" else iv, peer_data, dec)
            if g is not None:
                cands["libgcrypt"] = g
        if gm_lib is not None and short in ("cbc", "ctr") and not dec:
            wrap = gmssl_lib.sm4_cbc_encrypt if short == "cbc" else gmssl_lib.sm4_ctr
            cands["GmSSL (libgmssl)"] = wrap(gm_lib, key, iv, peer_data)
        out.append(compare(f"{name}, 1 MiB {label}", cands, bytes_per_op=size, rounds=rounds))

    # Independent messages: 16 x 64 KiB side by side vs the same bytes as one stream.
    items = [(os.urandom(16), data[i << 16 : (i + 1) << 16]) for i in range(16)]
    out.append(
        compare(
            f"SM4-CBC encrypt_many 16 x 64 KiB vs one stream of 1 MiB {label}",
            {
                "shangmi": lambda: cbc.encrypt_many(items, padding=False),
                "shangmi one stream": lambda: cbc.encrypt(iv, data, padding=False),
            },
            bytes_per_op=size,
            rounds=rounds,
        )
    )

    if peers:
        try:
            from gmssl import sm4 as gm  # type: ignore[import-untyped]

            small = data[:4096]
            g = gm.CryptSM4()
            g.set_key(key, gm.SM4_ENCRYPT)
            out.append(
                compare(
                    f"SM4-CBC encrypt, 4 KiB (vs pure-Python gmssl) {label}",
                    {
                        "shangmi": lambda: cbc.encrypt(iv, small, padding=False),
                        "gmssl (pure Python)": lambda: g.crypt_cbc(iv, small),
                    },
                    bytes_per_op=len(small),
                    rounds=3 if quick else 5,
                )
            )
        except ImportError:
            pass
    return out
