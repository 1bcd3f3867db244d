"""ZUC-128/256, 128-EEA3, 128-EIA3 and the ZUC-256 MAC through the public API."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import assert_gil_released, load_vectors, unhex
from hypothesis import given
from hypothesis import strategies as st

from shangmi import zuc
from shangmi.cli import main as cli_main
from shangmi.exceptions import InvalidInputError, InvalidKey, ShangmiError

V = load_vectors("zuc.json")


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["id"] for e in entries]


def _mask_tail(data: bytes, length_bits: int) -> bytes:
    """The first ceil(length_bits/8) bytes with the bits beyond length_bits cleared."""
    n = (length_bits + 7) // 8
    out = bytearray(data[:n])
    if length_bits % 8:
        out[-1] &= (0xFF << (8 - length_bits % 8)) & 0xFF
    return bytes(out)


def _ivs(e: dict[str, Any]) -> list[bytes]:
    return [unhex(e[f]) for f in ("iv_packed23", "iv25") if f in e]


# --- vectors ----------------------------------------------------------------


@pytest.mark.parametrize("e", V["zuc128_keystream"], ids=_ids(V["zuc128_keystream"]))
def test_zuc128_keystream(e: dict[str, Any]) -> None:
    expected = unhex(e["keystream"])
    gen = zuc.ZUC128(unhex(e["key"]), unhex(e["iv"]))
    assert gen.keystream(len(expected)) == expected
    if "z2000" in e:
        words = gen.keystream_words(2000 - len(expected) // 4)
        assert words[-1] == int(e["z2000"], 16)


def _eea3_cases() -> list[tuple[str, dict[str, Any], bytes, bytes]]:
    cases = [(e["id"], e, unhex(e["plaintext"]), unhex(e["ciphertext"])) for e in V["eea3"]]
    d = V["source_disagreements"][0]
    assert d["vector"] == "eea3-set5"
    set5 = next(e for e in V["eea3"] if e["id"] == "eea3-set5")
    cases.append(("eea3-set5-gmssl-form", set5, unhex(d["other_plaintext"]), unhex(d["other_ciphertext"])))
    return cases


@pytest.mark.parametrize("case", _eea3_cases(), ids=[c[0] for c in _eea3_cases()])
def test_eea3(case: tuple[str, dict[str, Any], bytes, bytes]) -> None:
    _, e, pt, ct = case
    n = e["length_bits"]
    args = (unhex(e["key"]), int(e["count"], 16), e["bearer"], e["direction"])
    assert zuc.eea3(*args, pt, length_bits=n) == _mask_tail(ct, n)
    assert zuc.eea3(*args, ct, length_bits=n) == _mask_tail(pt, n)


@pytest.mark.parametrize("e", V["eia3"], ids=_ids(V["eia3"]))
def test_eia3(e: dict[str, Any]) -> None:
    mac = zuc.eia3(
        unhex(e["key"]), int(e["count"], 16), e["bearer"], e["direction"], unhex(e["message"]), length_bits=e["length_bits"]
    )
    assert mac == unhex(e["mac"])


def test_eia3_vectors_include_bit_lengths() -> None:
    assert any(e["length_bits"] % 8 for e in V["eia3"])


@pytest.mark.parametrize("e", V["zuc256_keystream"], ids=_ids(V["zuc256_keystream"]))
def test_zuc256_keystream(e: dict[str, Any]) -> None:
    for iv in _ivs(e):
        gen = zuc.ZUC256(unhex(e["key"]), iv)
        if "keystream" in e:
            expected = unhex(e["keystream"])
            assert gen.keystream(len(expected)) == expected
        else:
            pt, ct = unhex(e["plaintext"]), unhex(e["ciphertext"])
            ks = gen.keystream(len(pt))
            assert bytes(a ^ b for a, b in zip(pt, ks)) == ct


@pytest.mark.parametrize("e", V["zuc256_mac"], ids=_ids(V["zuc256_mac"]))
def test_zuc256_mac(e: dict[str, Any]) -> None:
    for iv in _ivs(e):
        tag = zuc.zuc256_mac(unhex(e["key"]), iv, unhex(e["message"]), tag_bits=e["tag_bits"], length_bits=e["length_bits"])
        assert tag == unhex(e["tag"])


# --- bad inputs -------------------------------------------------------------

K16 = bytes(16)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"bearer": 40}, "bearer must be < 32, got 40"),
        ({"bearer": -1}, "bearer: expected an int in [0, 2^32 - 1], got -1"),
        ({"direction": 2}, "direction must be 0 or 1, got 2"),
        ({"count": 1 << 32}, "count must be in [0, 2^32), got 4294967296"),
        ({"count": -5}, "count: expected an int in [0, 2^64 - 1], got -5"),
        ({"length_bits": 25}, "length_bits must be in [0, 8 * len(data)] = [0, 24], got 25"),
    ],
)
def test_bad_parameters(kwargs: dict[str, int], message: str) -> None:
    args: dict[str, Any] = {"key": K16, "count": 0, "bearer": 0, "direction": 0, "data": b"abc"}
    args.update(kwargs)
    for fn in (zuc.eea3, zuc.eia3):
        with pytest.raises(InvalidInputError) as info:
            fn(**args)
        assert str(info.value) == message
        assert isinstance(info.value, ValueError) and isinstance(info.value, ShangmiError)


def test_bad_types_and_keys() -> None:
    with pytest.raises(TypeError, match="data: expected a bytes-like object"):
        zuc.eea3(K16, 0, 0, 0, "text")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="bearer: expected an int, got float"):
        zuc.eea3(K16, 0, 1.0, 0, b"x")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        zuc.eia3(K16, "0", 0, 0, b"x")  # type: ignore[arg-type]
    with pytest.raises(InvalidKey, match="128-EEA3 key must be 16 bytes, got 15"):
        zuc.eea3(bytes(15), 0, 0, 0, b"x")
    with pytest.raises(InvalidInputError, match="ZUC-128 IV must be 16 bytes, got 17"):
        zuc.ZUC128(K16, bytes(17))
    with pytest.raises(InvalidKey, match="ZUC-256 key must be 32 bytes, got 16"):
        zuc.ZUC256(K16, bytes(23))
    with pytest.raises((InvalidInputError, InvalidKey), match="ZUC-256 IV must be 23 bytes .* or 25 bytes, got 24"):
        zuc.ZUC256(bytes(32), bytes(24))
    iv = bytearray(25)
    iv[24] = 64
    with pytest.raises(InvalidInputError, match=r"ZUC-256 IV byte 24 must be a 6-bit value \(< 64\), got 64"):
        zuc.ZUC256(bytes(32), bytes(iv))
    with pytest.raises(InvalidInputError, match="tag_bits must be 32, 64 or 128, got 48"):
        zuc.zuc256_mac(bytes(32), bytes(23), b"", tag_bits=48)
    with pytest.raises(InvalidInputError, match="nbytes: expected an int in"):
        zuc.ZUC128(K16, K16).keystream(-1)
    with pytest.raises(TypeError, match="cannot be pickled"):
        import pickle

        pickle.dumps(zuc.ZUC128(K16, K16))


def test_accepts_any_bytes_like() -> None:
    data = bytes(range(100))
    ref = zuc.eea3(K16, 7, 3, 1, data)
    assert zuc.eea3(bytearray(K16), 7, 3, 1, memoryview(data)) == ref
    assert zuc.eea3(K16, 7, 3, 1, bytearray(data)) == ref


# --- properties ---------------------------------------------------------------

params = st.tuples(
    st.binary(min_size=16, max_size=16),
    st.integers(0, 2**32 - 1),
    st.integers(0, 31),
    st.integers(0, 1),
)


@given(params, st.binary(max_size=600))
def test_eea3_is_its_own_inverse(p: tuple[bytes, int, int, int], data: bytes) -> None:
    assert zuc.eea3(*p, zuc.eea3(*p, data)) == data


@given(params, st.binary(min_size=1, max_size=200), st.data())
def test_eea3_bit_length_clears_the_tail(p: tuple[bytes, int, int, int], data: bytes, d: st.DataObject) -> None:
    n = d.draw(st.integers(0, 8 * len(data)))
    out = zuc.eea3(*p, data, length_bits=n)
    assert out == _mask_tail(zuc.eea3(*p, data), n)


@given(params, st.binary(min_size=1, max_size=200), st.data())
def test_eia3_ignores_bits_beyond_length(p: tuple[bytes, int, int, int], data: bytes, d: st.DataObject) -> None:
    n = d.draw(st.integers(0, 8 * len(data)))
    noise = d.draw(st.binary(min_size=len(data), max_size=len(data)))
    # flip only bits at positions >= n
    flipped = bytearray(data)
    for i in range(len(data)):
        keep = 0xFF if 8 * (i + 1) <= n else ((0xFF << (8 - (n - 8 * i))) & 0xFF if n > 8 * i else 0)
        flipped[i] ^= noise[i] & ~keep & 0xFF
    assert zuc.eia3(*p, bytes(flipped), length_bits=n) == zuc.eia3(*p, data, length_bits=n)
    for tag_bits in (32, 64, 128):
        a = zuc.zuc256_mac(p[0] * 2, bytes(23), data, tag_bits=tag_bits, length_bits=n)
        assert zuc.zuc256_mac(p[0] * 2, bytes(23), bytes(flipped), tag_bits=tag_bits, length_bits=n) == a


@given(st.binary(min_size=16, max_size=16), st.lists(st.integers(0, 70), max_size=20))
def test_chunked_keystream_equals_one_shot(key: bytes, sizes: list[int]) -> None:
    total = sum(sizes)
    whole = zuc.ZUC128(key, key[::-1]).keystream(total)
    gen = zuc.ZUC128(key, key[::-1])
    assert b"".join(gen.keystream(n) for n in sizes) == whole
    g256 = zuc.ZUC256(key * 2, bytes(23))
    assert b"".join(g256.keystream(n) for n in sizes) == zuc.ZUC256(key * 2, bytes(23)).keystream(total)


def test_keystream_words_match_bytes() -> None:
    ks = zuc.ZUC128(K16, K16).keystream(40)
    words = zuc.ZUC128(K16, K16).keystream_words(10)
    assert words == [int.from_bytes(ks[4 * i : 4 * i + 4], "big") for i in range(10)]


def test_iv_forms_agree() -> None:
    """The 25-byte IV and its 23-byte packing give the same keystream (independent packing here)."""
    iv25 = bytes(range(17)) + bytes([1, 63, 0, 42, 17, 5, 60, 33])
    bits = 0
    for b in iv25[17:]:
        bits = (bits << 6) | b
    iv23 = iv25[:17] + bits.to_bytes(6, "big")
    assert zuc.ZUC256(bytes(32), iv25).keystream(64) == zuc.ZUC256(bytes(32), iv23).keystream(64)


# --- GIL and backends ---------------------------------------------------------


def test_eea3_releases_the_gil() -> None:
    """A Python thread keeps running while another thread encrypts a big buffer."""
    data = bytes(32 << 20)
    assert_gil_released(lambda: zuc.eea3(K16, 1, 2, 0, data))


_PROBE = """
import json, sys
from shangmi import zuc
v = json.load(open(sys.argv[1]))
e = v["eea3"][1]
ct = zuc.eea3(bytes.fromhex(e["key"]), int(e["count"], 16), e["bearer"], e["direction"],
              bytes.fromhex(e["plaintext"]), length_bits=e["length_bits"])
m = v["eia3"][3]
mac = zuc.eia3(bytes.fromhex(m["key"]), int(m["count"], 16), m["bearer"], m["direction"],
               bytes.fromhex(m["message"]), length_bits=m["length_bits"])
# The many-message API on the same backend: every vector twice (more than one
# SIMD lane set), bits past length_bits excluded from the comparison.
es, ms = v["eea3"] * 2, v["eia3"] * 2
cts = zuc.eea3_many([(bytes.fromhex(e["key"]), int(e["count"], 16), e["bearer"], e["direction"],
                      bytes.fromhex(e["plaintext"]), e["length_bits"]) for e in es])
macs = zuc.eia3_many([(bytes.fromhex(m["key"]), int(m["count"], 16), m["bearer"], m["direction"],
                       bytes.fromhex(m["message"]), m["length_bits"]) for m in ms])
ok_many = all(c.hex()[:-2] == e["ciphertext"][: 2 * len(c) - 2] for c, e in zip(cts, es)) and [
    x.hex() for x in macs] == [m["mac"] for m in ms]
print(zuc.backend(), ct.hex() == e["ciphertext"][: 2 * len(ct)], mac.hex() == m["mac"], ok_many)
"""


@pytest.mark.parametrize("mask", ["all", "avx512f,gfni", "avx512f", "gfni", None])
def test_backends_in_subprocess(mask: str | None) -> None:
    env = dict(os.environ)
    env.pop("SHANGMI_CPU_DISABLE", None)
    if mask:
        env["SHANGMI_CPU_DISABLE"] = mask
    vectors = Path(__file__).parent / "vectors" / "zuc.json"
    out = subprocess.run([sys.executable, "-c", _PROBE, str(vectors)], env=env, capture_output=True, text=True, check=True)
    name, ok_ct, ok_mac, ok_many = out.stdout.split()
    if mask == "all":
        assert name == "portable-32"
    elif mask and platform.machine() not in ("x86_64", "AMD64"):
        # The other masks name x86 features only; elsewhere they change nothing.
        env.pop("SHANGMI_CPU_DISABLE")
        unmasked = subprocess.run(
            [sys.executable, "-c", _PROBE, str(vectors)], env=env, capture_output=True, text=True, check=True
        ).stdout.split()[0]
        assert name == unmasked
    elif mask == "avx512f,gfni":
        assert name in ("aesni-avx2-128", "portable-32")  # portable only on CPUs without AES-NI/AVX2
    elif mask == "avx512f":
        assert name in ("gfni-avx2-128", "aesni-avx2-128", "portable-32")
    elif mask == "gfni":
        assert not name.startswith("gfni-")
    assert (ok_ct, ok_mac, ok_many) == ("True", "True", "True")


# --- CLI ----------------------------------------------------------------------


def test_cli_eea3_eia3_keystream(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    e = V["eea3"][0]
    src = tmp_path / "pt.bin"
    dst = tmp_path / "ct.bin"
    src.write_bytes(unhex(e["plaintext"]))
    common = ["--key", e["key"], "--count", e["count"], "--bearer", str(e["bearer"]), "--direction", str(e["direction"])]
    bits = ["--length-bits", str(e["length_bits"])]
    assert cli_main(["zuc", "eea3", *common, *bits, "-i", str(src), "-o", str(dst)]) == 0
    assert dst.read_bytes() == _mask_tail(unhex(e["ciphertext"]), e["length_bits"])

    m = V["eia3"][2]
    src.write_bytes(unhex(m["message"]))
    common = ["--key", m["key"], "--count", m["count"], "--bearer", str(m["bearer"]), "--direction", str(m["direction"])]
    capsys.readouterr()
    assert cli_main(["zuc", "eia3", *common, "--length-bits", str(m["length_bits"]), "-i", str(src)]) == 0
    assert capsys.readouterr().out.strip() == m["mac"]

    k = V["zuc128_keystream"][2]
    assert cli_main(["zuc", "keystream", "--key", k["key"], "--iv", k["iv"], "--bytes", "8"]) == 0
    assert capsys.readouterr().out.strip() == k["keystream"]
    out = tmp_path / "ks.bin"
    z = V["zuc256_keystream"][0]
    assert cli_main(["zuc", "keystream", "--key", z["key"], "--iv", z["iv25"], "--bytes", "40", "-o", str(out)]) == 0
    assert out.read_bytes() == unhex(z["keystream"])[:40]


def test_cli_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = tmp_path / "m.bin"
    src.write_bytes(b"abc")
    args = ["zuc", "eia3", "--key", "00" * 16, "--count", "0", "--bearer", "40", "--direction", "0", "-i", str(src)]
    assert cli_main(args) == 1
    assert "bearer must be < 32, got 40" in capsys.readouterr().err
    assert cli_main(["zuc", "keystream", "--key", "00" * 20, "--iv", "00" * 16, "--bytes", "4"]) == 1
    assert "key must be 16 bytes (ZUC-128) or 32 bytes (ZUC-256), got 20" in capsys.readouterr().err
