"""zuc.eea3_many / zuc.eia3_many: many 3GPP messages at once, checked against
the standard's vectors and against zuc.eea3 / zuc.eia3 one message at a time."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import assert_gil_released, load_vectors, unhex
from hypothesis import given, settings
from hypothesis import strategies as st

from shangmi import zuc
from shangmi.exceptions import InvalidInputError, InvalidKey, ShangmiTypeError

V = load_vectors("zuc.json")
K16 = bytes(range(16))


def _mask_tail(data: bytes, length_bits: int) -> bytes:
    n = (length_bits + 7) // 8
    out = bytearray(data[:n])
    if length_bits % 8:
        out[-1] &= (0xFF << (8 - length_bits % 8)) & 0xFF
    return bytes(out)


def _msg(e: dict[str, Any], field: str) -> tuple[bytes, int, int, int, bytes, int]:
    return (unhex(e["key"]), int(e["count"], 16), e["bearer"], e["direction"], unhex(e[field]), e["length_bits"])


def test_eea3_many_vectors() -> None:
    # three copies: more messages than one group of SIMD lanes
    entries = V["eea3"] * 3
    got = zuc.eea3_many([_msg(e, "plaintext") for e in entries])
    assert got == [_mask_tail(unhex(e["ciphertext"]), e["length_bits"]) for e in entries]
    back = zuc.eea3_many([_msg(e, "ciphertext") for e in entries])
    assert back == [_mask_tail(unhex(e["plaintext"]), e["length_bits"]) for e in entries]


def test_eia3_many_vectors() -> None:
    entries = V["eia3"] * 3
    assert zuc.eia3_many([_msg(e, "message") for e in entries]) == [unhex(e["mac"]) for e in entries]


_message = st.tuples(
    st.binary(min_size=16, max_size=16),
    st.integers(0, 2**32 - 1),
    st.integers(0, 31),
    st.integers(0, 1),
    st.binary(max_size=700),
    st.integers(0, 100),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_message, max_size=20))
def test_many_equals_one_at_a_time(raw: list[tuple[bytes, int, int, int, bytes, int]]) -> None:
    msgs: list[zuc.Message] = []
    for key, count, bearer, direction, data, frac in raw:
        if frac % 3 == 0:
            msgs.append((key, count, bearer, direction, data))  # 5-tuple: all of data
        else:
            msgs.append((key, count, bearer, direction, data, 8 * len(data) * frac // 100))
    assert zuc.eea3_many(msgs) == [_one(zuc.eea3, m) for m in msgs]
    assert zuc.eia3_many(msgs) == [_one(zuc.eia3, m) for m in msgs]


def _one(fn: Any, m: zuc.Message) -> bytes:
    """The single-message call for a batch item (``length_bits`` is keyword-only there)."""
    out: bytes = fn(*m[:5], length_bits=m[5] if len(m) == 6 else None)
    return out


def test_many_accepts_any_iterable_and_buffers() -> None:
    data = bytearray(b"\x11" * 100)
    gen = ((K16, i, 3, i % 2, memoryview(data)) for i in range(10))
    assert zuc.eea3_many(gen) == [zuc.eea3(K16, i, 3, i % 2, bytes(data)) for i in range(10)]
    assert zuc.eea3_many([]) == [] and zuc.eia3_many([]) == []


@pytest.mark.parametrize(
    ("bad", "exc", "text"),
    [
        ((K16[:15], 1, 2, 0, b"x"), InvalidKey, "message 1: 128-EEA3 key must be 16 bytes, got 15"),
        ((K16, 2**32, 2, 0, b"x"), InvalidInputError, "message 1: count must be in [0, 2^32)"),
        ((K16, 1, 32, 0, b"x"), InvalidInputError, "message 1: bearer must be < 32, got 32"),
        ((K16, 1, 2, 2, b"x"), InvalidInputError, "message 1: direction must be 0 or 1, got 2"),
        ((K16, 1, 2, 0, b"x", 9), InvalidInputError, "message 1: length_bits must be in [0, 8 * len(data)]"),
        ((K16, 1, 2, 0, "text"), ShangmiTypeError, "message 1: expected a bytes-like object"),
        ((K16, 1, 2), TypeError, "message 1: expected a (key, count, bearer, direction, data[, length_bits]) tuple"),
        ([K16, 1, 2, 0, b"x"], TypeError, "message 1: expected a"),
    ],
)
def test_many_errors_name_the_message(bad: Any, exc: type[Exception], text: str) -> None:
    good = (K16, 1, 2, 0, b"x")
    with pytest.raises(exc) as info:
        zuc.eea3_many([good, bad, good])
    assert text in str(info.value)
    with pytest.raises(exc, match="message 1: "):
        zuc.eia3_many([good, bad])


def test_many_rejects_a_single_buffer() -> None:
    with pytest.raises(TypeError, match="iterable of"):
        zuc.eea3_many(b"not a list")  # type: ignore[arg-type]


def test_many_releases_the_gil() -> None:
    data = bytes(4 << 20)
    assert_gil_released(lambda: zuc.eea3_many([(K16, i, 1, 0, data) for i in range(8)]))


# --- eea3_many_into: the caller's buffers -----------------------------------------------


def test_eea3_many_into_vectors() -> None:
    # The standard's ciphertexts land in the caller's buffers, and only there.
    entries = V["eea3"] * 3
    msgs = [_msg(e, "plaintext") for e in entries]
    outs = [bytearray(b"\xaa" * ((e["length_bits"] + 7) // 8)) for e in entries]
    assert zuc.eea3_many_into(msgs, outs) is None
    for e, out in zip(entries, outs):
        assert bytes(out) == _mask_tail(unhex(e["ciphertext"]), e["length_bits"])


def test_eea3_many_into_reused_buffers_and_views() -> None:
    # Slices of one bytearray (disjoint) are fine; reusing them gives fresh results.
    data = bytes(range(256)) * 16
    msgs = [(K16, i, i % 32, i % 2, data[i * 100 : i * 100 + 100 + i]) for i in range(17)]
    arena = bytearray(sum(len(m[4]) for m in msgs))
    views, off = [], 0
    for m in msgs:
        views.append(memoryview(arena)[off : off + len(m[4])])
        off += len(m[4])
    for _ in range(2):
        zuc.eea3_many_into(msgs, views)
        assert [bytes(v) for v in views] == zuc.eea3_many(msgs)


@pytest.mark.parametrize(
    "outs, exc, text",
    [
        ([bytearray(9)], InvalidInputError, "message 0"),  # wrong length
        ([bytearray(10), bytearray(10)], InvalidInputError, "2 output buffers for 1 messages"),
        ([b"\x00" * 10], ShangmiTypeError, "output 0: expected a writable bytes-like object"),
        ([memoryview(b"\x00" * 10)], ShangmiTypeError, "read-only"),
        (["x" * 10], ShangmiTypeError, "output 0"),
        (bytearray(10), ShangmiTypeError, "expected an iterable of writable buffers"),
    ],
)
def test_eea3_many_into_errors(outs: Any, exc: type[Exception], text: str) -> None:
    with pytest.raises(exc, match=text):
        zuc.eea3_many_into([(K16, 0, 0, 0, bytes(10))], outs)


def test_eea3_many_into_refuses_overlap() -> None:
    arena = bytearray(30)
    view = memoryview(arena)
    msgs = [(K16, 0, 0, 0, bytes(10)), (K16, 1, 0, 0, bytes(10))]
    with pytest.raises(InvalidInputError, match="must not overlap"):
        zuc.eea3_many_into(msgs, [view[0:10], view[5:15]])  # two outputs
    with pytest.raises(InvalidInputError, match="must not overlap"):
        zuc.eea3_many_into(msgs, [arena, arena])  # the same buffer twice (and the wrong length)
    data = bytearray(10)
    with pytest.raises(InvalidInputError, match="must not overlap"):
        zuc.eea3_many_into([(K16, 0, 0, 0, data)], [data])  # in place
    assert arena == bytearray(30) and data == bytearray(10)  # nothing was written
    # Adjacent, not overlapping: accepted.
    zuc.eea3_many_into(msgs, [view[0:10], view[10:20]])
    assert bytes(view[0:20]) == b"".join(zuc.eea3_many(msgs))
