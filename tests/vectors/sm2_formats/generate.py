#!/usr/bin/env python3
"""Regenerates the SM2 key/signature/ciphertext format fixtures in this folder.

Provenance: every file here is produced by the OpenSSL 3 CLI (`openssl`), except
pkcs8_sm3_sm4.pem, which is built with independent implementations of the
pieces GmSSL uses (hashlib.pbkdf2_hmac('sm3') and pyca/cryptography's SM4-CBC,
both OpenSSL underneath) and a hand-written DER encoder below. expected.json
holds values read back from `openssl ec -text` and `openssl asn1parse`, never
from shangmi. Run from this folder: python3 generate.py
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess

PASS = "correct horse"
MESSAGE = b"message digest"
UID = "1234567812345678"


def ossl(*args: str, input: bytes | None = None) -> bytes:
    return subprocess.run(["openssl", *args], input=input, check=True, capture_output=True).stdout


def write(name: str, data: bytes) -> None:
    with open(name, "wb") as f:
        f.write(data)


def der_len(n: int) -> bytes:
    if n < 0x80:
        return bytes([n])
    b = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([0x80 | len(b)]) + b


def tlv(tag: int, body: bytes) -> bytes:
    return bytes([tag]) + der_len(len(body)) + body


def oid(dotted: str) -> bytes:
    parts = [int(p) for p in dotted.split(".")]
    out = bytes([40 * parts[0] + parts[1]])
    for p in parts[2:]:
        chunk = [p & 0x7F]
        p >>= 7
        while p:
            chunk.append(0x80 | (p & 0x7F))
            p >>= 7
        out += bytes(reversed(chunk))
    return tlv(0x06, out)


def integer(v: int) -> bytes:
    b = v.to_bytes(max(1, (v.bit_length() + 8) // 8), "big")
    return tlv(0x02, b)


def pem(label: str, der: bytes) -> bytes:
    import base64

    b64 = base64.b64encode(der).decode()
    lines = [b64[i : i + 64] for i in range(0, len(b64), 64)]
    return (f"-----BEGIN {label}-----\n" + "\n".join(lines) + f"\n-----END {label}-----\n").encode()


def gmssl_style_encrypted(pkcs8_der: bytes, password: bytes) -> bytes:
    """PBES2 with PBKDF2-HMAC-SM3 (OID 1.2.156.10197.1.401.2) and SM4-CBC, as GmSSL 3 writes."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    salt = bytes(range(16))
    iv = bytes(range(16, 32))
    iterations = 4096
    key = hashlib.pbkdf2_hmac("sm3", password, salt, iterations, 16)
    padder = padding.PKCS7(128).padder()
    padded = padder.update(pkcs8_der) + padder.finalize()
    enc = Cipher(algorithms.SM4(key), modes.CBC(iv)).encryptor()
    data = enc.update(padded) + enc.finalize()
    prf = tlv(0x30, oid("1.2.156.10197.1.401.2"))
    kdf_params = tlv(0x30, tlv(0x04, salt) + integer(iterations) + prf)
    kdf = tlv(0x30, oid("1.2.840.113549.1.5.12") + kdf_params)
    scheme = tlv(0x30, oid("1.2.156.10197.1.104.2") + tlv(0x04, iv))
    alg = tlv(0x30, oid("1.2.840.113549.1.5.13") + tlv(0x30, kdf + scheme))
    return tlv(0x30, alg + tlv(0x04, data))


def hexblock(text: str, name: str) -> str:
    m = re.search(name + r":\s*\n((?:\s+[0-9a-f:]+\n)+)", text)
    assert m, name
    return re.sub(r"[\s:]", "", m.group(1))


def asn1_values(der: bytes) -> list[str]:
    out = ossl("asn1parse", "-inform", "DER", input=der).decode()
    vals = []
    for line in out.splitlines():
        m = re.search(r"prim: (INTEGER|OCTET STRING)\s+(?:\[HEX DUMP\])?:(\S*)", line)
        if m:
            vals.append(m.group(2).lower())
    return vals


def main() -> None:
    key_pem = ossl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:SM2")
    write("pkcs8.pem", key_pem)
    # Note: `openssl pkey -outform DER` writes SEC1 ("traditional") DER for EC keys, not PKCS#8.
    write("pkcs8.der", ossl("pkcs8", "-topk8", "-nocrypt", "-in", "pkcs8.pem", "-outform", "DER"))
    write("sec1.pem", ossl("ec", "-in", "pkcs8.pem"))  # label "SM2 PRIVATE KEY"
    write("sec1.der", ossl("ec", "-in", "pkcs8.pem", "-outform", "DER"))
    write("public.pem", ossl("pkey", "-in", "pkcs8.pem", "-pubout"))
    write("public.der", ossl("pkey", "-in", "pkcs8.pem", "-pubout", "-outform", "DER"))
    pw = f"pass:{PASS}"
    write("pkcs8_aes256.pem", ossl("pkcs8", "-topk8", "-in", "pkcs8.pem", "-passout", pw))  # OpenSSL default
    write("pkcs8_aes256.der", ossl("pkcs8", "-topk8", "-in", "pkcs8.pem", "-passout", pw, "-outform", "DER"))
    write("pkcs8_aes128.pem", ossl("pkcs8", "-topk8", "-in", "pkcs8.pem", "-v2", "aes-128-cbc", "-passout", pw))
    write(
        "pkcs8_aes256_sha1.pem",
        ossl("pkcs8", "-topk8", "-in", "pkcs8.pem", "-v2", "aes-256-cbc", "-v2prf", "hmacWithSHA1", "-passout", pw),
    )
    write("sec1_aes256.pem", ossl("ec", "-in", "pkcs8.pem", "-aes256", "-passout", pw))
    write("sec1_aes128.pem", ossl("ec", "-in", "pkcs8.pem", "-aes128", "-passout", pw))
    write("ecparam_genkey.pem", ossl("ecparam", "-name", "SM2", "-genkey"))
    write("pkcs8_sm3_sm4.pem", pem("ENCRYPTED PRIVATE KEY", gmssl_style_encrypted(open("pkcs8.der", "rb").read(), PASS.encode())))
    write("p256.pem", ossl("genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"))
    write("p256_public.pem", ossl("pkey", "-in", "p256.pem", "-pubout"))

    text = ossl("ec", "-in", "pkcs8.pem", "-text", "-noout").decode()
    write("message.bin", MESSAGE)
    sig = ossl(
        "pkeyutl", "-sign", "-rawin", "-digest", "sm3", "-inkey", "pkcs8.pem",
        "-pkeyopt", f"distid:{UID}", "-in", "message.bin",
    )
    write("signature.der", sig)
    ct = ossl("pkeyutl", "-encrypt", "-pubin", "-inkey", "public.pem", "-in", "message.bin")
    write("ciphertext.der", ct)
    r, s = asn1_values(sig)
    x, y, c3, c2 = asn1_values(ct)
    expected = {
        "source": "OpenSSL " + ossl("version").decode().strip() + " CLI; values read back with `openssl ec -text` and `openssl asn1parse`",
        "password": PASS,
        "private_key": hexblock(text, "priv").rjust(64, "0"),
        "public_key": hexblock(text, "pub"),
        "message": MESSAGE.hex(),
        "uid": UID.encode().hex(),
        "signature_r": r.rjust(64, "0"),
        "signature_s": s.rjust(64, "0"),
        "ciphertext_x": x.rjust(64, "0"),
        "ciphertext_y": y.rjust(64, "0"),
        "ciphertext_c3": c3,
        "ciphertext_c2": c2,
        "ecparam_genkey_private_key": hexblock(ossl("ec", "-in", "ecparam_genkey.pem", "-text", "-noout").decode(), "priv").rjust(64, "0"),
    }
    with open("expected.json", "w") as f:
        json.dump(expected, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
