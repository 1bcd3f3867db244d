"""SM3, HMAC-SM3 and KDF through the public API."""

from __future__ import annotations

import hmac as std_hmac

import pytest
from hypothesis import given
from hypothesis import strategies as st

import shangmi
from shangmi import sm3

from conftest import assert_gil_released, load_vectors, requires_openssl, run_openssl, unhex

SM3_VECTORS = load_vectors("sm3.json")
HASH = SM3_VECTORS["hash"]
HMAC = SM3_VECTORS["hmac"]


def message_of(v: dict) -> bytes:
    return unhex(v["message"]) * v.get("message_repeat", 1)


@pytest.mark.parametrize("v", HASH, ids=[v["id"] for v in HASH])
def test_hash_vectors(v: dict) -> None:
    msg = message_of(v)
    assert sm3.hash(msg).hex() == v["digest"]
    assert sm3.SM3(msg).hexdigest() == v["digest"]
    assert sm3.hash(bytearray(msg)).hex() == v["digest"]
    assert sm3.hash(memoryview(msg)).hex() == v["digest"]


@pytest.mark.parametrize("v", HMAC, ids=[v["id"] for v in HMAC])
def test_hmac_vectors(v: dict) -> None:
    key, msg = unhex(v["key"]), message_of(v)
    n = v.get("tag_bytes", 32)
    assert sm3.hmac(key, msg)[:n].hex() == v["tag"][: 2 * n]
    # The stdlib hmac module driving our hashlib-compatible object must agree.
    assert std_hmac.new(key, msg, digestmod=sm3.SM3).digest()[:n].hex() == v["tag"][: 2 * n]


def test_wycheproof_hmac_sm3() -> None:
    data = load_vectors("wycheproof/hmac_sm3_test.json")
    seen = {"valid": 0, "invalid": 0}
    for group in data["testGroups"]:
        tag_bytes = group["tagSize"] // 8
        for t in group["tests"]:
            tag = sm3.hmac(unhex(t["key"]), unhex(t["msg"]))[:tag_bytes]
            match = std_hmac.compare_digest(tag, unhex(t["tag"]))
            if t["result"] == "valid":
                assert match, t["tcId"]
            else:
                assert not match, t["tcId"]
            seen[t["result"]] += 1
    assert seen["valid"] > 0 and seen["invalid"] > 0


def test_kdf_vector() -> None:
    for v in load_vectors("sm2.json")["kdf"]:
        assert sm3.kdf(unhex(v["z"]), v["klen_bytes"]).hex() == v["output"]


def test_kdf_is_counter_mode_sm3() -> None:
    # Independent recomputation from the definition in GB/T 32918.4 §5.4.3.
    z = b"shangmi kdf"
    expected = b"".join(sm3.hash(z + i.to_bytes(4, "big")) for i in range(1, 5))
    for n in (0, 1, 31, 32, 33, 100, 128):
        assert sm3.kdf(z, n) == expected[:n]


def test_hashlib_protocol() -> None:
    h = sm3.SM3()
    assert (h.name, h.digest_size, h.block_size) == ("sm3", 32, 64)
    h.update(b"a")
    fork = h.copy()
    h.update(b"bc")
    assert h.digest() == sm3.hash(b"abc")
    assert fork.digest() == sm3.hash(b"a")  # copy is independent
    assert h.hexdigest() == h.digest().hex()
    assert sm3.new(b"abc").digest() == sm3.hash(b"abc")


@given(st.binary(max_size=600), st.lists(st.integers(min_value=0, max_value=600), max_size=6))
def test_streaming_equals_one_shot(data: bytes, cuts: list[int]) -> None:
    h = sm3.SM3()
    pos = 0
    for c in sorted(cuts):
        h.update(data[pos:c])
        pos = max(pos, c)
    h.update(data[pos:])
    assert h.digest() == sm3.hash(data)


@requires_openssl
@pytest.mark.parametrize("size", [0, 1, 55, 56, 64, 1000, 100_000])
def test_openssl_dgst_agrees(size: int, tmp_path) -> None:
    data = bytes((i * 131 + 7) % 256 for i in range(size))
    path = tmp_path / "in.bin"
    path.write_bytes(data)
    out = run_openssl("dgst", "-sm3", "-r", str(path)).split()[0].decode()
    assert out == sm3.hash(data).hex()


@requires_openssl
def test_openssl_hmac_agrees(tmp_path) -> None:
    key = bytes(range(70))  # longer than a block: exercises key hashing
    data = b"interop" * 999
    out = run_openssl("mac", "-digest", "SM3", "-macopt", f"hexkey:{key.hex()}", "HMAC", input=data)
    assert out.strip().decode().lower() == sm3.hmac(key, data).hex()


@pytest.mark.parametrize("bad", ["abc", 123, None, [1, 2]])
def test_non_bytes_rejected(bad: object) -> None:
    with pytest.raises(TypeError, match="bytes-like"):
        sm3.hash(bad)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        sm3.SM3().update(bad)  # type: ignore[arg-type]


def test_kdf_bad_length() -> None:
    with pytest.raises(ValueError, match=r"length: expected an int in \[0, 2\^64 - 1\], got -1"):
        sm3.kdf(b"z", -1)
    with pytest.raises(shangmi.ShangmiError):
        sm3.kdf(b"z", -1)
    with pytest.raises(shangmi.ShangmiTypeError):
        sm3.kdf(b"z", 1.5)  # type: ignore[arg-type]


def test_kdf_length_cap_is_a_clear_error_not_memory_error() -> None:
    assert sm3.MAX_KDF_LEN == 1 << 30
    for n in (sm3.MAX_KDF_LEN + 1, 32 * (2**32 - 1), 2**62):
        with pytest.raises(shangmi.InvalidInputError, match="at most 1073741824 bytes"):
            sm3.kdf(b"z", n)


def test_hash_releases_the_gil() -> None:
    """A Python thread keeps running while another thread hashes a big buffer."""
    data = bytes(64 << 20)
    assert_gil_released(lambda: sm3.hash(data))


# "avx512f": the AVX2 assembly variant; "avx": the scalar BMI2 one (AVX2
# integer ops stay, so hash_many keeps 8 lanes only where avx is unmasked);
# "bmi2" and "avx512f,avx2": the portable one.
@pytest.mark.parametrize("backend", ["all", "avx512f", "avx", "bmi2", "avx512f,avx2"])
def test_forced_backends_pass_the_vectors(backend: str) -> None:
    """Each slower compiled variant, selected by masking CPU features, passes every vector."""
    import os
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from shangmi import sm3\n"
        "d = json.load(open(sys.argv[1]))\n"
        "for v in d['hash']:\n"
        "    m = bytes.fromhex(v['message']) * v.get('message_repeat', 1)\n"
        "    assert sm3.hash(m).hex() == v['digest'], v['id']\n"
        "msgs = [bytes(range(256)) * (i // 7) + bytes(i % 131) for i in range(300)]\n"
        "assert sm3.hash_many(msgs) == [sm3.hash(m) for m in msgs]\n"
        "print(len(d['hash']))\n"
    )
    from conftest import VECTORS

    env = dict(os.environ, SHANGMI_CPU_DISABLE=backend)
    proc = subprocess.run([sys.executable, "-c", code, str(VECTORS / "sm3.json")], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert int(proc.stdout) == len(HASH)


@given(st.lists(st.binary(max_size=300), max_size=40))
def test_hash_many_multi_buffer_equals_hash_of_each(msgs: list[bytes]) -> None:
    # Up to 40 messages of mixed lengths: several 8- or 16-lane batches.
    assert sm3.hash_many(msgs) == [sm3.hash(m) for m in msgs]


def test_hash_many_equals_hash_of_each() -> None:
    msgs = [bytes([i % 256]) * (i * 101) for i in range(200)] + [bytearray(b"abc"), memoryview(b"abc")]
    assert sm3.hash_many(msgs) == [sm3.hash(m) for m in msgs]
    assert sm3.hash_many(iter([])) == []
    with pytest.raises(TypeError, match="message 1: expected a bytes-like object"):
        sm3.hash_many([b"ok", "not bytes"])  # type: ignore[list-item]


@given(st.binary(max_size=100), st.lists(st.binary(max_size=2000), max_size=40))
def test_hmac_many_equals_the_standard_library_hmac_of_each(key: bytes, msgs: list[bytes]) -> None:
    # The reference is Python's own HMAC construction over the SM3 object
    # (itself checked against GB/T 32905's examples above).
    want = [std_hmac.new(key, m, digestmod=sm3.SM3).digest() for m in msgs]
    assert sm3.hmac_many(key, msgs) == want


def test_hmac_many_large_batch_and_errors() -> None:
    key = bytes(range(70))  # longer than a block: hashed first (RFC 2104)
    msgs = [bytes([i % 251]) * (i * 997) for i in range(40)] + [bytearray(b"abc"), memoryview(b"abc")]
    assert sm3.hmac_many(key, msgs) == [std_hmac.new(key, bytes(m), digestmod=sm3.SM3).digest() for m in msgs]
    assert sm3.hmac_many(key, iter([])) == []
    with pytest.raises(TypeError, match="message 1: expected a bytes-like object"):
        sm3.hmac_many(key, [b"ok", "not bytes"])  # type: ignore[list-item]
