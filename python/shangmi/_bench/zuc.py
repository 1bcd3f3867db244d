"""ZUC benchmarks: 128-EEA3 and 128-EIA3 over 1 MiB, ``eea3_many`` of
16 x 64 KiB (aggregate throughput), ZUC-128 keystream and the ZUC-256 MAC.

With ``peers``, GmSSL's ``zuc_eea_encrypt`` / ``zuc_eia_generate_mac`` run
through ctypes when a GmSSL build is given (``--gmssl-lib`` or
``SHANGMI_GMSSL_LIB`` names ``libgmssl.so``; skipped when absent). OpenSSL 3 and
``cryptography`` do not expose ZUC. The backend in use is shown in brackets
(``shangmi bench zuc --all-backends`` repeats the run under each CPU mask).
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable
from typing import Any

from shangmi import zuc
from shangmi._bench import Comparison, compare, gmssl_lib

def gmssl() -> Any:
    """GmSSL's shared library (``--gmssl-lib`` / ``$SHANGMI_GMSSL_LIB``, see
    :mod:`shangmi._bench.gmssl_lib`) with its ZUC functions declared, or None."""
    lib: Any = gmssl_lib.load()
    if lib is None:
        return None
    try:
        lib.zuc_eea_encrypt.restype = None
        lib.zuc_eea_encrypt.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                        ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
        lib.zuc_eia_generate_mac.restype = ctypes.c_uint32
        lib.zuc_eia_generate_mac.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p,
                                             ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32]
    except AttributeError:
        return None
    return lib


def _gmssl_eea3(lib: Any, key: bytes, data: bytes) -> Callable[[], object]:
    out = ctypes.create_string_buffer(len(data))

    def run() -> object:
        lib.zuc_eea_encrypt(data, out, 8 * len(data), key, 0x1234, 5, 1)
        return out

    return run


def run(quick: bool = False, peers: bool = False) -> list[Comparison]:
    size = 1 << 20
    data = os.urandom(size)
    key = os.urandom(16)
    rounds = 5 if quick else 11
    label = f"[{zuc.backend()}]"
    lib = gmssl() if peers else None
    eea3: dict[str, Callable[[], object]] = {"shangmi": lambda: zuc.eea3(key, 0x1234, 5, 1, data)}
    eia3: dict[str, Callable[[], object]] = {"shangmi": lambda: zuc.eia3(key, 0x1234, 5, 1, data)}
    if lib is not None:
        eea3["GmSSL zuc_eea_encrypt"] = _gmssl_eea3(lib, key, data)
        eia3["GmSSL zuc_eia_generate_mac"] = lambda: lib.zuc_eia_generate_mac(data, 8 * size, key, 0x1234, 5, 1)
    out = [
        compare(f"128-EEA3, 1 MiB {label}", eea3, bytes_per_op=size, rounds=rounds),
        compare(f"128-EIA3, 1 MiB {label}", eia3, bytes_per_op=size, rounds=rounds),
    ]
    # Many bearers at once (base-station form): 16 messages of 64 KiB, eea3_many
    # against a loop of single-message calls, alternating in one process.
    msgs: list[zuc.Message] = [(key, 0x1234 + i, i % 32, i % 2, data[i << 16 : (i + 1) << 16]) for i in range(16)]
    outs = [bytearray(1 << 16) for _ in msgs]
    many: dict[str, Callable[[], object]] = {
        "shangmi": lambda: zuc.eea3_many(msgs),
        "shangmi eea3_many_into (reused buffers)": lambda: zuc.eea3_many_into(msgs, outs),
        "eea3() per message": lambda: [zuc.eea3(*m) for m in msgs],
    }
    if lib is not None:
        many["GmSSL zuc_eea_encrypt, one 1 MiB stream"] = _gmssl_eea3(lib, key, data)
    out.append(compare(f"128-EEA3, 16 x 64 KiB messages {label}", many, bytes_per_op=size, rounds=rounds))
    out.append(compare(f"128-EIA3, 16 x 64 KiB messages {label}",
                       {"shangmi": lambda: zuc.eia3_many(msgs), "eia3() per message": lambda: [zuc.eia3(*m) for m in msgs]},
                       bytes_per_op=size, rounds=rounds))
    if not quick:
        gen = zuc.ZUC128(key, key)
        out.append(compare(f"ZUC-128 keystream, 1 MiB {label}", {"shangmi": lambda: gen.keystream(size)},
                           bytes_per_op=size, rounds=rounds))
        iv = os.urandom(23)
        key32 = os.urandom(32)
        out.append(compare(f"ZUC-256 MAC-128, 1 MiB {label}",
                           {"shangmi": lambda: zuc.zuc256_mac(key32, iv, data, tag_bits=128)},
                           bytes_per_op=size, rounds=rounds))
        small = data[:64]
        out.append(compare(f"128-EIA3, 64 bytes (setup-bound) {label}",
                           {"shangmi": lambda: zuc.eia3(key, 0x1234, 5, 1, small)},
                           bytes_per_op=64, rounds=rounds))
    return out
