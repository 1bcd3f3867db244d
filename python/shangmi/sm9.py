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

Key files (the forms GmSSL writes; see ``docs/sm9.md``): every key has
``to_der()/to_pem()`` and ``from_der()/from_pem()``. Private keys are PKCS#8
with the SM9 OIDs (1.2.156.10197.1.302 and .302.1/.2/.3), encrypted with a
``password`` as PBES2 (PBKDF2-HMAC-SM3 + SM4-CBC, what GmSSL requires);
master public keys use GmSSL's PEM labels ``SM9 SIGN MASTER PUBLIC KEY`` and
``SM9 ENC MASTER PUBLIC KEY``. Reading also takes GmSSL's bare inner
SEQUENCEs and gmsm's bare elements. GmSSL's user-key files do not carry the
identity, so encryption keys read from files take ``uid=``.

Pickling: master public keys pickle (as their bytes). Master keys and user
keys refuse to pickle: export them explicitly with ``to_pem(password=...)``.
Every operation releases the GIL.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Literal, NoReturn, Self

from shangmi import _native
from shangmi._buffer import Buffer
from shangmi._keys import KeyExchangeResultBase, PublicKeyMixin, SecretKeyMixin, password_bytes, pem_bytes
from shangmi.exceptions import ShangmiTypeError

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
    "pairing",
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
Role = Literal["initiator", "responder"]


def _sign_mpk(key: SignMasterPublicKey | None) -> _native.Sm9SignMasterPublicKey | None:
    if key is None:
        return None
    _require(key, SignMasterPublicKey, "master_public_key")
    return key._key


def _enc_mpk(key: EncMasterPublicKey | None) -> _native.Sm9EncMasterPublicKey | None:
    if key is None:
        return None
    _require(key, EncMasterPublicKey, "master_public_key")
    return key._key


def _require(value: object, cls: type, name: str) -> None:
    if not isinstance(value, cls):
        raise ShangmiTypeError(f"{name} must be a {cls.__name__}, got {type(value).__name__}")


class _MasterPublicKeyBase(PublicKeyMixin):
    """What both master public key classes share: bytes, GmSSL's DER and PEM
    (its own label per class), precomputation. Immutable; pickles as its bytes."""

    __slots__ = ("_key",)
    _NATIVE: ClassVar[Any]
    _key: Any

    def __init__(self, native: Any) -> None:
        self._key = native

    @classmethod
    def from_bytes(cls, data: Buffer) -> Self:
        """The encoded point (with or without its 04), validated (G2 points also in the subgroup)."""
        return cls(cls._NATIVE.from_bytes(data))

    @classmethod
    def from_der(cls, data: Buffer) -> Self:
        """GmSSL's SEQUENCE { BIT STRING } or gmsm's bare BIT STRING; :class:`InvalidKey` on any defect."""
        return cls(cls._NATIVE.from_der(data))

    @classmethod
    def from_pem(cls, data: Buffer | str) -> Self:
        """One PEM block under GmSSL's label (what ``gmssl sm9setup -pubout`` writes)."""
        return cls(cls._NATIVE.from_pem(pem_bytes(data)))

    def to_bytes(self) -> bytes:
        """The point, 04 first."""
        return self._key.to_bytes()  # type: ignore[no-any-return]

    def to_der(self) -> bytes:
        """GmSSL's DER SEQUENCE { BIT STRING }."""
        return self._key.to_der()  # type: ignore[no-any-return]

    def to_pem(self) -> bytes:
        """PEM under GmSSL's label (``SM9 SIGN MASTER PUBLIC KEY`` / ``SM9 ENC MASTER PUBLIC KEY``)."""
        return self._key.to_pem()  # type: ignore[no-any-return]

    def prepare(self) -> Self:
        """A new key carrying the precomputation (g with its fixed-base table, the point's tables or lines)."""
        return type(self)(self._key.prepare())

    @property
    def is_prepared(self) -> bool:
        """Whether this object carries the precomputation."""
        return self._key.is_prepared()  # type: ignore[no-any-return]

    @property
    def prepared_memory(self) -> int:
        """Bytes held by the precomputation (0 if not prepared)."""
        return self._key.prepared_memory()  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"<shangmi.sm9.{type(self).__name__} {self.to_bytes()[1:17].hex()}…>"


class _MasterKeyBase(SecretKeyMixin):
    """What both master key classes share: generation, bytes and key files."""

    __slots__ = ("_key",)
    _SECRET_NAME = "SM9 master keys"
    _NATIVE: ClassVar[Any]
    _key: Any

    def __init__(self, native: Any) -> None:
        self._key = native

    @classmethod
    def generate(cls) -> Self:
        """A fresh master scalar from the OS CSPRNG."""
        return cls(cls._NATIVE.generate())

    @classmethod
    def from_bytes(cls, data: Buffer) -> Self:
        """The master scalar as 32 big-endian bytes in [1, n-1]."""
        return cls(cls._NATIVE.from_bytes(data))

    @classmethod
    def from_der(cls, data: Buffer, password: Buffer | str | None = None) -> Self:
        """PKCS#8 (encrypted needs ``password``), GmSSL's SEQUENCE { k, Ppub } or gmsm's
        bare INTEGER; a stored Ppub must match k. :class:`InvalidKey` on any defect or a wrong password."""
        return cls(cls._NATIVE.from_der(data, password_bytes(password)))

    @classmethod
    def from_pem(cls, data: Buffer | str, password: Buffer | str | None = None) -> Self:
        """One ``ENCRYPTED PRIVATE KEY`` (``gmssl sm9setup -out``) or ``PRIVATE KEY`` block."""
        return cls(cls._NATIVE.from_pem(pem_bytes(data), password_bytes(password)))

    def to_bytes(self) -> bytes:
        """The master scalar (32 bytes). Handle with care."""
        return self._key.to_bytes()  # type: ignore[no-any-return]

    def to_der(self, password: Buffer | str | None = None) -> bytes:
        """PKCS#8 as GmSSL writes it; PBES2 (PBKDF2-HMAC-SM3, SM4-CBC) with a ``password``."""
        return self._key.to_der(password_bytes(password))  # type: ignore[no-any-return]

    def to_pem(self, password: Buffer | str | None = None) -> bytes:
        """:meth:`to_der` as PEM (``ENCRYPTED PRIVATE KEY`` with a password: what GmSSL reads)."""
        return self._key.to_pem(password_bytes(password))  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"<shangmi.sm9.{type(self).__name__}>"


class SignMasterPublicKey(_MasterPublicKeyBase):
    """Ppub-s, a point of G2 (04‖x1‖x0‖y1‖y0, the u-coefficient first)."""

    __slots__ = ()
    _NATIVE = _native.Sm9SignMasterPublicKey
    _key: _native.Sm9SignMasterPublicKey

    def verify(
        self, signature: Buffer, message: Buffer, uid: Buffer, *, hid: int = HID_SIGN, encoding: Encoding = "der"
    ) -> None:
        """Returns None if ``signature`` is (uid, hid)'s signature of ``message``, else raises InvalidSignature."""
        self._key.verify(
            signature, message, uid, hid, encoding
        )


class SignMasterKey(_MasterKeyBase):
    """The signature master key ks of a key generation centre."""

    __slots__ = ()
    _NATIVE = _native.Sm9SignMasterKey
    _key: _native.Sm9SignMasterKey

    def public_key(self) -> SignMasterPublicKey:
        """Ppub-s = [ks]P2."""
        return SignMasterPublicKey(self._key.public_key())

    def extract(self, uid: Buffer, *, hid: int = HID_SIGN) -> SignPrivateKey:
        """The signing key of identity ``uid``."""
        return SignPrivateKey(self._key.extract(uid, hid))


class SignPrivateKey(SecretKeyMixin):
    """A user's signing key dsA (a G1 point) with its master public key."""

    __slots__ = ("_key",)
    _SECRET_NAME = "SM9 private keys"

    def __init__(self, native: _native.Sm9SignPrivateKey) -> None:
        self._key = native

    @classmethod
    def from_bytes(cls, data: Buffer, master_public_key: SignMasterPublicKey) -> SignPrivateKey:
        """dsA as 04‖x‖y (or x‖y), checked on the curve."""
        _require(master_public_key, SignMasterPublicKey, "master_public_key")
        return cls(_native.Sm9SignPrivateKey.from_bytes(data, master_public_key._key))

    @classmethod
    def from_der(
        cls,
        data: Buffer,
        password: Buffer | str | None = None,
        *,
        master_public_key: SignMasterPublicKey | None = None,
    ) -> SignPrivateKey:
        """PKCS#8 (encrypted needs ``password``), GmSSL's SEQUENCE { ds, Ppubs } or gmsm's bare
        BIT STRING (which needs ``master_public_key``); a file whose Ppubs differs from a given
        ``master_public_key`` is refused."""
        m = _sign_mpk(master_public_key)
        return cls(_native.Sm9SignPrivateKey.from_der(data, password_bytes(password), m))

    @classmethod
    def from_pem(
        cls,
        data: Buffer | str,
        password: Buffer | str | None = None,
        *,
        master_public_key: SignMasterPublicKey | None = None,
    ) -> SignPrivateKey:
        """One ``ENCRYPTED PRIVATE KEY`` (``gmssl sm9keygen -alg sm9sign``) or ``PRIVATE KEY`` block."""
        m = _sign_mpk(master_public_key)
        return cls(_native.Sm9SignPrivateKey.from_pem(pem_bytes(data), password_bytes(password), m))

    def to_bytes(self) -> bytes:
        """dsA as 04‖x‖y (65 bytes)."""
        return self._key.to_bytes()

    def to_der(self, password: Buffer | str | None = None) -> bytes:
        """PKCS#8 (sm9sign) carrying dsA and Ppubs; PBES2 with a ``password``."""
        return self._key.to_der(password_bytes(password))

    def to_pem(self, password: Buffer | str | None = None) -> bytes:
        """:meth:`to_der` as PEM."""
        return self._key.to_pem(password_bytes(password))

    def master_public_key(self) -> SignMasterPublicKey:
        """The master public key this key was extracted under."""
        return SignMasterPublicKey(self._key.master_public_key())

    def sign(self, message: Buffer, *, encoding: Encoding = "der") -> bytes:
        """A fresh signature of ``message``: GmSSL's DER SEQUENCE {h, S} or raw h ‖ 04‖x‖y."""
        return self._key.sign(message, encoding)

    def prepare(self) -> SignPrivateKey:
        """A new key whose signing needs no pairing (g's table) and no doubling chain (dsA's table)."""
        return SignPrivateKey(self._key.prepare())

    @property
    def prepared_memory(self) -> int:
        """Bytes held by the precomputation (0 if not prepared)."""
        return self._key.prepared_memory()

    def __repr__(self) -> str:
        return "<shangmi.sm9.SignPrivateKey>"


class EncMasterPublicKey(_MasterPublicKeyBase):
    """Ppub-e, a point of G1 (04‖x‖y)."""

    __slots__ = ()
    _NATIVE = _native.Sm9EncMasterPublicKey
    _key: _native.Sm9EncMasterPublicKey

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
        return self._key.encrypt(plaintext, uid, hid, mode, cipher, mac)

    def encapsulate(self, uid: Buffer, length: int, *, hid: int = HID_ENCRYPT) -> tuple[bytes, bytes]:
        """A fresh ``length``-byte key for ``uid`` and its ciphertext C (04‖x‖y): ``(key, ciphertext)``."""
        return self._key.encapsulate(uid, hid, length)


class EncMasterKey(_MasterKeyBase):
    """The encryption master key ke of a key generation centre."""

    __slots__ = ()
    _NATIVE = _native.Sm9EncMasterKey
    _key: _native.Sm9EncMasterKey

    def public_key(self) -> EncMasterPublicKey:
        """Ppub-e = [ke]P1."""
        return EncMasterPublicKey(self._key.public_key())

    def extract(self, uid: Buffer, *, hid: int = HID_ENCRYPT) -> EncPrivateKey:
        """The decryption key of ``uid`` (``hid=2`` gives a key-exchange key); it remembers ``uid``."""
        return EncPrivateKey(self._key.extract(uid, hid))


class EncPrivateKey(SecretKeyMixin):
    """A user's decryption (or key-exchange) key deB, a G2 point, with its master public key."""

    __slots__ = ("_key",)
    _SECRET_NAME = "SM9 private keys"

    def __init__(self, native: _native.Sm9EncPrivateKey) -> None:
        self._key = native

    @classmethod
    def from_bytes(
        cls, data: Buffer, master_public_key: EncMasterPublicKey, *, uid: Buffer | None = None
    ) -> EncPrivateKey:
        """deB as 04‖x1‖x0‖y1‖y0 (or 128 bytes), checked on the twist and in G2.
        The identity is not part of the key's bytes: give ``uid`` here or to each call."""
        _require(master_public_key, EncMasterPublicKey, "master_public_key")
        return cls(
            _native.Sm9EncPrivateKey.from_bytes(data, master_public_key._key, uid)
        )

    @classmethod
    def from_der(
        cls,
        data: Buffer,
        password: Buffer | str | None = None,
        *,
        master_public_key: EncMasterPublicKey | None = None,
        uid: Buffer | None = None,
    ) -> EncPrivateKey:
        """PKCS#8 (sm9encrypt or sm9keyagreement; encrypted needs ``password``), GmSSL's
        SEQUENCE { de, Ppube } or gmsm's bare BIT STRING (which needs ``master_public_key``).
        GmSSL's files do not store the identity: give ``uid`` here or to each call."""
        m = _enc_mpk(master_public_key)
        return cls(
            _native.Sm9EncPrivateKey.from_der(data, password_bytes(password), m, uid)
        )

    @classmethod
    def from_pem(
        cls,
        data: Buffer | str,
        password: Buffer | str | None = None,
        *,
        master_public_key: EncMasterPublicKey | None = None,
        uid: Buffer | None = None,
    ) -> EncPrivateKey:
        """One ``ENCRYPTED PRIVATE KEY`` (``gmssl sm9keygen -alg sm9encrypt``) or ``PRIVATE KEY`` block."""
        m = _enc_mpk(master_public_key)
        return cls(
            _native.Sm9EncPrivateKey.from_pem(pem_bytes(data), password_bytes(password), m, uid)
        )

    def to_bytes(self) -> bytes:
        """deB as 04‖x1‖x0‖y1‖y0 (129 bytes)."""
        return self._key.to_bytes()

    def to_der(self, password: Buffer | str | None = None) -> bytes:
        """PKCS#8 (sm9encrypt, as GmSSL writes also for exchange keys) carrying deB and Ppube,
        without the identity; PBES2 with a ``password``."""
        return self._key.to_der(password_bytes(password))

    def to_pem(self, password: Buffer | str | None = None) -> bytes:
        """:meth:`to_der` as PEM."""
        return self._key.to_pem(password_bytes(password))

    @property
    def uid(self) -> bytes | None:
        """The identity this key knows (None for a key read without ``uid=``)."""
        return self._key.uid()

    def master_public_key(self) -> EncMasterPublicKey:
        """The master public key this key was extracted under."""
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
        return self._key.decrypt(ciphertext, uid, mode, cipher, mac)

    def decapsulate(self, ciphertext: Buffer, length: int, *, uid: Buffer | None = None) -> bytes:
        """The ``length``-byte key encapsulated in ``ciphertext`` (04‖x‖y or x‖y)."""
        return self._key.decapsulate(ciphertext, length, uid)

    def prepare(self) -> EncPrivateKey:
        """A new key carrying its point's Miller-loop lines."""
        return EncPrivateKey(self._key.prepare())

    @property
    def prepared_memory(self) -> int:
        """Bytes held by the precomputation (0 if not prepared)."""
        return self._key.prepared_memory()

    def __repr__(self) -> str:
        return "<shangmi.sm9.EncPrivateKey>"


class KeyExchangeResult(KeyExchangeResultBase):
    """``key``; ``confirmation`` to send (SA from the initiator, SB from the
    responder); ``expected_confirmation`` to check with :meth:`check_confirmation`."""

    __slots__ = ()
    _ALGORITHM = "SM9"


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
        role: Role,
        private_key: EncPrivateKey,
        master_public_key: EncMasterPublicKey,
        *,
        uid: Buffer,
        peer_uid: Buffer,
    ) -> None:
        _require(private_key, EncPrivateKey, "private_key")
        _require(master_public_key, EncMasterPublicKey, "master_public_key")
        self._kx = _native.Sm9KeyExchange(
            role, private_key._key, master_public_key._key, uid, peer_uid
        )
        self.role = role

    def ephemeral_public_key(self) -> bytes:
        """This party's RA or RB (65 bytes, 04‖x‖y)."""
        return self._kx.ephemeral_public_key()

    def compute(self, peer_ephemeral: Buffer, length: int, *, confirmation: Buffer | None = None) -> KeyExchangeResult:
        """``length`` bytes of shared key from the peer's ephemeral point (once per exchange)."""
        key, out, expected = self._kx.compute(peer_ephemeral, length, confirmation)
        result = KeyExchangeResult(key, out, expected)
        if confirmation is not None:
            result.check_confirmation(confirmation)
        return result

    def __reduce__(self) -> NoReturn:
        raise ShangmiTypeError("a KeyExchange holds a secret ephemeral scalar and cannot be pickled")

    def __repr__(self) -> str:
        return f"<shangmi.sm9.KeyExchange role={self.role!r}>"


def sign_many(key: SignPrivateKey, messages: Iterable[Buffer], *, encoding: Encoding = "der") -> list[bytes]:
    """Signs every message with ``key`` (prepare it first), in parallel over all cores."""
    _require(key, SignPrivateKey, "key")
    return _native.sm9_sign_many(key._key, messages, encoding)


def verify_many(
    master_public_key: SignMasterPublicKey,
    items: Iterable[tuple[Buffer, Buffer, Buffer]],
    *,
    hid: int = HID_SIGN,
    encoding: Encoding = "der",
) -> list[bool]:
    """Verifies ``(message, uid, signature)`` triples in parallel: one bool each."""
    _require(master_public_key, SignMasterPublicKey, "master_public_key")
    return _native.sm9_verify_many(master_public_key._key, items, hid, encoding)


def pairing(p: Buffer, q: Buffer) -> bytes:
    """e(P, Q) for P in G1 (04‖x‖y) and Q in G2 (04‖x1‖x0‖y1‖y0), both validated,
    as the 384-byte GT encoding that H2 and the KDF hash (the w² coefficient first)."""
    return _native.sm9_pairing(p, q)
