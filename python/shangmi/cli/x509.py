"""``shangmi x509 req|selfsign|sign|show|verify|ocsp``: SM2 certificates on PEM files.

Options follow ``openssl req/x509/verify`` and ``gmssl reqgen/reqsign/certgen/certverify``::

    shangmi x509 selfsign -k ca.key --subj "/C=CN/O=测试/CN=Root CA" --days 3650 --ca -o ca.pem
    shangmi x509 req -k leaf.key --subj "/CN=leaf" --san dns:leaf.example -o leaf.csr
    shangmi x509 sign --csr leaf.csr --CA ca.pem --CAkey ca.key --days 365 -o leaf.pem
    shangmi x509 verify --CAfile ca.pem --untrusted inter.pem leaf.pem
    shangmi x509 show -i leaf.pem
    shangmi x509 ocsp request --issuer ca.pem --cert leaf.pem -o req.der
    shangmi x509 ocsp respond --reqin req.der --CA ca.pem --rsigner ocsp.pem --rkey ocsp.key --index index.txt -o resp.der
    shangmi x509 ocsp verify --respin resp.der --reqin req.der --issuer ca.pem

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
from shangmi.exceptions import InvalidCertificate, InvalidInputError, InvalidSignature
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
    v.add_argument("--ocsp", dest="ocsp", action="append", default=[], metavar="FILE",
                   help="DER OCSP responses to use like CRLs")
    uid(v, None)
    v.add_argument("certs", nargs="+", metavar="CERT")
    v.set_defaults(func=verify)

    o = ops.add_parser("ocsp", help="OCSP requests and responses (openssl ocsp, gmssl ocspreq/ocspsign/ocspverify)")
    oo = o.add_subparsers(dest="ocsp_command", required=True, metavar="STEP")
    q = oo.add_parser("request", help="make an OCSP request (openssl ocsp -reqout, gmssl ocspreq)")
    q.add_argument("--issuer", required=True, metavar="FILE", help="the certificates' issuer")
    q.add_argument("--cert", action="append", required=True, metavar="FILE", help="certificate to ask about")
    q.add_argument("--digest", choices=["sha1", "sha256", "sm3"], default="sha1",
                   help="CertID hash (default: sha1, what OpenSSL sends; GmSSL sends sm3)")
    q.add_argument("--no-nonce", dest="nonce", action="store_false", help="no nonce extension")
    q.add_argument("-o", "--reqout", "--out", dest="out", default="-", metavar="FILE")
    q.set_defaults(func=ocsp_request)
    a = oo.add_parser("respond", help="answer a request (openssl ocsp -index, gmssl ocspsign)")
    a.add_argument("--reqin", required=True, metavar="FILE", help="DER OCSP request")
    a.add_argument("--CA", "--cacert", dest="cacert", required=True, metavar="FILE", help="issuer of the certificates")
    a.add_argument("--rsigner", required=True, metavar="FILE", help="responder certificate (the CA or delegated)")
    key(a, "--rkey", "rkey")
    a.add_argument("--index", metavar="FILE", help="OpenSSL CA index.txt giving each serial's status")
    a.add_argument("--status", choices=["good", "revoked", "unknown"], default="good",
                   help="status of serials not in --index (default: good)")
    a.add_argument("--revocation-time", metavar="YYYYMMDDHHMMSSZ", help="with --status revoked")
    a.add_argument("--days", type=int, default=1, help="nextUpdate this many days on (0: none; default: 1)")
    a.add_argument("--resp-key-id", action="store_true", help="responder ID by key hash (default: by name)")
    a.add_argument("--resp-no-certs", action="store_true", help="do not include the responder certificate")
    uid(a, sm2.DEFAULT_UID.decode())
    a.add_argument("-o", "--respout", "--out", dest="out", default="-", metavar="FILE")
    a.set_defaults(func=ocsp_respond)
    c = oo.add_parser("verify", help="check a response and print the statuses (openssl ocsp -respin, gmssl ocspverify)")
    c.add_argument("--respin", required=True, metavar="FILE", help="DER OCSP response")
    c.add_argument("--issuer", required=True, metavar="FILE", help="the CA the response answers for")
    c.add_argument("--reqin", metavar="FILE", help="the request: its nonce and certificates must be answered")
    c.add_argument("--verify-other", dest="others", action="append", default=[], metavar="FILE",
                   help="responder certificates not carried in the response")
    c.add_argument("--max-age", type=int, metavar="SECONDS",
                   help="accept answers this long past nextUpdate (default: none)")
    uid(c, None)
    c.set_defaults(func=ocsp_verify)



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
    responses = [x509.ocsp.load_der_ocsp_response(read_file(p)) for p in args.ocsp]
    uid = None if args.uid is None else args.uid.encode()
    status = 0
    for path in args.certs:
        try:
            x509.verify_chain(_load_cert(path), inter, roots, uid=uid, crls=crls, ocsp_responses=responses)
            print(f"{path}: OK")
        except InvalidCertificate as exc:
            print(f"{path}: verification failed: {exc}")
            status = 2
    return status


# -- OCSP ------------------------------------------------------------------------------


def _gtime(text: str) -> dt.datetime:
    """YYYYMMDDHHMMSSZ or OpenSSL index.txt's YYMMDDHHMMSSZ."""
    fmt = "%Y%m%d%H%M%SZ" if len(text) == 15 else "%y%m%d%H%M%SZ"
    try:
        return dt.datetime.strptime(text, fmt).replace(tzinfo=dt.timezone.utc)
    except ValueError:
        raise InvalidInputError(f"time {text!r} is not YYYYMMDDHHMMSSZ") from None


_REASONS = {"unspecified": 0, "keyCompromise": 1, "CACompromise": 2, "affiliationChanged": 3, "superseded": 4,
            "cessationOfOperation": 5, "certificateHold": 6, "removeFromCRL": 8, "privilegeWithdrawn": 9,
            "AACompromise": 10}


def _index(path: str) -> dict[int, tuple[str, dt.datetime | None, int | None]]:
    """OpenSSL's CA database: status V/R/E, expiry, revocation[,reason], serial (hex), file, subject."""
    out: dict[int, tuple[str, dt.datetime | None, int | None]] = {}
    for n, line in enumerate(read_file(path).decode("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        f = line.split("\t")
        if len(f) < 4 or f[0] not in ("V", "R", "E"):
            raise InvalidInputError(f"{path}:{n}: not an OpenSSL index.txt line")
        serial = int(f[3], 16)
        if f[0] == "R":
            when, _, reason = f[2].partition(",")
            out[serial] = ("revoked", _gtime(when), _REASONS.get(reason) if reason else None)
        else:
            out[serial] = ("good", None, None)
    return out


def ocsp_request(args: argparse.Namespace) -> int:
    import secrets

    issuer = _load_cert(args.issuer)
    b = x509.ocsp.OCSPRequestBuilder()
    for path in args.cert:
        b = b.add_certificate(_load_cert(path), issuer, args.digest)
    if args.nonce:
        b = b.add_extension(x509.ocsp.OCSPNonce(secrets.token_bytes(16)), critical=False)
    with open_output(args.out) as f:
        f.write(b.build().public_bytes("der"))
    return 0


def ocsp_respond(args: argparse.Namespace) -> int:
    ocsp = x509.ocsp
    req = ocsp.load_der_ocsp_request(read_file(args.reqin))
    ca = _load_cert(args.cacert)
    signer = _load_cert(args.rsigner)
    key = load_private(args.rkey, args.passin)
    if key.public_key() != signer.public_key():
        raise InvalidInputError("--rkey does not belong to the --rsigner certificate")
    db = _index(args.index) if args.index else {}
    now = _now()
    nxt = now + dt.timedelta(days=args.days) if args.days > 0 else None
    b = ocsp.OCSPResponseBuilder().produced_at(now)
    for cid in req.cert_ids:
        if not cid.matches_issuer(ca):
            st, rt, reason = "unknown", None, None
        elif cid.serial_number in db:
            st, rt, reason = db[cid.serial_number]
        elif args.index:
            st, rt, reason = "unknown", None, None
        else:
            st = args.status
            rt = _gtime(args.revocation_time) if st == "revoked" and args.revocation_time else (
                now if st == "revoked" else None)
            reason = None
        b = b.add_response_by_hash(cid.issuer_name_hash, cid.issuer_key_hash, cid.serial_number, cid.hash_algorithm,
                                   ocsp.OCSPCertStatus[st.upper()], now, nxt, rt, reason)
    enc = ocsp.OCSPResponderEncoding.HASH if args.resp_key_id else ocsp.OCSPResponderEncoding.NAME
    b = b.responder_id(enc, signer)
    if not args.resp_no_certs and signer != ca:
        b = b.certificates([signer])
    if req.nonce is not None:
        b = b.add_extension(ocsp.OCSPNonce(req.nonce), critical=False)
    resp = b.sign(key, uid=args.uid.encode())
    with open_output(args.out) as f:
        f.write(resp.public_bytes("der"))
    return 0


def ocsp_verify(args: argparse.Namespace) -> int:
    ocsp = x509.ocsp
    resp = ocsp.load_der_ocsp_response(read_file(args.respin))
    if resp.response_status is not ocsp.OCSPResponseStatus.SUCCESSFUL:
        print(f"Responder error: {resp.response_status.name}")
        return 2
    issuer = _load_cert(args.issuer)
    others = [c for p in args.others for c in x509.load_pem_x509_certificates(read_file(p))]
    uid = None if args.uid is None else args.uid.encode()
    now = _now()
    try:
        signer = resp.verify(issuer, responders=others, uid=uid, at=now)
        if args.reqin:
            req = ocsp.load_der_ocsp_request(read_file(args.reqin))
            if req.nonce is not None and resp.nonce != req.nonce:
                raise InvalidCertificate("the response's nonce does not match the request's (a replayed response?)")
            answered = {(r.issuer_name_hash, r.issuer_key_hash, r.serial_number) for r in resp.responses}
            for cid in req.cert_ids:
                if (cid.issuer_name_hash, cid.issuer_key_hash, cid.serial_number) not in answered:
                    raise InvalidCertificate(f"serial {cid.serial_number:#x} of the request is not answered")
    except (InvalidCertificate, InvalidSignature) as exc:
        print(f"Response verify failed: {exc}")
        return 2
    allowance = dt.timedelta(seconds=args.max_age or 0)
    print("Response verify OK" + (f" (delegated responder {signer.subject.rfc4514_string()})" if signer else
                                  " (signed by the issuer)"))
    status = 0
    for r in resp.responses:
        line = f"serial {r.serial_number:#x}: {r.certificate_status.name.lower()}"
        if r.revocation_time_utc is not None:
            line += f" since {r.revocation_time_utc}" + (
                f" (reason {r.revocation_reason})" if r.revocation_reason is not None else "")
        line += f"; this update {r.this_update_utc}, next update {r.next_update_utc}"
        if r.this_update_utc > now or (r.next_update_utc is not None and now > r.next_update_utc + allowance):
            line += "  [NOT FRESH: outside thisUpdate..nextUpdate]"
            status = 2
        print(line)
    return status
