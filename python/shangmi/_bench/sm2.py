"""SM2 benchmarks from Python: shangmi vs OpenSSL's P-256 ECDSA (a curve of the
same size, through ``cryptography`` in this process, and ``openssl speed`` if
the CLI exists) vs the pure-Python ``gmssl`` package; with ``--peers``, also
against GmSSL's C library (``libgmssl.so`` through ctypes, see
:mod:`shangmi._bench.gmssl_lib`), alternating with ours in this process.

Run: ``python -m shangmi.cli bench sm2`` (add ``--quick`` for fewer rounds,
``--peers`` for GmSSL). After the tables it prints the speed targets against
OpenSSL and, with GmSSL, those against GmSSL's C library as explicit ratios.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator

from shangmi import sm2
from shangmi._bench import PROCESS_CPU, THREAD_CPU, Candidate, Comparison, clock_for, compare, gmssl_lib, timer

MSG = b"The quick brown fox jumps over the lazy dog (SM2 benchmark message)"
PT32 = bytes(range(32))


def _p256() -> dict[str, Callable[[], object]] | None:
    try:
        from cryptography.hazmat.primitives import hashes
        from cryptography.hazmat.primitives.asymmetric import ec
    except ImportError:
        return None
    key = ec.generate_private_key(ec.SECP256R1())
    pub = key.public_key()
    sig = key.sign(MSG, ec.ECDSA(hashes.SHA256()))
    return {
        "sign": lambda: key.sign(MSG, ec.ECDSA(hashes.SHA256())),
        "verify": lambda: pub.verify(sig, MSG, ec.ECDSA(hashes.SHA256())),
        "keygen": lambda: ec.generate_private_key(ec.SECP256R1()),
    }


def _gmssl(key: sm2.PrivateKey) -> dict[str, Callable[[], object]] | None:
    try:
        from gmssl import sm2 as gm  # type: ignore[import-untyped]
    except ImportError:
        return None
    # gmssl strips "04" with lstrip, so hand it x||y without the prefix byte.
    c = gm.CryptSM2(private_key=key.to_bytes().hex(), public_key=key.public_key().to_bytes()[1:].hex(), mode=1)
    sig = c.sign_with_sm3(MSG)
    ct = c.encrypt(PT32)
    return {
        "sign": lambda: c.sign_with_sm3(MSG),
        "verify": lambda: c.verify_with_sm3(sig, MSG),
        "encrypt": lambda: c.encrypt(PT32),
        "decrypt": lambda: c.decrypt(ct),
    }


def _openssl_speed(seconds: int) -> tuple[float, float] | None:
    """(sign/s, verify/s) of one ``openssl speed ecdsap256`` run, or None."""
    if shutil.which("openssl") is None:
        return None
    try:
        out = subprocess.run(
            ["openssl", "speed", "-seconds", str(seconds), "ecdsap256"],
            capture_output=True, text=True, timeout=30 * seconds + 30, check=False,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"256 bits ecdsa \(nistp256\)\s+\S+s\s+\S+s\s+([\d.]+)\s+([\d.]+)", out)
    return (float(m.group(1)), float(m.group(2))) if m else None


def _speed_interleaved(
    ours: dict[str, Callable[[], object]], rounds: int, seconds: int
) -> Comparison | None:
    """``openssl speed ecdsap256`` runs alternating with our operations.

    On a shared machine the clock available to us drifts by 2x within
    minutes, so a single ``openssl speed`` run minutes away from our loops
    says little. Each round runs ``openssl speed`` for ``seconds`` per
    operation and then each of ours for about as long; medians over rounds.
    ``openssl speed`` divides by the CPU time its process got (not wall time,
    unless ``-elapsed``), so ours are timed the same way, with
    ``time.process_time``: on a busy machine wall time would charge us for the
    time other processes held the core.
    """
    sign = Candidate("openssl speed P-256 sign", lambda: None)
    verify = Candidate("openssl speed P-256 verify", lambda: None)
    mine = {op: Candidate(f"shangmi {op}", fn) for op, fn in ours.items()}
    for _ in range(rounds):
        speed = _openssl_speed(seconds)
        if speed is None:
            return None
        sign.per_op_seconds.append(1 / speed[0])
        verify.per_op_seconds.append(1 / speed[1])
        for c in mine.values():
            n, start = 0, time.process_time()
            while (elapsed := time.process_time() - start) < seconds / 2:
                for _ in range(50):
                    c.fn()
                n += 50
            c.per_op_seconds.append(elapsed / n)
    return Comparison(
        "openssl speed ecdsap256 (separate process, interleaved) vs SM2 from Python",
        None,
        [*mine.values(), sign, verify],
        PROCESS_CPU,
    )


def _pool_comparison(key: sm2.PrivateKey, rounds: int, n: int) -> Comparison:
    """Pool-hit signing vs normal signing, alternating; the pool is refilled
    (on shangmi's thread pool) outside the timed region so every timed call
    is a hit, and the timed calls run in this thread: the run's clock."""
    clock = clock_for()
    now = timer(clock)
    pool = key.signature_pool(0)
    hit = Candidate("shangmi (pool hit)", lambda: None)
    normal = Candidate("shangmi (fresh k)", lambda: None)
    for _ in range(2):  # warm-up
        key.sign(MSG)
    for _ in range(rounds):
        pool.refill(n)
        start = now()
        for _ in range(n):
            key.sign(MSG, pool=pool)
        hit.per_op_seconds.append((now() - start) * 1e-9 / n)
        start = now()
        for _ in range(n):
            key.sign(MSG)
        normal.per_op_seconds.append((now() - start) * 1e-9 / n)
    assert pool.remaining == 0
    hit.name = "shangmi"
    return Comparison("SM2 sign: pool hit (shangmi) vs fresh k", None, [hit, normal], clock)


def _batch_comparison(key: sm2.PrivateKey, rounds: int, size: int) -> Comparison:
    msgs = [os.urandom(64) for _ in range(size)]
    sigs = sm2.sign_many(key, msgs)
    pub = key.public_key()
    items = [(pub, m, s) for m, s in zip(msgs, sigs)]

    def single() -> None:
        for m, s in zip(msgs, sigs):
            pub.verify(s, m)

    comp = compare(
        f"SM2 verify_many ({size} items, {os.cpu_count()} cores) vs a loop of verify",
        {"shangmi": lambda: sm2.verify_many(items), "single thread": single},
        rounds=rounds,
        threads=True,
    )
    for c in comp.candidates:  # per signature, not per batch
        c.per_op_seconds = [t / size for t in c.per_op_seconds]
    return comp


def _lanes_comparison(key: sm2.PrivateKey, rounds: int, size: int = 64) -> Comparison | None:
    """verify_many and decrypt_many per item on ONE thread (eight items at a
    time on AVX-512 IFMA lanes where the CPU has them) against OpenSSL's
    P-256 verify (``cryptography``, this process), alternating; and a pool
    refill per nonce against a one-shot signature. Wall time: the batches
    run on shangmi's (one-thread) pool, not this thread."""
    import shangmi

    p256 = _p256()
    if p256 is None:
        print("cryptography not installed: skipping the one-thread batch comparison", flush=True)
        return None
    pub = key.public_key()
    msgs = [os.urandom(64) for _ in range(size)]
    sigs = sm2.sign_many(key, msgs)
    items = [(pub, m, s) for m, s in zip(msgs, sigs)]
    cts = [pub.encrypt(PT32) for _ in range(size)]
    before = shangmi.num_threads()
    shangmi.set_num_threads(1)
    try:
        comp = compare(
            f"SM2 batches per item, one thread ({size} items) vs OpenSSL P-256 verify",
            {
                "shangmi verify_many": lambda: sm2.verify_many(items),
                "shangmi decrypt_many": lambda: sm2.decrypt_many(key, cts),
                # A new pool of `size` nonces is one refill of an empty pool.
                "shangmi pool refill": lambda: sm2.SignaturePool(size),
                "shangmi sign (one-shot)": lambda: key.sign(MSG),
                "OpenSSL P-256 ECDSA verify": p256["verify"],
            },
            rounds=rounds,
            threads=True,
        )
    finally:
        shangmi.set_num_threads(0 if before == os.cpu_count() else before)
    for c in comp.candidates:  # per item, not per batch
        if c.name != "shangmi sign (one-shot)" and not c.name.startswith("OpenSSL"):
            c.per_op_seconds = [t / size for t in c.per_op_seconds]
    return comp


def _compare_cpu(name: str, cands: dict[str, Callable[[], object]], rounds: int, batch_seconds: float = 0.1) -> Comparison:
    """:func:`shangmi._bench.compare` always timed with this thread's CPU
    time, with or without ``--cpu-time``: both sides run in this thread
    (GmSSL through ctypes, ours through the binding), and on the shared
    benchmark machine wall time mostly measures the other processes holding
    the core."""
    return compare(name, cands, rounds=rounds, batch_seconds=batch_seconds, clock=THREAD_CPU)


def _gmssl_c(key: sm2.PrivateKey, rounds: int) -> Iterator[Comparison]:
    """shangmi from Python against GmSSL's C library through ctypes, one
    alternating comparison per operation (random keys on both sides); the
    first candidate of each is what the target against GmSSL compares."""
    lib = gmssl_lib.load()
    g = gmssl_lib.sm2_peer(lib, MSG, PT32) if lib is not None else None
    if g is None:
        print("GmSSL's libgmssl.so (with SM2) not found: skipping the GmSSL C comparisons", flush=True)
        return
    pub = key.public_key()
    sig = key.sign(MSG)
    ct = pub.encrypt(PT32)
    specs: list[tuple[str, dict[str, Callable[[], object]]]] = [
        ("keygen", {"shangmi": sm2.PrivateKey.generate, "GmSSL sm2_key_generate": g["keygen"]}),
        ("sign", {
            "shangmi": lambda: key.sign(MSG),
            "GmSSL SM2_SIGN_CTX (reused)": g["sign_ctx"],
            "GmSSL sm2_sign (digest)": g["sign_digest"],
        }),
        ("verify", {
            "shangmi": lambda: pub.verify(sig, MSG),
            "GmSSL SM2_VERIFY_CTX (reused)": g["verify_ctx"],
            "GmSSL sm2_verify (digest)": g["verify_digest"],
        }),
        ("encrypt", {"shangmi": lambda: pub.encrypt(PT32), "GmSSL sm2_encrypt": g["encrypt"]}),
        ("decrypt", {"shangmi": lambda: key.decrypt(ct), "GmSSL sm2_decrypt": g["decrypt"]}),
    ]
    for op, cands in specs:
        yield _compare_cpu(f"SM2 {op} ({len(MSG)} B message, 32 B plaintext, DER) vs GmSSL's C library", cands, rounds)
    yield _compare_cpu(
        "SM2 sign: shangmi one-shot vs GmSSL init+update+finish (Z and 32 precomputed k per call)",
        {"shangmi": lambda: key.sign(MSG), "GmSSL SM2_SIGN_CTX one-shot": g["sign_oneshot"]},
        max(3, rounds // 2),
    )


#: SM2 speed targets against GmSSL: (operation, GmSSL candidate, minimum rate ratio).
GMSSL_TARGETS = [
    ("keygen", "GmSSL sm2_key_generate", 1.2),
    ("sign", "GmSSL SM2_SIGN_CTX (reused)", 1.0),
    ("verify", "GmSSL SM2_VERIFY_CTX (reused)", 1.5),
    ("encrypt", "GmSSL sm2_encrypt", 1.5),
    ("decrypt", "GmSSL sm2_decrypt", 1.5),
]


def run(quick: bool = False, peers: bool = False) -> Iterator[Comparison]:
    rounds = 5 if quick else 11
    key = sm2.PrivateKey.generate()
    pub = key.public_key()
    prepared = pub.prepare()
    sig = key.sign(MSG)
    ct = pub.encrypt(PT32)
    p256 = _p256()
    gm = _gmssl(key)

    def with_peers(op: str, ours: Callable[[], object], extra: dict[str, Callable[[], object]] | None = None) -> dict[str, Callable[[], object]]:
        cands: dict[str, Callable[[], object]] = {"shangmi": ours}
        cands.update(extra or {})
        return cands

    results: dict[str, Comparison] = {}
    p256_sign = {"OpenSSL P-256 ECDSA sign": p256["sign"]} if p256 else {}
    p256_verify = {"OpenSSL P-256 ECDSA verify": p256["verify"]} if p256 else {}
    gm_r = 3 if quick else 5

    specs: list[tuple[str, str, Callable[[], object], dict[str, Callable[[], object]]]] = [
        ("sign", "SM2 sign (DER, default uid)", lambda: key.sign(MSG), p256_sign),
        ("verify", "SM2 verify", lambda: pub.verify(sig, MSG), p256_verify),
        ("encrypt", "SM2 encrypt 32 B", lambda: pub.encrypt(PT32), p256_verify),
        ("decrypt", "SM2 decrypt 32 B", lambda: key.decrypt(ct), p256_verify),
        ("keygen", "SM2 keygen", sm2.PrivateKey.generate, {"OpenSSL P-256 keygen": p256["keygen"]} if p256 else {}),
        ("prepared encrypt", "SM2 encrypt 32 B: prepared key (shangmi) vs unprepared", lambda: prepared.encrypt(PT32),
         {"unprepared": lambda: pub.encrypt(PT32)}),
        ("prepared verify", "SM2 verify: prepared key (shangmi) vs unprepared", lambda: prepared.verify(sig, MSG),
         {"unprepared": lambda: pub.verify(sig, MSG)}),
    ]
    for op, title, ours, extra in specs:
        comp = compare(title, with_peers(op, ours, extra), rounds=rounds)
        results[op] = comp
        yield comp

    pool = _pool_comparison(key, rounds, 300 if quick else 2000)
    results["pool"] = pool
    yield pool
    batch = _batch_comparison(key, rounds, 64 if quick else 256)
    results["batch"] = batch
    yield batch
    lanes = _lanes_comparison(key, rounds)
    if lanes is not None:
        results["lanes"] = lanes
        yield lanes

    gm_results: dict[str, Comparison] = {}
    if gm is not None:
        ours_fns = {
            "sign": lambda: key.sign(MSG, encoding="raw"),
            "verify": lambda: pub.verify(sig, MSG),
            "encrypt": lambda: pub.encrypt(PT32),
            "decrypt": lambda: key.decrypt(ct),
        }
        for op in ("sign", "verify", "encrypt", "decrypt"):
            comp = compare(
                f"SM2 {op} vs pure-Python gmssl",
                {"shangmi": ours_fns[op], "gmssl (pure Python)": gm[op]},
                rounds=gm_r, batch_seconds=0.2,
            )
            gm_results[op] = comp
            yield comp

    gmc: dict[str, Comparison] = {}
    if peers:
        for comp in _gmssl_c(key, rounds):
            gmc[comp.name.split()[1]] = comp
            yield comp

    speed = _speed_interleaved(
        {
            "sign": lambda: key.sign(MSG),
            "verify": lambda: pub.verify(sig, MSG),
            "encrypt": lambda: pub.encrypt(PT32),
            "decrypt": lambda: key.decrypt(ct),
        },
        rounds=3 if quick else 5,
        seconds=1 if quick else 3,
    )
    if speed is not None:
        yield speed

    _print_targets(results, gm_results, speed, p256 is not None)
    if gmc:
        _print_gmssl_targets(results, gmc)


def _rate(comp: Comparison, name: str = "shangmi") -> float:
    return 1 / next(c for c in comp.candidates if c.name == name).median


def _print_targets(
    r: dict[str, Comparison], gm: dict[str, Comparison], speed: Comparison | None, have_p256: bool
) -> None:
    lines = ["", "SM2 targets: ratios of median rates measured above"]

    def line(label: str, value: float, goal: str, ok: bool) -> None:
        lines.append(f"  {label:<58} {value:7.2f}x   target {goal:<7} {'MET' if ok else 'not met'}")

    if have_p256:
        p_sign = _rate(r["sign"], "OpenSSL P-256 ECDSA sign")
        p_verify = _rate(r["verify"], "OpenSSL P-256 ECDSA verify")
        line("sign rate / P-256 sign rate (cryptography, same process)", _rate(r["sign"]) / p_sign, ">= 2.5", _rate(r["sign"]) / p_sign >= 2.5)
        line("verify rate / P-256 verify rate", _rate(r["verify"]) / p_verify, ">= 1.2", _rate(r["verify"]) / p_verify >= 1.2)
        line("encrypt (32 B) rate / P-256 verify rate", _rate(r["encrypt"]) / p_verify, ">= 1.3", _rate(r["encrypt"]) / p_verify >= 1.3)
        line("decrypt (32 B) rate / P-256 verify rate", _rate(r["decrypt"]) / p_verify, ">= 1.5", _rate(r["decrypt"]) / p_verify >= 1.5)
    if speed is not None:
        s = speed.ratio("openssl speed P-256 sign", "shangmi sign")
        v = speed.ratio("openssl speed P-256 verify", "shangmi verify")
        line("sign rate / `openssl speed ecdsap256` sign rate", s, ">= 2.5", s >= 2.5)
        line("verify rate / `openssl speed ecdsap256` verify rate", v, ">= 1.2", v >= 1.2)
        e = speed.ratio("openssl speed P-256 verify", "shangmi encrypt")
        d = speed.ratio("openssl speed P-256 verify", "shangmi decrypt")
        line("encrypt rate / `openssl speed` P-256 verify rate", e, ">= 1.3", e >= 1.3)
        line("decrypt rate / `openssl speed` P-256 verify rate", d, ">= 1.5", d >= 1.5)
    pe = r["prepared encrypt"].ratio("unprepared")
    pv = r["prepared verify"].ratio("unprepared")
    line("prepared encrypt speed-up over unprepared", pe, ">= 2", pe >= 2)
    line("prepared verify speed-up over unprepared", pv, ">= 2", pv >= 2)
    pool_latency = 1 / r["pool"].ratio("shangmi (fresh k)")
    line("pool-hit sign latency / normal sign latency", pool_latency, "<= 0.3", pool_latency <= 0.3)
    if "lanes" in r:
        by = {c.name: c for c in r["lanes"].candidates}
        p256 = by["OpenSSL P-256 ECDSA verify"]
        for op, goal in (("verify_many", 3.3), ("decrypt_many", 3.0)):
            c = by[f"shangmi {op}"]
            med, mn = p256.median / c.median, p256.min / c.min
            line(f"{op} per item, 1 thread / P-256 verify (min {mn:.2f}x)", med, f">= {goal}", med >= goal)
        refill = by["shangmi pool refill"].median / by["shangmi sign (one-shot)"].median
        line("pool refill per nonce / one-shot sign (1 thread)", refill, "<= 0.5", refill <= 0.5)
    vm = r["batch"].ratio("single thread")
    line(f"verify_many speed-up over a single thread ({os.cpu_count()} cores)", vm, ">= 1.7", vm >= 1.7)
    for op, comp in gm.items():
        lines.append(f"  {op + ' vs pure-Python gmssl':<58} {comp.ratio('gmssl (pure Python)'):7.0f}x faster")
    print("\n".join(lines), flush=True)


def _print_gmssl_targets(r: dict[str, Comparison], gmc: dict[str, Comparison]) -> None:
    lines = ["", "SM2 targets against GmSSL's C library: ratios of median rates (min in brackets)"]
    for op, peer, goal in GMSSL_TARGETS:
        comp = gmc[op]
        by = {c.name: c for c in comp.candidates}
        ratio, ratio_min = comp.ratio(peer), by[peer].min / by["shangmi"].min
        ok = "MET" if ratio >= goal else "not met"
        lines.append(f"  {op + ' rate / ' + peer:<58} {ratio:7.2f}x ({ratio_min:5.2f}x)  target >= {goal:<4} {ok}")
    pool = r["pool"].ratio("shangmi (fresh k)")
    lines.append(f"  {'pool-hit sign rate / one-shot sign rate':<58} {pool:7.2f}x          target >= 5    {'MET' if pool >= 5 else 'not met'}")
    print("\n".join(lines), flush=True)
