"""``shangmi sm9 setup|keygen|sign|verify|encrypt|decrypt``: SM9 on PEM files.

Mirrors GmSSL's ``gmssl sm9setup/sm9keygen/sm9sign/sm9verify/sm9encrypt/
sm9decrypt`` (its single-dash options work too), and reads and writes the
same files::

    shangmi sm9 setup -alg sm9sign -pass P@ssw0rd -out sign_msk.pem -pubout sign_mpk.pem
    shangmi sm9 keygen -alg sm9sign -in sign_msk.pem -inpass P@ssw0rd -id Alice -out alice.pem -outpass 123456
    shangmi sm9 sign -key alice.pem -pass 123456 -in msg.txt -out msg.sig
    shangmi sm9 verify -pubmaster sign_mpk.pem -id Alice -in msg.txt -sig msg.sig

    shangmi sm9 setup -alg sm9encrypt -pass P@ssw0rd -out enc_msk.pem -pubout enc_mpk.pem
    shangmi sm9 keygen -alg sm9encrypt -in enc_msk.pem -inpass P@ssw0rd -id Bob -out bob.pem -outpass 123456
    shangmi sm9 encrypt -pubmaster enc_mpk.pem -id Bob -in msg.txt -out msg.der
    shangmi sm9 decrypt -key bob.pem -pass 123456 -id Bob -in msg.der

Ciphertexts default to what GmSSL writes and reads: the DER SM9Cipher with
C3 = HMAC-SM3(K2, C2) (``--mac hmac-sm3 --mode der``); ``--mac sm3`` gives
the standard's C3 = SM3(C2 ‖ K2). Passwords take OpenSSL's forms
(``pass:TEXT``, ``env:VAR``, ``file:PATH``, or plain text, as GmSSL's
``-pass``), or ``--pass-file``/``--pass-env``. Without a password a private
key is written unencrypted (``PRIVATE KEY``; GmSSL reads only encrypted
ones). Private keys are created with mode 0600.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Union

from shangmi import sm9
from shangmi.cli._common import password_arg, read_file, read_signature, write_file, write_secret
from shangmi.exceptions import InvalidSignature

_Master = Union[sm9.SignMasterKey, sm9.EncMasterKey]


def register(sub: Any) -> None:
    p = sub.add_parser(
        "sm9",
        help="SM9 identity-based keys, signatures and encryption",
        description="SM9 master keys, user keys, signatures and encryption on GmSSL-compatible PEM files.",
    )
    ops = p.add_subparsers(dest="sm9_command", required=True, metavar="OPERATION")

    s = ops.add_parser("setup", help="generate a master key (gmssl sm9setup)")
    s.add_argument("-alg", "--alg", required=True, choices=["sm9sign", "sm9encrypt"], help="signature or encryption master key")
    _password(s, "pass", "encrypt the master key (PBKDF2-HMAC-SM3 + SM4-CBC)")
    s.add_argument("-out", "--out", "-o", dest="out", default="-", metavar="FILE", help="master key output (default: stdout)")
    s.add_argument("-pubout", "--pubout", dest="pubout", metavar="FILE", help="also write the master public key here")
    s.set_defaults(func=setup)

    k = ops.add_parser("keygen", help="extract a user's private key (gmssl sm9keygen)")
    k.add_argument(
        "-alg", "--alg", required=True, choices=["sm9sign", "sm9encrypt", "sm9keyagreement"],
        help="sign (hid 1), encrypt (hid 3) or key agreement (hid 2) key",
    )
    k.add_argument("-in", "--in", "-i", dest="input", required=True, metavar="FILE", help="master key (PEM or DER)")
    _password(k, "inpass", "password of the master key")
    _id(k)
    k.add_argument("-out", "--out", "-o", dest="out", default="-", metavar="FILE", help="user key output (default: stdout)")
    _password(k, "outpass", "encrypt the user key (PBKDF2-HMAC-SM3 + SM4-CBC)")
    k.set_defaults(func=keygen)

    g = ops.add_parser("sign", help="sign a file (gmssl sm9sign)")
    _key(g)
    _io(g)
    g.add_argument("--encoding", choices=["der", "raw"], default="der", help="signature encoding (default: der, GmSSL's)")
    g.add_argument("--hex", action="store_true", help="write the signature as hex text")
    g.set_defaults(func=sign)

    v = ops.add_parser("verify", help="verify a signature; exit status 0 if valid, 1 if not (gmssl sm9verify)")
    _pubmaster(v)
    _id(v)
    v.add_argument("-in", "--in", "-i", dest="input", default="-", metavar="FILE", help="signed data (default: stdin)")
    v.add_argument("-sig", "--sig", "-s", dest="sig", required=True, metavar="FILE", help="signature (binary, or hex text)")
    v.add_argument("--encoding", choices=["der", "raw"], default="der", help="signature encoding (default: der)")
    v.set_defaults(func=verify)

    e = ops.add_parser("encrypt", help="encrypt a file to an identity (gmssl sm9encrypt)")
    _pubmaster(e)
    _id(e)
    _io(e)
    _cipher_options(e)
    e.set_defaults(func=encrypt)

    d = ops.add_parser("decrypt", help="decrypt a file (gmssl sm9decrypt)")
    _key(d)
    _id(d)
    _io(d)
    _cipher_options(d)
    d.set_defaults(func=decrypt)


# -- option groups ---------------------------------------------------------------


def _password(p: argparse.ArgumentParser, name: str, what: str) -> None:
    grp = p.add_mutually_exclusive_group()
    grp.add_argument(f"-{name}", f"--{name}", dest=name, metavar="ARG", help=f"{what}: pass:TEXT, env:VAR, file:PATH or TEXT")
    grp.add_argument(f"--{name}-file", dest=f"{name}_file", metavar="FILE", help="read the password from FILE (first line)")
    grp.add_argument(f"--{name}-env", dest=f"{name}_env", metavar="VAR", help="read the password from environment variable VAR")


def _key(p: argparse.ArgumentParser) -> None:
    p.add_argument("-key", "--key", "-k", dest="key", required=True, metavar="FILE", help="user private key (PEM or DER)")
    _password(p, "pass", "password of the key")


def _pubmaster(p: argparse.ArgumentParser) -> None:
    p.add_argument("-pubmaster", "--pubmaster", dest="pubmaster", required=True, metavar="FILE", help="master public key (PEM or DER)")


def _id(p: argparse.ArgumentParser) -> None:
    p.add_argument("-id", "--id", dest="id", required=True, metavar="TEXT", help="the user's identity (UTF-8 text)")


def _io(p: argparse.ArgumentParser) -> None:
    p.add_argument("-in", "--in", "-i", dest="input", default="-", metavar="FILE", help="input (default: stdin)")
    p.add_argument("-out", "--out", "-o", dest="out", default="-", metavar="FILE", help="output (default: stdout)")


def _cipher_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--mac", choices=["hmac-sm3", "sm3"], default="hmac-sm3",
        help="C3: HMAC-SM3(K2, C2) as GmSSL (default) or the standard's SM3(C2 ‖ K2)",
    )
    p.add_argument("--mode", choices=["der", "c1c3c2", "c1c2c3"], default="der", help="ciphertext layout (default: der, GmSSL's)")
    p.add_argument("--cipher", choices=["xor", "sm4-cbc", "sm4-ecb"], default="xor", help="C2: KDF stream (default) or SM4")


# -- helpers ---------------------------------------------------------------------------


def _pass_of(args: argparse.Namespace, name: str) -> bytes | None:
    if getattr(args, f"{name}_file") is not None:
        return password_arg("file:" + getattr(args, f"{name}_file"))
    if getattr(args, f"{name}_env") is not None:
        return password_arg("env:" + getattr(args, f"{name}_env"))
    return password_arg(getattr(args, name))


def _uid(args: argparse.Namespace) -> bytes:
    return str(args.id).encode("utf-8")


def _is_pem(data: bytes) -> bool:
    return b"-----BEGIN" in data


def _load_master(path: str, password: bytes | None) -> _Master:
    data = read_file(path)
    errors: list[str] = []
    for cls in (sm9.SignMasterKey, sm9.EncMasterKey):
        try:
            return cls.from_pem(data, password) if _is_pem(data) else cls.from_der(data, password)
        except ValueError as exc:
            errors.append(str(exc))
    raise ValueError(f"{path}: not an SM9 master key ({errors[0]})")


def _load_pubmaster(path: str, cls: type[sm9.SignMasterPublicKey] | type[sm9.EncMasterPublicKey]) -> Any:
    data = read_file(path)
    return cls.from_pem(data) if _is_pem(data) else cls.from_der(data)


# -- operations ----------------------------------------------------------------------


def setup(args: argparse.Namespace) -> int:
    master: _Master = sm9.SignMasterKey.generate() if args.alg == "sm9sign" else sm9.EncMasterKey.generate()
    write_secret(args.out, master.to_pem(_pass_of(args, "pass")))
    if args.pubout:
        write_file(args.pubout, master.public_key().to_pem())
    return 0


def keygen(args: argparse.Namespace) -> int:
    master = _load_master(args.input, _pass_of(args, "inpass"))
    uid = _uid(args)
    user: sm9.SignPrivateKey | sm9.EncPrivateKey
    if args.alg == "sm9sign":
        if not isinstance(master, sm9.SignMasterKey):
            raise ValueError(f"{args.input} is an encryption master key; -alg sm9sign needs a signature master key")
        user = master.extract(uid)
    else:
        if not isinstance(master, sm9.EncMasterKey):
            raise ValueError(f"{args.input} is a signature master key; -alg {args.alg} needs an encryption master key")
        user = master.extract(uid, hid=sm9.HID_EXCHANGE if args.alg == "sm9keyagreement" else sm9.HID_ENCRYPT)
    write_secret(args.out, user.to_pem(_pass_of(args, "outpass")))
    return 0


def sign(args: argparse.Namespace) -> int:
    data, pw = read_file(args.key), _pass_of(args, "pass")
    key = sm9.SignPrivateKey.from_pem(data, pw) if _is_pem(data) else sm9.SignPrivateKey.from_der(data, pw)
    sig = key.sign(read_file(args.input), encoding=args.encoding)
    write_file(args.out, sig.hex().encode() + b"\n" if args.hex else sig)
    return 0


def verify(args: argparse.Namespace) -> int:
    mpk = _load_pubmaster(args.pubmaster, sm9.SignMasterPublicKey)
    try:
        mpk.verify(read_signature(args.sig), read_file(args.input), _uid(args), encoding=args.encoding)
    except InvalidSignature:
        print("Signature Verification Failure", file=sys.stderr)
        return 1
    print("Signature Verified Successfully")
    return 0


def encrypt(args: argparse.Namespace) -> int:
    mpk = _load_pubmaster(args.pubmaster, sm9.EncMasterPublicKey)
    ct = mpk.encrypt(read_file(args.input), _uid(args), mode=args.mode, cipher=args.cipher, mac=args.mac)
    write_file(args.out, ct)
    return 0


def decrypt(args: argparse.Namespace) -> int:
    data, pw, uid = read_file(args.key), _pass_of(args, "pass"), _uid(args)
    key = sm9.EncPrivateKey.from_pem(data, pw, uid=uid) if _is_pem(data) else sm9.EncPrivateKey.from_der(data, pw, uid=uid)
    write_file(args.out, key.decrypt(read_file(args.input), mode=args.mode, cipher=args.cipher, mac=args.mac))
    return 0
