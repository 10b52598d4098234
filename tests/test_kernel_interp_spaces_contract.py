"""The interpreter's byte stores and buffer limit (spaces.py): reads of any width 1..8 are little-endian
(PTX memory is little-endian), forgetting bytes makes exactly those unknown, bounds are half-open, and
too many global buffers are refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from layoutalg.errors import KernelError
from layoutalg.kernel.interp.spaces import MAX_BUFFERS, ByteStore, check_buffer_count

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
