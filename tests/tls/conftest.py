"""Fixtures for TLS tests: the TLCP test PKI and the real peers.

- ``tlcp_pki``: tests/vectors/tlcp (made by Tongsuo; see its README.md).
- ``tongsuo``: the ``tongsuo_peer`` module (Tongsuo's NTLS from PyPI's
  ``tongsuopy`` over ctypes); skips the test when tongsuopy is missing
  (``pip install shangmi[test]``).
- ``tongsuo_server``: a factory starting :class:`tongsuo_peer.TongsuoServer`
  instances that are stopped after the test, whatever happens.
- ``openssl4``: the ``openssl4_peer`` module (the OpenSSL 4 inside PyPI's
  ``cryptography``, driven by ``pyOpenSSL``); fails in CI and skips elsewhere
  when pyOpenSSL is missing, as ``tongsuo`` does.
- ``gmssl_bin`` / ``tongsuo_bin``: GmSSL's ``gmssl`` and Tongsuo's ``openssl``
  from ``$SHANGMI_GMSSL`` / ``$SHANGMI_TONGSUO`` (built by scripts/peers.sh);
  the test is skipped when the variable is unset.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

TLS_DIR = Path(__file__).parent
TLCP_PKI = TLS_DIR.parent / "vectors" / "tlcp"
TLCP_PASSWORD = "shangmi-test"  # every *.enc-key.pem and *-gmssl-keys.pem

if str(TLS_DIR) not in sys.path:
    sys.path.insert(0, str(TLS_DIR))


@pytest.fixture(scope="session")
def tlcp_pki() -> Path:
    return TLCP_PKI


@pytest.fixture(scope="session")
def tongsuo() -> ModuleType:
    import tongsuo_peer

    if not tongsuo_peer.available():
        if os.environ.get("CI"):
            pytest.fail("CI must have tongsuopy (the test extra): the live Tongsuo peer is not optional there")
        pytest.skip("tongsuopy is not installed (pip install shangmi[test])")
    return tongsuo_peer


@pytest.fixture(scope="session")
def openssl4() -> ModuleType:
    import openssl4_peer

    if not openssl4_peer.available():
        if os.environ.get("CI"):
            pytest.fail("CI must have pyOpenSSL (the test extra): the live OpenSSL 4 peer is not optional there")
        pytest.skip("pyOpenSSL is not installed (pip install shangmi[test])")
    return openssl4_peer


@pytest.fixture
def tongsuo_server(tongsuo: ModuleType) -> Iterator[Callable[..., Any]]:
    started: list[Any] = []

    def start(cert_dir: str | os.PathLike[str] | None = TLCP_PKI, suite: str = "ECC-SM2-SM4-GCM-SM3",
              **kwargs: Any) -> Any:
        srv = tongsuo.TongsuoServer(cert_dir, suite, **kwargs)
        started.append(srv)
        return srv.start()

    yield start
    for srv in started:
        srv.stop()


def _binary(var: str) -> str:
    path = os.environ.get(var)
    if not path:
        pytest.skip(f"${var} not set (scripts/peers.sh builds the peer)")
    if not os.access(path, os.X_OK):
        pytest.fail(f"${var}={path} is not an executable")
    return path


@pytest.fixture(scope="session")
def gmssl_bin() -> str:
    return _binary("SHANGMI_GMSSL")


@pytest.fixture(scope="session")
def tongsuo_bin() -> str:
    return _binary("SHANGMI_TONGSUO")
