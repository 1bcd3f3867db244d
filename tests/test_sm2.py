"""shangmi.sm2 through the public Python API: the standard's examples on the
recommended curve, key formats, bad input, pickling, pools, batches, key
exchange, and hypothesis round-trips / bit-flip rejections.

Expected values come from tests/vectors/sm2.json, from OpenSSL-written files
in tests/vectors/sm2_formats, or from the small independent pure-Python SM2
reference below (affine arithmetic with Python ints), never from shangmi.
"""

from __future__ import annotations

import copy
import hashlib
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import assert_gil_released, load_vectors, unhex
from shangmi import sm2, sm3
from shangmi.exceptions import (
    DecryptionError,
    InvalidInputError,
    InvalidKey,
    InvalidSignature,
    InvalidTag,
    ShangmiError,
)

# ---- independent reference (recommended curve, GB/T 32918.5) ------------------------

P = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF
A = P - 3
B = 0x28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93
N = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123
GX = 0x32C4AE2C1F1981195F9904466A39C9948FE30BBFF2660BE1715A4589334C74C7
GY = 0xBC3736A2F4F6779C59BDCEE36B692153D0A9877CC62A474002DF32E52139F0A0

Point = tuple[int, int] | None


def _add(p1: Point, p2: Point) -> Point:
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    if p1 == p2:
        lam = (3 * x1 * x1 + A) * pow(2 * y1, -1, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return x3, (lam * (x1 - x3) - y1) % P


def ref_mul(k: int, pt: Point = (GX, GY)) -> Point:
    acc: Point = None
    for bit in bin(k)[2:]:
        acc = _add(acc, acc)
        if bit == "1":
            acc = _add(acc, pt)
    return acc


def ref_point_bytes(pt: Point) -> bytes:
    assert pt is not None
    return b"\x04" + pt[0].to_bytes(32, "big") + pt[1].to_bytes(32, "big")


def ref_z(public: bytes, uid: bytes) -> bytes:
    entl = (8 * len(uid)).to_bytes(2, "big")
    parts = [entl, uid] + [v.to_bytes(32, "big") for v in (A, B, GX, GY)] + [public[1:33], public[33:65]]
    return hashlib.new("sm3", b"".join(parts)).digest()


def ref_verify(public: bytes, message: bytes, r: int, s: int, uid: bytes) -> bool:
    """GB/T 32918.2 verification, written from the standard's formulas."""
    if not (1 <= r < N and 1 <= s < N):
        return False
    e = int.from_bytes(hashlib.new("sm3", ref_z(public, uid) + message).digest(), "big")
    t = (r + s) % N
    if t == 0:
        return False
    q = (int.from_bytes(public[1:33], "big"), int.from_bytes(public[33:65], "big"))
    pt = _add(ref_mul(s), ref_mul(t, q))
    return pt is not None and (e + pt[0]) % N == r


def der_rs(sig: bytes) -> tuple[int, int]:
    """Minimal independent DER reader for SEQUENCE { INTEGER r, INTEGER s }."""
    assert sig[0] == 0x30 and sig[1] == len(sig) - 2
    out = []
    i = 2
    for _ in range(2):
        assert sig[i] == 0x02
        ln = sig[i + 1]
        out.append(int.from_bytes(sig[i + 2 : i + 2 + ln], "big"))
        i += 2 + ln
    assert i == len(sig)
    return out[0], out[1]


VEC = load_vectors("sm2.json")
SIGN = next(v for v in VEC["sign"] if v["curve"] == "sm2p256v1")
ENC = next(v for v in VEC["encrypt"] if v["curve"] == "sm2p256v1")
FORMATS = Path(__file__).parent / "vectors" / "sm2_formats"


@pytest.fixture(scope="module")
def key() -> sm2.PrivateKey:
    return sm2.PrivateKey.generate()


# ---- the standard's examples (recommended curve) --------------------------------------


def test_public_key_derivation_matches_reference() -> None:
    for vec in (SIGN, ENC):
        d = int(vec["private_key"], 16)
        k = sm2.PrivateKey.from_bytes(unhex(vec["private_key"]))
        assert k.public_key().to_bytes() == ref_point_bytes(ref_mul(d))
        assert k.to_bytes() == unhex(vec["private_key"])


def test_standard_signature_verifies() -> None:
    k = sm2.PrivateKey.from_bytes(unhex(SIGN["private_key"]))
    raw = unhex(SIGN["r"]) + unhex(SIGN["s"])
    uid, msg = unhex(SIGN["user_id"]), unhex(SIGN["message"])
    pub = k.public_key()
    pub.verify(raw, msg, uid=uid, encoding="raw")
    assert ref_verify(pub.to_bytes(), msg, int(SIGN["r"], 16), int(SIGN["s"], 16), uid)
    # The same signature in DER; and e = SM3(Z || M) through verify_digest.
    from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

    pub.verify(encode_dss_signature(int(SIGN["r"], 16), int(SIGN["s"], 16)), msg, uid=uid)
    z = pub.z(uid)
    assert z == ref_z(pub.to_bytes(), uid)
    e = hashlib.new("sm3", z + msg).digest()
    pub.verify_digest(raw, e, encoding="raw")
    with pytest.raises(InvalidSignature):
        pub.verify(raw, msg + b"x", uid=uid, encoding="raw")
    with pytest.raises(InvalidSignature):
        pub.verify(raw, msg, uid=b"", encoding="raw")


def test_standard_ciphertext_decrypts_in_every_layout() -> None:
    k = sm2.PrivateKey.from_bytes(unhex(ENC["private_key"]))
    msg = unhex(ENC["message"])
    assert k.decrypt(unhex(ENC["ciphertext_c1c3c2"])) == msg
    assert k.decrypt(unhex(ENC["c1"]) + unhex(ENC["c2"]) + unhex(ENC["c3"]), mode="c1c2c3") == msg
    assert k.decrypt(unhex(ENC["ciphertext_der_gmt0009"]), mode="der") == msg
    # C1 is k*G for the standard's k: check the vector against the reference too.
    assert unhex(ENC["c1"]) == ref_point_bytes(ref_mul(int(ENC["k"], 16)))


def test_our_signatures_verify_under_the_reference(key: sm2.PrivateKey) -> None:
    pub = key.public_key().to_bytes()
    for uid in (sm2.DEFAULT_UID, b"", b"ALICE123@YAHOO.COM"):
        msg = b"reference check " + uid
        r, s = der_rs(key.sign(msg, uid=uid))
        assert ref_verify(pub, msg, r, s, uid)
        raw = key.sign(msg, uid=uid, encoding="raw")
        assert len(raw) == 64
        assert ref_verify(pub, msg, int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"), uid)


def test_sign_digest_matches_sign(key: sm2.PrivateKey) -> None:
    msg = b"digest path"
    e = hashlib.new("sm3", key.public_key().z() + msg).digest()
    sig = key.sign_digest(e)
    key.public_key().verify(sig, msg)
    r, s = der_rs(sig)
    assert ref_verify(key.public_key().to_bytes(), msg, r, s, sm2.DEFAULT_UID)
    # Streaming e with the SM3 object gives the same value.
    h = sm3.SM3(key.public_key().z())
    h.update(msg)
    assert h.digest() == e


# ---- round-trips ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", sm2.MODES)
def test_encrypt_decrypt_roundtrip(key: sm2.PrivateKey, mode: Any) -> None:
    with pytest.raises(InvalidInputError):
        key.public_key().encrypt(b"", mode=mode)  # the standard needs klen > 0
    for msg in (b"x", b"hello world" * 20, bytes(range(256)) * 5):
        ct = key.public_key().encrypt(msg, mode=mode)
        assert key.decrypt(ct, mode=mode) == msg


def test_ciphertext_layouts_are_the_standard_ones(key: sm2.PrivateKey) -> None:
    msg = b"layout"
    ct = key.public_key().encrypt(msg)
    assert len(ct) == 65 + 32 + len(msg) and ct[0] == 4
    # Re-arranging C1C3C2 into C1C2C3 by hand must decrypt in that mode.
    c1, c3, c2 = ct[:65], ct[65:97], ct[97:]
    assert key.decrypt(c1 + c2 + c3, mode="c1c2c3") == msg
    # And C3 = SM3(x2 || M || y2) cannot be checked without x2, y2; C1 is on the curve:
    x, y = int.from_bytes(c1[1:33], "big"), int.from_bytes(c1[33:], "big")
    assert (y * y - (x * x * x + A * x + B)) % P == 0


def test_public_key_encodings(key: sm2.PrivateKey) -> None:
    pub = key.public_key()
    full = pub.to_bytes()
    comp = pub.to_bytes(compressed=True)
    assert len(full) == 65 and len(comp) == 33
    assert comp[0] == 2 + (full[64] & 1) and comp[1:] == full[1:33]
    for enc in (full, comp, full[1:]):
        assert sm2.PublicKey.from_bytes(enc) == pub
    assert sm2.PublicKey.from_der(pub.to_der()) == pub
    assert sm2.PublicKey.from_pem(pub.to_pem()) == pub
    assert sm2.PublicKey.from_pem(pub.to_pem().decode()) == pub
    assert pub.to_pem().startswith(b"-----BEGIN PUBLIC KEY-----\n")


def test_private_key_formats_roundtrip(key: sm2.PrivateKey) -> None:
    d = key.to_bytes()
    assert sm2.PrivateKey.from_pem(key.to_pem()).to_bytes() == d
    assert sm2.PrivateKey.from_der(key.to_der()).to_bytes() == d
    sec1 = key.to_pem(format="sec1")
    assert sec1.startswith(b"-----BEGIN SM2 PRIVATE KEY-----")
    assert sm2.PrivateKey.from_pem(sec1).to_bytes() == d
    ec = key.to_pem(format="sec1", sec1_label="EC PRIVATE KEY")
    assert ec.startswith(b"-----BEGIN EC PRIVATE KEY-----")
    assert sm2.PrivateKey.from_pem(ec).to_bytes() == d
    assert sm2.PrivateKey.from_der(key.to_der(format="sec1")).to_bytes() == d


def test_encrypted_private_key_roundtrip_and_wrong_password(key: sm2.PrivateKey) -> None:
    pem = key.to_pem(password=b"s3cret")
    assert pem.startswith(b"-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert sm2.PrivateKey.from_pem(pem, password=b"s3cret").to_bytes() == key.to_bytes()
    assert sm2.PrivateKey.from_pem(pem, password="s3cret").to_bytes() == key.to_bytes()
    with pytest.raises(InvalidKey, match="wrong password or corrupted file"):
        sm2.PrivateKey.from_pem(pem, password=b"S3cret")
    with pytest.raises(InvalidKey, match="password is required"):
        sm2.PrivateKey.from_pem(pem)
    der = key.to_der(password="pw")
    assert sm2.PrivateKey.from_der(der, password="pw").to_bytes() == key.to_bytes()
    # Two encryptions of the same key differ (fresh salt and IV).
    assert key.to_der(password="pw") != der
    with pytest.raises(InvalidInputError):
        key.to_pem(password=b"")
    aes = key.to_pem(password="pw", encryption="aes-256-cbc")
    assert sm2.PrivateKey.from_pem(aes, password="pw").to_bytes() == key.to_bytes()
    with pytest.raises(InvalidInputError, match="encryption must be one of"):
        key.to_pem(password="pw", encryption="des")  # type: ignore[arg-type]


def test_encrypted_key_is_pbkdf2_sm3_sm4_cbc(key: sm2.PrivateKey) -> None:
    """Decrypt our output independently: hashlib PBKDF2-HMAC-SM3 + pyca SM4-CBC."""
    from cryptography.hazmat.primitives import padding, serialization
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    der = key.to_der(password=b"pw")

    def tlv(buf: bytes, i: int) -> tuple[int, int, int]:
        tag, ln = buf[i], buf[i + 1]
        i += 2
        if ln & 0x80:
            n = ln & 0x7F
            ln = int.from_bytes(buf[i : i + n], "big")
            i += n
        return tag, i, ln

    oids = {
        "pbes2": bytes.fromhex("2a864886f70d01050d"),
        "pbkdf2": bytes.fromhex("2a864886f70d01050c"),
        "hmac-sm3": bytes.fromhex("2a811ccf5501831102"),
        "sm4-cbc": bytes.fromhex("2a811ccf55016802"),
    }
    for name, o in oids.items():
        assert o in der, name
    salt_at = der.index(oids["pbkdf2"]) + len(oids["pbkdf2"])
    _, i, _ = tlv(der, salt_at)  # PBKDF2-params SEQUENCE
    _, j, ln = tlv(der, i)  # salt
    salt = der[j : j + ln]
    _, k, ln2 = tlv(der, j + ln)  # iterations
    iterations = int.from_bytes(der[k : k + ln2], "big")
    iv_at = der.index(oids["sm4-cbc"]) + len(oids["sm4-cbc"])
    _, m, ln3 = tlv(der, iv_at)
    iv = der[m : m + ln3]
    _, n, ln4 = tlv(der, m + ln3)  # encryptedData
    data = der[n : n + ln4]
    assert n + ln4 == len(der) and iterations == 65536 and len(salt) == 16 and len(iv) == 16
    kek = hashlib.pbkdf2_hmac("sm3", b"pw", salt, iterations, 16)
    dec = Cipher(algorithms.SM4(kek), modes.CBC(iv)).decryptor()
    unpad = padding.PKCS7(128).unpadder()
    pkcs8 = unpad.update(dec.update(data) + dec.finalize()) + unpad.finalize()
    # The plaintext is an ordinary PKCS#8 SM2 key: OpenSSL (via pyca) can read it... as EC on curve SM2
    assert pkcs8 == key.to_der()
    try:
        loaded = serialization.load_der_private_key(pkcs8, None)
    except Exception:  # pragma: no cover - pyca builds without SM2 curve support
        return
    assert loaded.private_numbers().private_value == int.from_bytes(key.to_bytes(), "big")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "name",
    ["pkcs8.pem", "pkcs8.der", "sec1.pem", "sec1.der", "pkcs8_aes256.pem", "pkcs8_aes256.der", "pkcs8_aes128.pem",
     "pkcs8_aes256_sha1.pem", "sec1_aes256.pem", "sec1_aes128.pem", "pkcs8_sm3_sm4.pem"],
)
def test_openssl_written_key_files_load(name: str) -> None:
    import json

    exp = json.loads((FORMATS / "expected.json").read_text())
    data = (FORMATS / name).read_bytes()
    pw = exp["password"] if ("aes" in name or "sm4" in name) else None
    loader = sm2.PrivateKey.from_pem if name.endswith(".pem") else sm2.PrivateKey.from_der
    k = loader(data, pw)
    assert k.to_bytes() == unhex(exp["private_key"])
    assert k.public_key().to_bytes() == unhex(exp["public_key"])
    if pw is not None:
        with pytest.raises(InvalidKey, match="wrong password"):
            loader(data, "not the password")


def test_key_file_with_mismatched_public_key_is_rejected(key: sm2.PrivateKey) -> None:
    other = sm2.PrivateKey.generate()
    der = bytearray(key.to_der())
    pos = bytes(der).index(key.public_key().to_bytes())
    der[pos : pos + 65] = other.public_key().to_bytes()
    with pytest.raises(InvalidKey, match="does not match"):
        sm2.PrivateKey.from_der(bytes(der))


# ---- bad input -------------------------------------------------------------------------------


def _pt(x: int, y: int) -> bytes:
    return b"\x04" + x.to_bytes(32, "big") + y.to_bytes(32, "big")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\x04",
        b"\x00",
        bytes(65),  # zero point / infinity encodings
        b"\x04" + bytes(64),
        _pt(GX, (GY + 1) % P),  # off the curve
        _pt(GX + P, GY) if GX + P < 2**256 else _pt(P, GY),  # x >= p
        _pt(GX, GY + P) if GY + P < 2**256 else _pt(GX, P),  # y >= p
        b"\x05" + GX.to_bytes(32, "big"),  # bad compressed prefix
        b"\x02" + P.to_bytes(32, "big"),  # compressed x = p
        _pt(GX, GY)[:-1],  # 64 bytes that are not a point
        _pt(GX, GY) + b"\x00",  # 66 bytes
        b"\x04" + GX.to_bytes(32, "big"),  # 33 bytes with prefix 04
    ],
)
def test_bad_public_keys_raise_invalid_key(data: bytes) -> None:
    with pytest.raises(InvalidKey):
        sm2.PublicKey.from_bytes(data)


def test_compressed_x_without_a_point_is_rejected() -> None:
    # Find an x with no y on the curve (x^3 + ax + b a non-residue).
    x = 1
    while pow((x**3 + A * x + B) % P, (P - 1) // 2, P) == 1:
        x += 1
    with pytest.raises(InvalidKey):
        sm2.PublicKey.from_bytes(b"\x02" + x.to_bytes(32, "big"))


def test_public_key_file_given_as_private_key_says_so(key: sm2.PrivateKey) -> None:
    pub = key.public_key()
    with pytest.raises(InvalidKey, match=r"this is a public key \(SubjectPublicKeyInfo\), not a private key"):
        sm2.PrivateKey.from_der(pub.to_der())
    with pytest.raises(InvalidKey, match="public key"):
        sm2.PrivateKey.from_pem(pub.to_pem())


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"not a key file",
        b"-----BEGIN PRIVATE KEY-----\nMIGH\n",  # no END line
        b"-----BEGIN PRIVATE KEY-----\n!!!!\n-----END PRIVATE KEY-----\n",  # bad base64
        b"\xff\xfe-----BEGIN PRIVATE KEY-----",  # not UTF-8
    ],
)
def test_unreadable_key_files_raise_invalid_key(data: bytes) -> None:
    # One `except InvalidKey` covers a garbage file as well as a bad key in a good file.
    with pytest.raises(InvalidKey):
        sm2.PrivateKey.from_pem(data)
    with pytest.raises(InvalidKey):
        sm2.PublicKey.from_pem(data)


@pytest.mark.parametrize("d", [0, N - 1, N, N + 1, 2**256 - 1])
def test_out_of_range_private_keys_raise_invalid_key(d: int) -> None:
    with pytest.raises(InvalidKey):
        sm2.PrivateKey.from_bytes(d.to_bytes(32, "big"))


@pytest.mark.parametrize("length", [0, 31, 33, 64])
def test_wrong_length_private_keys_raise_invalid_key(length: int) -> None:
    with pytest.raises(InvalidKey):
        sm2.PrivateKey.from_bytes(b"\x01" * length)


def test_largest_private_key_is_accepted() -> None:
    assert sm2.PrivateKey.from_bytes((N - 2).to_bytes(32, "big")).public_key().to_bytes() == ref_point_bytes(ref_mul(N - 2))


def _der_sig(r: bytes, s: bytes) -> bytes:
    body = bytes([2, len(r)]) + r + bytes([2, len(s)]) + s
    return bytes([0x30, len(body)]) + body


def test_bad_signatures_raise_invalid_signature(key: sm2.PrivateKey) -> None:
    msg = b"m"
    good = key.sign(msg)
    r, s = der_rs(good)
    n_bytes = b"\x00" + N.to_bytes(32, "big")
    one = b"\x01"
    bad_der = [
        b"",
        good[:-1],
        good + b"\x00",
        _der_sig(b"\x00", one),
        _der_sig(one, b"\x00"),
        _der_sig(n_bytes, one),
        _der_sig(one, n_bytes),
        _der_sig(b"\x00\x00" + r.to_bytes(32, "big"), s.to_bytes(32, "big")),  # non-minimal r
        _der_sig(b"\x80", one),  # negative
        b"\x31" + good[1:],
        bytes(64),
    ]
    for sig in bad_der:
        with pytest.raises(InvalidSignature):
            key.public_key().verify(sig, msg)
    raw = r.to_bytes(32, "big") + s.to_bytes(32, "big")
    key.public_key().verify(raw, msg, encoding="raw")
    bad_raw = [
        raw[:-1],
        raw + b"\x00",
        bytes(32) + raw[32:],
        raw[:32] + bytes(32),
        N.to_bytes(32, "big") + raw[32:],
        raw[:32] + N.to_bytes(32, "big"),
        b"\xff" * 64,
        good,
    ]
    for sig in bad_raw:
        with pytest.raises(InvalidSignature):
            key.public_key().verify(sig, msg, encoding="raw")
    with pytest.raises(InvalidSignature):
        key.public_key().verify_digest(raw, bytes(32), encoding="raw")


def test_tampered_ciphertexts_raise_decryption_error(key: sm2.PrivateKey) -> None:
    msg = b"attack at dawn"
    for mode in sm2.MODES:
        ct = key.public_key().encrypt(msg, mode=mode)
        if mode == "der":
            # SM2Cipher ends with OCTET STRING C3 (32 bytes) then OCTET STRING C2
            # (2-byte headers here): flips in their contents parse fine and must
            # fail as decryptions; flips elsewhere may break the DER itself.
            c2_start = len(ct) - len(msg)
            strict = set(range(c2_start - 2 - 32, c2_start - 2)) | set(range(c2_start, len(ct)))
        else:
            # Only the 04 prefix is a format error; every other byte (C1's
            # coordinates, C3, C2) must give the one opaque error.
            strict = set(range(1, len(ct)))
        for i in range(len(ct)):
            bad = bytearray(ct)
            bad[i] ^= 0x01
            if i in strict:
                with pytest.raises(DecryptionError):
                    key.decrypt(bytes(bad), mode=mode)
            elif mode == "der":
                with pytest.raises((DecryptionError, InvalidInputError)):
                    key.decrypt(bytes(bad), mode=mode)
            else:
                with pytest.raises(InvalidInputError, match="04"):
                    key.decrypt(bytes(bad), mode=mode)
        with pytest.raises((DecryptionError, InvalidInputError)):
            key.decrypt(ct[:-1] if mode != "c1c3c2" else ct[:96], mode=mode)
        if mode == "der":
            with pytest.raises((DecryptionError, InvalidInputError)):
                key.decrypt(ct + b"\x00", mode=mode)


def test_ciphertext_for_another_key_fails(key: sm2.PrivateKey) -> None:
    other = sm2.PrivateKey.generate()
    with pytest.raises(DecryptionError):
        other.decrypt(key.public_key().encrypt(b"not yours"))


def test_ciphertext_with_c1_off_curve_or_infinity_fails(key: sm2.PrivateKey) -> None:
    ct = key.public_key().encrypt(b"abc")
    for c1 in (_pt(GX, (GY + 1) % P), b"\x04" + bytes(64)):
        with pytest.raises((DecryptionError, InvalidInputError)):
            key.decrypt(c1 + ct[65:])


def test_bad_mode_and_encoding_names(key: sm2.PrivateKey) -> None:
    with pytest.raises(InvalidInputError, match=r"mode must be one of 'c1c3c2', 'c1c2c3', 'der', got 'x'"):
        key.public_key().encrypt(b"a", mode="x")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="mode must be one of"):
        key.decrypt(b"a", mode="C1C3C2")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="encoding must be one of 'der', 'raw', got 'asn1'"):
        key.sign(b"a", encoding="asn1")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        key.public_key().verify(b"", b"", encoding="hex")  # type: ignore[arg-type]


def test_type_errors_for_str_arguments(key: sm2.PrivateKey) -> None:
    with pytest.raises(TypeError):
        key.sign("text")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm2.PublicKey.from_bytes("04")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        key.sign(b"x", uid="id")  # type: ignore[arg-type]


def test_uid_length_limit(key: sm2.PrivateKey) -> None:
    key.public_key().z(b"a" * 8191)
    with pytest.raises(ShangmiError):
        key.public_key().z(b"a" * 8192)


def test_key_formats_errors() -> None:
    with pytest.raises(InvalidKey, match="not an SM2 key"):
        sm2.PrivateKey.from_pem((FORMATS / "p256.pem").read_bytes())
    with pytest.raises(InvalidKey, match="not an SM2 key"):
        sm2.PublicKey.from_pem((FORMATS / "p256_public.pem").read_bytes())
    with pytest.raises(ValueError):
        sm2.PrivateKey.from_pem(b"garbage")
    with pytest.raises(InvalidKey):
        sm2.PublicKey.from_der((FORMATS / "public.der").read_bytes() + b"\x00")
    with pytest.raises(InvalidInputError, match="not encrypted"):
        sm2.PrivateKey.from_pem((FORMATS / "pkcs8.pem").read_bytes(), password=b"x")


# ---- objects: pickling, copying, repr -----------------------------------------------------------


def test_public_keys_pickle(key: sm2.PrivateKey) -> None:
    pub = key.public_key()
    assert pickle.loads(pickle.dumps(pub)) == pub
    prepared = pub.prepare()
    back = pickle.loads(pickle.dumps(prepared))
    assert back == pub and not back.is_prepared


def test_private_keys_refuse_to_pickle(key: sm2.PrivateKey) -> None:
    with pytest.raises(TypeError, match=r"to_pem\(password=...\)"):
        pickle.dumps(key)
    assert key.to_bytes().hex() not in repr(key)
    assert copy.copy(key) is key


def test_signature_pool_refuses_pickle_and_copy() -> None:
    pool = sm2.SignaturePool(2)
    for op in (pickle.dumps, copy.copy, copy.deepcopy):
        with pytest.raises(TypeError):
            op(pool)
    with pytest.raises(TypeError):
        pickle.dumps(pool._pool)
    with pytest.raises(TypeError):
        copy.copy(pool._pool)


# ---- prepared keys, pools, batches, threads -----------------------------------------------------------


def test_prepared_key_is_explicit_and_equivalent(key: sm2.PrivateKey) -> None:
    pub = key.public_key()
    assert not pub.is_prepared and pub.prepared_memory == 0
    prepared = pub.prepare()
    assert prepared.is_prepared and prepared.prepared_memory > 0
    assert not pub.is_prepared  # the original is unchanged
    assert prepared.prepare() is prepared
    assert prepared == pub
    msg = b"prepared"
    prepared.verify(key.sign(msg), msg)
    with pytest.raises(InvalidSignature):
        prepared.verify(key.sign(msg), msg + b"!")
    assert key.decrypt(prepared.encrypt(msg)) == msg


def test_signature_pool_consumes_one_per_signature(key: sm2.PrivateKey) -> None:
    pool = key.signature_pool(3)
    assert pool.remaining == 3 and len(pool) == 3
    sigs = [key.sign(b"m%d" % i, pool=pool) for i in range(5)]  # the last two fall back to fresh k
    assert pool.remaining == 0
    assert len({der_rs(s)[0] for s in sigs}) == 5  # no r repeats: no nonce reused
    for i, s in enumerate(sigs):
        key.public_key().verify(s, b"m%d" % i)
    pool.refill(2)
    assert pool.remaining == 2
    with pytest.raises(InvalidInputError):
        sm2.SignaturePool(-1)
    with pytest.raises(ShangmiError):
        sm2.SignaturePool(10**9)


def test_signature_pool_shared_by_threads_hands_out_each_nonce_once(key: sm2.PrivateKey) -> None:
    threads_n, per_thread = 8, 40
    pool = key.signature_pool(threads_n * per_thread - 20)  # the last signs fall back to a fresh k
    results: list[list[bytes]] = [[] for _ in range(threads_n)]
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            results[t] = [key.sign(b"%d/%d" % (t, i), pool=pool, encoding="raw") for i in range(per_thread)]
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(threads_n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors
    assert pool.remaining == 0
    sigs = [s for r in results for s in r]
    # A nonce handed out twice would repeat r across different messages.
    assert len({s[:32] for s in sigs}) == threads_n * per_thread
    for t, r in enumerate(results):
        for i, s in enumerate(r):
            key.public_key().verify(s, b"%d/%d" % (t, i), encoding="raw")


def test_sign_many_and_verify_many(key: sm2.PrivateKey) -> None:
    msgs = [b"message %d" % i for i in range(40)]
    sigs = sm2.sign_many(key, msgs)
    assert len(sigs) == 40
    pub = key.public_key()
    items = [(pub, m, s) for m, s in zip(msgs, sigs)]
    assert sm2.verify_many(items) == [True] * 40
    items[3] = (pub, b"other", sigs[3])
    items[7] = (pub, msgs[7], b"\x30\x00")
    items[9] = (sm2.PrivateKey.generate().public_key(), msgs[9], sigs[9])
    expected = [True] * 40
    expected[3] = expected[7] = expected[9] = False
    assert sm2.verify_many(items) == expected
    raw = sm2.sign_many(key, msgs[:3], uid=b"", encoding="raw")
    assert all(len(s) == 64 for s in raw)
    assert sm2.verify_many([(pub, m, s) for m, s in zip(msgs, raw)], uid=b"", encoding="raw") == [True] * 3
    assert sm2.verify_many([]) == []


def test_verify_many_releases_the_gil(key: sm2.PrivateKey) -> None:
    msgs = [b"%d" % i for i in range(300)]
    sigs = sm2.sign_many(key, msgs)
    pub = key.public_key()
    items = [(pub, m, s) for m, s in zip(msgs, sigs)]
    assert_gil_released(lambda: sm2.verify_many(items))


def test_operations_work_from_many_threads(key: sm2.PrivateKey) -> None:
    pub = key.public_key().prepare()
    errors: list[BaseException] = []

    def work(i: int) -> None:
        try:
            m = b"t%d" % i
            pub.verify(key.sign(m), m)
            assert key.decrypt(pub.encrypt(m)) == m
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors


# ---- key exchange ---------------------------------------------------------------------------------------


def test_key_exchange_agrees_and_confirms() -> None:
    a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    ida, idb = b"ALICE123@YAHOO.COM", b"BILL456@YAHOO.COM"
    xa = sm2.KeyExchange("initiator", a, b.public_key(), uid=ida, peer_uid=idb)
    xb = sm2.KeyExchange("responder", b, a.public_key(), uid=idb, peer_uid=ida)
    rb = xb.compute(xa.ephemeral_public_key(), 16)
    ra = xa.compute(xb.ephemeral_public_key(), 16, confirmation=rb.confirmation)
    rb.check_confirmation(ra.confirmation)
    assert ra.key == rb.key and len(ra.key) == 16
    assert ra.confirmation == rb.expected_confirmation and rb.confirmation == ra.expected_confirmation
    with pytest.raises(InvalidTag):
        rb.check_confirmation(rb.confirmation)
    # A responder with the wrong idea of A's ID derives a different key.
    xa2 = sm2.KeyExchange("initiator", a, b.public_key(), uid=ida, peer_uid=idb)
    xb2 = sm2.KeyExchange("responder", b, a.public_key(), uid=idb, peer_uid=b"mallory")
    rb2 = xb2.compute(xa2.ephemeral_public_key(), 32)
    with pytest.raises(InvalidTag):
        xa2.compute(xb2.ephemeral_public_key(), 32, confirmation=rb2.confirmation)


def test_key_exchange_rejects_bad_input() -> None:
    a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    with pytest.raises(InvalidInputError):
        sm2.KeyExchange("server", a, b.public_key())  # type: ignore[arg-type]
    x = sm2.KeyExchange("initiator", a, b.public_key())
    with pytest.raises((InvalidKey, InvalidInputError), match="not on the SM2 curve"):
        x.compute(_pt(GX, (GY + 1) % P), 16)
    with pytest.raises(InvalidInputError):
        x.compute(_pt(GX, GY), 0)
    with pytest.raises(TypeError):
        pickle.dumps(x)


# ---- hypothesis ------------------------------------------------------------------------------------------


@settings(max_examples=40, deadline=None)
@given(msg=st.binary(max_size=300), uid=st.binary(max_size=40))
def test_hypothesis_sign_verify_roundtrip(key: sm2.PrivateKey, msg: bytes, uid: bytes) -> None:
    sig = key.sign(msg, uid=uid)
    key.public_key().verify(sig, msg, uid=uid)


@settings(max_examples=40, deadline=None)
@given(msg=st.binary(min_size=1, max_size=100), data=st.data())
def test_hypothesis_signature_bit_flips_are_rejected(key: sm2.PrivateKey, msg: bytes, data: st.DataObject) -> None:
    raw = key.sign(msg, encoding="raw")
    bit = data.draw(st.integers(0, 64 * 8 - 1))
    bad = bytearray(raw)
    bad[bit // 8] ^= 1 << (bit % 8)
    with pytest.raises(InvalidSignature):
        key.public_key().verify(bytes(bad), msg, encoding="raw")
    mbit = data.draw(st.integers(0, len(msg) * 8 - 1))
    bad_msg = bytearray(msg)
    bad_msg[mbit // 8] ^= 1 << (mbit % 8)
    with pytest.raises(InvalidSignature):
        key.public_key().verify(raw, bytes(bad_msg), encoding="raw")


@settings(max_examples=40, deadline=None)
@given(msg=st.binary(min_size=1, max_size=300), mode=st.sampled_from(sm2.MODES))
def test_hypothesis_encrypt_decrypt_roundtrip(key: sm2.PrivateKey, msg: bytes, mode: Any) -> None:
    assert key.decrypt(key.public_key().encrypt(msg, mode=mode), mode=mode) == msg


@settings(max_examples=40, deadline=None)
@given(msg=st.binary(min_size=1, max_size=64), data=st.data())
def test_hypothesis_ciphertext_bit_flips_are_rejected(key: sm2.PrivateKey, msg: bytes, data: st.DataObject) -> None:
    ct = key.public_key().encrypt(msg)
    bit = data.draw(st.integers(0, len(ct) * 8 - 1))
    bad = bytearray(ct)
    bad[bit // 8] ^= 1 << (bit % 8)
    # Byte 0 is the 04 prefix (a format error); any other flip is a failed decryption.
    with pytest.raises(InvalidInputError if bit < 8 else DecryptionError):
        key.decrypt(bytes(bad))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(1, N - 2))
def test_hypothesis_public_key_matches_reference(seed: int) -> None:
    k = sm2.PrivateKey.from_bytes(seed.to_bytes(32, "big"))
    assert k.public_key().to_bytes() == ref_point_bytes(ref_mul(seed))
    assert sm2.PublicKey.from_bytes(k.public_key().to_bytes(compressed=True)) == k.public_key()


@settings(max_examples=80, deadline=None)
@given(data=st.binary(max_size=200))
def test_hypothesis_random_bytes_give_clear_errors(key: sm2.PrivateKey, data: bytes) -> None:
    """Garbage never panics (a PanicException is not a ValueError) and never succeeds wrongly."""
    for fn in (
        sm2.PublicKey.from_bytes,
        sm2.PublicKey.from_der,
        sm2.PublicKey.from_pem,
        sm2.PrivateKey.from_der,
        sm2.PrivateKey.from_pem,
    ):
        try:
            fn(data)
        except (ShangmiError, ValueError):
            pass
    for mode in sm2.MODES:
        with pytest.raises((DecryptionError, InvalidInputError)):
            key.decrypt(data, mode=mode)  # type: ignore[arg-type]
    for enc in sm2.ENCODINGS:
        with pytest.raises(InvalidSignature):
            key.public_key().verify(data, b"m", encoding=enc)  # type: ignore[arg-type]


# ---- argument errors are ValueErrors, checked before anything is spent ----------------------------------


def test_huge_counts_and_lengths_raise_invalid_input(key: sm2.PrivateKey) -> None:
    with pytest.raises(InvalidInputError, match=r"expected an int in \[0, 2\^64 - 1\], got 1180591620717411303424"):
        sm2.SignaturePool(2**70)
    with pytest.raises(InvalidInputError, match="signature pool size must be at most 1000000"):
        sm2.SignaturePool(2**40)
    pool = sm2.SignaturePool(0)
    with pytest.raises(InvalidInputError, match="expected an int in"):
        pool.refill(2**64)
    peer = sm2.PrivateKey.generate()
    kx = sm2.KeyExchange("initiator", key, peer.public_key(), uid=b"a", peer_uid=b"b")
    other = sm2.KeyExchange("responder", peer, key.public_key(), uid=b"b", peer_uid=b"a")
    with pytest.raises(InvalidInputError, match="expected an int in"):
        kx.compute(other.ephemeral_public_key(), 2**70)
    with pytest.raises(InvalidInputError, match="key length must be 1..=1048576 bytes, got 0"):
        kx.compute(other.ephemeral_public_key(), 0)
    # A bad confirmation argument is refused before the exchange is spent.
    with pytest.raises(TypeError):
        kx.compute(other.ephemeral_public_key(), 16, confirmation="abc")  # type: ignore[arg-type]
    rb = other.compute(kx.ephemeral_public_key(), 16)
    ra = kx.compute(other.ephemeral_public_key(), 16, confirmation=rb.confirmation)
    assert ra.key == rb.key


def test_verify_many_rejects_a_uid_no_signature_can_use(key: sm2.PrivateKey) -> None:
    msg = b"m"
    items = [(key.public_key(), msg, key.sign(msg))]
    with pytest.raises(InvalidInputError, match="user ID too long: 8192 bytes, at most 8191"):
        sm2.verify_many(items, uid=bytes(8192))
    assert sm2.verify_many(items) == [True]
