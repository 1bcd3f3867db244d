"""CRL freshness in verify_chain (RFC 5280 6.3.3): a CRL past its nextUpdate
or before its thisUpdate does not establish status unless the caller allows
staleness. Fixtures made by the OpenSSL 3 CLI (tests/vectors/crl/generate.sh);
the leaf is revoked on every list, so a list that is used says "revoked"."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from _pki import DAY, NOW, Pki

import shangmi
from shangmi import x509

HERE = Path(__file__).parent / "vectors" / "crl"
UTC = dt.timezone.utc
AT = dt.datetime(2030, 1, 1, tzinfo=UTC)
STALE_NEXT = dt.datetime(2022, 6, 4, tzinfo=UTC)


def _load(name: str) -> bytes:
    return (HERE / name).read_bytes()


CA = x509.load_pem_x509_certificate(_load("ca.pem"))
LEAF = x509.load_pem_x509_certificate(_load("leaf.pem"))


def _verify(crl: str, **kw: object) -> list[x509.Certificate]:
    return x509.verify_chain(LEAF, [], [CA], at=AT, crls=[x509.load_pem_x509_crl(_load(crl))], **kw)  # type: ignore[arg-type]


def test_current_crl_is_used() -> None:
    with pytest.raises(shangmi.InvalidCertificate, match="revoked"):
        _verify("current.crl.pem")


def test_stale_crl_refused_naming_issuer_and_dates() -> None:
    with pytest.raises(shangmi.InvalidCertificate) as e:
        _verify("stale.crl.pem")
    m = str(e.value)
    assert "has expired" in m and "CN=CRL Test CA" in m and "2022-06-04" in m and "2020-01-01" in m
    assert "crl_max_staleness=" in m


def test_stale_crl_with_allowance() -> None:
    enough = AT - STALE_NEXT
    with pytest.raises(shangmi.InvalidCertificate, match="revoked \\("):
        _verify("stale.crl.pem", crl_max_staleness=enough)
    with pytest.raises(shangmi.InvalidCertificate, match="has expired"):
        _verify("stale.crl.pem", crl_max_staleness=enough - dt.timedelta(seconds=1))
    with pytest.raises(shangmi.InvalidCertificate, match="revoked \\("):
        _verify("stale.crl.pem", crl_max_staleness=dt.timedelta.max)


def test_future_crl_refused_even_with_allowance() -> None:
    for kw in ({}, {"crl_max_staleness": dt.timedelta.max}):
        with pytest.raises(shangmi.InvalidCertificate, match="not yet valid.*2040-01-01"):
            _verify("future.crl.pem", **kw)


def test_allowance_type_and_range() -> None:
    with pytest.raises(shangmi.ShangmiTypeError):
        _verify("current.crl.pem", crl_max_staleness=5)
    with pytest.raises(shangmi.ShangmiError):
        _verify("current.crl.pem", crl_max_staleness=-DAY)


def test_builder_crl_past_next_update() -> None:
    pki = Pki()
    crl = (
        x509.CertificateRevocationListBuilder()
        .issuer_name(pki.inter_name)
        .last_update(NOW - 3 * DAY)
        .next_update(NOW - DAY)
        .sign(pki.inter_key)
    )
    with pytest.raises(shangmi.InvalidCertificate, match="has expired"):
        x509.verify_chain(pki.leaf, [pki.inter], [pki.root], crls=[crl])
    assert len(x509.verify_chain(pki.leaf, [pki.inter], [pki.root], crls=[crl], crl_max_staleness=2 * DAY)) == 3
