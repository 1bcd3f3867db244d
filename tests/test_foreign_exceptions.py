"""Every public callable, called with wrong-typed arguments of the right
arity, raises only ShangmiError subclasses (the promise of
``shangmi.exceptions``); a wrong type is a ShangmiTypeError.

The walk covers every public module (``__all__``), every public function,
every public class's constructor and every public method (instance,
class and static) of an instance built from valid arguments. Each
parameter in turn receives each value of ``WRONG`` while the others are
valid; then every required parameter receives the same wrong value at once.
"""

from __future__ import annotations

import datetime as dt
import enum
import importlib
import inspect
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import shangmi
from shangmi import ShangmiError, sm2, sm9, x509, zuc
from shangmi.compat.gmssl.sm2 import CryptSM2
from shangmi.compat.gmssl.sm4 import CryptSM4

#: The public modules (with the package itself).
MODULES = [
    "shangmi",
    "shangmi.sm2",
    "shangmi.sm3",
    "shangmi.sm4",
    "shangmi.sm9",
    "shangmi.zuc",
    "shangmi.x509",
    "shangmi.cms",
    "shangmi.tls",
    "shangmi.pkcs12",
    "shangmi.jose",
    "shangmi.x509.ocsp",
    "shangmi.batch",
    "shangmi.exceptions",
    "shangmi.compat",
    "shangmi.compat.gmssl",
    "shangmi.compat.gmssl.func",
    "shangmi.compat.gmssl.sm2",
    "shangmi.compat.gmssl.sm3",
    "shangmi.compat.gmssl.sm4",
]

WRONG: list[Any] = [1, None, 1.5, "str", object(), [1]]

# A small PKI and one key of each kind, made once.
_NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
_SM2 = sm2.PrivateKey.generate()
_PUB = _SM2.public_key()
_NAME = x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, "walk")])


def _cert() -> x509.Certificate:
    return (
        x509.CertificateBuilder()
        .subject_name(_NAME)
        .issuer_name(_NAME)
        .public_key(_PUB)
        .serial_number(7)
        .not_valid_before(_NOW - dt.timedelta(days=1))
        .not_valid_after(_NOW + dt.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(_SM2)
    )


_CERT = _cert()
_CSR = x509.CertificateSigningRequestBuilder().subject_name(_NAME).sign(_SM2)
_CRL = (
    x509.CertificateRevocationListBuilder()
    .issuer_name(_NAME)
    .last_update(_NOW)
    .next_update(_NOW + dt.timedelta(days=1))
    .sign(_SM2)
)
_SIGN_MASTER = sm9.SignMasterKey.generate()
_ENC_MASTER = sm9.EncMasterKey.generate()
_SIGN_USER = _SIGN_MASTER.extract(b"alice")
_ENC_USER = _ENC_MASTER.extract(b"alice")
_TMP = tempfile.NamedTemporaryFile(delete=False)
_TMP.write(b"abc")
_TMP.close()

#: A valid value for a parameter, by name (the API uses one name per meaning).
_VALID: dict[str, Callable[[], Any]] = {
    "key": lambda: bytes(16),
    "iv": lambda: bytes(16),
    "tweak": lambda: bytes(16),
    "block": lambda: bytes(16),
    "nonce": lambda: bytes(12),
    "data": lambda: bytes(32),
    "message": lambda: b"m",
    "msg": lambda: b"m",
    "messages": lambda: [b"m"],
    "aad": lambda: b"",
    "uid": lambda: b"alice",
    "digest": lambda: bytes(32),
    "signature": lambda: _SM2.sign(b"m"),
    "plaintext": lambda: b"m",
    "ciphertext": lambda: _PUB.encrypt(b"m"),
    "private_key": lambda: _SM2,
    "public_key": lambda: _PUB,
    "peer_public_key": lambda: _PUB,
    "issuer_key": lambda: _SM2,
    "signer": lambda: _SM2,
    "certificate": lambda: _CERT,
    "cert": lambda: _CERT,
    "certificates": lambda: [_CERT],
    "name": lambda: _NAME,
    "subject": lambda: _NAME,
    "issuer": lambda: _NAME,
    "n": lambda: 2,
    "length": lambda: 16,
    "size": lambda: 2,
    "count": lambda: 0,
    "bearer": lambda: 0,
    "direction": lambda: 0,
    "paths": lambda: [_TMP.name],
    "path": lambda: _TMP.name,
    "identity": lambda: b"alice",
    "id": lambda: b"alice",
    "z": lambda: b"z",
    "nbytes": lambda: 4,
    "peer_ephemeral": lambda: bytes(65),
    "peer_uid": lambda: b"bob",
    "received": lambda: bytes(32),
    "confirmation": lambda: bytes(32),
    "expected_confirmation": lambda: bytes(32),
    "master_public_key": lambda: _SIGN_MASTER.public_key(),
    "tag": lambda: bytes(16),
    "outputs": lambda: [bytearray(4)],
    "leaf": lambda: _CERT,
    "intermediates": lambda: [],
    "trust_roots": lambda: [_CERT],
    "recipient_certificates": lambda: [_CERT],
    "signed": lambda: b"",
    "enveloped": lambda: b"",
    "extval": lambda: x509.BasicConstraints(ca=False, path_length=None),
    "critical": lambda: False,
    "when": lambda: _NOW,
    "number": lambda: 5,
    "serial_number": lambda: 5,
    "oid": lambda: x509.NameOID.COMMON_NAME,
    "value": lambda: "v",
    "attributes": lambda: [x509.NameAttribute(x509.NameOID.COMMON_NAME, "v")],
    "general_names": lambda: [x509.DNSName("a.example")],
    "full_name": lambda: [x509.UniformResourceIdentifier("http://a.example/c.crl")],
    "distribution_points": lambda: [],
    "usages": lambda: [],
    "encoding": lambda: "der",
    "extclass": lambda: x509.BasicConstraints,
    "type": lambda: x509.DNSName,
    "dotted_string": lambda: "1.2.3",
    "ca": lambda: True,
    "path_length": lambda: None,
    "reason": lambda: x509.ReasonFlags.unspecified if hasattr(x509, "ReasonFlags") else 0,
    "crl_number": lambda: 1,
    "der": lambda: b"\x05\x00",
    "key_identifier": lambda: bytes(20),
    "authority_cert_issuer": lambda: None,
    "authority_cert_serial_number": lambda: None,
    "ski": lambda: x509.SubjectKeyIdentifier(bytes(20)),
    "revoked": lambda: x509.RevokedCertificateBuilder().serial_number(3).revocation_date(_NOW).build(),
    "revocation_date_utc": lambda: _NOW,
    "extensions": lambda: x509.Extensions([]),
    "role": lambda: "initiator",
    "p": lambda: sm9.SignMasterKey.generate().public_key().to_bytes(),
    "q": lambda: bytes(32),
    "a": lambda: [1, 2],
    "b": lambda: [3, 4],
    "x": lambda: 5,
    "key_data": lambda: [0, 0, 0, 1],
    "klen": lambda: 16,
    "mode": lambda: 0,
    "input_data": lambda: bytes(16),
    "content": lambda: b"c",
    "signers": lambda: [],
    "form": lambda: "der",
}
for _bit in ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment", "key_agreement",
             "key_cert_sign", "crl_sign", "encipher_only", "decipher_only"):
    _VALID[_bit] = lambda: False

#: Where one parameter name means different things.
_VALID_AT: dict[tuple[str, str], Callable[[], Any]] = {
    ("shangmi.sm2.verify_many", "items"): lambda: [(_PUB, b"m", _SM2.sign(b"m"))],
    ("shangmi.sm4.SM4CBC.encrypt_many", "items"): lambda: [(bytes(16), bytes(16))],
    ("shangmi.sm4.SM4CBC.decrypt_many", "items"): lambda: [(bytes(16), bytes(16))],
    ("shangmi.batch.verify_chunk", "items"): lambda: [(_PUB.to_bytes(), b"m", _SM2.sign(b"m"))],
    ("shangmi.batch.chunks", "items"): lambda: [1, 2, 3],
    ("shangmi.zuc.eea3_many", "messages"): lambda: [(bytes(16), 0, 0, 0, b"ab")],
    ("shangmi.zuc.eia3_many", "messages"): lambda: [(bytes(16), 0, 0, 0, b"ab")],
    ("shangmi.zuc.eea3_many_into", "messages"): lambda: [(bytes(16), 0, 0, 0, b"ab")],
    ("shangmi.zuc.eea3_many_into", "outputs"): lambda: [bytearray(2)],
    ("shangmi.sm9.sign_many", "key"): lambda: _SIGN_USER,
    ("shangmi.sm9.verify_many", "items"): lambda: [(b"m", b"alice", _SIGN_USER.sign(b"m"))],
    ("shangmi.compat.gmssl.sm3.sm3_kdf", "z"): lambda: "00ff",
    ("shangmi.compat.gmssl.sm2.CryptSM2.verify", "Sign"): lambda: _SM2.sign(b"m", encoding="raw").hex(),
    ("shangmi.compat.gmssl.sm2.CryptSM2.verify_with_sm3", "sign"): lambda: _SM2.sign(b"m", encoding="raw").hex(),
    ("shangmi.compat.gmssl.sm2.CryptSM2", "private_key"): lambda: _SM2.to_bytes().hex(),
    ("shangmi.compat.gmssl.sm2.CryptSM2", "public_key"): lambda: _PUB.to_bytes()[1:].hex(),
}


def _valid(param: inspect.Parameter, qual: str = "") -> Any:
    if (qual, param.name) in _VALID_AT:
        return _VALID_AT[qual, param.name]()
    if param.name in _VALID:
        return _VALID[param.name]()
    if param.default is not inspect.Parameter.empty:
        return param.default
    return bytes(16)


def _crypt_sm4() -> Any:
    c = CryptSM4()
    c.set_key(bytes(16), 0)
    return c


#: Instances for the methods of classes that are not built by calling them.
_INSTANCES: dict[str, Callable[[], Any]] = {
    "shangmi.sm2.PrivateKey": lambda: _SM2,
    "shangmi.sm2.PublicKey": lambda: _PUB,
    "shangmi.sm2.SignaturePool": lambda: sm2.SignaturePool(4),
    "shangmi.sm2.KeyExchange": lambda: sm2.KeyExchange("initiator", _SM2, _PUB, uid=b"a", peer_uid=b"b"),
    "shangmi.sm9.SignMasterKey": lambda: _SIGN_MASTER,
    "shangmi.sm9.SignMasterPublicKey": lambda: _SIGN_MASTER.public_key(),
    "shangmi.sm9.SignPrivateKey": lambda: _SIGN_USER,
    "shangmi.sm9.EncMasterKey": lambda: _ENC_MASTER,
    "shangmi.sm9.EncMasterPublicKey": lambda: _ENC_MASTER.public_key(),
    "shangmi.sm9.EncPrivateKey": lambda: _ENC_USER,
    "shangmi.x509.Certificate": lambda: _CERT,
    "shangmi.x509.CertificateSigningRequest": lambda: _CSR,
    "shangmi.x509.CertificateRevocationList": lambda: _CRL,
    "shangmi.x509.Name": lambda: _NAME,
    "shangmi.sm3.SM3": lambda: shangmi.sm3.SM3(),
    # Builders with every field set, so that sign() reaches its arguments.
    "shangmi.x509.CertificateBuilder": lambda: (
        x509.CertificateBuilder()
        .subject_name(_NAME)
        .issuer_name(_NAME)
        .public_key(_PUB)
        .serial_number(9)
        .not_valid_before(_NOW)
        .not_valid_after(_NOW + dt.timedelta(days=1))
    ),
    "shangmi.x509.CertificateSigningRequestBuilder": lambda: x509.CertificateSigningRequestBuilder().subject_name(_NAME),
    "shangmi.x509.CertificateRevocationListBuilder": lambda: (
        x509.CertificateRevocationListBuilder().issuer_name(_NAME).last_update(_NOW)
    ),
    "shangmi.x509.RevokedCertificateBuilder": lambda: (
        x509.RevokedCertificateBuilder().serial_number(3).revocation_date(_NOW)
    ),
    "shangmi.compat.gmssl.sm4.CryptSM4": _crypt_sm4,
    "shangmi.compat.gmssl.sm2.CryptSM2": lambda: CryptSM2(_SM2.to_bytes().hex(), _PUB.to_bytes()[1:].hex()),
    "shangmi.sm4.CipherContext": lambda: shangmi.sm4.SM4CTR(bytes(16)).encryptor(bytes(16)),
    "shangmi.sm4.GCMEncryptionContext": lambda: shangmi.sm4.SM4GCM(bytes(16)).encryptor(bytes(12)),
    "shangmi.sm4.GCMDecryptionContext": lambda: shangmi.sm4.SM4GCM(bytes(16)).decryptor(bytes(12)),
}

#: Callables that must not be called with arbitrary values (process-wide state).
_SKIP = {"shangmi._cpu.set_num_threads"}


def _public_objects() -> Iterator[tuple[str, Any]]:
    seen: set[int] = set()
    for modname in MODULES:
        importlib.import_module(modname)
    for modname in MODULES:
        mod = importlib.import_module(modname)
        for name in getattr(mod, "__all__", [n for n in dir(mod) if not n.startswith("_")]):
            obj = getattr(mod, name, None)
            if obj is None or id(obj) in seen or inspect.ismodule(obj):
                continue
            seen.add(id(obj))
            if inspect.isclass(obj) or callable(obj):
                yield f"{modname}.{name}", obj


def _params(fn: Any) -> list[inspect.Parameter] | None:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    return [
        p for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name != "self"
    ]


def _calls(fn: Any, qual: str) -> Iterator[tuple[str, Callable[[], Any]]]:
    """(description, thunk) for each wrong-typed call of ``fn``."""
    params = _params(fn)
    if params is None:
        return
    if not params:
        return

    def invoke(values: dict[str, Any]) -> Any:
        args = [values[p.name] for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        kwargs = {p.name: values[p.name] for p in params if p.kind == p.KEYWORD_ONLY}
        return fn(*args, **kwargs)

    for target in params:
        for wrong in WRONG:
            if wrong == "str" and ("path" in target.name or "file" in target.name):
                continue  # a str is a right-typed path; a missing file is an OSError
            values = {p.name: _valid(p, qual) for p in params}
            values[target.name] = wrong
            yield f"{target.name}={wrong!r}", lambda v=values: invoke(v)
    required = [p for p in params if p.default is inspect.Parameter.empty]
    if len(required) > 1:
        for wrong in WRONG:
            values = {p.name: _valid(p, qual) for p in params}
            values.update({p.name: wrong for p in required})
            yield f"all={wrong!r}", lambda v=values: invoke(v)


def _targets() -> Iterator[tuple[str, Any]]:
    """(qualified name, callable) for every function, constructor and method."""
    for qual, obj in _public_objects():
        if qual in _SKIP or getattr(obj, "__module__", "") + "." + getattr(obj, "__name__", "") in _SKIP:
            continue
        if not inspect.isclass(obj):
            yield qual, obj
            continue
        if issubclass(obj, (BaseException, enum.Enum)):
            continue
        yield qual, obj
        make = _INSTANCES.get(f"{obj.__module__}.{obj.__name__}") or _INSTANCES.get(qual)
        instance = None
        if make is not None:
            instance = make()
        else:
            params = _params(obj)
            if params is not None:
                try:
                    instance = obj(**{p.name: _valid(p) for p in params if p.default is inspect.Parameter.empty})
                except Exception:
                    instance = None
        for attr, raw in inspect.getmembers(obj):
            if attr.startswith("_") or isinstance(inspect.getattr_static(obj, attr), property):
                continue
            static = inspect.getattr_static(obj, attr)
            if isinstance(static, (classmethod, staticmethod)):
                yield f"{qual}.{attr}", raw
            elif callable(raw) and instance is not None:
                yield f"{qual}.{attr}", getattr(instance, attr)


#: Parameters that take an option or flag by value, where an arbitrary
#: object is a wrong value (InvalidInputError) rather than a wrong type.
_VALUE_PARAMS = {
    ("shangmi.compat.gmssl.sm2.CryptSM2", "mode"),
    ("shangmi.compat.gmssl.sm4.CryptSM4.set_key", "mode"),
    ("shangmi.x509.Certificate.public_bytes", "encoding"),  # pyca's Encoding enum or a name
    ("shangmi.x509.CertificateSigningRequest.public_bytes", "encoding"),
    ("shangmi.x509.CertificateRevocationList.public_bytes", "encoding"),
    ("shangmi.x509.KeyUsage", "encipher_only"),  # flags are truth values, as in pyca
    ("shangmi.x509.KeyUsage", "decipher_only"),
    ("shangmi.x509.NameAttribute", "_type"),
}


def _run() -> tuple[int, list[str], list[str]]:
    """(calls, foreign exceptions, wrong types not reported as ShangmiTypeError)."""
    calls, foreign, untyped = 0, [], []
    for qual, fn in _targets():
        for desc, thunk in _calls(fn, qual):
            calls += 1
            try:
                thunk()
            except shangmi.ShangmiTypeError:
                pass
            except ShangmiError as e:
                # A plain object() is never a right type: anything but
                # ShangmiTypeError for it is a misfiled type check.
                param = desc.partition("=")[0]
                if "=<object object at " in desc and param != "all" and (qual, param) not in _VALUE_PARAMS:
                    untyped.append(f"{qual}({desc}): {type(e).__name__}: {e}")
            except Exception as e:  # noqa: BLE001 - the point of the test
                foreign.append(f"{qual}({desc}): {type(e).__module__}.{type(e).__name__}: {e}")
    return calls, foreign, untyped


def test_only_shangmi_errors_come_out() -> None:
    calls, foreign, untyped = _run()
    assert calls > 1000, f"only {calls} calls: the walk lost part of the API"
    assert not foreign and not untyped, (
        f"{len(foreign)} foreign exceptions and {len(untyped)} wrong types not raised as ShangmiTypeError "
        f"in {calls} calls:\n" + "\n".join(foreign[:80] + untyped[:20])
    )


def teardown_module() -> None:
    os.unlink(_TMP.name)


if __name__ == "__main__":
    n, bad, untyped = _run()
    print(f"{len(bad)} foreign exceptions in {n} calls")
    for line in bad + untyped:
        print(line.encode("ascii", "backslashreplace").decode()[:300])
