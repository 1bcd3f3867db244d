"""``gmssl.sm2.CryptSM2`` on shangmi's SM2, hex strings in and out as in gmssl.

``CryptSM2(private_key, public_key, ecc_table=default_ecc_table, mode=0, asn1=False)``:
keys are hex (the private key 64 digits or ``""``/``None`` for a public-only
object; the public key 128 digits x‖y, 130 with the 04 prefix, or 66
compressed; ``""``/``None`` derives it from the private key). ``mode`` 0 is
C1C2C3, 1 is C1C3C2, both with C1 as 64 bytes x‖y (no 04 byte), as gmssl
writes. ``asn1=True`` makes signatures DER (hex) instead of raw r‖s.

Differences from gmssl (see :mod:`shangmi.compat.gmssl`): nonces are always
fresh from the CSPRNG, so ``K`` / ``random_hex_str`` are ignored; ``decrypt``
checks C3 and raises :class:`shangmi.DecryptionError`; malformed input raises
:class:`shangmi.InvalidInputError` or :class:`shangmi.InvalidKey`;
``verify`` returns ``False`` (not ``0``) for a bad signature.
"""

from __future__ import annotations

from typing import Any

from shangmi import sm2 as _sm2
from shangmi.exceptions import InvalidInputError, InvalidKey, InvalidSignature, ShangmiTypeError

__all__ = ["CryptSM2", "default_ecc_table"]

default_ecc_table = {
    "n": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123",
    "p": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFF",
    "g": "32c4ae2c1f1981195f9904466a39c9948fe30bbff2660be1715a4589334c74c7"
    "bc3736a2f4f6779c59bdcee36b692153d0a9877cc62a474002df32e52139f0a0",
    "a": "FFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF00000000FFFFFFFFFFFFFFFC",
    "b": "28E9FA9E9D9F5E344D5A9E4BCF6509A7F39789F515AB8F92DDBCBD414D940E93",
}

_N = int(default_ecc_table["n"], 16)


def _hex(value: object, what: str) -> bytes:
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("ascii", "replace")
    if not isinstance(value, str):
        raise ShangmiTypeError(f"{what} must be a hex string, got {type(value).__name__}")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise InvalidInputError(f"{what} must be hex digits, got {value[:16]!r}...") from None


def _bytes(data: object, what: str) -> bytes:
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ShangmiTypeError(f"{what} must be bytes, got {type(data).__name__}")
    return bytes(data)


class CryptSM2:
    """SM2 signatures and encryption with the ``gmssl`` package's interface."""

    def __init__(
        self,
        private_key: str | None,
        public_key: str | None,
        ecc_table: dict[str, str] = default_ecc_table,
        mode: int = 0,
        asn1: bool = False,
    ) -> None:
        if not isinstance(ecc_table, dict):
            raise ShangmiTypeError(f"ecc_table must be a dict, got {type(ecc_table).__name__}")
        if ecc_table is not default_ecc_table and {k: v.lower() for k, v in ecc_table.items()} != {
            k: v.lower() for k, v in default_ecc_table.items()
        }:
            raise InvalidInputError("only the standard SM2 curve (default_ecc_table) is supported")
        if mode not in (0, 1):
            raise InvalidInputError(f"mode must be 0 (C1C2C3) or 1 (C1C3C2), got {mode!r}")
        self._private: _sm2.PrivateKey | None = None
        if private_key:
            raw = _hex(private_key, "private_key")
            # gmssl takes any hex integer (its README's example key has 66 digits, a leading 00).
            if len(raw) > 32 and any(raw[: len(raw) - 32]):
                raise InvalidKey(f"private_key must fit in 32 bytes, got {len(raw)}")
            self._private = _sm2.PrivateKey.from_bytes(raw[-32:].rjust(32, b"\0"))
        if public_key:
            self._public = _sm2.PublicKey.from_bytes(_hex(public_key, "public_key"))
        elif self._private is not None:
            self._public = self._private.public_key()
        else:
            raise InvalidKey("give a private_key, a public_key, or both")
        self.private_key = private_key or ""
        #: x‖y as 128 hex digits, without the 04 prefix (what gmssl stores).
        self.public_key = self._public.to_bytes()[1:].hex()
        self.para_len = len(default_ecc_table["n"])
        self.ecc_table = ecc_table
        self.mode = mode
        self.asn1 = asn1

    def _key(self) -> _sm2.PrivateKey:
        if self._private is None:
            raise InvalidKey("this CryptSM2 has no private key")
        return self._private

    @property
    def _encoding(self) -> _sm2.Encoding:
        return "der" if self.asn1 else "raw"

    # -- signatures ---------------------------------------------------------------

    def sign(self, data: bytes, K: Any = None) -> str:
        """Signs ``data`` taken as the digest e (gmssl's raw ``sign``); ``K`` is ignored."""
        e = int.from_bytes(_bytes(data, "data"), "big") % _N
        return self._key().sign_digest(e.to_bytes(32, "big"), encoding=self._encoding).hex()

    def verify(self, Sign: str, data: bytes) -> bool:
        """Checks a signature made by :meth:`sign` over the digest ``data``."""
        sig = _hex(Sign, "Sign")
        e = int.from_bytes(_bytes(data, "data"), "big") % _N
        try:
            self._public.verify_digest(sig, e.to_bytes(32, "big"), encoding=self._encoding)
        except InvalidSignature:
            return False
        return True

    def sign_with_sm3(self, data: bytes, random_hex_str: Any = None) -> str:
        """SM3withSM2 over ``data`` with the ID 1234567812345678; ``random_hex_str`` is ignored."""
        return self._key().sign(_bytes(data, "data"), encoding=self._encoding).hex()

    def verify_with_sm3(self, sign: str, data: bytes) -> bool:
        """Checks an SM3withSM2 signature (ID 1234567812345678)."""
        sig = _hex(sign, "sign")
        try:
            self._public.verify(sig, _bytes(data, "data"), encoding=self._encoding)
        except InvalidSignature:
            return False
        return True

    # -- encryption ---------------------------------------------------------------

    def encrypt(self, data: bytes) -> bytes:
        """C1‖C2‖C3 (mode 0) or C1‖C3‖C2 (mode 1), C1 without the 04 byte."""
        ct = self._public.encrypt(_bytes(data, "data"), mode="c1c2c3" if self.mode == 0 else "c1c3c2")
        return ct[1:]

    def decrypt(self, data: bytes) -> bytes:
        """The plaintext; raises :class:`shangmi.DecryptionError` if C3 does not match."""
        raw = _bytes(data, "data")
        if len(raw) < 64 + 32 + 1:
            raise InvalidInputError(
                f"SM2 ciphertext too short: {len(raw)} bytes, need 64 (C1 without 04) + 32 (C3) + at least 1"
            )
        return self._key().decrypt(b"\x04" + raw, mode="c1c2c3" if self.mode == 0 else "c1c3c2")
