"""shangmi.pkcs12: OpenSSL-made and third-party PFX files read (every
protection, BER, empty and non-ASCII passwords), our two profiles read back,
every refusal a ShangmiError, and pyca's shapes."""

from __future__ import annotations

from pathlib import Path

import pytest

import shangmi
from shangmi import pkcs12, sm2, x509

HERE = Path(__file__).parent / "vectors" / "pkcs12"


def _read(name: str) -> bytes:
    return (HERE / name).read_bytes()


KEY = sm2.PrivateKey.from_pem(_read("key.pem"))
LEAF = x509.load_pem_x509_certificate(_read("leaf.pem"))
CA = x509.load_pem_x509_certificate(_read("ca.pem"))

OPENSSL_FILES = [
    ("openssl-default.p12", "test"),
    ("openssl-legacy.p12", "test"),
    ("openssl-rc2-128.p12", "test"),
    ("openssl-sm4-sm3mac.p12", b"test"),
    ("openssl-aes128-sha1mac.p12", "test"),
    ("openssl-noenc.p12", "test"),
    ("openssl-empty-password.p12", ""),
    ("openssl-empty-password.p12", None),
    ("openssl-nonascii-password.p12", "密码Ä"),
    ("openssl-legacy-nonascii-password.p12", "密码Ä".encode()),
]


@pytest.mark.parametrize(("name", "password"), OPENSSL_FILES)
def test_openssl_files(name: str, password: str | bytes | None) -> None:
    key, cert, cas = pkcs12.load_key_and_certificates(_read(name), password)
    assert key is not None and key.to_bytes() == KEY.to_bytes()
    assert cert == LEAF
    assert cas == [CA]
    p = pkcs12.load_pkcs12(_read(name), password)
    assert p.cert is not None and p.cert.friendly_name == b"leaf key"
    assert p.key_friendly_name == b"leaf key"
    assert p.cert.local_key_id is not None and p.cert.local_key_id == p.key_local_key_id
    assert [c.certificate for c in p.additional_certs] == [CA]
    assert p.additional_certs[0].friendly_name is None


@pytest.mark.parametrize(
    ("name", "password", "n_certs"),
    [("gmcert-withca.p12", "123456", 2), ("gmcert-withoutca.p12", "123456", 1), ("cryptobin-ber-sm2.p12", "12345678", 1)],
)
def test_third_party_files(name: str, password: str, n_certs: int) -> None:
    stem = name.removesuffix(".p12")
    key, cert, cas = pkcs12.load_key_and_certificates(_read(name), password)
    assert key is not None and key.to_bytes() == sm2.PrivateKey.from_pem(_read(f"{stem}.key.pem")).to_bytes()
    assert cert is not None and cert.public_key() == key.public_key()
    assert sorted(c.to_der() for c in [cert, *cas]) == sorted(
        c.to_der() for c in x509.load_pem_x509_certificates(_read(f"{stem}.certs.pem"))
    )
    assert len(cas) == n_certs - 1


def test_bouncycastle_ber_sm3_mac() -> None:
    key, cert, cas = pkcs12.load_key_and_certificates(_read("bc-aes256-sm3mac.p12"), "bc密码")
    assert key is not None and key.to_bytes() == KEY.to_bytes() and cert == LEAF and cas == [CA]


def test_wrong_password_one_error() -> None:
    for name in ("openssl-default.p12", "openssl-legacy.p12", "gmcert-withca.p12", "cryptobin-ber-sm2.p12"):
        with pytest.raises(shangmi.InvalidKey, match="wrong password"):
            pkcs12.load_key_and_certificates(_read(name), "nope")


def test_refusals() -> None:
    data = _read("openssl-default.p12")
    tampered = bytearray(data)
    tampered[len(data) // 2] ^= 1
    with pytest.raises(shangmi.InvalidKey, match="MAC does not verify"):
        pkcs12.load_pkcs12(bytes(tampered), "test")
    for bad in (data[:100], data + b"\x00", b"", b"\x30\x00"):
        with pytest.raises(shangmi.ShangmiError):
            pkcs12.load_pkcs12(bad, "test")
    with pytest.raises(shangmi.InvalidInputError, match="trailing data"):
        pkcs12.load_pkcs12(data + b"\x00", "test")
    with pytest.raises(shangmi.UnsupportedAlgorithm, match="RSA"):
        pkcs12.load_key_and_certificates(_read("openssl-rsa.p12"), "test")
    # the MAC is checked before the key type
    with pytest.raises(shangmi.InvalidKey, match="wrong password"):
        pkcs12.load_key_and_certificates(_read("openssl-rsa.p12"), "nope")
    assert issubclass(shangmi.UnsupportedAlgorithm, ValueError)


def test_iteration_cap() -> None:
    data = _read("openssl-iter200k.p12")
    with pytest.raises(shangmi.InvalidKey, match="max_iterations=200000"):
        pkcs12.load_pkcs12(data, "test")
    key, cert, _ = pkcs12.load_key_and_certificates(data, "test", max_iterations=200_000)
    assert cert == LEAF and key is not None
    assert pkcs12.DEFAULT_MAX_ITERATIONS == sm2.DEFAULT_MAX_ITERATIONS


@pytest.mark.parametrize("encryption", ["sm", "openssl", None])
def test_round_trip(encryption: str | None) -> None:
    password = None if encryption is None else "pässwörd"
    data = pkcs12.serialize_key_and_certificates(
        "名前", KEY, LEAF, [CA], password=password, encryption=encryption  # type: ignore[arg-type]
    )
    p = pkcs12.load_pkcs12(data, password)
    assert p.key is not None and p.key.to_bytes() == KEY.to_bytes()
    assert p.cert is not None and p.cert.certificate == LEAF and p.cert.friendly_name == "名前".encode()
    assert p.key_friendly_name == "名前".encode()
    assert [c.certificate for c in p.additional_certs] == [CA]
    if password is not None:
        with pytest.raises(shangmi.InvalidKey):
            pkcs12.load_pkcs12(data, "other")


def test_serialize_options() -> None:
    with pytest.raises(shangmi.InvalidInputError, match="needs a password"):
        pkcs12.serialize_key_and_certificates(None, KEY, LEAF, None)
    with pytest.raises(shangmi.InvalidInputError, match="no encryption"):
        pkcs12.serialize_key_and_certificates(None, KEY, LEAF, None, password="x", encryption=None)
    with pytest.raises(shangmi.InvalidInputError, match="'sm', 'openssl'"):
        pkcs12.serialize_key_and_certificates(None, KEY, LEAF, None, password="x", encryption="des")  # type: ignore[arg-type]
    with pytest.raises(shangmi.InvalidInputError, match="not the private key's"):
        pkcs12.serialize_key_and_certificates(None, KEY, CA, None, password="x")
    with pytest.raises(shangmi.InvalidInputError, match="nothing to write"):
        pkcs12.serialize_key_and_certificates(None, None, None, None, encryption=None)
    with pytest.raises(shangmi.ShangmiTypeError):
        pkcs12.serialize_key_and_certificates(None, "key", LEAF, None, password="x")  # type: ignore[arg-type]
    # an empty password is a password
    data = pkcs12.serialize_key_and_certificates(b"n", KEY, None, [CA], password=b"")
    key, cert, cas = pkcs12.load_key_and_certificates(data, None)
    assert key is not None and cert is None and cas == [CA]


def test_pyca_shapes() -> None:
    p = pkcs12.load_pkcs12(_read("openssl-default.p12"), b"test")
    assert p.cert is not None
    same = pkcs12.PKCS12Certificate(p.cert.certificate, b"leaf key", p.cert.local_key_id)
    assert same == p.cert and hash(same) == hash(p.cert)
    assert "PKCS12Certificate" in repr(same) and "PKCS12KeyAndCertificates" in repr(p)
    with pytest.raises(shangmi.ShangmiTypeError):
        pkcs12.PKCS12Certificate(p.cert.certificate, "name")  # type: ignore[arg-type]
