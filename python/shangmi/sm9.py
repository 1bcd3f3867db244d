"""SM9 identity-based cryptography (GB/T 38635, GM/T 0044): signatures,
encryption, key encapsulation and key exchange on the BN256 pairing.

::

    from shangmi import sm9

    master = sm9.SignMasterKey.generate()               # the key generation centre
    alice = master.extract(b"Alice")                    # hid=1
    sig = alice.sign(b"message")                        # DER (GmSSL's SEQUENCE {h, S})
    master.public_key().verify(sig, b"message", b"Alice")   # None, or InvalidSignature

    kgc = sm9.EncMasterKey.generate()
    bob = kgc.extract(b"Bob")                           # hid=3
    ct = kgc.public_key().encrypt(b"secret", b"Bob")    # C1C3C2, KDF stream, SM3 MAC
    assert bob.decrypt(ct) == b"secret"

Defaults (every option that changes bytes on the wire is a named argument):

=====================  ======================  ============================================
option                 default                 alternatives / notes
=====================  ======================  ============================================
``hid``                1 (sign), 3 (encrypt)   2 for key-exchange keys
signature ``encoding`` ``"der"``               ``"raw"``: h ‖ 04‖x‖y (97 bytes)
ciphertext ``mode``    ``"c1c3c2"``            ``"c1c2c3"``, ``"der"`` (GmSSL's SEQUENCE
                                               {EnType, C1, C3, C2}); C1 is written 04‖x‖y
                                               and read with or without the 04
``cipher``             ``"xor"`` (KDF stream)  ``"sm4-ecb"``, ``"sm4-cbc"`` (IV ‖ ciphertext
                                               in C2), both PKCS#7-padded
``mac``                ``"sm3"``: SM3(C2‖K2)   ``"hmac-sm3"``: HMAC-SM3(K2, C2), GmSSL's
master public keys     sign: 129-byte G2 point 04‖x1‖x0‖y1‖y0 (u-coefficient first);
                       enc: 65-byte 04‖x‖y     ``from_bytes`` also takes them without 04
=====================  ======================  ============================================

Prepared keys: ``prepare()`` returns a *new* object carrying precomputed
tables (g = e(P1, Ppub-s) or e(Ppub-e, P2) with a fixed-base table, fixed-base
tables of the public points, Miller-loop lines of fixed G2 points); their size
is ``prepared_memory``. Nothing is precomputed implicitly.

Pickling: master public keys pickle (as their bytes). Master keys and user
keys refuse to pickle: export them explicitly with ``to_bytes()``.
Every operation releases the GIL.
"""

from __future__ import annotations

import hmac as _hmac
from collections.abc import Iterable
from typing import Literal, NoReturn

from shangmi import _native
from shangmi._buffer import Buffer, require_bytes
from shangmi.exceptions import InvalidInputError, InvalidTag

__all__ = [
    "HID_SIGN",
    "HID_EXCHANGE",
    "HID_ENCRYPT",
    "SignMasterKey",
    "SignMasterPublicKey",
    "SignPrivateKey",
    "EncMasterKey",
    "EncMasterPublicKey",
    "EncPrivateKey",
    "KeyExchange",
    "KeyExchangeResult",
    "sign_many",
    "verify_many",
]

#: The standard's hid values.
HID_SIGN = 1
HID_EXCHANGE = 2
HID_ENCRYPT = 3

Mode = Literal["c1c3c2", "c1c2c3", "der"]
CipherName = Literal["xor", "sm4-ecb", "sm4-cbc"]
MacName = Literal["sm3", "hmac-sm3"]
Encoding = Literal["der", "raw"]

_MODES = {"c1c3c2": 0, "c1c2c3": 1, "der": 2}
_CIPHERS = {"xor": 0, "sm4-ecb": 1, "sm4-cbc": 2}
_MACS = {"sm3": 0, "hmac-sm3": 1}


def _pick(table: dict[str, int], value: object, name: str) -> int:
    code = table.get(value) if isinstance(value, str) else None
    if code is None:
        choices = ", ".join(repr(k) for k in table)
        raise InvalidInputError(f"{name} must be one of {choices}, got {value!r}")
    return code


def _der(encoding: object) -> bool:
    return _pick({"raw": 0, "der": 1}, encoding, "encoding") == 1


def _hid(hid: object) -> int:
    if isinstance(hid, bool) or not isinstance(hid, int) or not 0 <= hid <= 255:
        raise InvalidInputError(f"hid must be an int in 0..255, got {hid!r}")
    return hid


def _length(length: object) -> int:
    if isinstance(length, bool) or not isinstance(length, int) or not 0 < length <= 1 << 30:
        raise InvalidInputError(f"length must be an int in 1..2**30, got {length!r}")
    return length


def _bytes(value: object, name: str) -> Buffer:
    require_bytes(value, name)
    return value  # type: ignore[return-value]


def _no_pickle(what: str) -> NoReturn:
    raise TypeError(f"{what} cannot be pickled; export it explicitly with to_bytes()")


class SignMasterPublicKey:
    """Ppub-s, a point of G2. Immutable; pickles as its bytes."""

    __slots__ = ("_key",)

    def __init__(self, native: _native.Sm9SignMasterPublicKey) -> None:
        self._key = native

    @classmethod
    def from_bytes(cls, data: Buffer) -> SignMasterPublicKey:
        """04‖x1‖x0‖y1‖y0 (129 bytes) or the 128 bytes without 04; checked on the twist and in G2."""
        return cls(_native.Sm9SignMasterPublicKey.from_bytes(_bytes(data, "master public key")))

    def to_bytes(self) -> bytes:
        return self._key.to_bytes()

    def verify(
        self, signature: Buffer, message: Buffer, uid: Buffer, *, hid: int = HID_SIGN, encoding: Encoding = "der"
    ) -> None:
        """Returns None if ``signature`` is (uid, hid)'s signature of ``message``, else raises InvalidSignature."""
        self._key.verify(
            _bytes(signature, "signature"), _bytes(message, "message"), _bytes(uid, "uid"), _hid(hid), _der(encoding)
        )

    def prepare(self) -> SignMasterPublicKey:
        """A new key carrying g = e(P1, Ppub-s), its fixed-base table and Ppub-s's Miller lines."""
        return SignMasterPublicKey(self._key.prepare())

    @property
    def is_prepared(self) -> bool:
        return self._key.is_prepared()

    @property
    def prepared_memory(self) -> int:
        """Bytes held by the precomputation (0 if not prepared)."""
        return self._key.prepared_memory()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SignMasterPublicKey):
            return NotImplemented
        return self.to_bytes() == other.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __reduce__(self) -> tuple[object, tuple[bytes]]:
        return (SignMasterPublicKey.from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        return f"<shangmi.sm9.SignMasterPublicKey {self.to_bytes()[1:17].hex()}…>"


class SignMasterKey:
    """The signature master key ks of a key generation centre."""

    __slots__ = ("_key",)

    def __init__(self, native: _native.Sm9SignMasterKey) -> None:
        self._key = native

    @classmethod
    def generate(cls) -> SignMasterKey:
        return cls(_native.Sm9SignMasterKey.generate())

    @classmethod
    def from_bytes(cls, data: Buffer) -> SignMasterKey:
        """ks as 32 big-endian bytes in [1, n-1]."""
        return cls(_native.Sm9SignMasterKey.from_bytes(_bytes(data, "master key")))

    def to_bytes(self) -> bytes:
        return self._key.to_bytes()

    def public_key(self) -> SignMasterPublicKey:
        return SignMasterPublicKey(self._key.public_key())

    def extract(self, uid: Buffer, *, hid: int = HID_SIGN) -> SignPrivateKey:
        """The signing key of identity ``uid``."""
        return SignPrivateKey(self._key.extract(_bytes(uid, "uid"), _hid(hid)))

    def __reduce__(self) -> NoReturn:
        _no_pickle("an SM9 master key")

    def __repr__(self) -> str:
        return "<shangmi.sm9.SignMasterKey>"


class SignPrivateKey:
    """A user's signing key dsA (a G1 point) with its master public key."""

    __slots__ = ("_key",)

    def __init__(self, native: _native.Sm9SignPrivateKey) -> None:
        self._key = native

    @classmethod
    def from_bytes(cls, data: Buffer, master_public_key: SignMasterPublicKey) -> SignPrivateKey:
        """dsA as 04‖x‖y (or x‖y), checked on the curve."""
        if not isinstance(master_public_key, SignMasterPublicKey):
            raise TypeError("master_public_key must be a SignMasterPublicKey")
        return cls(_native.Sm9SignPrivateKey.from_bytes(_bytes(data, "private key"), master_public_key._key))

    def to_bytes(self) -> bytes:
        """dsA as 04‖x‖y (65 bytes)."""
        return self._key.to_bytes()

    def master_public_key(self) -> SignMasterPublicKey:
        return SignMasterPublicKey(self._key.master_public_key())

    def sign(self, message: Buffer, *, encoding: Encoding = "der") -> bytes:
        return self._key.sign(_bytes(message, "message"), _der(encoding))

    def prepare(self) -> SignPrivateKey:
        """A new key whose signing needs no pairing (g's table) and no doubling chain (dsA's table)."""
        return SignPrivateKey(self._key.prepare())

    @property
    def prepared_memory(self) -> int:
        return self._key.prepared_memory()

    def __reduce__(self) -> NoReturn:
        _no_pickle("an SM9 private key")

    def __repr__(self) -> str:
        return "<shangmi.sm9.SignPrivateKey>"


class EncMasterPublicKey:
    """Ppub-e, a point of G1. Immutable; pickles as its bytes."""

    __slots__ = ("_key",)

    def __init__(self, native: _native.Sm9EncMasterPublicKey) -> None:
        self._key = native

    @classmethod
    def from_bytes(cls, data: Buffer) -> EncMasterPublicKey:
        """04‖x‖y (65 bytes) or x‖y (64), checked on the curve."""
        return cls(_native.Sm9EncMasterPublicKey.from_bytes(_bytes(data, "master public key")))

    def to_bytes(self) -> bytes:
        return self._key.to_bytes()

    def encrypt(
        self,
        plaintext: Buffer,
        uid: Buffer,
        *,
        hid: int = HID_ENCRYPT,
        mode: Mode = "c1c3c2",
        cipher: CipherName = "xor",
        mac: MacName = "sm3",
    ) -> bytes:
        """Encrypts a non-empty ``plaintext`` to identity ``uid``."""
        return self._key.encrypt(
            _bytes(plaintext, "plaintext"),
            _bytes(uid, "uid"),
            _hid(hid),
            _pick(_MODES, mode, "mode"),
            _pick(_CIPHERS, cipher, "cipher"),
            _pick(_MACS, mac, "mac"),
        )

    def encapsulate(self, uid: Buffer, length: int, *, hid: int = HID_ENCRYPT) -> tuple[bytes, bytes]:
        """A fresh ``length``-byte key for ``uid`` and its ciphertext C (04‖x‖y): ``(key, ciphertext)``."""
        return self._key.encapsulate(_bytes(uid, "uid"), _hid(hid), _length(length))

    def prepare(self) -> EncMasterPublicKey:
        """A new key carrying g = e(Ppub-e, P2) with its fixed-base table and Ppub-e's table."""
        return EncMasterPublicKey(self._key.prepare())

    @property
    def is_prepared(self) -> bool:
        return self._key.is_prepared()

    @property
    def prepared_memory(self) -> int:
        return self._key.prepared_memory()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, EncMasterPublicKey):
            return NotImplemented
        return self.to_bytes() == other.to_bytes()

    def __hash__(self) -> int:
        return hash(self.to_bytes())

    def __reduce__(self) -> tuple[object, tuple[bytes]]:
        return (EncMasterPublicKey.from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        return f"<shangmi.sm9.EncMasterPublicKey {self.to_bytes()[1:17].hex()}…>"


class EncMasterKey:
    """The encryption master key ke of a key generation centre."""

    __slots__ = ("_key",)

    def __init__(self, native: _native.Sm9EncMasterKey) -> None:
        self._key = native

    @classmethod
    def generate(cls) -> EncMasterKey:
        return cls(_native.Sm9EncMasterKey.generate())

    @classmethod
    def from_bytes(cls, data: Buffer) -> EncMasterKey:
        return cls(_native.Sm9EncMasterKey.from_bytes(_bytes(data, "master key")))

    def to_bytes(self) -> bytes:
        return self._key.to_bytes()

    def public_key(self) -> EncMasterPublicKey:
        return EncMasterPublicKey(self._key.public_key())

    def extract(self, uid: Buffer, *, hid: int = HID_ENCRYPT) -> EncPrivateKey:
        """The decryption key of ``uid`` (``hid=2`` gives a key-exchange key); it remembers ``uid``."""
        return EncPrivateKey(self._key.extract(_bytes(uid, "uid"), _hid(hid)))

    def __reduce__(self) -> NoReturn:
        _no_pickle("an SM9 master key")

    def __repr__(self) -> str:
        return "<shangmi.sm9.EncMasterKey>"


class EncPrivateKey:
    """A user's decryption (or key-exchange) key deB, a G2 point, with its master public key."""

    __slots__ = ("_key",)

    def __init__(self, native: _native.Sm9EncPrivateKey) -> None:
        self._key = native

    @classmethod
    def from_bytes(
        cls, data: Buffer, master_public_key: EncMasterPublicKey, *, uid: Buffer | None = None
    ) -> EncPrivateKey:
        """deB as 04‖x1‖x0‖y1‖y0 (or 128 bytes), checked on the twist and in G2.
        The identity is not part of the key's bytes: give ``uid`` here or to each call."""
        if not isinstance(master_public_key, EncMasterPublicKey):
            raise TypeError("master_public_key must be an EncMasterPublicKey")
        u = None if uid is None else _bytes(uid, "uid")
        return cls(_native.Sm9EncPrivateKey.from_bytes(_bytes(data, "private key"), master_public_key._key, u))

    def to_bytes(self) -> bytes:
        """deB as 04‖x1‖x0‖y1‖y0 (129 bytes)."""
        return self._key.to_bytes()

    @property
    def uid(self) -> bytes | None:
        return self._key.uid()

    def master_public_key(self) -> EncMasterPublicKey:
        return EncMasterPublicKey(self._key.master_public_key())

    def decrypt(
        self,
        ciphertext: Buffer,
        *,
        uid: Buffer | None = None,
        mode: Mode = "c1c3c2",
        cipher: CipherName = "xor",
        mac: MacName = "sm3",
    ) -> bytes:
        """The plaintext, or :class:`DecryptionError` (one opaque error for every failure)."""
        return self._key.decrypt(
            _bytes(ciphertext, "ciphertext"),
            None if uid is None else _bytes(uid, "uid"),
            _pick(_MODES, mode, "mode"),
            _pick(_CIPHERS, cipher, "cipher"),
            _pick(_MACS, mac, "mac"),
        )

    def decapsulate(self, ciphertext: Buffer, length: int, *, uid: Buffer | None = None) -> bytes:
        """The ``length``-byte key encapsulated in ``ciphertext`` (04‖x‖y or x‖y)."""
        return self._key.decapsulate(
            _bytes(ciphertext, "ciphertext"), _length(length), None if uid is None else _bytes(uid, "uid")
        )

    def prepare(self) -> EncPrivateKey:
        """A new key carrying its point's Miller-loop lines."""
        return EncPrivateKey(self._key.prepare())

    @property
    def prepared_memory(self) -> int:
        return self._key.prepared_memory()

    def __reduce__(self) -> NoReturn:
        _no_pickle("an SM9 private key")

    def __repr__(self) -> str:
        return "<shangmi.sm9.EncPrivateKey>"


class KeyExchangeResult:
    """``key``; ``confirmation`` to send (SA from the initiator, SB from the
    responder); ``expected_confirmation`` to check with :meth:`check_confirmation`."""

    __slots__ = ("key", "confirmation", "expected_confirmation")

    def __init__(self, key: bytes, confirmation: bytes, expected_confirmation: bytes) -> None:
        self.key = key
        self.confirmation = confirmation
        self.expected_confirmation = expected_confirmation

    def check_confirmation(self, received: Buffer) -> None:
        """Raises :class:`InvalidTag` unless ``received`` is the peer's confirmation (constant-time compare)."""
        require_bytes(received, "confirmation")
        if not _hmac.compare_digest(bytes(received), self.expected_confirmation):
            raise InvalidTag("SM9 key exchange confirmation value does not match")

    def __repr__(self) -> str:
        return f"<shangmi.sm9.KeyExchangeResult key_length={len(self.key)}>"


class KeyExchange:
    """One side of the SM9 key exchange, with keys extracted with ``hid=2``.

    ::

        a = sm9.KeyExchange("initiator", key_a, mpk, uid=b"Alice", peer_uid=b"Bob")
        b = sm9.KeyExchange("responder", key_b, mpk, uid=b"Bob", peer_uid=b"Alice")
        rb = b.compute(a.ephemeral_public_key(), 16)
        ra = a.compute(b.ephemeral_public_key(), 16, confirmation=rb.confirmation)
        rb.check_confirmation(ra.confirmation)
    """

    __slots__ = ("_kx", "role")

    def __init__(
        self,
        role: Literal["initiator", "responder"],
        private_key: EncPrivateKey,
        master_public_key: EncMasterPublicKey,
        *,
        uid: Buffer,
        peer_uid: Buffer,
    ) -> None:
        if role not in ("initiator", "responder"):
            raise InvalidInputError(f"role must be one of 'initiator', 'responder', got {role!r}")
        if not isinstance(private_key, EncPrivateKey):
            raise TypeError(f"private_key must be an EncPrivateKey, got {type(private_key).__name__}")
        if not isinstance(master_public_key, EncMasterPublicKey):
            raise TypeError(f"master_public_key must be an EncMasterPublicKey, got {type(master_public_key).__name__}")
        self.role = role
        self._kx = _native.Sm9KeyExchange(
            role == "initiator", private_key._key, master_public_key._key, _bytes(uid, "uid"),
            _bytes(peer_uid, "peer_uid"),
        )

    def ephemeral_public_key(self) -> bytes:
        """This party's RA or RB (65 bytes, 04‖x‖y)."""
        return self._kx.ephemeral_public_key()

    def compute(self, peer_ephemeral: Buffer, length: int, *, confirmation: Buffer | None = None) -> KeyExchangeResult:
        """``length`` bytes of shared key from the peer's ephemeral point (once per exchange)."""
        require_bytes(peer_ephemeral, "peer_ephemeral")
        if confirmation is not None:
            require_bytes(confirmation, "confirmation")
        key, out, expected = self._kx.compute(peer_ephemeral, _length(length))
        result = KeyExchangeResult(key, out, expected)
        if confirmation is not None:
            result.check_confirmation(confirmation)
        return result

    def __reduce__(self) -> NoReturn:
        raise TypeError("a KeyExchange holds a secret ephemeral scalar and cannot be pickled")

    def __repr__(self) -> str:
        return f"<shangmi.sm9.KeyExchange role={self.role!r}>"


def sign_many(key: SignPrivateKey, messages: Iterable[Buffer], *, encoding: Encoding = "der") -> list[bytes]:
    """Signs every message with ``key`` (prepare it first), in parallel over all cores."""
    if not isinstance(key, SignPrivateKey):
        raise TypeError(f"key must be a SignPrivateKey, got {type(key).__name__}")
    msgs = [_bytes(m, "message") for m in messages]
    return _native.sm9_sign_many(key._key, msgs, _der(encoding))


def verify_many(
    master_public_key: SignMasterPublicKey,
    items: Iterable[tuple[Buffer, Buffer, Buffer]],
    *,
    hid: int = HID_SIGN,
    encoding: Encoding = "der",
) -> list[bool]:
    """Verifies ``(message, uid, signature)`` triples in parallel: one bool each."""
    if not isinstance(master_public_key, SignMasterPublicKey):
        raise TypeError(f"master_public_key must be a SignMasterPublicKey, got {type(master_public_key).__name__}")
    batch = [(_bytes(m, "message"), _bytes(u, "uid"), _bytes(s, "signature")) for m, u, s in items]
    return _native.sm9_verify_many(master_public_key._key, batch, _hid(hid), _der(encoding))
