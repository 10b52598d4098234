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
        (q.size, 2.5, "size takes a tuple or a layout, got float"),
        (q.rank, object(), "rank takes a tuple or a layout, got object"),
        (q.get, 2.5, "get takes a tuple or a layout, got float"),
        (q.get, True, "get takes a tuple or a layout, got bool"),
        (q.size, Shaped((2, 2.5)), "size takes a tuple or a layout, got Shaped"),
        (q.cosize, (2, 3), "cosize takes a layout, got tuple"),
        (q.stride, object(), "stride takes a tuple or a layout, got object"),
        (q.stride, SWIZZLED, r"a swizzled layout has no stride; use \.inner"),
    ],
)
def test_queries_refuse_what_they_do_not_take_with_a_layout_error(query: Callable[..., Any], x: Any,
                                                                  message: str) -> None:
    with pytest.raises(LayoutError, match=message):
        query(x, 0) if query is q.get else query(x)


# ------------------------------------------------------------------ coordinate, F2 and symbolic layouts
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import layoutalg as la  # noqa: E402
from layoutalg.core.stride_scalars import F2, E  # noqa: E402


@st.composite
def _coordinate_layouts(draw: Any) -> Any:
    """Nested layouts whose strides are basis vectors (k*E(i)) or F2 values on one axis."""
    kind = draw(st.sampled_from(["E", "F2"]))
    leaf = (lambda: draw(st.integers(0, 3)) * E(draw(st.integers(0, 2)))) if kind == "E" else (
        lambda: F2(draw(st.integers(0, 15))))
    shape, stride = [], []
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.booleans()):
            sub = tuple(draw(st.integers(1, 4)) for _ in range(draw(st.integers(1, 2))))
            shape.append(sub)
            stride.append(tuple(leaf() for _ in sub))
        else:
            shape.append(draw(st.integers(1, 5)))
            stride.append(leaf())
    return la.stride_layout(tuple(shape), tuple(stride))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), database=None,
          derandomize=True)
@given(_coordinate_layouts())
def test_queries_read_coordinate_and_f2_layouts_as_their_own_methods_do(layout: Any) -> None:
    assert q.size(layout) == layout.size() and q.rank(layout) == layout.rank()
    assert q.depth(layout) == layout.depth() and q.shape(layout) == layout.shape
    assert q.stride(layout) == layout.stride
    for i in range(layout.rank()):
        assert q.get(layout, i) == layout[i] and q.size(layout, i) == layout[i].size()
    flat = la.flatten(layout)
    assert all(flat(i) == layout(i) for i in range(layout.size()))
    coshape = la.coshape(layout)
    extents = coshape if isinstance(coshape, tuple) else (coshape,)
    assert q.cosize(layout) == int(np.prod(la.flatten(extents)))  # CuTe: cosize(L) == size(coshape(L))


def test_queries_and_flatten_take_symbolic_extents_and_keep_stride_scalars() -> None:
    import sympy

    n = sympy.Symbol("N", positive=True, integer=True)
    symbolic = la.SymbolicLayout((n, (4, 2)), (1, (n, 4 * n)))
    assert q.size((n, (2, 3))) == 6 * n and q.rank((n, (2, 3))) == 2 and q.depth((n, (2, 3))) == 2
    assert q.size(symbolic) == 8 * n and q.size(symbolic, 1) == 8 and q.stride(symbolic, [1, 1]) == 4 * n
    for value in (1, 3, 7):  # the symbolic cosize is the plain one at every extent
        plain = Layout((value, (4, 2)), (1, (value, 4 * value)))
        assert q.cosize(symbolic).subs(n, value) == plain.cosize()
    assert la.flatten(symbolic) == la.SymbolicLayout((n, 4, 2), (1, n, 4 * n))
    flat = la.flatten((F2(3), (F2(1), 2 * E(1))))
    assert flat == (F2(3), F2(1), 2 * E(1)) and all(type(a) is type(b) for a, b in zip(flat, (F2(3), F2(1), E(1))))
    with pytest.raises(LayoutError, match="not extents"):
        q.size((E(0), 2))


def test_a_symbolic_leaf_known_not_to_be_an_integer_is_refused() -> None:
    import sympy

    assert q.size((sympy.Integer(3), 2)) == 6
    for bad in (sympy.Float(2.5), sympy.Rational(1, 2)):
        with pytest.raises(LayoutError, match=r"argument\[0\] must be an int"):
            q.size((bad, 2))
