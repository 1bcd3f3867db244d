"""x509: builders, round trips, names, path-validation refusals, bad input."""

from __future__ import annotations

import datetime as dt
import ipaddress

import pytest
from _pki import DAY, NOW, Pki, issue, ku, name
from hypothesis import given
from hypothesis import strategies as st

import shangmi
from shangmi import sm2, x509
from shangmi.x509 import Name, NameAttribute, NameOID, RelativeDistinguishedName

GM = b"1234567812345678"
KEY = sm2.PrivateKey.generate()
UTC = dt.timezone.utc


@pytest.fixture(scope="module")
def pki() -> Pki:
    return Pki()


def test_chain_ok(pki: Pki) -> None:
    chain = x509.verify_chain(pki.leaf, [pki.inter], [pki.root])
    assert chain == [pki.leaf, pki.inter, pki.root]
    assert x509.verify_chain(pki.leaf, [pki.inter], [pki.root], uid=GM) == chain
    assert x509.verify_chain(pki.root, [], [pki.root]) == [pki.root]
    # the intermediate as trust anchor
    assert x509.verify_chain(pki.leaf, [], [pki.inter]) == [pki.leaf, pki.inter]
    # order of the bundle does not matter, extra certificates are ignored
    other = Pki()
    assert x509.verify_chain(pki.leaf, [other.inter, other.leaf, pki.inter], [other.root, pki.root]) == chain


def test_mixed_uid_conventions_per_link() -> None:
    p = Pki(uid=b"", ca_uid=GM)
    assert len(x509.verify_chain(p.leaf, [p.inter], [p.root])) == 3
    with pytest.raises(shangmi.InvalidCertificate, match="user ID"):
        x509.verify_chain(p.leaf, [p.inter], [p.root], uid=GM)


def test_refuse_wrong_signature(pki: Pki) -> None:
    forged = issue(pki.leaf_name, pki.leaf_key.public_key(), pki.inter_name, sm2.PrivateKey.generate(), ca=False,
                   ski=False)
    with pytest.raises(shangmi.InvalidCertificate, match="'CN=leaf.example': signature does not verify"):
        x509.verify_chain(forged, [pki.inter], [pki.root])
    with pytest.raises(shangmi.InvalidSignature):
        forged.verify_directly_issued_by(pki.inter)


def test_refuse_wrong_uid_when_pinned(pki: Pki) -> None:
    with pytest.raises(shangmi.InvalidCertificate, match='signature does not verify .* with user ID ""'):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], uid=b"")


def test_refuse_expired_and_not_yet_valid(pki: Pki) -> None:
    with pytest.raises(shangmi.InvalidCertificate, match="'CN=leaf.example': expired"):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], at=NOW + 60 * DAY)
    with pytest.raises(shangmi.InvalidCertificate, match="not yet valid"):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], at=NOW - 2 * DAY)
    old = issue(name("old"), KEY.public_key(), pki.inter_name, pki.inter_key, ca=False,
                before=NOW - 10 * DAY, after=NOW - 5 * DAY)
    with pytest.raises(shangmi.InvalidCertificate, match="'CN=old': expired"):
        x509.verify_chain(old, [pki.inter], [pki.root])


def test_refuse_ca_flag_missing(pki: Pki) -> None:
    k = sm2.PrivateKey.generate()
    not_ca = issue(name("not a CA"), k.public_key(), pki.root_name, pki.root_key, ca=False)
    leaf = issue(name("under not-ca"), KEY.public_key(), name("not a CA"), k, ca=False)
    with pytest.raises(shangmi.InvalidCertificate, match="'CN=not a CA': is not a CA"):
        x509.verify_chain(leaf, [not_ca], [pki.root])
    no_bc = issue(name("no bc"), k.public_key(), pki.root_name, pki.root_key)
    leaf2 = issue(name("under no-bc"), KEY.public_key(), name("no bc"), k, ca=False)
    with pytest.raises(shangmi.InvalidCertificate, match="is not a CA"):
        x509.verify_chain(leaf2, [no_bc], [pki.root])


def test_refuse_path_length_exceeded(pki: Pki) -> None:
    # pki.inter has pathLenConstraint 0: a CA under it may not issue.
    k = sm2.PrivateKey.generate()
    sub = issue(name("sub CA"), k.public_key(), pki.inter_name, pki.inter_key, ca=True,
                key_usage=ku(key_cert_sign=True))
    leaf = issue(name("deep leaf"), KEY.public_key(), name("sub CA"), k, ca=False)
    with pytest.raises(shangmi.InvalidCertificate, match="Intermediate CA.*path length exceeded: pathLenConstraint is 0"):
        x509.verify_chain(leaf, [sub, pki.inter], [pki.root])
    # the same depth under the unconstrained root is fine
    sub2 = issue(name("sub CA"), k.public_key(), pki.root_name, pki.root_key, ca=True, key_usage=ku(key_cert_sign=True))
    assert len(x509.verify_chain(leaf, [sub2], [pki.root])) == 3


def test_refuse_key_usage_without_cert_sign(pki: Pki) -> None:
    k = sm2.PrivateKey.generate()
    ca = issue(name("ku CA"), k.public_key(), pki.root_name, pki.root_key, ca=True,
               key_usage=ku(digital_signature=True, crl_sign=True))
    leaf = issue(name("ku leaf"), KEY.public_key(), name("ku CA"), k, ca=False)
    with pytest.raises(shangmi.InvalidCertificate, match="'CN=ku CA': keyUsage does not include keyCertSign"):
        x509.verify_chain(leaf, [ca], [pki.root])


def test_refuse_name_chain_broken(pki: Pki) -> None:
    stray = issue(name("stray"), KEY.public_key(), name("Nobody CA"), pki.inter_key, ca=False, ski=False)
    with pytest.raises(shangmi.InvalidCertificate, match="'CN=stray': issuer 'CN=Nobody CA' not found"):
        x509.verify_chain(stray, [pki.inter], [pki.root])
    with pytest.raises(shangmi.InvalidCertificate, match="was issued by"):
        pki.leaf.verify_directly_issued_by(pki.root)


def test_refuse_revoked(pki: Pki) -> None:
    def crl(serials: list[int], uid: bytes = GM, key: sm2.PrivateKey | None = None) -> x509.CertificateRevocationList:
        b = x509.CertificateRevocationListBuilder().issuer_name(pki.inter_name).last_update(NOW)
        for s in serials:
            b = b.add_revoked_certificate(x509.RevokedCertificateBuilder().serial_number(s).revocation_date(NOW).build())
        return b.sign(key or pki.inter_key, uid=uid)

    with pytest.raises(shangmi.InvalidCertificate, match="'CN=leaf.example': revoked"):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], crls=[crl([3, pki.leaf.serial_number])])
    with pytest.raises(shangmi.InvalidCertificate, match="revoked"):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], crls=[crl([pki.leaf.serial_number], uid=b"")])
    assert len(x509.verify_chain(pki.leaf, [pki.inter], [pki.root], crls=[crl([3, 4])])) == 3
    with pytest.raises(shangmi.InvalidCertificate, match="CRL .* signature that does not verify"):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], crls=[crl([3], key=sm2.PrivateKey.generate())])
    c = crl([pki.leaf.serial_number])
    assert c.get_revoked_certificate_by_serial_number(pki.leaf.serial_number) is not None
    assert len(c) == 1 and c.is_signature_valid(pki.inter_key.public_key())


def test_refuse_cycle() -> None:
    ka, kb = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    a = issue(name("A"), ka.public_key(), name("B"), kb, ca=True, ski=False)
    b = issue(name("B"), kb.public_key(), name("A"), ka, ca=True, ski=False)
    leaf = issue(name("cyc leaf"), KEY.public_key(), name("A"), ka, ca=False, ski=False)
    root = issue(name("Root"), KEY.public_key(), name("Root"), KEY, ca=True)
    with pytest.raises(shangmi.InvalidCertificate, match="cycle"):
        x509.verify_chain(leaf, [a, b], [root])


def test_refuse_unknown_critical_extension(pki: Pki) -> None:
    leaf = (x509.CertificateBuilder().subject_name(name("crit")).issuer_name(pki.inter_name)
            .public_key(KEY.public_key()).serial_number(9).not_valid_before(NOW - DAY).not_valid_after(NOW + DAY)
            .add_extension(x509.UnrecognizedExtension(x509.ObjectIdentifier("1.2.3.4"), b"\x05\x00"), critical=True)
            .sign(pki.inter_key))
    with pytest.raises(shangmi.InvalidCertificate, match="unsupported critical extension 1.2.3.4"):
        x509.verify_chain(leaf, [pki.inter], [pki.root])
    assert isinstance(leaf.extensions.get_extension_for_oid(x509.ObjectIdentifier("1.2.3.4")).value,
                      x509.UnrecognizedExtension)


def test_no_roots() -> None:
    with pytest.raises(shangmi.InvalidCertificate, match="no trust roots"):
        x509.verify_chain(Pki().leaf, [], [])


# -- builders and round trips -------------------------------------------------------


def test_all_extensions_round_trip(pki: Pki) -> None:
    exts: list[tuple[x509.ExtensionType, bool]] = [
        (x509.BasicConstraints(ca=True, path_length=3), True),
        (ku(digital_signature=True, key_agreement=True, decipher_only=True), True),
        (x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH, x509.ExtendedKeyUsageOID.CLIENT_AUTH]), False),
        (x509.SubjectKeyIdentifier(b"\x01" * 20), False),
        (x509.AuthorityKeyIdentifier(b"\x02" * 20, [x509.DirectoryName(pki.root_name)], 12345), False),
        (x509.SubjectAlternativeName([x509.DNSName("例子.example".encode("idna").decode()),
                                      x509.RFC822Name("a@b.cn"), x509.UniformResourceIdentifier("https://x.cn/"),
                                      x509.IPAddress(ipaddress.ip_address("10.0.0.1")),
                                      x509.IPAddress(ipaddress.ip_address("::1")),
                                      x509.RegisteredID(x509.ObjectIdentifier("1.2.3.4"))]), False),
        (x509.CRLDistributionPoints([x509.DistributionPoint([x509.UniformResourceIdentifier("http://crl.cn/a.crl")])]),
         False),
    ]
    b = (x509.CertificateBuilder().subject_name(name("ext")).issuer_name(name("ext")).public_key(KEY.public_key())
         .serial_number(1).not_valid_before(NOW).not_valid_after(NOW + DAY))
    for v, c in exts:
        b = b.add_extension(v, critical=c)
    cert = b.sign(KEY)
    got = list(x509.load_der_x509_certificate(cert.to_der()).extensions)
    assert [(e.oid, e.critical, e.value) for e in got] == [(v.oid, c, v) for v, c in exts]
    with pytest.raises(ValueError, match="already been added"):
        b.add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
    cx = pytest.importorskip("cryptography.x509")
    p = cx.load_der_x509_certificate(cert.to_der())
    assert p.extensions.get_extension_for_class(cx.BasicConstraints).value.path_length == 3
    assert p.extensions.get_extension_for_class(cx.KeyUsage).value.decipher_only


def test_builder_is_immutable_and_checks() -> None:
    b = x509.CertificateBuilder()
    b2 = b.subject_name(name("x"))
    assert b._subject is None and b2._subject is not None
    with pytest.raises(shangmi.InvalidInputError, match="needs issuer_name"):
        b2.sign(KEY)
    with pytest.raises(shangmi.InvalidInputError, match="positive"):
        b.serial_number(0)
    with pytest.raises(shangmi.InvalidInputError, match="positive"):
        b.serial_number(-5)
    full = (b2.issuer_name(name("x")).public_key(KEY.public_key()).not_valid_before(NOW)
            .not_valid_after(NOW + DAY))
    with pytest.raises(shangmi.InvalidInputError, match="serial number too large"):
        full.serial_number(1 << 159).sign(KEY)
    cert = full.serial_number((1 << 159) - 1).sign(KEY)
    assert cert.serial_number == (1 << 159) - 1 and len(cert.signature) >= 8


class _HsmSigner:
    """A Signer that is not an sm2.PrivateKey (like a hardware key)."""

    def __init__(self) -> None:
        self._k = sm2.PrivateKey.generate()
        self.calls = 0

    def public_key(self) -> sm2.PublicKey:
        return self._k.public_key()

    def sign_digest(self, digest: bytes) -> bytes:
        self.calls += 1
        return self._k.sign_digest(digest)


def test_signer_protocol() -> None:
    s = _HsmSigner()
    cert = issue(name("hsm"), s.public_key(), name("hsm"), s, ca=True)  # type: ignore[arg-type]
    assert s.calls == 1
    cert.verify_directly_issued_by(cert, uid=GM)

    class Bad(_HsmSigner):
        def sign_digest(self, digest: bytes) -> bytes:
            return b"\x00" * 64

    with pytest.raises(shangmi.InvalidInputError, match="not a DER SM2 signature"):
        issue(name("bad"), s.public_key(), name("bad"), Bad(), ca=True)  # type: ignore[arg-type]


def test_dates_outside_utctime_range() -> None:
    for before, after in [(dt.datetime(1901, 1, 1, tzinfo=UTC), dt.datetime(1949, 12, 31, 23, 59, 59, tzinfo=UTC)),
                          (dt.datetime(1950, 1, 1, tzinfo=UTC), dt.datetime(2049, 12, 31, 23, 59, 59, tzinfo=UTC)),
                          (dt.datetime(2050, 1, 1, tzinfo=UTC), dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)),
                          (dt.datetime(1960, 6, 1, tzinfo=UTC), dt.datetime(2060, 6, 1, tzinfo=UTC))]:
        cert = issue(name("dates"), KEY.public_key(), name("dates"), KEY, before=before, after=after)
        assert cert.not_valid_before_utc == before and cert.not_valid_after_utc == after
        tbs = cert.tbs_certificate_bytes
        for when in (before, after):
            utc = 1950 <= when.year < 2050
            text = when.strftime("%y%m%d%H%M%SZ" if utc else "%Y%m%d%H%M%SZ").encode()
            assert (b"\x17\x0d" if utc else b"\x18\x0f") + text in tbs
        cx = pytest.importorskip("cryptography.x509")
        assert cx.load_der_x509_certificate(cert.to_der()).not_valid_before_utc == before


def test_names_chinese_multivalued_and_types() -> None:
    n = Name([
        NameAttribute(NameOID.COUNTRY_NAME, "CN"),
        NameAttribute(NameOID.STATE_OR_PROVINCE_NAME, "北京市"),
        RelativeDistinguishedName([NameAttribute(NameOID.ORGANIZATION_NAME, "中国银行"),
                                   NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, "研发部")]),
        NameAttribute(NameOID.COMMON_NAME, "张三, \"测试\""),
        NameAttribute(NameOID.EMAIL_ADDRESS, "z@example.cn"),
    ])
    cert = issue(n, KEY.public_key(), n, KEY)
    back = x509.load_der_x509_certificate(cert.to_der()).subject
    assert back == n and back.rdns[2] == n.rdns[2] and len(back.rdns[2]) == 2
    assert [a.value for a in back.get_attributes_for_oid(NameOID.COMMON_NAME)] == ["张三, \"测试\""]
    cx = pytest.importorskip("cryptography.x509")
    assert cx.load_der_x509_certificate(cert.to_der()).subject.rfc4514_string() == back.rfc4514_string()
    assert back.rfc4514_string().startswith('1.2.840.113549.1.9.1=z@example.cn,CN=张三\\, \\"测试\\"')
    with pytest.raises(shangmi.InvalidInputError, match="2 letters"):
        Name([NameAttribute(NameOID.COUNTRY_NAME, "中国")]).public_bytes()
    bmp = Name([NameAttribute(NameOID.COMMON_NAME, "宽字符", _type="bmp")])
    assert Name._from_der(bmp.public_bytes()).rfc4514_string() == "CN=宽字符"
    # matching is case- and space-insensitive (RFC 5280)
    assert Name([NameAttribute(NameOID.COMMON_NAME, "Some  CA")]) == Name([NameAttribute(NameOID.COMMON_NAME, "some ca")])


_text = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), min_size=1, max_size=20)


@given(cn=_text, o=_text, serial=st.integers(1, (1 << 159) - 1),
       before=st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(9000, 1, 1)),
       span=st.integers(0, 10**9), ca=st.booleans(), path=st.none() | st.integers(0, 10))
def test_certificate_round_trip(cn: str, o: str, serial: int, before: dt.datetime, span: int, ca: bool,
                                path: int | None) -> None:
    before = before.replace(microsecond=0, tzinfo=UTC)
    after = before + dt.timedelta(seconds=span)
    n = Name([RelativeDistinguishedName([NameAttribute(NameOID.ORGANIZATION_NAME, o),
                                         NameAttribute(NameOID.ORGANIZATIONAL_UNIT_NAME, cn)]),
              NameAttribute(NameOID.COMMON_NAME, cn)])
    cert = issue(n, KEY.public_key(), n, KEY, ca=ca, path_length=path if ca else None, serial=serial,
                 before=before, after=after)
    back = x509.load_pem_x509_certificate(cert.to_pem())
    assert back == cert and back.subject == n and back.serial_number == serial
    assert (back.not_valid_before_utc, back.not_valid_after_utc) == (before, after)
    bc = back.extensions.get_extension_for_class(x509.BasicConstraints).value
    assert (bc.ca, bc.path_length) == (ca, path if ca else None)
    back.verify_directly_issued_by(back, uid=GM)


@given(cn=_text, serials=st.lists(st.integers(1, (1 << 159) - 1), max_size=5, unique=True))
def test_csr_and_crl_round_trip(cn: str, serials: list[int]) -> None:
    n = Name([NameAttribute(NameOID.COMMON_NAME, cn)])
    csr = (x509.CertificateSigningRequestBuilder().subject_name(n)
           .add_extension(x509.SubjectAlternativeName([x509.DNSName("a.cn")]), critical=False).sign(KEY))
    back = x509.load_pem_x509_csr(csr.to_pem())
    assert back.subject == n and back.public_key() == KEY.public_key()
    back.verify(uid=GM)
    assert list(back.extensions)[0].value == x509.SubjectAlternativeName([x509.DNSName("a.cn")])
    b = x509.CertificateRevocationListBuilder().issuer_name(n).last_update(NOW).next_update(NOW + DAY)
    for s in serials:
        b = b.add_revoked_certificate(x509.RevokedCertificateBuilder().serial_number(s).revocation_date(NOW).build())
    crl = x509.load_der_x509_crl(b.sign(KEY).to_der())
    assert [r.serial_number for r in crl] == serials
    assert crl.issuer == n and crl.last_update_utc == NOW and crl.next_update_utc == NOW + DAY
    assert crl.is_signature_valid(KEY.public_key(), uid=GM)


# -- bad input -----------------------------------------------------------------------


def test_bad_der_is_a_clear_error(pki: Pki) -> None:
    der = pki.leaf.to_der()
    for bad, msg in [(der[:-1], "truncated"), (der + b"\x00", "trailing"), (b"", "truncated"),
                     (b"\x30\x80" + der[2:], "indefinite"), (b"\x04\x00", "expected tag")]:
        with pytest.raises(shangmi.InvalidInputError, match=msg):
            x509.load_der_x509_certificate(bad)
    for cut in range(0, len(der), 7):
        with pytest.raises(shangmi.ShangmiError):
            x509.load_der_x509_certificate(der[:cut])
    for i in range(0, len(der), 3):
        flipped = bytearray(der)
        flipped[i] ^= 0x41
        try:
            c = x509.load_der_x509_certificate(bytes(flipped))
        except shangmi.ShangmiError:
            continue
        with pytest.raises(shangmi.ShangmiError):
            x509.verify_chain(c, [pki.inter], [pki.root])
    with pytest.raises(shangmi.InvalidInputError, match="PEM"):
        x509.load_pem_x509_certificate(b"nothing here")
    with pytest.raises(shangmi.InvalidInputError, match="expected a 'CERTIFICATE'"):
        x509.load_pem_x509_certificate(pki.leaf.to_pem().replace(b"CERTIFICATE", b"X509 CRL"))


def _rebuild(cert: x509.Certificate, old: bytes, new: bytes) -> bytes:
    """The certificate DER with one fragment of the TBS replaced (lengths fixed up)."""
    tbs = cert.tbs_certificate_bytes
    assert old in tbs
    hdr = 2 if tbs[1] < 0x80 else 2 + (tbs[1] & 0x7F)
    body = tbs[hdr:].replace(old, new, 1)
    def tlv(tag: int, v: bytes) -> bytes:
        n = len(v)
        ln = bytes([n]) if n < 128 else (bytes([0x81, n]) if n < 256 else bytes([0x82, n >> 8, n & 255]))
        return bytes([tag]) + ln + v
    new_tbs = tlv(0x30, body)
    der = cert.to_der()
    outer = 2 if der[1] < 0x80 else 2 + (der[1] & 0x7F)
    return tlv(0x30, new_tbs + der[outer + len(tbs):])


def test_negative_and_oversized_serials() -> None:
    cert = issue(name("s"), KEY.public_key(), name("s"), KEY, serial=0x11223344, ski=False)
    with pytest.raises(shangmi.InvalidInputError, match="negative serial"):
        x509.load_der_x509_certificate(_rebuild(cert, b"\x02\x04\x11\x22\x33\x44", b"\x02\x04\x91\x22\x33\x44"))
    with pytest.raises(shangmi.InvalidInputError, match="serial number of 22 octets"):
        x509.load_der_x509_certificate(_rebuild(cert, b"\x02\x04\x11\x22\x33\x44", b"\x02\x16" + b"\x11" * 22))
    # GmSSL-style 21-octet serials (20 random octets with a sign byte) still read
    c = x509.load_der_x509_certificate(_rebuild(cert, b"\x02\x04\x11\x22\x33\x44", b"\x02\x15\x00" + b"\x91" * 20))
    assert c.serial_number == int.from_bytes(b"\x91" * 20, "big")
    with pytest.raises(shangmi.InvalidInputError, match="non-minimal"):
        x509.load_der_x509_certificate(_rebuild(cert, b"\x02\x04\x11\x22\x33\x44", b"\x02\x05\x00\x11\x22\x33\x44"))


def test_wrong_oids() -> None:
    cert = issue(name("o"), KEY.public_key(), name("o"), KEY, ski=False)
    sm2_with_sm3 = bytes.fromhex("06082a811ccf55018375")
    assert sm2_with_sm3 in cert.tbs_certificate_bytes
    ecdsa = bytes.fromhex("06082a8648ce3d040302")  # ecdsa-with-SHA256, same length
    der = cert.to_der().replace(sm2_with_sm3, ecdsa)
    c = x509.load_der_x509_certificate(der)
    with pytest.raises(shangmi.InvalidInputError, match="unsupported signature algorithm 1.2.840.10045.4.3.2"):
        c.verify_directly_issued_by(c)
    inner_only = _rebuild(cert, sm2_with_sm3, ecdsa)
    with pytest.raises(shangmi.InvalidInputError, match="inside and outside"):
        x509.load_der_x509_certificate(inner_only).verify_directly_issued_by(cert)
    p256 = cert.to_der().replace(bytes.fromhex("06082a811ccf5501822d"), bytes.fromhex("06082a8648ce3d030107"))
    with pytest.raises(shangmi.InvalidKey, match="not an SM2 key"):
        x509.load_der_x509_certificate(p256).public_key()


def test_deep_nesting_and_huge_input() -> None:
    deep = b"".join(b"\x30\x84" + (10**6 - 6 * i).to_bytes(4, "big") for i in range(100_000))
    with pytest.raises(shangmi.InvalidInputError):
        x509.load_der_x509_certificate(deep)
    nested = b"\x30\x02" * 1
    for _ in range(2000):
        nested = b"\x30\x82" + len(nested).to_bytes(2, "big") + nested if len(nested) < 65000 else nested
    with pytest.raises(shangmi.InvalidInputError):
        x509.load_der_x509_certificate(nested)
    with pytest.raises(shangmi.InvalidInputError):
        x509.load_der_x509_crl(b"\x30\x84\xff\xff\xff\xff")


def test_pickle_and_hash(pki: Pki) -> None:
    import pickle

    c = pickle.loads(pickle.dumps(pki.leaf))
    assert c == pki.leaf and hash(c) == hash(pki.leaf) and len({c, pki.leaf}) == 1


def test_bare_sm2_algorithm_spki_is_read() -> None:
    """Some tools write the SPKI algorithm as the SM2 OID alone (no id-ecPublicKey)."""
    cert = issue(name("bare"), KEY.public_key(), name("bare"), KEY, ski=False)
    std = bytes.fromhex("3059301306072a8648ce3d020106082a811ccf5501822d0342")
    bare = bytes.fromhex("3050300a06082a811ccf5501822d0342")
    c = x509.load_der_x509_certificate(_rebuild(cert, std, bare))
    assert c.public_key() == KEY.public_key()
    with pytest.raises(shangmi.InvalidSignature):  # the signed bytes changed
        c.verify_directly_issued_by(cert, uid=GM)


def test_name_hash_matches_equality() -> None:
    a = Name([NameAttribute(NameOID.COMMON_NAME, "Some  CA")])
    b = Name([NameAttribute(NameOID.COMMON_NAME, "some ca")])
    assert a == b and hash(a) == hash(b)


def test_public_bytes_pyca_spelling(pki: Pki) -> None:
    ser = pytest.importorskip("cryptography.hazmat.primitives.serialization")
    assert pki.leaf.public_bytes(ser.Encoding.DER) == pki.leaf.to_der()
    assert pki.leaf.public_bytes("pem") == pki.leaf.to_pem()
    with pytest.raises(shangmi.InvalidInputError):
        pki.leaf.public_bytes("text")
