"""``shangmi tls client|server``: TLCP channels from the command line, shaped
like ``openssl s_client``/``s_server`` and GmSSL's ``tlcp_client``/``tlcp_server``::

    shangmi tls client bank.example:443 --protocol tlcp --CAfile root.pem --get /
    shangmi tls server --protocol tlcp --port 4433 --cert sign.pem --key sign.key \\
        --enc-cert enc.pem --enc-key enc.key --pass env:KEYPASS --www

The client prints the negotiated protocol and suite, the peer's certificates
and the validation result; the server echoes (or, with ``--www``, answers
HTTP requests with a short page describing the connection).
"""

from __future__ import annotations

import argparse
import socket
import sys
from typing import Any

from shangmi import tls
from shangmi.cli._common import password_arg
from shangmi.exceptions import InvalidInputError


def register(sub: Any) -> None:
    p = sub.add_parser("tls", help="TLCP client and server")
    tsub = p.add_subparsers(dest="tls_command", required=True, metavar="ROLE")

    def common(q: argparse.ArgumentParser) -> None:
        q.add_argument("--protocol", default="tlcp", choices=list(tls.PROTOCOLS), help="protocol (default tlcp)")
        q.add_argument("--CAfile", dest="cafile", help="trust anchors (PEM)")
        q.add_argument("--cert", help="signing certificate and its chain (PEM)")
        q.add_argument("--key", help="signing key (PEM; default: in --cert)")
        q.add_argument("--enc-cert", dest="enc_cert", help="TLCP encryption certificate (PEM)")
        q.add_argument("--enc-key", dest="enc_key", help="encryption key (PEM; default: in --enc-cert)")
        q.add_argument("--pass", "--passin", dest="passin", help="key password: pass:TEXT, env:VAR, file:PATH")
        q.add_argument("--cipher", help="cipher suites, ':'-separated (standard or OpenSSL names)")

    c = tsub.add_parser("client", help="connect, show the channel, optionally GET a path")
    c.add_argument("target", metavar="HOST:PORT")
    common(c)
    c.add_argument("--servername", help="SNI and the name checked (default: HOST)")
    c.add_argument("--insecure", action="store_true", help="do not verify the server (prints what it would refuse)")
    c.add_argument("--get", metavar="PATH", help="send an HTTP GET for PATH and print the response")
    c.add_argument("--timeout", type=float, default=15.0, help="seconds (default 15)")
    c.set_defaults(func=_client)

    s = tsub.add_parser("server", help="serve TLCP: echo, or a small HTTP page with --www")
    common(s)
    s.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--verify", choices=["none", "optional", "required"], default="none", help="client certificates")
    s.add_argument("--www", action="store_true", help="answer HTTP requests")
    s.add_argument("--count", type=int, default=0, help="stop after N connections (default: serve forever)")
    s.set_defaults(func=_server)


def _context(args: argparse.Namespace, server_side: bool) -> tls.TLSContext:
    ctx = tls.TLSContext(args.protocol, server_side=server_side)
    password = password_arg(args.passin)
    if args.cafile:
        ctx.load_verify_locations(args.cafile)
    if args.cert:
        ctx.load_cert_chain(args.cert, args.key, password)
    if args.enc_cert:
        ctx.load_enc_cert_chain(args.enc_cert, args.enc_key, password)
    if args.cipher:
        ctx.set_ciphers(args.cipher)
    return ctx


def _split_target(target: str) -> tuple[str, int]:
    host, sep, port = target.rpartition(":")
    if not sep or not port.isdigit():
        raise InvalidInputError(f"expected HOST:PORT, got {target!r}")
    return host.strip("[]"), int(port)


def _describe_peer(s: tls.TLSSocket, out: Any) -> None:
    print(f"Protocol: {s.version()}", file=out)
    cipher = s.cipher()
    print(f"Cipher: {cipher[0] if cipher else '-'}", file=out)
    print(f"Session reused: {'yes' if s.session_reused else 'no'}", file=out)
    roles = ["signing", "encryption"]
    for i, cert in enumerate(s.get_peer_certificates()):
        role = roles[i] if i < 2 else "chain"
        print(f"  {i} {role}: s:{cert.subject.rfc4514_string()}", file=out)
        print(f"      i:{cert.issuer.rfc4514_string()}", file=out)


def _client(args: argparse.Namespace) -> int:
    host, port = _split_target(args.target)
    ctx = _context(args, server_side=False)
    name = args.servername or host
    if args.insecure:
        ctx.check_hostname = False
        ctx.verify_mode = tls.CERT_NONE
    elif not args.cafile:
        raise InvalidInputError("give --CAfile (the trust anchors) or --insecure")
    raw = socket.create_connection((host, port), timeout=args.timeout)
    with ctx.wrap_socket(raw, server_hostname=name) as s:
        _describe_peer(s, sys.stdout)
        print(f"Verification: {'skipped (--insecure)' if args.insecure else 'OK'}")
        if args.get is not None:
            s.sendall(f"GET {args.get} HTTP/1.1\r\nHost: {name}\r\nConnection: close\r\n\r\n".encode())
        elif not sys.stdin.isatty():
            s.sendall(sys.stdin.buffer.read())
        else:
            return 0
        sys.stdout.flush()
        while True:
            data = s.recv(65536)
            if not data:
                break
            sys.stdout.buffer.write(data)
        sys.stdout.flush()
    return 0


def _www_page(s: tls.TLSSocket, request: bytes) -> bytes:
    cipher = s.cipher()
    first_line = request.split(b"\r\n", 1)[0].decode("latin-1")
    body = (
        f"shangmi tls server\nprotocol: {s.version()}\ncipher: {cipher[0] if cipher else '-'}\n"
        f"session reused: {'yes' if s.session_reused else 'no'}\n"
        f"request: {first_line}\n"
    ).encode()
    head = f"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    return head.encode() + body


def _serve_one(s: tls.TLSSocket, www: bool) -> None:
    if www:
        request = b""
        while b"\r\n\r\n" not in request and len(request) < 65536:
            chunk = s.recv(65536)
            if not chunk:
                return
            request += chunk
        s.sendall(_www_page(s, request))
        return
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return
        s.sendall(chunk)


def _server(args: argparse.Namespace) -> int:
    ctx = _context(args, server_side=True)
    ctx.verify_mode = {"none": tls.CERT_NONE, "optional": tls.CERT_OPTIONAL, "required": tls.CERT_REQUIRED}[args.verify]
    listener = socket.create_server((args.host, args.port))
    print(f"listening on {args.host}:{listener.getsockname()[1]} ({args.protocol})", flush=True)
    served = 0
    with listener:
        while not args.count or served < args.count:
            raw, addr = listener.accept()
            served += 1
            raw.settimeout(30)
            try:
                with ctx.wrap_socket(raw, server_side=True) as s:
                    cipher = s.cipher()
                    print(f"{addr[0]}:{addr[1]} {s.version()} {cipher[0] if cipher else '-'}", flush=True)
                    _serve_one(s, args.www)
            except (tls.TLSError, OSError) as e:
                print(f"{addr[0]}:{addr[1]} failed: {e}", file=sys.stderr, flush=True)
    return 0
