"""The exceptions shangmi raises.

Every exception derives from :class:`ShangmiError`. Problems with the
arguments you passed (wrong lengths, malformed encodings, out-of-range
values) also derive from :class:`ValueError`, so code written for hashlib or
pyca/cryptography keeps catching them.
"""

from __future__ import annotations

__all__ = [
    "ShangmiError",
    "InvalidInputError",
    "InvalidKey",
    "InvalidTag",
    "InvalidSignature",
    "DecryptionError",
]


class ShangmiError(Exception):
    """Base class of every exception raised by shangmi."""


class InvalidInputError(ShangmiError, ValueError):
    """An argument has the wrong length, range or encoding."""


class InvalidKey(ShangmiError, ValueError):
    """A key is malformed, out of range, or not a valid curve point."""


class InvalidTag(ShangmiError):
    """An authentication tag (AEAD or MAC) did not match; nothing is released."""


class InvalidSignature(ShangmiError):
    """A signature did not verify."""


class DecryptionError(ShangmiError, ValueError):
    """Public-key decryption failed. The message is deliberately uninformative."""


# Not yet in __all__: the package root does not re-export it yet (the lead's
# merge adds it to shangmi/__init__.py and __all__ together).
class AlreadyFinalized(ShangmiError, RuntimeError):
    """A streaming context was used after ``finalize()``. (Also a RuntimeError,
    which is what earlier versions raised.)"""
