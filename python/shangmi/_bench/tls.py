"""TLCP benchmarks from Python: full handshakes per second (client side and
server side apart) and 16 KiB record throughput (encrypt side and decrypt
side apart), measured on shangmi's engine through the binding, two
``_native.TlsConnection`` objects shuttling bytes in memory in one thread,
each side timed with this thread's CPU time around its own calls.

With GmSSL's timing program (``bench/tls/gmssl_tlcp_bench.c``, built by
``bench/tls/build.sh``; given by ``--gmssl-tls-bench PATH`` or
``SHANGMI_GMSSL_TLS_BENCH``) the two run alternately in the same run, A B A
B after a warm-up: each round times a batch of our handshakes and records,
then one run of GmSSL's program (the same suites over a socketpair, client
and server in two threads, each side's thread CPU time). Reported: min and
median per operation, and the min and median of the per-round ratios
against the targets (handshakes at least 2x GmSSL's, records at least 5x).

ECC handshakes run without client certificates; ECDHE ones with the
client's signing and encryption certificates, which the server validates,
as GmSSL's server does with ``-cert_request -cacert``. The PKI is
``tests/vectors/tlcp`` (made by Tongsuo), found beside the package in a
source checkout or at ``SHANGMI_TLCP_VECTORS``.

Run: ``shangmi bench tls [--quick] [--gmssl-tls-bench PATH]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from shangmi import _native
from shangmi._bench import THREAD_CPU, Candidate, Comparison

#: The environment variable naming GmSSL's TLCP timing program.
ENV = "SHANGMI_GMSSL_TLS_BENCH"
#: The environment variable naming the test PKI's folder.
VECTORS_ENV = "SHANGMI_TLCP_VECTORS"
HANDSHAKE_SUITES = ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3"]
RECORD_SUITES = ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3"]
RECORD = 16384
#: Records per write in the bulk rows (a 256 KiB ``sendall``).
BULK = 16
BULK_SUFFIX = ", 256 KiB writes"
#: The targets, as the least ratio (GmSSL's time / ours) per kind of figure.
TARGETS = {"handshake": 2.0, "record": 5.0}
GMSSL = "GmSSL 3 (C, socketpair)"

def vectors() -> Path | None:
    """The TLCP test PKI's folder, or None when neither the environment nor
    a source checkout has it."""
    env = os.environ.get(VECTORS_ENV)
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parents[3] / "tests" / "vectors" / "tlcp")
    return next((p for p in candidates if (p / "server-sign.pem").is_file()), None)


class _Pair:
    """A client and a server context for one suite; :meth:`connections`
    makes a fresh native client and server connection from them."""

    def __init__(self, pki: Path, suite: str) -> None:
        from shangmi.tls import CERT_REQUIRED, TLSContext

        ecdhe = suite.startswith("ECDHE")
        self.suite = suite
        self.server = TLSContext("tlcp", server_side=True)
        self.server.load_cert_chain(pki / "server-sign-chain.pem", pki / "server-sign.key.pem")
        self.server.load_enc_cert_chain(pki / "server-enc.pem", pki / "server-enc.key.pem")
        self.server.set_ciphers(suite)
        self.client = TLSContext("tlcp")
        self.client.load_verify_locations(cafile=pki / "root-ca.pem")
        self.client.set_ciphers(suite)
        if ecdhe:
            self.server.load_verify_locations(cafile=pki / "root-ca.pem")
            self.server.verify_mode = CERT_REQUIRED
            self.client.load_cert_chain(pki / "client-sign-chain.pem", pki / "client-sign.key.pem")
            self.client.load_enc_cert_chain(pki / "client-enc.pem", pki / "client-enc.key.pem")

    def client_connection(self) -> _native.TlsConnection:
        return self.client._connection(False, "localhost", None)

    def server_connection(self) -> _native.TlsConnection:
        return self.server._connection(True, None, None)


def _feed(conn: _native.TlsConnection, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = conn.read_tls(view)
        view = view[n:]
        conn.process_new_packets()


def _handshake(p: _Pair, now: Callable[[], int]) -> tuple[int, int, _native.TlsConnection, _native.TlsConnection]:
    """One full handshake: the client's and the server's CPU time (ns) and
    the established connections."""
    t0 = now()
    c = p.client_connection()
    t1 = now()
    s = p.server_connection()
    t2 = now()
    ct, st = t1 - t0, t2 - t1
    for _ in range(16):
        t0 = now()
        out = c.write_tls()
        t1 = now()
        if out:
            _feed(s, out)
        back = s.write_tls()
        t2 = now()
        if back:
            _feed(c, back)
        t3 = now()
        ct += (t1 - t0) + (t3 - t2)
        st += t2 - t1
        if not (c.is_handshaking() or s.is_handshaking() or c.wants_write() or s.wants_write()):
            if c.cipher_suite() != p.suite:
                raise RuntimeError(f"negotiated {c.cipher_suite()}, expected {p.suite}")
            return ct, st, c, s
    raise RuntimeError(f"{p.suite}: the handshake did not complete")


def _records(
    c: _native.TlsConnection, s: _native.TlsConnection, n: int, now: Callable[[], int], per_write: int = 1
) -> tuple[int, int]:
    """``n`` records of 16 KiB client to server, ``per_write`` records' worth
    of plaintext per write (and the wire bytes of as many per read): the
    encrypt and the decrypt side's CPU time (ns)."""
    data = bytes(RECORD * per_write)
    enc = dec = 0
    for _ in range(max(1, n // per_write)):
        t0 = now()
        c.write_plaintext(data)
        wire = c.write_tls()
        t1 = now()
        _feed(s, wire)
        got = 0
        while got < len(data):
            k = len(s.read_plaintext(len(data) - got))
            if k == 0:
                raise RuntimeError("a record was lost")
            got += k
        t2 = now()
        enc += t1 - t0
        dec += t2 - t1
    return enc, dec


def _ours(pairs: dict[str, _Pair], handshakes: int, records: int, out: dict[str, list[float]]) -> None:
    """One round of our figures, appended to ``out`` (seconds per operation)."""
    now = time.thread_time_ns
    for suite in HANDSHAKE_SUITES:
        ct = st = 0
        for _ in range(handshakes):
            c_ns, s_ns, _, _ = _handshake(pairs[suite], now)
            ct += c_ns
            st += s_ns
        out.setdefault(f"handshake {suite} client", []).append(ct * 1e-9 / handshakes)
        out.setdefault(f"handshake {suite} server", []).append(st * 1e-9 / handshakes)
    for suite in RECORD_SUITES:
        for per_write in (1, BULK):
            _, _, c, s = _handshake(pairs[suite], now)
            n = max(per_write, records // per_write * per_write)
            enc, dec = _records(c, s, n, now, per_write)
            tail = BULK_SUFFIX if per_write > 1 else ""
            out.setdefault(f"record {suite} encrypt{tail}", []).append(enc * 1e-9 / n)
            out.setdefault(f"record {suite} decrypt{tail}", []).append(dec * 1e-9 / n)


def parse_gmssl(text: str) -> dict[str, float]:
    """GmSSL's timing program's lines as figures named like ours (seconds
    per operation)."""
    figures: dict[str, float] = {}
    for line in text.splitlines():
        kind, *words = line.split()
        kv = dict(w.split("=", 1) for w in words if "=" in w)
        if kind == "handshake":
            figures[f"handshake {kv['suite']} client"] = int(kv["client_ns"]) * 1e-9
            figures[f"handshake {kv['suite']} server"] = int(kv["server_ns"]) * 1e-9
        elif kind == "record":
            figures[f"record {kv['suite']} encrypt"] = int(kv["encrypt_ns"]) * 1e-9
            figures[f"record {kv['suite']} decrypt"] = int(kv["decrypt_ns"]) * 1e-9
        elif kind == "primitive":
            figures[f"primitive {kv['name']}"] = int(kv["ns"]) * 1e-9
    return figures


def _gmssl(path: str, pki: Path, handshakes: int, records: int, primitives: bool = False) -> dict[str, float]:
    args = [path, str(pki), "-handshakes", str(handshakes), "-records", str(records)]
    for suite in HANDSHAKE_SUITES:
        args += ["-suite", suite]
    if primitives:
        args.append("-primitives")
    res = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if res.returncode != 0:
        raise RuntimeError(f"{path} failed ({res.returncode}): {res.stderr.strip()[-500:]}")
    return parse_gmssl(res.stdout)


def _title(name: str) -> tuple[str, int | None]:
    kind, suite, side = name.removesuffix(BULK_SUFFIX).split()
    if kind == "handshake":
        return f"TLCP {suite} full handshake, {side} side", None
    writes = " (256 KiB writes, sealed and opened 16 at a time)" if name.endswith(BULK_SUFFIX) else ""
    return f"TLCP {suite} 16 KiB records, {side} side{writes}", RECORD


def run(quick: bool = False, gmssl_tls_bench: str | None = None) -> Iterator[Comparison]:
    """Our figures, and GmSSL's alternately when its program is given
    (``gmssl_tls_bench``, else :data:`ENV`)."""
    pki = vectors()
    if pki is None:
        print(f"(tls: no TLCP test PKI; set {VECTORS_ENV} to a checkout's tests/vectors/tlcp)")
        return
    path = gmssl_tls_bench or os.environ.get(ENV) or None
    if path and not os.access(path, os.X_OK):
        raise ValueError(
            f"GmSSL's TLCP timing program {path!r} is not an executable file (bash bench/tls/build.sh PREFIX builds it)"
        )
    rounds = 3 if quick else 7
    handshakes, records = (10, 50) if quick else (20, 200)
    pairs = {s: _Pair(pki, s) for s in HANDSHAKE_SUITES}
    ours: dict[str, list[float]] = {}
    theirs: dict[str, list[float]] = {}
    _ours(pairs, max(1, handshakes // 4), max(1, records // 4), {})  # warm-up
    prims: dict[str, float] = {}
    if path:
        prims = {k: v for k, v in _gmssl(path, pki, 1, 1, primitives=True).items() if k.startswith("primitive")}
    for _ in range(rounds):
        _ours(pairs, handshakes, records, ours)
        if path:
            for k, v in _gmssl(path, pki, handshakes, records).items():
                theirs.setdefault(k, []).append(v)
    ratios: dict[str, list[float]] = {}
    for name, samples in ours.items():
        title, nbytes = _title(name)
        cands = [Candidate("shangmi", lambda: None, samples)]
        # GmSSL's tls_send/tls_recv take one record per call whatever the
        # write size: its one-record figure is its bulk figure too.
        peer = name.removesuffix(BULK_SUFFIX)
        if peer in theirs:
            cands.append(Candidate(GMSSL, lambda: None, theirs[peer]))
            ratios[name] = [g / o for g, o in zip(theirs[peer], samples)]
        where = " (in memory; GmSSL over a socketpair)" if peer in theirs else " (in memory)"
        yield Comparison(title + where, nbytes, cands, THREAD_CPU)
    if ratios:
        _print_targets(ratios)
    if prims:
        lines = ["", "GmSSL's bare primitives (same machine, its thread CPU time per call)"]
        lines += [f"  {k.split(' ', 1)[1]:<24} {v * 1e6:9.2f} µs" for k, v in prims.items()]
        print("\n".join(lines), flush=True)


def _print_targets(ratios: dict[str, list[float]]) -> None:
    lines = ["", "TLCP targets: GmSSL's time / shangmi's, per round (A B A B), min and median"]
    for name, rs in ratios.items():
        goal = TARGETS[name.split()[0]]
        med = statistics.median(rs)
        ok = "MET" if min(rs) >= goal else ("met at the median" if med >= goal else "not met")
        lines.append(f"  {name:<40} min {min(rs):7.2f}x  median {med:7.2f}x  target >= {goal:g}x  {ok}")
    print("\n".join(lines), flush=True)
