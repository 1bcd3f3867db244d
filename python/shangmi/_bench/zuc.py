"""ZUC benchmarks: 128-EEA3 and 128-EIA3 over 1 MiB, ZUC-128 keystream.

No installed peer implements ZUC (the pure-Python ``gmssl`` package has SM2,
SM3 and SM4 only; OpenSSL 3 and ``cryptography`` do not expose ZUC), so these
are shangmi's own figures; the backend in use is shown in brackets (run with
``SHANGMI_CPU_DISABLE=all`` for the portable one).
"""

from __future__ import annotations

import os
from shangmi import zuc
from shangmi._bench import Comparison, compare


def run(quick: bool = False) -> list[Comparison]:
    size = 1 << 20
    data = os.urandom(size)
    key = os.urandom(16)
    rounds = 5 if quick else 11
    label = f"[{zuc.backend()}]"
    out = [
        compare(f"128-EEA3, 1 MiB {label}", {"shangmi": lambda: zuc.eea3(key, 0x1234, 5, 1, data)},
                bytes_per_op=size, rounds=rounds),
        compare(f"128-EIA3, 1 MiB {label}", {"shangmi": lambda: zuc.eia3(key, 0x1234, 5, 1, data)},
                bytes_per_op=size, rounds=rounds),
    ]
    # Many bearers at once (base-station form): 16 messages of 64 KiB, eea3_many
    # against a loop of single-message calls, alternating in one process.
    msgs: list[zuc.Message] = [(key, 0x1234 + i, i % 32, i % 2, data[i << 16 : (i + 1) << 16]) for i in range(16)]
    out.append(compare(f"128-EEA3, 16 x 64 KiB messages {label}",
                       {"shangmi": lambda: zuc.eea3_many(msgs), "eea3() per message": lambda: [zuc.eea3(*m) for m in msgs]},
                       bytes_per_op=size, rounds=rounds))
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
