"""``shangmi x509 req|selfsign|sign|show|verify``: SM2 certificates on PEM files.

Options follow ``openssl req/x509/verify`` and ``gmssl reqgen/reqsign/certgen/certverify``::

    shangmi x509 selfsign -k ca.key --subj "/C=CN/O=测试/CN=Root CA" --days 3650 --ca -o ca.pem
    shangmi x509 req -k leaf.key --subj "/CN=leaf" --san dns:leaf.example -o leaf.csr
    shangmi x509 sign --csr leaf.csr --CA ca.pem --CAkey ca.key --days 365 -o leaf.pem
    shangmi x509 verify --CAfile ca.pem --untrusted inter.pem leaf.pem
    shangmi x509 show -i leaf.pem

The SM2 ID for signing defaults to 1234567812345678 (GM/T 0015, GmSSL);
``--uid ''`` makes what ``openssl verify`` checks without ``-vfyopt``.
Verification accepts either convention unless ``--uid`` pins one.
"""

from __future__ import annotations

import argparse
import datetime as dt
import ipaddress
import sys
from typing import Any

from shangmi import sm2, x509
from shangmi.cli._common import open_output, read_file
from shangmi.cli.sm2 import load_private
from shangmi.exceptions import InvalidCertificate, InvalidInputError
from shangmi.x509 import Name, NameAttribute, ObjectIdentifier, RelativeDistinguishedName

_SHORT = {"C": "2.5.4.6", "ST": "2.5.4.8", "L": "2.5.4.7", "O": "2.5.4.10", "OU": "2.5.4.11", "CN": "2.5.4.3",
          "STREET": "2.5.4.9", "DC": "0.9.2342.19200300.100.1.25", "UID": "0.9.2342.19200300.100.1.1",
          "emailAddress": "1.2.840.113549.1.9.1", "serialNumber": "2.5.4.5"}


def parse_subject(text: str) -> Name:
    """OpenSSL's ``/C=CN/O=Org/CN=name`` form (``+`` joins a multi-valued RDN)."""
    if not text.startswith("/"):
        raise InvalidInputError(f"subject must look like /C=CN/O=Org/CN=name, got {text!r}")
    rdns = []
    for part in text[1:].split("/"):
        if not part:
            continue
        attrs = []
        for item in part.split("+"):
            key, sep, value = item.partition("=")
            if not sep:
                raise InvalidInputError(f"subject component {item!r} has no '='")
            oid = _SHORT.get(key, key)
            attrs.append(NameAttribute(ObjectIdentifier(oid), value))
        rdns.append(RelativeDistinguishedName(attrs))
    return Name(rdns)


def _san(values: list[str]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = []
    for v in values:
        kind, _, value = v.partition(":")
        if kind == "dns":
            names.append(x509.DNSName(value))
        elif kind == "email":
            names.append(x509.RFC822Name(value))
        elif kind == "uri":
            names.append(x509.UniformResourceIdentifier(value))
        elif kind == "ip":
            names.append(x509.IPAddress(ipaddress.ip_address(value)))
        else:
            raise InvalidInputError(f"--san must be dns:, email:, uri: or ip:, got {v!r}")
    return x509.SubjectAlternativeName(names)


def register(sub: Any) -> None:
    p = sub.add_parser("x509", help="SM2 certificates, requests, chains",
                       description="Make, show and verify SM2 certificates and certification requests.")
    ops = p.add_subparsers(dest="x509_command", required=True, metavar="OPERATION")

    def key(q: argparse.ArgumentParser, flag: str = "-k", dest: str = "key") -> None:
        q.add_argument(flag, "--" + dest, dest=dest, required=True, metavar="FILE", help="private key (PEM or DER)")
        q.add_argument("--passin", metavar="ARG", help="its password: pass:TEXT, env:VAR, file:PATH or TEXT")

    def uid(q: argparse.ArgumentParser, default: str | None) -> None:
        q.add_argument("--uid", default=default, metavar="TEXT",
                       help="SM2 signer ID (default: 1234567812345678)" if default else
                       "pin the SM2 ID (default: accept 1234567812345678 or empty)")

    def validity(q: argparse.ArgumentParser) -> None:
        q.add_argument("--days", type=int, default=365, help="validity in days (default: 365)")
        q.add_argument("--ca", action="store_true", help="make a CA certificate (basicConstraints CA:TRUE)")
        q.add_argument("--pathlen", type=int, help="with --ca: pathLenConstraint")
        q.add_argument("--serial", type=lambda s: int(s, 0), help="serial number (default: random)")
        q.add_argument("-o", "--out", default="-", metavar="FILE", help="output (default: stdout)")
        q.add_argument("--outform", choices=["pem", "der"], default="pem")

    r = ops.add_parser("req", help="make a certification request (openssl req -new, gmssl reqgen)")
    key(r)
    r.add_argument("--subj", required=True, help="subject, e.g. /C=CN/O=Org/CN=name")
    r.add_argument("--san", action="append", default=[], metavar="KIND:VALUE", help="subjectAltName (repeatable)")
    r.add_argument("-o", "--out", default="-", metavar="FILE")
    r.add_argument("--outform", choices=["pem", "der"], default="pem")
    uid(r, sm2.DEFAULT_UID.decode())
    r.set_defaults(func=req)

    s = ops.add_parser("selfsign", help="make a self-signed certificate (openssl req -x509, gmssl certgen)")
    key(s)
    s.add_argument("--subj", required=True)
    s.add_argument("--san", action="append", default=[], metavar="KIND:VALUE")
    validity(s)
    uid(s, sm2.DEFAULT_UID.decode())
    s.set_defaults(func=selfsign)

    g = ops.add_parser("sign", help="issue a certificate from a request (openssl x509 -req, gmssl reqsign)")
    g.add_argument("--csr", "--in", dest="csr", required=True, metavar="FILE", help="the request")
    g.add_argument("--CA", "--cacert", dest="cacert", required=True, metavar="FILE", help="issuer certificate")
    key(g, "--CAkey", "cakey")
    validity(g)
    uid(g, sm2.DEFAULT_UID.decode())
    g.add_argument("--csr-uid", metavar="TEXT", help="pin the ID the request was signed with (default: either)")
    g.set_defaults(func=sign)

    w = ops.add_parser("show", help="print a certificate, request or CRL (openssl x509 -text)")
    w.add_argument("-i", "--in", dest="input", default="-", metavar="FILE")
    w.set_defaults(func=show)

    v = ops.add_parser("verify", help="validate certificates against trust roots (openssl verify, gmssl certverify)")
    v.add_argument("--CAfile", dest="cafile", required=True, metavar="FILE", help="trusted root certificates (PEM)")
    v.add_argument("--untrusted", action="append", default=[], metavar="FILE", help="intermediate certificates")
    v.add_argument("--CRLfile", dest="crls", action="append", default=[], metavar="FILE", help="CRLs to check")
    uid(v, None)
    v.add_argument("certs", nargs="+", metavar="CERT")
    v.set_defaults(func=verify)



def _load_cert(path: str) -> x509.Certificate:
    data = read_file(path)
    return x509.load_pem_x509_certificate(data) if b"-----BEGIN" in data else x509.load_der_x509_certificate(data)


def _write(path: str, obj: Any, form: str) -> int:
    with open_output(path) as f:
        f.write(obj.to_pem() if form == "pem" else obj.to_der())
    return 0


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0)


def _builder(args: argparse.Namespace, subject: Name, issuer: Name, public: sm2.PublicKey,
             issuer_public: sm2.PublicKey) -> x509.CertificateBuilder:
    now = _now()
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(public)
         .serial_number(args.serial or x509.random_serial_number())
         .not_valid_before(now).not_valid_after(now + dt.timedelta(days=args.days)))
    if args.ca:
        b = b.add_extension(x509.BasicConstraints(ca=True, path_length=args.pathlen), critical=True)
        b = b.add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
    else:
        b = b.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
    return b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_public), critical=False)


def req(args: argparse.Namespace) -> int:
    key = load_private(args.key, args.passin)
    b = x509.CertificateSigningRequestBuilder().subject_name(parse_subject(args.subj))
    if args.san:
        b = b.add_extension(_san(args.san), critical=False)
    return _write(args.out, b.sign(key, uid=args.uid.encode()), args.outform)


def selfsign(args: argparse.Namespace) -> int:
    key = load_private(args.key, args.passin)
    name = parse_subject(args.subj)
    b = _builder(args, name, name, key.public_key(), key.public_key())
    if args.san:
        b = b.add_extension(_san(args.san), critical=False)
    return _write(args.out, b.sign(key, uid=args.uid.encode()), args.outform)


def sign(args: argparse.Namespace) -> int:
    data = read_file(args.csr)
    csr = x509.load_pem_x509_csr(data) if b"-----BEGIN" in data else x509.load_der_x509_csr(data)
    csr.verify(uid=None if args.csr_uid is None else args.csr_uid.encode())
    ca = _load_cert(args.cacert)
    ca_key = load_private(args.cakey, args.passin)
    if ca_key.public_key() != ca.public_key():
        raise InvalidInputError("--CAkey does not belong to the --CA certificate")
    b = _builder(args, csr.subject, ca.subject, csr.public_key(), ca.public_key())
    for e in csr.extensions:
        if not isinstance(e.value, (x509.BasicConstraints, x509.SubjectKeyIdentifier, x509.AuthorityKeyIdentifier)):
            b = b.add_extension(e.value, critical=e.critical)
    return _write(args.out, b.sign(ca_key, uid=args.uid.encode()), args.outform)


def show(args: argparse.Namespace) -> int:
    data = read_file(args.input)
    text = data.decode("latin-1")
    if "BEGIN CERTIFICATE REQUEST" in text:
        r = x509.load_pem_x509_csr(data)
        lines = [f"Certificate request: {r.subject.rfc4514_string()}",
                 f"  Public key: {r.public_key().to_bytes().hex()}",
                 f"  Signature valid (either ID): {r.is_signature_valid}"]
        lines += [f"  Extension {e.oid.dotted_string}{' (critical)' if e.critical else ''}: {e.value!r}"
                  for e in r.extensions]
    elif "BEGIN X509 CRL" in text:
        c = x509.load_pem_x509_crl(data)
        lines = [f"CRL issued by {c.issuer.rfc4514_string()}", f"  This update: {c.last_update_utc}",
                 f"  Next update: {c.next_update_utc}"]
        lines += [f"  Revoked: serial {r.serial_number:#x} on {r.revocation_date_utc}" for r in c]
    else:
        certs = x509.load_pem_x509_certificates(data) if "-----BEGIN" in text else [x509.load_der_x509_certificate(data)]
        lines = []
        for cert in certs:
            lines += [f"Certificate (v{cert.version}):", f"  Serial: {cert.serial_number:#x}",
                      f"  Issuer: {cert.issuer.rfc4514_string()}", f"  Subject: {cert.subject.rfc4514_string()}",
                      f"  Not before: {cert.not_valid_before_utc}", f"  Not after: {cert.not_valid_after_utc}",
                      f"  Signature algorithm: {cert.signature_algorithm_oid.dotted_string}",
                      f"  SM3 fingerprint: {cert.fingerprint().hex(':').upper()}"]
            try:
                lines.append(f"  Public key: {cert.public_key().to_bytes().hex()}")
            except ValueError as exc:
                lines.append(f"  Public key: ({exc})")
            lines += [f"  Extension {e.oid.dotted_string}{' (critical)' if e.critical else ''}: {e.value!r}"
                      for e in cert.extensions]
    sys.stdout.write("\n".join(lines) + "\n")
    return 0


def verify(args: argparse.Namespace) -> int:
    roots = x509.load_pem_x509_certificates(read_file(args.cafile))
    inter = [c for path in args.untrusted for c in x509.load_pem_x509_certificates(read_file(path))]
    crls = [x509.load_pem_x509_crl(read_file(p)) for p in args.crls]
    uid = None if args.uid is None else args.uid.encode()
    status = 0
    for path in args.certs:
        try:
            x509.verify_chain(_load_cert(path), inter, roots, uid=uid, crls=crls)
            print(f"{path}: OK")
        except InvalidCertificate as exc:
            print(f"{path}: verification failed: {exc}")
            status = 2
    return status
