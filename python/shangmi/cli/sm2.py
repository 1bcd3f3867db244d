"""``shangmi sm2 keygen|pubkey|sign|verify|encrypt|decrypt``: SM2 on PEM files.

Shaped like ``openssl pkeyutl`` and ``gmssl sm2sign``::

    shangmi sm2 keygen -o key.pem --passout pass:secret
    shangmi sm2 pubkey -k key.pem --passin pass:secret -o pub.pem
    shangmi sm2 sign -k key.pem --passin pass:secret -i msg.txt -o msg.sig
    shangmi sm2 verify -p pub.pem -s msg.sig -i msg.txt
    shangmi sm2 encrypt -p pub.pem -i secret.txt -o secret.enc
    shangmi sm2 decrypt -k key.pem -i secret.enc -o secret.txt

Passwords (``--passin``/``--passout``) take OpenSSL's forms: ``pass:TEXT``,
``env:VAR``, ``file:PATH`` (first line), or plain text. The signer ID
defaults to 1234567812345678 (GmSSL's); OpenSSL's own default is empty:
``--uid ''``.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from shangmi import sm2, sm3
from shangmi.cli._common import hex_arg, open_input, password_arg, read_chunks, read_file, read_signature, write_file, write_secret
from shangmi.exceptions import InvalidSignature


def register(sub: Any) -> None:
    p = sub.add_parser(
        "sm2",
        help="SM2 keys, signatures and encryption",
        description="SM2 key generation, signatures and public-key encryption on PEM files.",
    )
    ops = p.add_subparsers(dest="sm2_command", required=True, metavar="OPERATION")

    g = ops.add_parser("keygen", help="generate a private key (PKCS#8 PEM)")
    g.add_argument("-o", "--out", default="-", metavar="FILE", help="private key output (default: stdout)")
    g.add_argument("--pubout", metavar="FILE", help="also write the public key here")
    _passout(g)
    _keyform(g)
    g.add_argument(
        "--cipher", choices=["sm4", "aes-256-cbc"], default="sm4",
        help="with --passout: PBKDF2-HMAC-SM3 + SM4-CBC (GmSSL, default) or PBKDF2-HMAC-SHA256 + AES-256-CBC (OpenSSL)",
    )
    g.set_defaults(func=keygen)

    k = ops.add_parser("pubkey", help="print the public key of a private key")
    _key(k)
    k.add_argument("-o", "--out", default="-", metavar="FILE", help="output (default: stdout)")
    k.add_argument("--outform", choices=["pem", "der", "hex"], default="pem", help="output format (default: pem)")
    k.add_argument("--compressed", action="store_true", help="with --outform hex: the 33-byte compressed point")
    k.set_defaults(func=pubkey)

    s = ops.add_parser("sign", help="sign a file (SM3 with the signer ID)")
    _key(s)
    _io(s)
    _uid(s)
    s.add_argument("--encoding", choices=list(sm2.ENCODINGS), default="der", help="signature encoding (default: der)")
    s.add_argument("--hex", action="store_true", help="write the signature as hex text")
    s.set_defaults(func=sign)

    v = ops.add_parser("verify", help="verify a signature; exit status 0 if valid, 1 if not")
    _pub(v)
    v.add_argument("-s", "--signature", required=True, metavar="FILE", help="signature file (binary, or hex text)")
    v.add_argument("-i", "--in", dest="input", default="-", metavar="FILE", help="signed data (default: stdin)")
    _uid(v)
    v.add_argument("--encoding", choices=list(sm2.ENCODINGS), default="der", help="signature encoding (default: der)")
    v.set_defaults(func=verify)

    e = ops.add_parser("encrypt", help="encrypt a file to a public key")
    _pub(e)
    _io(e)
    _mode(e)
    e.set_defaults(func=encrypt)

    d = ops.add_parser("decrypt", help="decrypt a file with a private key")
    _key(d)
    _io(d)
    _mode(d)
    d.set_defaults(func=decrypt)


# -- option groups ---------------------------------------------------------------


def _passout(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--passout", "--password", dest="passout", metavar="ARG",
        help="encrypt the key (PBKDF2-HMAC-SM3 + SM4-CBC); pass:TEXT, env:VAR, file:PATH or TEXT",
    )


def _keyform(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=["pkcs8", "sec1"], default="pkcs8", help="private key format (default: pkcs8)")


def _key(p: argparse.ArgumentParser) -> None:
    p.add_argument("-k", "--key", "--inkey", dest="key", required=True, metavar="FILE", help="private key (PEM or DER)")
    p.add_argument(
        "--passin", "--password", dest="passin", metavar="ARG",
        help="password of an encrypted key: pass:TEXT, env:VAR, file:PATH or TEXT",
    )


def _pub(p: argparse.ArgumentParser) -> None:
    grp = p.add_mutually_exclusive_group(required=True)
    grp.add_argument("-p", "--pubkey", "--pubin", dest="pubkey", metavar="FILE", help="public key (PEM or DER)")
    grp.add_argument("-k", "--key", "--inkey", dest="key", metavar="FILE", help="or a private key (its public half is used)")
    p.add_argument("--passin", dest="passin", metavar="ARG", help="password of an encrypted --key")


def _io(p: argparse.ArgumentParser) -> None:
    p.add_argument("-i", "--in", dest="input", default="-", metavar="FILE", help="input (default: stdin)")
    p.add_argument("-o", "--out", default="-", metavar="FILE", help="output (default: stdout)")


def _uid(p: argparse.ArgumentParser) -> None:
    grp = p.add_mutually_exclusive_group()
    grp.add_argument("--uid", metavar="TEXT", help="signer ID as text (default: 1234567812345678; OpenSSL's default is '')")
    grp.add_argument("--uid-hex", type=hex_arg("signer ID"), metavar="HEX", help="signer ID as hex")


def _mode(p: argparse.ArgumentParser) -> None:
    p.add_argument("--mode", choices=list(sm2.MODES), default="c1c3c2", help="ciphertext layout (default: c1c3c2; der = GM/T 0009, as openssl pkeyutl)")


# -- helpers ---------------------------------------------------------------------------



def load_private(path: str, passin: str | None) -> sm2.PrivateKey:
    data = read_file(path)
    pw = password_arg(passin)
    if b"-----BEGIN" in data:
        return sm2.PrivateKey.from_pem(data, pw)
    return sm2.PrivateKey.from_der(data, pw)


def load_public(args: argparse.Namespace) -> sm2.PublicKey:
    if args.key is not None:
        return load_private(args.key, args.passin).public_key()
    data = read_file(args.pubkey)
    if b"-----BEGIN" in data:
        if b"PRIVATE KEY-----" in data:
            raise ValueError(f"{args.pubkey} holds a private key; pass it with --key")
        return sm2.PublicKey.from_pem(data)
    return sm2.PublicKey.from_der(data)


def _uid_of(args: argparse.Namespace) -> bytes:
    if args.uid_hex is not None:
        return bytes(args.uid_hex)
    if args.uid is not None:
        return str(args.uid).encode()
    return sm2.DEFAULT_UID


def _digest(public: sm2.PublicKey, uid: bytes, path: str) -> bytes:
    """e = SM3(Z ‖ M), streaming M from the file (so huge files are fine)."""
    h = sm3.SM3(public.z(uid))
    with open_input(path) as f:
        for chunk in read_chunks(f, path):
            h.update(chunk)
    return h.digest()



# -- operations ----------------------------------------------------------------------


def keygen(args: argparse.Namespace) -> int:
    key = sm2.PrivateKey.generate()
    pw = password_arg(args.passout)
    if args.format == "sec1":
        if pw is not None:
            raise ValueError("--format sec1 cannot be encrypted; use the default pkcs8 with --passout")
        pem = key.to_pem(format="sec1")
    else:
        pem = key.to_pem(password=pw, encryption=args.cipher)
    write_secret(args.out, pem)
    if args.pubout:
        write_file(args.pubout, key.public_key().to_pem())
    return 0


def pubkey(args: argparse.Namespace) -> int:
    public = load_private(args.key, args.passin).public_key()
    if args.outform == "der":
        out = public.to_der()
    elif args.outform == "hex":
        out = public.to_bytes(compressed=args.compressed).hex().encode() + b"\n"
    else:
        out = public.to_pem()
    write_file(args.out, out)
    return 0


def sign(args: argparse.Namespace) -> int:
    key = load_private(args.key, args.passin)
    e = _digest(key.public_key(), _uid_of(args), args.input)
    sig = key.sign_digest(e, encoding=args.encoding)
    write_file(args.out, sig.hex().encode() + b"\n" if args.hex else sig)
    return 0



def verify(args: argparse.Namespace) -> int:
    public = load_public(args)
    sig = read_signature(args.signature)
    e = _digest(public, _uid_of(args), args.input)
    try:
        public.verify_digest(sig, e, encoding=args.encoding)
    except InvalidSignature:
        print("Signature Verification Failure", file=sys.stderr)
        return 1
    print("Signature Verified Successfully")
    return 0


def encrypt(args: argparse.Namespace) -> int:
    public = load_public(args)
    write_file(args.out, public.encrypt(read_file(args.input), mode=args.mode))
    return 0


def decrypt(args: argparse.Namespace) -> int:
    key = load_private(args.key, args.passin)
    write_file(args.out, key.decrypt(read_file(args.input), mode=args.mode))
    return 0
