"""CuTe DSL's free query functions (layoutalg.swizzle.queries): mode paths at both ends of each rank, the
objects read through their shape, and a typed error for every object or path they do not take."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

from layoutalg.core.layout import Layout
from layoutalg.errors import CoordinateError, LayoutError
from layoutalg.swizzle import queries as q
from layoutalg.swizzle.composed import ComposedLayout
from layoutalg.swizzle.swizzle import Swizzle

NESTED = Layout(((2, 4), 3), ((1, 2), 8))
SWIZZLED = ComposedLayout(Swizzle(1, 0, 1), 0, NESTED)


def test_queries_follow_a_mode_path_into_nested_modes() -> None:
    assert q.size(NESTED) == 24 and q.size(NESTED, mode=[0, 1]) == 4 and q.size(NESTED, 1) == 3
    assert q.rank(NESTED) == 2 and q.rank(NESTED, 0) == 2 and q.rank(NESTED, [0, 0]) == 1
    assert q.depth(NESTED) == 2 and q.depth(NESTED, 0) == 1 and q.depth(NESTED, (1,)) == 0
    assert q.shape(NESTED, 0) == (2, 4) and q.shape(SWIZZLED, [0, 1]) == 4
    assert q.stride(NESTED, [0, 1]) == 2 and q.stride(NESTED) == ((1, 2), 8)
    assert q.cosize(NESTED, 1) == 17  # 3:8 reaches 16
    assert q.cosize(SWIZZLED) == max(SWIZZLED(i) for i in range(24)) + 1
    assert q.get(NESTED, -2) == Layout((2, 4), (1, 2)) and q.get(SWIZZLED, 1) == SWIZZLED[1]


def test_an_int_is_a_rank_one_depth_zero_tuple_and_integer_types_and_shaped_objects_are_read() -> None:
    assert q.rank(5) == 1 and q.depth(5) == 0 and q.get(5, 0) == 5 and q.get(5, -1) == 5
    assert q.size(np.int64(6)) == 6
    assert q.size(np.zeros((2, 3))) == 6 and q.rank(np.zeros((2, 3))) == 2  # read through .shape
    assert q.size(Shaped((2, (3, 4)))) == 24
    assert q.get((1, (2, 3)), [1, -1]) == 3
    assert q.size(IntLike(6)) == 6 and q.rank(IntLike(6)) == 1  # anything with __index__ is an int


class IntLike:
    """An integer type of some other library: only ``__index__``, no numpy ``ndim``."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


class Shaped:
    """A tensor-like object of another library, read through its ``shape``."""

    def __init__(self, shape: Any) -> None:
        self.shape = shape


@pytest.mark.parametrize("x, rank", [(NESTED, 2), (SWIZZLED, 2), ((1, 2, 3), 3), (7, 1)])
def test_get_takes_indices_from_minus_rank_to_rank_minus_one(x: Any, rank: int) -> None:
    assert q.get(x, rank - 1) == q.get(x, -1)
    assert q.get(x, -rank) == q.get(x, 0)
    for outside in (rank, -rank - 1):
        with pytest.raises(CoordinateError, match=rf"mode \[{outside}\] is out of range"):
            q.get(x, outside)


def test_an_out_of_range_mode_names_the_path_up_to_the_bad_index() -> None:
    with pytest.raises(CoordinateError, match=r"mode \[5\] is out of range"):
        q.get(NESTED, [5, 0])
    with pytest.raises(CoordinateError, match=r"mode \[0, 5\] is out of range"):
        q.get(NESTED, [0, 5, 1])


@pytest.mark.parametrize("mode", [True, [0, True], "0", 1.0, [0.0]])
def test_a_mode_that_is_not_an_int_or_a_list_of_ints_is_a_coordinate_error(mode: Any) -> None:
    with pytest.raises(CoordinateError, match="mode must be an int or a list of ints"):
        q.size(NESTED, mode)


@pytest.mark.parametrize(
    "query, x, message",
    [
        (q.size, 2.5, "size takes an int tuple, Layout or ComposedLayout, got float"),
        (q.rank, object(), "rank takes an int tuple, Layout or ComposedLayout, got object"),
        (q.get, 2.5, "get takes an int tuple, Layout or ComposedLayout, got float"),
        (q.get, True, "get takes an int tuple, Layout or ComposedLayout, got bool"),
        (q.size, Shaped((2, 2.5)), "size takes an int tuple, Layout or ComposedLayout, got Shaped"),
        (q.cosize, (2, 3), "cosize takes a Layout or ComposedLayout, got tuple"),
        (q.stride, (2, 3), "stride takes a plain Layout, got tuple$"),
        (q.stride, SWIZZLED, r"a swizzled layout has no stride; use \.inner"),
    ],
)
def test_queries_refuse_what_they_do_not_take_with_a_layout_error(query: Callable[..., Any], x: Any,
                                                                  message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        query(x, 0) if query is q.get else query(x)
