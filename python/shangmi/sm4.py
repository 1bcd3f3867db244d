"""SM4 block cipher (GB/T 32907-2016) and its modes of operation.

Every class takes its key once and can then be used for any number of
messages. Keys, IVs, nonces and data are bytes-like (bytes, bytearray,
memoryview, or any object with the buffer protocol); anything else raises
:class:`shangmi.ShangmiTypeError` (a :class:`TypeError`). Wrong sizes raise
:class:`ValueError` subclasses (:class:`shangmi.InvalidKey`,
:class:`shangmi.InvalidInputError`) with a message saying what was expected;
failed authentication raises :class:`shangmi.InvalidTag`.

======================  ====================================================
``SM4(key)``            the raw block function (``encrypt_block``)
``SM4ECB(key)``         ECB, PKCS#7 padding by default
``SM4CBC(key)``         CBC, PKCS#7 padding by default
``SM4CTR(key)``         CTR, the whole 16-byte IV is a big-endian counter
``SM4CFB(key)``         CFB with 128-bit feedback
``SM4OFB(key)``         OFB
``SM4GCM(key)``         GCM (nonce >= 1 byte, 12 recommended; tag 4, 8, 12-16)
``SM4CCM(key)``         CCM (nonce 7-13 bytes; tag 4-16 bytes, even)
``SM4XTS(key32)``       XTS, ``standard="gb"`` (GB/T 17964-2021) or ``"ieee"``
======================  ====================================================

Streaming (for data that does not fit in memory), shaped like pyca's
``CipherContext``: ``SM4CBC.encryptor(iv)``, ``.decryptor(iv)``,
``SM4CTR.encryptor(iv)``, ``SM4GCM.encryptor(nonce, aad)`` (its
``finalize()`` returns ``b""`` and sets ``.tag``) and
``SM4GCM.decryptor(nonce, tag, aad)`` (tag given up front, checked by
``finalize()``) or ``SM4GCM.decryptor(nonce, aad=aad)`` then
``finalize_with_tag(tag)`` when the tag trails the stream. Both raise
:class:`shangmi.InvalidTag` on mismatch, and the plaintext returned by
``update()`` must be discarded in that case.

Backends (x86-64, fastest first): GFNI on AVX-512 or AVX2 registers, VAES or
AES-NI on AVX-512, VAES on AVX2 registers (CPUs with VAES but no AVX-512, such
as AMD Zen 3), AES-NI on AVX2 or SSE registers; elsewhere a constant-time
bitsliced portable implementation. ``backend()`` says which one runs, and
``SHANGMI_CPU_DISABLE`` (e.g. ``gfni``, ``avx512f``, ``avx512f,avx2``, ``all``)
in the environment before the first import masks the faster ones (see
:func:`shangmi.cpu_features`). GHASH uses VPCLMULQDQ (on 512- or 256-bit
registers) or PCLMULQDQ where present, a constant-time portable
multiplication otherwise.
"""

from __future__ import annotations

from typing import Iterable, List, NoReturn, Optional, Tuple

from shangmi import _native
from shangmi._buffer import Buffer
from shangmi.exceptions import NotYetFinalized, ShangmiTypeError

__all__ = [
    "SM4",
    "SM4ECB",
    "SM4CBC",
    "SM4CTR",
    "SM4CFB",
    "SM4OFB",
    "SM4GCM",
    "SM4CCM",
    "SM4XTS",
    "CipherContext",
    "GCMEncryptionContext",
    "GCMDecryptionContext",
    "BLOCK_SIZE",
    "KEY_SIZE",
    "backend",
]

BLOCK_SIZE = 16
KEY_SIZE = 16


def backend() -> str:
    """Name of the SM4 kernel in use, ``<engine>-<width>``: ``"gfni-512"``,
    ``"vaes-512"``, ``"aesni-512"``, ``"gfni-256"``, ``"vaes-256"``,
    ``"aesni-256"``, ``"aesni-128"`` or ``"portable-64"``."""
    return _native.sm4_backend()


def _no_pickle(obj: object) -> NoReturn:
    # A key object never crosses a process boundary by accident.
    raise ShangmiTypeError(f"{type(obj).__name__} objects hold a secret key and cannot be pickled")


class _Keyed:
    __slots__ = ("_c",)

    def __init__(self, key: Buffer) -> None:
        self._c = _native.Sm4Cipher(key)

    def __repr__(self) -> str:
        return f"<shangmi.sm4.{type(self).__name__} object>"

    def __reduce__(self) -> NoReturn:
        _no_pickle(self)


class SM4(_Keyed):
    """The SM4 block function on single 16-byte blocks."""

    __slots__ = ()

    def encrypt_block(self, block: Buffer) -> bytes:
        """Encrypt one 16-byte block."""
        return self._c.encrypt_block(block)

    def decrypt_block(self, block: Buffer) -> bytes:
        """Decrypt one 16-byte block."""
        return self._c.decrypt_block(block)


class CipherContext:
    """A streaming encryption or decryption (``update`` then ``finalize`` once)."""

    __slots__ = ("_s",)

    def __init__(self, stream: _native.Sm4Stream) -> None:
        self._s = stream

    def update(self, data: Buffer) -> bytes:
        """Process more data; returns the output available so far."""
        return self._s.update(data)

    def finalize(self) -> bytes:
        """Finish: returns the remaining output (the padded last block for CBC)."""
        return self._s.finalize()


class SM4ECB(_Keyed):
    """SM4 in ECB mode (each block on its own: leaks equal blocks; legacy use only)."""

    __slots__ = ()

    def encrypt(self, data: Buffer, padding: bool = True) -> bytes:
        """Encrypt; with ``padding=False`` the data must be whole 16-byte blocks."""
        return self._c.ecb_encrypt(data, padding)

    def decrypt(self, data: Buffer, padding: bool = True) -> bytes:
        """Decrypt; with ``padding=True`` bad PKCS#7 padding raises ValueError."""
        return self._c.ecb_decrypt(data, padding)


class SM4CBC(_Keyed):
    """SM4 in CBC mode with PKCS#7 padding by default."""

    __slots__ = ()

    def encrypt(self, iv: Buffer, data: Buffer, padding: bool = True) -> bytes:
        """Encrypt under a 16-byte IV (use a fresh random IV per message)."""
        return self._c.cbc_encrypt(iv, data, padding)

    def decrypt(self, iv: Buffer, data: Buffer, padding: bool = True) -> bytes:
        """Decrypt; with ``padding=True`` bad PKCS#7 padding raises ValueError."""
        return self._c.cbc_decrypt(iv, data, padding)

    def encrypt_many(self, items: Iterable[Tuple[Buffer, Buffer]], *, padding: bool = True) -> List[bytes]:
        """Encrypt independent ``(iv, data)`` messages; the result equals calling
        :meth:`encrypt` on each, but up to 64 messages are encrypted side by side
        (CBC encryption is serial within one message). An error names the index
        of the bad message."""
        return self._c.cbc_encrypt_many(items, padding)

    def decrypt_many(self, items: Iterable[Tuple[Buffer, Buffer]], *, padding: bool = True) -> List[bytes]:
        """Decrypt independent ``(iv, ciphertext)`` messages, as :meth:`decrypt`
        on each."""
        return self._c.cbc_decrypt_many(items, padding)

    def encryptor(self, iv: Buffer, padding: bool = True) -> CipherContext:
        """Streaming encryption; ``finalize()`` returns the padded last block."""
        return CipherContext(self._c.cbc_encryptor(iv, padding))

    def decryptor(self, iv: Buffer, padding: bool = True) -> CipherContext:
        """Streaming decryption; the last block is held back until ``finalize()``."""
        return CipherContext(self._c.cbc_decryptor(iv, padding))


class SM4CTR(_Keyed):
    """SM4 in CTR mode; the 16-byte IV is the first counter block, incremented
    as a 128-bit big-endian integer. Never reuse an IV with the same key."""

    __slots__ = ()

    def encrypt(self, iv: Buffer, data: Buffer) -> bytes:
        """Encrypt any number of bytes."""
        return self._c.ctr(iv, data)

    def decrypt(self, iv: Buffer, data: Buffer) -> bytes:
        """Decrypt (the same operation as encryption)."""
        return self.encrypt(iv, data)

    def encryptor(self, iv: Buffer) -> CipherContext:
        """Streaming encryption in pieces of any size."""
        return CipherContext(self._c.ctr_stream(iv))

    def decryptor(self, iv: Buffer) -> CipherContext:
        """Streaming decryption in pieces of any size."""
        return self.encryptor(iv)


class SM4CFB(_Keyed):
    """SM4 in CFB mode with 128-bit feedback (the last segment may be partial)."""

    __slots__ = ()

    def encrypt(self, iv: Buffer, data: Buffer) -> bytes:
        """Encrypt any number of bytes under a 16-byte IV."""
        return self._c.cfb_encrypt(iv, data)

    def decrypt(self, iv: Buffer, data: Buffer) -> bytes:
        """Decrypt any number of bytes under a 16-byte IV."""
        return self._c.cfb_decrypt(iv, data)


class SM4OFB(_Keyed):
    """SM4 in OFB mode."""

    __slots__ = ()

    def encrypt(self, iv: Buffer, data: Buffer) -> bytes:
        """Encrypt any number of bytes under a 16-byte IV."""
        return self._c.ofb(iv, data)

    def decrypt(self, iv: Buffer, data: Buffer) -> bytes:
        """Decrypt (the same operation as encryption)."""
        return self.encrypt(iv, data)


class GCMEncryptionContext(CipherContext):
    """Streaming GCM encryption; after ``finalize()`` the tag is in ``.tag``."""

    __slots__ = ("_tag",)

    def __init__(self, stream: _native.Sm4Stream) -> None:
        super().__init__(stream)
        self._tag: Optional[bytes] = None

    def finalize(self) -> bytes:
        """Finish; returns ``b""`` (GCM has no held-back data) and sets ``tag``."""
        self._tag = self._s.finalize()
        return b""

    @property
    def tag(self) -> bytes:
        """The authentication tag (available after ``finalize()``)."""
        if self._tag is None:
            raise NotYetFinalized("the tag is available only after finalize()")
        return self._tag


class GCMDecryptionContext(CipherContext):
    """Streaming GCM decryption; ``finalize()`` raises InvalidTag on mismatch.

    ``update()`` returns plaintext before it is authenticated: keep it
    somewhere disposable until ``finalize()`` succeeds.
    """

    __slots__ = ()

    def finalize(self) -> bytes:
        """Check the tag given to ``decryptor()``; returns ``b""`` or raises InvalidTag."""
        return self._s.finalize()

    def finalize_with_tag(self, tag: Buffer) -> bytes:
        """Check ``tag`` (for decryptors created with ``tag=None``, e.g. when the
        tag trails the ciphertext in a stream); returns ``b""`` or raises InvalidTag."""
        return self._s.finalize_with_tag(tag)


class SM4GCM:
    """SM4-GCM AEAD, shaped like pyca's ``AESGCM``.

    ``encrypt`` returns ``ciphertext || tag``; ``decrypt`` takes the same and
    raises :class:`shangmi.InvalidTag` if anything was modified. Nonces must
    never repeat under one key (12 random bytes is the usual choice).
    """

    __slots__ = ("_g", "_tag_length")

    def __init__(self, key: Buffer, tag_length: int = 16) -> None:
        self._g = _native.Sm4Gcm(key, tag_length)
        self._tag_length = tag_length

    @property
    def tag_length(self) -> int:
        """Tag length in bytes."""
        return self._tag_length

    def __reduce__(self) -> NoReturn:
        _no_pickle(self)

    def encrypt(self, nonce: Buffer, data: Buffer, aad: Optional[Buffer] = None) -> bytes:
        """Encrypt and authenticate ``data`` (and ``aad``): ciphertext || tag."""
        return self._g.encrypt(nonce, data, aad)

    def decrypt(self, nonce: Buffer, data: Buffer, aad: Optional[Buffer] = None) -> bytes:
        """Check and decrypt ciphertext || tag; raises InvalidTag on any change."""
        return self._g.decrypt(nonce, data, aad)

    def encryptor(self, nonce: Buffer, aad: Optional[Buffer] = None) -> GCMEncryptionContext:
        """Streaming encryption; the tag is ``ctx.tag`` after ``ctx.finalize()``."""
        return GCMEncryptionContext(self._g.encryptor(nonce, aad))

    def decryptor(
        self, nonce: Buffer, tag: Optional[Buffer] = None, aad: Optional[Buffer] = None
    ) -> GCMDecryptionContext:
        """Streaming decryption. Give ``tag`` here and call ``finalize()``, or
        leave it ``None`` and call ``finalize_with_tag(tag)`` at the end."""
        return GCMDecryptionContext(self._g.decryptor(nonce, tag, aad))


class SM4CCM:
    """SM4-CCM AEAD (nonce 7 to 13 bytes; tag 4 to 16 bytes, even)."""

    __slots__ = ("_c", "_tag_length")

    def __init__(self, key: Buffer, tag_length: int = 16) -> None:
        self._c = _native.Sm4Ccm(key, tag_length)
        self._tag_length = tag_length

    @property
    def tag_length(self) -> int:
        """Tag length in bytes."""
        return self._tag_length

    def __reduce__(self) -> NoReturn:
        _no_pickle(self)

    def encrypt(self, nonce: Buffer, data: Buffer, aad: Optional[Buffer] = None) -> bytes:
        """Encrypt and authenticate: ciphertext || tag."""
        return self._c.encrypt(nonce, data, aad)

    def decrypt(self, nonce: Buffer, data: Buffer, aad: Optional[Buffer] = None) -> bytes:
        """Check and decrypt ciphertext || tag; raises InvalidTag on any change."""
        return self._c.decrypt(nonce, data, aad)


class SM4XTS:
    """SM4-XTS for storage (32-byte key = data key || tweak key).

    ``standard="gb"`` follows GB/T 17964-2021 (tweak multiplied as in GCM),
    ``"ieee"`` follows IEEE Std 1619. Data must be at least 16 bytes; other
    lengths use ciphertext stealing.
    """

    __slots__ = ("_x", "_standard")

    def __init__(self, key: Buffer, standard: str = "gb") -> None:
        self._x = _native.Sm4Xts(key, standard)
        self._standard = standard

    @property
    def standard(self) -> str:
        """``"gb"`` or ``"ieee"``."""
        return self._standard

    def __reduce__(self) -> NoReturn:
        _no_pickle(self)

    def encrypt(self, tweak: Buffer, data: Buffer) -> bytes:
        """Encrypt ``data`` (>= 16 bytes) under a 16-byte tweak (e.g. a sector number)."""
        return self._x.encrypt(tweak, data)

    def decrypt(self, tweak: Buffer, data: Buffer) -> bytes:
        """Decrypt ``data`` (>= 16 bytes) under a 16-byte tweak."""
        return self._x.decrypt(tweak, data)
