"""``gmssl.sm4.CryptSM4`` on shangmi's SM4: same constants, methods and bytes.

As in gmssl, ``crypt_cbc`` always uses PKCS#7 and ``crypt_ecb`` follows
``padding_mode`` (``PKCS7``, ``ZERO``, anything else: none, whole blocks only).
Differences: keys must be exactly 16 bytes and invalid PKCS#7 padding raises
:class:`shangmi.InvalidInputError` (gmssl silently truncates); ``ZERO``
unpadding strips up to 16 trailing zero bytes.
"""

from __future__ import annotations

from shangmi import sm4 as _sm4
from shangmi._buffer import require_bytes
from shangmi.compat.gmssl.func import zero_padding, zero_unpadding
from shangmi.exceptions import InvalidInputError

__all__ = ["CryptSM4", "SM4_ENCRYPT", "SM4_DECRYPT", "PKCS7", "ZERO"]

SM4_ENCRYPT = 0
SM4_DECRYPT = 1

PKCS7 = 0
ZERO = 1


class CryptSM4:
    """``CryptSM4(mode=SM4_ENCRYPT, padding_mode=PKCS7)``; call ``set_key`` first."""

    def __init__(self, mode: int = SM4_ENCRYPT, padding_mode: int = PKCS7) -> None:
        self.mode = mode
        self.padding_mode = padding_mode
        self._key: bytes | None = None

    def set_key(self, key: bytes, mode: int) -> None:
        """Sets the 16-byte key and the direction (``SM4_ENCRYPT`` or ``SM4_DECRYPT``)."""
        require_bytes(key, "key")
        if len(key) != 16:
            raise InvalidInputError(f"SM4 key must be 16 bytes, got {len(key)}")
        if mode not in (SM4_ENCRYPT, SM4_DECRYPT):
            raise InvalidInputError(f"mode must be SM4_ENCRYPT (0) or SM4_DECRYPT (1), got {mode!r}")
        self._key = bytes(key)
        self.mode = mode

    def _need_key(self) -> bytes:
        if self._key is None:
            raise InvalidInputError("call set_key(key, mode) before encrypting or decrypting")
        return self._key

    def crypt_ecb(self, input_data: bytes) -> bytes:
        """SM4-ECB in the direction given to ``set_key``."""
        ecb = _sm4.SM4ECB(self._need_key())
        data = input_data
        if self.mode == SM4_ENCRYPT:
            if self.padding_mode == PKCS7:
                return ecb.encrypt(data, padding=True)
            if self.padding_mode == ZERO:
                data = bytes(zero_padding(data))  # type: ignore[arg-type]
            return ecb.encrypt(data, padding=False)
        if self.padding_mode == PKCS7:
            return ecb.decrypt(data, padding=True)
        out = ecb.decrypt(data, padding=False)
        if self.padding_mode == ZERO:
            return bytes(zero_unpadding(list(out)))
        return out

    def crypt_cbc(self, iv: bytes, input_data: bytes) -> bytes:
        """SM4-CBC with PKCS#7 padding in the direction given to ``set_key``."""
        cbc = _sm4.SM4CBC(self._need_key())
        if self.mode == SM4_ENCRYPT:
            return cbc.encrypt(iv, input_data)
        return cbc.decrypt(iv, input_data)
