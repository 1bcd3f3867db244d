"""The exceptions shangmi raises.

Every exception derives from :class:`ShangmiError`. Problems with the
arguments you passed (wrong lengths, malformed encodings, out-of-range
values) also derive from :class:`ValueError`, and arguments of the wrong
type raise :class:`ShangmiTypeError`, which is also a :class:`TypeError`, so
code written for hashlib or pyca/cryptography keeps catching them.

These classes are the ones the native core raises too: the extension imports
them from here once (``import_exception!``), so there is one hierarchy.
"""

from __future__ import annotations

import ssl as _ssl

__all__ = [
    "ShangmiError",
    "InvalidInputError",
    "ShangmiTypeError",
    "InvalidKey",
    "InvalidTag",
    "InvalidSignature",
    "DecryptionError",
    "InvalidCertificate",
    "AlreadyFinalized",
    "NotYetFinalized",
    "ExtensionNotFound",
    "TLSError",
    "CertificateVerifyError",
    "TLSWantReadError",
    "TLSWantWriteError",
    "UnsupportedAlgorithm",
]


class ShangmiError(Exception):
    """Base class of every exception raised by shangmi."""

    def add_note(self, note: str, /) -> None:
        # The native module's argument conversion names the argument it
        # could not convert in a note ("while processing 'key'", added by
        # PyO3); the name leads the message instead ("key: expected ...").
        if note.startswith("while processing '") and note.endswith("'") and len(self.args) == 1:
            self.args = (f"{note[18:-1]}: {self.args[0]}",)
            return
        super().add_note(note)


class InvalidInputError(ShangmiError, ValueError):
    """An argument has the wrong length, range or encoding."""


class ShangmiTypeError(ShangmiError, TypeError):
    """An argument has the wrong type (for example ``str`` where bytes are expected)."""


class InvalidKey(ShangmiError, ValueError):
    """A key is malformed, out of range, or not a valid curve point."""


class InvalidTag(ShangmiError):
    """An authentication tag (AEAD or MAC) did not match; nothing is released."""


class InvalidSignature(ShangmiError):
    """A signature did not verify."""


class DecryptionError(ShangmiError, ValueError):
    """Public-key decryption failed. The message is deliberately uninformative."""


class InvalidCertificate(ShangmiError):
    """A certificate, chain, CRL or signed message is well-formed but not
    acceptable (bad signature in a chain, expired, not a CA, revoked, ...);
    the message names the certificate and the reason."""


class AlreadyFinalized(ShangmiError, RuntimeError):
    """A streaming object was used after ``finalize()``. (Also a
    :class:`RuntimeError`, which is what earlier versions raised.)"""


class NotYetFinalized(ShangmiError, RuntimeError):
    """A result that exists only after ``finalize()`` (a GCM tag) was asked
    for before it. (Also a :class:`RuntimeError`, which is what earlier
    versions raised.)"""


class ExtensionNotFound(ShangmiError, KeyError):
    """A certificate, request or CRL has no extension of the kind asked for
    (pyca's name; also a :class:`KeyError`, which is what earlier versions
    raised)."""


class TLSError(ShangmiError, _ssl.SSLError):
    """A TLCP or TLS channel failed: a protocol error, a record that did not
    authenticate, an alert from the peer ("received fatal alert: ...").
    Also an :class:`ssl.SSLError`, so code written for ``ssl`` (asyncio,
    HTTP clients) handles it as it handles theirs."""

    __str__ = Exception.__str__


class CertificateVerifyError(TLSError, _ssl.SSLCertVerificationError):
    """The peer's certificates were refused; the message names what failed
    (untrusted issuer, expired, host name mismatch, key usage, ...). Also an
    :class:`ssl.SSLCertVerificationError` (so a :class:`ValueError`)."""

    __str__ = Exception.__str__


class TLSWantReadError(TLSError, _ssl.SSLWantReadError):
    """A non-blocking channel needs bytes from the network before it can go
    on (as :class:`ssl.SSLWantReadError`): retry when the socket is readable."""

    __str__ = Exception.__str__


class TLSWantWriteError(TLSError, _ssl.SSLWantWriteError):
    """A non-blocking channel has bytes for the network it could not send yet
    (as :class:`ssl.SSLWantWriteError`): retry when the socket is writable."""

    __str__ = Exception.__str__
class UnsupportedAlgorithm(ShangmiError, ValueError):
    """Well-formed input that uses an algorithm or key type shangmi does not
    implement, such as an RSA key in a PKCS#12 file (pyca's name)."""
