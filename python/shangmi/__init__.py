"""shangmi: the Chinese commercial cryptography suite for Python.

SM2 (signatures, encryption, key exchange), SM3 (hash, HMAC, KDF), SM4 (block
cipher and modes), ZUC (stream cipher, EEA3/EIA3); a Rust core behind a typed,
Pythonic API.
"""

from __future__ import annotations

import sys as _sys

from shangmi import cfca, cms, exceptions, ocsp, pkcs12, sm2, sm3, sm4, sm9, tls, x509, zuc
from shangmi._cpu import CpuFeatures, cpu_features, num_threads, set_num_threads
from shangmi.exceptions import (
    AlreadyFinalized,
    CertificateVerifyError,
    DecryptionError,
    ExtensionNotFound,
    InvalidInputError,
    InvalidKey,
    InvalidSignature,
    InvalidCertificate,
    InvalidTag,
    NotYetFinalized,
    ShangmiError,
    ShangmiTypeError,
    TLSError,
    TLSWantReadError,
    TLSWantWriteError,
    UnsupportedAlgorithm,
)

# shangmi.x509.ocsp, pyca's place for OCSP: ocsp is built on x509, so the
# name is set here, above both (see x509.ocsp).
x509.ocsp = ocsp
_sys.modules["shangmi.x509.ocsp"] = ocsp

#: The package version, kept equal to the workspace Cargo.toml's by
#: tests/test_cli_common.py (no importlib.metadata at import: it is slow).
__version__ = "0.1.0"

__all__ = [
    "sm2",
    "sm3",
    "sm4",
    "sm9",
    "zuc",
    "x509",
    "cms",
    "tls",
    "pkcs12",
    "cfca",
    "cpu_features",
    "set_num_threads",
    "num_threads",
    "CpuFeatures",
    "__version__",
]
# Every exception class, listed once (in shangmi.exceptions).
__all__ += exceptions.__all__
