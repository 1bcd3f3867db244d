"""shangmi: the Chinese commercial cryptography suite for Python.

SM2 (signatures, encryption, key exchange), SM3 (hash, HMAC, KDF), SM4 (block
cipher and modes), ZUC (stream cipher, EEA3/EIA3); a Rust core behind a typed,
Pythonic API.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from shangmi import sm2, sm3, sm4, sm9, zuc
from shangmi._cpu import CpuFeatures, cpu_features
from shangmi.exceptions import (
    DecryptionError,
    InvalidInputError,
    InvalidKey,
    InvalidSignature,
    InvalidTag,
    ShangmiError,
)

try:
    __version__ = version("shangmi")
except PackageNotFoundError:  # running from a source tree without install
    __version__ = "0.0.0"

__all__ = [
    "sm2",
    "sm3",
    "sm4",
    "sm9",
    "zuc",
    "cpu_features",
    "CpuFeatures",
    "ShangmiError",
    "InvalidInputError",
    "InvalidKey",
    "InvalidTag",
    "InvalidSignature",
    "DecryptionError",
    "__version__",
]
