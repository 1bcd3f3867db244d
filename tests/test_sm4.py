"""SM4 through the public Python API: every entry of vectors/sm4.json, the
Wycheproof SM4-GCM/CCM files, properties (hypothesis), OpenSSL CLI interop
and error handling. test_portable_backend_subprocess re-runs the vector tests
with SHANGMI_CPU_DISABLE=all so both backends are covered."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import shangmi
from shangmi import sm4
from shangmi.exceptions import AlreadyFinalized
from conftest import assert_gil_released, load_vectors, requires_openssl, run_openssl, unhex

V = load_vectors("sm4.json")
GCM_W = load_vectors("wycheproof/sm4_gcm_test.json")
CCM_W = load_vectors("wycheproof/sm4_ccm_test.json")


def ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries]


# --- known-answer vectors ---------------------------------------------------


@pytest.mark.parametrize("e", V["block"], ids=ids(V["block"]))
def test_vectors_block(e: dict[str, Any]) -> None:
    c = sm4.SM4(unhex(e["key"]))
    x = unhex(e["plaintext"])
    for _ in range(e.get("iterations", 1)):
        x = c.encrypt_block(x)
    assert x == unhex(e["ciphertext"])
    for _ in range(e.get("iterations", 1)):
        x = c.decrypt_block(x)
    assert x == unhex(e["plaintext"])


@pytest.mark.parametrize("e", V["key_schedule"], ids=ids(V["key_schedule"]))
def test_vectors_key_schedule_via_first_round(e: dict[str, Any]) -> None:
    # The round keys are internal; check them independently: one SM4 round
    # computed here in Python from the published rk0 must match what the
    # vector's key does to the same block after 32 rounds is covered in Rust.
    # Here: the published schedule must reproduce the standard ciphertext
    # with a tiny pure-Python SM4 (S-box taken from shangmi would be circular,
    # so use gmssl's table as the independent source).
    gmssl_sm4 = pytest.importorskip("gmssl.sm4")
    sbox = gmssl_sm4.SM4_BOXES_TABLE
    rk = [int(w, 16) for w in e["round_keys"]]

    def rot(x: int, n: int) -> int:
        return ((x << n) | (x >> (32 - n))) & 0xFFFFFFFF

    def t(x: int) -> int:
        b = bytes(sbox[v] for v in x.to_bytes(4, "big"))
        y = int.from_bytes(b, "big")
        return y ^ rot(y, 2) ^ rot(y, 10) ^ rot(y, 18) ^ rot(y, 24)

    block = os.urandom(16)
    x = [int.from_bytes(block[i : i + 4], "big") for i in range(0, 16, 4)]
    for k in rk:
        x = x[1:] + [x[0] ^ t(x[1] ^ x[2] ^ x[3] ^ k)]
    want = b"".join(w.to_bytes(4, "big") for w in reversed(x))
    assert sm4.SM4(unhex(e["key"])).encrypt_block(block) == want


@pytest.mark.parametrize("e", V["ecb"], ids=ids(V["ecb"]))
def test_vectors_ecb(e: dict[str, Any]) -> None:
    c = sm4.SM4ECB(unhex(e["key"]))
    assert c.encrypt(unhex(e["plaintext"]), padding=False) == unhex(e["ciphertext"])
    assert c.decrypt(unhex(e["ciphertext"]), padding=False) == unhex(e["plaintext"])


@pytest.mark.parametrize("e", V["cbc"], ids=ids(V["cbc"]))
def test_vectors_cbc(e: dict[str, Any]) -> None:
    c = sm4.SM4CBC(unhex(e["key"]))
    iv, p, ct = unhex(e["iv"]), unhex(e["plaintext"]), unhex(e["ciphertext"])
    assert c.encrypt(iv, p, padding=False) == ct
    assert c.decrypt(iv, ct, padding=False) == p
    enc = c.encryptor(iv, padding=False)
    assert b"".join(enc.update(p[i : i + 5]) for i in range(0, len(p), 5)) + enc.finalize() == ct
    dec = c.decryptor(iv, padding=False)
    assert b"".join(dec.update(ct[i : i + 7]) for i in range(0, len(ct), 7)) + dec.finalize() == p


@pytest.mark.parametrize("e", V["ctr"], ids=ids(V["ctr"]))
def test_vectors_ctr(e: dict[str, Any]) -> None:
    c = sm4.SM4CTR(unhex(e["key"]))
    iv, p, ct = unhex(e["iv"]), unhex(e["plaintext"]), unhex(e["ciphertext"])
    assert c.encrypt(iv, p) == ct
    assert c.decrypt(iv, ct) == p
    s = c.encryptor(iv)
    assert b"".join(s.update(p[i : i + 3]) for i in range(0, len(p), 3)) + s.finalize() == ct


@pytest.mark.parametrize("e", V["cfb"], ids=ids(V["cfb"]))
def test_vectors_cfb(e: dict[str, Any]) -> None:
    c = sm4.SM4CFB(unhex(e["key"]))
    iv, p, ct = unhex(e["iv"]), unhex(e["plaintext"]), unhex(e["ciphertext"])
    assert c.encrypt(iv, p) == ct
    assert c.decrypt(iv, ct) == p


@pytest.mark.parametrize("e", V["ofb"], ids=ids(V["ofb"]))
def test_vectors_ofb(e: dict[str, Any]) -> None:
    c = sm4.SM4OFB(unhex(e["key"]))
    iv, p, ct = unhex(e["iv"]), unhex(e["plaintext"]), unhex(e["ciphertext"])
    assert c.encrypt(iv, p) == ct
    assert c.decrypt(iv, ct) == p


@pytest.mark.parametrize("e", V["gcm"], ids=ids(V["gcm"]))
def test_vectors_gcm(e: dict[str, Any]) -> None:
    g = sm4.SM4GCM(unhex(e["key"]), tag_length=e["tag_bytes"])
    iv, aad, p = unhex(e["iv"]), unhex(e["aad"]), unhex(e["plaintext"])
    want = unhex(e["ciphertext"]) + unhex(e["tag"])
    assert g.encrypt(iv, p, aad) == want
    assert g.decrypt(iv, want, aad) == p
    enc = g.encryptor(iv, aad)
    ct = enc.update(p) + enc.finalize()
    assert ct + enc.tag == want
    dec = g.decryptor(iv, unhex(e["tag"]), aad)
    assert dec.update(unhex(e["ciphertext"])) == p
    assert dec.finalize() == b""


@pytest.mark.parametrize("e", V["ccm"], ids=ids(V["ccm"]))
def test_vectors_ccm(e: dict[str, Any]) -> None:
    c = sm4.SM4CCM(unhex(e["key"]), tag_length=e["tag_bytes"])
    iv, aad, p = unhex(e["iv"]), unhex(e["aad"]), unhex(e["plaintext"])
    want = unhex(e["ciphertext"]) + unhex(e["tag"])
    assert c.encrypt(iv, p, aad) == want
    assert c.decrypt(iv, want, aad) == p


@pytest.mark.parametrize("e", V["xts"], ids=ids(V["xts"]))
def test_vectors_xts(e: dict[str, Any]) -> None:
    std = "ieee" if e["xts_variant"].startswith("IEEE") else "gb"
    x = sm4.SM4XTS(unhex(e["key"]), standard=std)
    tw, p, ct = unhex(e["tweak"]), unhex(e["plaintext"]), unhex(e["ciphertext"])
    assert x.encrypt(tw, p) == ct
    assert x.decrypt(tw, ct) == p


def _wycheproof_cases(doc: dict[str, Any]) -> list[Any]:
    out = []
    for g in doc["testGroups"]:
        for t in g["tests"]:
            out.append(pytest.param(g["tagSize"] // 8, t, id=f"tc{t['tcId']}-{t['result']}"))
    return out


def _aead_check(cls: Any, tag_len: int, t: dict[str, Any]) -> None:
    key, iv, aad, msg = unhex(t["key"]), unhex(t["iv"]), unhex(t["aad"]), unhex(t["msg"])
    ct = unhex(t["ct"]) + unhex(t["tag"])
    if t["result"] == "valid":
        a = cls(key, tag_length=tag_len)
        assert a.encrypt(iv, msg, aad) == ct
        assert a.decrypt(iv, ct, aad) == msg
    else:
        with pytest.raises((shangmi.InvalidTag, ValueError)) as info:
            cls(key, tag_length=tag_len).decrypt(iv, ct, aad)
        if "ModifiedTag" in t["flags"]:
            assert isinstance(info.value, shangmi.InvalidTag)


@pytest.mark.parametrize("tag_len,t", _wycheproof_cases(GCM_W))
def test_wycheproof_gcm(tag_len: int, t: dict[str, Any]) -> None:
    _aead_check(sm4.SM4GCM, tag_len, t)


@pytest.mark.parametrize("tag_len,t", _wycheproof_cases(CCM_W))
def test_wycheproof_ccm(tag_len: int, t: dict[str, Any]) -> None:
    _aead_check(sm4.SM4CCM, tag_len, t)


# --- properties ---------------------------------------------------------------

KEY = st.binary(min_size=16, max_size=16)
IV = st.binary(min_size=16, max_size=16)
DATA = st.binary(max_size=600)


@given(KEY, IV, DATA)
def test_round_trips(key: bytes, iv: bytes, data: bytes) -> None:
    assert sm4.SM4ECB(key).decrypt(sm4.SM4ECB(key).encrypt(data)) == data
    assert sm4.SM4CBC(key).decrypt(iv, sm4.SM4CBC(key).encrypt(iv, data)) == data
    for cls in (sm4.SM4CTR, sm4.SM4CFB, sm4.SM4OFB):
        c = cls(key)
        ct = c.encrypt(iv, data)
        assert len(ct) == len(data)
        assert c.decrypt(iv, ct) == data
    g = sm4.SM4GCM(key)
    assert g.decrypt(iv[:12], g.encrypt(iv[:12], data, iv), iv) == data
    c = sm4.SM4CCM(key, tag_length=8)
    assert c.decrypt(iv[:13], c.encrypt(iv[:13], data, iv), iv) == data
    if len(data) >= 16 and key != iv:
        for std in ("gb", "ieee"):
            x = sm4.SM4XTS(key + iv, standard=std)
            assert x.decrypt(iv, x.encrypt(iv, data)) == data


@given(KEY, IV, DATA)
def test_matches_cryptography(key: bytes, iv: bytes, data: bytes) -> None:
    """pyca/cryptography (OpenSSL) as an independent implementation."""
    ciphers = pytest.importorskip("cryptography.hazmat.primitives.ciphers")
    alg, modes = ciphers.algorithms.SM4(key), ciphers.modes

    def ossl(mode: Any, d: bytes) -> bytes:
        e = ciphers.Cipher(alg, mode).encryptor()
        return bytes(e.update(d) + e.finalize())

    assert sm4.SM4CTR(key).encrypt(iv, data) == ossl(modes.CTR(iv), data)
    try:  # CFB and OFB moved to the "decrepit" package in cryptography 47
        from cryptography.hazmat.decrepit.ciphers import modes as old_modes
    except ImportError:  # pragma: no cover - older cryptography
        old_modes = modes
    assert sm4.SM4CFB(key).encrypt(iv, data) == ossl(old_modes.CFB(iv), data)
    assert sm4.SM4OFB(key).encrypt(iv, data) == ossl(old_modes.OFB(iv), data)
    whole = data[: len(data) // 16 * 16]
    assert sm4.SM4CBC(key).encrypt(iv, whole, padding=False) == ossl(modes.CBC(iv), whole)
    assert sm4.SM4ECB(key).encrypt(whole, padding=False) == ossl(modes.ECB(), whole)
    try:
        e = ciphers.Cipher(alg, modes.GCM(iv[:12])).encryptor()
        e.authenticate_additional_data(iv)
        want = e.update(data) + e.finalize() + e.tag
    except Exception:  # noqa: BLE001 - this cryptography build lacks SM4-GCM
        return
    assert sm4.SM4GCM(key).encrypt(iv[:12], data, iv) == want


@pytest.mark.parametrize("size", [767, 768, 769, 1008, 1024, 1041, 1024 + 512 + 256 + 48, 3 * 1024 + 5, (1 << 20) + 7])
def test_long_inputs_match_cryptography(size: int) -> None:
    """Sizes around the SIMD step (64 blocks), each of its tails (32, 16,
    fewer blocks), and GCM's 3 KiB step."""
    ciphers = pytest.importorskip("cryptography.hazmat.primitives.ciphers")
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(size)
    alg, modes = ciphers.algorithms.SM4(key), ciphers.modes

    def ossl(mode: Any, d: bytes, decrypt: bool = False) -> bytes:
        c = ciphers.Cipher(alg, mode)
        ctx = c.decryptor() if decrypt else c.encryptor()
        return bytes(ctx.update(d) + ctx.finalize())

    assert sm4.SM4CTR(key).encrypt(iv, data) == ossl(modes.CTR(iv), data)
    whole = data[: size // 16 * 16]
    assert sm4.SM4CBC(key).decrypt(iv, whole, padding=False) == ossl(modes.CBC(iv), whole, decrypt=True)
    assert sm4.SM4ECB(key).encrypt(whole, padding=False) == ossl(modes.ECB(), whole)
    assert sm4.SM4ECB(key).decrypt(whole, padding=False) == ossl(modes.ECB(), whole, decrypt=True)
    # Padded one-shot paths (the kernel reads the input, the last block is
    # handled apart) against OpenSSL on PKCS#7-padded data.
    pkcs7 = pytest.importorskip("cryptography.hazmat.primitives.padding").PKCS7(128).padder()
    padded = pkcs7.update(data) + pkcs7.finalize()
    assert sm4.SM4CBC(key).decrypt(iv, ossl(modes.CBC(iv), padded), padding=True) == data
    assert sm4.SM4ECB(key).decrypt(ossl(modes.ECB(), padded), padding=True) == data
    assert sm4.SM4ECB(key).encrypt(data, padding=True) == ossl(modes.ECB(), padded)
    e = ciphers.Cipher(alg, modes.GCM(iv[:12])).encryptor()
    e.authenticate_additional_data(b"aad")
    want = e.update(data) + e.finalize() + e.tag
    assert sm4.SM4GCM(key).encrypt(iv[:12], data, b"aad") == want
    assert sm4.SM4GCM(key).decrypt(iv[:12], want, b"aad") == data


def _chunks(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({min(c, len(data)) for c in cuts})
    out, prev = [], 0
    for p in points + [len(data)]:
        out.append(data[prev:p])
        prev = p
    return out


@given(KEY, IV, DATA, st.lists(st.integers(0, 600), max_size=8), st.booleans())
def test_streaming_equals_one_shot(key: bytes, iv: bytes, data: bytes, cuts: list[int], padding: bool) -> None:
    pieces = _chunks(data, cuts)
    cbc = sm4.SM4CBC(key)
    if padding or len(data) % 16 == 0:
        one = cbc.encrypt(iv, data, padding=padding)
        e = cbc.encryptor(iv, padding=padding)
        assert b"".join(e.update(p) for p in pieces) + e.finalize() == one
        d = cbc.decryptor(iv, padding=padding)
        assert b"".join(d.update(p) for p in _chunks(one, cuts)) + d.finalize() == data
    ctr = sm4.SM4CTR(key)
    e = ctr.encryptor(iv)
    assert b"".join(e.update(p) for p in pieces) + e.finalize() == ctr.encrypt(iv, data)
    g = sm4.SM4GCM(key)
    one = g.encrypt(iv, data, b"hdr")
    ge = g.encryptor(iv, b"hdr")
    body = b"".join(ge.update(p) for p in pieces) + ge.finalize()
    assert body + ge.tag == one
    gd = g.decryptor(iv, ge.tag, b"hdr")
    assert b"".join(gd.update(p) for p in _chunks(body, cuts)) == data
    gd.finalize()


@given(KEY, st.binary(min_size=1, max_size=40), st.binary(max_size=100), st.binary(max_size=40), st.data())
def test_any_flipped_bit_is_rejected(key: bytes, nonce: bytes, data: bytes, aad: bytes, draw: Any) -> None:
    for cls, n in ((sm4.SM4GCM, nonce), (sm4.SM4CCM, (nonce * 13)[:13])):
        a = cls(key)
        ct = a.encrypt(n, data, aad)
        which = draw.draw(st.sampled_from(["ct", "nonce", "aad"] if aad else ["ct", "nonce"]))
        if which == "ct":
            i = draw.draw(st.integers(0, len(ct) * 8 - 1))
            bad = bytearray(ct)
            bad[i // 8] ^= 1 << (i % 8)
            args = (n, bytes(bad), aad)
        elif which == "nonce":
            i = draw.draw(st.integers(0, len(n) * 8 - 1))
            bn = bytearray(n)
            bn[i // 8] ^= 1 << (i % 8)
            args = (bytes(bn), ct, aad)
        else:
            i = draw.draw(st.integers(0, len(aad) * 8 - 1))
            ba = bytearray(aad)
            ba[i // 8] ^= 1 << (i % 8)
            args = (n, ct, bytes(ba))
        with pytest.raises(shangmi.InvalidTag):
            a.decrypt(*args)
    # Streaming GCM decryption rejects a flipped tag bit too.
    g = sm4.SM4GCM(key)
    ct = g.encrypt(nonce, data, aad)
    tag = bytearray(ct[-16:])
    tag[draw.draw(st.integers(0, 15))] ^= 1 << draw.draw(st.integers(0, 7))
    d = g.decryptor(nonce, bytes(tag), aad)
    d.update(ct[:-16])
    with pytest.raises(shangmi.InvalidTag):
        d.finalize()


# --- OpenSSL CLI interop --------------------------------------------------------


@requires_openssl
@pytest.mark.parametrize("mode", ["cbc", "ctr", "ecb"])
@pytest.mark.parametrize("nopad", [False, True])
@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 64, 1000, 4096])
def test_openssl_interop(mode: str, nopad: bool, size: int) -> None:
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(size)
    args = ["enc", f"-sm4-{mode}", "-K", key.hex()]
    if mode != "ecb":
        args += ["-iv", iv.hex()]
    if nopad:
        args.append("-nopad")
    pad = not nopad

    def ours_enc(d: bytes) -> bytes:
        if mode == "cbc":
            return sm4.SM4CBC(key).encrypt(iv, d, padding=pad)
        if mode == "ecb":
            return sm4.SM4ECB(key).encrypt(d, padding=pad)
        return sm4.SM4CTR(key).encrypt(iv, d)

    def ours_dec(d: bytes) -> bytes:
        if mode == "cbc":
            return sm4.SM4CBC(key).decrypt(iv, d, padding=pad)
        if mode == "ecb":
            return sm4.SM4ECB(key).decrypt(d, padding=pad)
        return sm4.SM4CTR(key).decrypt(iv, d)

    if nopad and size % 16 and mode != "ctr":
        # Both sides refuse partial blocks without padding.
        with pytest.raises(ValueError, match="multiple of 16 bytes"):
            ours_enc(data)
        with pytest.raises(AssertionError, match="failed"):
            run_openssl(*args, input=data)
        return
    theirs = run_openssl(*args, input=data)
    assert ours_enc(data) == theirs
    assert ours_dec(theirs) == data
    ours = ours_enc(data)
    assert run_openssl(*args, "-d", input=ours) == data


# --- errors ------------------------------------------------------------------------


def test_error_messages() -> None:
    k = bytes(16)
    with pytest.raises(shangmi.InvalidKey, match="^SM4 key must be 16 bytes, got 15$"):
        sm4.SM4(bytes(15))
    for cls in (sm4.SM4ECB, sm4.SM4CBC, sm4.SM4CTR, sm4.SM4GCM, sm4.SM4CCM):
        with pytest.raises(ValueError, match="SM4 key must be 16 bytes, got 17"):
            cls(bytes(17))
    with pytest.raises(ValueError, match="^IV must be 16 bytes, got 8$"):
        sm4.SM4CBC(k).encrypt(bytes(8), b"")
    with pytest.raises(ValueError, match="^IV must be 16 bytes, got 12$"):
        sm4.SM4CTR(k).encrypt(bytes(12), b"")
    with pytest.raises(ValueError, match="^data must be a multiple of 16 bytes when padding=False, got 5$"):
        sm4.SM4CBC(k).encrypt(bytes(16), bytes(5), padding=False)
    with pytest.raises(ValueError, match="^data must be a multiple of 16 bytes when padding=False, got 17$"):
        sm4.SM4ECB(k).encrypt(bytes(17), padding=False)
    with pytest.raises(shangmi.InvalidInputError, match="padding"):
        # A zero block decrypts to garbage whose last byte is almost never valid padding;
        # build a ciphertext whose plaintext ends in 0x00 to be sure.
        ct = sm4.SM4CBC(k).encrypt(bytes(16), bytes(16), padding=False)
        sm4.SM4CBC(k).decrypt(bytes(16), ct)
    with pytest.raises(ValueError, match="GCM nonce must be at least 1 byte, got 0"):
        sm4.SM4GCM(k).encrypt(b"", b"x")
    for n in (0, 6, 14, 16):
        with pytest.raises(ValueError, match=f"CCM nonce must be 7 to 13 bytes, got {n}"):
            sm4.SM4CCM(k).encrypt(bytes(n), b"x")
    for t in (0, 3, 5, 9, 11, 17):
        with pytest.raises(ValueError, match="GCM tag length"):
            sm4.SM4GCM(k, tag_length=t)
    for t in (2, 5, 7, 18):
        with pytest.raises(ValueError, match="CCM tag length"):
            sm4.SM4CCM(k, tag_length=t)
    with pytest.raises(ValueError, match="SM4-XTS key must be 32 bytes, got 16"):
        sm4.SM4XTS(k)
    with pytest.raises(ValueError, match='standard must be "gb" or "ieee"'):
        sm4.SM4XTS(bytes(range(32)), standard="xex")
    with pytest.raises(ValueError, match="at least 16 bytes, got 15"):
        sm4.SM4XTS(bytes(range(32))).encrypt(bytes(16), bytes(15))
    for key in (bytes(32), bytes(range(16)) * 2):
        with pytest.raises(shangmi.InvalidKey, match="halves must differ"):
            sm4.SM4XTS(key)
    with pytest.raises(shangmi.InvalidTag):
        sm4.SM4GCM(k).decrypt(bytes(12), bytes(15))
    for bad in ("text", 123, None, [1, 2]):
        with pytest.raises(TypeError):
            sm4.SM4(bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            sm4.SM4CTR(k).encrypt(bytes(16), bad)  # type: ignore[arg-type]
        with pytest.raises(TypeError):
            sm4.SM4GCM(k).encrypt(bytes(12), b"", aad=bad if bad is not None else 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm4.SM4CBC(k).encrypt(bytes(16), b"", padding=1)  # type: ignore[arg-type]


def test_accepts_every_buffer_type() -> None:
    k, iv, d = bytes(range(16)), bytes(16), bytes(range(48))
    want = sm4.SM4CBC(k).encrypt(iv, d)
    for conv in (bytes, bytearray, memoryview):
        assert sm4.SM4CBC(conv(k)).encrypt(conv(iv), conv(d)) == want


def test_contexts_finalize_once_and_gcm_tag_order() -> None:
    e = sm4.SM4CTR(bytes(16)).encryptor(bytes(16))
    e.finalize()
    with pytest.raises(AlreadyFinalized, match="already finalized"):
        e.update(b"x")
    with pytest.raises(AlreadyFinalized):
        e.finalize()
    assert issubclass(AlreadyFinalized, shangmi.ShangmiError)
    g = sm4.SM4GCM(bytes(16)).encryptor(bytes(12))
    with pytest.raises(RuntimeError):
        _ = g.tag


def test_gcm_decryptor_state_machine_messages_come_from_the_core() -> None:
    g = sm4.SM4GCM(bytes(16))
    e = g.encryptor(bytes(12), b"aad")
    ct = e.update(b"hello") + e.finalize()
    tag = e.tag
    with pytest.raises(ValueError, match="GCM tag must be 16 bytes, got 15"):
        g.decryptor(bytes(12), tag[:15], b"aad")
    d = g.decryptor(bytes(12), None, b"aad")
    assert d.update(ct) == b"hello"
    with pytest.raises(ValueError, match="created without a tag: call finalize_with_tag"):
        d.finalize()
    assert d.finalize_with_tag(tag) == b""  # still usable after the refusal
    with pytest.raises(AlreadyFinalized):
        d.finalize_with_tag(tag)
    d = g.decryptor(bytes(12), tag, b"aad")
    d.update(ct)
    with pytest.raises(ValueError, match="only for GCM decryptors created without a tag"):
        d.finalize_with_tag(tag)
    assert d.finalize() == b""
    bad = bytes([tag[0] ^ 1]) + tag[1:]
    d = g.decryptor(bytes(12), None, b"aad")
    d.update(ct)
    with pytest.raises(shangmi.InvalidTag):
        d.finalize_with_tag(bad)
    with pytest.raises(AlreadyFinalized):
        d.finalize_with_tag(tag)
    with pytest.raises(ValueError, match="GCM nonce must be at least 1 byte, got 0"):
        g.decrypt(b"", b"short")
    with pytest.raises(shangmi.InvalidTag):
        g.decrypt(bytes(12), b"short")
    with pytest.raises(ValueError, match='XTS standard must be "gb" or "ieee", got "x"'):
        sm4.SM4XTS(bytes(range(32)), standard="x")
    with pytest.raises(ValueError, match="IV must be 16 bytes, got 3"):
        sm4.SM4CTR(bytes(16)).encryptor(b"abc")


def test_cbc_decryptor_holds_back_last_block() -> None:
    c = sm4.SM4CBC(bytes(16))
    ct = c.encrypt(bytes(16), bytes(32))  # 48 bytes with padding
    d = c.decryptor(bytes(16))
    assert d.update(ct) == bytes(32)
    assert d.finalize() == b""


def test_keys_do_not_pickle() -> None:
    import pickle

    for obj in (sm4.SM4(bytes(16)), sm4.SM4GCM(bytes(16)), sm4.SM4XTS(bytes(range(32)))):
        with pytest.raises(TypeError):
            pickle.dumps(obj)


def test_gil_released_during_large_ctr() -> None:
    data = bytes(32 << 20)
    native = sm4.SM4CTR(bytes(16))._c  # the native call itself, not the Python wrapper
    assert_gil_released(lambda: native.ctr(bytes(16), data))


# --- the portable backend -------------------------------------------------------


@pytest.mark.skipif(os.environ.get("SHANGMI_CPU_DISABLE") == "all", reason="already running portable")
def test_portable_backend_subprocess() -> None:
    root = Path(__file__).resolve().parent.parent
    env = dict(os.environ, SHANGMI_CPU_DISABLE="all")
    out = subprocess.run(
        [sys.executable, "-c", "from shangmi import sm4; print(sm4.backend())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "portable-64"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            str(Path(__file__)),
            "-k",
            "vectors or wycheproof or round_trips or streaming or error",
        ],
        env=dict(env, HYPOTHESIS_PROFILE="ci"),
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout


# --- many messages ------------------------------------------------------------


@given(st.lists(st.tuples(IV, DATA), max_size=80), st.booleans())
def test_cbc_many_equals_one_by_one(items: list[tuple[bytes, bytes]], padding: bool) -> None:
    c = sm4.SM4CBC(bytes(range(16)))
    if not padding:
        items = [(iv, d[: len(d) - len(d) % 16]) for iv, d in items]
    cts = c.encrypt_many(items, padding=padding)
    assert cts == [c.encrypt(iv, d, padding) for iv, d in items]
    back = c.decrypt_many([(iv, ct) for (iv, _), ct in zip(items, cts)], padding=padding)
    assert back == [d for _, d in items]


def test_cbc_many_errors_name_the_message() -> None:
    c = sm4.SM4CBC(bytes(16))
    with pytest.raises(shangmi.InvalidInputError, match="message 1: IV must be 16 bytes, got 3"):
        c.encrypt_many([(bytes(16), b"a"), (b"abc", b"b")])
    with pytest.raises(shangmi.InvalidInputError, match="message 0: data must be a multiple of 16"):
        c.encrypt_many([(bytes(16), b"abc")], padding=False)
    with pytest.raises(ValueError, match="message 2:"):
        c.decrypt_many([(bytes(16), c.encrypt(bytes(16), b"x"))] * 2 + [(bytes(16), bytes(16))])
    with pytest.raises(TypeError, match="message 0: expected a "):
        c.encrypt_many([b"not a pair"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="message 0: expected a bytes-like object"):
        c.encrypt_many([(bytes(16), "text")])  # type: ignore[list-item]
    with pytest.raises(TypeError):
        c.encrypt_many([], True)  # type: ignore[misc]
    assert c.encrypt_many([]) == []


def test_gil_released_during_large_cbc_many() -> None:
    c = sm4.SM4CBC(bytes(16))._c
    items = [(bytes(16), bytes(1 << 20))] * 16
    assert_gil_released(lambda: c.cbc_encrypt_many(items, True))


def test_gmssl_bench_loader_skips_what_it_cannot_load(tmp_path: Path) -> None:
    from shangmi._bench import gmssl_lib

    assert gmssl_lib.load(str(tmp_path / "missing.so")) is None
    (tmp_path / "junk.so").write_bytes(b"not a library")
    assert gmssl_lib.load(str(tmp_path / "junk.so")) is None
