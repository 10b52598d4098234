"""The Layout value: construction, evaluation, slicing and whole-domain evaluation."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracles import reference as ref

from layoutalg import strategies as ls
from layoutalg.core.layout import Layout, make_layout, slice_and_offset
from layoutalg.errors import CoordinateError, ShapeError

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck), database=None)


def test_construction() -> None:
    a = Layout((2, (3, 4)))
    assert a.stride == (1, (2, 6))
    assert Layout.right((2, 3, 4)).stride == (12, 4, 1)
    assert a.size() == 24 and a.rank() == 2 and a.depth() == 2
    assert a[1] == Layout((3, 4), (2, 6)) and a.get(1, 0) == Layout(3, 2)
    assert Layout((4, 2), (2, 1)).cosize() == 8
    assert Layout(4, -1).cosize() == 1
    assert hash(Layout((2, 2))) == hash(Layout((2, 2), (1, 2)))
    with pytest.raises(AttributeError):
        a.shape = 3  # type: ignore[misc]


@SETTINGS
@given(ls.layouts(negative=True, max_depth=3))
def test_evaluation_matches_reference(a: Layout) -> None:
    expected = ref.values(a.shape, a.stride)
    assert [a(i) for i in range(a.size())] == expected
    assert [int(v) for v in a.to_numpy()] == expected
    beyond = [a.size() + k for k in range(3)]
    assert [int(v) for v in a.evaluate_indices(beyond)] == [ref.evaluate(a.shape, a.stride, i) for i in beyond]
    assert [a(i) for i in beyond] == [ref.evaluate(a.shape, a.stride, i) for i in beyond]


def test_coordinates_and_slices() -> None:
    a = Layout(((2, 4), 8), ((1, 16), 2))
    assert a((1, 2), 3) == 1 + 32 + 6
    assert a(((1, 2), 3)) == 39
    assert a(3, 3) == a((1, 1), 3)
    sub, offset = slice_and_offset(a, ((None, 1), None))
    assert sub == Layout((2, 8), (1, 2)) and offset == 16
    assert a(None, 2) == Layout(((2, 4),), ((1, 16),))  # the kept modes stay a tuple, as in CuTe
    with pytest.raises(CoordinateError):
        a((1, 2, 3))
    with pytest.raises(CoordinateError):
        a(-1)


def test_make_layout_and_huge_values() -> None:
    assert make_layout(Layout(2), Layout(3, 2)) == Layout((2, 3), (1, 2))
    big = Layout((2, 2), (1 << 62, 1 << 63))
    assert [int(v) for v in big.to_numpy()] == [0, 1 << 62, 1 << 63, (1 << 62) + (1 << 63)]
    with pytest.raises(ShapeError):
        make_layout(Layout(2), 3)  # type: ignore[arg-type]


@settings(max_examples=300, deadline=None)
@given(ls.layouts(), st.integers(min_value=0, max_value=4))
def test_index_fast_path_matches_unfold_then_dot(layout: Layout, multiple: int) -> None:
    """``L(i)`` for a plain int (fast path) is ``crd2idx(idx2crd(i))``, past size() too."""
    from layoutalg.core import int_tuple

    for index in range(0, layout.size() * (multiple + 1), max(1, layout.size() // 16)):
        coordinate = int_tuple.idx2crd(index, layout.shape)
        assert layout(index) == int_tuple.crd2idx(coordinate, layout.shape, layout.stride)
        assert layout(index) == ref.evaluate(layout.shape, layout.stride, index)
