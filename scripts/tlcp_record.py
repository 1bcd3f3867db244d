#!/usr/bin/env python3
"""Record TLCP transcripts of shangmi against real peers, for replay in CI.

One command re-records everything:

    python scripts/tlcp_record.py --out tests/vectors/tlcp/transcripts [--gmssl BIN]

For every suite and both of shangmi's roles it runs the recorder (the
ignored test ``record_transcript`` in crates/shangmi/tests/tlcp_transcripts.rs,
built with the ``test-rng`` feature) against Tongsuo 8.3 (PyPI's
``tongsuopy`` through tests/tls/tongsuo_peer.py, needs ``pip install
tongsuopy``) and writes ``PEER-ROLE-SUITE.json``. ECDHE suites use client
certificates (every implementation requires the client's encryption key
there); ECC suites do not. The seed of shangmi's generator is fixed per
file (16 bytes of SHA-256 of the file name), so re-recording changes only what the peer
chose at random.

``--gmssl BIN`` (GmSSL 3's ``gmssl``) adds GmSSL: shangmi's client
against ``gmssl tlcp_server -www`` (an HTTP GET, read until GmSSL closes;
``"http": true`` in the transcript) and GmSSL's ``tlcp_client -get /``
against shangmi's server (which echoes the request), the commands of
tests/tls/peer_cli.py. A combination that fails is reported, not written,
and the script exits 1. Measured 2026-12-07 (GmSSL 3.3.0-dev): every suite
records in both roles (shangmi's client picks GmSSL's wire forms from its
CertificateRequest; shangmi's server names its trust anchors there, which
GmSSL's client requires).

The Tongsuo flights also seed the fuzz corpora: the server's bytes (from
the ``client`` transcripts) go to fuzz/corpus/tlcp_handshake and the
client's bytes (from the ``server`` transcripts) to fuzz/corpus/tlcp_record,
as ``tongsuo_SUITE.bin`` (``--no-fuzz-seeds`` skips this).

Re-record whenever shangmi's wire form towards a peer changes (for example
ClientKeyExchange or CertificateVerify forms chosen for GmSSL
compatibility): ``replay_recorded_transcripts`` then fails for that
peer's files, by design.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKI = ROOT / "tests" / "vectors" / "tlcp"
sys.path.insert(0, str(ROOT / "tests" / "tls"))

SUITES = ["ECC_SM4_CBC_SM3", "ECC_SM4_GCM_SM3", "ECDHE_SM4_CBC_SM3", "ECDHE_SM4_GCM_SM3"]
PEER_MESSAGE = b"tongsuo TLCP transcript: client to server\n"


def build() -> Path:
    """Builds the transcript test binary and returns its path."""
    out = subprocess.run(
        ["cargo", "test", "--release", "-p", "shangmi", "--features", "test-rng", "--test", "integration",
         "--no-run", "--message-format=json"],
        cwd=ROOT, check=True, stdout=subprocess.PIPE, text=True).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable") and \
                msg["target"]["name"] == "integration":
            return Path(msg["executable"])
    raise SystemExit("integration test binary not found")


def recorder(exe: Path, out: Path, peer: str, role: str, suite: str, client_certs: bool,
             **extra: str) -> subprocess.Popen:
    env = dict(os.environ,
               SHANGMI_TLCP_OUT=str(out), SHANGMI_TLCP_ROLE=role, SHANGMI_TLCP_SUITE=suite,
               SHANGMI_TLCP_PEER_NAME=peer, SHANGMI_TLCP_SEED=hashlib.sha256(b"shangmi tlcp transcript " + out.name.encode()).hexdigest()[:32],
               SHANGMI_TLCP_CLIENT_CERTS="1" if client_certs else "0", **extra)
    return subprocess.Popen([str(exe), "--ignored", "--exact", "tlcp_transcripts::record_transcript", "--nocapture"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(p: subprocess.Popen, what: str) -> bool:
    try:
        log, _ = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        log, _ = p.communicate()
    ok = p.returncode == 0
    print(f"{'ok  ' if ok else 'FAIL'} {what}")
    if not ok:
        lines = log.splitlines()
        why = [l for i, l in enumerate(lines) if "panicked" in l or (i and "panicked" in lines[i - 1])]
        print("\n".join("    " + l for l in (why or lines[-15:])))
    return ok


def record_tongsuo(exe: Path, out_dir: Path) -> list[str]:
    from tongsuo_peer import CertSet, TongsuoServer, tongsuo_client

    failed = []
    for suite in SUITES:
        ecdhe = suite.startswith("ECDHE")
        # shangmi as client, Tongsuo as server (echo).
        out = out_dir / f"tongsuo-client-{suite}.json"
        with TongsuoServer(str(PKI), suite, client_auth=ecdhe, mode="echo") as srv:
            p = recorder(exe, out, "tongsuo", "client", suite, ecdhe, SHANGMI_TLCP_PEER=f"127.0.0.1:{srv.port}")
            if not finish(p, out.name):
                failed.append(out.name)
        # shangmi as server, Tongsuo as client.
        out = out_dir / f"tongsuo-server-{suite}.json"
        with tempfile.TemporaryDirectory() as tmp:
            port_file = Path(tmp) / "port"
            p = recorder(exe, out, "tongsuo", "server", suite, ecdhe, SHANGMI_TLCP_PORT_FILE=str(port_file))
            deadline = time.time() + 30
            while not (port_file.exists() and port_file.read_text()) and time.time() < deadline:
                time.sleep(0.05)
            port = int(port_file.read_text())
            result: dict = {}

            def client() -> None:
                result["r"] = tongsuo_client(
                    "127.0.0.1", port, suite, ca=str(PKI / "root-ca.pem"),
                    client_certs=CertSet.from_dir(str(PKI), "client") if ecdhe else None,
                    send=PEER_MESSAGE, server_name="localhost", check=False)

            t = threading.Thread(target=client)
            t.start()
            ok = finish(p, out.name)
            t.join()
            r = result.get("r")
            if r is not None and not r.ok:
                print(f"    tongsuo client: {r.error}")
            if not ok:
                failed.append(out.name)
    return failed


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def record_gmssl(exe: Path, gmssl: str, out_dir: Path) -> list[str]:
    from peer_cli import gmssl_client_cmd, gmssl_server_cmd
    from tongsuo_peer import STANDARD_NAMES

    failed = []
    for suite in SUITES:
        ecdhe = suite.startswith("ECDHE")
        name = STANDARD_NAMES[suite]
        # shangmi as client, GmSSL's tlcp_server -www.
        out = out_dir / f"gmssl-client-{suite}.json"
        port = free_port()
        srv = subprocess.Popen(gmssl_server_cmd(gmssl, PKI, name, port, ecdhe), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        try:
            time.sleep(0.5)
            p = recorder(exe, out, "gmssl", "client", suite, ecdhe, SHANGMI_TLCP_PEER=f"127.0.0.1:{port}",
                         SHANGMI_TLCP_HTTP="1")
            if not finish(p, out.name):
                failed.append(out.name)
        finally:
            srv.kill()
            print("\n".join("    gmssl: " + l for l in srv.communicate()[0].splitlines()[-5:]))
        # shangmi as server, GmSSL's tlcp_client -get /.
        out = out_dir / f"gmssl-server-{suite}.json"
        with tempfile.TemporaryDirectory() as tmp:
            port_file = Path(tmp) / "port"
            p = recorder(exe, out, "gmssl", "server", suite, ecdhe, SHANGMI_TLCP_PORT_FILE=str(port_file))
            deadline = time.time() + 30
            while not (port_file.exists() and port_file.read_text()) and time.time() < deadline:
                time.sleep(0.05)
            cli = subprocess.Popen(gmssl_client_cmd(gmssl, PKI, name, int(port_file.read_text()), ecdhe),
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            ok = finish(p, out.name)
            try:
                log, _ = cli.communicate(timeout=15)
            except subprocess.TimeoutExpired:
                cli.kill()
                log, _ = cli.communicate()
            if not ok:
                print("\n".join("    gmssl: " + l for l in log.splitlines()[-5:]))
                failed.append(out.name)
    return failed


def write_fuzz_seeds(out_dir: Path) -> None:
    """Each Tongsuo transcript's peer bytes, concatenated, as a fuzz seed."""
    for role, target in (("client", "tlcp_handshake"), ("server", "tlcp_record")):
        for suite in SUITES:
            path = out_dir / f"tongsuo-{role}-{suite}.json"
            if not path.exists():
                continue
            t = json.loads(path.read_text())
            data = b"".join(bytes.fromhex(f["hex"]) for f in t["flights"] if f["from"] == "peer")
            (ROOT / "fuzz" / "corpus" / target / f"tongsuo_{suite.lower()}.bin").write_bytes(data)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, type=Path, help="folder for the JSON transcripts")
    ap.add_argument("--gmssl", help="GmSSL 3's gmssl binary")
    ap.add_argument("--no-fuzz-seeds", action="store_true", help="do not refresh the fuzz seeds")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    exe = build()
    failed = record_tongsuo(exe, args.out.resolve())
    if args.gmssl:
        failed += record_gmssl(exe, args.gmssl, args.out.resolve())
    if not args.no_fuzz_seeds:
        write_fuzz_seeds(args.out.resolve())
    print("all recorded" if not failed else f"failed: {failed}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
