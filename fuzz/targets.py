"""Coverage-guided fuzz targets over shangmi's public API (atheris / libFuzzer).

Each target takes one byte string: its first byte picks the entry point or
format, the rest is the attacker-controlled input. A target passes an input if
the library returns or raises a :class:`shangmi.ShangmiError`; any other
exception (or a crash, hang or leak in the native code) is a finding.
A wrong-type argument raises :class:`shangmi.ShangmiTypeError`, which is a
ShangmiError, so a plain ``TypeError`` (or any other exception) is a finding.

Run one target: ``python fuzz/targets.py TARGET [libFuzzer flags] [CORPUS_DIR]``;
run them all for a bounded time: ``python fuzz/run.py`` (see fuzz/README.md).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import atheris

# shangmi is imported at the first input, after libFuzzer has started: a native
# extension built with sanitizer coverage (fuzz/build-native.sh) needs
# libFuzzer's callbacks, which atheris loads (made global by the dlopen flags
# set in main) only when fuzzing starts. Its 8-bit counters then register
# with the running fuzzer, as atheris's own Python counters do.
shangmi: Any = None
sm2: Any = None
sm4: Any = None
zuc: Any = None
gsm2: Any = None
ALLOWED: tuple[type[BaseException], ...] = ()
FORMATS = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "sm2_formats"
PASSWORD = b"correct horse"  # the password of the encrypted fixtures (expected.json)
KEY: Any = None
PUB: Any = None
MESSAGE = (FORMATS / "message.bin").read_bytes()
SM4_KEY = bytes(range(16))


def _load() -> None:
    global shangmi, sm2, sm4, zuc, gsm2, ALLOWED, KEY, PUB
    with atheris.instrument_imports():
        import shangmi as _shangmi
        from shangmi import sm2 as _sm2, sm4 as _sm4, zuc as _zuc
        from shangmi.compat.gmssl import sm2 as _gsm2
    shangmi, sm2, sm4, zuc, gsm2 = _shangmi, _sm2, _sm4, _zuc, _gsm2
    ALLOWED = (shangmi.ShangmiError,)
    KEY = sm2.PrivateKey.from_pem((FORMATS / "pkcs8.pem").read_bytes())
    PUB = KEY.public_key()


def sm2_private_key(data: bytes) -> None:
    sel, body = data[0] % 5, data[1:]
    if sel == 0:
        sm2.PrivateKey.from_pem(body)
    elif sel == 1:
        sm2.PrivateKey.from_der(body)
    elif sel == 2:
        sm2.PrivateKey.from_bytes(body)
    elif sel == 3:
        sm2.PrivateKey.from_pem(body, PASSWORD)
    else:
        sm2.PrivateKey.from_der(body, PASSWORD)


def sm2_public_key(data: bytes) -> None:
    sel, body = data[0] % 3, data[1:]
    pk = (sm2.PublicKey.from_pem, sm2.PublicKey.from_der, sm2.PublicKey.from_bytes)[sel](body)
    # a parsed key must round-trip
    assert sm2.PublicKey.from_bytes(pk.to_bytes()) == pk
    assert sm2.PublicKey.from_der(pk.to_der()) == pk


def sm2_signature(data: bytes) -> None:
    sel, body = data[0] % 4, data[1:]
    encoding = "der" if sel % 2 == 0 else "raw"
    if sel < 2:
        try:
            PUB.verify(body, MESSAGE, encoding=encoding)
        except shangmi.InvalidSignature:
            pass
    else:
        ok = sm2.verify_many([(PUB, MESSAGE, body)], encoding=encoding)
        assert ok in ([True], [False])


def sm2_decrypt(data: bytes) -> None:
    mode = sm2.MODES[data[0] % 3]
    KEY.decrypt(data[1:], mode=mode)


def sm4_ciphertext(data: bytes) -> None:
    sel, body = data[0] % 7, data[1:]
    if sel == 0:
        sm4.SM4GCM(SM4_KEY).decrypt(body[:12], body[12:], body[:3])
    elif sel == 1:
        n = 7 + (body[0] % 7 if body else 0)
        sm4.SM4CCM(SM4_KEY, tag_length=4 + 2 * (n % 7)).decrypt(body[1 : 1 + n], body[1 + n :], None)
    elif sel == 2:
        d = sm4.SM4GCM(SM4_KEY).decryptor(body[:12], aad=None)
        d.update(body[12:-16])
        d.finalize_with_tag(body[-16:])
    elif sel == 3:
        sm4.SM4CBC(SM4_KEY).decrypt(body[:16], body[16:])
    elif sel == 4:
        sm4.SM4ECB(SM4_KEY).decrypt(body)
    elif sel == 5:
        sm4.SM4XTS(bytes(range(32)), standard="ieee" if body[:1] == b"i" else "gb").decrypt(body[1:17], body[17:])
    else:
        dec = sm4.SM4CBC(SM4_KEY).decryptor(body[:16])
        half = len(body) // 2
        dec.update(body[16:half])
        dec.update(body[half:])
        dec.finalize()


def zuc_streams(data: bytes) -> None:
    sel, body = data[0] % 5, data[1:]
    p = body.ljust(8, b"\0")
    count, bearer, direction = int.from_bytes(p[:4], "big"), p[4] % 40, p[5] % 3
    length_bits = int.from_bytes(p[6:8], "big") if p[6] & 0x80 == 0 else None
    msg = body[8:]
    if sel == 0:
        zuc.eea3(SM4_KEY, count, bearer, direction, msg, length_bits=length_bits)
    elif sel == 1:
        zuc.eia3(SM4_KEY, count, bearer, direction, msg, length_bits=length_bits)
    elif sel == 2:
        zuc.ZUC256(bytes(32), msg[:25]).keystream(p[0] % 64)
    elif sel == 3:
        zuc.zuc256_mac(bytes(32), msg[:25], msg[25:], tag_bits=(32, 64, 128, p[1])[p[0] % 4], length_bits=length_bits)
    else:
        zuc.eia3_many([(SM4_KEY, count, bearer, direction, msg, length_bits)])


def compat_gmssl(data: bytes) -> None:
    sel, body = data[0] % 3, data[1:]
    text = body.decode("latin-1")
    if sel == 0:
        gsm2.CryptSM2(private_key="", public_key=text)
    else:
        c = gsm2.CryptSM2(private_key=KEY.to_bytes().hex(), public_key="", mode=sel - 1)
        try:
            c.decrypt(body)
        except shangmi.DecryptionError:
            pass
        assert c.verify(text, MESSAGE) in (True, False)


def pki_parsers(data: bytes) -> None:
    """Certificates (and every property read from them), CSRs, CRLs, PEM
    bundles, CMS SignedData and EnvelopedData as an attacker would send them."""
    from shangmi import cms, x509

    sel, body = data[0] % 6, data[1:]
    if sel == 0:
        c = x509.load_der_x509_certificate(body)
        c.subject.rfc4514_string(), c.issuer.rfc4514_string(), list(c.extensions)
        c.not_valid_before_utc, c.not_valid_after_utc, c.serial_number, c.fingerprint()
        try:
            c.public_key()
        except shangmi.ShangmiError:
            pass
    elif sel == 1:
        r = x509.load_der_x509_csr(body)
        r.subject.rfc4514_string(), list(r.extensions)
    elif sel == 2:
        x509.load_der_x509_crl(body)
    elif sel == 3:
        cms.verify(body)
    elif sel == 4:
        cms.decrypt(body, KEY)
    else:
        x509.load_pem_x509_certificates(body)


TLCP_FIXTURES = Path(__file__).resolve().parent / "tlcp"  # test-only server certificates and keys


def _tls() -> Any:
    """shangmi.tls, or None while the binding does not have it yet."""
    try:
        from shangmi import tls
    except ImportError:
        return None
    return tls


def _tlcp_feed(ctx: Any, data: bytes, server_side: bool) -> None:
    """Feeds `data` as the peer's bytes to a wrapped socket and drives it:
    handshake, then reads until the peer's end closes. EOF and socket
    errors are the peer hanging up, not findings."""
    import socket

    a, b = socket.socketpair()
    try:
        b.sendall(data)
        b.shutdown(socket.SHUT_WR)
        a.settimeout(2.0)
        s = ctx.wrap_socket(a, server_side=server_side, do_handshake_on_connect=False)
        try:
            s.do_handshake()
            while s.recv(4096):
                pass
        except OSError:
            pass
    finally:
        a.close()
        b.close()


def tlcp_handshake(data: bytes) -> None:
    """A TLCP client (no certificate checks, so every message is parsed)
    given a hostile server's bytes: ServerHello, certificates, key exchange,
    CertificateRequest, alerts, records. Seeds: servers' first flights."""
    tls = _tls()
    if tls is None:
        return
    ctx = tls.TLSContext("tlcp")
    ctx.check_hostname = False
    ctx.verify_mode = tls.CERT_NONE
    _tlcp_feed(ctx, data, server_side=False)


def tlcp_record(data: bytes) -> None:
    """A TLCP server given a hostile client's bytes: ClientHello, client
    certificates, the SM2-encrypted pre-master, CertificateVerify, and
    encrypted CBC/GCM records (MAC, padding and tag checks). Seeds: whole
    client handshakes recorded against the fixture server."""
    tls = _tls()
    if tls is None:
        return
    ctx = tls.TLSContext("tlcp")
    ctx.load_cert_chain(str(TLCP_FIXTURES / "sign.pem"), str(TLCP_FIXTURES / "sign.key"))
    ctx.load_enc_cert_chain(str(TLCP_FIXTURES / "enc.pem"), str(TLCP_FIXTURES / "enc.key"))
    ctx.verify_mode = tls.CERT_OPTIONAL
    ctx.load_verify_locations(cafile=str(TLCP_FIXTURES / "sign.pem"))
    _tlcp_feed(ctx, data, server_side=True)


SM9_FILES = FORMATS.parent / "sm9_gmssl"  # written by GmSSL's CLI (README.md there)
SM9: dict[str, Any] = {}


def _sm9() -> dict[str, Any]:
    """GmSSL's master public keys and Bob's decryption key, loaded once."""
    if not SM9:
        from shangmi import sm9

        SM9["mod"] = sm9
        SM9["sign_mpk"] = sm9.SignMasterPublicKey.from_pem((SM9_FILES / "sign_mpk.pem").read_bytes())
        SM9["enc_mpk"] = sm9.EncMasterPublicKey.from_pem((SM9_FILES / "enc_mpk.pem").read_bytes())
        SM9["bob"] = sm9.EncPrivateKey.from_pem((SM9_FILES / "enc_bob.pem").read_bytes(), "123456", uid=b"Bob")
    return SM9


def sm9_parsers(data: bytes) -> None:
    """SM9 key files in every form (PEM, DER, bare bytes; encrypted with the
    fixtures' passwords), signatures and ciphertexts as an attacker would send them."""
    k = _sm9()
    sm9 = k["mod"]
    sel, body = data[0] % 10, data[1:]
    if sel == 0:
        sm9.SignMasterPublicKey.from_der(body)
    elif sel == 1:
        sm9.EncMasterPublicKey.from_bytes(body)
    elif sel == 2:
        sm9.SignMasterKey.from_pem(body, "P@ssw0rd")
    elif sel == 3:
        sm9.EncMasterKey.from_der(body)
    elif sel == 4:
        sm9.SignPrivateKey.from_pem(body, "123456", master_public_key=k["sign_mpk"])
    elif sel == 5:
        sm9.EncPrivateKey.from_der(body, master_public_key=k["enc_mpk"], uid=b"Bob")
    elif sel == 6:
        sm9.EncPrivateKey.from_bytes(body, k["enc_mpk"], uid=b"Bob")
    elif sel == 7:
        try:
            k["sign_mpk"].verify(body, b"hello sm9", b"Alice", encoding="der" if len(body) % 2 else "raw")
        except shangmi.InvalidSignature:
            pass
    elif sel == 8:
        k["bob"].decrypt(body, mode="der", mac="hmac-sm3")
    else:
        k["bob"].decapsulate(body, 32)


PKCS12_PASSWORDS = (b"test", b"123456", b"12345678", None)  # the fixtures' (tests/vectors/pkcs12)


def pkcs12(data: bytes) -> None:
    """PKCS#12 files as an attacker would send them (DER, BER; every
    protection), with the fixtures' passwords and an iteration cap that keeps
    one input well under the timeout; selector 4: certs-only PKCS#7."""
    from shangmi import pkcs12 as p12, x509

    sel, body = data[0] % 5, data[1:]
    if sel == 4:
        x509.load_der_pkcs7_certificates(body)
        return
    p = p12.load_pkcs12(body, PKCS12_PASSWORDS[sel], max_iterations=4096)
    if p.key is not None:
        p.key.public_key()
    for c in p.additional_certs:
        c.certificate.subject.rfc4514_string()


OCSP_VEC = Path(__file__).resolve().parent.parent / "tests" / "vectors" / "ocsp"
_OCSP_CA: Any = None


def ocsp(data: bytes) -> None:
    """OCSP requests (selector 0) and responses (1; with every accessor and
    the signature check against the fixtures' CA) from tests/vectors/ocsp."""
    global _OCSP_CA
    from shangmi import x509
    from shangmi.x509 import ocsp as o

    if _OCSP_CA is None:
        _OCSP_CA = x509.load_pem_x509_certificate((OCSP_VEC / "ca.pem").read_bytes())
    sel, body = data[0] % 2, data[1:]
    if sel == 0:
        r = o.load_der_ocsp_request(body)
        r.extensions, r.nonce, r.serial_number
        for c in r.cert_ids:
            c.matches_issuer(_OCSP_CA)
        return
    resp = o.load_der_ocsp_response(body)
    if resp.response_status is o.OCSPResponseStatus.SUCCESSFUL:
        resp.responder_name, resp.extensions, resp.certificates
        for single in resp.responses:
            single.certificate_status, single.single_extensions, single.matches_issuer(_OCSP_CA)
        resp.verify(_OCSP_CA)


def jose(data: bytes) -> None:
    """Compact JWS tokens fed to decode under each scheme and encoding."""
    from shangmi import jose as j

    sel, body = data[0] % 4, data[1:]
    token = body.decode("latin-1")
    if sel < 2:
        j.decode(token, PUB, algorithms={"SM2": "sm2", "GmSM2": "sm2"}, encoding="raw" if sel == 0 else "der")
    elif sel == 2:
        j.decode(token, b"fuzz secret", algorithms=["HSM3"])
    else:
        j.decode_jwt(token, b"fuzz secret", algorithms=["HSM3"], audience="a", require=["sub"])
VECTORS = Path(__file__).resolve().parent.parent / "tests" / "vectors"
# The fixtures' keys (tests/vectors/cfca, tests/vectors/cms_wild): an escrow
# temporary key, an envelope recipient, a CMS recipient, a KMC recipient.
ESCROW_TMP = "cacece36cac24aab94e52bcd5c0f552c95028f2856053135a1e47510b4c307ba"


def cfca_formats(data: bytes) -> None:
    """CFCA .sm2 containers (DER, PEM, base64), escrowed keys (SADK's text
    forms) and GB/T 35276 key envelopes, with the fixtures' secrets."""
    from shangmi import cfca

    sel, body = data[0] % 3, data[1:]
    if sel == 0:
        key, cert = cfca.load_sm2(body, b"123456")
        assert cert.public_key() == key.public_key()
    elif sel == 1:
        cfca.decrypt_escrowed_key(body, sm2.PrivateKey.from_bytes(bytes.fromhex(ESCROW_TMP)))
    else:
        recip = sm2.PrivateKey.from_pem((VECTORS / "cfca" / "gbt35276_recipient_key.pem").read_bytes())
        sm2.unwrap_enveloped_key(body, recip)


def cms_ber(data: bytes) -> None:
    """CMS as other toolkits write it (DER or BER): SignedData verified,
    EnvelopedData and SignedAndEnvelopedData decrypted with the fixtures'
    keys, certs-only PKCS#7 read."""
    from shangmi import cms, x509

    sel, body = data[0] % 4, data[1:]
    wild = VECTORS / "cms_wild"
    if sel == 0:
        cms.verify(body)
    elif sel == 1:
        key = sm2.PrivateKey.from_bytes(bytes.fromhex((wild / "gmsm_enveloped_ski_method1_key.hex").read_text().strip()))
        cms.decrypt(body, key)
    elif sel == 2:
        key = sm2.PrivateKey.from_pem((wild / "gmcert_signed_enveloped_recipient_key.pem").read_bytes())
        cms.decrypt_and_verify(body, key)
    else:
        x509.load_der_pkcs7_certificates(body)


def selftest_raise(data: bytes) -> None:
    """Deliberately fails on inputs starting with b"CRASH": proves the runner reports findings."""
    if data.startswith(b"CRASH"):
        raise ValueError("planted failure")


TARGETS: dict[str, Callable[[bytes], None]] = {
    f.__name__: f
    for f in (
        sm2_private_key, sm2_public_key, sm2_signature, sm2_decrypt, sm4_ciphertext, zuc_streams, compat_gmssl, pki_parsers,
        sm9_parsers, tlcp_handshake, tlcp_record, pkcs12, ocsp, jose,
        sm9_parsers, tlcp_handshake, tlcp_record, pkcs12, cfca_formats, cms_ber,
    )
}


def one_input(target: Callable[[bytes], None]) -> Callable[[bytes], None]:
    def test(data: bytes) -> None:
        if shangmi is None:
            _load()
        if not data:
            return
        try:
            target(data)
        except ALLOWED:
            pass

    return test


def main() -> None:
    name = sys.argv[1] if len(sys.argv) > 1 else ""
    target = TARGETS.get(name) or (selftest_raise if name == "selftest_raise" else None)
    if target is None:
        raise SystemExit(f"usage: targets.py TARGET [libFuzzer args]; targets: {', '.join(TARGETS)}")
    atheris.Setup([sys.argv[0], *sys.argv[2:]], one_input(target))
    sys.setdlopenflags(sys.getdlopenflags() | os.RTLD_GLOBAL)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
