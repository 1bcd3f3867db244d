#!/usr/bin/env python3
"""Load check of the TLCP server: one server process, N handshakes from C
concurrent clients with data both ways; no failure, no leaked file
descriptors or threads, memory flat after warm-up.

    python scripts/tls_load.py --handshakes 2000 --clients 16

The server (a thread per connection, as a simple real server is written)
reports its open descriptors, live threads and RSS after the warm-up and at
the end; the script fails when any grew beyond noise.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import socket
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKI = ROOT / "tests" / "vectors" / "tlcp"


def _stats() -> dict[str, int]:
    rss = 0
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return {"fds": len(os.listdir("/proc/self/fd")), "threads": threading.active_count(), "rss_kib": rss}


def serve(port_q: "mp.Queue[object]", cmd_q: "mp.Queue[object]") -> None:
    from shangmi import tls

    ctx = tls.TLSContext("tlcp", server_side=True)
    chained = (PKI / "server-sign.pem").read_bytes() + (PKI / "chain.pem").read_bytes()
    tmp = Path(os.environ.get("TMPDIR", "/tmp")) / f"tls-load-{os.getpid()}.pem"
    tmp.write_bytes(chained)
    ctx.load_cert_chain(tmp, PKI / "server-sign.key.pem")
    ctx.load_enc_cert_chain(PKI / "server-enc.pem", PKI / "server-enc.key.pem")
    ctx.load_verify_locations(PKI / "ca-bundle.pem")
    ctx.verify_mode = tls.CERT_OPTIONAL
    listener = socket.create_server(("127.0.0.1", 0), backlog=128)
    port_q.put(listener.getsockname()[1])
    failures = [0]

    def handle(raw: socket.socket) -> None:
        raw.settimeout(30)
        try:
            with ctx.wrap_socket(raw, server_side=True) as s:
                while True:
                    data = s.recv(65536)
                    if not data:
                        break
                    s.sendall(data[::-1])
        except Exception:  # noqa: BLE001 - counted and reported
            failures[0] += 1

    def accept_loop() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(raw,), daemon=True).start()

    threading.Thread(target=accept_loop, daemon=True).start()
    while True:
        cmd = cmd_q.get()
        if cmd == "stop":
            listener.close()
            tmp.unlink()
            return
        # Let connection threads finish before counting them.
        deadline = time.time() + 10
        while threading.active_count() > 2 and time.time() < deadline:
            time.sleep(0.05)
        port_q.put({**_stats(), "failures": failures[0]})


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--handshakes", type=int, default=2000)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--warmup", type=int, default=1000, help="handshakes before the first count (glibc grows a malloc arena per busy thread first)")
    ap.add_argument("--bytes", type=int, default=4096, help="bytes sent (and echoed back) per connection")
    args = ap.parse_args()

    from shangmi import tls

    spawn = mp.get_context("spawn")
    port_q: mp.Queue[object] = spawn.Queue()
    cmd_q: mp.Queue[object] = spawn.Queue()
    proc = spawn.Process(target=serve, args=(port_q, cmd_q))
    proc.start()
    port = port_q.get(timeout=60)
    suites = ["ECC_SM4_GCM_SM3", "ECC_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3"]
    contexts = []
    for suite in suites:
        ctx = tls.TLSContext("tlcp")
        ctx.load_verify_locations(PKI / "root-ca.pem")
        ctx.set_ciphers(suite)
        if suite.startswith("ECDHE"):
            ctx.load_cert_chain(PKI / "client-sign-chain.pem", PKI / "client-sign.key.pem")
            ctx.load_enc_cert_chain(PKI / "client-enc.pem", PKI / "client-enc.key.pem")
        contexts.append(ctx)
    payload = os.urandom(args.bytes)
    errors: list[str] = []

    def one(i: int) -> None:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
                with contexts[i % 4].wrap_socket(raw, server_hostname="localhost") as s:
                    s.sendall(payload)
                    got = b""
                    while len(got) < len(payload):
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        got += chunk
                    if got != payload[::-1]:
                        errors.append(f"connection {i}: echo mismatch ({len(got)} bytes)")
        except Exception as e:  # noqa: BLE001 - reported
            errors.append(f"connection {i}: {type(e).__name__}: {e}")

    def run(n: int, start: int) -> float:
        t0 = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            list(pool.map(one, range(start, start + n)))
        return time.perf_counter() - t0

    run(args.warmup, 0)
    cmd_q.put("stats")
    warm = port_q.get(timeout=60)
    dt = run(args.handshakes, args.warmup)
    cmd_q.put("stats")
    end = port_q.get(timeout=60)
    cmd_q.put("stop")
    proc.join(30)
    print(f"{args.handshakes} handshakes from {args.clients} clients in {dt:.1f} s ({args.handshakes / dt:.0f}/s), "
          f"{args.bytes} bytes each way per connection")
    print(f"server after warm-up: {warm}")
    print(f"server at the end:    {end}")
    problems = list(errors[:5])
    assert isinstance(warm, dict) and isinstance(end, dict)
    if end["failures"]:
        problems.append(f"{end['failures']} server-side failures")
    if end["fds"] > warm["fds"]:
        problems.append(f"file descriptors grew: {warm['fds']} -> {end['fds']}")
    if end["threads"] > warm["threads"]:
        problems.append(f"threads grew: {warm['threads']} -> {end['threads']}")
    if end["rss_kib"] > warm["rss_kib"] * 1.10 + 2048:
        problems.append(f"RSS grew: {warm['rss_kib']} -> {end['rss_kib']} KiB")
    for p in problems:
        print("FAIL:", p, file=sys.stderr)
    if errors:
        print(f"{len(errors)} client errors", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
