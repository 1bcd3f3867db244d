"""Compact JWS and JWT (RFC 7515, RFC 7519) with SM2 and HMAC-SM3.

There is no registered JOSE name for SM2 or HMAC-SM3, and deployed APIs
disagree on three things this module makes explicit instead of guessing:

- the header ``alg``: shangmi's own names are ``"SM2"`` (SM2 with SM3) and
  ``"HSM3"`` (HMAC-SM3); others write ``"GmSM2"``, ``"SM3WithSM2"``,
  ``"SM2SM3"``, ``"HS256-SM3"``, ...: give ``scheme`` when encoding and a
  dict for ``algorithms`` when decoding;
- the signature encoding: JOSE's fixed-size r‖s (64 bytes,
  ``encoding="raw"``, the default, as RFC 7518 does for ECDSA) or DER
  (``encoding="der"``, what Java's ``Signature`` and gmssl write);
- the SM2 user ID: GM/T 0009's ``1234567812345678`` by default, ``uid=b""``
  for OpenSSL 3's empty ID, or whatever the other side uses.

::

    from shangmi import jose, sm2
    key = sm2.PrivateKey.generate()
    token = jose.encode(b'{"sub":"42"}', key)
    payload = jose.decode(token, key.public_key(), algorithms=["SM2"])
    # a Java service signing with alg "SM3WithSM2" and DER signatures:
    jose.decode(token, pub, algorithms={"SM3WithSM2": "sm2"}, encoding="der")

Parsing is strict: exactly three base64url parts without padding (and in
canonical form), a header that is a JSON object without duplicate names,
``alg`` present and allowed by ``algorithms``, ``"none"`` never, no
``crit`` (no extension is understood), and a key of the scheme's type
(an :class:`~shangmi.sm2.PublicKey` for SM2, bytes for HMAC-SM3). Every
refusal of a token is :class:`~shangmi.InvalidSignature` with a message
saying what was wrong; a wrong key type is :class:`~shangmi.ShangmiTypeError`.

:func:`pyjwt_algorithm` gives an object for PyJWT's
``jwt.register_algorithm`` (``pip install shangmi[jose]``).
"""

from __future__ import annotations

import base64
import binascii
import hmac as _hmac
import json
import re
import time
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from shangmi import sm2, sm3
from shangmi._buffer import Buffer
from shangmi.exceptions import InvalidInputError, InvalidKey, InvalidSignature, ShangmiError, ShangmiTypeError

__all__ = ["ALGORITHMS", "encode", "decode", "decode_header", "encode_jwt", "decode_jwt", "pyjwt_algorithm"]

#: shangmi's own ``alg`` names and the scheme each means.
ALGORITHMS: dict[str, str] = {"SM2": "sm2", "HSM3": "hmac-sm3"}
_SCHEMES = ("sm2", "hmac-sm3")
Scheme = Literal["sm2", "hmac-sm3"]
Encoding = Literal["raw", "der"]

_B64URL = re.compile(r"[A-Za-z0-9_-]*")
#: Bound on a token's length (a JWT is a few hundred bytes to a few KiB).
MAX_TOKEN = 1 << 20


def _b64e(b: bytes) -> str:
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode("ascii")


def _b64d(s: str, what: str) -> bytes:
    if not _B64URL.fullmatch(s) or len(s) % 4 == 1:
        raise InvalidSignature(f"malformed token: the {what} is not base64url without padding")
    try:
        raw = base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
    except (binascii.Error, ValueError):
        raise InvalidSignature(f"malformed token: the {what} is not base64url") from None
    if _b64e(raw) != s:
        raise InvalidSignature(f"malformed token: the {what} is not canonical base64url (nonzero trailing bits)")
    return raw


def _str(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ShangmiTypeError(f"{what} must be a str, got {type(value).__name__}")
    return value


def _check_scheme(scheme: object, where: str) -> str:
    _str(scheme, f"{where}: scheme")
    if scheme not in _SCHEMES:
        raise InvalidInputError(f"{where}: unknown scheme {scheme!r} (expected 'sm2' or 'hmac-sm3')")
    return str(scheme)


def _check_encoding(encoding: object) -> str:
    _str(encoding, "encoding")
    if encoding not in ("raw", "der"):
        raise InvalidInputError(f"encoding must be 'raw' (JOSE r||s, 64 bytes) or 'der', got {encoding!r}")
    return str(encoding)


def _hmac_key(key: object) -> bytes:
    if isinstance(key, str):
        key = key.encode("utf-8")
    if not isinstance(key, (bytes, bytearray, memoryview)):
        raise ShangmiTypeError(f"an HMAC-SM3 key must be bytes, got {type(key).__name__}")
    k = bytes(key)
    if not k:
        raise InvalidKey("an HMAC-SM3 key must not be empty")
    if k.lstrip().startswith(b"-----BEGIN") or k.startswith(b"ssh-"):
        # Algorithm confusion: a public key used as an HMAC secret lets anyone forge.
        raise InvalidKey("a PEM or SSH key cannot be an HMAC-SM3 secret (is this the SM2 public key?)")
    return k


def _payload_bytes(payload: object) -> bytes:
    if isinstance(payload, str):
        return payload.encode("utf-8")
    if isinstance(payload, (bytes, bytearray, memoryview)):
        return bytes(payload)
    raise ShangmiTypeError(f"payload must be bytes or str, got {type(payload).__name__} (encode_jwt takes a dict)")


def _json(obj: object) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _sign(signing_input: bytes, key: object, scheme: str, encoding: str, uid: Buffer) -> bytes:
    if scheme == "hmac-sm3":
        return sm3.hmac(_hmac_key(key), signing_input)
    if not isinstance(key, sm2.PrivateKey):
        raise ShangmiTypeError(f"signing with SM2 needs an sm2.PrivateKey, got {type(key).__name__}")
    return key.sign(signing_input, uid=uid, encoding=encoding)  # type: ignore[arg-type]


def _verify(signing_input: bytes, sig: bytes, key: object, scheme: str, encoding: str, uid: Buffer, alg: str) -> None:
    if scheme == "hmac-sm3":
        expected = sm3.hmac(_hmac_key(key), signing_input)
        if not _hmac.compare_digest(expected, sig):
            raise InvalidSignature(f"token signature ({alg}, HMAC-SM3) does not verify with this key")
        return
    if isinstance(key, sm2.PrivateKey):
        key = key.public_key()
    if not isinstance(key, sm2.PublicKey):
        raise ShangmiTypeError(f"verifying SM2 needs an sm2.PublicKey, got {type(key).__name__}")
    if encoding == "raw" and len(sig) != 64:
        hint = " (it looks DER: pass encoding='der')" if sig[:1] == b"\x30" and 8 <= len(sig) <= 72 else ""
        raise InvalidSignature(f"token signature ({alg}) is {len(sig)} bytes, expected 64 (r||s){hint}")
    try:
        key.verify(sig, signing_input, uid=uid, encoding=encoding)  # type: ignore[arg-type]
    except InvalidSignature as e:
        raise InvalidSignature(f"token signature ({alg}, SM2 with user ID {bytes(uid)!r}) does not verify: {e}") \
            from None


def encode(payload: Buffer | str, key: Any, *, alg: str = "SM2", scheme: Scheme | None = None,
           encoding: Encoding = "raw", uid: Buffer = sm2.DEFAULT_UID, headers: Mapping[str, Any] | None = None) -> str:
    """A compact JWS over ``payload``. ``key``: an :class:`~shangmi.sm2.PrivateKey`
    (scheme ``"sm2"``) or bytes (``"hmac-sm3"``). ``alg`` is what the header
    says; a name that is not one of :data:`ALGORITHMS` needs ``scheme``.
    ``headers`` are added after ``alg`` (``typ``, ``kid``, ...)."""
    _str(alg, "alg")
    if headers is not None and not isinstance(headers, Mapping):
        raise ShangmiTypeError(f"headers must be a dict, got {type(headers).__name__}")
    if scheme is None:
        if alg not in ALGORITHMS:
            raise InvalidInputError(
                f"alg {alg!r} is not one of shangmi's names {sorted(ALGORITHMS)}: say what it means with "
                "scheme='sm2' or scheme='hmac-sm3'")
        scheme = ALGORITHMS[alg]  # type: ignore[assignment]
    sch = _check_scheme(scheme, "encode")
    enc = _check_encoding(encoding)
    if not isinstance(alg, str) or not alg or alg.lower() == "none":
        raise InvalidInputError(f"alg must be a non-empty name other than 'none', got {alg!r}")
    header: dict[str, Any] = {"alg": alg}
    for k, v in (headers or {}).items():
        if k == "alg" and v != alg:
            raise InvalidInputError("headers must not set 'alg' (pass alg=...)")
        if k == "crit":
            raise InvalidInputError("headers must not set 'crit': no extension is implemented here")
        header[k] = v
    signing_input = (_b64e(_json(header)) + "." + _b64e(_payload_bytes(payload))).encode("ascii")
    return signing_input.decode("ascii") + "." + _b64e(_sign(signing_input, key, sch, enc, uid))


def _accepted(algorithms: object) -> dict[str, str]:
    if isinstance(algorithms, str):
        raise ShangmiTypeError("algorithms must be a list of names or a dict alg -> scheme, not a string")
    if isinstance(algorithms, Mapping):
        out = {}
        for a, s in algorithms.items():
            if _str(a, "an algorithms key").lower() == "none":
                raise InvalidInputError(f"algorithms: {a!r} cannot be accepted")
            out[a] = _check_scheme(s, f"algorithms[{a!r}]")
    elif isinstance(algorithms, Iterable):
        out = {}
        for a in algorithms:
            if _str(a, "an algorithms entry") not in ALGORITHMS:
                raise InvalidInputError(
                    f"algorithms: {a!r} is not one of shangmi's names {sorted(ALGORITHMS)}; for another "
                    "convention pass a dict, e.g. {'SM3WithSM2': 'sm2'}")
            out[a] = ALGORITHMS[a]
    else:
        raise ShangmiTypeError(f"algorithms must be a list or a dict, got {type(algorithms).__name__}")
    if not out:
        raise InvalidInputError("algorithms is empty: no token could be accepted")
    return out


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for k, v in pairs:
        if k in d:
            raise InvalidSignature(f"malformed token: the header names {k!r} twice")
        d[k] = v
    return d


def _split(token: object) -> tuple[dict[str, Any], bytes, bytes, bytes]:
    if isinstance(token, (bytes, bytearray, memoryview)):
        try:
            token = bytes(token).decode("ascii")
        except UnicodeDecodeError:
            raise InvalidSignature("malformed token: not ASCII") from None
    if not isinstance(token, str):
        raise ShangmiTypeError(f"token must be str or bytes, got {type(token).__name__}")
    if len(token) > MAX_TOKEN:
        raise InvalidSignature(f"token of {len(token)} characters (at most {MAX_TOKEN})")
    if not token.isascii():
        raise InvalidSignature("malformed token: not ASCII (a compact JWS is base64url and dots)")
    parts = token.split(".")
    if len(parts) != 3:
        raise InvalidSignature(f"malformed token: {len(parts)} dot-separated parts, a compact JWS has 3")
    h, p, s = parts
    raw_header = _b64d(h, "header")
    try:
        header = json.loads(raw_header.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except InvalidSignature:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidSignature("malformed token: the header is not UTF-8 JSON") from None
    if not isinstance(header, dict):
        raise InvalidSignature("malformed token: the header is not a JSON object")
    return header, (h + "." + p).encode("ascii"), _b64d(p, "payload"), _b64d(s, "signature")


def decode_header(token: str | bytes) -> dict[str, Any]:
    """The header of ``token``, parsed strictly but NOT verified (to pick a
    key by ``kid``, say)."""
    return _split(token)[0]


def decode(token: str | bytes, key: Any, *, algorithms: Iterable[str] | Mapping[str, str],
           encoding: Encoding = "raw", uid: Buffer = sm2.DEFAULT_UID) -> bytes:
    """The payload of a compact JWS whose signature verifies with ``key``
    (an :class:`~shangmi.sm2.PublicKey` for SM2, bytes for HMAC-SM3).
    ``algorithms`` is a list of shangmi's names (``["SM2"]``) or a dict from
    each accepted header ``alg`` to its scheme (``{"GmSM2": "sm2",
    "HS256-SM3": "hmac-sm3"}``). Raises :class:`~shangmi.InvalidSignature`."""
    accepted = _accepted(algorithms)
    enc = _check_encoding(encoding)
    header, signing_input, payload, sig = _split(token)
    alg = header.get("alg")
    if not isinstance(alg, str):
        raise InvalidSignature("malformed token: the header has no 'alg' string")
    if alg.lower() == "none":
        raise InvalidSignature("token refused: alg 'none' (unsigned) is never accepted")
    if alg not in accepted:
        raise InvalidSignature(f"token refused: alg {alg!r} is not among the accepted {sorted(accepted)}")
    if "crit" in header:
        raise InvalidSignature(f"token refused: it marks {header['crit']!r} critical, and no extension is understood")
    _verify(signing_input, sig, key, accepted[alg], enc, uid, alg)
    return payload


# -- JWT (RFC 7519) --------------------------------------------------------------------


def encode_jwt(claims: Mapping[str, Any], key: Any, *, alg: str = "SM2", scheme: Scheme | None = None,
               encoding: Encoding = "raw", uid: Buffer = sm2.DEFAULT_UID,
               headers: Mapping[str, Any] | None = None) -> str:
    """:func:`encode` of the JSON ``claims`` with ``typ: JWT``."""
    if not isinstance(claims, Mapping):
        raise ShangmiTypeError(f"claims must be a dict, got {type(claims).__name__}")
    h = {"typ": "JWT", **(headers or {})}
    return encode(_json(dict(claims)), key, alg=alg, scheme=scheme, encoding=encoding, uid=uid, headers=h)


def _numeric(claims: Mapping[str, Any], name: str) -> float | None:
    v = claims.get(name)
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise InvalidSignature(f"JWT refused: claim {name!r} is not a NumericDate")
    return float(v)


def decode_jwt(token: str | bytes, key: Any, *, algorithms: Iterable[str] | Mapping[str, str],
               encoding: Encoding = "raw", uid: Buffer = sm2.DEFAULT_UID, leeway: float = 0,
               now: float | None = None, audience: str | Iterable[str] | None = None,
               issuer: str | None = None, require: Iterable[str] = ()) -> dict[str, Any]:
    """The claims of a JWT after :func:`decode`, with ``exp`` and ``nbf``
    checked at ``now`` (default the current time) give or take ``leeway``
    seconds, ``aud`` against ``audience`` and ``iss`` against ``issuer`` when
    given, and every name in ``require`` present."""
    payload = decode(token, key, algorithms=algorithms, encoding=encoding, uid=uid)
    try:
        claims = json.loads(payload.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except InvalidSignature:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise InvalidSignature("JWT refused: the payload is not UTF-8 JSON") from None
    if not isinstance(claims, dict):
        raise InvalidSignature("JWT refused: the payload is not a JSON object")
    t = time.time() if now is None else float(now)
    for name in require:
        if name not in claims:
            raise InvalidSignature(f"JWT refused: required claim {name!r} is missing")
    exp, nbf = _numeric(claims, "exp"), _numeric(claims, "nbf")
    _numeric(claims, "iat")
    if exp is not None and t > exp + leeway:
        raise InvalidSignature(f"JWT refused: expired (exp {exp:.0f}, now {t:.0f})")
    if nbf is not None and t < nbf - leeway:
        raise InvalidSignature(f"JWT refused: not yet valid (nbf {nbf:.0f}, now {t:.0f})")
    if issuer is not None and claims.get("iss") != issuer:
        raise InvalidSignature(f"JWT refused: issuer {claims.get('iss')!r}, expected {issuer!r}")
    if audience is not None:
        wanted = {audience} if isinstance(audience, str) else set(audience)
        aud = claims.get("aud")
        got = {aud} if isinstance(aud, str) else set(aud) if isinstance(aud, list) else set()
        if not wanted & got:
            raise InvalidSignature(f"JWT refused: audience {aud!r} does not include any of {sorted(wanted)}")
    return claims


# -- PyJWT ----------------------------------------------------------------------------


def pyjwt_algorithm(scheme: Scheme = "sm2", *, encoding: Encoding = "raw", uid: Buffer = sm2.DEFAULT_UID) -> Any:
    """An algorithm object for PyJWT::

        jwt.register_algorithm("SM2", jose.pyjwt_algorithm("sm2"))
        jwt.encode({"sub": "42"}, private_key, algorithm="SM2")
        jwt.decode(token, public_key, algorithms=["SM2"])

    Keys are shangmi's (an :class:`~shangmi.sm2.PrivateKey` to sign, a
    :class:`~shangmi.sm2.PublicKey` or its PEM to verify) or bytes for
    HMAC-SM3. Needs PyJWT (``pip install shangmi[jose]``)."""
    sch = _check_scheme(scheme, "pyjwt_algorithm")
    enc = _check_encoding(encoding)
    try:
        from jwt.algorithms import Algorithm  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        raise ShangmiError("PyJWT is not installed (pip install 'shangmi[jose]')") from None

    class _ShangmiAlgorithm(Algorithm):  # type: ignore[misc,unused-ignore]
        def prepare_key(self, key: Any) -> Any:
            if sch == "hmac-sm3":
                return _hmac_key(key)
            if isinstance(key, (sm2.PrivateKey, sm2.PublicKey)):
                return key
            if isinstance(key, (str, bytes)):
                data = key.encode("ascii") if isinstance(key, str) else key
                if b"PRIVATE KEY" in data:
                    return sm2.PrivateKey.from_pem(data)
                return sm2.PublicKey.from_pem(data)
            raise ShangmiTypeError(f"an SM2 key must be an sm2 key or its PEM, got {type(key).__name__}")

        def sign(self, msg: bytes, key: Any) -> bytes:
            return _sign(msg, key, sch, enc, uid)

        def verify(self, msg: bytes, key: Any, sig: bytes) -> bool:
            try:
                _verify(msg, sig, key, sch, enc, uid, "PyJWT")
            except InvalidSignature:
                return False
            return True

        @staticmethod
        def to_jwk(key_obj: Any, as_dict: bool = False) -> Any:
            raise NotImplementedError("no JWK form is registered for SM2 or HMAC-SM3")

        @staticmethod
        def from_jwk(jwk: Any) -> Any:
            raise NotImplementedError("no JWK form is registered for SM2 or HMAC-SM3")

    return _ShangmiAlgorithm()
