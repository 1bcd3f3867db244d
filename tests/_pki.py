"""Helpers shared by the x509 / CMS tests: a small PKI made here."""

from __future__ import annotations

import datetime as dt

from shangmi import sm2, x509
from shangmi.x509 import BasicConstraints, KeyUsage, Name, NameAttribute, NameOID

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
DAY = dt.timedelta(days=1)


def name(cn: str, **more: str) -> Name:
    attrs = [NameAttribute(NameOID.COUNTRY_NAME, "CN")] if more.pop("country", "") else []
    if "o" in more:
        attrs.append(NameAttribute(NameOID.ORGANIZATION_NAME, more["o"]))
    attrs.append(NameAttribute(NameOID.COMMON_NAME, cn))
    return Name(attrs)


def ku(**bits: bool) -> KeyUsage:
    fields = ("digital_signature", "content_commitment", "key_encipherment", "data_encipherment", "key_agreement",
              "key_cert_sign", "crl_sign", "encipher_only", "decipher_only")
    return KeyUsage(*[bits.get(f, False) for f in fields])


def issue(
    subject: Name,
    key: sm2.PublicKey,
    issuer: Name,
    issuer_key: sm2.PrivateKey,
    *,
    ca: bool | None = None,
    path_length: int | None = None,
    key_usage: KeyUsage | None = None,
    before: dt.datetime | None = None,
    after: dt.datetime | None = None,
    serial: int | None = None,
    uid: bytes = sm2.DEFAULT_UID,
    ski: bool = True,
) -> x509.Certificate:
    b = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(key)
        .serial_number(serial or x509.random_serial_number())
        .not_valid_before(before or NOW - DAY)
        .not_valid_after(after or NOW + 30 * DAY)
    )
    if ca is not None:
        b = b.add_extension(BasicConstraints(ca=ca, path_length=path_length), critical=True)
    if key_usage is not None:
        b = b.add_extension(key_usage, critical=True)
    if ski:
        b = b.add_extension(x509.SubjectKeyIdentifier.from_public_key(key), critical=False)
        b = b.add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()), critical=False)
    return b.sign(issuer_key, uid=uid)


class Pki:
    """root -> intermediate -> leaf, all made here."""

    def __init__(self, uid: bytes = sm2.DEFAULT_UID, ca_uid: bytes | None = None, leaf_ca: bool | None = False) -> None:
        ca_uid = uid if ca_uid is None else ca_uid
        self.root_key = sm2.PrivateKey.generate()
        self.inter_key = sm2.PrivateKey.generate()
        self.leaf_key = sm2.PrivateKey.generate()
        self.root_name = name("测试根 CA", o="商密测试", country="CN")
        self.inter_name = name("Intermediate CA", o="商密测试")
        self.leaf_name = name("leaf.example")
        cak = ku(key_cert_sign=True, crl_sign=True)
        self.root = issue(self.root_name, self.root_key.public_key(), self.root_name, self.root_key, ca=True,
                          key_usage=cak, uid=ca_uid)
        self.inter = issue(self.inter_name, self.inter_key.public_key(), self.root_name, self.root_key, ca=True,
                           path_length=0, key_usage=cak, uid=ca_uid)
        self.leaf = issue(self.leaf_name, self.leaf_key.public_key(), self.inter_name, self.inter_key, ca=leaf_ca,
                          key_usage=ku(digital_signature=True, key_encipherment=True), uid=uid)
