#!/usr/bin/env python3
"""Record TLS 1.3 (RFC 8998) transcripts of shangmi against real peers, for replay in CI.

One command re-records everything:

    python scripts/tls13_record.py --out tests/vectors/tls13/transcripts [--tongsuo BIN] [--no-openssl4]

For both suites and both of shangmi's roles it runs the recorder (the
ignored test ``record_transcript`` in crates/shangmi/tests/tls13_transcripts.rs,
built with the ``test-rng`` feature) against each peer and writes
``PEER-ROLE-SUITE[-VARIANT].json``:

- ``tongsuo``: Tongsuo's ``openssl`` (``--tongsuo BIN``, default
  ``$SHANGMI_TONGSUO``, built by scripts/peers.sh): ``s_server -rev`` (it
  answers each line reversed) and ``s_client`` with a line on its standard
  input, ``-groups SM2 -sigalgs sm2sig_sm3``.
- ``openssl4``: the OpenSSL 4 inside PyPI's ``cryptography`` through
  pyOpenSSL (tests/tls/openssl4_peer.py; ``pip install shangmi[test]``).

Variants: TLS_SM4_GCM_SM3 with client certificates (``-certs``: shangmi's
client presents one, shangmi's server requires one), TLS_SM4_CCM_SM3
without, and a HelloRetryRequest (``-hrr``: the peer's client offers
another group's key share first: X25519 for Tongsuo, OpenSSL's default
groups for OpenSSL 4). GmSSL 3's ``tls13_client``/``tls13_server`` cannot
complete a handshake with rustls (docs/tls.md, "TLS 1.3 interop"), so
there are no GmSSL transcripts.

The seed of shangmi's generator is fixed per file (16 bytes of SHA-256 of
the file name), so re-recording changes only what the peer chose at random
and the recording time. A combination that fails is reported, not written,
and the script exits 1. Re-record whenever shangmi's wire form changes (a
rustls upgrade included): ``replay_recorded_transcripts`` fails until then,
by design.
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PKI = ROOT / "tests" / "vectors" / "tlcp"
sys.path.insert(0, str(ROOT / "tests" / "tls"))

GCM, CCM = "TLS_SM4_GCM_SM3", "TLS_SM4_CCM_SM3"
# (suite, client certificates, variant, the peer client's groups offer another first)
CASES = [(GCM, True, "certs", False), (CCM, False, "", False), (GCM, False, "hrr", True)]
PEER_MESSAGE = "peer TLS 1.3 transcript: client to server"


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


def recorder(exe: Path, out: Path, peer: str, role: str, suite: str, client_certs: bool, note: str,
             **extra: str) -> subprocess.Popen[str]:
    seed = hashlib.sha256(b"shangmi tls13 transcript " + out.name.encode()).hexdigest()[:32]
    env = dict(os.environ, SHANGMI_TLS13_OUT=str(out), SHANGMI_TLS13_ROLE=role, SHANGMI_TLS13_SUITE=suite,
               SHANGMI_TLS13_PEER_NAME=peer, SHANGMI_TLS13_SEED=seed, SHANGMI_TLS13_NOTE=note,
               SHANGMI_TLS13_CLIENT_CERTS="1" if client_certs else "0", **extra)
    return subprocess.Popen([str(exe), "--ignored", "--exact", "tls13_transcripts::record_transcript", "--nocapture"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def finish(p: subprocess.Popen[str], what: str) -> bool:
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


def name(peer: str, role: str, suite: str, variant: str) -> str:
    return f"{peer}-{role}-{suite}{'-' + variant if variant else ''}.json"


def note_of(role: str, client_certs: bool, hrr: bool, peer_groups: str) -> str:
    parts = []
    if client_certs:
        parts.append("client certificate")
    if hrr:
        parts.append(f"HelloRetryRequest (the peer's client offers {peer_groups})")
    return "; ".join(parts) or "full handshake"


def serve_shangmi(exe: Path, out: Path, peer: str, suite: str, client_certs: bool, note: str,
                  client: Any) -> bool:
    """Runs the recorder as server and ``client(port)`` against it."""
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        p = recorder(exe, out, peer, "server", suite, client_certs, note, SHANGMI_TLS13_PORT_FILE=str(port_file))
        deadline = time.time() + 30
        while not (port_file.exists() and port_file.read_text()) and time.time() < deadline:
            time.sleep(0.05)
        port = int(port_file.read_text())
        result: dict[str, Any] = {}
        t = threading.Thread(target=lambda: result.update(r=client(port)))
        t.start()
        ok = finish(p, out.name)
        t.join(60)
        if not ok:
            print(f"    {peer} client: {result.get('r')}")
        return ok


def record_tongsuo(exe: Path, bin_: str, out_dir: Path) -> list[str]:
    failed = []
    pem = lambda n: str(PKI / n)  # noqa: E731
    for suite, certs, variant, hrr in CASES:
        profile = ["-tls1_3", "-ciphersuites", suite, "-sigalgs", "sm2sig_sm3"]
        if not hrr:
            # shangmi's client: Tongsuo's s_server -rev.
            out = out_dir / name("tongsuo", "client", suite, variant)
            port = free_port()
            cmd = [bin_, "s_server", "-accept", str(port), "-naccept", "1", "-rev", "-cert", pem("server-sign.pem"),
                   "-cert_chain", pem("chain.pem"), "-key", pem("server-sign.key.pem"), "-groups", "SM2", *profile]
            if certs:
                cmd += ["-Verify", "2", "-CAfile", pem("root-ca.pem"), "-verify_return_error"]
            srv = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True)
            try:
                p = recorder(exe, out, "tongsuo", "client", suite, certs, note_of("client", certs, False, ""),
                             SHANGMI_TLS13_PEER=f"127.0.0.1:{port}")
                if not finish(p, out.name):
                    failed.append(out.name)
            finally:
                srv.kill()
                log = srv.communicate()[0]
                if out.name in failed:
                    print("\n".join("    tongsuo: " + l for l in log.splitlines()[-5:]))
        # shangmi's server: Tongsuo's s_client with one line on stdin.
        groups = "X25519:SM2" if hrr else "SM2"
        out = out_dir / name("tongsuo", "server", suite, variant)

        def client(port: int, certs: bool = certs, groups: str = groups, profile: list[str] = profile) -> str:
            cmd = [bin_, "s_client", "-connect", f"127.0.0.1:{port}", "-servername", "localhost", "-CAfile",
                   pem("root-ca.pem"), "-verify_return_error", "-groups", groups, *profile]
            if certs:
                cmd += ["-cert", pem("client-sign.pem"), "-cert_chain", pem("chain.pem"), "-key",
                        pem("client-sign.key.pem")]
            r = subprocess.run(cmd, input=PEER_MESSAGE + "\n", capture_output=True, text=True, timeout=30)
            return r.stdout[-500:] + r.stderr[-500:]

        if not serve_shangmi(exe, out, "tongsuo", suite, certs, note_of("server", certs, hrr, groups), client):
            failed.append(out.name)
    return failed


def record_openssl4(exe: Path, out_dir: Path) -> list[str]:
    import openssl4_peer as o4

    failed = []
    with tempfile.TemporaryDirectory() as tmp:
        chain = Path(tmp) / "server-chain.pem"
        chain.write_bytes((PKI / "server-sign.pem").read_bytes() + (PKI / "chain.pem").read_bytes())
        for suite, certs, variant, hrr in CASES:
            if not hrr:
                out = out_dir / name("openssl4", "client", suite, variant)
                srv = o4.OpenSSL4Server(chain, PKI / "server-sign.key.pem", suites=suite, ca=PKI / "root-ca.pem",
                                        require_client_cert=certs).start()
                try:
                    p = recorder(exe, out, "openssl4", "client", suite, certs, note_of("client", certs, False, ""),
                                 SHANGMI_TLS13_PEER=f"127.0.0.1:{srv.port}")
                    if not finish(p, out.name):
                        failed.append(out.name)
                finally:
                    srv.stop()
            groups = o4.DEFAULT_THEN_SM2 if hrr else "curveSM2"
            out = out_dir / name("openssl4", "server", suite, variant)

            def client(port: int, certs: bool = certs, groups: str = groups, suite: str = suite) -> Any:
                kw: dict[str, Any] = {"cert": PKI / "client-sign-chain.pem", "key": PKI / "client-sign.key.pem"} \
                    if certs else {}
                return o4.openssl4_client(port, ca=PKI / "root-ca.pem", suites=suite, groups=groups,
                                          message=PEER_MESSAGE, **kw)

            if not serve_shangmi(exe, out, "openssl4", suite, certs, note_of("server", certs, hrr, groups), client):
                failed.append(out.name)
    return failed


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "vectors" / "tls13" / "transcripts")
    ap.add_argument("--tongsuo", default=os.environ.get("SHANGMI_TONGSUO"), help="Tongsuo's openssl binary")
    ap.add_argument("--no-openssl4", action="store_true", help="skip the OpenSSL 4 (pyOpenSSL) peer")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    exe = build()
    failed: list[str] = []
    if a.tongsuo:
        failed += record_tongsuo(exe, a.tongsuo, a.out)
    else:
        print("no Tongsuo binary (--tongsuo or $SHANGMI_TONGSUO): Tongsuo skipped")
    if not a.no_openssl4:
        failed += record_openssl4(exe, a.out)
    if failed:
        print(f"{len(failed)} failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
