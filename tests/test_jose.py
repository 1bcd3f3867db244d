"""shangmi.jose: compact JWS/JWT with SM2 and HMAC-SM3.

Expected values come from elsewhere: tokens signed by the OpenSSL 3 command
line (tests/vectors/jose/make.py, recorded) and, when present, OpenSSL run
now on our tokens; the gmssl Python package's SM2 verifier when installed.
"""

from __future__ import annotations

import base64
import json
import pathlib
import shutil
import subprocess

import pytest

from shangmi import InvalidSignature, ShangmiError, jose, sm2

VEC = pathlib.Path(__file__).parent / "vectors" / "jose"
DATA = json.loads((VEC / "tokens.json").read_text("utf-8"))
PUB = sm2.PublicKey.from_pem((VEC / "sm2_pub.pem").read_bytes())
HKEY = DATA["hmac_key"].encode()


def b64(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64(s: str) -> bytes:
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


@pytest.mark.parametrize("case", DATA["cases"], ids=lambda c: c["alg"])
def test_openssl_signed_tokens(case: dict) -> None:
    key = PUB if case["scheme"] == "sm2" else HKEY
    kw = {"encoding": case["encoding"]} if case["encoding"] else {}
    if case["uid"]:
        kw["uid"] = case["uid"].encode()
    got = jose.decode(case["token"], key, algorithms={case["alg"]: case["scheme"]}, **kw)
    assert got == case["payload"].encode()
    # The shangmi names need no dict.
    if case["alg"] in jose.ALGORITHMS:
        assert jose.decode(case["token"], key, algorithms=[case["alg"]], **kw) == got
    # Any other alg name, encoding or ID is refused.
    with pytest.raises(InvalidSignature, match="not among the accepted"):
        jose.decode(case["token"], key, algorithms={"Other": case["scheme"]}, **kw)
    if case["scheme"] == "sm2":
        other = "der" if case["encoding"] == "raw" else "raw"
        with pytest.raises(InvalidSignature):
            jose.decode(case["token"], key, algorithms={case["alg"]: "sm2"}, uid=kw.get("uid", sm2.DEFAULT_UID),
                        encoding=other)
        with pytest.raises(InvalidSignature):
            jose.decode(case["token"], key, algorithms={case["alg"]: "sm2"}, encoding=case["encoding"], uid=b"x")


def test_der_hint() -> None:
    case = next(c for c in DATA["cases"] if c["encoding"] == "der")
    with pytest.raises(InvalidSignature, match="looks DER"):
        jose.decode(case["token"], PUB, algorithms={case["alg"]: "sm2"})


def test_round_trips_and_headers() -> None:
    key = sm2.PrivateKey.generate()
    for encoding in ("raw", "der"):
        for uid in (sm2.DEFAULT_UID, b"", b"bank-id"):
            t = jose.encode(b"hello", key, encoding=encoding, uid=uid, headers={"kid": "k1", "typ": "JOSE"})
            assert jose.decode(t, key.public_key(), algorithms=["SM2"], encoding=encoding, uid=uid) == b"hello"
            assert jose.decode_header(t) == {"alg": "SM2", "kid": "k1", "typ": "JOSE"}
    raw = jose.encode("x", key)
    assert len(unb64(raw.split(".")[2])) == 64
    t = jose.encode(b"p", b"secret", alg="HS256-SM3", scheme="hmac-sm3")
    assert jose.decode(t, b"secret", algorithms={"HS256-SM3": "hmac-sm3"}) == b"p"
    assert jose.decode(jose.encode(b"p", b"secret", alg="HSM3"), b"secret", algorithms=["HSM3"]) == b"p"
    with pytest.raises(ShangmiError, match="scheme="):
        jose.encode(b"p", key, alg="GmSM2")
    with pytest.raises(ShangmiError):
        jose.encode(b"p", key, headers={"alg": "HS256"})
    with pytest.raises(ShangmiError):
        jose.encode(b"p", key, alg="none", scheme="sm2")


def test_jwt_claims() -> None:
    key = sm2.PrivateKey.generate()
    t = jose.encode_jwt({"sub": "42", "exp": 2000, "nbf": 1000, "aud": ["a", "b"], "iss": "me"}, key)
    assert jose.decode_header(t)["typ"] == "JWT"
    pub = key.public_key()
    c = jose.decode_jwt(t, pub, algorithms=["SM2"], now=1500, audience="b", issuer="me", require=["sub"])
    assert c["sub"] == "42"
    for kw, msg in [({"now": 2001}, "expired"), ({"now": 999}, "not yet valid"),
                    ({"now": 1500, "audience": "c"}, "audience"), ({"now": 1500, "issuer": "x"}, "issuer"),
                    ({"now": 1500, "require": ["jti"]}, "jti")]:
        with pytest.raises(InvalidSignature, match=msg):
            jose.decode_jwt(t, pub, algorithms=["SM2"], **kw)
    assert jose.decode_jwt(t, pub, algorithms=["SM2"], now=2005, leeway=10)["sub"] == "42"


def test_refusals() -> None:
    key = sm2.PrivateKey.generate()
    pub = key.public_key()
    good = jose.encode(b"payload", key)
    h, p, s = good.split(".")

    def refused(token: object, match: str, **kw: object) -> None:
        with pytest.raises(InvalidSignature, match=match):
            jose.decode(token, kw.pop("key", pub), algorithms=kw.pop("algorithms", ["SM2"]), **kw)  # type: ignore[arg-type]

    refused(h + "." + p, "2 dot-separated parts")
    refused(good + ".x", "4 dot-separated parts")
    refused(h + "==." + p + "." + s, "without padding")
    # snowland-authsdk's demo token writes its header with padding.
    refused("eyJhbGciOiJTTTIifQ==." + p + "." + s, "without padding")
    refused(h + "." + p + "+." + s, "base64url")
    refused(h + ".ZR." + s, "canonical")
    refused(h + "." + p + "\u00e9." + s, "not ASCII")
    refused((h + "." + p + "." + s).encode() + b"\xff", "not ASCII")
    refused(b64(b"[1]") + "." + p + "." + s, "not a JSON object")
    refused(b64(b'{"alg":"SM2","alg":"SM2"}') + "." + p + "." + s, "twice")
    refused(b64(b'{"typ":"JWT"}') + "." + p + "." + s, "no 'alg'")
    refused(b64(b'{"alg":"none"}') + "." + p + ".", "'none'")
    refused(b64(b'{"alg":"SM2","crit":["exp"]}') + "." + p + "." + s, "critical")
    refused(b64(b'\xff\xfe') + "." + p + "." + s, "UTF-8")
    refused(h + "." + b64(b"other") + "." + s, "does not verify")
    refused(good, "does not verify", key=sm2.PrivateKey.generate().public_key())
    refused(h + "." + p + "." + b64(b"\0" * 63), "63 bytes")
    # An SM2 public key's PEM as an HMAC secret (algorithm confusion) is refused.
    forged = jose.encode(b"payload", b"x" * 32, alg="HSM3")
    with pytest.raises(ShangmiError, match="PEM"):
        jose.decode(forged, pub.to_pem(), algorithms={"HSM3": "hmac-sm3", "SM2": "sm2"})
    # Key type must match the scheme.
    with pytest.raises(ShangmiError):
        jose.decode(good, b"secret", algorithms=["SM2"])
    with pytest.raises(ShangmiError):
        jose.decode(forged, pub, algorithms=["HSM3"])
    with pytest.raises(ShangmiError):
        jose.decode(good, pub, algorithms="SM2")  # type: ignore[arg-type]
    with pytest.raises(ShangmiError):
        jose.decode(good, pub, algorithms=["GmSM2"])
    with pytest.raises(ShangmiError):
        jose.decode(good, pub, algorithms={"SM2": "rsa"})
    with pytest.raises(ShangmiError):
        jose.decode(good, pub, algorithms=[])


@pytest.mark.skipif(shutil.which("openssl") is None, reason="openssl not installed")
def test_openssl_verifies_ours(tmp_path: pathlib.Path) -> None:
    key = sm2.PrivateKey.generate()
    (tmp_path / "pub.pem").write_bytes(key.public_key().to_pem())
    t = jose.encode(b'{"a":1}', key, alg="SM3WithSM2", scheme="sm2", encoding="der")
    h, p, s = t.split(".")
    (tmp_path / "in").write_bytes((h + "." + p).encode())
    (tmp_path / "sig").write_bytes(unb64(s))
    r = subprocess.run(["openssl", "pkeyutl", "-verify", "-rawin", "-digest", "sm3", "-pubin", "-inkey",
                        str(tmp_path / "pub.pem"), "-pkeyopt", "distid:1234567812345678", "-in", str(tmp_path / "in"),
                        "-sigfile", str(tmp_path / "sig")], capture_output=True, text=True)
    assert r.returncode == 0 and "Success" in r.stdout, r.stdout + r.stderr
    t = jose.encode(b"m", b"k" * 16, alg="HSM3")
    h, p, s = t.split(".")
    (tmp_path / "in").write_bytes((h + "." + p).encode())
    out = subprocess.run(["openssl", "mac", "-digest", "SM3", "-macopt", "hexkey:" + (b"k" * 16).hex(), "-in",
                          str(tmp_path / "in"), "HMAC"], capture_output=True, text=True, check=True).stdout
    assert bytes.fromhex(out.strip()) == unb64(s)


def test_gmssl_package_verifies_ours() -> None:
    gm = pytest.importorskip("gmssl.sm2")
    key = sm2.PrivateKey.generate()
    t = jose.encode(b"payload", key)
    h, p, s = t.split(".")
    pub_hex = key.public_key().to_bytes()[1:].hex()
    crypt = gm.CryptSM2(private_key="", public_key=pub_hex)
    assert crypt.verify_with_sm3(unb64(s).hex(), (h + "." + p).encode())


def test_pyjwt() -> None:
    jwt = pytest.importorskip("jwt")
    from jwt.api_jws import PyJWS

    jws = PyJWS()
    jws.register_algorithm("SM2", jose.pyjwt_algorithm("sm2"))
    jws.register_algorithm("HSM3", jose.pyjwt_algorithm("hmac-sm3"))
    key = sm2.PrivateKey.generate()
    t = jws.encode(b'{"sub":"1"}', key, algorithm="SM2")
    assert jose.decode(t, key.public_key(), algorithms=["SM2"]) == b'{"sub":"1"}'
    assert jws.decode(jose.encode(b"x", key), key.public_key(), algorithms=["SM2"]) == b"x"
    assert jws.decode(jose.encode(b"x", key), key.public_key().to_pem(), algorithms=["SM2"]) == b"x"
    with pytest.raises(jwt.InvalidSignatureError):
        jws.decode(t, sm2.PrivateKey.generate().public_key(), algorithms=["SM2"])
    t = jws.encode(b"y", b"secret-key", algorithm="HSM3")
    assert jose.decode(t, b"secret-key", algorithms=["HSM3"]) == b"y"
    case = DATA["cases"][0]
    assert jws.decode(case["token"], PUB, algorithms=["SM2"]) == case["payload"].encode()
