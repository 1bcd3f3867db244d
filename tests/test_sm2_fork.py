"""Fork safety of SM2's precomputed secrets.

A SignaturePool or KeyExchange made before ``os.fork()`` is copied into the
child. If both processes used the copy, parent and child would sign with
the same nonce k (which gives away the private key from two signatures) or
reuse one ephemeral key. These tests fork, use the state on both sides and
check that no secret is used twice.
"""

from __future__ import annotations

import os
import warnings

import pytest

from shangmi import sm2, sm3
from shangmi.exceptions import ShangmiError

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")

N = 0xFFFFFFFEFFFFFFFFFFFFFFFFFFFFFFFF7203DF6B21C6052B53BBF40939D54123


def _in_child(fn: object) -> bytes:
    """Runs ``fn()`` (returning bytes) in a forked child; returns its output,
    or b"ERR:<exception type>:<message>" if it raised."""
    r, w = os.pipe()
    with warnings.catch_warnings():
        # Python 3.12+ warns about forking a multi-threaded process (the
        # library's worker threads); the tests fork on purpose.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.close(r)
            try:
                out = fn()  # type: ignore[operator]
            except BaseException as e:  # noqa: BLE001 - reported to the parent
                out = f"ERR:{type(e).__name__}:{e}".encode()
            os.write(w, out)
        finally:
            os._exit(0)
    os.close(w)
    chunks = []
    while True:
        b = os.read(r, 4096)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    return b"".join(chunks)


def _rs(sig: bytes) -> tuple[int, int]:
    return int.from_bytes(sig[:32], "big"), int.from_bytes(sig[32:], "big")


def _x1(key: sm2.PrivateKey, sig: bytes, msg: bytes) -> int:
    """x(k·G) mod n = r − e with e = SM3(Z ‖ M)."""
    e = int.from_bytes(sm3.hash(key.public_key().z() + msg), "big")
    return (_rs(sig)[0] - e) % N


def _recover_d(sig1: bytes, sig2: bytes) -> int | None:
    """The private key if both signatures used the same k: s(1 + d) = k − r·d
    for each, so d = (s1 − s2) / (r2 − r1 − s1 + s2) mod n."""
    (r1, s1), (r2, s2) = _rs(sig1), _rs(sig2)
    den = (r2 - r1 - s1 + s2) % N
    if den == 0:
        return None
    return (s1 - s2) * pow(den, -1, N) % N


def test_pool_made_before_fork_never_repeats_a_nonce() -> None:
    key = sm2.PrivateKey.generate()
    d = int.from_bytes(key.to_bytes(), "big")
    pool = key.signature_pool(4)

    def child() -> bytes:
        remaining = pool.remaining  # the inherited copy is wiped and empty
        sig = key.sign(b"child message", pool=pool, encoding="raw")
        return bytes([remaining]) + sig

    out = _in_child(child)
    assert not out.startswith(b"ERR"), out
    child_remaining, child_sig = out[0], out[1:]
    parent_sig = key.sign(b"parent message", pool=pool, encoding="raw")
    key.public_key().verify(child_sig, b"child message", encoding="raw")
    key.public_key().verify(parent_sig, b"parent message", encoding="raw")
    # The reproduction of the attack: with a shared k this recovers d.
    assert _recover_d(parent_sig, child_sig) != d, "private key recovered from a parent and a child signature"
    # And directly: x(k·G) = r − e differs, so k differs.
    assert _x1(key, parent_sig, b"parent message") != _x1(key, child_sig, b"child message")
    assert child_remaining == 0  # the inherited copy was wiped
    assert pool.remaining == 3  # the parent kept its pairs and used one


def test_pool_refilled_in_the_child_is_its_own() -> None:
    key = sm2.PrivateKey.generate()
    d = int.from_bytes(key.to_bytes(), "big")
    pool = key.signature_pool(2)

    def child() -> bytes:
        pool.refill(2)
        return bytes([pool.remaining]) + key.sign(b"child", pool=pool, encoding="raw")

    out = _in_child(child)
    assert not out.startswith(b"ERR"), out
    assert out[0] == 2
    parent_sig = key.sign(b"parent", pool=pool, encoding="raw")
    assert _recover_d(parent_sig, out[1:]) != d


def test_unpooled_signatures_after_fork_differ() -> None:
    # The per-thread seed buffer is refilled in the child: the same message
    # signed on both sides gives different signatures (hedged nonces from
    # different seeds), not a copy.
    key = sm2.PrivateKey.generate()
    key.sign(b"warm the seed buffer")
    out = _in_child(lambda: key.sign(b"same", encoding="raw"))
    assert not out.startswith(b"ERR"), out
    assert key.sign(b"same", encoding="raw") != out


def test_key_exchange_made_before_fork_refuses_in_the_child() -> None:
    a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    xa = sm2.KeyExchange("initiator", a, b.public_key())
    xb = sm2.KeyExchange("responder", b, a.public_key())
    ra, rb = xa.ephemeral_public_key(), xb.ephemeral_public_key()

    out = _in_child(lambda: xa.compute(rb, 16).key)
    assert out.startswith(b"ERR:"), out
    kind, message = out.split(b":", 2)[1:]
    assert b"fork" in message
    assert kind == b"InvalidInputError"

    # The parent still completes its one exchange.
    ka = xa.compute(rb, 16).key
    kb = xb.compute(ra, 16).key
    assert ka == kb

    # A key exchange started in the child works there.
    def fresh() -> bytes:
        ya = sm2.KeyExchange("initiator", a, b.public_key())
        yb = sm2.KeyExchange("responder", b, a.public_key())
        k1 = ya.compute(yb.ephemeral_public_key(), 16).key
        k2 = yb.compute(ya.ephemeral_public_key(), 16).key
        return b"ok" if k1 == k2 else b"mismatch"

    assert _in_child(fresh) == b"ok"


def test_error_is_a_shangmi_error() -> None:
    a, b = sm2.PrivateKey.generate(), sm2.PrivateKey.generate()
    xa = sm2.KeyExchange("initiator", a, b.public_key())
    rb = sm2.KeyExchange("responder", b, a.public_key()).ephemeral_public_key()

    def child() -> bytes:
        try:
            xa.compute(rb, 16)
        except ShangmiError:
            return b"shangmi"
        return b"no error"

    assert _in_child(child) == b"shangmi"


def test_keys_generated_after_fork_differ() -> None:
    """PrivateKey.generate and encryption draw from a per-thread buffer of OS
    randomness: a child must never take the bytes its parent would take next."""
    sm2.PrivateKey.generate()  # fills the parent's buffer
    pub = sm2.PrivateKey.generate().public_key()

    def child() -> bytes:
        return sm2.PrivateKey.generate().to_bytes() + pub.encrypt(b"m")[:65]

    out = _in_child(child)
    assert not out.startswith(b"ERR"), out
    parent = sm2.PrivateKey.generate().to_bytes() + pub.encrypt(b"m")[:65]
    assert out[:32] != parent[:32], "parent and child generated the same key"
    assert out[32:] != parent[32:], "parent and child used the same encryption ephemeral"
