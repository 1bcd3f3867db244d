#!/usr/bin/env python3
"""Generate the TLCP test PKI in this folder with Tongsuo, not with shangmi.

Keys and certificates are made by the Tongsuo library that PyPI's
``tongsuopy`` wheel carries (``tongsuopy/backends/_tongsuo.abi3.so``, Tongsuo
8.3.2, an OpenSSL 1.1.1 fork), driven through ``ctypes``; shangmi takes no
part, so the files are an independent implementation's output.  Every
certificate is signed with SM2-with-SM3 and the SM2 user ID
``1234567812345678`` (GM/T 0009's default, the one GmSSL and real CAs use),
set explicitly on the signing context.

With ``--gmssl PATH`` (a GmSSL 3 ``gmssl`` binary) the main server and client
keys are also written encrypted the way GmSSL writes them (PBES2,
PBKDF2-HMAC-SM3, SM4-CBC) by a small C program linked against GmSSL's
library (``--gmssl-prefix``), plus the bundles GmSSL's ``tlcp_server`` and
``tlcp_client`` take (sign cert + enc cert + chain; sign key + enc key).

Usage: python make_pki.py [--out DIR] [--gmssl-prefix PREFIX] [--gmssl-only]
Needs: pip install tongsuopy
"""

from __future__ import annotations

import argparse
import ctypes
import subprocess
import sys
import tempfile
from ctypes import byref, c_char_p, c_int, c_long, c_size_t, c_void_p
from pathlib import Path

SM2_ID = b"1234567812345678"
PASSWORD = "shangmi-test"  # the password of every *.enc-key.pem written via GmSSL

NID_SM2 = 1172
EVP_PKEY_EC = 408
EVP_PKEY_SM2 = 1172
MBSTRING_UTF8 = 0x1000
EVP_PKEY_CTRL_SET1_ID = 0x1000 + 11
BIO_CTRL_INFO = 3
NID_basic_constraints = 87
NID_key_usage = 83
NID_ext_key_usage = 126
NID_subject_alt_name = 85
NID_subject_key_identifier = 82
NID_authority_key_identifier = 90

# GmSSL refuses a certificate valid for more than 3653 days (X509_VALIDITY_MAX_DAYS)
# and a serial number shorter than 4 bytes, so validity is ten years, not twenty.
VALID = ("20250101000000Z", "20350101000000Z")
SERIAL_BASE = 0x53480000  # "SH" in the top bytes: every serial is 4 bytes long
EXPIRED = ("20200101000000Z", "20210101000000Z")


def load_tongsuo() -> ctypes.CDLL:
    import tongsuopy.backends  # noqa: F401  (locates the wheel's library)

    path = Path(tongsuopy.backends.__file__).parent / "_tongsuo.abi3.so"
    lib = ctypes.CDLL(str(path))
    sigs = {
        "EC_KEY_new_by_curve_name": ([c_int], c_void_p),
        "EC_KEY_generate_key": ([c_void_p], c_int),
        "EVP_PKEY_new": ([], c_void_p),
        "EVP_PKEY_assign": ([c_void_p, c_int, c_void_p], c_int),
        "EVP_PKEY_set_alias_type": ([c_void_p, c_int], c_int),
        "EVP_PKEY_free": ([c_void_p], None),
        "EVP_PKEY_CTX_new": ([c_void_p, c_void_p], c_void_p),
        "EVP_PKEY_CTX_ctrl": ([c_void_p, c_int, c_int, c_int, c_int, c_void_p], c_int),
        "EVP_MD_CTX_new": ([], c_void_p),
        "EVP_MD_CTX_free": ([c_void_p], None),
        "EVP_MD_CTX_set_pkey_ctx": ([c_void_p, c_void_p], None),
        "EVP_DigestSignInit": ([c_void_p, c_void_p, c_void_p, c_void_p, c_void_p], c_int),
        "EVP_sm3": ([], c_void_p),
        "X509_new": ([], c_void_p),
        "X509_free": ([c_void_p], None),
        "X509_set_version": ([c_void_p, c_long], c_int),
        "X509_get_serialNumber": ([c_void_p], c_void_p),
        "ASN1_INTEGER_set": ([c_void_p, c_long], c_int),
        "X509_getm_notBefore": ([c_void_p], c_void_p),
        "X509_getm_notAfter": ([c_void_p], c_void_p),
        "ASN1_TIME_set_string": ([c_void_p, c_char_p], c_int),
        "X509_NAME_new": ([], c_void_p),
        "X509_NAME_free": ([c_void_p], None),
        "X509_NAME_add_entry_by_txt": ([c_void_p, c_char_p, c_int, c_char_p, c_int, c_int, c_int], c_int),
        "X509_set_subject_name": ([c_void_p, c_void_p], c_int),
        "X509_set_issuer_name": ([c_void_p, c_void_p], c_int),
        "X509_get_subject_name": ([c_void_p], c_void_p),
        "X509_set_pubkey": ([c_void_p, c_void_p], c_int),
        "X509V3_set_ctx": ([c_void_p, c_void_p, c_void_p, c_void_p, c_void_p, c_int], None),
        "X509V3_EXT_conf_nid": ([c_void_p, c_void_p, c_int, c_char_p], c_void_p),
        "X509_add_ext": ([c_void_p, c_void_p, c_int], c_int),
        "X509_EXTENSION_free": ([c_void_p], None),
        "X509_sign_ctx": ([c_void_p, c_void_p], c_int),
        "X509_verify": ([c_void_p, c_void_p], c_int),
        "BIO_new": ([c_void_p], c_void_p),
        "BIO_s_mem": ([], c_void_p),
        "BIO_ctrl": ([c_void_p, c_int, c_long, c_void_p], c_long),
        "BIO_free": ([c_void_p], c_int),
        "PEM_write_bio_X509": ([c_void_p, c_void_p], c_int),
        "PEM_write_bio_PKCS8PrivateKey": (
            [c_void_p, c_void_p, c_void_p, c_char_p, c_int, c_void_p, c_void_p],
            c_int,
        ),
        "ERR_get_error": ([], ctypes.c_ulong),
        "ERR_error_string_n": ([ctypes.c_ulong, c_char_p, c_size_t], None),
    }
    for name, (args, res) in sigs.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = res
    return lib


LIB = load_tongsuo()


def _fail(what: str) -> None:
    errs = []
    while code := LIB.ERR_get_error():
        buf = ctypes.create_string_buffer(256)
        LIB.ERR_error_string_n(code, buf, 256)
        errs.append(buf.value.decode())
    raise RuntimeError(f"{what} failed: {'; '.join(errs) or 'no error queued'}")


def _ok(rc: int | None, what: str) -> None:
    if not rc or rc <= 0:
        _fail(what)


def _bio_text(bio: int) -> str:
    ptr = c_char_p()
    n = LIB.BIO_ctrl(bio, BIO_CTRL_INFO, 0, ctypes.cast(byref(ptr), c_void_p))
    data = ctypes.string_at(ptr, n)
    LIB.BIO_free(bio)
    return data.decode()


class Key:
    """An SM2 key pair (EVP_PKEY of type SM2)."""

    def __init__(self) -> None:
        ec = LIB.EC_KEY_new_by_curve_name(NID_SM2)
        _ok(ec and 1, "EC_KEY_new_by_curve_name(SM2)")
        _ok(LIB.EC_KEY_generate_key(ec), "EC_KEY_generate_key")
        self.pkey = LIB.EVP_PKEY_new()
        _ok(LIB.EVP_PKEY_assign(self.pkey, EVP_PKEY_EC, ec), "EVP_PKEY_assign")
        _ok(LIB.EVP_PKEY_set_alias_type(self.pkey, EVP_PKEY_SM2), "EVP_PKEY_set_alias_type")

    def pkcs8_pem(self) -> str:
        bio = LIB.BIO_new(LIB.BIO_s_mem())
        _ok(LIB.PEM_write_bio_PKCS8PrivateKey(bio, self.pkey, None, None, 0, None, None), "PEM_write PKCS8")
        return _bio_text(bio)


def _name(cn: str, ou: str) -> int:
    name = LIB.X509_NAME_new()
    for field, value in (("C", "CN"), ("O", "shangmi test PKI"), ("OU", ou), ("CN", cn)):
        _ok(
            LIB.X509_NAME_add_entry_by_txt(name, field.encode(), MBSTRING_UTF8, value.encode(), -1, -1, 0),
            f"name entry {field}",
        )
    return name


class Cert:
    def __init__(self, x509: int, key: Key) -> None:
        self.x509 = x509
        self.key = key

    def pem(self) -> str:
        bio = LIB.BIO_new(LIB.BIO_s_mem())
        _ok(LIB.PEM_write_bio_X509(bio, self.x509), "PEM_write_bio_X509")
        return _bio_text(bio)


def make_cert(
    *,
    serial: int,
    cn: str,
    ou: str,
    key: Key,
    issuer: Cert | None,
    issuer_key: Key | None = None,
    validity: tuple[str, str] = VALID,
    exts: list[tuple[int, str]],
) -> Cert:
    """A v3 certificate for ``key`` signed by ``issuer`` (self-signed if None)."""
    x = LIB.X509_new()
    _ok(LIB.X509_set_version(x, 2), "X509_set_version")
    _ok(LIB.ASN1_INTEGER_set(LIB.X509_get_serialNumber(x), SERIAL_BASE + serial), "serial")
    _ok(LIB.ASN1_TIME_set_string(LIB.X509_getm_notBefore(x), validity[0].encode()), "notBefore")
    _ok(LIB.ASN1_TIME_set_string(LIB.X509_getm_notAfter(x), validity[1].encode()), "notAfter")
    subject = _name(cn, ou)
    _ok(LIB.X509_set_subject_name(x, subject), "subject")
    LIB.X509_NAME_free(subject)
    signer_cert = issuer.x509 if issuer else x
    signer_key = issuer_key or (issuer.key if issuer else key)
    _ok(LIB.X509_set_issuer_name(x, LIB.X509_get_subject_name(signer_cert)), "issuer")
    _ok(LIB.X509_set_pubkey(x, key.pkey), "X509_set_pubkey")
    v3ctx = ctypes.create_string_buffer(256)  # X509V3_CTX, 1.1.1 layout fits easily
    LIB.X509V3_set_ctx(v3ctx, signer_cert, x, None, None, 0)
    for nid, value in exts:
        ext = LIB.X509V3_EXT_conf_nid(None, v3ctx, nid, value.encode())
        _ok(ext and 1, f"extension {nid}={value}")
        _ok(LIB.X509_add_ext(x, ext, -1), "X509_add_ext")
        LIB.X509_EXTENSION_free(ext)
    # SM2-with-SM3 over the TBSCertificate with the SM2 ID set explicitly.
    md = LIB.EVP_MD_CTX_new()
    pctx = LIB.EVP_PKEY_CTX_new(signer_key.pkey, None)
    _ok(
        LIB.EVP_PKEY_CTX_ctrl(pctx, -1, -1, EVP_PKEY_CTRL_SET1_ID, len(SM2_ID), ctypes.c_char_p(SM2_ID)),
        "set SM2 ID",
    )
    LIB.EVP_MD_CTX_set_pkey_ctx(md, pctx)
    _ok(LIB.EVP_DigestSignInit(md, None, LIB.EVP_sm3(), None, signer_key.pkey), "EVP_DigestSignInit")
    _ok(LIB.X509_sign_ctx(x, md), "X509_sign_ctx")
    LIB.EVP_MD_CTX_free(md)
    return Cert(x, key)


CA_EXTS = [
    (NID_basic_constraints, "critical,CA:TRUE"),
    (NID_key_usage, "critical,keyCertSign,cRLSign"),
    (NID_subject_key_identifier, "hash"),
]
SUB_CA_EXTS = [
    (NID_basic_constraints, "critical,CA:TRUE,pathlen:0"),
    (NID_key_usage, "critical,keyCertSign,cRLSign"),
    (NID_subject_key_identifier, "hash"),
    (NID_authority_key_identifier, "keyid:always"),
]
# No basicConstraints on end-entity certificates: CA:FALSE is an empty
# SEQUENCE, which GmSSL's parser rejects (x509_basic_constraints_from_der).
LEAF = [
    (NID_subject_key_identifier, "hash"),
    (NID_authority_key_identifier, "keyid:always"),
]
SIGN_KU = (NID_key_usage, "critical,digitalSignature")
ENC_KU = (NID_key_usage, "critical,keyEncipherment,dataEncipherment,keyAgreement")
SERVER_SAN = (NID_subject_alt_name, "DNS:localhost,DNS:tlcp.test,IP:127.0.0.1")
WRONG_SAN = (NID_subject_alt_name, "DNS:wrong.example")
CLIENT_SAN = (NID_subject_alt_name, "email:client@tlcp.test")


GMSSL_ENCRYPT_C = r"""
/* Re-encrypt a plain PKCS#8 SM2 key the way GmSSL writes keys
 * (PBES2, PBKDF2-HMAC-SM3, SM4-CBC): read with GmSSL's own parser. */
#include <stdio.h>
#include <string.h>
#include <gmssl/sm2.h>
#include <gmssl/pem.h>
int main(int argc, char **argv) {
    if (argc != 4) { fprintf(stderr, "usage: in.pem pass out.pem\n"); return 2; }
    FILE *in = fopen(argv[1], "rb"), *out = fopen(argv[3], "wb");
    uint8_t der[1024]; size_t dlen; const uint8_t *p = der;
    const uint8_t *attrs; size_t attrs_len; SM2_KEY key;
    if (!in || !out) return 1;
    if (pem_read(in, "PRIVATE KEY", der, &dlen, sizeof(der)) != 1) return 3;
    if (sm2_private_key_info_from_der(&key, &attrs, &attrs_len, &p, &dlen) != 1) return 4;
    if (sm2_private_key_info_encrypt_to_pem(&key, argv[2], out) != 1) return 5;
    fclose(out); fclose(in);
    return 0;
}
"""


def gmssl_encrypt(prefix: Path, plain: Path, out: Path, build_dir: Path) -> None:
    tool = build_dir / "pkcs8_to_gmssl"
    if not tool.exists():
        src = build_dir / "pkcs8_to_gmssl.c"
        src.write_text(GMSSL_ENCRYPT_C)
        libdir = next(d for d in (prefix / "lib", prefix / "lib64") if (d / "libgmssl.a").exists())
        subprocess.run(
            ["cc", "-O1", "-I", str(prefix / "include"), str(src), str(libdir / "libgmssl.a"), "-o", str(tool)],
            check=True,
        )
    subprocess.run([str(tool), str(plain), PASSWORD, str(out)], check=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path(__file__).parent)
    ap.add_argument("--gmssl-prefix", type=Path, help="GmSSL 3 install prefix (include/, lib/libgmssl.a)")
    ap.add_argument(
        "--gmssl-only", action="store_true", help="keep the existing keys and certificates; only write GmSSL's files"
    )
    args = ap.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.gmssl_only:
        if not args.gmssl_prefix:
            ap.error("--gmssl-only needs --gmssl-prefix")
        write_gmssl(out, args.gmssl_prefix)
        return 0
    files: dict[str, str] = {}

    def emit(stem: str, cert: Cert) -> None:
        files[f"{stem}.pem"] = cert.pem()
        files[f"{stem}.key.pem"] = cert.key.pkcs8_pem()

    root = make_cert(serial=0x1001, cn="shangmi TLCP test root CA", ou="root", key=Key(), issuer=None, exts=CA_EXTS)
    inter = make_cert(
        serial=0x1002, cn="shangmi TLCP test intermediate CA", ou="intermediate", key=Key(), issuer=root,
        exts=SUB_CA_EXTS,
    )
    emit("root-ca", root)
    emit("intermediate-ca", inter)

    def leaf(serial: int, cn: str, ou: str, ku, san, issuer: Cert = inter, validity=VALID, key: Key | None = None):
        exts = LEAF + [ku] + ([san] if san else [])
        return make_cert(serial=serial, cn=cn, ou=ou, key=key or Key(), issuer=issuer, validity=validity, exts=exts)

    server_sign = leaf(0x2001, "localhost", "server", SIGN_KU, SERVER_SAN)
    server_enc = leaf(0x2002, "localhost", "server", ENC_KU, SERVER_SAN)
    client_sign = leaf(0x2003, "tlcp client", "client", SIGN_KU, CLIENT_SAN)
    client_enc = leaf(0x2004, "tlcp client", "client", ENC_KU, CLIENT_SAN)
    emit("server-sign", server_sign)
    emit("server-enc", server_enc)
    emit("client-sign", client_sign)
    emit("client-enc", client_enc)

    # Refusal material.
    emit("server-sign-expired", leaf(0x3001, "localhost", "server", SIGN_KU, SERVER_SAN, validity=EXPIRED))
    emit("server-sign-wrong-host", leaf(0x3002, "wrong.example", "server", SIGN_KU, WRONG_SAN))
    emit("server-enc-wrong-host", leaf(0x3004, "wrong.example", "server", ENC_KU, WRONG_SAN))
    emit(
        "server-sign-wrong-ku",
        leaf(0x3003, "localhost", "server", (NID_key_usage, "critical,keyEncipherment"), SERVER_SAN),
    )
    other_ca = make_cert(serial=0x4001, cn="shangmi TLCP other CA", ou="other", key=Key(), issuer=None, exts=CA_EXTS)
    emit("other-ca", other_ca)
    emit("server-enc-other-ca", leaf(0x4002, "localhost", "server", ENC_KU, SERVER_SAN, issuer=other_ca))
    untrusted = make_cert(
        serial=0x5001, cn="shangmi TLCP untrusted root CA", ou="untrusted", key=Key(), issuer=None, exts=CA_EXTS
    )
    emit("untrusted-root", untrusted)
    emit("server-sign-untrusted", leaf(0x5002, "localhost", "server", SIGN_KU, SERVER_SAN, issuer=untrusted))
    emit("server-enc-untrusted", leaf(0x5003, "localhost", "server", ENC_KU, SERVER_SAN, issuer=untrusted))

    # Convenience bundles.
    files["chain.pem"] = files["intermediate-ca.pem"]
    files["ca-bundle.pem"] = files["intermediate-ca.pem"] + files["root-ca.pem"]
    for role in ("server", "client"):
        files[f"{role}-sign-chain.pem"] = files[f"{role}-sign.pem"] + files["intermediate-ca.pem"]

    for name, text in files.items():
        (out / name).write_text(text)

    if args.gmssl_prefix:
        write_gmssl(out, args.gmssl_prefix)
    print(f"wrote {len(files)} files to {out}")
    return 0


def write_gmssl(out: Path, prefix: Path) -> None:
    """The main keys encrypted by GmSSL, and the bundles GmSSL's tlcp tools take."""
    with tempfile.TemporaryDirectory() as tmp:
        for role in ("server", "client"):
            for kind in ("sign", "enc"):
                gmssl_encrypt(prefix, out / f"{role}-{kind}.key.pem", out / f"{role}-{kind}.enc-key.pem", Path(tmp))
            # GmSSL's tlcp tools: certs = sign + enc + chain, keys = sign key + enc key.
            (out / f"{role}-gmssl-certs.pem").write_text(
                (out / f"{role}-sign.pem").read_text()
                + (out / f"{role}-enc.pem").read_text()
                + (out / "intermediate-ca.pem").read_text()
            )
            (out / f"{role}-gmssl-keys.pem").write_text(
                (out / f"{role}-sign.enc-key.pem").read_text() + (out / f"{role}-enc.enc-key.pem").read_text()
            )


if __name__ == "__main__":
    sys.exit(main())
