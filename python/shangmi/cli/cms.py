"""``shangmi cms sign|verify|encrypt|decrypt``: SM2 signed and enveloped messages.

Options follow ``openssl cms`` and ``gmssl cmssign/cmsverify/cmsencrypt/cmsdecrypt``::

    shangmi cms sign -k key.pem --cert cert.pem -i data -o data.cms [--detached] [--compat gmssl]
    shangmi cms verify -i data.cms --CAfile root.pem [-o content]
    shangmi cms encrypt --recip cert.pem -i data -o data.env
    shangmi cms decrypt -k key.pem --cert cert.pem -i data.env -o data
    shangmi cms certs chain.p7b [-o chain.pem | --outform p7b-der -o chain.p7b]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shangmi import cms, x509
from shangmi.cli._common import read_file, write_file
from shangmi.cli.sm2 import load_private
from shangmi.cli.x509 import _load_cert
from shangmi.exceptions import InvalidCertificate, InvalidSignature


def register(sub: Any) -> None:
    p = sub.add_parser("cms", help="signed and enveloped messages (GM/T 0010, RFC 5652)",
                       description="CMS / PKCS#7 SignedData and EnvelopedData with SM2, SM3 and SM4.")
    ops = p.add_subparsers(dest="cms_command", required=True, metavar="OPERATION")

    def io(q: argparse.ArgumentParser) -> None:
        q.add_argument("-i", "--in", dest="input", default="-", metavar="FILE", help="input (default: stdin)")
        q.add_argument("-o", "--out", default="-", metavar="FILE", help="output (default: stdout)")

    def form(q: argparse.ArgumentParser) -> None:
        q.add_argument("--oids", choices=["gmt0010", "rfc5652"], default="gmt0010", help="OIDs (default: gmt0010)")
        q.add_argument("--compat", choices=["gmssl"], help="write GmSSL's own form")
        q.add_argument("--outform", choices=["pem", "der"], default="pem", help="(default: pem)")

    def key(q: argparse.ArgumentParser) -> None:
        q.add_argument("-k", "--key", "--inkey", dest="key", required=True, metavar="FILE")
        q.add_argument("--passin", metavar="ARG", help="key password: pass:TEXT, env:VAR, file:PATH or TEXT")

    s = ops.add_parser("sign", help="make a SignedData")
    key(s)
    s.add_argument("--cert", "--signer", dest="cert", required=True, metavar="FILE", help="signer certificate")
    s.add_argument("--certfile", action="append", default=[], metavar="FILE", help="extra certificates to include")
    s.add_argument("--detached", action="store_true", help="leave the content out")
    s.add_argument("--uid", default="1234567812345678", metavar="TEXT", help="SM2 ID (default: 1234567812345678)")
    io(s)
    form(s)
    s.set_defaults(func=sign)

    v = ops.add_parser("verify", help="verify a SignedData; exit status 0 if valid")
    v.add_argument("-i", "--in", dest="input", default="-", metavar="FILE")
    v.add_argument("-o", "--out", metavar="FILE", help="write the content here")
    v.add_argument("--content", metavar="FILE", help="the content of a detached signature")
    v.add_argument("--CAfile", dest="cafile", metavar="FILE", help="trust roots; without, only signatures are checked")
    v.add_argument("--certfile", action="append", default=[], metavar="FILE", help="extra certificates")
    v.add_argument("--uid", metavar="TEXT", help="pin the SM2 ID (default: accept 1234567812345678 or empty)")
    v.set_defaults(func=verify)

    e = ops.add_parser("encrypt", help="make an EnvelopedData")
    e.add_argument("--recip", "--rcptcert", dest="recip", action="append", required=True, metavar="FILE",
                   help="recipient certificate (repeatable)")
    e.add_argument("--keyid", action="store_true", help="name recipients by subjectKeyIdentifier")
    io(e)
    form(e)
    e.set_defaults(func=encrypt)

    d = ops.add_parser("decrypt", help="decrypt an EnvelopedData")
    key(d)
    d.add_argument("--cert", metavar="FILE", help="recipient certificate (default: try every recipient entry)")
    io(d)
    d.set_defaults(func=decrypt)

    c = ops.add_parser("certs", help="list or convert the certificates of a .p7b (certs-only PKCS#7)")
    c.add_argument("file", metavar="FILE", help="the .p7b / .p7c (DER or PEM), or a signed message")
    c.add_argument("-o", "--out", metavar="FILE", help="write the certificates here (default: only list them)")
    c.add_argument("--outform", choices=["pem", "p7b-pem", "p7b-der"], default="pem",
                   help="PEM certificates, or a .p7b in PEM or DER (default: pem)")
    c.set_defaults(func=certs)



def _certs(paths: list[str]) -> list[x509.Certificate]:
    return [c for p in paths for c in x509.load_pem_x509_certificates(read_file(p))]



def sign(args: argparse.Namespace) -> int:
    key = load_private(args.key, args.passin)
    out = cms.sign(read_file(args.input), _load_cert(args.cert), key, detached=args.detached,
                   certificates=_certs(args.certfile), uid=args.uid.encode(), oids=args.oids, compat=args.compat,
                   encoding=args.outform)
    write_file(args.out, out)
    return 0


def verify(args: argparse.Namespace) -> int:
    roots = _certs([args.cafile]) if args.cafile else None
    data = read_file(args.content) if args.content else None
    try:
        v = cms.verify(read_file(args.input), data=data, trust_roots=roots, certificates=_certs(args.certfile),
                       uid=None if args.uid is None else args.uid.encode())
    except (InvalidSignature, InvalidCertificate) as exc:
        print(f"verification failed: {exc}", file=sys.stderr)
        return 2
    for s in v.signers:
        print(f"signer: {s.subject.rfc4514_string()} (serial {s.serial_number:#x})", file=sys.stderr)
    print(f"verification OK ({v.form})" + ("" if roots else "; signer not checked against trust roots"),
          file=sys.stderr)
    if args.out:
        write_file(args.out, v.content)
    return 0


def encrypt(args: argparse.Namespace) -> int:
    out = cms.encrypt(read_file(args.input), _certs(args.recip), oids=args.oids, compat=args.compat,
                      recipient_id="key_identifier" if args.keyid else "issuer_and_serial", encoding=args.outform)
    write_file(args.out, out)
    return 0


def decrypt(args: argparse.Namespace) -> int:
    key = load_private(args.key, args.passin)
    cert = _load_cert(args.cert) if args.cert else None
    write_file(args.out, cms.decrypt(read_file(args.input), key, cert))
    return 0


def certs(args: argparse.Namespace) -> int:
    data = read_file(args.file)
    text = data.lstrip()
    found = (x509.load_pem_pkcs7_certificates(data) if text.startswith(b"-----BEGIN")
             else x509.load_der_pkcs7_certificates(data))
    for i, cert in enumerate(found):
        print(f"{i}: subject: {cert.subject.rfc4514_string()}", file=sys.stderr)
        print(f"   issuer:  {cert.issuer.rfc4514_string()}", file=sys.stderr)
        print(f"   serial {cert.serial_number:#x}, valid {cert.not_valid_before_utc:%Y-%m-%d} to "
              f"{cert.not_valid_after_utc:%Y-%m-%d}", file=sys.stderr)
    if not found:
        print("no certificates", file=sys.stderr)
    if args.out:
        if args.outform == "pem":
            out = b"".join(c.to_pem() for c in found)
        else:
            out = x509.serialize_certificates(found, "pem" if args.outform == "p7b-pem" else "der")
        write_file(args.out, out)
    return 0
