"""The interpreter's value helpers (values.py): which threads are known, widths, wrapping and broadcasts,
each against a direct Python statement of what it means."""

from __future__ import annotations

import numpy as np
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from layoutalg.kernel.interp.values import (
    Value,
    broadcast,
    broadcast_known,
    from_int,
    known_all,
    known_and,
    unknown_lanes,
    width_mask,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, phases=[Phase.generate])
BOOLS = st.lists(st.booleans(), min_size=6, max_size=6)


@SETTINGS
@given(st.one_of(st.just(True), st.just(False), BOOLS), st.one_of(st.none(), BOOLS))
def test_known_all_and_unknown_lanes_agree_with_a_per_thread_reading(k, mask):
    per = [k] * 6 if isinstance(k, bool) else k
    sel = [True] * 6 if mask is None else mask
    kk = k if isinstance(k, bool) else np.array(k)
    mm = None if mask is None else np.array(mask)
    assert known_all(kk, mm) == all(p for p, s in zip(per, sel) if s)
    got = unknown_lanes(kk, mm, 6)
    want = [s and not p for p, s in zip(per, sel)]
    assert (got is None) == (not any(want))
    if got is not None:
        assert got.tolist() == want


@SETTINGS
@given(st.lists(st.one_of(st.just(True), st.just(False), BOOLS), max_size=3))
def test_known_and_is_the_per_thread_conjunction(ks):
    got = known_and(*[k if isinstance(k, bool) else np.array(k) for k in ks])
    want = [all((k if isinstance(k, bool) else k[t]) for k in ks) for t in range(6)]
    assert np.broadcast_to(np.asarray(got), (6,)).tolist() == want


@SETTINGS
@given(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=4), st.sampled_from([8, 16, 32, 64]))
def test_from_int_wraps_to_the_width(values, width):
    assert [int(v) for v in from_int(np.array(values, dtype=np.int64), width)] == [v % (1 << width) for v in values]
    assert int(from_int(np.int64(values[0]), width)) == values[0] % (1 << width)
    assert int(from_int(np.uint64(values[0] % (1 << 64)), width)) == values[0] % (1 << width)
    assert int(width_mask(width)) == (1 << width) - 1


def test_broadcasts_give_one_entry_per_thread_and_keep_arrays():
    assert broadcast(np.uint64(7), 3).tolist() == [7, 7, 7]
    arr = np.array([1, 2, 3], dtype=np.uint64)
    assert broadcast(arr, 3) is arr
    assert broadcast_known(True, 2).tolist() == [True, True]
    assert broadcast_known(False, 2).tolist() == [False, False]
    k = np.array([True, False])
    assert broadcast_known(k, 2) is k


def test_value_repr_shows_bits_and_knownness():
    text = repr(Value(np.uint64(5), False))
    assert text.startswith("Value(") and "5" in text and "known=False" in text


def test_known_and_with_a_scalar_unknown_is_unknown() -> None:
    assert known_and(True, False) is False
    assert known_and(np.array([True, False]), False) is False
    assert known_and(False, np.array([True, True])) is False


def test_as_u_keeps_the_low_width_bits_and_as_s_reads_them_as_twos_complement() -> None:
    from layoutalg.kernel.interp.values import as_s, as_u

    top = np.uint64(0x8000000000000001)
    assert int(as_u(top, 63)) == 1 and int(as_u(top, 64)) == 0x8000000000000001
    for width in (8, 16, 32, 63):
        for x in (0, 1, (1 << (width - 1)) - 1, 1 << (width - 1), (1 << width) - 1):
            want = x - (1 << width) if x >> (width - 1) else x
            assert int(as_s(np.uint64(x), width)) == want, (width, x)
            assert int(as_s(np.uint64(x | (1 << width) | (1 << 63)), width)) == want, (width, x)  # high bits ignored
