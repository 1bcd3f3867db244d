"""SM4 benchmarks on 1 MiB: shangmi vs cryptography (OpenSSL) per mode, and
vs the pure-Python gmssl on a small input (it manages ~100 KB/s)."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from shangmi import sm4
from shangmi._bench import Comparison, compare


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


def run(quick: bool = False) -> list[Comparison]:
    size = 1 << 20
    key, iv, nonce = os.urandom(16), os.urandom(16), os.urandom(12)
    data = os.urandom(size)
    rounds = 5 if quick else 11
    out: list[Comparison] = []
    try:
        from cryptography.hazmat.primitives.ciphers import modes
    except ImportError:
        modes = None  # type: ignore[assignment]
    label = f"[backend {sm4.backend()}]"

    cbc, ctr, ecb, gcm = sm4.SM4CBC(key), sm4.SM4CTR(key), sm4.SM4ECB(key), sm4.SM4GCM(key)
    cbc_ct = cbc.encrypt(iv, data, padding=False)
    cases: list[tuple[str, Callable[[], object], Any, bytes, bool]] = [
        ("SM4-CTR", lambda: ctr.encrypt(iv, data), modes and modes.CTR(iv), data, False),
        ("SM4-CBC encrypt", lambda: cbc.encrypt(iv, data, padding=False), modes and modes.CBC(iv), data, False),
        ("SM4-CBC decrypt", lambda: cbc.decrypt(iv, cbc_ct, padding=False), modes and modes.CBC(iv), cbc_ct, True),
        ("SM4-ECB encrypt", lambda: ecb.encrypt(data, padding=False), modes and modes.ECB(), data, False),
    ]
    for name, ours, mode, peer_data, dec in cases:
        cands: dict[str, Callable[[], object]] = {"shangmi": ours}
        peer = _ossl(mode, key, peer_data, dec) if mode is not None else None
        if peer is not None:
            cands["cryptography (OpenSSL)"] = peer
        out.append(compare(f"{name}, 1 MiB {label}", cands, bytes_per_op=size, rounds=rounds))

    cands = {"shangmi": lambda: gcm.encrypt(nonce, data)}
    peer = _ossl(modes.GCM(nonce), key, data) if modes is not None else None
    if peer is not None:
        cands["cryptography (OpenSSL)"] = peer
    else:
        print("(cryptography has no SM4-GCM here: shangmi measured alone)")
    out.append(compare(f"SM4-GCM encrypt, 1 MiB {label}", cands, bytes_per_op=size, rounds=rounds))

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
