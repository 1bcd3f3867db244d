"""SM2 public-key cryptography (GB/T 32918): signatures, encryption, key exchange.

::

    from shangmi import sm2

    key = sm2.PrivateKey.generate()
    sig = key.sign(b"message")                      # DER, uid 1234567812345678
    key.public_key().verify(sig, b"message")        # None, or raises InvalidSignature
    ct = key.public_key().encrypt(b"secret")        # C1C3C2
    assert key.decrypt(ct) == b"secret"
    pem = key.to_pem(password=b"pw")                # PBES2: PBKDF2-HMAC-SM3 + SM4-CBC

Defaults (every option that changes bytes on the wire is a named argument):

=====================  ==========================  ==========================================
option                 default                     alternatives / notes
=====================  ==========================  ==========================================
``uid`` (signer ID)    ``b"1234567812345678"``     any bytes up to 8191; GmSSL and the
                                                   ``gmssl`` package use the default;
                                                   **OpenSSL 3 uses an empty ID** unless
                                                   given ``-pkeyopt distid:...`` (pass
                                                   ``uid=b""`` for its signatures)
signature ``encoding`` ``"der"``                   ``"raw"``: 64 bytes r‖s (what ``gmssl``
                                                   uses, as hex)
ciphertext ``mode``    ``"c1c3c2"`` (current       ``"c1c2c3"`` (the 2010 order; C1 is
                       standard)                   ``04‖x‖y``), ``"der"`` (GM/T 0009
                                                   SM2Cipher, what ``openssl pkeyutl``
                                                   writes). The ``gmssl`` package writes
                                                   C1C2C3 *without* the 04 byte: prepend it
public key bytes       65-byte ``04‖x‖y``          ``compressed=True`` (33 bytes);
                                                   ``from_bytes`` also takes 64-byte x‖y
private key PEM/DER    PKCS#8 ``PRIVATE KEY``      ``format="sec1"``; reading also takes
                                                   SEC1 ``EC PRIVATE KEY`` and OpenSSL 3's
                                                   ``SM2 PRIVATE KEY``
encrypted private key  PBES2, PBKDF2-HMAC-SM3      ``encryption="aes-256-cbc"``: PBKDF2-
                       (65536 iterations), SM4-CBC HMAC-SHA256 + AES-256-CBC (OpenSSL 3.0
                       (GmSSL's choice)            reads only this one); reading also takes
                                                   PBKDF2-HMAC-SHA1/SHA-2 + AES-CBC and
                                                   legacy ``Proc-Type: 4,ENCRYPTED`` PEMs
=====================  ==========================  ==========================================

Prepared public keys: :meth:`PublicKey.prepare` returns a *new* key object
carrying a precomputed table (about 86 KiB: 43 × 32 affine points, see :attr:`PublicKey.prepared_memory`)
that makes :meth:`~PublicKey.encrypt` and :meth:`~PublicKey.verify` faster; the
original key is unchanged. Nothing is ever precomputed implicitly.

Pickling: public keys pickle (as their bytes; a prepared key arrives
unprepared). Private keys refuse to pickle or copy: export them explicitly with
``to_pem(password=...)``. :class:`SignaturePool` cannot be pickled or copied at all.

Every operation releases the GIL; :func:`sign_many`, :func:`verify_many` and
:func:`decrypt_many` spread a batch over all cores from one call (and, on CPUs
with AVX-512 IFMA, run eight items at a time per core).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, NoReturn

from shangmi import _native
from shangmi._buffer import Buffer
from shangmi._keys import KeyExchangeResultBase, PublicKeyMixin, SecretKeyMixin
from shangmi._keys import password_bytes as _password
from shangmi._keys import pem_bytes as _pem_bytes
from shangmi.exceptions import ShangmiTypeError

__all__ = [
    "DEFAULT_UID",
    "DEFAULT_MAX_ITERATIONS",
    "MODES",
    "ENCODINGS",
    "PrivateKey",
    "PublicKey",
    "SignaturePool",
    "KeyExchange",
    "KeyExchangeResult",
    "decrypt_many",
    "sign_many",
    "verify_many",
]

#: The signer ID GB/T 35276 recommends and GmSSL / gmssl use by default.
DEFAULT_UID: bytes = _native.SM2_DEFAULT_UID
#: The most PBKDF2 iterations an encrypted key file may ask for unless
#: ``max_iterations=`` allows more (OpenSSL and GmSSL write 2,048 to 65,536).
DEFAULT_MAX_ITERATIONS: int = _native.SM2_DEFAULT_MAX_ITERATIONS

Mode = Literal["c1c3c2", "c1c2c3", "der"]
Encoding = Literal["der", "raw"]
KeyFormat = Literal["pkcs8", "sec1"]
KeyEncryption = Literal["sm4", "aes-256-cbc"]

#: Ciphertext layouts accepted by ``mode=`` (the core checks the names).
MODES: tuple[str, ...] = tuple(_native.SM2_MODES)
#: Signature encodings accepted by ``encoding=``.
ENCODINGS: tuple[str, ...] = tuple(_native.SM2_ENCODINGS)


def _max_iterations(value: int | None) -> int:
    return DEFAULT_MAX_ITERATIONS if value is None else value


class PublicKey(PublicKeyMixin):
    """An SM2 public key (a point on the recommended curve). Immutable."""

    __slots__ = ("_key",)
    _key: _native.Sm2PublicKey

    def __init__(self) -> None:
        raise ShangmiTypeError("use PublicKey.from_bytes / from_pem / from_der or PrivateKey.public_key()")

    @classmethod
    def _wrap(cls, key: _native.Sm2PublicKey) -> PublicKey:
        obj = object.__new__(cls)
        obj._key = key
        return obj

    # -- construction and export ------------------------------------------------

    @classmethod
    def from_bytes(cls, data: Buffer) -> PublicKey:
        """From 65-byte ``04‖x‖y``, 33-byte ``02/03‖x`` or 64-byte ``x‖y``.

        Raises :class:`InvalidKey` for points off the curve, the point at
        infinity, coordinates ≥ p, or any other length.
        """
        return cls._wrap(_native.Sm2PublicKey.from_bytes(data))

    @classmethod
    def from_der(cls, data: Buffer) -> PublicKey:
        """From DER SubjectPublicKeyInfo (id-ecPublicKey with the SM2 curve, or the SM2 OID)."""
        return cls._wrap(_native.Sm2PublicKey.from_der(data))

    @classmethod
    def from_pem(cls, data: Buffer | str) -> PublicKey:
        """From exactly one ``-----BEGIN PUBLIC KEY-----`` block; only whitespace
        may surround it (use :meth:`from_pem_all` for a bundle)."""
        return cls._wrap(_native.Sm2PublicKey.from_pem(_pem_bytes(data)))

    @classmethod
    def from_pem_all(cls, data: Buffer | str) -> list[PublicKey]:
        """Every key of a bundle of ``PUBLIC KEY`` blocks, in order."""
        return [cls._wrap(k) for k in _native.Sm2PublicKey.from_pem_all(_pem_bytes(data))]

    def to_bytes(self, *, compressed: bool = False) -> bytes:
        """``04‖x‖y`` (65 bytes), or ``02/03‖x`` (33 bytes) if ``compressed``."""
        return self._key.to_bytes(bool(compressed))

    def to_der(self) -> bytes:
        """DER SubjectPublicKeyInfo, as ``openssl pkey -pubout -outform DER`` writes."""
        return self._key.to_der()

    def to_pem(self) -> bytes:
        """PEM SubjectPublicKeyInfo (``PUBLIC KEY``)."""
        return self._key.to_pem()

    # -- operations -----------------------------------------------------------------

    def z(self, uid: Buffer = DEFAULT_UID) -> bytes:
        """Z = SM3(ENTL ‖ uid ‖ a ‖ b ‖ xG ‖ yG ‖ xA ‖ yA), the signer-ID hash."""
        return self._key.z(uid)

    def verify(self, signature: Buffer, message: Buffer, *, uid: Buffer = DEFAULT_UID, encoding: Encoding = "der") -> None:
        """Returns None if ``signature`` is valid for ``message``; raises :class:`InvalidSignature` otherwise.

        A malformed signature (bad DER, wrong length, r or s out of range) is
        also :class:`InvalidSignature`. A signature that fails under the
        default ``uid`` but verifies under the empty one (OpenSSL 3's
        default), or the reverse, fails too, with a message saying so.
        """
        self._key.verify(signature, message, uid, encoding)

    def verify_digest(self, signature: Buffer, digest: Buffer, *, encoding: Encoding = "der") -> None:
        """Like :meth:`verify` for a caller-computed e = SM3(Z ‖ M) (32 bytes)."""
        self._key.verify_digest(signature, digest, encoding)

    def encrypt(self, plaintext: Buffer, *, mode: Mode = "c1c3c2") -> bytes:
        """Encrypts with a fresh random k; ``mode`` picks the ciphertext layout."""
        return self._key.encrypt(plaintext, mode)

    def prepare(self) -> PublicKey:
        """A new key for the same point with a precomputed table (~86 KiB).

        Use it for a key you will encrypt to or verify against many times;
        ``self`` is left as it was. Preparing a prepared key returns it as is.
        """
        if self._key.is_prepared():
            return self
        return PublicKey._wrap(self._key.prepare())

    @property
    def is_prepared(self) -> bool:
        """Whether this object carries the precomputed table."""
        return self._key.is_prepared()

    @property
    def prepared_memory(self) -> int:
        """Bytes held by the precomputed table (0 if not prepared)."""
        return self._key.prepared_memory_bytes()

    # -- Python protocol -------------------------------------------------------------

    def __repr__(self) -> str:
        prepared = ", prepared" if self.is_prepared else ""
        return f"<shangmi.sm2.PublicKey {self.to_bytes(compressed=True).hex()}{prepared}>"


class SignaturePool:
    """``n`` one-time precomputed signing nonces (k, k·G) for fast :meth:`PrivateKey.sign`.

    Each pair is consumed exactly once and wiped; an empty pool falls back to
    a fresh k. Thread-safe. Not picklable or copyable (that would reuse nonces).
    """

    __slots__ = ("_pool",)

    def __init__(self, n: int) -> None:
        self._pool = _native.Sm2SignaturePool(n)

    @property
    def remaining(self) -> int:
        """Nonces left."""
        return self._pool.remaining()

    def __len__(self) -> int:
        return self._pool.remaining()

    def refill(self, n: int) -> None:
        """Adds ``n`` fresh nonces."""
        self._pool.refill(n)

    def __reduce__(self) -> NoReturn:
        raise ShangmiTypeError("a SignaturePool holds one-time secret nonces and cannot be pickled")

    def __copy__(self) -> NoReturn:
        raise ShangmiTypeError("a SignaturePool holds one-time secret nonces and cannot be copied")

    def __deepcopy__(self, memo: object) -> NoReturn:
        raise ShangmiTypeError("a SignaturePool holds one-time secret nonces and cannot be copied")

    def __repr__(self) -> str:
        return f"<shangmi.sm2.SignaturePool remaining={self.remaining}>"


class PrivateKey(SecretKeyMixin):
    """An SM2 private key d (1 ≤ d ≤ n-2). Making one computes d·G only; its
    public key, default Z and (1+d)⁻¹ are each computed once, on first use.
    The secret leaves only through :meth:`to_bytes`, :meth:`to_der` and
    :meth:`to_pem`."""

    __slots__ = ("_key", "_public")
    _SECRET_NAME = "SM2 private keys"
    _key: _native.Sm2PrivateKey
    _public: PublicKey | None

    def __init__(self) -> None:
        raise ShangmiTypeError("use PrivateKey.generate / from_bytes / from_pem / from_der")

    @classmethod
    def _wrap(cls, key: _native.Sm2PrivateKey) -> PrivateKey:
        obj = object.__new__(cls)
        obj._key = key
        obj._public = None
        return obj

    # -- construction and export ------------------------------------------------

    @classmethod
    def generate(cls) -> PrivateKey:
        """A fresh key from the OS CSPRNG."""
        return cls._wrap(_native.Sm2PrivateKey.generate())

    @classmethod
    def from_bytes(cls, data: Buffer) -> PrivateKey:
        """From the 32-byte big-endian scalar d; :class:`InvalidKey` unless 1 ≤ d ≤ n-2."""
        return cls._wrap(_native.Sm2PrivateKey.from_bytes(data))

    @classmethod
    def from_der(
        cls, data: Buffer, password: Buffer | str | None = None, *, max_iterations: int | None = None
    ) -> PrivateKey:
        """From DER PKCS#8, encrypted PKCS#8 (give ``password``) or SEC1 ECPrivateKey.

        An encrypted file asking for more than :data:`DEFAULT_MAX_ITERATIONS`
        PBKDF2 iterations is refused (:class:`InvalidKey`, naming the count)
        unless ``max_iterations`` allows it: the file chooses the work, so an
        untrusted one must not cost seconds per parse.
        """
        return cls._wrap(_native.Sm2PrivateKey.from_der(data, _password(password), _max_iterations(max_iterations)))

    @classmethod
    def from_pem(
        cls, data: Buffer | str, password: Buffer | str | None = None, *, max_iterations: int | None = None
    ) -> PrivateKey:
        """From PEM: ``PRIVATE KEY``, ``ENCRYPTED PRIVATE KEY``, ``EC PRIVATE KEY``
        or ``SM2 PRIVATE KEY`` (including OpenSSL's ``Proc-Type: 4,ENCRYPTED`` form).

        Exactly one key block, with only whitespace around it (an ``SM2
        PARAMETERS`` block before it, as ``openssl ecparam -genkey`` writes, is
        skipped). A wrong password raises :class:`InvalidKey` ("could not
        decrypt the private key: wrong password or corrupted file");
        ``max_iterations`` as in :meth:`from_der`.
        """
        data = _pem_bytes(data)
        return cls._wrap(_native.Sm2PrivateKey.from_pem(data, _password(password), _max_iterations(max_iterations)))

    def to_bytes(self) -> bytes:
        """The 32-byte secret scalar d. Handle with care."""
        return self._key.to_bytes()

    def to_der(
        self,
        password: Buffer | str | None = None,
        *,
        format: KeyFormat = "pkcs8",
        encryption: KeyEncryption = "sm4",
    ) -> bytes:
        """PKCS#8 DER, or SEC1 with ``format="sec1"`` (unencrypted only).

        With a ``password`` the PKCS#8 is PBES2-encrypted: ``encryption="sm4"``
        (default) is PBKDF2-HMAC-SM3 + SM4-CBC as GmSSL writes; OpenSSL 3.0
        cannot read it, so for files OpenSSL must open use
        ``encryption="aes-256-cbc"`` (PBKDF2-HMAC-SHA256 + AES-256-CBC, OpenSSL's default).
        """
        return self._key.to_der(_password(password), format, encryption)

    def to_pem(
        self,
        password: Buffer | str | None = None,
        *,
        format: KeyFormat = "pkcs8",
        sec1_label: str = "SM2 PRIVATE KEY",
        encryption: KeyEncryption = "sm4",
    ) -> bytes:
        """PKCS#8 PEM (``PRIVATE KEY``, or ``ENCRYPTED PRIVATE KEY`` with a password;
        ``encryption`` as in :meth:`to_der`), or SEC1 PEM with ``format="sec1"``
        under ``sec1_label`` (OpenSSL 3 writes ``SM2 PRIVATE KEY``; older tools
        expect ``EC PRIVATE KEY``)."""
        return self._key.to_pem(_password(password), format, sec1_label, encryption)

    def public_key(self) -> PublicKey:
        """The matching public key (computed on the first call, then cached)."""
        pub = self._public
        if pub is None:
            pub = self._public = PublicKey._wrap(self._key.public_key())
        return pub

    # -- operations -----------------------------------------------------------------

    def sign(
        self,
        message: Buffer,
        *,
        uid: Buffer = DEFAULT_UID,
        encoding: Encoding = "der",
        pool: SignaturePool | None = None,
    ) -> bytes:
        """Signs SM3(Z ‖ message) with a fresh k (or one from ``pool``)."""
        if pool is None:
            return self._key.sign(message, uid, encoding, None)
        if not isinstance(pool, SignaturePool):
            raise ShangmiTypeError(f"pool must be a SignaturePool, got {type(pool).__name__}")
        return self._key.sign(message, uid, encoding, pool._pool)

    def sign_digest(self, digest: Buffer, *, encoding: Encoding = "der") -> bytes:
        """Signs a caller-computed e = SM3(Z ‖ M) (32 bytes)."""
        return self._key.sign_digest(digest, encoding)

    def decrypt(self, ciphertext: Buffer, *, mode: Mode = "c1c3c2") -> bytes:
        """The plaintext, or :class:`DecryptionError`: one opaque error for every
        ciphertext that is well-formed for ``mode`` but does not decrypt (C1 not
        on the curve, all-zero KDF output, C3 mismatch), and no plaintext is
        released. A malformed ciphertext (too short, a C1 prefix other than 04,
        broken DER, a DER coordinate not below p) raises
        :class:`InvalidInputError`, saying so when it looks like another
        layout (DER in a raw mode, the ``gmssl`` package's C1 without 04);
        those checks look only at public bytes. The native copy of the
        plaintext is wiped once it is in the returned bytes."""
        return self._key.decrypt(ciphertext, mode)

    def signature_pool(self, n: int) -> SignaturePool:
        """A :class:`SignaturePool` of ``n`` nonces (usable with any key)."""
        return SignaturePool(n)

    # -- Python protocol -------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<shangmi.sm2.PrivateKey for {self.public_key().to_bytes(compressed=True).hex()}>"


def sign_many(
    key: PrivateKey,
    messages: Iterable[Buffer],
    *,
    uid: Buffer = DEFAULT_UID,
    encoding: Encoding = "der",
) -> list[bytes]:
    """Signs every message with ``key``, in parallel over all cores (GIL
    released). A message that is not bytes-like names its index."""
    if not isinstance(key, PrivateKey):
        raise ShangmiTypeError(f"key must be a PrivateKey, got {type(key).__name__}")
    return _native.sm2_sign_many(key._key, messages, uid, encoding)


def decrypt_many(
    private_key: PrivateKey,
    ciphertexts: Iterable[Buffer],
    *,
    mode: Mode = "c1c3c2",
) -> list[bytes]:
    """Decrypts every ciphertext with ``private_key``, in parallel over all
    cores (GIL released; eight at a time per core on AVX-512 IFMA): the
    plaintexts, in order. Each item behaves as :meth:`PrivateKey.decrypt`;
    the first item that does not parse (:class:`InvalidInputError`) or does
    not decrypt (:class:`DecryptionError`) raises, its message naming the
    index, and no plaintext is returned."""
    if not isinstance(private_key, PrivateKey):
        raise ShangmiTypeError(f"private_key must be a PrivateKey, got {type(private_key).__name__}")
    return _native.sm2_decrypt_many(private_key._key, ciphertexts, mode)


def verify_many(
    items: Iterable[tuple[PublicKey, Buffer, Buffer]],
    *,
    uid: Buffer = DEFAULT_UID,
    encoding: Encoding = "der",
) -> list[bool]:
    """Verifies ``(public_key, message, signature)`` triples in parallel over all
    cores (GIL released). Returns one bool per item; malformed signatures are
    False. An item that is not such a triple raises, naming its index."""
    if isinstance(items, (str, bytes, bytearray, memoryview)) or not isinstance(items, Iterable):
        return _native.sm2_verify_many(items, uid, encoding)  # raises, naming the type
    native = [
        (item[0]._key, item[1], item[2])
        if isinstance(item, tuple) and len(item) == 3 and isinstance(item[0], PublicKey)
        else item
        for item in items
    ]
    return _native.sm2_verify_many(native, uid, encoding)


class KeyExchangeResult(KeyExchangeResultBase):
    """The outcome of :meth:`KeyExchange.compute`.

    ``key``: the shared key. ``confirmation``: the value to send the peer
    (S_A from the initiator, S_B from the responder). ``expected_confirmation``:
    what the peer should send back; check it with :meth:`check_confirmation`.
    """

    __slots__ = ()
    _ALGORITHM = "SM2"


class KeyExchange:
    """One side of the SM2 key exchange (GB/T 32918.3).

    ::

        a = sm2.KeyExchange("initiator", key_a, key_b.public_key(), uid=ida, peer_uid=idb)
        b = sm2.KeyExchange("responder", key_b, key_a.public_key(), uid=idb, peer_uid=ida)
        rb = b.compute(a.ephemeral_public_key(), 16)          # B sends R_B and rb.confirmation
        ra = a.compute(b.ephemeral_public_key(), 16, confirmation=rb.confirmation)
        rb.check_confirmation(ra.confirmation)                 # A sends S_A
        assert ra.key == rb.key

    Each object holds a fresh ephemeral key from the OS CSPRNG and computes once.
    """

    __slots__ = ("_kx", "role")

    def __init__(
        self,
        role: Literal["initiator", "responder"],
        private_key: PrivateKey,
        peer_public_key: PublicKey,
        *,
        uid: Buffer = DEFAULT_UID,
        peer_uid: Buffer = DEFAULT_UID,
    ) -> None:
        if not isinstance(private_key, PrivateKey):
            raise ShangmiTypeError(f"private_key must be a PrivateKey, got {type(private_key).__name__}")
        if not isinstance(peer_public_key, PublicKey):
            raise ShangmiTypeError(f"peer_public_key must be a PublicKey, got {type(peer_public_key).__name__}")
        self._kx = _native.Sm2KeyExchange(role, private_key._key, uid, peer_public_key._key, peer_uid)
        self.role = role

    def ephemeral_public_key(self) -> bytes:
        """This party's ephemeral point R (65 bytes), to send to the peer."""
        return self._kx.ephemeral_public_key()

    def compute(self, peer_ephemeral: Buffer, length: int, *, confirmation: Buffer | None = None) -> KeyExchangeResult:
        """Derives ``length`` bytes of shared key from the peer's ephemeral point.

        If the peer's confirmation value is already at hand (the initiator
        receives S_B together with R_B), pass it as ``confirmation`` to check
        it here (:class:`InvalidTag` on mismatch).
        """
        key, out, expected = self._kx.compute(peer_ephemeral, length, confirmation)
        result = KeyExchangeResult(key, out, expected)
        if confirmation is not None:
            result.check_confirmation(confirmation)
        return result

    def __reduce__(self) -> NoReturn:
        raise ShangmiTypeError("a KeyExchange holds a secret ephemeral key and cannot be pickled")

    def __repr__(self) -> str:
        return f"<shangmi.sm2.KeyExchange role={self.role!r}>"


# -- GB/T 35276 SM2EnvelopedKey (key envelopes between KMSs, CAs and devices) --


def wrap_enveloped_key(key: PrivateKey, recipient_public_key: PublicKey) -> bytes:
    """``key`` in a GB/T 35276 ``SM2EnvelopedKey`` (DER) for the holder of
    ``recipient_public_key``: d under SM4-ECB with a fresh key, that key
    SM2-encrypted (GM/T 0009 SM2Cipher), the public key beside them."""
    if not isinstance(key, PrivateKey):
        raise ShangmiTypeError(f"key must be a PrivateKey, got {type(key).__name__}")
    if not isinstance(recipient_public_key, PublicKey):
        raise ShangmiTypeError(f"recipient_public_key must be a PublicKey, got {type(recipient_public_key).__name__}")
    return _native.sm2_wrap_enveloped_key(key._key, recipient_public_key.to_bytes())


def unwrap_enveloped_key(data: Buffer, recipient_key: PrivateKey) -> PrivateKey:
    """The private key in a GB/T 35276 ``SM2EnvelopedKey``, opened with the
    recipient's key. Strict: the decrypted key must match the public key
    carried with it (:class:`~shangmi.InvalidKey` otherwise); a wrong
    recipient key raises :class:`~shangmi.DecryptionError`."""
    if not isinstance(recipient_key, PrivateKey):
        raise ShangmiTypeError(f"recipient_key must be a PrivateKey, got {type(recipient_key).__name__}")
    return PrivateKey._wrap(_native.sm2_unwrap_enveloped_key(data, recipient_key._key))
