#!/usr/bin/env python3
"""TLCP interop matrix between the peers shangmi tests against.

Peers (client -> server, each TLCP suite, without and with client certificates):
  tongsuo   Tongsuo 8.3 from PyPI's tongsuopy, through tests/tls/tongsuo_peer.py (always)
  gmssl     GmSSL 3 `gmssl tlcp_client` / `tlcp_server`   (--gmssl or $SHANGMI_GMSSL)
  openssl   Tongsuo's `openssl s_client -ntls` / `s_server -enable_ntls`
            (--tongsuo or $SHANGMI_TONGSUO; scripts/peers.sh builds both)

Each cell: the client sends an HTTP GET, the server answers (its www mode), and
the cell is "ok" when the client got an HTTP 200 back over TLCP (data both
ways).  "with client cert" means the server requires one; the client then
presents the test PKI's client certificates (a double sign+enc chain; GmSSL's
client sends a single signing chain for ECC suites because that is all it can
send there).  A session-resumption section follows for the pairs that keep a
session.  The commands behind each cell are printed with --commands.

Usage: python scripts/tls_interop_matrix.py [--gmssl PATH] [--tongsuo PATH]
       [--pki tests/vectors/tlcp] [--json OUT] [--commands] [--only PAIRS]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "tls"))

import peer_cli as pc  # noqa: E402
import tongsuo_peer as tp  # noqa: E402
from peer_cli import PeerProcess, free_port  # noqa: E402

SUITE_ORDER = ["ECC-SM2-SM4-CBC-SM3", "ECC-SM2-SM4-GCM-SM3", "ECDHE-SM2-SM4-CBC-SM3", "ECDHE-SM2-SM4-GCM-SM3"]
REQUEST = b"GET / HTTP/1.0\r\nHost: localhost\r\n\r\n"


@dataclass
class Cell:
    client: str
    server: str
    suite: str
    client_cert: bool
    ok: bool = False
    cipher: str | None = None
    detail: str = ""
    commands: list[str] = field(default_factory=list)


def last_line(text: str, n: int = 160) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return (lines[-1] if lines else "")[-n:]


def cmdline(cmd: list[str], pki: Path) -> str:
    return " ".join(shlex.quote(c) for c in cmd).replace(str(pki) + "/", "$PKI/")


class Peers:
    def __init__(self, pki: Path, gmssl: str | None, tongsuo: str | None, timeout: float) -> None:
        self.pki = pki
        self.gmssl = gmssl
        self.tongsuo = tongsuo
        self.timeout = timeout

    def p(self, name: str) -> str:
        return str(self.pki / name)

    # ---------------------------------------------------------------- servers
    @staticmethod
    def server_ca(client: str) -> str:
        """The server's trust store for client certificates.  Tongsuo's s_client sends its NTLS
        sign/enc certificates without intermediates (apps/s_client.c passes a NULL chain for
        them), so a server facing it must also trust the intermediate CA."""
        return "ca-bundle.pem" if client == "openssl" else "root-ca.pem"

    def server_cmd(self, kind: str, suite: str, port: int, client_cert: bool, client: str = "") -> list[str]:
        ca = self.server_ca(client)
        if kind == "gmssl":
            assert self.gmssl
            return pc.gmssl_server_cmd(self.gmssl, self.pki, suite, port, client_cert, ca)
        if kind == "openssl":
            assert self.tongsuo
            return pc.tongsuo_server_cmd(self.tongsuo, self.pki, suite, port, client_cert, ca)
        raise ValueError(kind)

    def client_cmd(self, kind: str, suite: str, port: int, client_cert: bool) -> list[str]:
        if kind == "gmssl":
            assert self.gmssl
            return pc.gmssl_client_cmd(self.gmssl, self.pki, suite, port, client_cert)
        if kind == "openssl":
            assert self.tongsuo
            return pc.tongsuo_client_cmd(self.tongsuo, self.pki, suite, port, client_cert)
        raise ValueError(kind)

    def run_client(self, kind: str, suite: str, port: int, client_cert: bool, cell: Cell,
                   extra: list[str] | None = None) -> tuple[bool, str | None, str]:
        """(got HTTP 200, cipher if known, detail)."""
        if kind == "tongsuo":
            certs = tp.CertSet.from_dir(self.pki, "client") if client_cert else None
            certs_arg = "CertSet.from_dir($PKI, 'client')" if client_cert else "None"
            cell.commands.append(
                f"tongsuo_client('127.0.0.1', {port}, {suite!r}, ca='$PKI/root-ca.pem', "
                f"client_certs={certs_arg}, server_name='localhost', check_hostname='localhost', tickets=False)"
            )
            r = tp.tongsuo_client("127.0.0.1", port, suite, self.pki / "root-ca.pem", certs, send=REQUEST,
                                  server_name="localhost", check_hostname="localhost", tickets=False,
                                  timeout=self.timeout, check=False)
            if not r.ok:
                return False, r.cipher, f"client: {r.error}"
            ok = b" 200 " in r.data.split(b"\r\n", 1)[0]
            return ok, r.cipher, "" if ok else f"client got {r.data[:60]!r}"
        cmd = self.client_cmd(kind, suite, port, client_cert) + (extra or [])
        cell.commands.append(cmdline(cmd, self.pki) + (" < request" if kind == "openssl" else ""))
        rc, out, err = pc.run_client(cmd, REQUEST if kind == "openssl" else None, self.timeout + 5)
        cipher = None
        m = re.search(r"Cipher is (\S+)", out + err) or re.search(r"CipherSuite: (\S+)", out + err)
        if m:
            cipher = m.group(1)
        ok = "HTTP/1.0 200" in out or "HTTP/1.1 200" in out
        detail = "" if ok else f"client rc={rc}: {last_line(err) or last_line(out)}"
        if kind == "gmssl" and not ok:
            # GmSSL prints the failing function trail; its first line names the cause.
            trail = [ln for ln in err.splitlines() if ln.strip()]
            if trail:
                detail = f"client rc={rc}: {trail[0].strip()[:120]} ... {trail[-1].strip()[:80]}"
        return ok, cipher, detail

    # ---------------------------------------------------------------- one cell
    def cell(self, client: str, server: str, suite: str, client_cert: bool) -> Cell:
        cell = Cell(client, server, suite, client_cert)
        try:
            if server == "tongsuo":
                ca = self.server_ca(client)
                with tp.TongsuoServer(self.pki, suite, client_auth=client_cert, ca=self.pki / ca,
                                      timeout=self.timeout) as srv:
                    cell.commands.append(
                        f"TongsuoServer($PKI, {suite!r}, client_auth={client_cert}, ca='$PKI/{ca}')  # port {srv.port}"
                    )
                    ok, cipher, detail = self.run_client(client, suite, srv.port, client_cert, cell)
                    recs = srv.wait_for(1, 3)
                srv_err = next((r.error for r in recs if r.error), None)
                srv_cipher = next((r.cipher for r in recs if r.cipher), None)
                cell.ok, cell.cipher = ok, cipher or srv_cipher
                cell.detail = "; ".join(x for x in (detail, f"server: {srv_err}" if srv_err else "") if x)
                return cell
            port = free_port()
            cmd = self.server_cmd(server, suite, port, client_cert, client)
            cell.commands.append(cmdline(cmd, self.pki))
            with PeerProcess(cmd, port) as proc:
                ok, cipher, detail = self.run_client(client, suite, port, client_cert, cell)
            serr = proc.stderr
            cell.ok, cell.cipher = ok, cipher
            if not ok:
                trail = [ln.strip() for ln in serr.splitlines() if ln.strip() and "ACCEPT" not in ln]
                if server == "openssl":
                    trail = [ln for ln in trail if ":error:" in ln] or trail
                if trail:
                    detail += f"; server: {trail[0][:120]}"
            cell.detail = detail
        except Exception as e:  # a broken peer is a matrix entry, not a crash
            cell.detail = f"{type(e).__name__}: {e}"
        return cell

    # ------------------------------------------------------------- resumption
    def resumption(self, client: str, server: str, suite: str) -> Cell:
        """Two connections, the second offering the first's session ID."""
        cell = Cell(client, server, suite, False)
        try:
            if client == "tongsuo":
                def connect(port: int) -> tuple[bool, str]:
                    r1 = tp.tongsuo_client("127.0.0.1", port, suite, self.pki / "root-ca.pem",
                                           tp.CertSet.from_dir(self.pki, "client"), send=REQUEST,
                                           tickets=False, timeout=self.timeout, check=False)
                    if not r1.ok:
                        return False, f"first: {r1.error}"
                    r2 = tp.tongsuo_client("127.0.0.1", port, suite, self.pki / "root-ca.pem",
                                           tp.CertSet.from_dir(self.pki, "client"), send=REQUEST,
                                           session=r1.session, tickets=False, timeout=self.timeout, check=False)
                    if not r2.ok:
                        return False, f"second: {r2.error}"
                    return r2.session_reused, "reused" if r2.session_reused else "full handshake again"

                cell.commands.append("tongsuo_client(...) twice, the second with session=first.session")
                if server == "tongsuo":
                    with tp.TongsuoServer(self.pki, suite, timeout=self.timeout) as srv:
                        cell.ok, cell.detail = connect(srv.port)
                else:
                    port = free_port()
                    cmd = self.server_cmd(server, suite, port, False)
                    cell.commands.append(cmdline(cmd, self.pki))
                    with PeerProcess(cmd, port):
                        cell.ok, cell.detail = connect(port)
            elif client == "openssl":
                assert self.tongsuo
                with tp.TongsuoServer(self.pki, suite, ca=self.pki / self.server_ca("openssl"),
                                      timeout=self.timeout) as srv:
                    cmd = self.client_cmd("openssl", suite, srv.port, suite.startswith("ECDHE")) + ["-reconnect"]
                    cell.commands.append(cmdline(cmd, self.pki))
                    _, out, _ = pc.run_client(cmd, b"", self.timeout + 10)
                    reused = out.count("Reused, ")
                    cell.ok = reused > 0
                    cell.detail = f"{reused} of 5 reconnects reused" if reused else "no reuse: " + last_line(out)
                    srv.wait_for(6, 3)
        except Exception as e:
            cell.detail = f"{type(e).__name__}: {e}"
        return cell


def render(cells: list[Cell]) -> str:
    pairs: dict[tuple[str, str], dict[str, dict[bool, Cell]]] = {}
    for c in cells:
        pairs.setdefault((c.client, c.server), {}).setdefault(c.suite, {})[c.client_cert] = c
    lines = []
    w = 26
    for (client, server), suites in pairs.items():
        lines.append(f"\n{client} client -> {server} server")
        lines.append(f"  {'suite':<{w}} {'no client cert':<16} {'client cert':<16}")
        for suite in SUITE_ORDER:
            if suite not in suites:
                continue
            row = [("ok" if suites[suite][cc].ok else "FAIL") if cc in suites[suite] else "-" for cc in (False, True)]
            lines.append(f"  {suite:<{w}} {row[0]:<16} {row[1]:<16}")
        for suite in SUITE_ORDER:
            for cc in (False, True):
                c = suites.get(suite, {}).get(cc)
                if c and not c.ok and c.detail:
                    lines.append(f"    {suite} {'cert' if cc else 'no cert'}: {c.detail}")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gmssl", default=os.environ.get("SHANGMI_GMSSL"), help="gmssl binary")
    ap.add_argument("--tongsuo", default=os.environ.get("SHANGMI_TONGSUO"), help="Tongsuo's openssl binary")
    ap.add_argument("--pki", type=Path, default=ROOT / "tests" / "vectors" / "tlcp")
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--json", type=Path, help="write every cell (with its commands) here")
    ap.add_argument("--commands", action="store_true", help="print the commands behind every cell")
    ap.add_argument("--only", help="comma-separated client>server pairs, e.g. tongsuo>tongsuo,gmssl>tongsuo")
    args = ap.parse_args()

    if not tp.available():
        print("tongsuopy is not installed (pip install tongsuopy)", file=sys.stderr)
        return 2
    pki = args.pki.resolve()
    peers = Peers(pki, args.gmssl, args.tongsuo, args.timeout)
    kinds = ["tongsuo"] + (["gmssl"] if args.gmssl else []) + (["openssl"] if args.tongsuo else [])
    pairs = [(c, s) for c in kinds for s in kinds]
    if args.only:
        wanted = {tuple(p.split(">")) for p in args.only.split(",")}
        pairs = [p for p in pairs if p in wanted]
    print(f"PKI: {pki}")
    print(f"tongsuopy library: {tp.library_path()}")
    for name, path in (("gmssl", args.gmssl), ("tongsuo openssl", args.tongsuo)):
        if path:
            v = subprocess.run([path, "version"], capture_output=True, text=True).stdout.strip().splitlines()
            print(f"{name}: {path} ({v[0] if v else '?'})")
        else:
            print(f"{name}: not given (skipped)")

    cells = [peers.cell(c, s, suite, cc) for c, s in pairs for suite in SUITE_ORDER for cc in (False, True)]
    print(render(cells))

    resumptions = []
    for c, s in [("tongsuo", "tongsuo"), ("tongsuo", "gmssl"), ("tongsuo", "openssl"), ("openssl", "tongsuo")]:
        if c in kinds and s in kinds and (not args.only or (c, s) in pairs):
            resumptions += [peers.resumption(c, s, suite) for suite in SUITE_ORDER]
    if resumptions:
        print("\nsession-ID resumption (client certificates sent)")
        for r in resumptions:
            print(f"  {r.client} -> {r.server} {r.suite:<24} {'reused' if r.ok else 'NO'}: {r.detail}")

    if args.commands:
        print("\ncommands ($PKI = the --pki folder):")
        for c in cells + resumptions:
            print(f"  [{c.client}->{c.server} {c.suite} {'cert' if c.client_cert else 'no cert'}] "
                  f"{'ok' if c.ok else 'FAIL'}")
            for cmd in c.commands:
                print(f"      {cmd}")
    if args.json:
        args.json.write_text(json.dumps({"cells": [asdict(c) for c in cells],
                                         "resumption": [asdict(r) for r in resumptions]}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
