"""Writes the seed corpora under fuzz/corpus/TARGET/ (committed; rerun to refresh).

Seeds are valid inputs of every format each target reads, prefixed with the
selector byte that routes them (see targets.py): OpenSSL- and GmSSL-made keys
from tests/vectors/sm2_formats, signatures and ciphertexts made here with that
fixtures' key, SM4/ZUC messages with their tags.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

from shangmi import sm2, sm4, zuc

HERE = Path(__file__).resolve().parent
FORMATS = HERE.parent / "tests" / "vectors" / "sm2_formats"
KEY = sm2.PrivateKey.from_pem((FORMATS / "pkcs8.pem").read_bytes())
MESSAGE = (FORMATS / "message.bin").read_bytes()
SM4_KEY = bytes(range(16))


def pki_seeds() -> list[bytes]:
    """A CA and a leaf certificate, a CSR, a CRL, a bundle, and CMS messages made here."""
    import datetime as dt

    from shangmi import cms, x509

    sys.path.insert(0, str(HERE.parent / "tests"))
    import _pki

    ca_key = sm2.PrivateKey.generate()
    ca_name = _pki.name("测试根 CA", o="shangmi")
    ca = _pki.issue(ca_name, ca_key.public_key(), ca_name, ca_key, ca=True)
    leaf = _pki.issue(_pki.name("leaf"), KEY.public_key(), ca_name, ca_key)
    csr = x509.CertificateSigningRequestBuilder().subject_name(_pki.name("req")).sign(KEY)
    now = dt.datetime.now(dt.timezone.utc)
    crl = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(ca_name)
        .last_update(now)
        .next_update(now + dt.timedelta(days=1))
        .sign(ca_key)
    )
    return [
        b"\x00" + ca.to_der(), b"\x00" + leaf.to_der(), b"\x01" + csr.to_der(), b"\x02" + crl.to_der(),
        b"\x03" + cms.sign(b"hello", leaf, KEY, encoding="der"),
        b"\x04" + cms.encrypt(b"secret", [leaf], encoding="der"),
        b"\x05" + ca.to_pem() + leaf.to_pem(),
    ]


def pkcs12_seeds() -> list[bytes]:
    """OpenSSL-made and third-party PFX files (tests/vectors/pkcs12), each with
    the selector of its password (see targets.PKCS12_PASSWORDS), and an
    unprotected file made here (its bags reach the parsers without a MAC)."""
    from shangmi import pkcs12, x509

    d = HERE.parent / "tests" / "vectors" / "pkcs12"
    files = [("openssl-legacy.p12", 0), ("openssl-default.p12", 0), ("openssl-sm4-sm3mac.p12", 0),
             ("openssl-noenc.p12", 0), ("gmcert-withca.p12", 1), ("cryptobin-ber-sm2.p12", 2)]
    out = [bytes([sel]) + (d / f).read_bytes() for f, sel in files]
    key = sm2.PrivateKey.from_pem((d / "key.pem").read_bytes())
    cert = x509.load_pem_x509_certificate((d / "leaf.pem").read_bytes())
    ca = x509.load_pem_x509_certificate((d / "ca.pem").read_bytes())
    out.append(b"\x03" + pkcs12.serialize_key_and_certificates(b"n", key, cert, [ca], encryption=None))
    out.append(b"\x04" + x509.serialize_certificates([cert, ca], "der"))
    return out


def _to_ber(der: bytes) -> bytes:
    """DER re-encoded as streaming encoders write BER: indefinite lengths on
    every constructed element, OCTET STRINGs over 8 bytes in segments."""
    out, i = bytearray(), 0
    while i < len(der):
        tag, n = der[i], der[i + 1]
        hl, length = (2, n) if n < 0x80 else (2 + (n & 0x7F), int.from_bytes(der[i + 2 : i + 2 + (n & 0x7F)], "big"))
        value = der[i + hl : i + hl + length]
        if tag & 0x20:
            out += bytes([tag, 0x80]) + _to_ber(value) + b"\0\0"
        elif tag == 0x04 and length > 8:
            out += b"\x24\x80" + b"".join(bytes([4, len(value[j : j + 8])]) + value[j : j + 8]
                                           for j in range(0, length, 8)) + b"\0\0"
        else:
            out += der[i : i + hl + length]
        i += hl + length
    return bytes(out)


def cfca_seeds() -> list[bytes]:
    """gmsm's SADK .sm2 files (PEM, base64), its escrowed keys, and the
    GmSSL/OpenSSL-made GB/T 35276 envelope (tests/vectors/cfca)."""
    import json

    d = HERE.parent / "tests" / "vectors" / "cfca"
    pem = (d / "gmsm_oca1_123456.sm2.pem").read_bytes()
    body = b"".join(line for line in pem.splitlines() if not line.startswith(b"-----"))
    out = [b"\x00" + pem, b"\x00" + body, b"\x00" + (d / "gmsm_oca31_ys123456.sm2.pem").read_bytes()]
    out += [b"\x01" + c["data"].encode() for c in json.loads((d / "gmsm_escrowed_keys.json").read_text())]
    out.append(b"\x02" + (d / "gbt35276_enveloped_key.der").read_bytes())
    return out


def cms_ber_seeds() -> list[bytes]:
    """gmsm's and gmcert.org's messages (tests/vectors/cms_wild) in DER and
    in BER, a SignedData in BER, and OpenSSL's certs-only .p7b."""
    from shangmi import cms, x509

    def der(name: str) -> bytes:
        text = (HERE.parent / "tests" / "vectors" / name).read_bytes()
        import base64

        return base64.b64decode(b"".join(line for line in text.splitlines() if not line.startswith(b"-----")))

    env = der("cms_wild/gmsm_enveloped_ski_method1.pem")
    sed = der("cms_wild/gmcert_signed_enveloped.pem")
    p7b = der("pkcs12/chain.p7b.pem")
    cert = x509.load_pem_x509_certificate(
        (HERE.parent / "tests" / "vectors" / "cms_wild" / "gmcert_signed_enveloped_signer_cert.pem").read_bytes())
    key = sm2.PrivateKey.from_pem(
        (HERE.parent / "tests" / "vectors" / "cms_wild" / "gmcert_signed_enveloped_recipient_key.pem").read_bytes())
    signed = cms.sign(b"seed", cert, key, oids="rfc5652")
    sealed = cms.sign_and_encrypt(b"seed", cert, key, [cert])
    return [b"\x00" + signed, b"\x00" + _to_ber(signed), b"\x01" + env, b"\x01" + _to_ber(env),
            b"\x02" + sed, b"\x02" + sealed, b"\x02" + _to_ber(sealed), b"\x03" + p7b, b"\x03" + _to_ber(p7b)]


def sm9_seeds() -> list[bytes]:
    """GmSSL-written SM9 files (tests/vectors/sm9_gmssl), each routed to its parser."""
    import base64
    import re

    d = HERE.parent / "tests" / "vectors" / "sm9_gmssl"

    def der(name: str) -> bytes:
        m = re.search(rb"-----BEGIN [^-]+-----(.*?)-----END", (d / name).read_bytes(), re.S)
        assert m is not None
        return base64.b64decode(b"".join(m.group(1).split()))

    def raw(name: str) -> bytes:
        return (d / name).read_bytes()

    routed = [
        (0, der("sign_mpk.pem")), (1, der("enc_mpk.pem")), (2, raw("sign_msk.pem")), (3, der("enc_msk.pem")),
        (4, raw("sign_alice.pem")), (5, der("enc_bob.pem")), (7, raw("msg.sig")), (8, raw("msg.ct")),
    ]
    return [bytes([sel]) + body for sel, body in routed]


def seeds() -> dict[str, list[bytes]]:
    f = {p.name: p.read_bytes() for p in FORMATS.iterdir() if p.suffix in (".pem", ".der")}
    priv: list[bytes] = []
    for name, data in f.items():
        if "public" in name or name in ("ciphertext.der", "signature.der"):
            continue
        encrypted = "aes" in name or "sm4" in name
        if name.endswith(".pem"):
            priv.append(bytes([3 if encrypted else 0]) + data)
        else:
            priv.append(bytes([4 if encrypted else 1]) + data)
    priv.append(b"\x02" + KEY.to_bytes())
    pub = KEY.public_key()
    public = [b"\x00" + f["public.pem"], b"\x01" + f["public.der"], b"\x00" + f["p256_public.pem"],
              b"\x02" + pub.to_bytes(), b"\x02" + pub.to_bytes(compressed=True), b"\x02" + pub.to_bytes()[1:]]
    sigs = [b"\x00" + f["signature.der"], b"\x00" + KEY.sign(MESSAGE), b"\x01" + KEY.sign(MESSAGE, encoding="raw"),
            b"\x02" + KEY.sign(MESSAGE), b"\x03" + KEY.sign(MESSAGE, encoding="raw")]
    cts = [b"\x02" + f["ciphertext.der"]]
    for i, mode in enumerate(sm2.MODES):
        for m in (b"x", MESSAGE):
            cts.append(bytes([i]) + pub.encrypt(m, mode=mode))  # type: ignore[arg-type]
    nonce = bytes(12)
    gcm = sm4.SM4GCM(SM4_KEY).encrypt(nonce, MESSAGE, nonce[:3])
    ccm_n = bytes(7 + 3)
    sym = [
        b"\x00" + nonce + gcm,
        b"\x01" + bytes([3]) + ccm_n + sm4.SM4CCM(SM4_KEY, tag_length=4 + 2 * (10 % 7)).encrypt(ccm_n, MESSAGE),
        b"\x02" + nonce + sm4.SM4GCM(SM4_KEY).encrypt(nonce, MESSAGE),
        b"\x03" + bytes(16) + sm4.SM4CBC(SM4_KEY).encrypt(bytes(16), MESSAGE),
        b"\x04" + sm4.SM4ECB(SM4_KEY).encrypt(MESSAGE),
        b"\x05g" + bytes(16) + sm4.SM4XTS(bytes(range(32))).encrypt(bytes(16), MESSAGE * 4),
        b"\x06" + bytes(16) + sm4.SM4CBC(SM4_KEY).encrypt(bytes(16), MESSAGE * 3),
    ]
    head = bytes.fromhex("66035492") + bytes([15, 0, 0x00, 0xC1])
    z = [b"\x00" + head + MESSAGE, b"\x01" + head + MESSAGE, b"\x02" + bytes(8) + bytes(25),
         b"\x03" + bytes([1, 0]) + bytes(6) + bytes(25) + MESSAGE, b"\x04" + head + MESSAGE]
    hex_pub = pub.to_bytes().hex().encode()
    compat = [b"\x00" + hex_pub, b"\x00" + hex_pub[2:], b"\x01" + pub.encrypt(MESSAGE, mode="c1c2c3")[1:],
              b"\x02" + pub.encrypt(MESSAGE, mode="c1c3c2")[1:], b"\x01" + KEY.sign(MESSAGE, encoding="raw").hex().encode()]
    return {
        "sm2_private_key": priv,
        "sm2_public_key": public,
        "sm2_signature": sigs,
        "sm2_decrypt": cts,
        "sm4_ciphertext": sym,
        "zuc_streams": z,
        "compat_gmssl": compat,
        "pki_parsers": pki_seeds(),
        "sm9_parsers": sm9_seeds(),
        "pkcs12": pkcs12_seeds(),
        "ocsp": ocsp_seeds(),
        "jose": jose_seeds(),
        "cfca_formats": cfca_seeds(),
        "cms_ber": cms_ber_seeds(),
        "selftest_raise": [b"CRASH"],
    }


def ocsp_seeds() -> list[bytes]:
    """OpenSSL- and GmSSL-made requests (selector 0) and responses (1) of tests/vectors/ocsp."""
    d = HERE.parent / "tests" / "vectors" / "ocsp"
    return [(b"\x00" if "_req_" in f.name else b"\x01") + f.read_bytes() for f in sorted(d.glob("*.der"))]


def jose_seeds() -> list[bytes]:
    """Tokens of tests/vectors/jose (OpenSSL-signed) under each selector, and ours."""
    import json

    from shangmi import jose

    d = json.loads((HERE.parent / "tests" / "vectors" / "jose" / "tokens.json").read_text("utf-8"))
    out = [bytes([i]) + c["token"].encode() for c in d["cases"] for i in range(4)]
    out.append(b"\x00" + jose.encode(b"{}", KEY).encode())
    out.append(b"\x01" + jose.encode(b"{}", KEY, alg="GmSM2", scheme="sm2", encoding="der").encode())
    out.append(b"\x03" + jose.encode_jwt({"sub": "1", "aud": "a"}, b"fuzz secret", alg="HSM3").encode())
    return out


def main() -> None:
    root = HERE / "corpus"
    if root.exists():
        shutil.rmtree(root)
    for target, items in seeds().items():
        d = root / target
        d.mkdir(parents=True)
        for data in items:
            (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
        print(f"{target}: {len(items)} seeds")
    # keep zuc.py importable for type checkers of this script
    assert zuc.KEY_SIZE_128 == 16


if __name__ == "__main__":
    main()
