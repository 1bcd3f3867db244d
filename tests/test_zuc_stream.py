"""``zuc.EEA3``: 128-EEA3 as a stream. Pieces of any size give the 3GPP
vectors' ciphertext bytes and the one-shot ``zuc.eea3`` output; parameters
are checked by the core with the same messages as ``zuc.eea3``."""

from __future__ import annotations

import os
import pickle
from typing import Any

import pytest
from conftest import load_vectors, unhex
from hypothesis import given
from hypothesis import strategies as st

from shangmi import zuc
from shangmi.exceptions import InvalidInputError, InvalidKey, ShangmiTypeError

V = load_vectors("zuc.json")


@pytest.mark.parametrize("e", V["eea3"], ids=[e["id"] for e in V["eea3"]])
def test_stream_matches_vectors_in_pieces(e: dict[str, Any]) -> None:
    pt, ct = unhex(e["plaintext"]), unhex(e["ciphertext"])
    n = e["length_bits"] // 8  # whole bytes: the stream has no bit length
    for piece in (1, 3, 4, 5, 64, n or 1):
        s = zuc.EEA3(unhex(e["key"]), int(e["count"], 16), e["bearer"], e["direction"])
        got = b"".join(s.update(pt[i : min(i + piece, n)]) for i in range(0, n, piece))
        assert got == ct[:n], (e["id"], piece)


@given(st.binary(max_size=3000), st.lists(st.integers(0, 700), max_size=8))
def test_stream_equals_one_shot(data: bytes, cuts: list[int]) -> None:
    key = bytes(range(16))
    s = zuc.EEA3(key, 0x1234, 7, 1)
    out, at = [], 0
    for c in cuts:
        out.append(s.update(data[at : at + c]))
        at += c
    out.append(s.update(memoryview(data)[at:]))
    assert b"".join(out) == zuc.eea3(key, 0x1234, 7, 1, data)


@pytest.mark.parametrize(
    ("args", "exc", "message"),
    [
        ((bytes(16), 0, 40, 0), InvalidInputError, "bearer must be < 32, got 40"),
        ((bytes(16), 0, 0, 2), InvalidInputError, "direction must be 0 or 1, got 2"),
        ((bytes(16), 1 << 32, 0, 0), InvalidInputError, "count must be in [0, 2^32), got 4294967296"),
        ((bytes(15), 0, 0, 0), InvalidKey, "128-EEA3 key must be 16 bytes, got 15"),
    ],
)
def test_bad_parameters_same_messages_as_eea3(args: tuple[Any, ...], exc: type[Exception], message: str) -> None:
    with pytest.raises(exc) as info:
        zuc.EEA3(*args)
    assert str(info.value) == message
    with pytest.raises(exc) as one_shot:
        zuc.eea3(*args, b"")
    assert str(one_shot.value) == message


def test_types_and_pickling() -> None:
    s = zuc.EEA3(os.urandom(16), 1, 2, 0)
    with pytest.raises(ShangmiTypeError):
        s.update("text")  # type: ignore[arg-type]
    with pytest.raises(ShangmiTypeError):
        zuc.EEA3(bytes(16), "1", 0, 0)  # type: ignore[arg-type]
    with pytest.raises(ShangmiTypeError):
        pickle.dumps(s)
    assert repr(s) == "<shangmi.zuc.EEA3 object>"
