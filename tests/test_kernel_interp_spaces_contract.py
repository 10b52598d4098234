"""The interpreter's byte stores and buffer limit (spaces.py): reads of any width 1..8 are little-endian
(PTX memory is little-endian), forgetting bytes makes exactly those unknown, bounds are half-open, and
too many global buffers are refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.spaces import (
    LOCAL_WINDOW,
    MAX_BUFFERS,
    PARAM_WINDOW,
    SHARED_WINDOW,
    WINDOW_SPAN,
    ByteStore,
    check_buffer_count,
    classify_generic,
    decode_global,
)

SETTINGS = settings(max_examples=30, deadline=None, derandomize=True, phases=[Phase.generate])


@SETTINGS
@given(st.binary(min_size=40, max_size=40), st.integers(1, 8), st.integers(0, 31))
def test_reads_of_every_width_are_little_endian_at_any_offset(data, width, offset):
    store = ByteStore(2, 1024, 40)
    raw = np.frombuffer(data, dtype=np.uint8)
    rows = np.array([0, 1])
    store.write(rows, np.array([1024, 1024]), 40, np.stack([raw, raw[::-1]]), np.ones((2, 40), dtype=bool))
    bits, known = store.read(rows, np.array([1024 + offset] * 2), width)
    assert [int(b) for b in bits] == [int.from_bytes(data[offset:offset + width], "little"),
                                     int.from_bytes(data[::-1][offset:offset + width], "little")]
    assert known.tolist() == [True, True]


@SETTINGS
@given(st.integers(0, 30), st.sampled_from([1, 2, 3, 4, 8, 16]), st.integers(0, 8))
def test_forget_makes_exactly_those_bytes_unknown(start, width, probe):
    store = ByteStore(1, 0, 64)
    rows = np.array([0])
    store.write(rows, np.array([0]), 8, np.zeros((1, 8), dtype=np.uint8), np.ones((1, 8), dtype=bool))
    for k in range(1, 8):
        store.write(rows, np.array([8 * k]), 8, np.array([k], dtype=np.uint64), np.array([True]))
    store.forget(rows, np.array([start]), width)
    for addr in range(0, 48):
        _, known = store.read(rows, np.array([addr]), 1)
        assert bool(known[0]) == (not start <= addr < start + width), addr


def test_forget_rows_clears_whole_rows_only():
    store = ByteStore(3, 0, 16)
    rows = np.array([0, 1, 2])
    store.write(rows, np.zeros(3, dtype=np.int64), 8, np.array([1, 2, 3], dtype=np.uint64), np.ones(3, dtype=bool))
    store.forget_rows(np.array([1, 1]))
    assert store.read(rows, np.zeros(3, dtype=np.int64), 8)[1].tolist() == [True, False, True]


def test_in_bounds_is_half_open_over_base_and_size():
    store = ByteStore(1, 1024, 100)
    addr = np.array([1023, 1024, 1120, 1121, 1124])
    assert store.in_bounds(addr, 4).tolist() == [False, True, True, False, False]
    assert store.in_bounds(np.array([1123]), 1).tolist() == [True]


def test_more_global_buffers_than_the_tracer_numbers_are_refused():
    check_buffer_count(MAX_BUFFERS - 1)
    limit = f"{MAX_BUFFERS} global buffers; the tracer supports at most {MAX_BUFFERS - 1}$"
    with pytest.raises(KernelError, match=limit):
        check_buffer_count(MAX_BUFFERS)


def test_global_addresses_decode_to_buffer_and_offset_and_others_to_no_buffer():
    # buffer k starts at (k + 1) << 44 and reaches offsets [-2**43, 2**43) (module doc)
    good = [(k, off) for k in (0, 1, MAX_BUFFERS - 1) for off in (-(1 << 43), -1, 0, 5, (1 << 43) - 1)]
    addr = np.array([((k + 1) << 44) + off for k, off in good], dtype=np.uint64)
    buf, off = decode_global(addr)
    assert list(zip(buf.tolist(), off.tolist())) == good
    # null and small pointers, the first address past the last buffer, the shared/local/param windows
    none = [0, 4096, (1 << 43) - 1, (MAX_BUFFERS + 1) << 44, SHARED_WINDOW, LOCAL_WINDOW + 8, PARAM_WINDOW]
    buf, off = decode_global(np.array(none, dtype=np.uint64))
    assert buf.tolist() == [-1] * len(none)
    assert off.tolist() == none


def test_generic_windows_are_half_open_and_everything_else_is_global():
    cases = {}
    for code, base in ((1, SHARED_WINDOW), (2, LOCAL_WINDOW), (3, PARAM_WINDOW)):
        cases.update({base - 1: 0, base: code, base + WINDOW_SPAN - 1: code, base + WINDOW_SPAN: 0})
    cases.update({0: 0, (1 << 44) + 8: 0})
    got = classify_generic(np.array(list(cases), dtype=np.uint64))
    assert got.tolist() == list(cases.values())


def _model_write(model: bytearray, known: list[bool], offset: int, data: bytes, kn: list[bool]) -> None:
    model[offset:offset + len(data)] = data
    known[offset:offset + len(data)] = kn


@pytest.mark.parametrize("per_byte", [False, True])
@pytest.mark.parametrize("as_bytes", [False, True])
def test_writes_of_every_width_at_every_offset_land_little_endian_on_exactly_their_bytes(as_bytes, per_byte):
    rng = np.random.default_rng(7)
    for width in range(1, 9):
        for offset in range(0, 17):
            store = ByteStore(2, 1024, 40)
            model = [bytearray(40), bytearray(40)]
            known = [[False] * 40, [False] * 40]
            rows = np.array([0, 1])
            for r in (0, 1):  # a known background
                store.write(rows[r:r + 1], np.array([1024]), 40, np.full((1, 40), 0xA5, dtype=np.uint8),
                            np.ones((1, 40), dtype=bool))
                _model_write(model[r], known[r], 0, b"\xa5" * 40, [True] * 40)
            values = rng.integers(0, 1 << 63, size=2, dtype=np.uint64)
            data = [int(v).to_bytes(8, "little")[:width] for v in values]
            kn = rng.random((2, width)) < 0.5 if per_byte else np.array([True, False])[:, None].repeat(width, 1)
            vals = np.stack([np.frombuffer(d, dtype=np.uint8) for d in data]) if as_bytes else values
            knowns = kn if per_byte else kn[:, 0]
            store.write(rows, np.array([1024 + offset] * 2), width, vals, knowns)
            for r in (0, 1):
                _model_write(model[r], known[r], offset, data[r], [bool(x) for x in kn[r]])
            for r in (0, 1):
                got, got_known = store.read(np.array([r] * 40), np.arange(1024, 1064), 1)
                assert got_known.tolist() == known[r], (width, offset, r)
                assert [int(g) for g, k in zip(got, known[r]) if k] == [b for b, k in zip(model[r], known[r]) if k]


def test_forget_of_any_width_makes_exactly_those_bytes_unknown():
    for width in range(1, 18):
        for start in range(0, 33):
            store = ByteStore(1, 0, 64)
            rows = np.array([0])
            store.write(rows, np.array([0]), 64, np.zeros((1, 64), dtype=np.uint8), np.ones((1, 64), dtype=bool))
            store.forget(rows, np.array([start]), width)
            _, known = store.read(np.zeros(64, dtype=np.int64), np.arange(64), 1)
            assert known.tolist() == [not start <= a < start + width for a in range(64)], (width, start)
